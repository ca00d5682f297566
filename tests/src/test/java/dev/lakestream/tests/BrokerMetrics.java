package dev.lakestream.tests;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** The broker's Prometheus endpoint ({@code /metrics/}), read as a scraper reads it. */
final class BrokerMetrics {

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
