package dev.lakestream.segments;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.PositionOutputStream;

/** A Parquet {@link OutputFile} over a growing byte array: a segment is built in memory, then PUT whole. */
final class InMemoryOutputFile implements OutputFile {

    private final Buffer buffer = new Buffer();

    @Override
    public PositionOutputStream create(long blockSizeHint) {
        return createOrOverwrite(blockSizeHint);
    }

    @Override
    public PositionOutputStream createOrOverwrite(long blockSizeHint) {
        buffer.reset();
        return new PositionOutputStream() {
            @Override
            public long getPos() {
                return buffer.size();
            }

            @Override
            public void write(int b) {
                buffer.write(b);
            }

            @Override
            public void write(byte[] b, int off, int len) {
                buffer.write(b, off, len);
            }
        };
    }

    @Override
    public boolean supportsBlockSize() {
        return false;
    }

    @Override
    public long defaultBlockSize() {
        return 0;
    }

    @Override
    public String getPath() {
        return "memory";
    }

    /** The bytes written so far (not copied). */
    ByteBuffer bytes() {
        return buffer.view();
    }

    /** Bytes written so far. */
    long size() {
        return buffer.size();
    }

    /** Lets go of the array. */
    void release() {
        buffer.drop();
    }

    private static final class Buffer extends ByteArrayOutputStream {
        Buffer() {
            super(64 << 10);
        }

        ByteBuffer view() {
            return ByteBuffer.wrap(buf, 0, count);
        }

        void drop() {
            buf = new byte[0];
            count = 0;
        }
    }
}
