package dev.lakestream.iceberg.tool;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.lakestream.core.concurrent.DaemonThreads;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * The standalone materializer's {@code GET /metrics}: the {@code lakestream_iceberg_*} series in the Prometheus text
 * format, on the JDK's own HTTP server (one thread; a scrape only formats the published statuses).
 */
final class MetricsServer implements AutoCloseable {

    static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private final HttpServer server;
    private final ExecutorService thread;

    private MetricsServer(HttpServer server, ExecutorService thread) {
        this.server = server;
        this.thread = thread;
    }

    /**
     * Listens on {@code address:port} (port 0: any free port, see {@link #port()}).
     *
     * @throws UncheckedIOException naming the address when it cannot be bound
     */
    static MetricsServer start(String address, int port, Supplier<String> metrics) {
        HttpServer server;
        try {
            server = HttpServer.create(new InetSocketAddress(address, port), 16);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot serve /metrics on " + address + ":" + port + " (" + ToolConfig.METRICS_PORT + "): "
                            + e.getMessage(),
                    e);
        }
        server.createContext("/metrics", exchange -> answer(exchange, metrics));
        ExecutorService thread =
                Executors.newSingleThreadExecutor(DaemonThreads.named("lakestream-materialize-metrics"));
        server.setExecutor(thread);
        server.start();
        return new MetricsServer(server, thread);
    }

    private static void answer(HttpExchange exchange, Supplier<String> metrics) throws IOException {
        try (exchange) {
            if (!exchange.getRequestMethod().equals("GET")
                    && !exchange.getRequestMethod().equals("HEAD")) {
                exchange.sendResponseHeaders(405, -1);
                return;
            }
            byte[] body = metrics.get().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", CONTENT_TYPE);
            if (exchange.getRequestMethod().equals("HEAD")) {
                exchange.sendResponseHeaders(200, -1);
                return;
            }
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }

    /** The port it listens on. */
    int port() {
        return server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
        thread.shutdownNow();
    }
}
