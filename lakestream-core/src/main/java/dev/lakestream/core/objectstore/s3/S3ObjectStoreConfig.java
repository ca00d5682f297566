package dev.lakestream.core.objectstore.s3;

import dev.lakestream.core.config.ConfigException;
import dev.lakestream.core.config.ConfigReader;
import dev.lakestream.core.config.Secrets;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * The settings of an {@link S3ObjectStore}, validated on construction (a {@link ConfigException} names the
 * key of the bad value).
 *
 * @param bucket the bucket ({@value #BUCKET}, required)
 * @param prefix the prefix of every physical key ({@value #PREFIX}, default empty): key {@code k} is stored
 *     as {@code prefix + "/" + k}; leading and trailing {@code '/'} are dropped
 * @param region the signing region ({@value #REGION}, default {@value #DEFAULT_REGION})
 * @param endpoint the endpoint, for S3-compatible stores ({@value #ENDPOINT}, default: AWS's endpoint for the
 *     region), or {@code null}
 * @param pathStyleAccess {@code http://host/bucket/key} rather than {@code http://bucket.host/key}
 *     ({@value #PATH_STYLE_ACCESS}, default false; most S3-compatible stores need true)
 * @param accessKeyId static credentials ({@value #ACCESS_KEY_ID}), or {@code null} for the SDK's default
 *     credentials chain (environment, system properties, profile, container/instance role)
 * @param secretAccessKey the secret of {@code accessKeyId} ({@value #SECRET_ACCESS_KEY}); required with it
 * @param requestTimeout the limit on one attempt of one request ({@value #REQUEST_TIMEOUT}, default 10s)
 * @param maxRetries retries after the first attempt of a request that failed with a retryable error
 *     ({@value #MAX_RETRIES}, default 5)
 * @param retryBaseDelay the ceiling of the first backoff ({@value #RETRY_BASE_DELAY}, default 100ms)
 * @param retryMaxDelay the largest ceiling of a backoff ({@value #RETRY_MAX_DELAY}, default 5s)
 * @param maxConcurrentRequests requests in flight at once; more wait in a queue without blocking anyone
 *     ({@value #MAX_CONCURRENT_REQUESTS}, default 64)
 * @param tlsTrustCertsFile a PEM file of the CA certificates to trust for an https endpoint, instead of the JDK's
 *     ({@value #TLS_TRUST_CERTS_FILE}, default: none, the JDK's trust store); must hold at least one certificate
 */
public record S3ObjectStoreConfig(
        String bucket,
        String prefix,
        String region,
        URI endpoint,
        boolean pathStyleAccess,
        String accessKeyId,
        String secretAccessKey,
        Duration requestTimeout,
        int maxRetries,
        Duration retryBaseDelay,
        Duration retryMaxDelay,
        int maxConcurrentRequests,
        Path tlsTrustCertsFile) {

    public static final String BUCKET = "lakestream.s3.bucket";
    public static final String PREFIX = "lakestream.s3.prefix";
    public static final String REGION = "lakestream.s3.region";
    public static final String ENDPOINT = "lakestream.s3.endpoint";
    public static final String PATH_STYLE_ACCESS = "lakestream.s3.pathStyleAccess";
    public static final String ACCESS_KEY_ID = "lakestream.s3.accessKeyId";
    public static final String SECRET_ACCESS_KEY = "lakestream.s3.secretAccessKey";
    public static final String REQUEST_TIMEOUT = "lakestream.s3.requestTimeout";
    public static final String MAX_RETRIES = "lakestream.s3.maxRetries";
    public static final String RETRY_BASE_DELAY = "lakestream.s3.retryBaseDelay";
    public static final String RETRY_MAX_DELAY = "lakestream.s3.retryMaxDelay";
    public static final String MAX_CONCURRENT_REQUESTS = "lakestream.s3.maxConcurrentRequests";
    public static final String TLS_TRUST_CERTS_FILE = "lakestream.s3.tlsTrustCertsFilePath";

    /** Every key this config reads (registered by {@link S3ObjectStoreConfigKeys}). */
    public static final List<String> KEYS = List.of(
            BUCKET,
            PREFIX,
            REGION,
            ENDPOINT,
            PATH_STYLE_ACCESS,
            ACCESS_KEY_ID,
            SECRET_ACCESS_KEY,
            REQUEST_TIMEOUT,
            MAX_RETRIES,
            RETRY_BASE_DELAY,
            RETRY_MAX_DELAY,
            MAX_CONCURRENT_REQUESTS,
            TLS_TRUST_CERTS_FILE);

    public static final String DEFAULT_REGION = "us-east-1";
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(10);
    public static final int DEFAULT_MAX_RETRIES = 5;
    public static final Duration DEFAULT_RETRY_BASE_DELAY = Duration.ofMillis(100);
    public static final Duration DEFAULT_RETRY_MAX_DELAY = Duration.ofSeconds(5);
    public static final int DEFAULT_MAX_CONCURRENT_REQUESTS = 64;

    public S3ObjectStoreConfig {
        if (bucket == null || bucket.isBlank()) {
            throw new ConfigException(BUCKET, bucket, "is required");
        }
        bucket = bucket.trim();
        if (bucket.indexOf('/') >= 0 || bucket.chars().anyMatch(Character::isWhitespace)) {
            throw new ConfigException(BUCKET, bucket, "is not a bucket name (no '/' or spaces)");
        }
        prefix = normalizePrefix(prefix);
        if (region == null || region.isBlank()) {
            region = DEFAULT_REGION;
        }
        region = region.trim();
        if (endpoint != null) {
            String scheme =
                    endpoint.getScheme() == null ? "" : endpoint.getScheme().toLowerCase(Locale.ROOT);
            if (!(scheme.equals("http") || scheme.equals("https")) || endpoint.getHost() == null) {
                throw new ConfigException(
                        ENDPOINT, endpoint.toString(), "is not an http:// or https:// URI with a host");
            }
        }
        accessKeyId = blankToNull(accessKeyId);
        secretAccessKey = blankToNull(secretAccessKey);
        if (accessKeyId != null && secretAccessKey == null) {
            throw new ConfigException(SECRET_ACCESS_KEY, null, "is required when " + ACCESS_KEY_ID + " is set");
        }
        if (accessKeyId == null && secretAccessKey != null) {
            throw new ConfigException(ACCESS_KEY_ID, null, "is required when " + SECRET_ACCESS_KEY + " is set");
        }
        requirePositive(REQUEST_TIMEOUT, requestTimeout);
        if (maxRetries < 0) {
            throw new ConfigException(MAX_RETRIES, String.valueOf(maxRetries), "must be >= 0");
        }
        requirePositive(RETRY_BASE_DELAY, retryBaseDelay);
        requirePositive(RETRY_MAX_DELAY, retryMaxDelay);
        if (retryBaseDelay.compareTo(retryMaxDelay) > 0) {
            throw new ConfigException(
                    RETRY_BASE_DELAY,
                    ConfigReader.format(retryBaseDelay),
                    "must not exceed " + RETRY_MAX_DELAY + " (" + ConfigReader.format(retryMaxDelay) + ")");
        }
        if (maxConcurrentRequests < 1) {
            throw new ConfigException(MAX_CONCURRENT_REQUESTS, String.valueOf(maxConcurrentRequests), "must be >= 1");
        }
        if (tlsTrustCertsFile != null) {
            if (endpoint != null && "http".equalsIgnoreCase(endpoint.getScheme())) {
                throw new ConfigException(
                        TLS_TRUST_CERTS_FILE,
                        tlsTrustCertsFile.toString(),
                        "applies to an https:// endpoint, but " + ENDPOINT + " is " + endpoint);
            }
            PemTrustManagers.certificates(tlsTrustCertsFile);
        }
    }

    /** {@link #tlsTrustCertsFile()}'s trust managers, or {@code null} for the JDK's default trust. */
    javax.net.ssl.TrustManager[] trustManagers() {
        return tlsTrustCertsFile == null ? null : PemTrustManagers.of(tlsTrustCertsFile);
    }

    /** Reads the {@code lakestream.s3.*} keys; absent keys take the defaults above. */
    public static S3ObjectStoreConfig fromProperties(ConfigReader reader) {
        URI endpoint = reader.optional(ENDPOINT)
                .map(v -> {
                    try {
                        return new URI(v);
                    } catch (URISyntaxException e) {
                        throw new ConfigException(ENDPOINT, v, "is not a URI: " + e.getReason());
                    }
                })
                .orElse(null);
        return new S3ObjectStoreConfig(
                reader.required(BUCKET),
                reader.string(PREFIX, ""),
                reader.string(REGION, DEFAULT_REGION),
                endpoint,
                reader.bool(PATH_STYLE_ACCESS, false),
                reader.optional(ACCESS_KEY_ID).orElse(null),
                reader.optional(SECRET_ACCESS_KEY).orElse(null),
                reader.duration(REQUEST_TIMEOUT, DEFAULT_REQUEST_TIMEOUT),
                reader.integer(MAX_RETRIES, DEFAULT_MAX_RETRIES),
                reader.duration(RETRY_BASE_DELAY, DEFAULT_RETRY_BASE_DELAY),
                reader.duration(RETRY_MAX_DELAY, DEFAULT_RETRY_MAX_DELAY),
                reader.integer(MAX_CONCURRENT_REQUESTS, DEFAULT_MAX_CONCURRENT_REQUESTS),
                reader.optional(TLS_TRUST_CERTS_FILE)
                        .filter(v -> !v.isBlank())
                        .map(v -> Path.of(v.trim()))
                        .orElse(null));
    }

    /** A builder starting from the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from this config. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /** {@code s3://bucket/prefix}. */
    public String bucketUri() {
        return "s3://" + bucket + (prefix.isEmpty() ? "" : "/" + prefix);
    }

    /** Shows the credentials only as {@link Secrets} allows (never the secret). */
    @Override
    public String toString() {
        return "S3ObjectStoreConfig[bucket=" + bucket + ", prefix=" + prefix + ", region=" + region
                + ", endpoint=" + endpoint + ", pathStyleAccess=" + pathStyleAccess
                + ", accessKeyId=" + Secrets.shown(ACCESS_KEY_ID, accessKeyId)
                + ", secretAccessKey=" + Secrets.shown(SECRET_ACCESS_KEY, secretAccessKey)
                + ", requestTimeout=" + requestTimeout + ", maxRetries=" + maxRetries
                + ", retryBaseDelay=" + retryBaseDelay + ", retryMaxDelay=" + retryMaxDelay
                + ", maxConcurrentRequests=" + maxConcurrentRequests
                + (tlsTrustCertsFile == null ? "" : ", tlsTrustCertsFile=" + tlsTrustCertsFile) + "]";
    }

    private static String normalizePrefix(String prefix) {
        if (prefix == null) {
            return "";
        }
        String p = prefix.trim();
        int start = 0;
        int end = p.length();
        while (start < end && p.charAt(start) == '/') {
            start++;
        }
        while (end > start && p.charAt(end - 1) == '/') {
            end--;
        }
        p = p.substring(start, end);
        if (!p.isEmpty()) {
            String problem = dev.lakestream.core.objectstore.ObjectKeys.problem(p);
            if (problem != null) {
                throw new ConfigException(PREFIX, prefix, "is not a valid key prefix: " + problem);
            }
        }
        return p;
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s.trim();
    }

    private static void requirePositive(String key, Duration d) {
        if (d == null || d.isNegative() || d.isZero()) {
            throw new ConfigException(key, ConfigReader.format(d), "must be a positive duration");
        }
    }

    /** Builds an {@link S3ObjectStoreConfig}; unset values take the defaults. */
    public static final class Builder {
        private String bucket;
        private String prefix = "";
        private String region = DEFAULT_REGION;
        private URI endpoint;
        private boolean pathStyleAccess;
        private String accessKeyId;
        private String secretAccessKey;
        private Duration requestTimeout = DEFAULT_REQUEST_TIMEOUT;
        private int maxRetries = DEFAULT_MAX_RETRIES;
        private Duration retryBaseDelay = DEFAULT_RETRY_BASE_DELAY;
        private Duration retryMaxDelay = DEFAULT_RETRY_MAX_DELAY;
        private int maxConcurrentRequests = DEFAULT_MAX_CONCURRENT_REQUESTS;
        private Path tlsTrustCertsFile;

        private Builder() {}

        private Builder(S3ObjectStoreConfig c) {
            bucket = c.bucket;
            prefix = c.prefix;
            region = c.region;
            endpoint = c.endpoint;
            pathStyleAccess = c.pathStyleAccess;
            accessKeyId = c.accessKeyId;
            secretAccessKey = c.secretAccessKey;
            requestTimeout = c.requestTimeout;
            maxRetries = c.maxRetries;
            retryBaseDelay = c.retryBaseDelay;
            retryMaxDelay = c.retryMaxDelay;
            maxConcurrentRequests = c.maxConcurrentRequests;
            tlsTrustCertsFile = c.tlsTrustCertsFile;
        }

        public Builder bucket(String v) {
            bucket = v;
            return this;
        }

        public Builder prefix(String v) {
            prefix = v;
            return this;
        }

        public Builder region(String v) {
            region = v;
            return this;
        }

        public Builder endpoint(URI v) {
            endpoint = v;
            return this;
        }

        public Builder pathStyleAccess(boolean v) {
            pathStyleAccess = v;
            return this;
        }

        public Builder credentials(String accessKeyId, String secretAccessKey) {
            this.accessKeyId = accessKeyId;
            this.secretAccessKey = secretAccessKey;
            return this;
        }

        public Builder requestTimeout(Duration v) {
            requestTimeout = v;
            return this;
        }

        public Builder maxRetries(int v) {
            maxRetries = v;
            return this;
        }

        public Builder retryBaseDelay(Duration v) {
            retryBaseDelay = v;
            return this;
        }

        public Builder retryMaxDelay(Duration v) {
            retryMaxDelay = v;
            return this;
        }

        public Builder maxConcurrentRequests(int v) {
            maxConcurrentRequests = v;
            return this;
        }

        public Builder tlsTrustCertsFile(Path v) {
            tlsTrustCertsFile = v;
            return this;
        }

        public S3ObjectStoreConfig build() {
            return new S3ObjectStoreConfig(
                    bucket,
                    prefix,
                    region,
                    endpoint,
                    pathStyleAccess,
                    accessKeyId,
                    secretAccessKey,
                    requestTimeout,
                    maxRetries,
                    retryBaseDelay,
                    retryMaxDelay,
                    maxConcurrentRequests,
                    tlsTrustCertsFile);
        }
    }
}
