package dev.lakestream.segments;

import dev.lakestream.core.objectstore.ObjectUpload;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/** An upload into a byte array, for tests that look at a segment's bytes themselves; stores nothing. */
final class MemoryUpload implements ObjectUpload {

    private final String key;
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

    MemoryUpload(String key) {
        this.key = key;
    }

    /** The bytes written so far. */
    ByteBuffer bytes() {
        return ByteBuffer.wrap(bytes.toByteArray());
    }

    @Override
    public String key() {
        return key;
    }

    @Override
    public void write(ByteBuffer data) {
        ByteBuffer d = data.duplicate();
        byte[] b = new byte[d.remaining()];
        d.get(b);
        bytes.writeBytes(b);
    }

    @Override
    public CompletableFuture<Void> ready() {
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public long length() {
        return bytes.size();
    }

    @Override
    public long bufferedBytes() {
        return bytes.size();
    }

    @Override
    public long peakBufferedBytes() {
        return bytes.size();
    }

    @Override
    public CompletableFuture<Void> complete() {
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletableFuture<Void> abort() {
        return CompletableFuture.completedFuture(null);
    }
}
