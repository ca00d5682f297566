package dev.lakestream.tests.install;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lakestream.core.catalog.StreamCatalog;
import dev.lakestream.core.config.ConfigReader;
import dev.lakestream.core.metadata.oxia.OxiaMetadataStore;
import dev.lakestream.core.metadata.oxia.OxiaMetadataStoreConfig;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.pulsar.client.admin.LongRunningProcessStatus;
import org.apache.pulsar.client.admin.PulsarAdmin;
import org.apache.pulsar.client.api.Consumer;
import org.apache.pulsar.client.api.Message;
import org.apache.pulsar.client.api.Producer;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.Reader;
import org.apache.pulsar.client.api.Schema;
import org.apache.pulsar.client.api.SubscriptionInitialPosition;
import org.apache.pulsar.client.api.transaction.Transaction;
import org.apache.pulsar.common.policies.data.PersistencePolicies;
import org.apache.pulsar.common.policies.data.TenantInfo;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The release bundle installed into a stock Pulsar 5.0.1 home (module stock-pulsar: Pulsar's lib/ and launcher, none
 * of this project's classes) by {@code bin/lakestream-install}, the broker started by Pulsar's own launcher
 * ({@code bin/pulsar broker}) with all metadata in a real Oxia server and topics in a real S3Proxy bucket, used with
 * the real client and admin client.
 */
@Timeout(value = 8, unit = TimeUnit.MINUTES)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class StockPulsarInstallTest {

    private static final String CLUSTER = "stock";
    private static final String NS = "acme/events";

    @RegisterExtension
    static final StockBrokerExtension STOCK = new StockBrokerExtension("stock-install", CLUSTER);

    private static final List<String> published = new ArrayList<>();

    @Test
    @Order(1)
    void theInstallerPlacesTheJarAndTheNarAndMergesTheConfigurationOnce() throws Exception {
        Path dir = STOCK.home().dir();
        assertThat(dir.resolve("lib/lakestream-pulsar-" + StockPulsarHome.VERSION + ".jar"))
                .isRegularFile();
        Path nar = dir.resolve("protocols/lakestream-" + StockPulsarHome.VERSION + ".nar");
        assertThat(nar).isRegularFile();
        // The bundle's one NAR in both plugin directories, hard-linked (InstallerPluginDirectoriesTest has the rest).
        assertThat(Files.isSameFile(nar, dir.resolve("interceptors/lakestream-" + StockPulsarHome.VERSION + ".nar")))
                .isTrue();
        assertThat(dir.resolve("conf/broker.conf.before-lakestream")).isRegularFile();
        String conf = Files.readString(STOCK.home().brokerConf());
        assertThat(activeValues(conf, "managedLedgerStorageClassName"))
                .containsExactly("dev.lakestream.pulsar.LakestreamManagedLedgerStorage");
        assertThat(activeValues(conf, "messagingProtocols")).containsExactly("lakestream");
        assertThat(activeValues(conf, "protocolHandlerDirectory"))
                .containsExactly(dir.resolve("protocols").toString());
        assertThat(activeValues(conf, "brokerInterceptorsDirectory"))
                .containsExactly(dir.resolve("interceptors").toString());
        assertThat(conf)
                .contains("#lakestream-install# managedLedgerStorageClassName="
                        + "org.apache.pulsar.broker.ManagedLedgerClientFactory");

        // Twice is once.
        StockPulsarHome.CommandResult again = STOCK.home().install(STOCK.installArgs());
        assertThat(again.exitCode()).isZero();
        assertThat(again.output())
                .contains("already has these settings: unchanged")
                .contains("is up to date");
        assertThat(Files.readString(STOCK.home().brokerConf())).isEqualTo(conf);
    }

    @Test
    @Order(2)
    void topicsOfALakestreamNamespaceLiveInTheBucketWithSchemasCompactionAndTransactions() throws Exception {
        try (PulsarAdmin admin = admin();
                PulsarClient client = client()) {
            admin.tenants()
                    .createTenant(
                            "acme",
                            TenantInfo.builder()
                                    .allowedClusters(java.util.Set.of(CLUSTER))
                                    .build());
            admin.namespaces().createNamespace(NS);
            admin.namespaces().setPersistence(NS, new PersistencePolicies(1, 1, 1, 0, "lakestream"));

            String plain = "persistent://" + NS + "/plain";
            try (Consumer<String> consumer = client.newConsumer(Schema.STRING)
                            .topic(plain)
                            .subscriptionName("s")
                            .subscribe();
                    Producer<String> producer =
                            client.newProducer(Schema.STRING).topic(plain).create()) {
                for (int i = 0; i < 50; i++) {
                    String v = "m-" + i;
                    producer.send(v);
                    published.add(v);
                }
                for (String expected : published) {
                    Message<String> m = consumer.receive(30, TimeUnit.SECONDS);
                    assertThat(m).as("message %s", expected).isNotNull();
                    assertThat(m.getValue()).isEqualTo(expected);
                    consumer.acknowledge(m);
                }
            }
            assertThat(admin.topics().getInternalStats(plain).entriesAddedCounter)
                    .isEqualTo(50);

            // A typed schema, kept by the Lakestream schema storage.
            String typed = "persistent://" + NS + "/typed";
            try (Consumer<Reading> consumer = client.newConsumer(Schema.AVRO(Reading.class))
                            .topic(typed)
                            .subscriptionName("s")
                            .subscribe();
                    Producer<Reading> producer = client.newProducer(Schema.AVRO(Reading.class))
                            .topic(typed)
                            .create()) {
                producer.send(new Reading("sensor-1", 21.5));
                Message<Reading> m = consumer.receive(30, TimeUnit.SECONDS);
                assertThat(m).isNotNull();
                assertThat(m.getValue().sensor).isEqualTo("sensor-1");
                assertThat(m.getValue().celsius).isEqualTo(21.5);
            }
            assertThat(admin.schemas().getSchemaInfo(typed).getType().name()).isEqualTo("AVRO");

            // Compaction: the latest value per key.
            String keyed = "persistent://" + NS + "/keyed";
            try (Producer<String> producer = client.newProducer(Schema.STRING)
                    .topic(keyed)
                    .enableBatching(false)
                    .create()) {
                for (int i = 0; i < 3; i++) {
                    producer.newMessage().key("a").value("a" + i).send();
                    producer.newMessage().key("b").value("b" + i).send();
                }
            }
            admin.topics().triggerCompaction(keyed);
            await("compaction of " + keyed + " ended")
                    .atMost(Duration.ofMinutes(1))
                    .ignoreExceptionsInstanceOf(Exception.class)
                    .until(() ->
                            admin.topics().compactionStatus(keyed).status != LongRunningProcessStatus.Status.RUNNING);
            LongRunningProcessStatus status = admin.topics().compactionStatus(keyed);
            assertThat(status.status)
                    .as("compaction: %s", status.lastError)
                    .isEqualTo(LongRunningProcessStatus.Status.SUCCESS);
            Map<String, String> latest = new HashMap<>();
            try (Reader<String> reader = client.newReader(Schema.STRING)
                    .topic(keyed)
                    .readCompacted(true)
                    .startMessageId(org.apache.pulsar.client.api.MessageId.earliest)
                    .create()) {
                while (reader.hasMessageAvailable()) {
                    Message<String> m = reader.readNext(10, TimeUnit.SECONDS);
                    latest.merge(m.getKey(), "x", (a, b) -> a + b);
                    latest.put(m.getKey() + ".value", m.getValue());
                }
            }
            assertThat(latest)
                    .containsEntry("a", "x")
                    .containsEntry("b", "x")
                    .containsEntry("a.value", "a2")
                    .containsEntry("b.value", "b2");
        }

        // A transaction, through the coordinator whose log is on Lakestream.
        try (PulsarClient client = PulsarClient.builder()
                .serviceUrl(STOCK.serviceUrl())
                .enableTransaction(true)
                .build()) {
            String txnTopic = "persistent://" + NS + "/txn";
            try (Consumer<String> consumer = client.newConsumer(Schema.STRING)
                            .topic(txnTopic)
                            .subscriptionName("s")
                            .subscribe();
                    Producer<String> producer = client.newProducer(Schema.STRING)
                            .topic(txnTopic)
                            .sendTimeout(0, TimeUnit.SECONDS)
                            .create()) {
                Transaction txn = client.newTransaction()
                        .withTransactionTimeout(2, TimeUnit.MINUTES)
                        .build()
                        .get(60, TimeUnit.SECONDS);
                producer.newMessage(txn).value("in-txn").send();
                assertThat(consumer.receive(1, TimeUnit.SECONDS))
                        .as("not visible before commit")
                        .isNull();
                txn.commit().get(60, TimeUnit.SECONDS);
                Message<String> m = consumer.receive(30, TimeUnit.SECONDS);
                assertThat(m).isNotNull();
                assertThat(m.getValue()).isEqualTo("in-txn");
            }
        }

        // The data is in the bucket, its index and catalog in Oxia.
        assertThat(objectsInBucket())
                .as("WAL objects in bucket %s", STOCK.bucket())
                .isPositive();
        Map<String, String> props =
                Map.of(OxiaMetadataStoreConfig.SERVICE_ADDRESS, STOCK.oxia().serviceAddress());
        try (OxiaMetadataStore store =
                OxiaMetadataStore.open(OxiaMetadataStoreConfig.fromProperties(new ConfigReader(props)))) {
            List<Long> streams =
                    new StreamCatalog(store, "/lakestream").allIds().get(30, TimeUnit.SECONDS);
            assertThat(streams).as("streams in Oxia's Lakestream catalog").hasSizeGreaterThanOrEqualTo(4);
        }
    }

    @Test
    @Order(3)
    void theBrokersMetricsHaveTheStoragesSeries() throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(STOCK.webServiceUrl() + "/metrics/"))
                                .timeout(Duration.ofSeconds(30))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        String text = r.body();
        assertThat(sample(text, "lakestream_object_store_requests_total", "op=\"put\""))
                .as("PUTs")
                .isPositive();
        assertThat(sample(text, "lakestream_object_store_bytes_total", "op=\"put\""))
                .as("bytes PUT")
                .isPositive();
        assertThat(sample(text, "lakestream_object_store_request_duration_seconds_count", "op=\"put\""))
                .as("PUT latencies observed")
                .isPositive();
        assertThat(sample(text, "lakestream_index_commits_total", "cluster=\"" + CLUSTER + "\""))
                .as("index commits")
                .isPositive();
        assertThat(sample(text, "lakestream_gc_lease_held", ""))
                .as("the only broker collects")
                .isEqualTo(1.0);
        assertThat(text)
                .contains(
                        "# TYPE lakestream_cache_hit_ratio gauge",
                        "lakestream_writer_pending_bytes{",
                        "lakestream_gc_deleted_bytes_total{");
    }

    @Test
    @Order(4)
    void aRestartedBrokerServesTheSameData() throws Exception {
        STOCK.restart("broker-restarted.log");
        try (PulsarClient client = client();
                Consumer<String> consumer = client.newConsumer(Schema.STRING)
                        .topic("persistent://" + NS + "/plain")
                        .subscriptionName("after-restart")
                        .subscriptionInitialPosition(SubscriptionInitialPosition.Earliest)
                        .subscribe()) {
            List<String> read = new ArrayList<>();
            for (int i = 0; i < published.size(); i++) {
                Message<String> m = consumer.receive(30, TimeUnit.SECONDS);
                assertThat(m)
                        .as("message %d of %d after the restart", i, published.size())
                        .isNotNull();
                read.add(m.getValue());
            }
            assertThat(read).isEqualTo(published);
        }
    }

    /** The first sample of {@code name} whose labels contain {@code label}; fails when there is none. */
    private static double sample(String text, String name, String label) {
        for (String line : text.split("\n", -1)) {
            if (line.startsWith(name + "{")
                    && line.substring(0, line.indexOf('}')).contains(label)) {
                return Double.parseDouble(
                        line.substring(line.indexOf('}') + 1).trim().split("\\s+", -1)[0]);
            }
        }
        throw new AssertionError("no sample of " + name + " with " + label + " in /metrics");
    }

    /** Avro record of the typed-schema check. */
    public static class Reading {
        public String sensor;
        public double celsius;

        public Reading() {}

        Reading(String sensor, double celsius) {
            this.sensor = sensor;
            this.celsius = celsius;
        }
    }

    private static long objectsInBucket() throws IOException {
        try (Stream<Path> files = Files.walk(STOCK.s3().dataDir().resolve(STOCK.bucket()))) {
            return files.filter(Files::isRegularFile).count();
        }
    }

    private static List<String> activeValues(String conf, String key) {
        return conf.lines()
                .filter(l -> l.startsWith(key + "="))
                .map(l -> l.substring(key.length() + 1))
                .toList();
    }

    private static PulsarAdmin admin() throws IOException {
        return PulsarAdmin.builder().serviceHttpUrl(STOCK.webServiceUrl()).build();
    }

    private static PulsarClient client() throws IOException {
        return PulsarClient.builder().serviceUrl(STOCK.serviceUrl()).build();
    }
}
