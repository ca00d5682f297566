package dev.lakestream.segments;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lakestream.core.index.IndexKey;
import dev.lakestream.core.index.IndexRecord;
import dev.lakestream.core.index.IndexValue;
import dev.lakestream.core.log.EntryUnreadableException;
import dev.lakestream.core.objectstore.fs.FileSystemObjectStore;
import dev.lakestream.core.objectstore.fs.FileSystemObjectStoreConfig;
import dev.lakestream.core.segment.SegmentReader;
import dev.lakestream.segments.Segments.Entries;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletionException;
import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A segment that is missing, corrupt, truncated or says other things than its compacted record fails the read with
 * {@link EntryUnreadableException} naming the object, the offset and what is wrong; it never returns entries. Buffers
 * taken before the failure are released (the pooled allocator's leak detection would see them otherwise).
 */
class BadSegmentsTest {

    private static final long STREAM = 9;

    @TempDir
    Path dir;

    private FileSystemObjectStore objects;
    private final ByteBufAllocator allocator = PooledByteBufAllocator.DEFAULT;
    private final ParquetSegmentFormat format = new ParquetSegmentFormat(
            ParquetSegmentOptions.DEFAULT.withRowGroupPayloadBytes(64 << 10),
            ValueColumns.NONE,
            new ParquetSegmentReader.Limits(0, 64 << 10, 16));
    private Entries entries;
    private Segments.Written file;
    private byte[] bytes;

    @BeforeEach
    void open() {
        objects = new FileSystemObjectStore(FileSystemObjectStoreConfig.of(dir));
        entries = Segments.entries(STREAM, 100, 60, 3, new Random(4), (i, r) -> 5_000 + r.nextInt(5_000));
        file = Segments.write(format, entries);
        bytes = new byte[(int) file.size()];
        file.bytes().duplicate().get(bytes);
    }

    @AfterEach
    void close() {
        objects.close();
    }

    private AbstractThrowableAssert<?, ? extends Throwable> readFails(IndexRecord record, long from) {
        try (SegmentReader reader = format.openReader(objects, allocator)) {
            return assertThatThrownBy(
                            () -> reader.read(record, from, 1000, 64 << 20).join())
                    .isInstanceOf(CompletionException.class)
                    .cause()
                    .isInstanceOf(EntryUnreadableException.class)
                    .hasMessageContaining(record.value().location())
                    .hasMessageContaining("offset " + Math.max(from, record.startOffset()));
        }
    }

    @Test
    void aMissingSegment() {
        IndexRecord record = Segments.record("segments/9/missing.parquet", file, 1);
        readFails(record, 100).hasMessageContaining("is missing from the object store");
    }

    @Test
    void aRowGroupWithFlippedBytesFailsItsReadsAndOnlyThose() {
        String key = "segments/9/flipped.parquet";
        IndexRecord record = Segments.store(objects, key, file, 1);
        SegmentFooter footer = SegmentFooter.parse(
                key, file.size(), file.bytes().duplicate(), ParquetSegmentRoundTripTest.readOptions());
        int g = 3;
        byte[] bad = bytes.clone();
        int at = (int) ((footer.groupStart[g] + footer.groupEnd[g]) / 2);
        for (int i = 0; i < 16; i++) {
            bad[at + i] ^= (byte) 0x5a;
        }
        objects.put(key, ByteBuffer.wrap(bad)).join();
        long inGroup = footer.groupFirstOffset[g];
        readFails(record, inGroup)
                .hasMessageContaining("is corrupt")
                .hasMessageContaining("row group " + g)
                .hasMessageContaining("does not decode");
        // A read starting before it and going on into it fails too: no partial list of entries.
        readFails(record, footer.groupFirstOffset[g - 1]).hasMessageContaining("row group " + g);
        // The row groups before it still read.
        try (SegmentReader reader = format.openReader(objects, allocator)) {
            assertThat(reader.read(record, 100, 1, 1).join().stream().map(Segments::row))
                    .containsExactly(entries.expected().get(0));
        }
    }

    @Test
    void aTruncatedSegment() {
        String key = "segments/9/truncated.parquet";
        IndexRecord record = Segments.record(key, file, 1);
        // The footer cut off: the object ends early.
        objects.put(key, ByteBuffer.wrap(bytes, 0, bytes.length - 100)).join();
        readFails(record, 150).hasMessageContaining("is corrupt");
        // Cut before the start of the footer's GET: the store refuses the range.
        objects.put(key, ByteBuffer.wrap(bytes, 0, 1000)).join();
        readFails(record, 150).hasMessageContaining("is corrupt").hasMessageContaining("truncated");
        // The footer's bytes garbled, its length intact.
        byte[] bad = bytes.clone();
        int footerLength = SegmentFooter.footerLength(ByteBuffer.wrap(bytes), bytes.length);
        for (int i = bad.length - 8 - footerLength; i < bad.length - 8; i++) {
            bad[i] = (byte) 0xff;
        }
        objects.put(key, ByteBuffer.wrap(bad)).join();
        readFails(record, 150).hasMessageContaining("is corrupt").hasMessageContaining("footer does not parse");
        // Not Parquet at all.
        objects.put(key, ByteBuffer.wrap(new byte[(int) file.size()])).join();
        readFails(record, 150).hasMessageContaining("is corrupt").hasMessageContaining("PAR1");
    }

    @Test
    void aSegmentThatDisagreesWithItsRecord() {
        String key = "segments/9/other.parquet";
        Segments.store(objects, key, file, 1);
        long end = file.endOffset();
        // Another stream's record, another range, another entry count: each named.
        readFails(record(key, STREAM + 1, end, file.messages(), file.entries()), 100)
                .hasMessageContaining("disagrees with its compacted index record")
                .hasMessageContaining("stream " + STREAM + ", offsets [100, " + end + ")");
        readFails(record(key, STREAM, end + 5, file.messages() + 5, file.entries()), 100)
                .hasMessageContaining("disagrees")
                .hasMessageContaining("offsets [100, " + (end + 5) + ")");
        readFails(record(key, STREAM, end, file.messages(), file.entries() - 1), 100)
                .hasMessageContaining("disagrees")
                .hasMessageContaining((file.entries() - 1) + " entries");
        readFails(record(key, STREAM, end - 1, file.messages() - 1, file.entries()), 100)
                .hasMessageContaining("disagrees");
    }

    private IndexRecord record(String key, long stream, long end, long messages, int entryCount) {
        IndexValue value = IndexValue.compacted(
                key, IndexValue.FILE_TYPE_PARQUET, messages, file.payloadBytes(), file.size(), entryCount, Map.of());
        return new IndexRecord(new IndexKey(stream, end, file.payloadBytes()), value, 1, 1);
    }

    @Test
    void aReadOfNothingLeftInTheRecordIsEmpty() {
        IndexRecord record = Segments.store(objects, "segments/9/ok.parquet", file, 1);
        try (SegmentReader reader = format.openReader(objects, allocator)) {
            assertThat(reader.read(record, file.endOffset(), 10, 10).join()).isEmpty();
            assertThat(reader.read(record, 0, 1, 1).join().stream().map(Segments::row))
                    .isEqualTo(List.of(entries.expected().get(0)));
        }
    }
}
