package dev.lakestream.pulsar.compaction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import dev.lakestream.pulsar.LakestreamManagedLedgerStorage;
import java.util.concurrent.TimeUnit;
import org.apache.pulsar.broker.PulsarService;
import org.apache.pulsar.broker.storage.ManagedLedgerStorage;
import org.junit.jupiter.api.Test;

/** The factory refuses, at broker start-up and naming the setting, a broker whose topics are not in Lakestream. */
class LakestreamCompactionServiceFactoryTest {

    @Test
    void refusesABrokerWhoseStorageIsNotLakestream() {
        PulsarService pulsar = mock(PulsarService.class);
        ManagedLedgerStorage bookkeeper = mock(ManagedLedgerStorage.class);
        when(pulsar.getManagedLedgerStorage()).thenReturn(bookkeeper);

        assertThatThrownBy(() -> new LakestreamCompactionServiceFactory().initialize(pulsar).get(10, TimeUnit.SECONDS))
                .hasMessageContaining("managedLedgerStorageClassName=" + LakestreamManagedLedgerStorage.class.getName())
                .hasMessageContaining(bookkeeper.getClass().getName());
    }

    @Test
    void refusesAStorageWithoutItsOwnLog() {
        PulsarService pulsar = mock(PulsarService.class);
        when(pulsar.getManagedLedgerStorage()).thenReturn(new LakestreamManagedLedgerStorage());

        assertThatThrownBy(() -> new LakestreamCompactionServiceFactory().initialize(pulsar).get(10, TimeUnit.SECONDS))
                .hasMessageContaining("compacts topics stored in Lakestream");
    }

    @Test
    void refusesTopicsBeforeItIsInitialised() {
        assertThat(new LakestreamCompactionServiceFactory().newTopicCompactionService("persistent://a/b/c"))
                .isCompletedExceptionally();
    }
}
