package dev.lakestream.pulsar.ledger;

import com.google.common.collect.BoundType;
import com.google.common.collect.Range;
import dev.lakestream.pulsar.common.VirtualLedgers;
import org.apache.bookkeeper.mledger.Position;
import org.apache.bookkeeper.mledger.PositionBound;
import org.apache.bookkeeper.mledger.PositionFactory;

/**
 * Position arithmetic of a managed ledger over its virtual ledgers and readable range
 * {@code [startOffset, lceOffset]}: first, next, previous and n-th positions, ranges as offsets, entry counts and
 * backlog sizes.
 *
 * <p>Each answer is computed under the ledger's state monitor, over the same span the ledger's synchronized methods held
 * it; nothing here is kept between calls.
 */
final class LedgerPositions {

    private final LedgerState state;
    private final LedgerCursors cursors;

    LedgerPositions(LedgerState state, LedgerCursors cursors) {
        this.state = state;
        this.cursors = cursors;
    }

    Position first() {
        synchronized (state) {
            VirtualLedgers.Ledger first = state.ledgersLocked().first();
            return first == null ? null : PositionFactory.create(first.id(), -1);
        }
    }

    Position nextValid(Position position) {
        synchronized (state) {
            long off = state.ledgersLocked().offsetOf(position) + 1;
            off = Math.max(off, state.startOffset());
            return state.ledgersLocked().positionOf(Math.min(off, state.lceOffset() + 1));
        }
    }

    Position previous(Position position) {
        synchronized (state) {
            long off = state.ledgersLocked().offsetOf(position) - 1;
            if (off < state.startOffset()) {
                return first();
            }
            return state.ledgersLocked().positionOf(off);
        }
    }

    Position afterN(Position startPosition, long n, PositionBound startRange) {
        synchronized (state) {
            long off = state.ledgersLocked().offsetOf(startPosition);
            if (startRange == PositionBound.startIncluded) {
                off--;
            }
            off = Math.max(off, state.startOffset() - 1);
            long target = off + n;
            if (target < off) {
                target = Long.MAX_VALUE / 4;
            }
            return state.ledgersLocked().positionOf(Math.min(target, state.lceOffset()));
        }
    }

    /** Offsets {@code [from, to]} of a range of positions, clamped to the readable entries; null when empty. */
    long[] offsetsOf(Range<Position> range) {
        synchronized (state) {
            VirtualLedgers ledgers = state.ledgersLocked();
            long lo = range.hasLowerBound()
                    ? ledgers.offsetOf(range.lowerEndpoint()) + (range.lowerBoundType() == BoundType.OPEN ? 1 : 0)
                    : state.startOffset();
            long hi = range.hasUpperBound()
                    ? ledgers.offsetOf(range.upperEndpoint()) - (range.upperBoundType() == BoundType.OPEN ? 1 : 0)
                    : state.lceOffset();
            lo = Math.max(lo, state.startOffset());
            hi = Math.min(hi, state.lceOffset());
            return lo > hi ? null : new long[] {lo, hi};
        }
    }

    long numberOfEntries(Range<Position> range) {
        long[] r = offsetsOf(range);
        return r == null ? 0 : r[1] - r[0] + 1;
    }

    /** Entries not yet acknowledged by the slowest durable cursor. */
    long numberOfActiveEntries() {
        long slowest = cursors.slowestAckedBefore(false);
        synchronized (state) {
            return Math.max(0, state.lceOffset() + 1 - Math.max(slowest, state.startOffset()));
        }
    }

    long averageEntrySize() {
        synchronized (state) {
            long entries = state.lceOffset() + 1 - state.startOffset();
            long size = state.totalSize();
            return entries <= 0 ? 1024 : Math.max(1, size / entries);
        }
    }

    long estimatedBacklogSize(Position position) {
        long off = state.offsetOf(position);
        synchronized (state) {
            return Math.max(0, state.lceOffset() - Math.max(off, state.startOffset() - 1)) * averageEntrySize();
        }
    }
}
