package dev.lakestream.tests;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.bookkeeper.bookie.storage.ldb.DbLedgerStorage;
import org.apache.bookkeeper.client.BookKeeperAdmin;
import org.apache.bookkeeper.conf.ClientConfiguration;
import org.apache.bookkeeper.conf.ServerConfiguration;
import org.apache.pulsar.zookeeper.LocalBookkeeperEnsemble;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Real bookies in the test JVM: a ZooKeeper server and {@code n} BookKeeper bookies (Pulsar's own
 * {@link LocalBookkeeperEnsemble}, what {@code pulsar standalone} runs), each on a free port with its data in a fresh
 * temporary directory. The ZooKeeper server also holds the bookies' registrations and ledger metadata
 * ({@code /ledgers}), so a broker whose {@code metadataStoreUrl} is {@link #metadataStoreUrl()} finds them with no
 * further setting.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final BookKeeperEnsembleExtension BK = new BookKeeperEnsembleExtension(1);
 * }</pre>
 *
 * Also usable without JUnit ({@link #start()}, {@link #close()}), e.g. by the broker benchmark. Unless
 * {@link #bookieSetting} is used, the bookies run {@code LocalBookkeeperEnsemble}'s development settings:
 * DbLedgerStorage with tiny caches (2 MiB write cache), journal written without fsync ({@code journalSyncData=false}).
 */
public final class BookKeeperEnsembleExtension implements BeforeAllCallback, AfterAllCallback, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(BookKeeperEnsembleExtension.class);

    private final int bookies;
    private final Map<String, Object> bookieSettings = new LinkedHashMap<>();
    private Path dataDir;
    private LocalBookkeeperEnsemble ensemble;
    private int zkPort;

    public BookKeeperEnsembleExtension(int bookies) {
        if (bookies < 1) {
            throw new IllegalArgumentException("bookies must be >= 1, not " + bookies);
        }
        this.bookies = bookies;
    }

    /**
     * Sets a bookie configuration key ({@code ServerConfiguration}). With any setting the bookies start from
     * BookKeeper's defaults plus DbLedgerStorage plus these settings ({@code LocalBookkeeperEnsemble.startStandalone}),
     * instead of the ensemble's development settings (2 MiB write cache, which stalls adds at tens of MiB/s).
     */
    public BookKeeperEnsembleExtension bookieSetting(String key, Object value) {
        bookieSettings.put(key, value);
        return this;
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        start();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        close();
    }

    /** Starts ZooKeeper and the bookies; returns once they are registered. */
    public synchronized BookKeeperEnsembleExtension start() throws Exception {
        if (ensemble != null) {
            return this;
        }
        long t0 = System.nanoTime();
        dataDir = Files.createTempDirectory("bookkeeper-");
        zkPort = freePort();
        LocalBookkeeperEnsemble e = new LocalBookkeeperEnsemble(
                bookies,
                zkPort,
                0,
                dataDir.resolve("zk").toString(),
                dataDir.resolve("bk").toString(),
                true,
                "127.0.0.1");
        // Consecutive ports from a free one; the bookie id is host:port, so ephemeral ports (0) cannot be used.
        e.setBookieBasePort(freePortRun(bookies));
        try {
            if (bookieSettings.isEmpty()) {
                e.start(false);
            } else {
                ServerConfiguration conf = new ServerConfiguration();
                conf.setLedgerStorageClass(DbLedgerStorage.class.getName());
                bookieSettings.forEach(conf::setProperty);
                e.startStandalone(conf, false);
            }
        } catch (Exception ex) {
            try {
                e.stop();
            } catch (Exception suppressed) {
                ex.addSuppressed(suppressed);
            }
            throw new IllegalStateException(
                    "The BookKeeper ensemble (ZooKeeper on port " + zkPort + ", " + bookies + " bookie(s), data "
                            + dataDir + ") did not start: " + ex,
                    ex);
        }
        ensemble = e;
        LOG.info(
                "ZooKeeper on 127.0.0.1:{} and {} bookie(s) started in {} ms (data {})",
                zkPort,
                bookies,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0),
                dataDir);
        return this;
    }

    /** Stops the bookies and ZooKeeper and deletes their data. */
    @Override
    public synchronized void close() {
        if (ensemble != null) {
            try {
                ensemble.stop();
            } catch (Exception e) {
                LOG.warn("Error while stopping the BookKeeper ensemble", e);
            }
            ensemble = null;
        }
        if (dataDir != null) {
            TestFiles.deleteRecursively(dataDir);
            dataDir = null;
        }
    }

    /** Whether ZooKeeper and the bookies run (between {@link #start()} and {@link #close()}). */
    public synchronized boolean running() {
        return ensemble != null;
    }

    /** {@code 127.0.0.1:<port>} of the ZooKeeper server. */
    public String zookeeperAddress() {
        requireRunning();
        return "127.0.0.1:" + zkPort;
    }

    /** The broker's {@code metadataStoreUrl} for this ZooKeeper: {@code zk:127.0.0.1:<port>}. */
    public String metadataStoreUrl() {
        return "zk:" + zookeeperAddress();
    }

    public int bookies() {
        return bookies;
    }

    /** The ids of the ledgers that exist in the bookies' metadata (every broker's), read with BookKeeper's admin. */
    public List<Long> ledgerIds() throws Exception {
        requireRunning();
        ClientConfiguration c =
                new ClientConfiguration().setMetadataServiceUri("zk+null://" + zookeeperAddress() + "/ledgers");
        List<Long> ids = new ArrayList<>();
        try (BookKeeperAdmin admin = new BookKeeperAdmin(c)) {
            admin.listLedgers().forEach(ids::add);
        }
        return ids;
    }

    private void requireRunning() {
        if (ensemble == null) {
            throw new IllegalStateException("the BookKeeper ensemble is not running");
        }
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        }
    }

    /** The first of {@code n} consecutive ports that are free now. */
    private static int freePortRun(int n) throws IOException {
        for (int attempt = 0; attempt < 50; attempt++) {
            int first = freePort();
            boolean ok = first + n < 65535;
            for (int i = 1; ok && i < n; i++) {
                try (ServerSocket s = new ServerSocket(first + i, 1, InetAddress.getLoopbackAddress())) {
                    s.setReuseAddress(true);
                } catch (IOException busy) {
                    ok = false;
                }
            }
            if (ok) {
                return first;
            }
        }
        throw new IOException("no run of " + n + " free ports found");
    }
}
