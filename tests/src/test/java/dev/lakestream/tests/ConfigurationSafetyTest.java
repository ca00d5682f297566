package dev.lakestream.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lakestream.core.config.ConfigReader;
import dev.lakestream.core.objectstore.s3.S3ObjectStoreConfig;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Property;
import org.apache.pulsar.client.api.PulsarClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Bad configuration and secrets at the broker: a misspelt {@code lakestream.*} key stops the broker naming the key
 * and the nearest known key, and the S3 secret never shows in this JVM's log lines, start-up failures, the admin
 * API's stats or {@code /metrics}.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ConfigurationSafetyTest {

    /** Every log event of this JVM from the start of the class (INFO and above, as configured), rendered. */
    private static final ConcurrentLinkedQueue<String> LOG_LINES = new ConcurrentLinkedQueue<>();

    private static final AbstractAppender CAPTURE =
            new AbstractAppender("configuration-safety-capture", null, null, true, Property.EMPTY_ARRAY) {
                @Override
                public void append(LogEvent event) {
                    StringBuilder line = new StringBuilder(event.getLoggerName())
                            .append(' ')
                            .append(event.getMessage().getFormattedMessage())
                            .append(' ')
                            .append(event.getContextData().toMap());
                    if (event.getThrown() != null) {
                        line.append('\n').append(stackTrace(event.getThrown()));
                    }
                    LOG_LINES.add(line.toString());
                }
            };

    static {
        // Attached before the extension below starts the servers and the broker.
        CAPTURE.start();
        LoggerContext ctx = (LoggerContext) LogManager.getContext(false);
        ctx.getConfiguration().getRootLogger().addAppender(CAPTURE, null, null);
        ctx.updateLoggers();
    }

    @RegisterExtension
    static final PulsarBrokerExtension BROKER = PulsarBrokerExtension.onS3ProxyAndOxia();

    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @AfterAll
    static void detach() {
        LoggerContext ctx = (LoggerContext) LogManager.getContext(false);
        ctx.getConfiguration().getRootLogger().removeAppender(CAPTURE.getName());
        ctx.updateLoggers();
        CAPTURE.stop();
    }

    @Test
    void aBrokerWithAMisspeltKeyRefusesToStartNamingItAndTheNearestKey() {
        String secret = "misspelt-key-test-secret-5d1c";
        PulsarBrokerExtension bad = PulsarBrokerExtension.embedded()
                .config("lakestream.writer.flushDelayy", "5ms")
                .config("lakestream.s3.accessKeyId", "misspelt-key-test-key-id")
                .config("lakestream.s3.secretAccessKey", secret)
                .config("lakestream.s3.secretAccesKey", secret);
        try {
            assertThatThrownBy(bad::start)
                    .hasStackTraceContaining("unknown key lakestream.writer.flushDelayy "
                            + "(did you mean lakestream.writer.flushDelay?)")
                    .hasStackTraceContaining("unknown key lakestream.s3.secretAccesKey "
                            + "(did you mean lakestream.s3.secretAccessKey?)")
                    .satisfies(e -> assertThat(stackTrace(e)).doesNotContain(secret));
        } finally {
            bad.close();
        }
        assertThat(LOG_LINES).noneMatch(l -> l.contains(secret));
    }

    @Test
    void theS3SecretNeverShowsInLogsStatsOrMetrics() throws Exception {
        String secret = BROKER.s3().secretKey();
        String accessKeyId = BROKER.s3().accessKey();
        assertThat(BROKER.configuration().getProperties().getProperty("lakestream.s3.secretAccessKey"))
                .as("the broker runs with the S3Proxy's secret")
                .isEqualTo(secret);

        String topic = "persistent://public/default/secret-check";
        PulsarClient client = BROKER.newClient();
        RoundTrips.produce(client, topic, "m", 20);
        RoundTrips.subscribe(client, topic, "s").close();
        BROKER.admin().topics().unload(topic);
        RoundTrips.produce(client, topic, "n", 5);

        // Everything an operator or a scraper reads from the broker.
        String path = "/admin/v2/persistent/public/default/secret-check";
        Map<String, String> answers = new LinkedHashMap<>();
        for (String p : List.of(
                path + "/stats",
                path + "/internalStats",
                path + "/partitioned-stats",
                "/admin/v2/brokers/configuration/runtime",
                "/admin/v2/brokers/configuration/values",
                "/admin/v2/broker-stats/topics",
                "/admin/v2/broker-stats/metrics",
                "/metrics/")) {
            answers.put(p, get(p));
        }
        assertThat(answers.get(path + "/internalStats")).contains("ledgers");
        assertThat(answers.get("/metrics/")).contains("pulsar_in_messages_total");
        answers.forEach(
                (p, body) -> assertThat(body).as(p).doesNotContain(secret).doesNotContain(accessKeyId));

        // The config object the storage builds from those properties.
        String config = S3ObjectStoreConfig.fromProperties(
                        ConfigReader.of(BROKER.configuration().getProperties()))
                .toString();
        assertThat(config)
                .contains("secretAccessKey=****")
                .doesNotContain(secret)
                .doesNotContain(accessKeyId);

        assertThat(LOG_LINES).as("log lines captured").hasSizeGreaterThan(50);
        // Pulsar logs every custom broker property once the broker is ready; the storage masked the credentials.
        assertThat(LOG_LINES)
                .anyMatch(l ->
                        l.contains("Messaging service is ready") && l.contains("lakestream.s3.secretAccessKey=****"));
        assertThat(LOG_LINES).noneMatch(l -> l.contains(secret));
        assertThat(LOG_LINES).noneMatch(l -> l.contains(accessKeyId));
    }

    private static String get(String path) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(BROKER.webServiceUrl() + path))
                .timeout(Duration.ofSeconds(30))
                .build();
        HttpResponse<String> r = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
        // A 4xx (an endpoint this broker does not serve for a non-partitioned topic) is still searched.
        assertThat(r.statusCode()).as(path + " answered " + r.body()).isLessThan(500);
        return r.body();
    }

    private static String stackTrace(Throwable t) {
        StringWriter w = new StringWriter();
        t.printStackTrace(new PrintWriter(w));
        return w.toString();
    }
}
