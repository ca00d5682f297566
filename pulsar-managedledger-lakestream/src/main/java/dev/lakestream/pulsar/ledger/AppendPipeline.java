package dev.lakestream.pulsar.ledger;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.lakestream.core.log.AppendResult;
import dev.lakestream.core.log.StreamFencedException;
import dev.lakestream.pulsar.common.Errors;
import dev.lakestream.pulsar.common.ManagedLedgerRecord;
import dev.lakestream.pulsar.common.VirtualLedgers;
import io.netty.buffer.ByteBuf;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.apache.bookkeeper.mledger.AsyncCallbacks.AddEntryCallback;
import org.apache.bookkeeper.mledger.ManagedLedgerConfig;
import org.apache.bookkeeper.mledger.ManagedLedgerException;
import org.apache.bookkeeper.mledger.Position;
import org.apache.bookkeeper.mledger.PositionFactory;
import org.apache.bookkeeper.mledger.intercept.ManagedLedgerInterceptor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The write path of a managed ledger: places each add in the current virtual ledger, appends it to
 * the stream, completes adds in add order and rolls to a new ledger when the current one is full.
 *
 * <p>It has no lock of its own and takes none: its queues and counters change together with the ledger's state and
 * confirmed tail, so they are guarded by the ledger's state lock ({@link #state}), marked {@code @GuardedBy}. Methods
 * named {@code ...Locked} are called holding it: by {@link LakestreamManagedLedger}, which takes it for each entry
 * point, and for the continuations of appends and rollovers, which come back through {@link LedgerView}
 * ({@link LedgerView#appended}, {@link LedgerView#ledgerIdDrawn}, {@link LedgerView#rolloverDone}). Callbacks run on
 * the ledger's executor, never under the lock, and complete in add order.
 */
final class AppendPipeline {

    // The ledger's logger, so log configuration for the ledger still covers its write path.
    private static final Logger LOG = LoggerFactory.getLogger(LedgerView.LOGGER);

    private final LedgerView ledger;

    /**
     * The ledger's state, whose monitor guards the fields below. The ledger takes it as {@code appends.state} to call
     * the {@code ...Locked} methods: Error Prone matches a lock by the expression that names it.
     */
    final LedgerState state;

    @GuardedBy("state")
    private long nextOffset;

    @GuardedBy("state")
    private boolean switching;

    @GuardedBy("state")
    private boolean needNewLedger;

    @GuardedBy("state")
    private long currentLedgerCreatedAt;

    @GuardedBy("state")
    private long assignedEntries;

    @GuardedBy("state")
    private long assignedBytes;

    @GuardedBy("state")
    private final ArrayDeque<AddOp> inflight = new ArrayDeque<>();

    @GuardedBy("state")
    private final ArrayDeque<AddOp> unsent = new ArrayDeque<>();

    @GuardedBy("state")
    private final List<Runnable> onDrained = new ArrayList<>();

    /**
     * Appends handed to the stream whose outcome the stream has not given yet, failed adds included: a failed add's
     * successors are failed at once, but their appends may still be stored and committed afterwards.
     */
    @GuardedBy("state")
    private int unsettledAppends;

    @GuardedBy("state")
    private final List<CompletableFuture<Void>> settleWaiters = new ArrayList<>();

    @GuardedBy("state")
    private long entriesAddedCounter;

    private volatile long lastAddEntryTime;

    AppendPipeline(LedgerView ledger, long nextOffset, long now) {
        this.ledger = ledger;
        this.state = ledger.state();
        this.nextOffset = nextOffset;
        this.currentLedgerCreatedAt = now;
    }

    /** A new add of {@code buffer} (retained until the add completes), not queued yet. */
    static AddOp newAdd(ByteBuf buffer, int numberOfMessages, AddEntryCallback cb, Object ctx) {
        buffer.retain();
        return new AddOp(buffer, numberOfMessages, cb, ctx);
    }

    /** Queues {@code op} and sends what may be sent; returns why the add is refused instead (then it is not queued). */
    @GuardedBy("state")
    ManagedLedgerException addLocked(AddOp op) {
        ManagedLedgerException refused = ledger.writeRefusal();
        if (refused == null) {
            unsent.add(op);
            sendQueuedLocked();
        }
        return refused;
    }

    /** Fails an add {@link #addLocked} refused; called without the lock. */
    void refuse(AddOp op, ManagedLedgerException refused) {
        ledger.mbean().recordAddEntryError();
        op.failOn(ledger.executor(), () -> refused);
    }

    @GuardedBy("state")
    private boolean currentLedgerFullLocked() {
        if (needNewLedger || state.ledgersLocked().current() == null) {
            return true;
        }
        ManagedLedgerConfig config = ledger.config();
        long t = ledger.now();
        boolean space = assignedEntries >= config.getMaxEntriesPerLedger()
                || assignedBytes >= (long) config.getMaxSizePerLedgerMb() * LedgerView.MB;
        boolean time = assignedEntries > 0 && t - currentLedgerCreatedAt >= config.getMaximumRolloverTimeMs();
        if (!space && !time) {
            return false;
        }
        return config.getMinimumRolloverTimeMs() <= 0
                || t - currentLedgerCreatedAt >= config.getMinimumRolloverTimeMs();
    }

    @GuardedBy("state")
    private void sendQueuedLocked() {
        while (!unsent.isEmpty() && state.is(LedgerState.Phase.OPEN) && !switching) {
            if (currentLedgerFullLocked()) {
                startRolloverLocked(null);
                return;
            }
            AddOp op = unsent.poll();
            sendLocked(op);
            if (currentLedgerFullLocked() && !needNewLedger) {
                // Roll now, as BookKeeper-backed ledgers do when a ledger fills, and hold this entry's completion
                // until the next ledger is durable so callers see the new ledger when they are told.
                op.holdUntilRolled = true;
                startRolloverLocked(null);
                return;
            }
        }
    }

    /** Fails an add whose interceptor threw before it was sent; it completes in add order like any other. */
    @GuardedBy("state")
    private void failBeforeSendLocked(AddOp op, String step, Throwable t) {
        LOG.warn("[{}] interceptor {} failed", ledger.name(), step, t);
        op.done = true;
        op.error = new ManagedLedgerException.ManagedLedgerInterceptException(t);
        op.offset = -1;
        inflight.add(op);
        drainLocked();
    }

    @GuardedBy("state")
    private void sendLocked(AddOp op) {
        ManagedLedgerInterceptor interceptor = ledger.config().getManagedLedgerInterceptor();
        if (interceptor != null) {
            try {
                interceptor.beforeAddEntry(op, op.numberOfMessages);
            } catch (Throwable t) {
                failBeforeSendLocked(op, "beforeAddEntry", t);
                return;
            }
        }
        ByteBuf stored = op.data;
        if (interceptor != null) {
            // Payload processors (brokerEntryPayloadProcessors) transform what is stored; the callback still gets
            // the entry as added, as with Pulsar's own managed ledger.
            try {
                op.payload = interceptor.processPayloadBeforeLedgerWrite(op.ctx, op.data);
            } catch (Throwable t) {
                // Never store the unprocessed payload in its place (a processor may encrypt or compress).
                failBeforeSendLocked(op, "processPayloadBeforeLedgerWrite", t);
                return;
            }
            if (op.payload != null && op.payload.getProcessedPayload() != null) {
                stored = op.payload.getProcessedPayload();
            }
        }
        VirtualLedgers.Ledger cur = state.ledgersLocked().current();
        op.offset = nextOffset++;
        op.ledgerId = cur.id();
        op.entryId = op.offset - cur.firstOffset();
        op.size = stored.readableBytes();
        assignedEntries++;
        assignedBytes += op.size;
        inflight.add(op);
        unsettledAppends++;
        CompletableFuture<AppendResult> f;
        try {
            f = ledger.stream().append(1, stored);
        } catch (Throwable t) {
            f = CompletableFuture.failedFuture(t);
        }
        // appendedLocked (through the ledger, which takes the lock) settles the add either way.
        var unused = f.whenComplete((r, e) -> ledger.appended(op, r, e));
    }

    /** The stream answered the append of {@code op}: {@code r}, or failure {@code e}. */
    @GuardedBy("state")
    void appendedLocked(AddOp op, AppendResult r, Throwable e) {
        if (--unsettledAppends == 0 && !settleWaiters.isEmpty()) {
            List<CompletableFuture<Void>> ws = new ArrayList<>(settleWaiters);
            settleWaiters.clear();
            ws.forEach(w -> ledger.executor().execute(() -> w.complete(null)));
        }
        if (op.finished) {
            return;
        }
        op.done = true;
        if (e != null) {
            op.error = e;
        } else if (r.offset() != op.offset) {
            op.error = new StreamFencedException("stream " + ledger.stream().id() + " of managed ledger "
                    + ledger.name() + " got entry at offset " + r.offset() + ", expected " + op.offset
                    + ": another writer's records lie before it (a live writer's, or the void commits of an owner that"
                    + " lost the stream); the ledger is fenced, and opened again starts after them");
        }
        drainLocked();
    }

    /** Completes finished adds in order; called under the lock. */
    @GuardedBy("state")
    private void drainLocked() {
        boolean advanced = false;
        while (!inflight.isEmpty()) {
            AddOp head = inflight.peek();
            if (!head.done || (head.holdUntilRolled && switching && head.error == null)) {
                break;
            }
            inflight.poll();
            if (head.error != null) {
                failAllLocked(head, head.error);
                break;
            }
            head.finished = true;
            Position pos = PositionFactory.create(head.ledgerId, head.entryId);
            state.confirm(head.offset, head.size, pos);
            entriesAddedCounter++;
            lastAddEntryTime = System.currentTimeMillis();
            ledger.mbean().recordAdd(head.size);
            advanced = true;
            head.completeOn(ledger.executor(), pos);
        }
        if (advanced) {
            ledger.cursors().notifyWaiting();
        }
        if (inflight.isEmpty() && !onDrained.isEmpty()) {
            runOnDrainedLocked();
        }
    }

    @GuardedBy("state")
    private void runOnDrainedLocked() {
        List<Runnable> rs = new ArrayList<>(onDrained);
        onDrained.clear();
        rs.forEach(ledger.executor()::execute);
    }

    @GuardedBy("state")
    private void failAllLocked(AddOp first, Throwable cause) {
        Throwable c = Errors.unwrap(cause);
        ManagedLedgerException mle = Errors.toMl(c);
        if (mle instanceof ManagedLedgerException.ManagedLedgerFencedException) {
            // A closed or deleted ledger stays so: the fence only matters to a ledger that may still write.
            if (!state.isClosedOrDeleted()) {
                state.fence();
            }
        } else if (state.is(LedgerState.Phase.OPEN)
                && !(mle instanceof ManagedLedgerException.ManagedLedgerInterceptException)) {
            state.writeFailed();
        }
        List<AddOp> failed = new ArrayList<>();
        failed.add(first);
        failed.addAll(inflight);
        failed.addAll(unsent);
        inflight.clear();
        unsent.clear();
        ManagedLedgerInterceptor interceptor = ledger.config().getManagedLedgerInterceptor();
        String name = ledger.name();
        for (AddOp op : failed) {
            op.finished = true;
            ledger.mbean().recordAddEntryError();
            if (interceptor != null && op.offset >= 0) {
                try {
                    interceptor.afterFailedAddEntry(op.numberOfMessages);
                } catch (Throwable t) {
                    LOG.warn("[{}] interceptor afterFailedAddEntry failed", name, t);
                }
            }
            op.failOn(ledger.executor(), () -> answerFor(op == first, mle, c));
        }
        if (!onDrained.isEmpty()) {
            runOnDrainedLocked();
        }
        LOG.warn("[{}] add failed; state {}: {}", name, state.phase(), mle.getMessage());
    }

    /**
     * What a failed add (or one queued behind it) answers. A ledger fenced by another owner says so; every other
     * failure is a {@link WriteFailedException}, so Pulsar closes the topic and loads it again instead of resuming it
     * (see there why).
     */
    private ManagedLedgerException answerFor(boolean first, ManagedLedgerException failure, Throwable cause) {
        if (failure instanceof ManagedLedgerException.ManagedLedgerFencedException) {
            return first ? failure : new ManagedLedgerException.ManagedLedgerFencedException(failure.getMessage());
        }
        String message = first
                ? failure.getMessage()
                : "an earlier add to " + ledger.name() + " failed: " + failure.getMessage();
        return new WriteFailedException(message, cause);
    }

    /** Draws a new ledger id, rolls, persists; sends what queued meanwhile. Called under the lock. */
    @GuardedBy("state")
    private void startRolloverLocked(CompletableFuture<Void> done) {
        switching = true;
        boolean resync = needNewLedger;
        LedgerServices services = ledger.services();
        // After a failed write, wait until the stream has answered every append handed to it (some of the failed
        // adds may still land): the next ledger starts after all of them.
        CompletableFuture<Long> endF = resync
                ? appendsSettledLocked().thenCompose(v -> ledger.stream().endOffset())
                : CompletableFuture.completedFuture(-1L);
        // the callback handles both outcomes: logs and fails the adds, or sends the queued ones.
        var unused = endF.thenCompose(
                        end -> ManagedLedgerRecord.newLedgerId(services.metadataStore(), services.metadataRoot())
                                .thenCompose(id -> {
                                    ledger.ledgerIdDrawn(end, id);
                                    return ledger.updateRecord(state::copyLedgersInto);
                                }))
                .whenComplete((v, e) -> {
                    ledger.rolloverDone(e);
                    if (done != null) {
                        if (e != null) {
                            done.completeExceptionally(e);
                        } else {
                            done.complete(null);
                        }
                    }
                });
    }

    /**
     * A rollover drew ledger id {@code id}; {@code end} is the stream's end when the rollover follows a failed write
     * (else -1): the new virtual ledger starts there.
     */
    @GuardedBy("state")
    void ledgerIdDrawnLocked(long end, long id) {
        if (end >= 0 && end > nextOffset) {
            // Failed adds that landed all the same: they belong to the previous ledger.
            nextOffset = end;
            state.confirmLanded(end);
        } else if (end >= 0 && end < nextOffset) {
            // Failed adds that never landed took offsets the stream never used: the next
            // ledger starts where the stream really ends, or its first add would find its
            // entry elsewhere and fence the ledger, and the ledger recorded past the end
            // would be dropped at the next open, taking cursors positioned in it along.
            nextOffset = end;
        }
        state.roll(id, nextOffset, ledger.now());
    }

    /** The rollover ended: the new ledger is recorded, or the rollover failed with {@code e}. */
    @GuardedBy("state")
    void rolloverDoneLocked(Throwable e) {
        switching = false;
        if (e != null) {
            LOG.warn("[{}] ledger rollover failed", ledger.name(), e);
            if (!inflight.isEmpty() || !unsent.isEmpty()) {
                AddOp first = !inflight.isEmpty() ? inflight.poll() : unsent.poll();
                first.done = true;
                failAllLocked(first, e);
            } else if (state.is(LedgerState.Phase.OPEN)) {
                if (Errors.toMl(e) instanceof ManagedLedgerException.ManagedLedgerFencedException) {
                    state.fence();
                } else {
                    state.writeFailed();
                }
            }
        } else {
            needNewLedger = false;
            currentLedgerCreatedAt = ledger.now();
            assignedEntries = 0;
            assignedBytes = 0;
            drainLocked();
            sendQueuedLocked();
        }
    }

    /**
     * Creates the first ledger of this session (at open): the ledger every position written now lives in; {@code
     * done} completes when it is recorded. False when the ledger does not write (then {@code done} is left alone).
     */
    @GuardedBy("state")
    boolean initializeForWritingLocked(CompletableFuture<Void> done) {
        if (!state.is(LedgerState.Phase.OPEN)) {
            return false;
        }
        needNewLedger = true;
        startRolloverLocked(done);
        return true;
    }

    /** After a failed write: the next add goes to a new ledger, at the stream's real end. */
    @GuardedBy("state")
    void readyToCreateNewLedgerLocked() {
        if (state.is(LedgerState.Phase.WRITE_FAILED)) {
            state.reopenForWrite();
            needNewLedger = true;
            sendQueuedLocked();
        }
    }

    @GuardedBy("state")
    void rollCurrentLedgerIfFullLocked() {
        if (state.is(LedgerState.Phase.OPEN) && !switching && assignedEntries > 0 && currentLedgerFullLocked()) {
            startRolloverLocked(null);
        }
    }

    @GuardedBy("state")
    boolean checkInactiveLedgerAndRollOverLocked() {
        long inactive = ledger.config().getInactiveLedgerRollOverTimeMs();
        if (inactive > 0
                && state.is(LedgerState.Phase.OPEN)
                && !switching
                && assignedEntries > 0
                && inflight.isEmpty()
                && ledger.now() - lastAddEntryTime > inactive) {
            startRolloverLocked(null);
            return true;
        }
        return false;
    }

    /**
     * Fails the adds not sent yet (the ledger is terminating or closing) with the exception {@code error} makes when
     * their callback runs; adds already sent complete as the stream answers. Unsent adds hold no processed payload.
     */
    @GuardedBy("state")
    void failUnsentLocked(Supplier<ManagedLedgerException> error) {
        for (AddOp op : unsent) {
            op.finished = true;
            op.failOn(ledger.executor(), error);
        }
        unsent.clear();
    }

    /**
     * Completes once the stream has answered every append handed to it so far, those of adds already failed
     * included; called under the lock.
     */
    @GuardedBy("state")
    CompletableFuture<Void> appendsSettledLocked() {
        if (unsettledAppends == 0) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Void> w = new CompletableFuture<>();
        settleWaiters.add(w);
        return w;
    }

    /** Whether an add was sent and has not completed yet. */
    @GuardedBy("state")
    boolean hasInflightLocked() {
        return !inflight.isEmpty();
    }

    /** {@code r} runs on the executor when the adds in flight have all completed (or failed). */
    @GuardedBy("state")
    void onDrainedLocked(Runnable r) {
        onDrained.add(r);
    }

    @GuardedBy("state")
    int pendingAddsLocked() {
        return inflight.size() + unsent.size();
    }

    /** The write path's numbers in the internal stats, read together. */
    record Counters(long entriesAdded, long currentLedgerCreatedAt, int pendingAdds, boolean switching) {}

    @GuardedBy("state")
    Counters countersLocked() {
        return new Counters(entriesAddedCounter, currentLedgerCreatedAt, pendingAddsLocked(), switching);
    }

    long lastAddEntryTime() {
        return lastAddEntryTime;
    }
}
