package dev.lakestream.pulsar.common;

import java.util.ArrayList;
import java.util.List;
import org.apache.bookkeeper.mledger.Position;
import org.apache.bookkeeper.mledger.PositionFactory;

/**
 * The virtual ledgers of one managed ledger: how Pulsar positions {@code (ledgerId, entryId)} map onto the dense
 * offsets of the Lakestream stream that holds its entries, one record per entry.
 *
 * <p>Ledgers are kept in id order; ids increase and first offsets never decrease. A ledger covers the offsets from
 * its first offset up to the next ledger's first offset (the last ledger: up to {@link #end()}). Several ledgers may
 * share a first offset when some are empty. {@code offset = ledger.firstOffset + entryId}.
 *
 * <p>Pure and not thread-safe: the managed ledger guards it with its lock.
 */
public final class VirtualLedgers {

    /** One virtual ledger. {@code size} and {@code timestamp} are fixed when it is closed (timestamp 0 while open). */
    public record Ledger(long id, long firstOffset, long size, long timestamp) {}

    private final List<Ledger> ledgers = new ArrayList<>();
    /** The confirmed end offset: entries of the last ledger are {@code [last.firstOffset, end)}. */
    private long end;
    /** Payload bytes of the last ledger's confirmed entries. */
    private long currentSize;

    public VirtualLedgers(List<Ledger> ledgers, long end) {
        long prevId = Long.MIN_VALUE;
        long prevFirst = Long.MIN_VALUE;
        for (Ledger l : ledgers) {
            if (l.id() < 0 || l.id() <= prevId || l.firstOffset() < prevFirst) {
                throw new IllegalArgumentException(
                        "ledgers must have increasing ids >= 0 and non-decreasing first" + " offsets: " + ledgers);
            }
            prevId = l.id();
            prevFirst = l.firstOffset();
        }
        this.ledgers.addAll(ledgers);
        this.end = end;
    }

    public List<Ledger> ledgers() {
        return List.copyOf(ledgers);
    }

    public boolean isEmpty() {
        return ledgers.isEmpty();
    }

    public Ledger current() {
        return ledgers.isEmpty() ? null : ledgers.get(ledgers.size() - 1);
    }

    public Ledger first() {
        return ledgers.isEmpty() ? null : ledgers.get(0);
    }

    public long end() {
        return end;
    }

    public long currentSize() {
        return currentSize;
    }

    /** The entry at {@code offset} (of {@code bytes} payload bytes) is confirmed: the end moves past it. */
    public void confirm(long offset, long bytes) {
        if (offset + 1 > end) {
            end = offset + 1;
        }
        int i = ledgerIndexOfOffset(offset);
        if (i < 0 || i == ledgers.size() - 1) {
            currentSize += bytes;
        } else {
            Ledger l = ledgers.get(i);
            ledgers.set(i, new Ledger(l.id(), l.firstOffset(), l.size() + bytes, l.timestamp()));
        }
    }

    private int ledgerIndexOfOffset(long offset) {
        if (ledgers.isEmpty() || offset < ledgers.get(0).firstOffset()) {
            return -1;
        }
        int lo = 0;
        int hi = ledgers.size() - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (ledgers.get(mid).firstOffset() <= offset) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }

    public void setCurrentSize(long size) {
        currentSize = size;
    }

    /** Entries of ledger {@code i}. */
    public long entries(int i) {
        Ledger l = ledgers.get(i);
        long to = i + 1 < ledgers.size() ? ledgers.get(i + 1).firstOffset() : Math.max(end, l.firstOffset());
        return to - l.firstOffset();
    }

    public long size(int i) {
        return i == ledgers.size() - 1 ? currentSize : ledgers.get(i).size();
    }

    public int indexOf(long ledgerId) {
        int lo = 0;
        int hi = ledgers.size() - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            long id = ledgers.get(mid).id();
            if (id == ledgerId) {
                return mid;
            } else if (id < ledgerId) {
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return -(lo + 1);
    }

    /**
     * Closes the current ledger (fixing its size and timestamp) and opens {@code newLedgerId} at {@code firstOffset}.
     * The previous last ledger is dropped when it holds no entries.
     */
    public Ledger roll(long newLedgerId, long firstOffset, long now) {
        Ledger cur = current();
        if (cur != null) {
            if (newLedgerId <= cur.id() || firstOffset < cur.firstOffset()) {
                throw new IllegalArgumentException(
                        "ledger " + newLedgerId + "@" + firstOffset + " cannot follow " + cur);
            }
            if (firstOffset == cur.firstOffset()) {
                ledgers.remove(ledgers.size() - 1);
            } else {
                ledgers.set(ledgers.size() - 1, new Ledger(cur.id(), cur.firstOffset(), currentSize, now));
            }
        }
        Ledger l = new Ledger(newLedgerId, firstOffset, 0, 0);
        ledgers.add(l);
        currentSize = 0;
        return l;
    }

    /** Offset of a position: {@code firstOffset + entryId}, clamped for positions outside the known ledgers. */
    public long offsetOf(long ledgerId, long entryId) {
        if (ledgers.isEmpty()) {
            return entryId < 0 ? -1 : entryId;
        }
        int i = indexOf(ledgerId);
        if (i >= 0) {
            Ledger l = ledgers.get(i);
            long off = l.firstOffset() + entryId;
            if (i + 1 < ledgers.size()) {
                off = Math.min(off, ledgers.get(i + 1).firstOffset());
            }
            return Math.max(off, l.firstOffset() - 1);
        }
        int next = -(i + 1);
        if (next >= ledgers.size()) {
            // A ledger after every known one (e.g. PositionFactory.LATEST): after everything.
            return Long.MAX_VALUE / 4;
        }
        // A ledger that no longer exists (trimmed or dropped empty): just before the next one.
        return ledgers.get(next).firstOffset() - 1;
    }

    public long offsetOf(Position p) {
        return offsetOf(p.getLedgerId(), p.getEntryId());
    }

    /** The position of an offset; an offset before the first ledger gives {@code (firstLedger, -1)}. */
    public Position positionOf(long offset) {
        if (ledgers.isEmpty()) {
            return PositionFactory.create(-1, -1);
        }
        Ledger first = ledgers.get(0);
        if (offset < first.firstOffset()) {
            return PositionFactory.create(first.id(), -1);
        }
        Ledger l = ledgers.get(ledgerIndexOfOffset(offset));
        return PositionFactory.create(l.id(), offset - l.firstOffset());
    }

    /** Removes the ledgers wholly below {@code offset}, never the current one; returns how many were removed. */
    public int removeBelow(long offset) {
        int n = 0;
        while (ledgers.size() > 1 && ledgers.get(1).firstOffset() <= offset) {
            ledgers.remove(0);
            n++;
        }
        return n;
    }

    @Override
    public String toString() {
        return "VirtualLedgers" + ledgers + " end=" + end;
    }
}
