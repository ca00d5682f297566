package dev.lakestream.core.bench;

import dev.lakestream.core.StreamLog;
import io.netty.buffer.ByteBuf;
import java.util.concurrent.TimeUnit;

/**
 * One append at a time to one stream, each waited for before the next: what a synchronous producer, an admin
 * call that writes, or a test sending one message at a time sees. Its latency is the writer's floor: the flush
 * policy's wait, one PUT, one index commit.
 */
final class SequentialAppends {

    /** One run: the appends' latency, and the PUTs and index commits they took. */
    record Run(
            String policy, long appends, double seconds, Histogram append, Histogram put, Histogram commit, long puts) {

        double appendsPerSecond() {
            return appends / seconds;
        }

        double putsPerSecond() {
            return puts / seconds;
        }
    }

    private final BenchContext ctx;

    SequentialAppends(BenchContext ctx) {
        this.ctx = ctx;
    }

    /**
     * Appends to {@code stream} one at a time for {@code warmupSeconds}, then measures {@code measureSeconds}.
     * {@code objectStats} counts the object store the stream's log writes to.
     */
    Run run(String policy, Instrumented objectStats, StreamLog stream, int warmupSeconds, int measureSeconds) {
        return run(policy, objectStats, ctx.metadataI, stream, warmupSeconds, measureSeconds);
    }

    /** As above, with {@code metadataStats} counting the metadata store the stream's log commits to. */
    Run run(
            String policy,
            Instrumented objectStats,
            Instrumented metadataStats,
            StreamLog stream,
            int warmupSeconds,
            int measureSeconds) {
        long seq = 0;
        long start = System.nanoTime();
        long windowStart = start + TimeUnit.SECONDS.toNanos(warmupSeconds);
        long end = windowStart + TimeUnit.SECONDS.toNanos(measureSeconds);
        Histogram latency = new Histogram();
        boolean open = false;
        long appends = 0;
        long opened = 0;
        while (true) {
            long now = System.nanoTime();
            if (!open && now >= windowStart) {
                objectStats.reset();
                metadataStats.reset();
                opened = now;
                open = true;
            }
            if (now >= end) {
                break;
            }
            ByteBuf p = ctx.payload(stream.id(), seq++);
            long t0 = System.nanoTime();
            try {
                stream.append(1, p).join();
            } finally {
                p.release();
            }
            if (open) {
                latency.record(System.nanoTime() - t0);
                appends++;
            }
        }
        double seconds = (System.nanoTime() - opened) / 1e9;
        Instrumented.OpStats put = objectStats.op("put");
        Run run = new Run(
                policy,
                appends,
                seconds,
                latency,
                put.latency,
                metadataStats.op("putSequence").latency,
                put.calls.get());
        objectStats.reset();
        metadataStats.reset();
        ctx.detach();
        return run;
    }
}
