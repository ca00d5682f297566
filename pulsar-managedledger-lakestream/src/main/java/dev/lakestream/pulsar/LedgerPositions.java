package dev.lakestream.pulsar;

import com.google.common.collect.BoundType;
import com.google.common.collect.Range;
import org.apache.bookkeeper.mledger.Position;
import org.apache.bookkeeper.mledger.PositionBound;
import org.apache.bookkeeper.mledger.PositionFactory;

/**
 * Position arithmetic of a {@link LakestreamManagedLedger} over its virtual ledgers and readable range
 * {@code [startOffset, lceOffset]}: first, next, previous and n-th positions, ranges as offsets, entry counts and
 * backlog sizes.
 *
 * <p>Each answer is computed under the ledger's monitor, over the same span the ledger's synchronized methods held
 * it; nothing here is kept between calls.
 */
final class LedgerPositions {

    private final LakestreamManagedLedger ledger;

    LedgerPositions(LakestreamManagedLedger ledger) {
        this.ledger = ledger;
    }

    Position first() {
        synchronized (ledger) {
            VirtualLedgers.Ledger first = ledger.ledgers.first();
            return first == null ? null : PositionFactory.create(first.id(), -1);
        }
    }

    Position nextValid(Position position) {
        synchronized (ledger) {
            long off = ledger.ledgers.offsetOf(position) + 1;
            off = Math.max(off, ledger.startOffset);
            return ledger.ledgers.positionOf(Math.min(off, ledger.lceOffset + 1));
        }
    }

    Position previous(Position position) {
        synchronized (ledger) {
            long off = ledger.ledgers.offsetOf(position) - 1;
            if (off < ledger.startOffset) {
                return first();
            }
            return ledger.ledgers.positionOf(off);
        }
    }

    Position afterN(Position startPosition, long n, PositionBound startRange) {
        synchronized (ledger) {
            long off = ledger.ledgers.offsetOf(startPosition);
            if (startRange == PositionBound.startIncluded) {
                off--;
            }
            off = Math.max(off, ledger.startOffset - 1);
            long target = off + n;
            if (target < off) {
                target = Long.MAX_VALUE / 4;
            }
            return ledger.ledgers.positionOf(Math.min(target, ledger.lceOffset));
        }
    }

    /** Offsets {@code [from, to]} of a range of positions, clamped to the readable entries; null when empty. */
    long[] offsetsOf(Range<Position> range) {
        synchronized (ledger) {
            VirtualLedgers ledgers = ledger.ledgers;
            long lo = range.hasLowerBound() ? ledgers.offsetOf(range.lowerEndpoint())
                    + (range.lowerBoundType() == BoundType.OPEN ? 1 : 0) : ledger.startOffset;
            long hi = range.hasUpperBound() ? ledgers.offsetOf(range.upperEndpoint())
                    - (range.upperBoundType() == BoundType.OPEN ? 1 : 0) : ledger.lceOffset;
            lo = Math.max(lo, ledger.startOffset);
            hi = Math.min(hi, ledger.lceOffset);
            return lo > hi ? null : new long[] {lo, hi};
        }
    }

    long numberOfEntries(Range<Position> range) {
        long[] r = offsetsOf(range);
        return r == null ? 0 : r[1] - r[0] + 1;
    }

    /** Entries not yet acknowledged by the slowest durable cursor. */
    long numberOfActiveEntries() {
        long slowest = ledger.cursors.slowestAckedBefore(false);
        synchronized (ledger) {
            return Math.max(0, ledger.lceOffset + 1 - Math.max(slowest, ledger.startOffset));
        }
    }

    long averageEntrySize() {
        synchronized (ledger) {
            long entries = ledger.lceOffset + 1 - ledger.startOffset;
            long size = ledger.totalSizeLocked();
            return entries <= 0 ? 1024 : Math.max(1, size / entries);
        }
    }

    long estimatedBacklogSize(Position position) {
        long off = ledger.offsetOf(position);
        synchronized (ledger) {
            return Math.max(0, ledger.lceOffset - Math.max(off, ledger.startOffset - 1)) * averageEntrySize();
        }
    }
}
