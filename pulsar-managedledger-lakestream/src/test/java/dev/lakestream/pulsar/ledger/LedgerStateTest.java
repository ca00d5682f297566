package dev.lakestream.pulsar.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lakestream.pulsar.common.VirtualLedgers;
import dev.lakestream.pulsar.ledger.LedgerState.Phase;
import java.util.List;
import org.apache.bookkeeper.mledger.PositionFactory;
import org.junit.jupiter.api.Test;

class LedgerStateTest {

    private static LedgerState open() {
        VirtualLedgers ledgers = new VirtualLedgers(List.of(new VirtualLedgers.Ledger(3, 0, 0, 0)), 0);
        return new LedgerState("t", ledgers, 0, false);
    }

    @Test
    void confirmMovesTheTailAndRetentionTheStart() {
        LedgerState s = open();
        assertThat(s.lceOffset()).isEqualTo(-1);
        s.confirm(0, 10, PositionFactory.create(3, 0));
        s.confirm(1, 10, PositionFactory.create(3, 1));
        assertThat(s.lceOffset()).isEqualTo(1);
        assertThat(s.lastConfirmed()).isEqualTo(PositionFactory.create(3, 1));
        assertThat(s.totalSize()).isEqualTo(20);

        s.roll(4, 2, 0);
        s.confirmLanded(5);
        assertThat(s.lceOffset()).isEqualTo(4);
        assertThat(s.lastConfirmed()).isEqualTo(PositionFactory.create(4, 2));

        s.trimBelow(2);
        assertThat(s.startOffset()).isEqualTo(2);
        assertThat(s.ledgerList()).extracting(VirtualLedgers.Ledger::id).containsExactly(4L);
    }

    @Test
    void writeFailureReopensAndFenceIsFinalForWrites() {
        LedgerState s = open();
        s.writeFailed();
        assertThat(s.phase()).isEqualTo(Phase.WRITE_FAILED);
        assertThatThrownBy(s::terminate)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("from WRITE_FAILED to TERMINATED");
        s.reopenForWrite();
        assertThat(s.phase()).isEqualTo(Phase.OPEN);
        s.fence();
        assertThatThrownBy(s::reopenForWrite)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("from FENCED to OPEN");
        assertThatThrownBy(s::writeFailed)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("from FENCED to WRITE_FAILED");
        s.close();
        assertThat(s.isClosedOrDeleted()).isTrue();
    }

    @Test
    void closedLedgersCannotBeFencedOrTerminatedAndDeleteWinsOverClose() {
        LedgerState s = open();
        s.terminate();
        s.fence();
        assertThat(s.phase()).isEqualTo(Phase.FENCED);
        s.close();
        assertThatThrownBy(s::fence)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("from CLOSED to FENCED");
        assertThatThrownBy(s::terminate).isInstanceOf(IllegalStateException.class);
        s.delete();
        s.close();
        assertThat(s.phase()).isEqualTo(Phase.DELETED);
    }
}
