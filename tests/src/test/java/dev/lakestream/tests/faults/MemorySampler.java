package dev.lakestream.tests.faults;

import dev.lakestream.tests.BrokerProcess;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Scrapes the brokers' {@code /metrics/} once a second while a scenario runs and keeps the largest heap and direct
 * memory in use any broker reported ({@code jvm_memory_bytes_used{area="heap"}}, {@code jvm_memory_direct_bytes_used}):
 * the worst moment of the scenario. A broker that does not answer (paused, killed) is skipped for that round.
 */
final class MemorySampler implements AutoCloseable {

    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();

    /** The brokers' web addresses ({@code host:port}). */
    private final List<String> brokers;

    private final AtomicLong maxHeap = new AtomicLong();
    private final AtomicLong maxDirect = new AtomicLong();
    private final AtomicLong samples = new AtomicLong();
    private final Thread thread;
    private volatile boolean stopped;

    MemorySampler(List<BrokerProcess> brokers) {
        this(brokers.stream().map(BrokerProcess::webAddress).toArray(String[]::new));
    }

    /**
     * Samples brokers by web address ({@code host:port}), e.g. an in-process broker, whose figures are those of the
     * whole JVM it shares with the test.
     */
    static MemorySampler ofWebAddresses(List<String> webAddresses) {
        return new MemorySampler(webAddresses.toArray(String[]::new));
    }

    private MemorySampler(String[] webAddresses) {
        this.brokers = List.of(webAddresses);
        this.thread = Thread.ofPlatform().daemon().name("memory-sampler").start(this::loop);
    }

    private void loop() {
        while (!stopped) {
            for (String b : brokers) {
                sample(b);
            }
            try {
                Thread.sleep(1000);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void sample(String webAddress) {
        try {
            HttpRequest r = HttpRequest.newBuilder(URI.create("http://" + webAddress + "/metrics/"))
                    .timeout(Duration.ofSeconds(2))
                    .build();
            HttpResponse<String> resp = HTTP.send(r, HttpResponse.BodyHandlers.ofString());
            if (resp.statusCode() != 200) {
                return;
            }
            double heap = value(resp.body(), "jvm_memory_bytes_used", "area=\"heap\"");
            double direct = value(resp.body(), "jvm_memory_direct_bytes_used", "");
            if (!Double.isNaN(heap)) {
                maxHeap.accumulateAndGet((long) heap, Math::max);
            }
            if (!Double.isNaN(direct)) {
                maxDirect.accumulateAndGet((long) direct, Math::max);
            }
            samples.incrementAndGet();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception unavailable) {
            // paused or down: no sample this round
        }
    }

    /** The first sample of {@code name} whose labels contain {@code label}, or NaN. */
    static double value(String text, String name, String label) {
        for (String line : text.split("\n", -1)) {
            if (!line.startsWith(name + "{") && !line.startsWith(name + " ")) {
                continue;
            }
            int close = line.lastIndexOf('}');
            String labels = close > 0 ? line.substring(0, close) : "";
            if (labels.contains(label)) {
                String rest = (close > 0 ? line.substring(close + 1) : line.substring(name.length())).trim();
                return Double.parseDouble(rest.split(" ", -1)[0]);
            }
        }
        return Double.NaN;
    }

    long maxHeapBytes() {
        return maxHeap.get();
    }

    long maxDirectBytes() {
        return maxDirect.get();
    }

    long samples() {
        return samples.get();
    }

    @Override
    public void close() throws InterruptedException {
        stopped = true;
        thread.interrupt();
        thread.join(5_000);
    }
}
