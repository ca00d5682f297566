package dev.lakestream.pulsar.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import dev.lakestream.core.metadata.GetOptions;
import dev.lakestream.core.metadata.MetadataStore;
import dev.lakestream.core.metadata.MetadataStoreUnavailableException;
import dev.lakestream.pulsar.LakestreamManagedLedgerStorage;
import dev.lakestream.pulsar.schema.SchemaRecords.Entry;
import dev.lakestream.pulsar.schema.SchemaRecords.Head;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.pulsar.broker.PulsarService;
import org.apache.pulsar.broker.service.schema.exceptions.SchemaException;
import org.apache.pulsar.broker.storage.ManagedLedgerStorage;
import org.apache.pulsar.common.protocol.schema.SchemaVersion;
import org.junit.jupiter.api.Test;

/** The byte layout (as documented in docs/layout.md), store faults (Mockito) and the factory's start-up checks. */
class SchemaStorageUnitTest {

    @Test
    void keysAndBytesAreTheDocumentedOnes() throws Exception {
        SchemaRecords r = new SchemaRecords("/lakestream");
        assertThat(r.headKey("public/default/orders")).isEqualTo("/lakestream/schemas/public%2Fdefault%2Forders");
        assertThat(r.dataKey("public/default/orders", 1, 0x1234L))
                .isEqualTo("/lakestream/schemas/public%2Fdefault%2Forders/00000000000000000001-0000000000001234");

        byte[] head = SchemaRecords.encodeHead(new Head(List.of(
                new Entry(new byte[] {(byte) 0xab, (byte) 0xcd}, 7), new Entry(new byte[0], -1))));
        assertThat(HexFormat.of().formatHex(head))
                .isEqualTo("4c535348" + "01" + "00000002"
                        + "0002" + "abcd" + "0000000000000007"
                        + "0000" + "ffffffffffffffff");
        assertThat(SchemaRecords.decodeHead("k", head).entries()).hasSize(2);

        byte[] data = SchemaRecords.encodeData(1, "hi".getBytes(StandardCharsets.UTF_8));
        // "LSSD", format 1, version 1, CRC32C("hi"), the bytes
        assertThat(HexFormat.of().formatHex(data))
                .startsWith("4c535344" + "01" + "0000000000000001")
                .endsWith("6869")
                .hasSize(2 * (SchemaRecords.DATA_HEADER_BYTES + 2));
        assertThat(SchemaRecords.decodeData("k", 1, data)).isEqualTo("hi".getBytes(StandardCharsets.UTF_8));
        assertThatThrownBy(() -> SchemaRecords.decodeData("k", 2, data))
                .isInstanceOf(SchemaRecordCorruptedException.class)
                .hasMessageContaining("holds version 1");
        assertThatThrownBy(() -> SchemaRecords.decodeHead("k", new byte[] {'L', 'S', 'S', 'H', 1, 0, 0}))
                .isInstanceOf(SchemaRecordCorruptedException.class)
                .hasMessageContaining("truncated");
        byte[] future = head.clone();
        future[4] = 9;
        assertThatThrownBy(() -> SchemaRecords.decodeHead("k", future))
                .isInstanceOf(SchemaRecordCorruptedException.class)
                .hasMessageContaining("unknown format version 9");
    }

    @Test
    void anUnavailableStoreIsARecoverableSchemaExceptionNamingTheKey() {
        MetadataStore store = mock(MetadataStore.class);
        when(store.address()).thenReturn("oxia://x:6648/default");
        when(store.get(any(), any(GetOptions.class)))
                .thenReturn(CompletableFuture.failedFuture(
                        new MetadataStoreUnavailableException("oxia://x:6648/default: timed out")));
        LakestreamSchemaStorage storage = new LakestreamSchemaStorage(store, "/lakestream", Runnable::run);
        CompletableFuture<?> f = storage.get("t/n/topic", SchemaVersion.Latest);
        assertThatThrownBy(() -> f.get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOf(SchemaException.class)
                .hasMessageContaining("/lakestream/schemas/t%2Fn%2Ftopic")
                .hasMessageContaining("timed out");
        SchemaException e = (SchemaException) f.handle((x, t) -> t).join();
        assertThat(e.isRecoverable())
                .as("the registry must not wipe the schema on a store outage")
                .isTrue();
        assertThat(e.getCause()).isInstanceOf(MetadataStoreUnavailableException.class);
    }

    @Test
    void theFactoryRefusesABrokerWhoseStorageIsNotLakestream() {
        PulsarService pulsar = mock(PulsarService.class);
        ManagedLedgerStorage other = mock(ManagedLedgerStorage.class);
        when(pulsar.getManagedLedgerStorage()).thenReturn(other);
        assertThatThrownBy(() -> new LakestreamSchemaStorageFactory().create(pulsar))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("managedLedgerStorageClassName=" + LakestreamManagedLedgerStorage.class.getName())
                .hasMessageContaining("BookkeeperSchemaStorageFactory");

        LakestreamManagedLedgerStorage fromParts = new LakestreamManagedLedgerStorage();
        when(pulsar.getManagedLedgerStorage()).thenReturn(fromParts);
        assertThatThrownBy(() -> new LakestreamSchemaStorageFactory().create(pulsar))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no Lakestream log");
    }
}
