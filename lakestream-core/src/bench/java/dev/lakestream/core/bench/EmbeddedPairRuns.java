package dev.lakestream.core.bench;

import dev.lakestream.core.Lakestream;
import dev.lakestream.core.LakestreamConfig;
import dev.lakestream.core.StreamLog;
import dev.lakestream.core.catalog.StreamInfo;
import dev.lakestream.core.metadata.embedded.EmbeddedMetadataStore;
import dev.lakestream.core.metadata.embedded.EmbeddedMetadataStoreConfig;
import dev.lakestream.core.objectstore.fs.FileSystemObjectStore;
import dev.lakestream.core.objectstore.fs.FileSystemObjectStoreConfig;
import dev.lakestream.core.wal.WalWriterConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The embedded pair a quickstart broker runs on (a local directory as object store, RocksDB as metadata store,
 * both fsyncing, in a fresh temporary directory on the machine's disk): one append at a time with each flush
 * policy, alternating, and the fixed-rate load over many streams, counting the metadata store's WAL fsyncs
 * against its index commits (its group commit).
 */
final class EmbeddedPairRuns {

    /**
     * The sequential runs (adaptive and deadline alternating); the fixed-rate run; the WAL fsyncs and index
     * commits per second over that whole run (its warm-up included, so the two are comparable).
     */
    record Result(
            List<SequentialAppends.Run> sequential,
            LatencyRun fixedRate,
            double fsyncsPerSecond,
            double commitsPerSecond) {}

    private EmbeddedPairRuns() {}

    static Result run(BenchContext ctx, WriterLoad writer, SequentialAppends oneByOne, LakestreamConfig s3Config)
            throws IOException, InterruptedException {
        BenchOptions o = ctx.o;
        // The PUT-rate cap a broker on the filesystem store has by default (its writes have no request price).
        LakestreamConfig config = s3Config.withWriter(
                s3Config.writer().withMaxPutsPerSecond(WalWriterConfig.FILESYSTEM_MAX_PUTS_PER_SECOND));
        Path dir = Files.createTempDirectory("lakestream-bench-embedded");
        FileSystemObjectStore fs = new FileSystemObjectStore(FileSystemObjectStoreConfig.of(dir.resolve("objects")));
        EmbeddedMetadataStore rocks =
                EmbeddedMetadataStore.open(EmbeddedMetadataStoreConfig.of(dir.resolve("metadata")));
        Instrumented objects = Instrumented.objectStore(fs);
        Instrumented metadata = Instrumented.metadataStore(rocks);
        LakestreamConfig deadlineConfig =
                config.withWriter(config.writer().withFlushPolicy(WalWriterConfig.FlushPolicy.DEADLINE));
        List<SequentialAppends.Run> sequential = new ArrayList<>();
        try (Lakestream adaptive = Lakestream.open(objects.asObjectStore(), metadata.asMetadataStore(), config);
                Lakestream deadline =
                        Lakestream.open(objects.asObjectStore(), metadata.asMetadataStore(), deadlineConfig)) {
            for (int rep = 1; rep <= o.sequentialReps; rep++) {
                sequential.add(oneByOne.run(
                        "adaptive",
                        objects,
                        metadata,
                        oneStream(adaptive, "emb-adaptive-" + rep),
                        1,
                        o.sequentialSeconds));
                sequential.add(oneByOne.run(
                        "deadline",
                        objects,
                        metadata,
                        oneStream(deadline, "emb-deadline-" + rep),
                        1,
                        o.sequentialSeconds));
                SequentialAppends.Run a = sequential.get(sequential.size() - 2);
                SequentialAppends.Run d = sequential.get(sequential.size() - 1);
                ctx.log(
                        "embedded run %d, one at a time: adaptive %.0f appends/s (p50 %.1f ms), deadline %.0f "
                                + "appends/s (p50 %.1f ms)",
                        rep,
                        a.appendsPerSecond(),
                        Figures.ms(a.append(), 0.5),
                        d.appendsPerSecond(),
                        Figures.ms(d.append(), 0.5));
            }
            List<StreamLog> streams = BenchContext.handles(adaptive, ctx.createStreams(adaptive, "emb-rate"));
            long syncs0 = rocks.walSyncs();
            long t0 = System.nanoTime();
            LatencyRun fixed =
                    writer.fixedRate(objects, metadata, streams, o.latencyWarmupSeconds, o.lowRateSeconds, o.rate);
            double seconds = (System.nanoTime() - t0) / 1e9;
            // Fsyncs over the whole run, warm-up included (the store cannot tell the window); at a fixed rate the
            // rate is the same.
            long syncs = rocks.walSyncs() - syncs0;
            double commitsPerSecond = fixed.metadataWrites() / fixed.seconds();
            ctx.log(
                    "embedded, %d appends/s over %d streams: append p50 %.1f ms p99 %.1f ms; %.0f index commits/s, "
                            + "%.0f WAL fsyncs/s",
                    o.rate,
                    streams.size(),
                    Figures.ms(fixed.append(), 0.5),
                    Figures.ms(fixed.append(), 0.99),
                    commitsPerSecond,
                    syncs / seconds);
            return new Result(sequential, fixed, syncs / seconds, commitsPerSecond);
        } finally {
            rocks.close();
            fs.close();
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static StreamLog oneStream(Lakestream log, String name) {
        StreamInfo info = log.catalog().create("bench", name, Map.of()).join();
        StreamLog s = log.stream(info);
        s.fence().join();
        return s;
    }
}
