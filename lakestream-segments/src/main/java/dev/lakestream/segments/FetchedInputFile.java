package dev.lakestream.segments;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.parquet.bytes.ByteBufferAllocator;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.ParquetFileRange;
import org.apache.parquet.io.SeekableInputStream;

/**
 * A Parquet {@link InputFile} over byte ranges of a segment fetched beforehand (by ranged GETs): Parquet's reader then
 * decodes from memory, never waiting on the object store. A read of bytes that were not fetched fails naming them: the
 * reader asked for the wrong ranges, or the footer points outside what it said.
 */
final class FetchedInputFile implements InputFile {

    private record Range(long position, ByteBuffer bytes) {
        long end() {
            return position + bytes.remaining();
        }
    }

    private final String key;
    private final long length;
    private final List<Range> ranges = new ArrayList<>();

    FetchedInputFile(String key, long length) {
        this.key = key;
        this.length = length;
    }

    /** Adds the bytes found at {@code position} of the object. */
    FetchedInputFile with(long position, ByteBuffer bytes) {
        ranges.add(new Range(position, bytes.slice()));
        ranges.sort(Comparator.comparingLong(Range::position));
        return this;
    }

    @Override
    public long getLength() {
        return length;
    }

    @Override
    public SeekableInputStream newStream() {
        return new Stream();
    }

    private final class Stream extends SeekableInputStream {
        private long pos;

        /** The fetched bytes from {@code pos} on, up to the end of their range; empty when at the object's end. */
        private ByteBuffer at(long p, int wanted) throws IOException {
            if (p >= length) {
                return ByteBuffer.allocate(0);
            }
            for (Range r : ranges) {
                if (r.position() <= p && p < r.end()) {
                    return r.bytes().duplicate().position((int) (p - r.position()));
                }
            }
            throw new IOException("bytes [" + p + ", " + (p + wanted) + ") of segment '" + key
                    + "' were not fetched (fetched: "
                    + ranges.stream()
                            .map(r -> "[" + r.position() + ", " + r.end() + ")")
                            .toList() + ")");
        }

        @Override
        public long getPos() {
            return pos;
        }

        @Override
        public void seek(long newPos) throws IOException {
            if (newPos < 0 || newPos > length) {
                throw new EOFException("seek to " + newPos + " outside segment '" + key + "' of " + length + " bytes");
            }
            pos = newPos;
        }

        @Override
        public int read() throws IOException {
            ByteBuffer b = at(pos, 1);
            if (!b.hasRemaining()) {
                return -1;
            }
            pos++;
            return b.get() & 0xff;
        }

        @Override
        public int read(byte[] dst, int off, int len) throws IOException {
            if (len == 0) {
                return 0;
            }
            ByteBuffer b = at(pos, len);
            if (!b.hasRemaining()) {
                return -1;
            }
            int n = Math.min(len, b.remaining());
            b.get(dst, off, n);
            pos += n;
            return n;
        }

        @Override
        public int read(ByteBuffer dst) throws IOException {
            if (!dst.hasRemaining()) {
                return 0;
            }
            ByteBuffer b = at(pos, dst.remaining());
            if (!b.hasRemaining()) {
                return -1;
            }
            int n = Math.min(dst.remaining(), b.remaining());
            dst.put(b.limit(b.position() + n));
            pos += n;
            return n;
        }

        @Override
        public void readFully(byte[] dst) throws IOException {
            readFully(dst, 0, dst.length);
        }

        @Override
        public void readFully(byte[] dst, int off, int len) throws IOException {
            while (len > 0) {
                int n = read(dst, off, len);
                if (n < 0) {
                    throw new EOFException("segment '" + key + "' ends at " + length + ", before " + (pos + len));
                }
                off += n;
                len -= n;
            }
        }

        /** Ranges are served as views of the fetched bytes: Parquet reads a row group's column chunks without a copy. */
        @Override
        public boolean readVectoredAvailable(ByteBufferAllocator allocator) {
            return true;
        }

        @Override
        public void readVectored(List<ParquetFileRange> wanted, ByteBufferAllocator allocator) throws IOException {
            for (ParquetFileRange r : wanted) {
                ByteBuffer b = at(r.getOffset(), r.getLength());
                if (b.remaining() < r.getLength()) {
                    throw new IOException("bytes [" + r.getOffset() + ", " + (r.getOffset() + r.getLength())
                            + ") of segment '" + key + "' were not fetched in one range");
                }
                r.setDataReadFuture(CompletableFuture.completedFuture(b.slice().limit(r.getLength())));
            }
        }

        @Override
        public void readFully(ByteBuffer dst) throws IOException {
            while (dst.hasRemaining()) {
                if (read(dst) < 0) {
                    throw new EOFException(
                            "segment '" + key + "' ends at " + length + ", before " + (pos + dst.remaining()));
                }
            }
        }
    }
}
