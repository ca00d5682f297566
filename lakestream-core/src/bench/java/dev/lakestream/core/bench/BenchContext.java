package dev.lakestream.core.bench;

import dev.lakestream.core.Lakestream;
import dev.lakestream.core.LakestreamConfig;
import dev.lakestream.core.StreamLog;
import dev.lakestream.core.catalog.StreamInfo;
import dev.lakestream.core.metadata.MetadataStore;
import dev.lakestream.core.objectstore.ObjectStore;
import dev.lakestream.core.objectstore.s3.S3ObjectStore;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What every load of the benchmark runs against: the options, the log's configuration, the two stores behind
 * their counting decorators, the CPU meter and the progress log; and the streams and entries the loads write.
 */
final class BenchContext {

    final BenchOptions o;
    final LakestreamConfig config;
    final CpuMeter cpu;
    final ProgressLog progress;
    /** The S3 store itself, undecorated: the latency injector wraps it. */
    final ObjectStore s3;

    final Instrumented objectsI;
    final ObjectStore objects;
    final Instrumented metadataI;
    final MetadataStore metadata;

    BenchContext(
            BenchOptions o,
            LakestreamConfig config,
            CpuMeter cpu,
            ProgressLog progress,
            ObjectStore s3,
            MetadataStore metadataStore) {
        this.o = o;
        this.config = config;
        this.cpu = cpu;
        this.progress = progress;
        this.s3 = s3;
        this.objectsI = Instrumented.objectStore(s3);
        this.objects = objectsI.asObjectStore();
        this.metadataI = Instrumented.metadataStore(metadataStore);
        this.metadata = metadataI.asMetadataStore();
    }

    void log(String format, Object... args) {
        progress.log(format, args);
    }

    /**
     * Ends the current measurement window of both counting decorators, so that the next phase's calls (its
     * warm-up included) do not land in the figures just taken.
     */
    void detach() {
        objectsI.reset();
        metadataI.reset();
    }

    /** Metadata writes in the current window: index commits and every other put or delete. */
    long metadataWrites() {
        return metadataWrites(metadataI);
    }

    /** Metadata writes in the current window of {@code m}. */
    static long metadataWrites(Instrumented m) {
        return m.calls("putSequence") + m.calls("put") + m.calls("delete") + m.calls("deleteRange");
    }

    /** The object store's limit on requests in flight: the most a reader can have. */
    int s3Concurrency() {
        return ((S3ObjectStore) s3).config().maxConcurrentRequests();
    }

    /** Creates {@code o.streams} streams in the catalog and fences each for {@code log}, as an owner does. */
    List<StreamInfo> createStreams(Lakestream log, String prefix) {
        List<StreamInfo> out = new ArrayList<>(o.streams);
        for (int i = 0; i < o.streams; i++) {
            StreamInfo info =
                    log.catalog().create("bench", prefix + "-" + i, Map.of()).join();
            log.stream(info).fence().join();
            out.add(info);
        }
        return out;
    }

    static List<StreamLog> handles(Lakestream log, List<StreamInfo> infos) {
        return infos.stream().map(log::stream).toList();
    }

    /**
     * One entry: the stream id and the entry's sequence number in the stream (= its offset), then filler. In a
     * pooled direct buffer, as a broker's messages arrive, so the benchmark adds no heap garbage of its own.
     * {@link CatchUpRead} checks this layout when it reads the entries back.
     */
    ByteBuf payload(long streamId, long seq) {
        ByteBuf b = PooledByteBufAllocator.DEFAULT.directBuffer(o.entryBytes, o.entryBytes);
        b.writeLong(streamId).writeLong(seq).writeZero(o.entryBytes - 16);
        return b;
    }
}
