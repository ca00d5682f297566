package dev.lakestream.tests.install;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What a user sees when the install is incomplete or wrong: each broker is started by Pulsar's own launcher on a
 * stock home and must refuse to start, saying what is missing. Pulsar's metadata is a local RocksDB store: these
 * brokers stop before they would need any other server.
 */
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class StockPulsarRefusalsTest {

    private static final Duration REFUSAL = Duration.ofMinutes(2);

    private static Path workDir;

    @BeforeAll
    static void dirs() throws Exception {
        workDir = Files.createDirectories(StockPulsarHome.projectDir().resolve("tests/target/stock-refusals"));
        TestDirs.clean(workDir);
    }

    /** A stock home with the bundle installed (diskless, addresses that are never reached), and local metadata. */
    private static StockPulsarHome installed(String name) throws Exception {
        StockPulsarHome home = StockPulsarHome.copyTo(workDir.resolve(name));
        Map<String, String> users = new LinkedHashMap<>();
        users.put("clusterName", "refusals");
        users.put("metadataStoreUrl", "rocksdb://" + workDir.resolve(name + "-metadata"));
        users.put("configurationMetadataStoreUrl", "rocksdb://" + workDir.resolve(name + "-metadata"));
        users.put("bindAddress", "127.0.0.1");
        users.put("advertisedAddress", "127.0.0.1");
        users.put("brokerServicePort", Integer.toString(StockBrokerExtension.freePort()));
        users.put("webServicePort", Integer.toString(StockBrokerExtension.freePort()));
        users.put("narExtractionDirectory", workDir.resolve(name + "-nar").toString());
        home.editBrokerConf(users);
        StockPulsarHome.CommandResult install = home.install("--diskless");
        assertThat(install.exitCode()).as("%s", install).isZero();
        return home;
    }

    private static String refusedStart(StockPulsarHome home, String name) throws Exception {
        StockBroker broker = new StockBroker(home, 1, workDir.resolve(name + ".log")).start();
        int exit = broker.awaitExit(REFUSAL);
        assertThat(exit)
                .as("exit code of a broker that must not start; log %s", broker.logFile())
                .isNotZero();
        return broker.log();
    }

    @Test
    void withoutTheStorageJarPulsarItselfRefusesToCreateTheStorage() throws Exception {
        StockPulsarHome home = installed("no-jar");
        Files.delete(home.dir().resolve("lib/lakestream-pulsar-" + StockPulsarHome.VERSION + ".jar"));
        // No plugin either: what Pulsar alone says about the storage class.
        home.editBrokerConf(Map.of("messagingProtocols", "", "brokerInterceptors", ""));
        String log = refusedStart(home, "no-jar");
        assertThat(log)
                .contains("dev.lakestream.pulsar.LakestreamManagedLedgerStorage")
                .containsIgnoringCase("class path");
    }

    @Test
    void thePluginWithoutTheStorageJarNamesTheMissingJar() throws Exception {
        StockPulsarHome home = installed("nar-without-jar");
        Files.delete(home.dir().resolve("lib/lakestream-pulsar-" + StockPulsarHome.VERSION + ".jar"));
        String log = refusedStart(home, "nar-without-jar");
        assertThat(log)
                .contains("the broker's class path lacks that class")
                .contains("lakestream-pulsar-<version>.jar");
    }

    @Test
    void thePluginInABrokerThatDoesNotRunLakestreamNamesTheKey() throws Exception {
        StockPulsarHome home = installed("other-storage");
        home.editBrokerConf(
                Map.of("managedLedgerStorageClassName", "org.apache.pulsar.broker.ManagedLedgerClientFactory"));
        String log = refusedStart(home, "other-storage");
        assertThat(log)
                .contains("set managedLedgerStorageClassName=dev.lakestream.pulsar.LakestreamManagedLedgerStorage");
    }

    @Test
    void aDisklessBrokerWithBookKeeperSchemaStorageIsRefused() throws Exception {
        StockPulsarHome home = installed("bk-schemas");
        home.editBrokerConf(Map.of(
                "schemaRegistryStorageClassName",
                "org.apache.pulsar.broker.service.schema.BookkeeperSchemaStorageFactory"));
        String log = refusedStart(home, "bk-schemas");
        assertThat(log).contains("diskless").contains("schemaRegistryStorageClassName=");
    }

    @Test
    void theInstallerRefusesWhatIsNotAPulsar5() throws Exception {
        Path notPulsar = Files.createDirectories(workDir.resolve("not-pulsar"));
        StockPulsarHome.CommandResult r = StockPulsarHome.run(
                java.util.List.of(
                        StockPulsarHome.bundle()
                                .resolve("bin/lakestream-install")
                                .toString(),
                        notPulsar.toString()),
                Map.of(),
                30);
        assertThat(r.exitCode()).isNotZero();
        assertThat(r.output()).contains("is not an Apache Pulsar installation");

        StockPulsarHome old = StockPulsarHome.copyTo(workDir.resolve("pulsar-4"));
        Files.move(
                old.dir().resolve("lib/org.apache.pulsar-pulsar-broker-5.0.1.jar"),
                old.dir().resolve("lib/org.apache.pulsar-pulsar-broker-4.0.8.jar"));
        StockPulsarHome.CommandResult r4 = old.install("--diskless");
        assertThat(r4.exitCode()).isNotZero();
        assertThat(r4.output()).contains("is Apache Pulsar 4.0.8").contains("5.0.x");
        assertThat(old.dir().resolve("lib/lakestream-pulsar-" + StockPulsarHome.VERSION + ".jar"))
                .doesNotExist();
    }

    @Test
    void uninstallRestoresTheConfigurationAndRemovesTheFiles() throws Exception {
        StockPulsarHome home = StockPulsarHome.copyTo(workDir.resolve("uninstall"));
        home.editBrokerConf(Map.of("messagingProtocols", "kafka"));
        String before = Files.readString(home.brokerConf());
        assertThat(home.install("--hybrid").exitCode()).isZero();
        String installed = Files.readString(home.brokerConf());
        assertThat(installed)
                .contains("\nmessagingProtocols=kafka,lakestream\n")
                .contains("lakestreamStorageMode=hybrid");
        StockPulsarHome.CommandResult u = home.install("--uninstall");
        assertThat(u.exitCode()).as("%s", u).isZero();
        assertThat(Files.readString(home.brokerConf())).isEqualTo(before);
        assertThat(home.dir().resolve("lib/lakestream-pulsar-" + StockPulsarHome.VERSION + ".jar"))
                .doesNotExist();
        assertThat(home.dir().resolve("protocols/lakestream-" + StockPulsarHome.VERSION + ".nar"))
                .doesNotExist();
        assertThat(home.dir().resolve("interceptors/lakestream-" + StockPulsarHome.VERSION + ".nar"))
                .doesNotExist();
    }
}
