package dev.lakestream.core.metadata.oxia;

import dev.lakestream.core.config.ConfigException;
import dev.lakestream.core.config.ConfigReader;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Configuration of {@link OxiaMetadataStore}. Validated on construction; errors name the configuration key.
 *
 * <table>
 * <caption>Keys</caption>
 * <tr><th>Key</th><th>Default</th><th>Meaning</th></tr>
 * <tr><td>{@value #SERVICE_ADDRESS}</td><td>(required)</td><td>{@code host:port} of an Oxia server's public
 *     gRPC endpoint</td></tr>
 * <tr><td>{@value #NAMESPACE}</td><td>{@code default}</td><td>the Oxia namespace</td></tr>
 * <tr><td>{@value #REQUEST_TIMEOUT}</td><td>30s</td><td>how long one operation may take before it fails as
 *     unavailable</td></tr>
 * <tr><td>{@value #SESSION_TIMEOUT}</td><td>15s</td><td>how long the server keeps this client's session (and
 *     so its ephemeral records) after the client stops heart-beating, e.g. after a crash</td></tr>
 * <tr><td>{@value #CONNECT_TIMEOUT}</td><td>30s</td><td>how long opening the store waits for the server's
 *     first shard assignments before failing</td></tr>
 * <tr><td>{@value #TLS}</td><td>false</td><td>connect with TLS; the server's certificate is checked against the
 *     JVM's trust store (the Oxia Java client takes no other), so a private CA goes into the trust store named by
 *     {@code -Djavax.net.ssl.trustStore}</td></tr>
 * </table>
 *
 * @param serviceAddress {@code host:port}
 * @param namespace the Oxia namespace
 * @param requestTimeout per-operation timeout
 * @param sessionTimeout session timeout of ephemeral records
 * @param connectTimeout bound on {@link OxiaMetadataStore#open}
 * @param tls whether to connect with TLS
 */
public record OxiaMetadataStoreConfig(
        String serviceAddress,
        String namespace,
        Duration requestTimeout,
        Duration sessionTimeout,
        Duration connectTimeout,
        boolean tls) {

    public static final String SERVICE_ADDRESS = "lakestream.oxia.serviceAddress";
    public static final String NAMESPACE = "lakestream.oxia.namespace";
    public static final String REQUEST_TIMEOUT = "lakestream.oxia.requestTimeout";
    public static final String SESSION_TIMEOUT = "lakestream.oxia.sessionTimeout";
    public static final String CONNECT_TIMEOUT = "lakestream.oxia.connectTimeout";
    public static final String TLS = "lakestream.oxia.tls";

    /** Every key this config reads (registered by {@link OxiaMetadataStoreConfigKeys}). */
    public static final List<String> KEYS =
            List.of(SERVICE_ADDRESS, NAMESPACE, REQUEST_TIMEOUT, SESSION_TIMEOUT, CONNECT_TIMEOUT, TLS);

    public static final String DEFAULT_NAMESPACE = "default";
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(30);
    public static final Duration DEFAULT_SESSION_TIMEOUT = Duration.ofSeconds(15);
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(30);

    /** Oxia's servers refuse sessions shorter than this (2 s) or longer than {@link #MAX_SESSION_TIMEOUT}. */
    public static final Duration MIN_SESSION_TIMEOUT = Duration.ofSeconds(2);

    public static final Duration MAX_SESSION_TIMEOUT = Duration.ofMinutes(5);

    public OxiaMetadataStoreConfig {
        checkAddress(serviceAddress);
        if (namespace == null || namespace.isBlank()) {
            throw new ConfigException(NAMESPACE, namespace, "must not be empty");
        }
        checkPositive(REQUEST_TIMEOUT, requestTimeout);
        checkPositive(SESSION_TIMEOUT, sessionTimeout);
        checkPositive(CONNECT_TIMEOUT, connectTimeout);
        if (sessionTimeout.compareTo(MIN_SESSION_TIMEOUT) < 0) {
            throw new ConfigException(
                    SESSION_TIMEOUT,
                    sessionTimeout.toMillis() + "ms",
                    "is shorter than the " + MIN_SESSION_TIMEOUT.toSeconds() + "s an Oxia server accepts");
        }
        if (sessionTimeout.compareTo(MAX_SESSION_TIMEOUT) > 0) {
            throw new ConfigException(
                    SESSION_TIMEOUT,
                    sessionTimeout.toMillis() + "ms",
                    "is longer than the " + MAX_SESSION_TIMEOUT.toMinutes() + "m an Oxia server accepts");
        }
    }

    /** A config without TLS. */
    public OxiaMetadataStoreConfig(
            String serviceAddress,
            String namespace,
            Duration requestTimeout,
            Duration sessionTimeout,
            Duration connectTimeout) {
        this(serviceAddress, namespace, requestTimeout, sessionTimeout, connectTimeout, false);
    }

    /** A config with the given address and every other setting at its default. */
    public static OxiaMetadataStoreConfig of(String serviceAddress) {
        return new OxiaMetadataStoreConfig(
                serviceAddress,
                DEFAULT_NAMESPACE,
                DEFAULT_REQUEST_TIMEOUT,
                DEFAULT_SESSION_TIMEOUT,
                DEFAULT_CONNECT_TIMEOUT);
    }

    /** Reads the {@code lakestream.oxia.*} keys. */
    public static OxiaMetadataStoreConfig fromProperties(ConfigReader reader) {
        Objects.requireNonNull(reader, "reader");
        return new OxiaMetadataStoreConfig(
                reader.required(SERVICE_ADDRESS),
                reader.string(NAMESPACE, DEFAULT_NAMESPACE),
                reader.duration(REQUEST_TIMEOUT, DEFAULT_REQUEST_TIMEOUT),
                reader.duration(SESSION_TIMEOUT, DEFAULT_SESSION_TIMEOUT),
                reader.duration(CONNECT_TIMEOUT, DEFAULT_CONNECT_TIMEOUT),
                reader.bool(TLS, false));
    }

    public OxiaMetadataStoreConfig withNamespace(String ns) {
        return new OxiaMetadataStoreConfig(serviceAddress, ns, requestTimeout, sessionTimeout, connectTimeout, tls);
    }

    public OxiaMetadataStoreConfig withRequestTimeout(Duration d) {
        return new OxiaMetadataStoreConfig(serviceAddress, namespace, d, sessionTimeout, connectTimeout, tls);
    }

    public OxiaMetadataStoreConfig withSessionTimeout(Duration d) {
        return new OxiaMetadataStoreConfig(serviceAddress, namespace, requestTimeout, d, connectTimeout, tls);
    }

    public OxiaMetadataStoreConfig withConnectTimeout(Duration d) {
        return new OxiaMetadataStoreConfig(serviceAddress, namespace, requestTimeout, sessionTimeout, d, tls);
    }

    public OxiaMetadataStoreConfig withTls(boolean on) {
        return new OxiaMetadataStoreConfig(
                serviceAddress, namespace, requestTimeout, sessionTimeout, connectTimeout, on);
    }

    /** {@code oxia://host:port/namespace} ({@code oxia+tls://} with TLS), the address used in messages. */
    public String address() {
        return (tls ? "oxia+tls://" : "oxia://") + serviceAddress + "/" + namespace;
    }

    private static void checkAddress(String address) {
        if (address == null || address.isBlank()) {
            throw new ConfigException(SERVICE_ADDRESS, null, "is required");
        }
        if (address.contains("://") || address.contains("/")) {
            throw new ConfigException(SERVICE_ADDRESS, address, "must be host:port, without a scheme or path");
        }
        int colon = address.lastIndexOf(':');
        if (colon <= 0 || colon == address.length() - 1) {
            throw new ConfigException(SERVICE_ADDRESS, address, "must be host:port");
        }
        String host = address.substring(0, colon);
        if (host.startsWith("[") != host.endsWith("]") || (host.contains(":") && !host.startsWith("["))) {
            throw new ConfigException(SERVICE_ADDRESS, address, "must be host:port (write IPv6 hosts as [addr]:port)");
        }
        int port;
        try {
            port = Integer.parseInt(address.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new ConfigException(SERVICE_ADDRESS, address, "has a port that is not a number");
        }
        if (port < 1 || port > 65535) {
            throw new ConfigException(SERVICE_ADDRESS, address, "has a port outside 1-65535");
        }
    }

    private static void checkPositive(String key, Duration d) {
        if (d == null) {
            throw new ConfigException(key, null, "is required");
        }
        if (d.isNegative() || d.isZero()) {
            throw new ConfigException(key, d.toMillis() + "ms", "must be positive");
        }
    }
}
