package dev.lakestream.core;

import static dev.lakestream.core.LayoutDocExamples.example;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lakestream.core.catalog.StreamInfo;
import dev.lakestream.core.index.IndexValue;
import dev.lakestream.core.log.AppendResult;
import dev.lakestream.core.metadata.Record;
import dev.lakestream.core.metadata.embedded.EmbeddedMetadataStore;
import dev.lakestream.core.metadata.embedded.EmbeddedMetadataStoreConfig;
import dev.lakestream.core.objectstore.InvalidObjectKeyException;
import dev.lakestream.core.objectstore.ObjectInfo;
import dev.lakestream.core.objectstore.fs.FileSystemObjectStore;
import dev.lakestream.core.objectstore.fs.FileSystemObjectStoreConfig;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.stream.IntStream;
import me.lemire.integercompression.differential.IntegratedIntCompressor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * docs/layout.md is enough to read what this project writes: its worked byte examples (read from the document) are
 * what the real code produces, and {@link IndependentLayoutReader}, written from the document alone, reads what the
 * real writers wrote.
 */
class LayoutSpecTest {

    @TempDir
    Path dir;

    // ---------------------------------------------------------------------------------------------
    // §2.3.1 entry_offsets

    @ParameterizedTest
    @CsvSource(
            delimiter = ';',
            value = {
                "entry-offsets-3x10; 10,10,10",
                "entry-offsets-1-300; 1,300",
                "entry-offsets-33; 1,2,3,4,5,1,2,3,4,5,1,2,3,4,5,1,2,3,4,5,1,2,3,4,5,1,2,3,4,5,1,2,200",
                "entry-offsets-128x1; 1*128", // 128 times 1
            })
    void entryOffsetsExamplesAreWhatTheWriterWrites(String name, String counts) {
        int[] recordCounts = counts.contains("*")
                ? filled(
                        Integer.parseInt(counts.split("\\*", -1)[1]), i -> Integer.parseInt(counts.split("\\*", -1)[0]))
                : Arrays.stream(counts.split(",")).mapToInt(Integer::parseInt).toArray();
        byte[] documented = example(name);

        assertThat(entryOffsetsField(recordCounts)).isEqualTo(documented);
        assertThat(IndependentLayoutReader.entryOffsetsMessage(documented)).containsExactly(recordCounts);
    }

    @Test
    void theIndependentDecoderReadsEveryEntryOffsetsTheWriterWrites() {
        SplittableRandom random = new SplittableRandom(12);
        List<Integer> sizes =
                new ArrayList<>(IntStream.rangeClosed(2, 300).boxed().toList());
        sizes.addAll(List.of(4096, 10_000));
        for (int n : sizes) {
            int maxEach = Integer.MAX_VALUE / n;
            int[][] inputs = {
                filled(n, i -> 1),
                filled(n, i -> 1 + random.nextInt(10)),
                filled(n, i -> 1 + random.nextInt(maxEach)), // large offsets: wide blocks, 5-byte tail deltas
                filled(n, i -> i == n - 1 ? Integer.MAX_VALUE - (n - 1) : 1), // the last offset at the int32 limit
            };
            for (int[] counts : inputs) {
                byte[] field = entryOffsetsField(counts);
                assertThat(IndependentLayoutReader.entryOffsetsMessage(field))
                        .as("%d entries", n)
                        .containsExactly(counts);
            }
        }
    }

    @Test
    void noEntryOffsetsForOneEntry() {
        byte[] value = new IndexValue("a/b", true, 7, 10, 50, new int[] {7}, Map.of()).encode();
        assertThat(IndependentLayoutReader.protobuf(value)).doesNotContainKey(10);
        assertThat(IndependentLayoutReader.indexValue(value).entryRecordCounts())
                .containsExactly(7);
    }

    /** The library's own compressor on any int array, including 0 and 1 values and blocks of width 32. */
    @Test
    void theIndependentDecoderReadsJavaFastPforOnArbitraryArrays() {
        SplittableRandom random = new SplittableRandom(7);
        List<int[]> inputs = new ArrayList<>();
        for (int n : new int[] {0, 1, 2, 31, 32, 33, 63, 64, 95, 96, 127, 128, 129, 159, 160, 255, 256, 257, 1000}) {
            inputs.add(filled(n, i -> random.nextInt())); // full range: blocks of width 32, 5-byte deltas
            inputs.add(filled(n, i -> random.nextInt(1 << random.nextInt(1, 31)))); // not increasing
            inputs.add(filled(n, i -> 5)); // equal values: deltas 0, width 0
        }
        for (int[] values : inputs) {
            int[] compressed = new IntegratedIntCompressor().compress(values);
            ByteBuffer payload = ByteBuffer.allocate(compressed.length * 4);
            Arrays.stream(compressed).forEach(payload::putInt);
            assertThat(IndependentLayoutReader.entryOffsetsPayload(payload.array()))
                    .as("%d values", values.length)
                    .containsExactly(values);
        }
        assertThat(new IntegratedIntCompressor().compress(new int[0])).containsExactly(0); // n = 0: just the count
        int[] fullRange = filled(32, i -> random.nextInt());
        int[] compressed = new IntegratedIntCompressor().compress(fullRange);
        assertThat(compressed[1]).as("block width").isEqualTo(32);
        assertThat(Arrays.copyOfRange(compressed, 2, 34))
                .as("a width-32 block holds the values")
                .containsExactly(fullRange);
        // equal values 5: the first block's deltas are 5, 0, 0, … (width 3), the second block's all 0 (width 0, no
        // words)
        assertThat(new IntegratedIntCompressor().compress(filled(64, i -> 5))).containsExactly(64, 3, 5, 0, 0, 0);
    }

    // ---------------------------------------------------------------------------------------------
    // §2.3.2, §2.3.3 a whole value and lakestream.indexLength

    @Test
    void theWholeValueExampleIsWhatTheWriterWrites() {
        IndexValue value = new IndexValue(
                "2026/11/29/22/41/07/5b7e0d8e-52d3-4b7b-9f1e-0a1c3b9f6e21",
                false,
                3,
                8,
                208,
                new int[] {1, 2},
                Map.of(IndexValue.EXTRA_INDEX_LENGTH, "32"));
        byte[] documented = example("index-value-stream-7");

        assertThat(value.encode()).isEqualTo(documented);
        IndependentLayoutReader.IndexValue read = IndependentLayoutReader.indexValue(documented);
        assertThat(read.location()).isEqualTo(value.location());
        assertThat(read.entryRecordCounts()).containsExactly(1, 2);
        assertThat(read.extraData()).containsExactly(Map.entry("lakestream.indexLength", "32"));
    }

    // ---------------------------------------------------------------------------------------------
    // §1.3 the filesystem store

    @Test
    void filesystemTrailer() throws Exception {
        java.util.zip.CRC32C check = new java.util.zip.CRC32C(); // the standard CRC-32C §1.3 names
        check.update("123456789".getBytes(StandardCharsets.US_ASCII));
        assertThat(check.getValue()).isEqualTo(0xe3069283L);
        try (FileSystemObjectStore store = new FileSystemObjectStore(FileSystemObjectStoreConfig.of(dir))) {
            store.put("x/hello", ByteBuffer.wrap("hello".getBytes(StandardCharsets.US_ASCII)))
                    .join();
        }
        byte[] file = Files.readAllBytes(dir.resolve("x/hello"));
        assertThat(file).isEqualTo(example("fs-trailer-hello"));
        assertThat(IndependentLayoutReader.objectOfFile(file)).isEqualTo("hello".getBytes(StandardCharsets.US_ASCII));
    }

    @Test
    void temporaryFilesAreSkipped() throws Exception {
        assertThat(FileSystemObjectStore.RESERVED_PREFIX).isEqualTo(".lakestream-");
        assertThat(FileSystemObjectStore.TEMP_PREFIX).isEqualTo(".lakestream-tmp-");
        try (FileSystemObjectStore store = new FileSystemObjectStore(FileSystemObjectStoreConfig.of(dir))) {
            store.put("a/object", ByteBuffer.wrap(new byte[] {1, 2, 3})).join();
            // what a crash in the middle of a put leaves behind: a partial temporary file
            Files.write(
                    dir.resolve("a").resolve(FileSystemObjectStore.TEMP_PREFIX + UUID.randomUUID()), new byte[] {1});

            assertThat(store.list("", null, 100).join().objects())
                    .extracting(ObjectInfo::key)
                    .containsExactly("a/object");
            assertThat(IndependentLayoutReader.readFilesystemStore(dir)).containsOnlyKeys("a/object");
            assertThatThrownBy(() -> store.put("a/.lakestream-x", ByteBuffer.wrap(new byte[1]))
                            .join())
                    .isInstanceOf(CompletionException.class)
                    .hasCauseInstanceOf(InvalidObjectKeyException.class);
        }
    }

    @Test
    void filesUrsaWroteAreReadBesideOurs() throws Exception {
        byte[] ursas = "Ursa's bytes, ending like a trailer: LSC1".getBytes(StandardCharsets.US_ASCII);
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(ursas);
        Files.createDirectories(dir.resolve("u"));
        Files.write(dir.resolve("u/ursa"), ursas);
        Files.writeString(dir.resolve("u/ursa.crc32c"), Long.toString(crc.getValue()));
        try (FileSystemObjectStore store = new FileSystemObjectStore(FileSystemObjectStoreConfig.of(dir))) {
            store.put("u/ours", ByteBuffer.wrap("hello".getBytes(StandardCharsets.US_ASCII)))
                    .join();
            assertThat(store.list("", null, 100).join().objects())
                    .extracting(ObjectInfo::key, ObjectInfo::size)
                    .containsExactly(
                            org.assertj.core.groups.Tuple.tuple("u/ours", 5L),
                            org.assertj.core.groups.Tuple.tuple("u/ursa", (long) ursas.length));
            assertThat(store.get("u/ursa").join()).isEqualTo(ByteBuffer.wrap(ursas));
            assertThatThrownBy(() -> store.put("u/x.crc32c", ByteBuffer.wrap(new byte[1]))
                            .join())
                    .isInstanceOf(CompletionException.class)
                    .hasCauseInstanceOf(InvalidObjectKeyException.class);
        }
        Map<String, byte[]> read = IndependentLayoutReader.readFilesystemStore(dir);
        assertThat(read).containsOnlyKeys("u/ours", "u/ursa");
        assertThat(read.get("u/ursa")).isEqualTo(ursas);
        assertThat(read.get("u/ours")).isEqualTo("hello".getBytes(StandardCharsets.US_ASCII));
    }

    // ---------------------------------------------------------------------------------------------
    // Everything together: what a real log wrote, read back with the document's rules only

    @Test
    void theIndependentReaderReadsWhatTheLogWrote() throws Exception {
        Path objectsDir = dir.resolve("objects");
        Map<Long, byte[]> payloadsByOffset = new HashMap<>();
        long streamId;
        try (EmbeddedMetadataStore metadata =
                EmbeddedMetadataStore.open(EmbeddedMetadataStoreConfig.of(dir.resolve("m")))) {
            try (FileSystemObjectStore objects = new FileSystemObjectStore(
                            FileSystemObjectStoreConfig.of(objectsDir).withFsync(false));
                    Lakestream log = Lakestream.open(objects, metadata, LakestreamConfig.DEFAULT)) {
                StreamInfo info = log.catalog().create("spec", "a", Map.of()).join();
                StreamInfo other = log.catalog().create("spec", "b", Map.of()).join();
                streamId = info.id();
                SplittableRandom random = new SplittableRandom(3);
                List<CompletableFuture<AppendResult>> appends = new ArrayList<>();
                List<byte[]> payloads = new ArrayList<>();
                for (int i = 0; i < 400; i++) { // not awaited one by one: many entries share an object
                    byte[] payload = ("entry-" + i).getBytes(StandardCharsets.UTF_8);
                    payloads.add(payload);
                    appends.add(log.stream(info).append(1 + random.nextInt(300), Unpooled.wrappedBuffer(payload)));
                    if (i % 50 == 0) {
                        log.stream(other)
                                .append(1, Unpooled.wrappedBuffer(new byte[] {9}))
                                .join();
                    }
                }
                for (int i = 0; i < appends.size(); i++) {
                    payloadsByOffset.put(appends.get(i).join().offset(), payloads.get(i));
                }
            }

            Map<String, byte[]> objects = IndependentLayoutReader.readFilesystemStore(objectsDir);
            String prefix = String.format("%020d", streamId); // §2.1
            List<Record> records = metadata.rangeScan(
                            prefix + "-", prefix + "-~", Optional.of(Long.toString(streamId)), 0)
                    .join();
            assertThat(records).isNotEmpty();
            long expectedStart = 0;
            int multiEntryRecords = 0;
            int entriesRead = 0;
            for (Record r : records) {
                String[] key = r.key().split("-", -1);
                long endOffset = Long.parseLong(key[1]);
                IndependentLayoutReader.IndexValue value = IndependentLayoutReader.indexValue(r.value());
                byte[] object = objects.get(value.location());
                assertThat(object)
                        .as("object %s of %s", value.location(), r.key())
                        .isNotNull();
                String indexLength = value.extraData().get("lakestream.indexLength");
                assertThat(indexLength).matches("0|[1-9][0-9]*");
                assertThat(Integer.parseInt(indexLength))
                        .isEqualTo(ByteBuffer.wrap(object).getInt());
                // Ursa's rule: file_size is the data section (the object less its length prefix and index).
                assertThat(value.fileSize())
                        .as("file_size of %s", value.location())
                        .isEqualTo(object.length - 4L - Integer.parseInt(indexLength));

                List<IndependentLayoutReader.WalEntry> entries =
                        IndependentLayoutReader.walIndex(object).get(streamId);
                int[] counts = value.entryRecordCounts();
                assertThat(entries).hasSize(counts.length);
                long offset = endOffset - value.messageCount();
                assertThat(offset).isEqualTo(expectedStart);
                for (int i = 0; i < counts.length; i++) {
                    assertThat(entries.get(i).records()).isEqualTo(counts[i]);
                    assertThat(IndependentLayoutReader.walPayload(object, entries.get(i)))
                            .isEqualTo(payloadsByOffset.get(offset));
                    offset += counts[i];
                    entriesRead++;
                }
                assertThat(offset).isEqualTo(endOffset);
                expectedStart = endOffset;
                multiEntryRecords += counts.length > 1 ? 1 : 0;
            }
            assertThat(entriesRead).isEqualTo(400);
            assertThat(multiEntryRecords).isPositive();
        }
    }

    // ---------------------------------------------------------------------------------------------

    /** Field 10 of the index value the real writer encodes for these entries: the message, without its tag and length. */
    private static byte[] entryOffsetsField(int[] recordCounts) {
        long records = Arrays.stream(recordCounts).asLongStream().sum();
        byte[] value = new IndexValue("k", false, records, 1, 1, recordCounts, Map.of()).encode();
        return (byte[]) IndependentLayoutReader.protobuf(value).get(10).get(0);
    }

    private static int[] filled(int n, java.util.function.IntUnaryOperator f) {
        return IntStream.range(0, n).map(f).toArray();
    }
}
