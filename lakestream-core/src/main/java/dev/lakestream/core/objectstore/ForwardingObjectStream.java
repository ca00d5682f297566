package dev.lakestream.core.objectstore;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/** A decorator's base for streams: forwards every call, so a decorator overrides only what it changes. */
public class ForwardingObjectStream implements ObjectStream {

    protected final ObjectStream stream;

    public ForwardingObjectStream(ObjectStream stream) {
        this.stream = stream;
    }

    @Override
    public CompletableFuture<ByteBuffer> read(int length) {
        return stream.read(length);
    }

    @Override
    public long position() {
        return stream.position();
    }

    @Override
    public long end() {
        return stream.end();
    }

    @Override
    public boolean isOpen() {
        return stream.isOpen();
    }

    @Override
    public boolean requestPerRead() {
        return stream.requestPerRead();
    }

    @Override
    public void close() {
        stream.close();
    }
}
