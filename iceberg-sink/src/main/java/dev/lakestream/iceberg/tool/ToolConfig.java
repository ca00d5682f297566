package dev.lakestream.iceberg.tool;

import dev.lakestream.core.config.ConfigException;
import dev.lakestream.core.config.ConfigKeys;
import dev.lakestream.core.config.ConfigReader;
import dev.lakestream.iceberg.CatalogConfig;
import dev.lakestream.iceberg.MaterializerConfig;
import dev.lakestream.iceberg.UpkeepConfig;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

/**
 * The standalone tools' configuration: one properties file with the broker's keys ({@code lakestream.*} for the
 * stores, {@code lakestream.iceberg.*} for the catalog and materializer; a whole {@code broker.conf} does, its other
 * keys are ignored) and the tool's own {@code lakestream.materialize.*} keys. Unknown {@code lakestream.*} keys are
 * refused, naming the nearest known key.
 *
 * @param properties every key of the file
 * @param dataDir where the embedded catalog lives ({@code <dataDir>/iceberg}) when no catalog URI is given
 * @param selection which topics are materialized
 * @param discoveryInterval how often new topics are looked for, default 30 s
 * @param upkeep table compaction and snapshot expiry: the brokers' keys ({@code lakestream.iceberg.maintenanceInterval},
 *     {@code compactionMinFiles}, {@code snapshotMaxAge}, {@code snapshotsRetained}; {@link UpkeepConfig}), so one file
 *     configures both hosts alike
 * @param statusFile where a running materializer publishes its topics' status for the status command
 * @param metricsAddress the address {@code /metrics} listens on, default {@code 0.0.0.0}
 * @param metricsPort the port of {@code /metrics} (Prometheus text): -1 (default) none, 0 any free port
 */
public record ToolConfig(
        Map<String, String> properties,
        Path dataDir,
        TopicSelection selection,
        Duration discoveryInterval,
        UpkeepConfig upkeep,
        Path statusFile,
        String metricsAddress,
        int metricsPort) {

    static final String DISCOVERY_INTERVAL = "lakestream.materialize.discoveryInterval";
    static final String STATUS_FILE = "lakestream.materialize.statusFile";
    static final String DATA_DIR = "lakestream.materialize.dataDir";
    static final String METRICS_ADDRESS = "lakestream.materialize.metricsAddress";
    static final String METRICS_PORT = "lakestream.materialize.metricsPort";
    private static final String EMBEDDED_DATA_DIR = "lakestream.embedded.dataDir";

    public ToolConfig {
        properties = Map.copyOf(properties);
        if (discoveryInterval.isZero() || discoveryInterval.isNegative()) {
            throw new ConfigException(DISCOVERY_INTERVAL, String.valueOf(discoveryInterval), "must be positive");
        }
        if (metricsPort < -1 || metricsPort > 65535) {
            throw new ConfigException(
                    METRICS_PORT,
                    Integer.toString(metricsPort),
                    "must be -1 (no /metrics), 0 (any free port) or a port number");
        }
    }

    /** Reads and checks {@code file}. */
    public static ToolConfig load(Path file) {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(r);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read the configuration file " + file + ": " + e, e);
        }
        Map<String, String> props = new LinkedHashMap<>();
        p.stringPropertyNames().forEach(k -> props.put(k, p.getProperty(k).trim()));
        return fromProperties(props);
    }

    public static ToolConfig fromProperties(Map<String, String> props) {
        ConfigKeys.requireKnown(props.keySet());
        ConfigReader r = new ConfigReader(props);
        // The run-broker layout: the embedded metadata store in <dataDir>/lakestream-metadata.
        Path dataDir = r.optional(DATA_DIR)
                .map(Path::of)
                .or(() -> r.optional(EMBEDDED_DATA_DIR)
                        .map(d -> Path.of(d).toAbsolutePath().getParent()))
                .orElse(Path.of("data"))
                .toAbsolutePath();
        Path status = r.optional(STATUS_FILE)
                .map(Path::of)
                .orElse(dataDir.resolve("iceberg").resolve("materialize-status.json"));
        return new ToolConfig(
                props,
                dataDir,
                TopicSelection.parse(r.string(TopicSelection.KEY, "all")),
                r.duration(DISCOVERY_INTERVAL, Duration.ofSeconds(30)),
                UpkeepConfig.fromProperties(props),
                status,
                r.string(METRICS_ADDRESS, "0.0.0.0"),
                r.integer(METRICS_PORT, -1));
    }

    public ConfigReader reader() {
        return new ConfigReader(properties);
    }

    public CatalogConfig catalog() {
        return CatalogConfig.fromProperties(properties, dataDir);
    }

    public MaterializerConfig materializer() {
        return MaterializerConfig.fromProperties(properties);
    }
}
