package dev.lakestream.testkit;

import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The remote stores a test runs Lakestream (or a broker) on, started together and stopped together: an S3Proxy
 * server with a fresh bucket, and an Oxia server. If one fails to start, what started is stopped.
 */
public final class RemoteStores implements AutoCloseable {

    private final S3ProxyServer s3;
    private final String bucket;
    private final OxiaServer oxia;

    private RemoteStores(S3ProxyServer s3, String bucket, OxiaServer oxia) {
        this.s3 = s3;
        this.bucket = bucket;
        this.oxia = oxia;
    }

    /** Starts S3Proxy, creates a bucket, starts Oxia (its data directory named after {@code name}). */
    public static RemoteStores start(String name) {
        S3ProxyServer s3 = S3ProxyServer.start();
        try {
            String bucket = s3.createBucket();
            return new RemoteStores(s3, bucket, OxiaServer.create(name).start());
        } catch (RuntimeException | Error e) {
            s3.close();
            throw e;
        }
    }

    public S3ProxyServer s3() {
        return s3;
    }

    public String bucket() {
        return bucket;
    }

    public OxiaServer oxia() {
        return oxia;
    }

    /** Pulsar's metadata-store URL of the Oxia server ({@code oxia://<address>/default}). */
    public String oxiaMetadataStoreUrl() {
        return "oxia://" + oxia.serviceAddress() + "/default";
    }

    /** The {@code lakestream.*} settings that point a log at these stores. */
    public Map<String, String> lakestreamSettings() {
        return lakestreamSettings(s3.endpoint());
    }

    /** As {@link #lakestreamSettings()}, reaching S3 through {@code s3Endpoint} (e.g. a fault proxy in front of it). */
    public Map<String, String> lakestreamSettings(URI s3Endpoint) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("lakestream.s3.bucket", bucket);
        m.put("lakestream.s3.endpoint", s3Endpoint.toString());
        m.put("lakestream.s3.region", s3.region());
        m.put("lakestream.s3.pathStyleAccess", "true");
        m.put("lakestream.s3.accessKeyId", s3.accessKey());
        m.put("lakestream.s3.secretAccessKey", s3.secretKey());
        m.put("lakestream.oxia.serviceAddress", oxia.serviceAddress());
        return m;
    }

    /** Stops Oxia, then S3Proxy. */
    @Override
    public void close() {
        try {
            oxia.close();
        } finally {
            s3.close();
        }
    }
}
