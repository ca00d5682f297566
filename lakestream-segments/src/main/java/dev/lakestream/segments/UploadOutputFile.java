package dev.lakestream.segments;

import dev.lakestream.core.objectstore.ObjectUpload;
import java.nio.ByteBuffer;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.PositionOutputStream;

/**
 * A Parquet {@link OutputFile} that streams into an {@link ObjectUpload}: Parquet writes a file front to back (pages
 * of a row group as it is flushed, the footer last), so its bytes go to the store as they come and the segment is
 * never held whole. Single bytes are gathered into a small buffer first, so the upload sees few tiny writes.
 */
final class UploadOutputFile implements OutputFile {

    private final ObjectUpload upload;
    private final ByteBuffer small = ByteBuffer.allocate(4096);
    private long position;
    private boolean created;

    UploadOutputFile(ObjectUpload upload) {
        this.upload = upload;
    }

    @Override
    public PositionOutputStream create(long blockSizeHint) {
        if (created) {
            throw new IllegalStateException("segment " + upload.key() + " is written once");
        }
        created = true;
        return new PositionOutputStream() {
            @Override
            public long getPos() {
                return position;
            }

            @Override
            public void write(int b) {
                if (!small.hasRemaining()) {
                    flush();
                }
                small.put((byte) b);
                position++;
            }

            @Override
            public void write(byte[] b, int off, int len) {
                flush();
                upload.write(ByteBuffer.wrap(b, off, len));
                position += len;
            }

            @Override
            public void flush() {
                flushPending();
            }

            @Override
            public void close() {
                flush();
            }
        };
    }

    @Override
    public PositionOutputStream createOrOverwrite(long blockSizeHint) {
        return create(blockSizeHint);
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
        return upload.key();
    }

    /** Hands the gathered single bytes to the upload. */
    void flushPending() {
        if (small.position() > 0) {
            upload.write(small.flip());
            small.clear();
        }
    }

    /** Bytes written so far (the object's size, once the file has ended). */
    long size() {
        return position;
    }
}
