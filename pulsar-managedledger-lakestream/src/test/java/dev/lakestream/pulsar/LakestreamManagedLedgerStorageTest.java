package dev.lakestream.pulsar;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lakestream.core.Lakestream;
import dev.lakestream.core.LakestreamConfig;
import dev.lakestream.core.metadata.embedded.EmbeddedMetadataStore;
import dev.lakestream.core.metadata.embedded.EmbeddedMetadataStoreConfig;
import dev.lakestream.core.objectstore.fs.FileSystemObjectStore;
import dev.lakestream.core.objectstore.fs.FileSystemObjectStoreConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Properties;
import org.apache.bookkeeper.mledger.ManagedLedgerFactoryConfig;
import org.apache.bookkeeper.mledger.impl.ManagedLedgerMBeanImpl;
import org.apache.pulsar.broker.ServiceConfiguration;
import org.apache.pulsar.broker.storage.ManagedLedgerStorageClass;
import org.apache.pulsar.metadata.api.MetadataStoreConfig;
import org.apache.pulsar.metadata.api.extended.MetadataStoreExtended;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mockito.Mockito;

class LakestreamManagedLedgerStorageTest {

    @TempDir
    Path dir;

    @Test
    void disklessModeOffersOnlyLakestreamAndNeverStartsBookKeeper() throws Exception {
        ServiceConfiguration conf = new ServiceConfiguration();
        // Topic policies (on by default) need a schema storage without BookKeeper in diskless mode.
        conf.setSchemaRegistryStorageClassName(DisklessConfigurationCheck.SCHEMA_STORAGE);
        Properties p = new Properties();
        p.setProperty("lakestreamStorageMode", "diskless");
        p.setProperty("lakestream.fs.root", dir.resolve("objects").toString());
        p.setProperty("lakestream.embedded.dataDir", dir.resolve("meta").toString());
        conf.setProperties(p);
        try (MetadataStoreExtended broker = MetadataStoreExtended.create(
                        "memory:local", MetadataStoreConfig.builder().build());
                LakestreamManagedLedgerStorage storage = new LakestreamManagedLedgerStorage()) {
            storage.initialize(conf, broker, null, null, null);
            assertThat(storage.mode()).isEqualTo(LakestreamManagedLedgerStorage.Mode.DISKLESS);
            assertThat(storage.getStorageClasses())
                    .extracting(ManagedLedgerStorageClass::getName)
                    .containsExactly("lakestream");
            assertThat(storage.getManagedLedgerStorageClass(null))
                    .get()
                    .extracting(ManagedLedgerStorageClass::getName)
                    .isEqualTo("lakestream");
            assertThat(storage.getManagedLedgerStorageClass("bookkeeper")).isEmpty();
            assertThat(storage.getManagedLedgerStorageClass("s3")).isEmpty();
            var factory = storage.getDefaultStorageClass().getManagedLedgerFactory();
            assertThat(factory.getEntryCacheManager()).isNotNull();
            assertThat(factory.getConfig()).isNotNull();
            assertThat(factory.getCacheStats()).isNotNull();
            var ml = factory.open("t/ns/persistent/a");
            ml.addEntry("x".getBytes(StandardCharsets.UTF_8));
            assertThat(ml.getStats()).isInstanceOf(ManagedLedgerMBeanImpl.class);
            assertThat(((ManagedLedgerMBeanImpl) ml.getStats()).getStoredMessagesSize())
                    .isEqualTo(1);
            assertThat(((ManagedLedgerMBeanImpl) ml.getStats()).getPendingBookieOpsStats())
                    .isNotNull();
            assertThat(broker.exists("/managed-ledgers/t/ns/persistent/a").join())
                    .isTrue();
        }
    }

    @Test
    void hybridModeDefaultsToBookKeeperAndOffersLakestreamByName() throws Exception {
        FileSystemObjectStore objects = new FileSystemObjectStore(FileSystemObjectStoreConfig.of(dir.resolve("o")));
        EmbeddedMetadataStore meta = EmbeddedMetadataStore.open(EmbeddedMetadataStoreConfig.of(dir.resolve("m")));
        try (MetadataStoreExtended broker = MetadataStoreExtended.create(
                        "memory:local", MetadataStoreConfig.builder().build());
                Lakestream log = Lakestream.open(objects, meta, LakestreamConfig.DEFAULT)) {
            LakestreamManagedLedgerFactory f =
                    new LakestreamManagedLedgerFactory(log, broker, new ManagedLedgerFactoryConfig());
            ManagedLedgerStorageClass bk = Mockito.mock(ManagedLedgerStorageClass.class);
            Mockito.when(bk.getName()).thenReturn("bookkeeper");
            LakestreamManagedLedgerStorage storage = new LakestreamManagedLedgerStorage();
            storage.initialize(LakestreamManagedLedgerStorage.Mode.HYBRID, log, f, bk);
            assertThat(storage.getDefaultStorageClass()).isSameAs(bk);
            assertThat(storage.getManagedLedgerStorageClass(null)).containsSame(bk);
            assertThat(storage.getManagedLedgerStorageClass("bookkeeper")).containsSame(bk);
            assertThat(storage.getManagedLedgerStorageClass("lakestream"))
                    .get()
                    .extracting(ManagedLedgerStorageClass::getManagedLedgerFactory)
                    .isSameAs(f);
            assertThat(storage.getManagedLedgerStorageClass("nope")).isEmpty();
            f.shutdown();
        } finally {
            meta.close();
            objects.close();
        }
    }
}
