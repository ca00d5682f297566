package dev.lakestream.pulsar.compaction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import dev.lakestream.pulsar.LakestreamManagedLedgerStorage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.pulsar.broker.PulsarService;
import org.apache.pulsar.broker.ServiceConfiguration;
import org.apache.pulsar.broker.storage.ManagedLedgerStorage;
import org.junit.jupiter.api.Test;

/**
 * The factory refuses, at broker start-up and naming the setting, a broker whose topics are not in Lakestream; the
 * compactor it shows the broker only holds statistics.
 */
class LakestreamCompactionServiceFactoryTest {

    @Test
    void refusesABrokerWhoseStorageIsNotLakestream() {
        PulsarService pulsar = mock(PulsarService.class);
        ManagedLedgerStorage bookkeeper = mock(ManagedLedgerStorage.class);
        when(pulsar.getManagedLedgerStorage()).thenReturn(bookkeeper);

        assertThatThrownBy(() -> new LakestreamCompactionServiceFactory()
                        .initialize(pulsar)
                        .get(10, TimeUnit.SECONDS))
                .hasMessageContaining("managedLedgerStorageClassName=" + LakestreamManagedLedgerStorage.class.getName())
                .hasMessageContaining(bookkeeper.getClass().getName());
    }

    @Test
    void refusesAStorageWithoutItsOwnLog() {
        PulsarService pulsar = mock(PulsarService.class);
        when(pulsar.getManagedLedgerStorage()).thenReturn(new LakestreamManagedLedgerStorage());

        assertThatThrownBy(() -> new LakestreamCompactionServiceFactory()
                        .initialize(pulsar)
                        .get(10, TimeUnit.SECONDS))
                .hasMessageContaining("compacts topics stored in Lakestream");
    }

    @Test
    void pulsarsOwnCompactionPathIsRefusedNamingWhy() {
        // The broker finds compaction statistics on this compactor; compacting through it would need BookKeeper.
        CompactionStatsHolder holder = new CompactionStatsHolder(new ServiceConfiguration());
        assertThat(holder.compact("persistent://a/b/c"))
                .failsWithin(10, TimeUnit.SECONDS)
                .withThrowableOfType(ExecutionException.class)
                .withMessageContaining("Compactor.compact(persistent://a/b/c) is not supported")
                .withMessageContaining("BookKeeper");
        assertThat(holder.getStats()).isSameAs(holder.statistics());
    }

    @Test
    void refusesTopicsBeforeItIsInitialised() {
        assertThat(new LakestreamCompactionServiceFactory().newTopicCompactionService("persistent://a/b/c"))
                .isCompletedExceptionally();
    }
}
