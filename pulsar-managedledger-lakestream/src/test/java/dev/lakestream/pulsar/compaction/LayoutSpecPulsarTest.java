package dev.lakestream.pulsar.compaction;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lakestream.core.Lakestream;
import dev.lakestream.core.LakestreamConfig;
import dev.lakestream.core.catalog.StreamInfo;
import dev.lakestream.core.metadata.embedded.EmbeddedMetadataStore;
import dev.lakestream.core.metadata.embedded.EmbeddedMetadataStoreConfig;
import dev.lakestream.core.objectstore.fs.FileSystemObjectStore;
import dev.lakestream.core.objectstore.fs.FileSystemObjectStoreConfig;
import dev.lakestream.pulsar.LakestreamManagedLedgerFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.bookkeeper.mledger.ManagedLedger;
import org.apache.bookkeeper.mledger.ManagedLedgerFactoryConfig;
import org.apache.pulsar.broker.transaction.pendingack.impl.MLPendingAckStore;
import org.apache.pulsar.common.naming.TopicName;
import org.apache.pulsar.common.protocol.Commands;
import org.apache.pulsar.metadata.api.MetadataStoreConfig;
import org.apache.pulsar.metadata.api.extended.MetadataStoreExtended;
import org.apache.pulsar.transaction.coordinator.TransactionCoordinatorID;
import org.apache.pulsar.transaction.coordinator.impl.MLTransactionLogImpl;
import org.apache.pulsar.transaction.coordinator.impl.TxnLogBufferedWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/layout.md §8.1 (which streams hold Pulsar messages) against Pulsar's own code: the managed-ledger names of the
 * transaction logs, the magic numbers that make their bytes look like messages, and the catalog names and properties
 * a reader tells them apart by.
 */
class LayoutSpecPulsarTest {

    private static final Path DOC = Path.of("../docs/layout.md");

    @TempDir
    Path dir;

    @Test
    void theTransactionLedgerNamesAreThoseTheBrokerOpens() throws Exception {
        String doc = Files.readString(DOC);

        String coordinatorLog = MLTransactionLogImpl.getMLTransactionLogName(new TransactionCoordinatorID(3))
                .getPersistenceNamingEncoding();
        assertThat(coordinatorLog).isEqualTo("pulsar/system/persistent/__transaction_log_3");
        assertThat(doc).contains("`pulsar/system/persistent/__transaction_log_<n>`");

        String pendingAck = TopicName.get(MLPendingAckStore.getTransactionPendingAckStoreSuffix(
                        "persistent://public/default/orders", "sub1"))
                .getPersistenceNamingEncoding();
        assertThat(pendingAck).isEqualTo("public/default/persistent/orders-sub1__transaction_pending_ack");
        assertThat(doc)
                .contains("`" + pendingAck + "`")
                .contains("`<tenant>/<namespace>/persistent/<topic>-<subscription>__transaction_pending_ack`");
    }

    @Test
    void batchedTransactionRecordsStartLikeAChecksummedMessage() throws Exception {
        assertThat(TxnLogBufferedWriter.BATCHED_ENTRY_DATA_PREFIX_MAGIC_NUMBER)
                .isEqualTo((short) 0x0e01)
                .isEqualTo(Commands.magicCrc32c);
        assertThat(TxnLogBufferedWriter.BATCHED_ENTRY_DATA_PREFIX_VERSION).isEqualTo((short) 1);
        assertThat(Commands.magicBrokerEntryMetadata).isEqualTo((short) 0x0e02);
        assertThat(Files.readString(DOC))
                .contains("`0e01 \\| version:int16 (= 1) \\| BatchedTransactionMetadataEntry`")
                .contains("`0e02 \\| size:int32 \\| BrokerEntryMetadata`");
    }

    /** A reader has only the catalog namespace and name to go by: managed ledgers carry no catalog properties. */
    @Test
    void managedLedgerStreamsAreNamedByTheLedgerAndCarryNoProperties() throws Exception {
        String doc = Files.readString(DOC);
        assertThat(doc)
                .contains("| `" + LakestreamManagedLedgerFactory.NAMESPACE + "` | `pulsar/system/persistent/")
                .contains("| `" + CompactedStreams.NAMESPACE_PREFIX + "<managed-ledger name>` |");
        MetadataStoreExtended broker = MetadataStoreExtended.create(
                "memory:local", MetadataStoreConfig.builder().build());
        try (FileSystemObjectStore objects = new FileSystemObjectStore(
                        FileSystemObjectStoreConfig.of(dir.resolve("o")).withFsync(false));
                EmbeddedMetadataStore meta =
                        EmbeddedMetadataStore.open(EmbeddedMetadataStoreConfig.of(dir.resolve("m")));
                Lakestream log = Lakestream.open(objects, meta, LakestreamConfig.DEFAULT)) {
            LakestreamManagedLedgerFactory factory =
                    new LakestreamManagedLedgerFactory(log, broker, new ManagedLedgerFactoryConfig());
            try {
                String name = "pulsar/system/persistent/__transaction_log_0";
                ManagedLedger ledger = factory.open(name);
                ledger.addEntry(new byte[] {0x0e, 0x01, 0, 1});

                StreamInfo info =
                        log.catalog().lookup("managed-ledgers", name).join().orElseThrow();
                assertThat(info.properties()).isEmpty();
                ledger.close();
            } finally {
                factory.shutdown();
            }
        } finally {
            broker.close();
        }
    }
}
