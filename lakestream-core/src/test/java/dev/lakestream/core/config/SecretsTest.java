package dev.lakestream.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lakestream.core.objectstore.s3.S3ObjectStoreConfig;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SecretsTest {

    private static final String SECRET = "tH1s-Is-The-Secret-9f8e7d";
    private static final String KEY_ID = "AKIAEXAMPLEKEYID1234";

    @Test
    void theSecretIsMaskedAndTheKeyIdShownByItsLastCharacters() {
        assertThat(Secrets.shown(S3ObjectStoreConfig.SECRET_ACCESS_KEY, SECRET)).isEqualTo("****");
        assertThat(Secrets.shown(S3ObjectStoreConfig.ACCESS_KEY_ID, KEY_ID)).isEqualTo("****1234");
        assertThat(Secrets.shown(S3ObjectStoreConfig.ACCESS_KEY_ID, "short")).isEqualTo("****");
        assertThat(Secrets.shown(S3ObjectStoreConfig.BUCKET, "b")).isEqualTo("b");
        assertThat(Secrets.shown(S3ObjectStoreConfig.SECRET_ACCESS_KEY, null)).isNull();
        assertThat(Secrets.isSecret(S3ObjectStoreConfig.SECRET_ACCESS_KEY)).isTrue();
    }

    @Test
    void theS3ConfigNeverPrintsItsCredentials() {
        S3ObjectStoreConfig c = S3ObjectStoreConfig.fromProperties(new ConfigReader(Map.of(
                S3ObjectStoreConfig.BUCKET, "bucket",
                S3ObjectStoreConfig.ACCESS_KEY_ID, KEY_ID,
                S3ObjectStoreConfig.SECRET_ACCESS_KEY, SECRET)));
        assertThat(c.secretAccessKey()).isEqualTo(SECRET);
        assertThat(c.toString())
                .doesNotContain(SECRET)
                .doesNotContain(KEY_ID)
                .contains("secretAccessKey=****", "accessKeyId=****1234");
        assertThat(c.toBuilder().bucket("other").build().toString()).doesNotContain(SECRET);
    }

    @Test
    void aConfigExceptionAboutTheSecretDoesNotPrintIt() {
        ConfigException e = new ConfigException(S3ObjectStoreConfig.SECRET_ACCESS_KEY, SECRET, "is not valid");
        assertThat(e.getMessage()).doesNotContain(SECRET).contains("'lakestream.s3.secretAccessKey' = '****'");
    }

    @Test
    void startUpFailuresWithASecretConfiguredDoNotPrintIt() {
        // Missing bucket, unknown key and a bad value, each with the credentials set.
        Map<String, String> creds =
                Map.of(S3ObjectStoreConfig.ACCESS_KEY_ID, KEY_ID, S3ObjectStoreConfig.SECRET_ACCESS_KEY, SECRET);
        assertThatThrownBy(() -> S3ObjectStoreConfig.fromProperties(new ConfigReader(creds)))
                .hasMessageNotContaining(SECRET)
                .hasMessageContaining(S3ObjectStoreConfig.BUCKET);
        java.util.HashMap<String, String> typo = new java.util.HashMap<>(creds);
        typo.put("lakestream.s3.secretAccessKeyy", SECRET);
        assertThatThrownBy(() -> ConfigKeys.requireKnown(typo.keySet()))
                .hasMessageNotContaining(SECRET)
                .hasMessageContaining("lakestream.s3.secretAccessKeyy");
        java.util.HashMap<String, String> bad = new java.util.HashMap<>(creds);
        bad.put(S3ObjectStoreConfig.BUCKET, "b");
        bad.put(S3ObjectStoreConfig.MAX_RETRIES, "-1");
        assertThatThrownBy(() -> S3ObjectStoreConfig.fromProperties(new ConfigReader(bad)))
                .hasMessageNotContaining(SECRET)
                .hasMessageContaining("'lakestream.s3.maxRetries' = '-1' must be >= 0");
    }

    @Test
    void maskInReplacesOnlyTheCredentialsOfAPropertiesObject() {
        java.util.Properties p = new java.util.Properties();
        p.setProperty(S3ObjectStoreConfig.SECRET_ACCESS_KEY, SECRET);
        p.setProperty(S3ObjectStoreConfig.ACCESS_KEY_ID, KEY_ID);
        p.setProperty("brokerServicePort", "6650");
        Secrets.maskIn(p);
        assertThat(p)
                .containsEntry(S3ObjectStoreConfig.SECRET_ACCESS_KEY, "****")
                .containsEntry(S3ObjectStoreConfig.ACCESS_KEY_ID, "****1234")
                .containsEntry("brokerServicePort", "6650");
        Secrets.maskIn(null);
    }
}
