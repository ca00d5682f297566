package dev.lakestream.segments;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lakestream.core.log.LogEntry;
import dev.lakestream.core.segment.SegmentFile;
import dev.lakestream.core.segment.SegmentWriter;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A micro-measure, not a timed assertion: MiB/s of raw entries written into segments on one thread, for 1 KiB and
 * 100 KiB entries, random (incompressible, like producer-compressed batches) and text-like (compressible) bytes, ZSTD
 * level 1 and 3 and uncompressed. The figures go to the log (target/surefire-reports/...-output.txt); the issue's
 * target is at least 50 MiB/s per core for topics that are not materialized.
 */
class WriteThroughputTest {

    private static final Logger LOG = LoggerFactory.getLogger(WriteThroughputTest.class);
    private static final long BYTES = 128L << 20;

    @Test
    void measuresTheWritersThroughput() {
        StringBuilder report = new StringBuilder("segment write throughput (one thread, " + (BYTES >> 20) + " MiB):");
        for (int size : new int[] {1 << 10, 100 << 10}) {
            for (boolean compressible : new boolean[] {false, true}) {
                ByteBuf[] payloads = payloads(size, compressible);
                for (ParquetSegmentOptions options : new ParquetSegmentOptions[] {
                    ParquetSegmentOptions.DEFAULT,
                    ParquetSegmentOptions.DEFAULT.withCodec(CompressionCodecName.ZSTD, 3),
                    ParquetSegmentOptions.DEFAULT.withCodec(CompressionCodecName.UNCOMPRESSED, 0)
                }) {
                    write(options, payloads); // warm-up
                    long start = System.nanoTime();
                    SegmentFile file = write(options, payloads);
                    double seconds = (System.nanoTime() - start) / 1e9;
                    assertThat(file.payloadBytes()).isGreaterThanOrEqualTo(BYTES);
                    report.append(String.format(
                            "%n  %6d B entries, %-14s %-12s %7.1f MiB/s, file %5.1f%% of the payload",
                            size,
                            compressible ? "text-like," : "random,",
                            options.codec()
                                    + (options.codec() == CompressionCodecName.ZSTD ? "-" + options.zstdLevel() : "")
                                    + ":",
                            file.payloadBytes() / seconds / (1 << 20),
                            100.0 * file.size() / file.payloadBytes()));
                }
            }
        }
        LOG.info("{}", report);
        System.out.println(report);
    }

    private static SegmentFile write(ParquetSegmentOptions options, ByteBuf[] payloads) {
        ParquetSegmentFormat format = new ParquetSegmentFormat(options, ValueColumns.NONE);
        try (SegmentWriter w = format.newWriter(1, 0, new MemoryUpload("throughput"))) {
            long offset = 0;
            int i = 0;
            while (w.payloadBytes() < BYTES) {
                ByteBuf p = payloads[i++ % payloads.length];
                w.append(new LogEntry(1, offset, 4, 0, p.duplicate()));
                offset += 4;
            }
            return w.finish();
        }
    }

    /**
     * 16 MiB of distinct payloads (so that ZSTD's window never sees one twice): random bytes, or words of a small
     * vocabulary with numbers (JSON-ish text).
     */
    private static ByteBuf[] payloads(int size, boolean compressible) {
        Random random = new Random(size);
        String[] words = {"{\"id\":", "\"name\":", "\"amount\":", "\"ts\":", "true", "null", "\"eu-west\"", "},"};
        ByteBuf[] out = new ByteBuf[Math.max(64, (16 << 20) / size)];
        for (int i = 0; i < out.length; i++) {
            byte[] b = new byte[size];
            if (compressible) {
                StringBuilder s = new StringBuilder();
                while (s.length() < size) {
                    s.append(words[random.nextInt(words.length)]).append(random.nextInt(100_000));
                }
                System.arraycopy(s.toString().getBytes(StandardCharsets.US_ASCII), 0, b, 0, size);
            } else {
                random.nextBytes(b);
            }
            out[i] = Unpooled.wrappedBuffer(b);
        }
        return out;
    }
}
