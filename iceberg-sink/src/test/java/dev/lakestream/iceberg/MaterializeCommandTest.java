package dev.lakestream.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lakestream.core.StreamLog;
import dev.lakestream.core.metadata.embedded.EmbeddedMetadataStoreConfig;
import dev.lakestream.core.objectstore.fs.FileSystemObjectStoreConfig;
import dev.lakestream.iceberg.tool.MaterializeCommand;
import dev.lakestream.iceberg.tool.StatusFile;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.iceberg.catalog.Catalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The standalone tool ({@code bin/lakestream-materialize}) on a configuration file, with nothing else running: one
 * pass ({@code --once}), the status command, the long-running mode stopped as SIGTERM stops it, and bad keys.
 */
class MaterializeCommandTest {

    @TempDir
    Path dir;

    private static final TopicRef ORDERS = TopicRef.parse("persistent://public/default/orders");
    private static final TopicRef OTHER = TopicRef.parse("persistent://other/ns/skipped");

    private Path conf(Map<String, String> extra) throws Exception {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("brokerServicePort", "6650"); // a broker.conf's own keys are ignored
        p.put("lakestream.objectStore", "filesystem");
        p.put(FileSystemObjectStoreConfig.ROOT, dir.resolve("objects").toString());
        p.put("lakestream.metadataStore", "embedded");
        p.put(EmbeddedMetadataStoreConfig.DATA_DIR, dir.resolve("metadata").toString());
        p.put("lakestream.materialize.dataDir", dir.toString());
        p.put("lakestream.materialize.topics", "public/default");
        p.putAll(extra);
        StringBuilder sb = new StringBuilder();
        p.forEach((k, v) -> sb.append(k).append('=').append(v).append('\n'));
        Path file = dir.resolve("tool.conf");
        Files.writeString(file, sb.toString());
        return file;
    }

    private void appendEntries(TopicRef topic, int from, int n) throws Exception {
        try (Fixture f = new Fixture(dir)) {
            StreamLog stream = f.stream(topic);
            Fixture.append(stream, ExactlyOnceTest.entries(from, n));
        }
    }

    private record Run(int code, String out, String err) {}

    private static Run run(CountDownLatch stop, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = MaterializeCommand.run(
                args,
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8),
                stop);
        return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void oncePassMaterializesTheSelectedTopicsAndStatusShowsNoLag() throws Exception {
        appendEntries(ORDERS, 0, 5);
        appendEntries(OTHER, 0, 2);
        Path conf = conf(Map.of());

        Run once = run(null, "--conf", conf.toString(), "--once");
        assertThat(once.code()).as(once.err()).isZero();
        assertThat(once.out())
                .contains("persistent://public/default/orders -> public.default.orders: offsets up"
                        + " to 5 of 5, 15 rows in 1 commits")
                .contains("1 topic partitions, 0 incomplete");

        try (Fixture f = new Fixture(dir)) {
            Catalog c = f.catalog();
            ExactlyOnceTest.assertExactly(c.loadTable(TableNames.of(ORDERS)), 5);
            assertThat(c.tableExists(TableNames.of(OTHER))).as("not selected").isFalse();
            Fixture.append(
                    f.log.stream(f.log.catalog()
                            .open(Materializers.MANAGED_LEDGERS, "public/default/persistent/orders")
                            .join()),
                    ExactlyOnceTest.entries(5, 2));
        }

        Run status = run(null, "status", "--conf", conf.toString());
        assertThat(status.code()).as(status.err()).isZero();
        assertThat(status.out())
                .contains("TOPIC")
                .contains("persistent://public/default/orders")
                .containsPattern("public\\.default\\.orders\\s+5\\s+7\\s+2\\s+\\d+\\.\\d\\s+STOPPED");

        // A second pass takes only the new entries: each message once.
        Run again = run(null, "--conf", conf.toString(), "--once");
        assertThat(again.out()).contains("offsets up to 7 of 7, 6 rows in 1 commits");
        try (Fixture f = new Fixture(dir)) {
            ExactlyOnceTest.assertExactly(f.catalog().loadTable(TableNames.of(ORDERS)), 7);
        }
    }

    @Test
    void runningMaterializerCommitsAndPublishesItsStatusUntilStopped() throws Exception {
        appendEntries(ORDERS, 0, 4);
        Path conf = conf(Map.of(
                "lakestream.iceberg.commitInterval",
                "200ms",
                "lakestream.iceberg.pollInterval",
                "100ms",
                "lakestream.iceberg.maintenanceInterval",
                "1s"));
        CountDownLatch stop = new CountDownLatch(1);
        CompletableFuture<Run> running = CompletableFuture.supplyAsync(() -> run(stop, "--conf", conf.toString()));
        Path statusFile = dir.resolve("iceberg/materialize-status.json");
        AtomicReference<StatusFile.Topic> published = new AtomicReference<>();
        try {
            await("the status published with committed offset 4")
                    .atMost(Duration.ofMinutes(1))
                    .until(() -> {
                        var now = StatusFile.read(statusFile);
                        if (now.isPresent()
                                && !now.get().topics().isEmpty()
                                && now.get().topics().get(0).committedOffset() == 4) {
                            published.set(now.get().topics().get(0));
                            return true;
                        }
                        return false;
                    });
        } finally {
            stop.countDown();
        }
        Run run = running.get();
        assertThat(run.code()).as(run.err()).isZero();
        StatusFile.Topic seen = published.get();
        assertThat(seen.state().name()).isEqualTo("RUNNING");
        assertThat(seen.lagEntries()).isZero();
        assertThat(seen.table()).isEqualTo("public.default.orders");
        StatusFile.Snapshot last = StatusFile.read(statusFile).orElseThrow();
        assertThat(last.running()).isFalse();
        try (Fixture f = new Fixture(dir)) {
            ExactlyOnceTest.assertExactly(f.catalog().loadTable(TableNames.of(ORDERS)), 4);
        }
        Run status = run(null, "status", "--conf", conf.toString());
        assertThat(status.out()).containsPattern("public\\.default\\.orders\\s+4\\s+4\\s+0\\s+0\\.0\\s+STOPPED");
    }

    @Test
    void runningMaterializerServesPrometheusMetricsOnItsPort() throws Exception {
        appendEntries(ORDERS, 0, 4);
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        Path conf = conf(Map.of(
                "lakestream.iceberg.commitInterval",
                "200ms",
                "lakestream.iceberg.pollInterval",
                "100ms",
                "lakestream.materialize.metricsAddress",
                "127.0.0.1",
                "lakestream.materialize.metricsPort",
                Integer.toString(port),
                "lakestream.iceberg.maxBufferedBytes",
                "64MiB"));
        CountDownLatch stop = new CountDownLatch(1);
        CompletableFuture<Run> running = CompletableFuture.supplyAsync(() -> run(stop, "--conf", conf.toString()));
        HttpClient http = HttpClient.newHttpClient();
        URI metrics = URI.create("http://127.0.0.1:" + port + "/metrics");
        String sample = "lakestream_iceberg_committed_offset{topic=\"persistent://public/default/orders\","
                + "table=\"public.default.orders\"} 4";
        AtomicReference<HttpResponse<String>> scraped = new AtomicReference<>();
        try {
            await("/metrics showing committed offset 4")
                    .atMost(Duration.ofMinutes(1))
                    .until(() -> {
                        try {
                            HttpResponse<String> r = http.send(
                                    HttpRequest.newBuilder(metrics).build(), HttpResponse.BodyHandlers.ofString());
                            scraped.set(r);
                            return r.body().contains(sample);
                        } catch (java.io.IOException e) {
                            return false; // not listening yet
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            return false;
                        }
                    });
        } finally {
            stop.countDown();
        }
        assertThat(running.get().code()).isZero();
        HttpResponse<String> r = scraped.get();
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type"))
                .hasValueSatisfying(v -> assertThat(v).startsWith("text/plain; version=0.0.4"));
        assertThat(r.body())
                .contains("# TYPE lakestream_iceberg_commits_total counter")
                .contains("lakestream_iceberg_topics 1")
                .contains("lakestream_iceberg_lag_entries{topic=\"persistent://public/default/orders\","
                        + "table=\"public.default.orders\"} 0")
                .contains("lakestream_iceberg_buffered_bytes_limit " + 64L * 1024 * 1024);
        // Stopped: the port is closed.
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> http.send(HttpRequest.newBuilder(metrics).build(), HttpResponse.BodyHandlers.ofString()))
                .isInstanceOf(java.io.IOException.class);
    }

    @Test
    void aBadMetricsPortIsRefusedByName() throws Exception {
        Run bad = run(
                null,
                "--conf",
                conf(Map.of("lakestream.materialize.metricsPort", "70000")).toString());
        assertThat(bad.code()).isEqualTo(2);
        assertThat(bad.err()).contains("lakestream.materialize.metricsPort").contains("70000");
    }

    @Test
    void misspeltKeysAndBadSelectionsAreRefusedByName() throws Exception {
        Run typo = run(
                null,
                "--conf",
                conf(Map.of("lakestream.iceberg.comitInterval", "1s")).toString(),
                "--once");
        assertThat(typo.code()).isEqualTo(2);
        assertThat(typo.err())
                .contains("lakestream.iceberg.comitInterval")
                .contains("did you mean lakestream.iceberg.commitInterval");
        Run selection = run(
                null,
                "--conf",
                conf(Map.of("lakestream.materialize.topics", "justone")).toString(),
                "--once");
        assertThat(selection.code()).isEqualTo(2);
        assertThat(selection.err()).contains("lakestream.materialize.topics").contains("'justone'");
        Run noConf = run(null, "--once");
        assertThat(noConf.code()).isEqualTo(2);
        assertThat(noConf.err()).contains("--conf FILE is required");
    }

    @Test
    void selectionTakesNamespacesAndTopicsAndLeavesSystemTopicsOutUnlessNamed() {
        var all = dev.lakestream.iceberg.tool.TopicSelection.parse("all");
        assertThat(all.includes(ORDERS)).isTrue();
        assertThat(all.includes(TopicRef.parse("persistent://public/default/__change_events")))
                .isFalse();
        assertThat(all.includes(TopicRef.parse("persistent://public/default/t-sub__transaction_pending_ack")))
                .isFalse();
        var some = dev.lakestream.iceberg.tool.TopicSelection.parse(
                "other/ns, persistent://public/default/orders, persistent://public/default/__change_events");
        assertThat(some.includes(OTHER)).isTrue();
        assertThat(some.includes(TopicRef.parse("persistent://public/default/orders-partition-3")))
                .isTrue();
        assertThat(some.includes(TopicRef.parse("persistent://public/default/__change_events")))
                .isTrue();
        assertThat(some.includes(TopicRef.parse("persistent://public/default/other")))
                .isFalse();
    }
}
