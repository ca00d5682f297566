package dev.lakestream.core.objectstore.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lakestream.core.config.ConfigException;
import dev.lakestream.core.config.ConfigReader;
import java.net.URI;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class S3ObjectStoreConfigTest {

    @Test
    void defaults() {
        S3ObjectStoreConfig c =
                S3ObjectStoreConfig.fromProperties(new ConfigReader(Map.of("lakestream.s3.bucket", "my-bucket")));
        assertThat(c.bucket()).isEqualTo("my-bucket");
        assertThat(c.prefix()).isEmpty();
        assertThat(c.region()).isEqualTo("us-east-1");
        assertThat(c.endpoint()).isNull();
        assertThat(c.pathStyleAccess()).isFalse();
        assertThat(c.accessKeyId()).isNull();
        assertThat(c.secretAccessKey()).isNull();
        assertThat(c.requestTimeout()).isEqualTo(Duration.ofSeconds(10));
        assertThat(c.maxRetries()).isEqualTo(5);
        assertThat(c.retryBaseDelay()).isEqualTo(Duration.ofMillis(100));
        assertThat(c.retryMaxDelay()).isEqualTo(Duration.ofSeconds(5));
        assertThat(c.maxConcurrentRequests()).isEqualTo(64);
        assertThat(c.bucketUri()).isEqualTo("s3://my-bucket");
        assertThat(S3ObjectStoreConfig.builder().bucket("my-bucket").build()).isEqualTo(c);
    }

    @Test
    void allKeys() {
        S3ObjectStoreConfig c = S3ObjectStoreConfig.fromProperties(new ConfigReader(Map.ofEntries(
                Map.entry("lakestream.s3.bucket", "b1"),
                Map.entry("lakestream.s3.prefix", "/cluster-a/"),
                Map.entry("lakestream.s3.region", "eu-west-1"),
                Map.entry("lakestream.s3.endpoint", "http://127.0.0.1:9000"),
                Map.entry("lakestream.s3.pathStyleAccess", "true"),
                Map.entry("lakestream.s3.accessKeyId", "AK"),
                Map.entry("lakestream.s3.secretAccessKey", "SK"),
                Map.entry("lakestream.s3.requestTimeout", "30s"),
                Map.entry("lakestream.s3.maxRetries", "2"),
                Map.entry("lakestream.s3.retryBaseDelay", "50ms"),
                Map.entry("lakestream.s3.retryMaxDelay", "1s"),
                Map.entry("lakestream.s3.maxConcurrentRequests", "16"))));
        assertThat(c)
                .isEqualTo(new S3ObjectStoreConfig(
                        "b1",
                        "cluster-a",
                        "eu-west-1",
                        URI.create("http://127.0.0.1:9000"),
                        true,
                        "AK",
                        "SK",
                        Duration.ofSeconds(30),
                        2,
                        Duration.ofMillis(50),
                        Duration.ofSeconds(1),
                        16,
                        null));
        assertThat(c.bucketUri()).isEqualTo("s3://b1/cluster-a");
        assertThat(c.toString()).doesNotContain("SK").contains("****");
        assertThat(c.toBuilder().build()).isEqualTo(c);
    }

    @Test
    void errorsNameTheKey() {
        assertBad(Map.of(), "lakestream.s3.bucket");
        assertBad(Map.of("lakestream.s3.endpoint", "ftp://host"), "lakestream.s3.endpoint");
        assertBad(Map.of("lakestream.s3.endpoint", "http://bad host"), "lakestream.s3.endpoint");
        assertBad(Map.of("lakestream.s3.accessKeyId", "AK"), "lakestream.s3.secretAccessKey");
        assertBad(Map.of("lakestream.s3.secretAccessKey", "SK"), "lakestream.s3.accessKeyId");
        assertBad(Map.of("lakestream.s3.requestTimeout", "0s"), "lakestream.s3.requestTimeout");
        assertBad(Map.of("lakestream.s3.requestTimeout", "soon"), "lakestream.s3.requestTimeout");
        assertBad(Map.of("lakestream.s3.maxRetries", "-1"), "lakestream.s3.maxRetries");
        assertBad(Map.of("lakestream.s3.retryBaseDelay", "10s"), "lakestream.s3.retryBaseDelay");
        assertBad(Map.of("lakestream.s3.maxConcurrentRequests", "0"), "lakestream.s3.maxConcurrentRequests");
        assertBad(Map.of("lakestream.s3.pathStyleAccess", "sometimes"), "lakestream.s3.pathStyleAccess");
        assertBad(Map.of("lakestream.s3.prefix", "a//b"), "lakestream.s3.prefix");
        assertBad(
                Map.of("lakestream.s3.tlsTrustCertsFilePath", "/no/such/ca.pem"),
                "lakestream.s3.tlsTrustCertsFilePath");
    }

    @Test
    void theSecretIsNeverInAnErrorMessage() {
        assertThatThrownBy(() -> new S3ObjectStoreConfig(
                        "b",
                        "",
                        "r",
                        null,
                        false,
                        null,
                        "TOP-SECRET",
                        Duration.ofSeconds(1),
                        1,
                        Duration.ofMillis(1),
                        Duration.ofMillis(1),
                        1,
                        null))
                .isInstanceOf(ConfigException.class)
                .message()
                .doesNotContain("TOP-SECRET");
    }

    private static void assertBad(Map<String, String> props, String key) {
        Map<String, String> all = new HashMap<>(props);
        if (!key.equals("lakestream.s3.bucket")) {
            all.putIfAbsent("lakestream.s3.bucket", "b");
        }
        assertThatThrownBy(() -> S3ObjectStoreConfig.fromProperties(new ConfigReader(all)))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(key)
                .satisfies(e -> assertThat(((ConfigException) e).key()).isEqualTo(key));
    }
}
