package dev.lakestream.pulsar.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.apache.bookkeeper.mledger.PositionFactory;
import org.junit.jupiter.api.Test;

class VirtualLedgersTest {

    private static VirtualLedgers threeLedgers() {
        // ledger 10: offsets 0..2, ledger 20: 3..5, ledger 30: 6.. (end 8)
        VirtualLedgers v = new VirtualLedgers(List.of(), 0);
        v.roll(10, 0, 1);
        for (long o = 0; o < 3; o++) {
            v.confirm(o, 5);
        }
        v.roll(20, 3, 2);
        for (long o = 3; o < 6; o++) {
            v.confirm(o, 5);
        }
        v.roll(30, 6, 3);
        v.confirm(6, 5);
        v.confirm(7, 5);
        return v;
    }

    @Test
    void positionsAndOffsetsRoundTrip() {
        VirtualLedgers v = threeLedgers();
        for (long o = 0; o < 8; o++) {
            assertThat(v.offsetOf(v.positionOf(o))).isEqualTo(o);
        }
        assertThat(v.positionOf(4)).isEqualTo(PositionFactory.create(20, 1));
        assertThat(v.offsetOf(30, 1)).isEqualTo(7);
    }

    @Test
    void entriesSizesAndTimestampsPerLedger() {
        VirtualLedgers v = threeLedgers();
        assertThat(v.entries(0)).isEqualTo(3);
        assertThat(v.entries(2)).isEqualTo(2);
        assertThat(v.size(0)).isEqualTo(15);
        assertThat(v.size(2)).isEqualTo(10);
        assertThat(v.ledgers().get(1).timestamp()).isEqualTo(3);
        assertThat(v.ledgers().get(2).timestamp()).isZero();
    }

    @Test
    void edgesAndUnknownLedgers() {
        VirtualLedgers v = threeLedgers();
        assertThat(v.positionOf(-1)).isEqualTo(PositionFactory.create(10, -1));
        assertThat(v.offsetOf(-1, -1)).isEqualTo(-1);
        assertThat(v.offsetOf(15, 7))
                .as("a ledger id between two: before the next")
                .isEqualTo(2);
        assertThat(v.offsetOf(Long.MAX_VALUE, Long.MAX_VALUE)).isGreaterThan(1L << 40);
        assertThat(v.offsetOf(10, 3))
                .as("one past a closed ledger is the next ledger's first")
                .isEqualTo(3);
        assertThat(v.positionOf(8)).as("the next position").isEqualTo(PositionFactory.create(30, 2));
    }

    @Test
    void anEmptyLastLedgerIsReplacedAndLastConfirmedStaysInThePreviousOne() {
        VirtualLedgers v = threeLedgers();
        v.roll(40, 8, 4);
        assertThat(v.positionOf(7)).isEqualTo(PositionFactory.create(30, 1));
        assertThat(v.positionOf(8)).isEqualTo(PositionFactory.create(40, 0));
        v.roll(50, 8, 5);
        assertThat(v.ledgers()).extracting(VirtualLedgers.Ledger::id).containsExactly(10L, 20L, 30L, 50L);
    }

    @Test
    void removeBelowKeepsTheCurrentLedger() {
        VirtualLedgers v = threeLedgers();
        assertThat(v.removeBelow(5)).isEqualTo(1);
        assertThat(v.first().id()).isEqualTo(20);
        assertThat(v.removeBelow(100)).isEqualTo(1);
        assertThat(v.ledgers()).hasSize(1);
    }

    @Test
    void idsMustIncrease() {
        VirtualLedgers v = threeLedgers();
        assertThatThrownBy(() -> v.roll(25, 9, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new VirtualLedgers(
                        List.of(new VirtualLedgers.Ledger(2, 0, 0, 0), new VirtualLedgers.Ledger(1, 1, 0, 0)), 0))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
