package dev.lakestream.pulsar.schema;

import java.net.URLEncoder;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * The keys and bytes of the schema registry in the Lakestream metadata store (docs/layout.md, "Schema registry").
 *
 * <p>Per schema id there is one mutable <b>head</b> record, the list of versions (hash and data-record nonce of
 * each), and one immutable <b>data</b> record per version. Only the head is ever rewritten, by compare-and-set, so
 * it is the single point where concurrent writers are ordered; data records have a random nonce in their key, so a
 * writer that lost the race never overwrites the winner's data.
 */
final class SchemaRecords {

    /** Largest schema payload accepted (the bytes the broker stores per version). */
    static final int MAX_SCHEMA_BYTES = 1024 * 1024;
    /** Largest head record: about 24,000 versions of 32-byte hashes. */
    static final int MAX_HEAD_BYTES = 1024 * 1024;
    /** Longest hash stored (Pulsar's is a 32-byte SHA-256; deletion tombstones carry an empty one). */
    static final int MAX_HASH_BYTES = 1024;

    private static final byte[] HEAD_MAGIC = {'L', 'S', 'S', 'H'};
    private static final byte[] DATA_MAGIC = {'L', 'S', 'S', 'D'};
    private static final byte FORMAT = 1;
    static final int DATA_HEADER_BYTES = 4 + 1 + 8 + 4;

    private final String root;

    /** @param metadataRoot the Lakestream metadata root, e.g. {@code /lakestream} */
    SchemaRecords(String metadataRoot) {
        this.root = metadataRoot + "/schemas/";
    }

    /** {@code <root>/schemas/<url-encoded schema id>}; also the partition key of every record of the schema. */
    String headKey(String schemaId) {
        return root + URLEncoder.encode(schemaId, StandardCharsets.UTF_8);
    }

    /** {@code <head key>/%020d(version)-%016x(nonce)}. */
    String dataKey(String schemaId, long version, long nonce) {
        return String.format("%s/%020d-%016x", headKey(schemaId), version, nonce);
    }

    /** One version in the head: its hash (maybe empty) and the nonce of its data record. */
    @SuppressWarnings("ArrayRecordComponent") // never compared or hashed; the hash array is never changed
    record Entry(byte[] hash, long nonce) {}

    /** The decoded head: entry {@code i} is version {@code i} (versions are dense from 0). */
    record Head(List<Entry> entries) {

        long latestVersion() {
            return entries.size() - 1L;
        }

        Head plus(Entry e) {
            List<Entry> l = new ArrayList<>(entries.size() + 1);
            l.addAll(entries);
            l.add(e);
            return new Head(l);
        }
    }

    static byte[] encodeHead(Head head) {
        int size = 4 + 1 + 4;
        for (Entry e : head.entries()) {
            size += 2 + e.hash().length + 8;
        }
        ByteBuffer b = ByteBuffer.allocate(size);
        b.put(HEAD_MAGIC).put(FORMAT).putInt(head.entries().size());
        for (Entry e : head.entries()) {
            b.putShort((short) e.hash().length).put(e.hash()).putLong(e.nonce());
        }
        return b.array();
    }

    /** Decodes a head; {@code key} names it in the error. */
    static Head decodeHead(String key, byte[] bytes) throws SchemaRecordCorruptedException {
        try {
            ByteBuffer b = ByteBuffer.wrap(bytes);
            checkMagic(key, b, HEAD_MAGIC, "schema head");
            int count = b.getInt();
            if (count < 1 || count > bytes.length) {
                throw corrupt(key, "schema head", "invalid version count " + count);
            }
            List<Entry> entries = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                int hashLen = Short.toUnsignedInt(b.getShort());
                if (hashLen > MAX_HASH_BYTES) {
                    throw corrupt(key, "schema head", "version " + i + " has a " + hashLen + "-byte hash");
                }
                byte[] hash = new byte[hashLen];
                b.get(hash);
                entries.add(new Entry(hash, b.getLong()));
            }
            if (b.hasRemaining()) {
                throw corrupt(key, "schema head", b.remaining() + " trailing bytes after " + count + " versions");
            }
            return new Head(List.copyOf(entries));
        } catch (java.nio.BufferUnderflowException e) {
            throw corrupt(key, "schema head", "truncated (" + bytes.length + " bytes)");
        }
    }

    static byte[] encodeData(long version, byte[] data) {
        CRC32C crc = new CRC32C();
        crc.update(data);
        return ByteBuffer.allocate(DATA_HEADER_BYTES + data.length)
                .put(DATA_MAGIC)
                .put(FORMAT)
                .putLong(version)
                .putInt((int) crc.getValue())
                .put(data)
                .array();
    }

    /** The schema bytes of a data record, checked against its magic, version and CRC32C. */
    static byte[] decodeData(String key, long expectedVersion, byte[] bytes) throws SchemaRecordCorruptedException {
        try {
            ByteBuffer b = ByteBuffer.wrap(bytes);
            checkMagic(key, b, DATA_MAGIC, "schema data record");
            long version = b.getLong();
            if (version != expectedVersion) {
                throw corrupt(
                        key, "schema data record", "holds version " + version + ", the head says " + expectedVersion);
            }
            int storedCrc = b.getInt();
            byte[] data = Arrays.copyOfRange(bytes, b.position(), bytes.length);
            CRC32C crc = new CRC32C();
            crc.update(data);
            if ((int) crc.getValue() != storedCrc) {
                throw corrupt(
                        key,
                        "schema data record",
                        String.format(
                                "CRC32C mismatch (stored %08x, computed %08x over %d bytes)",
                                storedCrc, (int) crc.getValue(), data.length));
            }
            return data;
        } catch (java.nio.BufferUnderflowException e) {
            throw corrupt(key, "schema data record", "truncated (" + bytes.length + " bytes)");
        }
    }

    private static void checkMagic(String key, ByteBuffer b, byte[] magic, String what)
            throws SchemaRecordCorruptedException {
        byte[] m = new byte[magic.length];
        b.get(m);
        if (!Arrays.equals(m, magic)) {
            throw corrupt(
                    key,
                    what,
                    "bad magic " + hex(m) + " (expected " + new String(magic, StandardCharsets.US_ASCII) + ")");
        }
        byte format = b.get();
        if (format != FORMAT) {
            throw corrupt(key, what, "unknown format version " + format + " (this broker reads " + FORMAT + ")");
        }
    }

    private static String hex(byte[] b) {
        StringBuilder sb = new StringBuilder();
        for (byte x : b) {
            sb.append(String.format("%02x", x));
        }
        return sb.toString();
    }

    static SchemaRecordCorruptedException corrupt(String key, String what, String detail) {
        return new SchemaRecordCorruptedException(what + " '" + key + "' is corrupt: " + detail);
    }
}
