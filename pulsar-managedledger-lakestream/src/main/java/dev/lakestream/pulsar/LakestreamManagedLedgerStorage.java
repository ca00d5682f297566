package dev.lakestream.pulsar;

import dev.lakestream.core.Lakestream;
import dev.lakestream.core.config.ConfigReader;
import dev.lakestream.core.config.Secrets;
import dev.lakestream.pulsar.common.StorageClasses;
import io.netty.channel.EventLoopGroup;
import io.opentelemetry.api.OpenTelemetry;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.apache.bookkeeper.mledger.ManagedLedgerFactory;
import org.apache.bookkeeper.mledger.ManagedLedgerFactoryConfig;
import org.apache.pulsar.broker.BookKeeperClientFactory;
import org.apache.pulsar.broker.ManagedLedgerClientFactory;
import org.apache.pulsar.broker.ServiceConfiguration;
import org.apache.pulsar.broker.storage.ManagedLedgerStorage;
import org.apache.pulsar.broker.storage.ManagedLedgerStorageClass;
import org.apache.pulsar.metadata.api.extended.MetadataStoreExtended;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pulsar's storage SPI with two storage classes: {@value StorageClasses#LAKESTREAM} (topics in Lakestream streams) and
 * {@value StorageClasses#BOOKKEEPER} (Pulsar's stock {@link ManagedLedgerClientFactory}, embedded). {@value #MODE_KEY} decides the
 * default: {@code hybrid} (BookKeeper default, Lakestream per namespace/topic via {@code set-persistence -c
 * lakestream}) or {@code diskless} (Lakestream default, BookKeeper never initialised).
 */
public class LakestreamManagedLedgerStorage implements ManagedLedgerStorage {

    private static final Logger LOG = LoggerFactory.getLogger(LakestreamManagedLedgerStorage.class);

    public static final String MODE_KEY = "lakestreamStorageMode";

    public enum Mode {
        HYBRID,
        DISKLESS
    }

    private Mode mode;
    private Lakestream log;
    /** The {@code lakestream.*} properties the log was opened from, before the broker's copy was masked. */
    private Map<String, String> lakestreamProperties = Map.of();

    private LakestreamManagedLedgerFactory factory;
    private ManagedLedgerClientFactory bookkeeper;
    private ManagedLedgerStorageClass lakestreamClass;
    private ManagedLedgerStorageClass bookkeeperClass;

    public LakestreamManagedLedgerStorage() {}

    static Mode parseMode(String v) {
        try {
            return Mode.valueOf(v.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(MODE_KEY + "='" + v + "' is invalid: must be 'hybrid' or 'diskless'");
        }
    }

    @Override
    public void initialize(
            ServiceConfiguration conf,
            MetadataStoreExtended metadataStore,
            BookKeeperClientFactory bookkeeperProvider,
            EventLoopGroup eventLoopGroup,
            OpenTelemetry openTelemetry)
            throws Exception {
        Properties props = conf.getProperties();
        Map<String, String> map = new HashMap<>();
        if (props != null) {
            for (String k : props.stringPropertyNames()) {
                map.put(k, props.getProperty(k));
            }
        }
        mode = parseMode(map.getOrDefault(MODE_KEY, "hybrid"));
        if (mode == Mode.DISKLESS) {
            DisklessConfigurationCheck.require(conf);
        }
        ManagedLedgerFactoryConfig fc = new ManagedLedgerFactoryConfig();
        fc.setMaxCacheSize(conf.getManagedLedgerCacheSizeMB() * 1024L * 1024L);
        fc.setStatsPeriodSeconds(conf.getManagedLedgerStatsPeriodSeconds());
        try {
            log = Lakestream.open(new ConfigReader(map));
            Map<String, String> own = new HashMap<>();
            map.forEach((k, v) -> {
                if (k.startsWith("lakestream.")) {
                    own.put(k, v);
                }
            });
            lakestreamProperties = Map.copyOf(own);
        } finally {
            // The store holds the credentials now; Pulsar logs every custom property once the broker is ready.
            Secrets.maskIn(props);
        }
        try {
            factory = new LakestreamManagedLedgerFactory(log, metadataStore, fc);
            lakestreamClass = storageClass(StorageClasses.LAKESTREAM, factory);
            if (mode == Mode.HYBRID) {
                bookkeeper = newBookKeeperStorage();
                bookkeeper.initialize(conf, metadataStore, bookkeeperProvider, eventLoopGroup, openTelemetry);
                bookkeeperClass = bookkeeper.getDefaultStorageClass();
            }
        } catch (Exception | Error e) {
            close();
            throw e;
        }
        LOG.info(
                "Lakestream managed-ledger storage initialised in {} mode; storage classes {}, default '{}'",
                mode.name().toLowerCase(Locale.ROOT),
                names(),
                getDefaultStorageClass().getName());
    }

    /** The embedded stock storage (a hook for tests). */
    protected ManagedLedgerClientFactory newBookKeeperStorage() {
        return new ManagedLedgerClientFactory();
    }

    /** For programs and tests that build the pieces themselves. */
    public void initialize(
            Mode mode,
            Lakestream log,
            LakestreamManagedLedgerFactory factory,
            ManagedLedgerStorageClass bookkeeperClass) {
        this.mode = mode;
        this.log = null;
        this.factory = factory;
        this.lakestreamClass = storageClass(StorageClasses.LAKESTREAM, factory);
        this.bookkeeperClass = mode == Mode.HYBRID ? bookkeeperClass : null;
    }

    private static ManagedLedgerStorageClass storageClass(String name, ManagedLedgerFactory f) {
        return new ManagedLedgerStorageClass() {
            @Override
            public String getName() {
                return name;
            }

            @Override
            public ManagedLedgerFactory getManagedLedgerFactory() {
                return f;
            }

            @Override
            public String toString() {
                return "storage class " + name;
            }
        };
    }

    public Mode mode() {
        return mode;
    }

    private List<String> names() {
        List<String> out = new ArrayList<>();
        getStorageClasses().forEach(c -> out.add(c.getName()));
        return out;
    }

    @Override
    public Collection<ManagedLedgerStorageClass> getStorageClasses() {
        List<ManagedLedgerStorageClass> out = new ArrayList<>();
        if (mode == Mode.HYBRID && bookkeeperClass != null) {
            out.add(bookkeeperClass);
            out.add(lakestreamClass);
        } else {
            out.add(lakestreamClass);
        }
        return out;
    }

    @Override
    public ManagedLedgerStorageClass getDefaultStorageClass() {
        return mode == Mode.HYBRID && bookkeeperClass != null ? bookkeeperClass : lakestreamClass;
    }

    @Override
    public Optional<ManagedLedgerStorageClass> getManagedLedgerStorageClass(String name) {
        if (name == null) {
            return Optional.of(getDefaultStorageClass());
        }
        if (StorageClasses.LAKESTREAM.equals(name)) {
            return Optional.of(lakestreamClass);
        }
        if (StorageClasses.BOOKKEEPER.equals(name) && bookkeeperClass != null) {
            return Optional.of(bookkeeperClass);
        }
        LOG.error(
                "ManagedLedgerStorageClass '{}' not found: this broker's storage ({} mode) offers {}; topics"
                        + " whose persistence policy names '{}' cannot be loaded",
                name,
                mode == null ? "?" : mode.name().toLowerCase(Locale.ROOT),
                names(),
                name);
        return Optional.empty();
    }

    /** The log this storage opened from the broker's properties (null when built by {@code initialize(Mode, ...)}). */
    public Lakestream lakestream() {
        return log;
    }

    /**
     * The {@code lakestream.*} properties the log was opened from, credentials included: the broker's properties
     * show them masked once the storage has read them ({@code Secrets.maskIn}), so services that need the same
     * object-store credentials (the Iceberg materializer's S3 warehouse) read them here.
     */
    public Map<String, String> lakestreamProperties() {
        return lakestreamProperties;
    }

    public LakestreamManagedLedgerFactory lakestreamFactory() {
        return factory;
    }

    @Override
    public void close() throws IOException {
        try {
            if (factory != null) {
                try {
                    factory.shutdown();
                } catch (Exception e) {
                    LOG.warn("shutting down the Lakestream managed-ledger factory failed", e);
                }
            }
            if (bookkeeper != null) {
                bookkeeper.close();
            }
        } finally {
            if (log != null) {
                log.close();
            }
        }
    }
}
