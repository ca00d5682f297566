package dev.lakestream.core.objectstore.s3;

import dev.lakestream.core.objectstore.ObjectStore;
import dev.lakestream.core.objectstore.ObjectStoreConformanceTest;
import dev.lakestream.testkit.S3ProxyExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The conformance suite against a real S3Proxy, each test in a fresh bucket, under a key prefix. */
class S3ObjectStoreConformanceTest extends ObjectStoreConformanceTest {

    @RegisterExtension
    static final S3ProxyExtension S3 = new S3ProxyExtension();

    @Override
    protected ObjectStore createStore() {
        return new S3ObjectStore(S3ObjectStoreConfig.builder()
                .bucket(S3.createBucket())
                .prefix("conf")
                .endpoint(S3.endpoint())
                .region(S3.region())
                .pathStyleAccess(true)
                .credentials(S3.accessKey(), S3.secretKey())
                .build());
    }
}
