package dev.lakestream.core.wal;

import io.netty.buffer.ByteBuf;

/**
 * What an index record's {@code file_size} (field 7) says of its WAL object. Ursa, the Lakestream reference, writes the
 * size of the object's data section (the entries, without the length prefix and the index), and so does this
 * project's writer; its versions before 2026-12 wrote the size of the whole object. A reader accepts both, so objects
 * written by either stay readable without a rewrite, and bounds entries by the object's real length.
 */
final class FileSize {

    private FileSize() {}

    /** The {@code file_size} to write for an object of {@code objectLength} bytes whose index ends at {@code dataStart}. */
    static long of(long objectLength, int dataStart) {
        return objectLength - dataStart;
    }

    /** Whether a fetched object of {@code objectLength} bytes, its index ending at {@code dataStart}, is the one named. */
    static boolean matchesObject(long fileSize, long objectLength, int dataStart) {
        return objectLength == dataStart + fileSize || objectLength == fileSize;
    }

    /**
     * Whether {@code fileSize} fits an object whose parsed index is {@code index} (a ranged read, which never sees the
     * object's length): the data section's length (this index's entries end inside it) or the whole object's.
     */
    static boolean matchesIndex(long fileSize, WalObjectFormat.Index index) {
        // The whole object's length is larger still, so one bound serves both meanings.
        return fileSize >= index.dataEnd();
    }

    /** Where the data section of a fetched object starts (after its length prefix and index), or -1 if it is too short. */
    static int dataStart(ByteBuf object) {
        if (object.readableBytes() < WalObjectFormat.LENGTH_PREFIX_BYTES) {
            return -1;
        }
        long start = WalObjectFormat.LENGTH_PREFIX_BYTES + (long) object.getInt(object.readerIndex());
        return start < 0 || start > Integer.MAX_VALUE ? -1 : (int) start;
    }
}
