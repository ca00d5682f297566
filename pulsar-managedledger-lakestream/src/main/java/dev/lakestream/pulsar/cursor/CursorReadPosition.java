package dev.lakestream.pulsar.cursor;

/**
 * Where a cursor reads next, as an offset. It lives in memory only: a reopened cursor reads from its mark-delete. The
 * epoch counts the moves (seek, rewind, reset) so that a read started before one does not drag the position along
 * when it completes; the changed flag answers Pulsar's {@code checkAndUpdateReadPositionChanged}.
 *
 * <p>Not thread-safe: guarded by the owning cursor's monitor, which every method expects held (the cursor moves the
 * read position in the same critical section as the acknowledgements it follows).
 */
final class CursorReadPosition {

    private final Object guard;
    private long offset;
    private long epoch;
    private boolean changed;

    /** {@code guard} is the owning cursor. */
    CursorReadPosition(Object guard, long offset) {
        this.guard = guard;
        this.offset = offset;
    }

    long offset() {
        assert Thread.holdsLock(guard);
        return offset;
    }

    long epoch() {
        assert Thread.holdsLock(guard);
        return epoch;
    }

    /** Raises the position to {@code floor} without flagging a change (entries below it are gone or acknowledged). */
    void atLeast(long floor) {
        assert Thread.holdsLock(guard);
        if (offset < floor) {
            offset = floor;
        }
    }

    /** Raises the position to {@code next}, flagging the change. */
    void advanceTo(long next) {
        assert Thread.holdsLock(guard);
        if (next > offset) {
            offset = next;
            changed = true;
        }
    }

    /** After a read started at {@code readEpoch}: raises the position past it unless the cursor moved meanwhile. */
    void readUpTo(long next, long readEpoch) {
        assert Thread.holdsLock(guard);
        if (epoch == readEpoch) {
            advanceTo(next);
        }
    }

    /** Moves the position anywhere (seek, rewind, reset), fencing off the reads in flight. */
    void moveTo(long off) {
        assert Thread.holdsLock(guard);
        offset = off;
        epoch++;
        changed = true;
    }

    /** Whether the position changed since the last call. */
    boolean takeChanged() {
        assert Thread.holdsLock(guard);
        boolean was = changed;
        changed = false;
        return was;
    }
}
