package dev.lakestream.tests.bench;

import java.util.concurrent.TimeUnit;
import org.apache.pulsar.client.api.Producer;
import org.apache.pulsar.client.api.PulsarClient;

/**
 * A synchronous producer: one producer on a one-partition topic sends one {@code messageBytes}-byte message at a
 * time, each {@code send} waited for before the next (one message in flight, batching off, as
 * {@code pulsar-client produce} and request/response code send). Measures messages per second and the latency of
 * each send after the warm-up; for Lakestream also the PUTs and index commits the broker made meanwhile.
 */
final class SyncProducerRun {

    record Result(double messagesPerSecond, Latencies publish, LakestreamCalls.Window calls) {}

    private SyncProducerRun() {}

    /** {@code calls} is null for a storage without Lakestream's metrics (BookKeeper). */
    static Result run(
            PulsarClient client,
            String topic,
            int messageBytes,
            long warmupNanos,
            long measureNanos,
            LakestreamCalls calls)
            throws Exception {
        Latencies publish = new Latencies();
        byte[] payload = new byte[messageBytes];
        try (Producer<byte[]> producer = client.newProducer()
                .topic(topic)
                .enableBatching(false)
                .sendTimeout(60, TimeUnit.SECONDS)
                .create()) {
            long warmEnd = System.nanoTime() + warmupNanos;
            while (System.nanoTime() < warmEnd) {
                producer.send(payload);
            }
            LakestreamCalls.Mark mark = calls == null ? null : calls.mark();
            long start = System.nanoTime();
            long end = start + measureNanos;
            long sent = 0;
            long now = start;
            while (now < end) {
                long t0 = System.nanoTime();
                producer.send(payload);
                now = System.nanoTime();
                publish.record(now - t0);
                sent++;
            }
            double seconds = (now - start) / 1e9;
            return new Result(sent / seconds, publish, calls == null ? null : calls.since(mark));
        }
    }
}
