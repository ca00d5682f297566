package dev.lakestream.pulsar.cursor;

import com.google.common.collect.Range;
import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.lakestream.core.concurrent.Futures;
import dev.lakestream.core.cursor.AckRanges;
import dev.lakestream.core.cursor.DurableCursor;
import dev.lakestream.pulsar.common.Callbacks;
import dev.lakestream.pulsar.common.Errors;
import dev.lakestream.pulsar.common.Sync;
import dev.lakestream.pulsar.metrics.LakestreamManagedCursorMXBean;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.apache.bookkeeper.mledger.AsyncCallbacks.ClearBacklogCallback;
import org.apache.bookkeeper.mledger.AsyncCallbacks.CloseCallback;
import org.apache.bookkeeper.mledger.AsyncCallbacks.DeleteCallback;
import org.apache.bookkeeper.mledger.AsyncCallbacks.FindEntryCallback;
import org.apache.bookkeeper.mledger.AsyncCallbacks.MarkDeleteCallback;
import org.apache.bookkeeper.mledger.AsyncCallbacks.ReadEntriesCallback;
import org.apache.bookkeeper.mledger.AsyncCallbacks.ReadEntryCallback;
import org.apache.bookkeeper.mledger.AsyncCallbacks.ResetCursorCallback;
import org.apache.bookkeeper.mledger.AsyncCallbacks.SkipEntriesCallback;
import org.apache.bookkeeper.mledger.Entry;
import org.apache.bookkeeper.mledger.ManagedCursor;
import org.apache.bookkeeper.mledger.ManagedCursorMXBean;
import org.apache.bookkeeper.mledger.ManagedLedger;
import org.apache.bookkeeper.mledger.ManagedLedgerException;
import org.apache.bookkeeper.mledger.Position;
import org.apache.bookkeeper.mledger.PositionFactory;
import org.apache.bookkeeper.mledger.ScanOutcome;
import org.apache.pulsar.common.policies.data.ManagedLedgerInternalStats;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Pulsar cursor on a core {@link DurableCursor}: Pulsar's mark-delete position P (inclusive) is the core's
 * {@code ackedBefore = offset(P) + 1}; individual acks are the core's ack ranges; batch-index ack sets are kept in
 * the core cursor's properties ({@link BatchIndexAcks}). The read position lives in memory
 * ({@link CursorReadPosition}).
 *
 * <p>This class owns the state and answers Pulsar's API; the work is done by {@link CursorReader} (reads and the
 * waiting read), {@link CursorAcks} (mark-delete and acks), {@link CursorRepositioning} (seek, reset, skip, clear
 * backlog), {@link CursorProperties}, {@link CursorScan}, {@link CursorReplay} and {@link CursorInternalStats},
 * which see this cursor only through the narrow {@link CursorOwner} view.
 *
 * <p>Locks: this cursor's monitor guards the read position, the batch ack sets, the closed flag and the consumed
 * count. Only this class takes it (the only other monitor is a read request's own, for its completed flag); the parts
 * above keep {@code ...Locked} methods marked {@code @GuardedBy}, checked by Error Prone, which this class calls
 * holding it, directly or for a part's step through {@link CursorOwner}. It names the monitor as the part does
 * ({@code acks.monitor}: this cursor), since Error Prone matches a lock by the expression that names it. Never hold
 * it while calling into the ledger.
 */
public class LakestreamManagedCursor implements ManagedCursor {

    private static final Logger LOG = LoggerFactory.getLogger(LakestreamManagedCursor.class);

    private final CursorLedger ml;
    private final String name;
    private final DurableCursor dc;
    private final boolean durable;
    private final CursorAcks acks;
    private final CursorReader reader;
    private final CursorRepositioning moves;
    private final CursorProperties properties;
    private final ManagedCursorMXBean mxBean;

    @GuardedBy("this")
    private final BatchIndexAcks batchAcks;

    @GuardedBy("this")
    private final CursorReadPosition readPosition;

    @GuardedBy("this")
    private boolean closed;

    @GuardedBy("this")
    private long messagesConsumed;

    private volatile boolean active = true;
    private volatile boolean alwaysInactive;
    private volatile long lastActive = System.currentTimeMillis();
    private volatile double throttleMarkDelete;

    private final CursorOwner owner = new Owner();

    /** A cursor on {@code ml} over the core cursor {@code dc}; made by the ledger's cursor registry. */
    // The parts keep this cursor as their monitor only; none calls back during construction.
    @SuppressWarnings("this-escape")
    public LakestreamManagedCursor(CursorLedger ml, String name, DurableCursor dc, boolean durable) {
        this.ml = ml;
        this.name = name;
        this.dc = dc;
        this.durable = durable;
        this.readPosition = new CursorReadPosition(this, Math.max(dc.ackedBefore(), ml.startOffset()));
        this.batchAcks = new BatchIndexAcks(this, dc);
        this.acks = new CursorAcks(owner, this, ml, dc, batchAcks, readPosition);
        this.reader = new CursorReader(owner, ml);
        this.moves = new CursorRepositioning(owner, this, ml, dc, batchAcks, readPosition, acks, reader);
        this.properties = new CursorProperties(this, dc);
        this.mxBean = new LakestreamManagedCursorMXBean(name, ml.getName());
    }

    /** The first offset not acknowledged by the mark-delete (for the ledger's slowest-cursor questions). */
    public long ackedBefore() {
        return dc.ackedBefore();
    }

    // ------------------------------------------------------------------ identity

    @Override
    public String getName() {
        return name;
    }

    @Override
    public long getLastActive() {
        return lastActive;
    }

    @Override
    public void updateLastActive() {
        lastActive = System.currentTimeMillis();
    }

    @Override
    public boolean isDurable() {
        return durable;
    }

    @Override
    public synchronized boolean isClosed() {
        return closed;
    }

    ManagedLedgerException closedException() {
        return new ManagedLedgerException.CursorAlreadyClosedException("cursor " + name + " is closed");
    }

    /** Marks the cursor closed and fails its parked read (its cursor was deleted or its ledger closes). */
    public synchronized void markClosed() {
        closed = true;
        reader.failWaiting(new ManagedLedgerException.CursorAlreadyClosedException("cursor " + name + " was closed"));
    }

    @Override
    public void setActive() {
        if (!alwaysInactive) {
            active = true;
        }
    }

    @Override
    public void setInactive() {
        active = false;
    }

    @Override
    public void setAlwaysInactive() {
        alwaysInactive = true;
        active = false;
    }

    @Override
    public boolean isActive() {
        return active;
    }

    @Override
    public ManagedLedger getManagedLedger() {
        return ml.managedLedger();
    }

    @Override
    public double getThrottleMarkDelete() {
        return throttleMarkDelete;
    }

    @Override
    public void setThrottleMarkDelete(double throttleMarkDelete) {
        this.throttleMarkDelete = throttleMarkDelete;
    }

    // ------------------------------------------------------------------ properties

    @Override
    public Map<String, Long> getProperties() {
        return properties.positionProperties();
    }

    @Override
    public boolean putProperty(String key, Long value) {
        return properties.putPositionProperty(key, value);
    }

    @Override
    public boolean removeProperty(String key) {
        return properties.removePositionProperty(key);
    }

    @Override
    public Map<String, String> getCursorProperties() {
        return properties.cursorProperties();
    }

    @Override
    public CompletableFuture<Void> putCursorProperty(String key, String value) {
        synchronized (properties.monitor) {
            return properties.putCursorPropertyLocked(key, value);
        }
    }

    @Override
    public CompletableFuture<Void> setCursorProperties(Map<String, String> cursorProperties) {
        synchronized (properties.monitor) {
            return properties.setCursorPropertiesLocked(cursorProperties);
        }
    }

    @Override
    public CompletableFuture<Void> removeCursorProperty(String key) {
        synchronized (properties.monitor) {
            return properties.removeCursorPropertyLocked(key);
        }
    }

    // ------------------------------------------------------------------ reads

    synchronized long readOffset() {
        return readPosition.offset();
    }

    /** Whether an unacknowledged entry at or before {@code lce} lies at or after the read position. */
    public boolean hasEntriesBeyondRead(long lce) {
        return reader.hasEntriesBeyondRead(lce);
    }

    /** Entries were added: a parked read resumes. */
    public void notifyEntriesAvailable() {
        reader.notifyEntriesAvailable();
    }

    synchronized void countConsumed(int entries) {
        messagesConsumed += entries;
    }

    synchronized long messagesConsumed() {
        return messagesConsumed;
    }

    // The steps of the parts that need this cursor's monitor (see CursorOwner).

    private boolean failIfClosed(CursorReadRequest op) {
        synchronized (this) {
            if (closed) {
                op.fail(closedException());
                return true;
            }
            return false;
        }
    }

    private long beginRead(CursorReadRequest op, long start) {
        synchronized (this) {
            if (closed) {
                op.fail(closedException());
                return -1;
            }
            readPosition.atLeast(start);
            return readPosition.epoch();
        }
    }

    private void readUpTo(long next, long epoch) {
        synchronized (this) {
            readPosition.readUpTo(next, epoch);
        }
    }

    private boolean isAcked(long off) {
        synchronized (acks.monitor) {
            return acks.isAckedLocked(off);
        }
    }

    private long firstUnackedFrom(long offset) {
        synchronized (acks.monitor) {
            return acks.firstUnackedFromLocked(offset);
        }
    }

    private void keepPartlyAckedBatch(long off, long[] ackSet, Position position) {
        synchronized (acks.monitor) {
            acks.keepPartlyAckedBatchLocked(off, ackSet, position);
        }
    }

    private CursorAcks.MarkDeleteStep markDeleteTo(long off, Position position, Map<String, Long> properties) {
        synchronized (acks.monitor) {
            return acks.markDeleteToLocked(off, position, properties);
        }
    }

    private CompletableFuture<Void> ackEach(List<long[]> offs, List<long[]> sets, long lce) {
        synchronized (acks.monitor) {
            return acks.ackEachLocked(offs, sets, lce);
        }
    }

    private CompletableFuture<Void> resetTo(long off) {
        synchronized (moves.monitor) {
            return moves.resetToLocked(off);
        }
    }

    private CursorOwner.Counters counters() {
        synchronized (this) {
            return new CursorOwner.Counters(messagesConsumed, closed);
        }
    }

    private CursorReadRequest request(
            int n,
            long maxSizeBytes,
            ReadEntriesCallback cb,
            Object ctx,
            Position maxPosition,
            Predicate<Position> skipCondition,
            boolean wait) {
        return new CursorReadRequest(owner, ml, n, maxSizeBytes, cb, ctx, maxPosition, skipCondition, wait);
    }

    @Override
    public List<Entry> readEntries(int numberOfEntriesToRead) throws InterruptedException, ManagedLedgerException {
        CompletableFuture<List<Entry>> f = new CompletableFuture<>();
        asyncReadEntries(numberOfEntriesToRead, CursorCallbacks.completing(f), null, PositionFactory.LATEST);
        return Sync.await(f);
    }

    @Override
    public void asyncReadEntries(int n, ReadEntriesCallback cb, Object ctx, Position maxPosition) {
        asyncReadEntries(n, -1, cb, ctx, maxPosition);
    }

    @Override
    public void asyncReadEntries(int n, long maxSizeBytes, ReadEntriesCallback cb, Object ctx, Position maxPosition) {
        reader.start(request(n, maxSizeBytes, cb, ctx, maxPosition, null, false));
    }

    @Override
    public void asyncReadEntriesWithSkip(
            int n,
            long maxSizeBytes,
            ReadEntriesCallback cb,
            Object ctx,
            Position maxPosition,
            Predicate<Position> skipCondition) {
        reader.start(request(n, maxSizeBytes, cb, ctx, maxPosition, skipCondition, false));
    }

    @Override
    public List<Entry> readEntriesOrWait(int n) throws InterruptedException, ManagedLedgerException {
        return readEntriesOrWait(n, -1);
    }

    @Override
    public List<Entry> readEntriesOrWait(int n, long maxSizeBytes) throws InterruptedException, ManagedLedgerException {
        CompletableFuture<List<Entry>> f = new CompletableFuture<>();
        asyncReadEntriesOrWait(n, maxSizeBytes, CursorCallbacks.completing(f), null, PositionFactory.LATEST);
        try {
            return f.get();
        } catch (java.util.concurrent.ExecutionException e) {
            throw Errors.toMl(e.getCause());
        }
    }

    @Override
    public void asyncReadEntriesOrWait(int n, ReadEntriesCallback cb, Object ctx, Position maxPosition) {
        asyncReadEntriesOrWait(n, -1, cb, ctx, maxPosition);
    }

    @Override
    public void asyncReadEntriesOrWait(
            int n, long maxSizeBytes, ReadEntriesCallback cb, Object ctx, Position maxPosition) {
        reader.start(request(n, maxSizeBytes, cb, ctx, maxPosition, null, true));
    }

    @Override
    public void asyncReadEntriesWithSkipOrWait(
            int n, ReadEntriesCallback cb, Object ctx, Position maxPosition, Predicate<Position> skipCondition) {
        asyncReadEntriesWithSkipOrWait(n, -1, cb, ctx, maxPosition, skipCondition);
    }

    @Override
    public void asyncReadEntriesWithSkipOrWait(
            int n,
            long maxSizeBytes,
            ReadEntriesCallback cb,
            Object ctx,
            Position maxPosition,
            Predicate<Position> skipCondition) {
        reader.start(request(n, maxSizeBytes, cb, ctx, maxPosition, skipCondition, true));
    }

    @Override
    public boolean cancelPendingReadRequest() {
        return reader.cancelWaiting();
    }

    @Override
    public boolean hasMoreEntries() {
        return firstUnackedFrom(readOffset()) <= ml.lceOffset();
    }

    @Override
    public void scheduleReadCallback(Runnable runnable, long delay, TimeUnit unit) {
        ml.schedule(runnable, delay, unit);
    }

    // ------------------------------------------------------------------ counts

    private long unackedIn(long from, long toInclusive) {
        if (from > toInclusive) {
            return 0;
        }
        long n = toInclusive - from + 1 - dc.individuallyAckedIn(from, toInclusive + 1);
        return Math.max(0, n);
    }

    @Override
    public long getNumberOfEntries() {
        long lce = ml.lceOffset();
        return unackedIn(Math.max(readOffset(), ml.startOffset()), lce);
    }

    @Override
    public long getNumberOfEntriesInBacklog(boolean isPrecise) {
        long lce = ml.lceOffset();
        return unackedIn(Math.max(dc.ackedBefore(), ml.startOffset()), lce);
    }

    @Override
    public long getNumberOfEntriesSinceFirstNotAckedMessage() {
        return Math.max(0, readOffset() - dc.ackedBefore());
    }

    @Override
    public int getTotalNonContiguousDeletedMessagesRange() {
        return dc.state().individuallyAcked().rangeCount();
    }

    @Override
    public int getNonContiguousDeletedMessagesRangeSerializedSize() {
        return getTotalNonContiguousDeletedMessagesRange() * 16;
    }

    @Override
    public long getEstimatedSizeSinceMarkDeletePosition() {
        return getNumberOfEntriesInBacklog(false) * ml.averageEntrySize();
    }

    @Override
    public int applyMaxSizeCap(int maxEntries, long maxSizeBytes) {
        if (maxSizeBytes <= 0) {
            return maxEntries;
        }
        long avg = ml.averageEntrySize();
        return (int) Math.max(1, Math.min(maxEntries, maxSizeBytes / Math.max(1, avg)));
    }

    @Override
    public void updateReadStats(int readEntriesCount, long readEntriesSize) {}

    // ------------------------------------------------------------------ acks

    @Override
    public void markDelete(Position position) throws InterruptedException, ManagedLedgerException {
        markDelete(position, Collections.emptyMap());
    }

    @Override
    public void markDelete(Position position, Map<String, Long> properties)
            throws InterruptedException, ManagedLedgerException {
        Sync.await(markDeleteAsync(position, properties));
    }

    @Override
    public void asyncMarkDelete(Position position, MarkDeleteCallback cb, Object ctx) {
        asyncMarkDelete(position, Collections.emptyMap(), cb, ctx);
    }

    @Override
    public void asyncMarkDelete(Position position, Map<String, Long> properties, MarkDeleteCallback cb, Object ctx) {
        Callbacks.deliver(
                markDeleteAsync(position, properties),
                ml.executor(),
                v -> cb.markDeleteComplete(ctx),
                e -> cb.markDeleteFailed(e, ctx));
    }

    CompletableFuture<Void> markDeleteAsync(Position position, Map<String, Long> properties) {
        return acks.markDelete(position, properties);
    }

    @Override
    public void delete(Position position) throws InterruptedException, ManagedLedgerException {
        delete(List.of(position));
    }

    @Override
    public void asyncDelete(Position position, DeleteCallback cb, Object ctx) {
        asyncDelete(List.of(position), cb, ctx);
    }

    @Override
    public void delete(Iterable<Position> positions) throws InterruptedException, ManagedLedgerException {
        Sync.await(deleteAsync(positions));
    }

    @Override
    public void asyncDelete(Iterable<Position> positions, DeleteCallback cb, Object ctx) {
        Callbacks.deliver(
                deleteAsync(positions), ml.executor(), v -> cb.deleteComplete(ctx), e -> cb.deleteFailed(e, ctx));
    }

    CompletableFuture<Void> deleteAsync(Iterable<Position> positions) {
        return acks.delete(positions);
    }

    @Override
    public boolean isMessageDeleted(Position position) {
        return isAcked(ml.offsetOf(position));
    }

    @Override
    public long[] getDeletedBatchIndexesAsLongArray(Position position) {
        long off = ml.offsetOf(position);
        synchronized (acks.monitor) {
            return acks.batchAckSetLocked(off);
        }
    }

    @Override
    public long[] getBatchPositionAckSet(Position position) {
        return getDeletedBatchIndexesAsLongArray(position);
    }

    @Override
    public Range<Position> getLastIndividualDeletedRange() {
        AckRanges r = dc.state().individuallyAcked();
        List<long[]> list = r.toList();
        if (list.isEmpty()) {
            return null;
        }
        long[] last = list.get(list.size() - 1);
        return Range.openClosed(ml.positionOf(last[0] - 1), ml.positionOf(last[1] - 1));
    }

    @Override
    public void trimDeletedEntries(List<Entry> entries) {
        entries.removeIf(e -> {
            boolean deleted = isMessageDeleted(e.getPosition());
            if (deleted) {
                e.release();
            }
            return deleted;
        });
    }

    // ------------------------------------------------------------------ positions

    @Override
    public Position getReadPosition() {
        return ml.positionOf(Math.max(readOffset(), ml.startOffset()));
    }

    @Override
    public Position getMarkDeletedPosition() {
        return ml.positionOf(Math.max(dc.ackedBefore(), ml.startOffset()) - 1);
    }

    @Override
    public Position getPersistentMarkDeletedPosition() {
        return getMarkDeletedPosition();
    }

    @Override
    public Position getFirstPosition() {
        return ml.getFirstPosition();
    }

    @Override
    public synchronized boolean checkAndUpdateReadPositionChanged() {
        return readPosition.takeChanged();
    }

    // ------------------------------------------------------------------ moves

    @Override
    public void rewind() {
        synchronized (moves.monitor) {
            moves.rewindLocked();
        }
    }

    @Override
    public void rewind(boolean readCompacted) {
        rewind();
    }

    @Override
    public void seek(Position newReadPosition, boolean force) {
        long off = ml.offsetOf(newReadPosition);
        synchronized (moves.monitor) {
            moves.seekLocked(off, force);
        }
    }

    @Override
    public void resetCursor(Position position) throws InterruptedException, ManagedLedgerException {
        Sync.await(moves.reset(position, false));
    }

    @Override
    public void asyncResetCursor(Position position, boolean forceReset, ResetCursorCallback cb) {
        Callbacks.deliver(
                moves.reset(position, forceReset),
                ml.executor(),
                v -> cb.resetComplete(position),
                e -> cb.resetFailed(e, position));
    }

    @Override
    public void clearBacklog() throws InterruptedException, ManagedLedgerException {
        Sync.await(moves.clearBacklog());
    }

    @Override
    public void asyncClearBacklog(ClearBacklogCallback cb, Object ctx) {
        Callbacks.deliver(
                moves.clearBacklog(),
                ml.executor(),
                v -> cb.clearBacklogComplete(ctx),
                e -> cb.clearBacklogFailed(e, ctx));
    }

    @Override
    public void skipEntries(int n, IndividualDeletedEntries deletedEntries)
            throws InterruptedException, ManagedLedgerException {
        Sync.await(moves.skip(n, deletedEntries));
    }

    @Override
    public void asyncSkipEntries(int n, IndividualDeletedEntries deletedEntries, SkipEntriesCallback cb, Object ctx) {
        Callbacks.deliver(
                moves.skip(n, deletedEntries),
                ml.executor(),
                v -> cb.skipEntriesComplete(ctx),
                e -> cb.skipEntriesFailed(e, ctx));
    }

    // ------------------------------------------------------------------ finding entries

    @Override
    public Entry getNthEntry(int n, IndividualDeletedEntries deletedEntries)
            throws InterruptedException, ManagedLedgerException {
        CompletableFuture<Entry> f = new CompletableFuture<>();
        asyncGetNthEntry(n, deletedEntries, CursorCallbacks.completingOne(f), null);
        return Sync.await(f);
    }

    @Override
    public void asyncGetNthEntry(int n, IndividualDeletedEntries deletedEntries, ReadEntryCallback cb, Object ctx) {
        long lce = ml.lceOffset();
        long off = moves.nthOffset(n, deletedEntries, lce);
        if (off < 0) {
            ml.executor().execute(() -> cb.readEntryComplete(null, ctx));
            return;
        }
        Callbacks.deliver(
                ml.readOne(off),
                ml.executor(),
                entry -> cb.readEntryComplete(entry, ctx),
                e -> cb.readEntryFailed(e, ctx));
    }

    @Override
    public Position findNewestMatching(Predicate<Entry> condition) throws InterruptedException, ManagedLedgerException {
        return findNewestMatching(FindPositionConstraint.SearchActiveEntries, condition);
    }

    @Override
    public Position findNewestMatching(FindPositionConstraint constraint, Predicate<Entry> condition)
            throws InterruptedException, ManagedLedgerException {
        CompletableFuture<Position> f = new CompletableFuture<>();
        asyncFindNewestMatching(constraint, condition, CursorCallbacks.completingFind(f), null);
        return Sync.await(f);
    }

    @Override
    public void asyncFindNewestMatching(
            FindPositionConstraint constraint, Predicate<Entry> condition, FindEntryCallback cb, Object ctx) {
        asyncFindNewestMatching(constraint, condition, null, null, cb, ctx, false);
    }

    @Override
    public void asyncFindNewestMatching(
            FindPositionConstraint constraint,
            Predicate<Entry> condition,
            FindEntryCallback cb,
            Object ctx,
            boolean isFindFromLedger) {
        asyncFindNewestMatching(constraint, condition, null, null, cb, ctx, isFindFromLedger);
    }

    @Override
    public void asyncFindNewestMatching(
            FindPositionConstraint constraint,
            Predicate<Entry> condition,
            Position startPosition,
            Position endPosition,
            FindEntryCallback cb,
            Object ctx,
            boolean isFindFromLedger) {
        long lo = constraint == FindPositionConstraint.SearchAllAvailableEntries
                ? ml.startOffset()
                : Math.max(dc.ackedBefore(), ml.startOffset());
        long hi = ml.lceOffset();
        if (startPosition != null) {
            lo = Math.max(lo, ml.offsetOf(startPosition));
        }
        if (endPosition != null) {
            hi = Math.min(hi, ml.offsetOf(endPosition));
        }
        Callbacks.deliver(
                Search.newestMatching(ml::readOne, condition, lo, hi),
                ml.executor(),
                found -> cb.findEntryComplete(found < 0 ? null : ml.positionOf(found), ctx),
                e -> cb.findEntryFailed(e, Optional.empty(), ctx));
    }

    /** The unacknowledged entries from {@code startingPosition} or the mark-delete: {@link CursorScan}. */
    @Override
    public CompletableFuture<ScanOutcome> scan(
            Optional<Position> startingPosition,
            Predicate<Entry> condition,
            int batchSize,
            long maxEntries,
            long timeOutMs) {
        long from = startingPosition.map(ml::offsetOf).orElseGet(this::ackedBefore);
        return new CursorScan(owner, ml, condition, batchSize, maxEntries, timeOutMs).start(from);
    }

    // ------------------------------------------------------------------ replay

    @Override
    public List<Entry> replayEntries(Set<? extends Position> positions)
            throws InterruptedException, ManagedLedgerException {
        CompletableFuture<List<Entry>> f = new CompletableFuture<>();
        asyncReplayEntries(positions, CursorCallbacks.completing(f), null);
        return Sync.await(f);
    }

    @Override
    public Set<? extends Position> asyncReplayEntries(
            Set<? extends Position> positions, ReadEntriesCallback cb, Object ctx) {
        return asyncReplayEntries(positions, cb, ctx, false);
    }

    @Override
    public Set<? extends Position> asyncReplayEntries(
            Set<? extends Position> positions, ReadEntriesCallback cb, Object ctx, boolean sortEntries) {
        return CursorReplay.replay(owner, ml, positions, cb, ctx, sortEntries);
    }

    // ------------------------------------------------------------------ close

    @Override
    public void close() throws InterruptedException, ManagedLedgerException {
        Sync.await(closeAsync());
    }

    @Override
    public void asyncClose(CloseCallback cb, Object ctx) {
        Callbacks.deliver(closeAsync(), ml.executor(), v -> cb.closeComplete(ctx), e -> cb.closeFailed(e, ctx));
    }

    /** Closes the cursor: no longer waiting, flushed; completes when its state is stored. */
    public CompletableFuture<Void> closeAsync() {
        markClosed();
        ml.removeWaiting(this);
        if (!durable) {
            ml.removeNonDurable(this);
        }
        return dc.close();
    }

    @Override
    public ManagedCursor duplicateNonDurableCursor(String nonDurableCursorName) throws ManagedLedgerException {
        ManagedCursor c = ml.newNonDurableCursor(getMarkDeletedPosition(), nonDurableCursorName);
        List<Position> acked = new ArrayList<>();
        for (long[] r : dc.state().individuallyAcked().toList()) {
            for (long o = r[0]; o < r[1] && acked.size() < 100_000; o++) {
                acked.add(ml.positionOf(o));
            }
        }
        if (!acked.isEmpty()) {
            // Pulsar's call is synchronous and the copy is in memory only: a failure to copy the acks is logged.
            Futures.logFailure(
                    ((LakestreamManagedCursor) c).deleteAsync(acked),
                    LOG,
                    "copying the individual acks of cursor " + name + " to " + nonDurableCursorName);
        }
        return c;
    }

    // ------------------------------------------------------------------ stats

    @Override
    public ManagedLedgerInternalStats.CursorStats getCursorStats() {
        return CursorInternalStats.of(owner, reader, dc, ml);
    }

    @Override
    public ManagedCursorMXBean getStats() {
        return mxBean;
    }

    @Override
    public String toString() {
        return "LakestreamManagedCursor{" + ml.getName() + "/" + name + "}";
    }

    /**
     * What this cursor's parts see of it ({@link CursorOwner}): each member delegates here, and the monitor is this
     * cursor's own. A private class rather than the cursor implementing the view, so that none of these members joins
     * the cursor's public API.
     */
    private final class Owner implements CursorOwner {

        @Override
        public String name() {
            return name;
        }

        @Override
        public boolean isClosed() {
            return LakestreamManagedCursor.this.isClosed();
        }

        @Override
        public ManagedLedgerException closedException() {
            return LakestreamManagedCursor.this.closedException();
        }

        @Override
        public long readOffset() {
            return LakestreamManagedCursor.this.readOffset();
        }

        @Override
        public void countConsumed(int entries) {
            LakestreamManagedCursor.this.countConsumed(entries);
        }

        @Override
        public long messagesConsumed() {
            return LakestreamManagedCursor.this.messagesConsumed();
        }

        @Override
        public boolean isMessageDeleted(Position position) {
            return LakestreamManagedCursor.this.isMessageDeleted(position);
        }

        @Override
        public Position readPosition() {
            return getReadPosition();
        }

        @Override
        public Position markDeletedPosition() {
            return getMarkDeletedPosition();
        }

        @Override
        public boolean isActive() {
            return LakestreamManagedCursor.this.isActive();
        }

        @Override
        public long entriesSinceFirstNotAcked() {
            return getNumberOfEntriesSinceFirstNotAckedMessage();
        }

        @Override
        public void waitForEntries() {
            ml.addWaiting(LakestreamManagedCursor.this);
        }

        @Override
        public void stopWaitingForEntries() {
            ml.removeWaiting(LakestreamManagedCursor.this);
        }

        @Override
        public boolean failIfClosed(CursorReadRequest op) {
            return LakestreamManagedCursor.this.failIfClosed(op);
        }

        @Override
        public long beginRead(CursorReadRequest op, long start) {
            return LakestreamManagedCursor.this.beginRead(op, start);
        }

        @Override
        public void readUpTo(long next, long epoch) {
            LakestreamManagedCursor.this.readUpTo(next, epoch);
        }

        @Override
        public boolean isAcked(long off) {
            return LakestreamManagedCursor.this.isAcked(off);
        }

        @Override
        public long firstUnackedFrom(long offset) {
            return LakestreamManagedCursor.this.firstUnackedFrom(offset);
        }

        @Override
        public void keepPartlyAckedBatch(long off, long[] ackSet, Position position) {
            LakestreamManagedCursor.this.keepPartlyAckedBatch(off, ackSet, position);
        }

        @Override
        public CursorAcks.MarkDeleteStep markDeleteTo(long off, Position position, Map<String, Long> properties) {
            return LakestreamManagedCursor.this.markDeleteTo(off, position, properties);
        }

        @Override
        public CompletableFuture<Void> ackEach(List<long[]> offs, List<long[]> sets, long lce) {
            return LakestreamManagedCursor.this.ackEach(offs, sets, lce);
        }

        @Override
        public CompletableFuture<Void> resetTo(long off) {
            return LakestreamManagedCursor.this.resetTo(off);
        }

        @Override
        public CursorOwner.Counters counters() {
            return LakestreamManagedCursor.this.counters();
        }
    }
}
