package dev.lakestream.core.segment;

import java.util.UUID;

/**
 * Names segment objects {@code segments/<streamId>/<first offset>-<end offset>-<uuid>.<format>}, offsets 20 digits
 * wide (relative to the object store's root, like WAL objects). Per stream, so that one prefix lists a stream's
 * segments; in offset order; the uuid keeps a retried compaction's object apart from an abandoned one of the same
 * range. Nothing reads a segment by its name: the index record names the object.
 */
public final class SegmentKeys {

    public static final String ROOT = "segments/";

    private SegmentKeys() {}

    public static String newKey(long streamId, long firstOffset, long endOffset, String format) {
        return String.format(
                "%s%d/%020d-%020d-%s.%s", ROOT, streamId, firstOffset, endOffset, UUID.randomUUID(), format);
    }

    /** The prefix under which all of a stream's segments are. */
    public static String streamPrefix(long streamId) {
        return ROOT + streamId + "/";
    }

    /** What a segment's key says: its stream and the offsets it covers. */
    public record SegmentName(long streamId, long firstOffset, long endOffset) {}

    /** Parses a key written by {@link #newKey}, or empty when it is not a segment key. */
    public static java.util.Optional<SegmentName> parse(String key) {
        if (!key.startsWith(ROOT)) {
            return java.util.Optional.empty();
        }
        String[] path = key.substring(ROOT.length()).split("/", -1);
        if (path.length != 2) {
            return java.util.Optional.empty();
        }
        String[] parts = path[1].split("-", 3);
        try {
            return parts.length == 3
                    ? java.util.Optional.of(new SegmentName(
                            Long.parseLong(path[0]), Long.parseLong(parts[0]), Long.parseLong(parts[1])))
                    : java.util.Optional.empty();
        } catch (NumberFormatException e) {
            return java.util.Optional.empty();
        }
    }

    /** Whether an object key is a segment's (as opposed to a WAL object's). */
    public static boolean isSegment(String key) {
        return key.startsWith(ROOT);
    }
}
