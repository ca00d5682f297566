package dev.lakestream.core.metrics;

import java.util.concurrent.atomic.LongAdder;

/** One kind of remote call: how many, how many failed, the bytes they moved and how long they took. */
public final class OperationMetrics {

    private final LongAdder requests = new LongAdder();
    private final LongAdder errors = new LongAdder();
    private final LongAdder bytes = new LongAdder();
    private final LatencyHistogram latency = new LatencyHistogram();

    /** A call that started at {@code startNanos} ({@link System#nanoTime()}) ended now, moving {@code bytes}. */
    public void completed(long startNanos, long bytes) {
        requests.increment();
        this.bytes.add(bytes);
        latency.record(System.nanoTime() - startNanos);
    }

    /** Bytes a call moved after it completed (the body of a streamed GET, read later). */
    public void moved(long bytes) {
        this.bytes.add(bytes);
    }

    /** A call that started at {@code startNanos} failed now. */
    public void failed(long startNanos) {
        requests.increment();
        errors.increment();
        latency.record(System.nanoTime() - startNanos);
    }

    public long requests() {
        return requests.sum();
    }

    public long errors() {
        return errors.sum();
    }

    public long bytes() {
        return bytes.sum();
    }

    public LatencyHistogram latency() {
        return latency;
    }
}
