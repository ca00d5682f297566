package dev.lakestream.core.objectstore;

import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.Comparator;
import java.util.zip.CRC32C;

/**
 * The key rules every {@link ObjectStore} shares, the key order of listings, and the CRC32C helper the
 * stores use for their checksums.
 *
 * <p>A valid key:
 * <ul>
 *   <li>is not empty and is at most {@value #MAX_KEY_BYTES} bytes in UTF-8 (S3's limit; a store with a
 *       prefix counts the prefix too);</li>
 *   <li>is well-formed UTF-16 (no unpaired surrogate) and holds no control character (U+0000..U+001F,
 *       U+007F) and no backslash;</li>
 *   <li>is a sequence of {@code '/'}-separated segments none of which is empty, {@code "."} or
 *       {@code ".."} (so no leading, trailing or doubled {@code '/'}).</li>
 * </ul>
 * S3 itself would take more, but both stores refuse the same keys so that data and code move between them
 * unchanged. A store may refuse more (the filesystem store limits a segment to 255 bytes and reserves
 * segments starting with {@code .lakestream-} or ending with {@code .crc32c}).
 */
public final class ObjectKeys {

    /** S3's limit on a key, in UTF-8 bytes. */
    public static final int MAX_KEY_BYTES = 1024;

    /**
     * Ascending UTF-8 byte order, the order of S3 listings. Comparing code points gives the same order as
     * comparing the UTF-8 bytes, without encoding ({@link String#compareTo} compares UTF-16 units, which
     * differs for characters above U+FFFF).
     */
    public static final Comparator<String> UTF8_ORDER = ObjectKeys::compareUtf8;

    private ObjectKeys() {}

    /**
     * Checks {@code key} against the shared rules.
     *
     * @param location the store, for the message
     * @throws InvalidObjectKeyException naming the key, the store and the rule it breaks
     */
    public static void validate(String key, String location) {
        String problem = problem(key);
        if (problem != null) {
            throw invalid(key, location, problem);
        }
    }

    /** Why {@code key} breaks the shared rules, or {@code null} when it is valid. */
    public static String problem(String key) {
        if (key == null) {
            return "the key is null";
        }
        if (key.isEmpty()) {
            return "the key is empty";
        }
        String chars = characterProblem(key);
        if (chars != null) {
            return chars;
        }
        int bytes = utf8Length(key);
        if (bytes > MAX_KEY_BYTES) {
            return "the key is " + bytes + " bytes in UTF-8, more than the limit of " + MAX_KEY_BYTES;
        }
        int start = 0;
        while (true) {
            int slash = key.indexOf('/', start);
            String segment = slash < 0 ? key.substring(start) : key.substring(start, slash);
            if (segment.isEmpty()) {
                return "the key has an empty segment (a leading, trailing or doubled '/')";
            }
            if (segment.equals(".") || segment.equals("..")) {
                return "the key has a '" + segment + "' segment";
            }
            if (slash < 0) {
                return null;
            }
            start = slash + 1;
        }
    }

    /**
     * Why a listing prefix cannot match any key ({@code null} when it is usable): only the character rules
     * apply, since a prefix may end in the middle of a segment or with a {@code '/'}.
     */
    public static String prefixProblem(String prefix) {
        if (prefix == null) {
            return "the prefix is null";
        }
        String chars = characterProblem(prefix);
        if (chars != null) {
            return chars;
        }
        int bytes = utf8Length(prefix);
        return bytes > MAX_KEY_BYTES
                ? "the prefix is " + bytes + " bytes in UTF-8, more than the limit of " + MAX_KEY_BYTES
                : null;
    }

    /**
     * What is wrong with the arguments of {@link ObjectStore#list} (the prefix, or {@code maxKeys} outside
     * 1..1000), as the exception to fail the call with; {@code null} when they are fine.
     */
    public static RuntimeException listArgumentsProblem(String prefix, int maxKeys, String location) {
        if (maxKeys < 1 || maxKeys > 1000) {
            return new IllegalArgumentException("maxKeys must be in 1..1000: " + maxKeys);
        }
        String problem = prefixProblem(prefix);
        return problem == null ? null : invalid(prefix, location, problem);
    }

    /** An {@link InvalidObjectKeyException} whose message names the (printable) key and the store. */
    public static InvalidObjectKeyException invalid(String key, String location, String problem) {
        return new InvalidObjectKeyException(
                "Invalid object key " + printable(key) + " for " + location + ": " + problem);
    }

    /** The key quoted for a message: control characters escaped, cut at 200 characters. */
    public static String printable(String key) {
        if (key == null) {
            return "null";
        }
        StringBuilder sb = new StringBuilder(Math.min(key.length(), 200) + 8).append('\'');
        for (int i = 0; i < key.length(); i++) {
            if (i == 200) {
                sb.append("...(").append(key.length()).append(" chars)");
                break;
            }
            char c = key.charAt(i);
            if (c < 0x20 || c == 0x7f || Character.isSurrogate(c)) {
                sb.append(String.format("\\u%04X", (int) c));
            } else {
                sb.append(c);
            }
        }
        return sb.append('\'').toString();
    }

    /** The number of bytes of {@code s} in UTF-8 ({@code s} must be well-formed). */
    public static int utf8Length(String s) {
        int n = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                n += 1;
            } else if (c < 0x800) {
                n += 2;
            } else if (Character.isHighSurrogate(c)) {
                n += 4;
                i++;
            } else {
                n += 3;
            }
        }
        return n;
    }

    /** Compares in UTF-8 byte order (see {@link #UTF8_ORDER}). */
    public static int compareUtf8(String a, String b) {
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
            int ca = a.codePointAt(i);
            int cb = b.codePointAt(j);
            if (ca != cb) {
                return Integer.compare(ca, cb);
            }
            i += Character.charCount(ca);
            j += Character.charCount(cb);
        }
        return Integer.compare(a.length() - i, b.length() - j);
    }

    /** The CRC32C of the bytes from {@code data}'s position to its limit; the buffer is not modified. */
    public static int crc32c(ByteBuffer data) {
        CRC32C crc = new CRC32C();
        crc.update(data.duplicate());
        return (int) crc.getValue();
    }

    /** The CRC32C as S3 writes it in {@code x-amz-checksum-crc32c}: the 4 big-endian bytes in Base64. */
    public static String crc32cBase64(int crc) {
        return Base64.getEncoder()
                .encodeToString(ByteBuffer.allocate(4).putInt(crc).array());
    }

    private static String characterProblem(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x20 || c == 0x7f) {
                return String.format("it holds the control character U+%04X at index %d", (int) c, i);
            }
            if (c == '\\') {
                return "it holds a backslash at index " + i;
            }
            if (Character.isHighSurrogate(c)) {
                if (i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                    i++;
                    continue;
                }
                return "it holds an unpaired surrogate at index " + i + " (not valid UTF-16)";
            }
            if (Character.isLowSurrogate(c)) {
                return "it holds an unpaired surrogate at index " + i + " (not valid UTF-16)";
            }
        }
        return null;
    }
}
