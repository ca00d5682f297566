package dev.lakestream.pulsar.common;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class BrokerNodeTest {

    private static final byte[] MANAGED_LEDGER_INFO = {0x0a, 0x06, 0x08, 0x01, 0x10, 0x05};

    @Test
    void aLakestreamNodeIsBuiltAndReadBack() {
        byte[] node = BrokerNode.encode(4);
        assertThat(new String(node, StandardCharsets.UTF_8)).isEqualTo("{\"storage\":\"lakestream\",\"streamId\":4}");
        assertThat(BrokerNode.storageOf(node)).contains(StorageClasses.LAKESTREAM);
        assertThat(BrokerNode.isLakestream(node)).isTrue();
        assertThat(BrokerNode.isOtherStorage(node)).isFalse();
        assertThat(BrokerNode.streamId(node)).hasValue(4);
    }

    @Test
    void placeholdersHoldNoStorageAndAnythingElseIsBookKeepers() {
        assertThat(BrokerNode.storageOf(new byte[0])).isEmpty();
        assertThat(BrokerNode.storageOf(null)).isEmpty();
        assertThat(BrokerNode.isOtherStorage(new byte[0])).isFalse();
        // BookKeeper's ManagedLedgerInfo: protobuf, field 1 (ledgerInfo) first.
        assertThat(BrokerNode.storageOf(MANAGED_LEDGER_INFO)).contains(StorageClasses.BOOKKEEPER);
        assertThat(BrokerNode.isOtherStorage(MANAGED_LEDGER_INFO)).isTrue();
        assertThat(BrokerNode.streamId(MANAGED_LEDGER_INFO)).isEmpty();
        // A protobuf whose first byte is '{' is not JSON: still BookKeeper's.
        byte[] brace = {'{', 0x01, 0x02};
        assertThat(BrokerNode.storageOf(brace)).contains(StorageClasses.BOOKKEEPER);
        assertThat(BrokerNode.isLakestream("{\"storage\":\"other\"}".getBytes(StandardCharsets.UTF_8)))
                .isFalse();
    }
}
