package dev.lakestream.tests;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** The broker's Prometheus endpoint ({@code /metrics/}), read as a scraper reads it. */
public final class BrokerMetrics {

    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    private BrokerMetrics() {}

    /** The endpoint's text; fails naming the status when it is not 200. */
    static String scrape(PulsarBrokerExtension broker) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create(broker.webServiceUrl() + "/metrics/"))
                .timeout(Duration.ofSeconds(30))
                .build();
        HttpResponse<String> r = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IOException(request.uri() + " answered " + r.statusCode() + ": " + r.body());
        }
        return r.body();
    }

    /**
     * The sum of the samples of counter {@code name} over the running brokers of {@code brokers} (a broker that
     * restarted counts from its start).
     */
    public static double sumOverRunning(java.util.List<BrokerProcess> brokers, String name)
            throws IOException, InterruptedException {
        double sum = 0;
        for (BrokerProcess b : brokers) {
            if (!b.isAlive()) {
                continue;
            }
            HttpResponse<String> r = HTTP.send(
                    HttpRequest.newBuilder(URI.create("http://" + b.webAddress() + "/metrics/"))
                            .timeout(Duration.ofSeconds(30))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            for (String line : r.body().split("\n", -1)) {
                if (line.startsWith(name + " ") || line.startsWith(name + "{")) {
                    sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
                }
            }
        }
        return sum;
    }

    /** The value of the first sample {@code name{...label...} value} in Prometheus text, or NaN. */
    static double value(String text, String name, String label) {
        for (String line : text.split("\n", -1)) {
            int close = line.lastIndexOf('}');
            if (line.startsWith(name + "{")
                    && close > 0
                    && line.substring(0, close).contains(label)) {
                return Double.parseDouble(line.substring(close + 1).trim().split(" ", -1)[0]);
            }
        }
        return Double.NaN;
    }
}
