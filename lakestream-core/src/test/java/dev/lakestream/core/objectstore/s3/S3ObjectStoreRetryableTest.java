package dev.lakestream.core.objectstore.s3;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lakestream.core.objectstore.ObjectStoreException;
import dev.lakestream.core.objectstore.ObjectStoreUnavailableException;
import java.net.ConnectException;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/** Which failures of one attempt the S3 store retries. */
class S3ObjectStoreRetryableTest {

    @Test
    void serverErrorsAndThrottlingAreRetried() {
        for (int status : new int[] {500, 502, 503, 504, 429}) {
            assertThat(S3ObjectStore.isRetryable(s3(status, null)))
                    .as("%d", status)
                    .isTrue();
        }
        assertThat(S3ObjectStore.isRetryable(s3(503, "SlowDown"))).isTrue();
        assertThat(S3ObjectStore.isRetryable(s3(400, "RequestTimeout"))).isTrue();
        assertThat(S3ObjectStore.isRetryable(new CompletionException(s3(503, "SlowDown"))))
                .isTrue();
    }

    @Test
    void clientErrorsAreNot() {
        for (int status : new int[] {400, 403, 404, 409, 412, 416}) {
            assertThat(S3ObjectStore.isRetryable(s3(status, null)))
                    .as("%d", status)
                    .isFalse();
        }
        assertThat(S3ObjectStore.isRetryable(s3(403, "SignatureDoesNotMatch"))).isFalse();
        assertThat(S3ObjectStore.isRetryable(s3(404, "NoSuchBucket"))).isFalse();
    }

    @Test
    void timeoutsAndConnectionFailuresAreRetried() {
        assertThat(S3ObjectStore.isRetryable(ApiCallAttemptTimeoutException.create(1000)))
                .isTrue();
        assertThat(S3ObjectStore.isRetryable(SdkClientException.create(
                        "Unable to execute HTTP request", new ConnectException("Connection refused"))))
                .isTrue();
        assertThat(S3ObjectStore.isRetryable(new ObjectStoreUnavailableException("per-key SlowDown")))
                .isTrue();
    }

    @Test
    void checksumMismatchesAndOtherFailuresAreNot() {
        assertThat(S3ObjectStore.isRetryable(
                        SdkClientException.create("Data read has a different checksum than expected.")))
                .isFalse();
        assertThat(S3ObjectStore.isRetryable(new IllegalStateException("bug"))).isFalse();
        assertThat(S3ObjectStore.isRetryable(SdkClientException.create(
                        "Unable to load credentials from any of the providers in the chain",
                        new java.io.IOException("no instance metadata"))))
                .isFalse();
        assertThat(S3ObjectStore.isRetryable(new ObjectStoreException("closed")))
                .isFalse();
    }

    private static S3Exception s3(int status, String code) {
        return (S3Exception) S3Exception.builder()
                .statusCode(status)
                .awsErrorDetails(AwsErrorDetails.builder()
                        .errorCode(code)
                        .errorMessage("test")
                        .build())
                .message("test " + status)
                .build();
    }
}
