package dev.lakestream.core.log;

import dev.lakestream.core.objectstore.s3.S3ObjectStore;
import dev.lakestream.core.objectstore.s3.S3ObjectStoreConfig;
import dev.lakestream.testkit.S3ProxyExtension;
import dev.lakestream.testkit.S3ProxyServer;

/** The object store the remote tests use: a fresh bucket of the test kit's S3Proxy, objects under "wal". */
public final class RemoteTestStores {

    private RemoteTestStores() {}

    public static S3ObjectStore freshBucket(S3ProxyExtension s3) {
        return freshBucket(s3.server());
    }

    public static S3ObjectStore freshBucket(S3ProxyServer s3) {
        return new S3ObjectStore(S3ObjectStoreConfig.builder()
                .bucket(s3.createBucket())
                .prefix("wal")
                .endpoint(s3.endpoint())
                .region(s3.region())
                .pathStyleAccess(true)
                .credentials(s3.accessKey(), s3.secretKey())
                .build());
    }
}
