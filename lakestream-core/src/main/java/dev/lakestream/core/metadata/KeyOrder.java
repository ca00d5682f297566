package dev.lakestream.core.metadata;

import java.nio.charset.StandardCharsets;
import java.util.Comparator;

/**
 * The order of keys in a {@link MetadataStore}: the order an Oxia server (v0.15 and later, whose default
 * key sorting is "hierarchical") keeps its keys in, and an order-preserving byte encoding of it.
 *
 * <p>A key is encoded as two big-endian bytes holding the number of {@code '/'} in the key (its depth),
 * followed by the key's UTF-8 bytes with every {@code '/'} replaced by {@code 0xFF}. Keys therefore sort
 * first by depth, then byte by byte with {@code '/'} above every other character. Two details follow the
 * server exactly: a key ending in {@code "//"} counts one slash less (the trailing separator opens no new
 * level), and keys under the internal prefix {@code "__oxia/"} sort after all others. UTF-8 never contains
 * the byte {@code 0xFF}, so the encoding is reversible, and comparing encodings bytewise (unsigned) is the
 * key order: the embedded store stores keys encoded so that RocksDB's bytewise order is Oxia's.
 *
 * <p>Consequences worth knowing: {@code "/z"} sorts before {@code "/a/b"} (depth 1 before depth 2), and
 * {@code "/ab"} before {@code "/a/"} too; the direct children of {@code "/a"} are exactly the range
 * {@code ["/a/", "/a//")}.
 */
public final class KeyOrder {

    /** Oxia's prefix of internal keys; user keys must not start with it. */
    public static final String INTERNAL_KEY_PREFIX = "__oxia/";

    private static final byte ENCODED_SEPARATOR = (byte) 0xFF;
    private static final int INTERNAL_KEYS_BIT = 1 << 15;

    /** Compares keys in store order. */
    public static final Comparator<String> COMPARATOR = KeyOrder::compare;

    private KeyOrder() {}

    /** The order-preserving encoding of {@code key}. */
    public static byte[] encode(String key) {
        byte[] utf8 = key.getBytes(StandardCharsets.UTF_8);
        byte[] buf = new byte[utf8.length + 2];
        int slashes = 0;
        for (int i = 0; i < utf8.length; i++) {
            byte b = utf8[i];
            if (b == '/') {
                slashes++;
                b = ENCODED_SEPARATOR;
            }
            buf[i + 2] = b;
        }
        int level = level(key, slashes);
        buf[0] = (byte) (level >>> 8);
        buf[1] = (byte) level;
        return buf;
    }

    /** The key whose encoding is {@code encoded}. */
    public static String decode(byte[] encoded) {
        return decode(encoded, 0, encoded.length);
    }

    /** The key whose encoding is {@code encoded[offset, offset + length)}. */
    public static String decode(byte[] encoded, int offset, int length) {
        if (length < 2) {
            throw new IllegalArgumentException("Not an encoded key: " + length + " bytes");
        }
        byte[] utf8 = new byte[length - 2];
        for (int i = 0; i < utf8.length; i++) {
            byte b = encoded[offset + 2 + i];
            utf8[i] = b == ENCODED_SEPARATOR ? (byte) '/' : b;
        }
        return new String(utf8, StandardCharsets.UTF_8);
    }

    /** Compares two keys in store order without encoding them. */
    public static int compare(String a, String b) {
        int la = level(a, count(a));
        int lb = level(b, count(b));
        if (la != lb) {
            return Integer.compare(la, lb);
        }
        // Same level: compare code points (= UTF-8 bytes), with '/' above everything.
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
            int ca = a.codePointAt(i);
            int cb = b.codePointAt(j);
            if (ca != cb) {
                return Integer.compare(ca == '/' ? Integer.MAX_VALUE : ca, cb == '/' ? Integer.MAX_VALUE : cb);
            }
            i += Character.charCount(ca);
            j += Character.charCount(cb);
        }
        return Boolean.compare(i < a.length(), j < b.length());
    }

    private static int count(String key) {
        int n = 0;
        for (int i = key.indexOf('/'); i >= 0; i = key.indexOf('/', i + 1)) {
            n++;
        }
        return n;
    }

    private static int level(String key, int slashes) {
        if (slashes == 0) {
            return 0;
        }
        int level = slashes;
        int l = key.length();
        if (l >= 2 && key.charAt(l - 1) == '/' && key.charAt(l - 2) == '/') {
            level--;
        }
        if (key.startsWith(INTERNAL_KEY_PREFIX)) {
            level |= INTERNAL_KEYS_BIT;
        }
        return level & 0xFFFF;
    }
}
