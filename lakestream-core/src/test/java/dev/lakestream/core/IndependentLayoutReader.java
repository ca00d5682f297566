package dev.lakestream.core;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

/**
 * A reader of the layout written from docs/layout.md alone, as a third party would write it: plain Java, no class of
 * this project and no JavaFastPFOR. {@link LayoutSpecTest} checks it against the real writers, so the document is
 * enough to read what they write.
 */
final class IndependentLayoutReader {

    private IndependentLayoutReader() {}

    // ---------------------------------------------------------------------------------------------
    // §1.3 The filesystem store

    /**
     * The objects under {@code root}, key to bytes, each checked against its trailer, or against its sidecar
     * {@code <file>.crc32c} when it has one (a file Ursa wrote); temporary files and sidecars skipped.
     */
    static Map<String, byte[]> readFilesystemStore(Path root) throws IOException {
        Map<String, byte[]> objects = new LinkedHashMap<>();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                String name = file.getFileName().toString();
                if (!Files.isRegularFile(file, java.nio.file.LinkOption.NOFOLLOW_LINKS)
                        || name.startsWith(".lakestream-")
                        || name.endsWith(".crc32c")) {
                    continue;
                }
                StringBuilder key = new StringBuilder();
                for (Path part : root.relativize(file)) {
                    key.append(key.isEmpty() ? "" : "/").append(part);
                }
                Path sidecar = file.resolveSibling(name + ".crc32c");
                byte[] bytes = Files.readAllBytes(file);
                objects.put(
                        key.toString(),
                        Files.isRegularFile(sidecar, java.nio.file.LinkOption.NOFOLLOW_LINKS)
                                ? objectOfUrsaFile(bytes, Files.readString(sidecar, StandardCharsets.US_ASCII))
                                : objectOfFile(bytes));
            }
        }
        return objects;
    }

    /** The object's bytes of a file with a sidecar: the whole file, whose CRC32C the sidecar holds in decimal. */
    static byte[] objectOfUrsaFile(byte[] file, String sidecar) {
        CRC32C c = new CRC32C();
        c.update(file);
        if ((int) c.getValue() != (int) Long.parseLong(sidecar.strip())) {
            throw new IllegalArgumentException("CRC32C mismatch with the sidecar");
        }
        return file;
    }

    /** The object's bytes of one store file: the file less its 8-byte trailer, whose CRC32C and magic are checked. */
    static byte[] objectOfFile(byte[] file) {
        if (file.length < 8) {
            throw new IllegalArgumentException("file of " + file.length + " bytes has no trailer");
        }
        ByteBuffer trailer = ByteBuffer.wrap(file, file.length - 8, 8);
        int crc = trailer.getInt();
        byte[] magic = new byte[4];
        trailer.get(magic);
        if (!new String(magic, StandardCharsets.US_ASCII).equals("LSC1")) {
            throw new IllegalArgumentException("no LSC1 trailer");
        }
        CRC32C c = new CRC32C();
        c.update(file, 0, file.length - 8);
        if ((int) c.getValue() != crc) {
            throw new IllegalArgumentException("CRC32C mismatch");
        }
        byte[] object = new byte[file.length - 8];
        System.arraycopy(file, 0, object, 0, object.length);
        return object;
    }

    // ---------------------------------------------------------------------------------------------
    // §1.2 WAL objects

    record WalEntry(int dataOffset, int size, int records) {}

    /** The object's index: stream id to its entries, in order; also checks formatVersion. */
    static Map<Long, List<WalEntry>> walIndex(byte[] object) {
        ByteBuffer in = ByteBuffer.wrap(object);
        int indexLength = in.getInt();
        int end = 4 + indexLength;
        if (in.getInt() != 3) {
            throw new IllegalArgumentException("formatVersion is not 3");
        }
        Map<Long, List<WalEntry>> streams = new LinkedHashMap<>();
        while (in.position() < end) {
            long streamId = in.getLong();
            long count = varint(in);
            List<WalEntry> entries = new ArrayList<>();
            for (long i = 0; i < count; i++) {
                entries.add(new WalEntry((int) varint(in), (int) varint(in), (int) varint(in)));
            }
            streams.put(streamId, entries);
        }
        return streams;
    }

    /** The payload of {@code e} in {@code object}. */
    static byte[] walPayload(byte[] object, WalEntry e) {
        int dataStart = 4 + ByteBuffer.wrap(object).getInt();
        byte[] payload = new byte[e.size()];
        System.arraycopy(object, dataStart + e.dataOffset(), payload, 0, e.size());
        return payload;
    }

    // ---------------------------------------------------------------------------------------------
    // §2.3 Index values

    /** One decoded index value: what a reader needs of it. */
    @SuppressWarnings("ArrayRecordComponent") // a decoded value for assertions, never compared or hashed
    record IndexValue(
            String location,
            long messageCount,
            long fileSize,
            int[] entryRecordCounts,
            Map<String, String> extraData) {}

    static IndexValue indexValue(byte[] value) {
        Map<Integer, List<Object>> f = protobuf(value);
        String location = new String((byte[]) f.get(2).get(0), StandardCharsets.UTF_8);
        long messageCount = (Long) f.get(5).get(0);
        long fileSize = (Long) f.get(7).get(0);
        long entryCount = f.containsKey(9) ? (Long) f.get(9).get(0) : 1;
        int[] counts;
        if (f.containsKey(10)) {
            counts = entryOffsetsMessage((byte[]) f.get(10).get(0));
        } else {
            counts = new int[] {(int) messageCount};
        }
        if (counts.length != entryCount) {
            throw new IllegalArgumentException(
                    "entry_offsets hold " + counts.length + " entries, entry_count " + entryCount);
        }
        Map<String, String> extra = new LinkedHashMap<>();
        for (Object kv : f.getOrDefault(11, List.of())) {
            Map<Integer, List<Object>> m = protobuf((byte[]) kv);
            extra.put(
                    new String((byte[]) m.get(1).get(0), StandardCharsets.UTF_8),
                    new String((byte[]) m.get(2).get(0), StandardCharsets.UTF_8));
        }
        return new IndexValue(location, messageCount, fileSize, counts, extra);
    }

    /** Field 10: the records of each entry. */
    static int[] entryOffsetsMessage(byte[] message) {
        Map<Integer, List<Object>> m = protobuf(message);
        if ((Long) m.get(1).get(0) != 1) {
            throw new IllegalArgumentException("compression is not 1");
        }
        int[] cumulative = entryOffsetsPayload((byte[]) m.get(3).get(0));
        if ((Long) m.get(2).get(0) != 4L * cumulative.length) {
            throw new IllegalArgumentException("uncompressed_size disagrees");
        }
        int[] counts = new int[cumulative.length];
        for (int i = 0; i < counts.length; i++) {
            counts[i] = cumulative[i] - (i == 0 ? 0 : cumulative[i - 1]);
        }
        return counts;
    }

    /** §2.3.1: the values of an entry_offsets payload. */
    static int[] entryOffsetsPayload(byte[] payload) {
        if (payload.length % 4 != 0) {
            throw new IllegalArgumentException("payload is not whole words");
        }
        ByteBuffer words = ByteBuffer.wrap(payload); // big-endian words
        int n = words.getInt();
        int[] v = new int[n];
        if (n == 0) {
            return v;
        }
        int m = n / 32 * 32;
        int previous = 0;
        int i = 0;
        if (m == 0) {
            words.getInt(); // the empty packed part's zero word
        }
        while (i < m) {
            int blocks = (m - i) / 32 >= 4 ? 4 : 1;
            int header = words.getInt();
            for (int k = 0; k < blocks; k++) {
                int b = blocks == 4 ? (header >>> (24 - 8 * k)) & 0xff : header;
                previous = unpackBlock(words, b, previous, v, i);
                i += 32;
            }
        }
        int delta = 0;
        int shift = 0;
        while (i < n) {
            int word = words.getInt();
            for (int k = 0; k < 4 && i < n; k++) {
                int b = (word >>> (8 * k)) & 0xff; // least significant byte first
                delta += (b & 0x7f) << shift;
                if ((b & 0x80) != 0) {
                    previous += delta;
                    v[i++] = previous;
                    delta = 0;
                    shift = 0;
                } else {
                    shift += 7;
                }
            }
        }
        return v;
    }

    /** Unpacks one block of 32 at {@code v[at]}; returns its last value. */
    private static int unpackBlock(ByteBuffer words, int b, int previous, int[] v, int at) {
        int[] w = new int[b];
        for (int k = 0; k < b; k++) {
            w[k] = words.getInt();
        }
        for (int j = 0; j < 32; j++) {
            if (b == 32) {
                v[at + j] = w[j]; // values, not deltas
                continue;
            }
            long delta = 0;
            for (int bit = 0; bit < b; bit++) {
                int k = j * b + bit;
                delta |= (long) ((w[k / 32] >>> (k % 32)) & 1) << bit;
            }
            previous += (int) delta;
            v[at + j] = previous;
        }
        return v[at + 31];
    }

    /** A protobuf message's varint (as Long) and length-delimited (as byte[]) fields, by number, in order. */
    static Map<Integer, List<Object>> protobuf(byte[] message) {
        ByteBuffer in = ByteBuffer.wrap(message);
        Map<Integer, List<Object>> fields = new LinkedHashMap<>();
        while (in.hasRemaining()) {
            long tag = varint(in);
            int field = (int) (tag >>> 3);
            Object value = switch ((int) (tag & 7)) {
                case 0 -> varint(in);
                case 2 -> {
                    byte[] b = new byte[(int) varint(in)];
                    in.get(b);
                    yield b;
                }
                default -> throw new IllegalArgumentException("wire type " + (tag & 7));
            };
            fields.computeIfAbsent(field, x -> new ArrayList<>()).add(value);
        }
        return fields;
    }

    /** Unsigned LEB128 (protobuf's varint). */
    static long varint(ByteBuffer in) {
        long v = 0;
        for (int shift = 0; ; shift += 7) {
            int b = in.get() & 0xff;
            v |= (long) (b & 0x7f) << shift;
            if ((b & 0x80) == 0) {
                return v;
            }
        }
    }
}
