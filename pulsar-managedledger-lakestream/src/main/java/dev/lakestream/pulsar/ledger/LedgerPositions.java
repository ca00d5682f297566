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
 * backlogs.
 *
 * <p>Takes no lock and keeps nothing between calls: the ledger makes one, holding its state lock, over the
 * {@link VirtualLedgers} and range as they are then, and uses it before letting the lock go (the ledgers change under
 * that lock only).
 */
final class LedgerPositions {

    private final VirtualLedgers ledgers;
    private final long startOffset;
    private final long lceOffset;

    LedgerPositions(VirtualLedgers ledgers, long startOffset, long lceOffset) {
        this.ledgers = ledgers;
        this.startOffset = startOffset;
        this.lceOffset = lceOffset;
    }

    Position first() {
        VirtualLedgers.Ledger first = ledgers.first();
        return first == null ? null : PositionFactory.create(first.id(), -1);
    }

    Position nextValid(Position position) {
        long off = ledgers.offsetOf(position) + 1;
        off = Math.max(off, startOffset);
        return ledgers.positionOf(Math.min(off, lceOffset + 1));
    }

    Position previous(Position position) {
        long off = ledgers.offsetOf(position) - 1;
        if (off < startOffset) {
            return first();
        }
        return ledgers.positionOf(off);
    }

    Position afterN(Position startPosition, long n, PositionBound startRange) {
        long off = ledgers.offsetOf(startPosition);
        if (startRange == PositionBound.startIncluded) {
            off--;
        }
        off = Math.max(off, startOffset - 1);
        long target = off + n;
        if (target < off) {
            target = Long.MAX_VALUE / 4;
        }
        return ledgers.positionOf(Math.min(target, lceOffset));
    }

    /** Offsets {@code [from, to]} of a range of positions, clamped to the readable entries; null when empty. */
    long[] offsetsOf(Range<Position> range) {
        long lo = range.hasLowerBound()
                ? ledgers.offsetOf(range.lowerEndpoint()) + (range.lowerBoundType() == BoundType.OPEN ? 1 : 0)
                : startOffset;
        long hi = range.hasUpperBound()
                ? ledgers.offsetOf(range.upperEndpoint()) - (range.upperBoundType() == BoundType.OPEN ? 1 : 0)
                : lceOffset;
        lo = Math.max(lo, startOffset);
        hi = Math.min(hi, lceOffset);
        return lo > hi ? null : new long[] {lo, hi};
    }

    long numberOfEntries(Range<Position> range) {
        long[] r = offsetsOf(range);
        return r == null ? 0 : r[1] - r[0] + 1;
    }

    /** Entries not yet acknowledged when the slowest durable cursor has acknowledged all before {@code slowest}. */
    long activeEntries(long slowest) {
        return Math.max(0, lceOffset + 1 - Math.max(slowest, startOffset));
    }

    /** Readable entries after the one at offset {@code off}. */
    long entriesAfter(long off) {
        return Math.max(0, lceOffset - Math.max(off, startOffset - 1));
    }
}
