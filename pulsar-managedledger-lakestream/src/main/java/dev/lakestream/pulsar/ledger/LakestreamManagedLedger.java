package dev.lakestream.pulsar.ledger;

import com.google.common.collect.Range;
import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.lakestream.core.StreamLog;
import dev.lakestream.core.log.AppendResult;
import dev.lakestream.core.log.LogEntry;
import dev.lakestream.pulsar.common.Callbacks;
import dev.lakestream.pulsar.common.Errors;
import dev.lakestream.pulsar.common.ManagedLedgerRecord;
import dev.lakestream.pulsar.common.Sync;
import dev.lakestream.pulsar.common.VirtualLedgers;
import dev.lakestream.pulsar.cursor.LakestreamManagedCursor;
import dev.lakestream.pulsar.metrics.LakestreamManagedLedgerMBean;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.apache.bookkeeper.mledger.AsyncCallbacks;
import org.apache.bookkeeper.mledger.AsyncCallbacks.AddEntryCallback;
import org.apache.bookkeeper.mledger.AsyncCallbacks.CloseCallback;
import org.apache.bookkeeper.mledger.AsyncCallbacks.DeleteCursorCallback;
import org.apache.bookkeeper.mledger.AsyncCallbacks.DeleteLedgerCallback;
import org.apache.bookkeeper.mledger.AsyncCallbacks.OpenCursorCallback;
import org.apache.bookkeeper.mledger.AsyncCallbacks.ReadEntryCallback;
import org.apache.bookkeeper.mledger.AsyncCallbacks.TerminateCallback;
import org.apache.bookkeeper.mledger.AsyncCallbacks.UpdatePropertiesCallback;
import org.apache.bookkeeper.mledger.Entry;
import org.apache.bookkeeper.mledger.ManagedCursor;
import org.apache.bookkeeper.mledger.ManagedLedger;
import org.apache.bookkeeper.mledger.ManagedLedgerConfig;
import org.apache.bookkeeper.mledger.ManagedLedgerException;
import org.apache.bookkeeper.mledger.ManagedLedgerMXBean;
import org.apache.bookkeeper.mledger.Position;
import org.apache.bookkeeper.mledger.PositionBound;
import org.apache.bookkeeper.mledger.intercept.ManagedLedgerInterceptor;
import org.apache.bookkeeper.mledger.proto.ManagedLedgerInfo.LedgerInfo;
import org.apache.pulsar.common.api.proto.CommandSubscribe.InitialPosition;
import org.apache.pulsar.common.policies.data.ManagedLedgerInternalStats;

/**
 * A Pulsar managed ledger on one Lakestream stream: each entry is one record, positions map to offsets through
 * {@link VirtualLedgers}, the metadata lives in a {@link ManagedLedgerRecord}. See docs/managed-ledger.md.
 *
 * <p>This class owns the ledger's state and answers the {@code ManagedLedger} API; its parts do the work:
 * {@link AppendPipeline} (adds, rollover), {@link ManagedLedgerRecordWriter} (metadata writes, properties),
 * {@link LedgerCursors}, {@link EntryReader}, {@link LedgerPositions}, {@link RetentionTrimmer},
 * {@link LedgerLifecycle} (terminate, close, delete), {@link InternalStatsSnapshot} and {@link BlockingCalls}. The parts see
 * the ledger only through {@link LedgerView} (or are handed {@link LedgerState} and what they need), never this class.
 *
 * <p>The state (phase, confirmed tail, start offset, virtual ledgers, record) has one owner, {@link LedgerState}, which
 * also states the threading rule: its monitor is the ledger's only lock, and only this class and {@link LedgerState}
 * take it. The parts take none; their lock-guarded fields and the {@code ...Locked} methods this class calls holding
 * the lock are marked {@code @GuardedBy}, checked by Error Prone. Callbacks run on the ledger's
 * {@link SerialExecutor}, never under the lock and never on a core or Netty thread.
 */
public class LakestreamManagedLedger implements ManagedLedger {

    private final LedgerServices services;
    private final String name;
    private final StreamLog stream;
    private volatile ManagedLedgerConfig config;
    private final SerialExecutor executor;
    private final boolean readOnly;
    private final LakestreamManagedLedgerMBean stats;
    private final LedgerState state;

    // --- the parts
    private final ManagedLedgerRecordWriter recordWriter;
    private final AppendPipeline appends;
    private final LedgerLifecycle lifecycle;
    private final LedgerCursors cursors;
    private final EntryReader reader;
    private final RetentionTrimmer trimmer;
    private final LedgerCursorView cursorView = new LedgerCursorView(this);
    private final LedgerView partsView = new PartsView();

    // The parts, the cursor view and the MBean only keep the reference; none calls back during construction.
    @SuppressWarnings("this-escape")
    public LakestreamManagedLedger(
            LedgerServices services,
            String name,
            StreamLog stream,
            ManagedLedgerConfig config,
            ManagedLedgerRecord record,
            VirtualLedgers ledgers,
            long startOffset,
            boolean readOnly) {
        this.services = services;
        this.name = name;
        this.stream = stream;
        this.config = config;
        this.state = new LedgerState(name, ledgers, startOffset, record.terminatedOffset != null);
        this.recordWriter = new ManagedLedgerRecordWriter(name, state, services, readOnly, record);
        this.readOnly = readOnly;
        this.executor = new SerialExecutor(services.pool());
        this.cursors = new LedgerCursors(partsView);
        this.reader = new EntryReader(partsView);
        this.trimmer = new RetentionTrimmer(partsView);
        this.stats = new LakestreamManagedLedgerMBean(this);
        this.appends = new AppendPipeline(partsView, ledgers.end(), now());
        this.lifecycle = new LedgerLifecycle(partsView, recordWriter);
    }

    /**
     * What this ledger's parts see of it ({@link LedgerView}): each member delegates here. A private class rather
     * than the ledger implementing the view, so that none of these members joins the ledger's public API.
     */
    private final class PartsView implements LedgerView {

        @Override
        public String name() {
            return name;
        }

        @Override
        public ManagedLedgerConfig config() {
            return config;
        }

        @Override
        public LedgerState state() {
            return state;
        }

        @Override
        public StreamLog stream() {
            return stream;
        }

        @Override
        public SerialExecutor executor() {
            return executor;
        }

        @Override
        public LedgerServices services() {
            return services;
        }

        @Override
        public LedgerCursors cursors() {
            return cursors;
        }

        @Override
        public LedgerCursorView cursorView() {
            return cursorView;
        }

        @Override
        public LakestreamManagedLedgerMBean mbean() {
            return stats;
        }

        @Override
        public boolean isReadOnly() {
            return readOnly;
        }

        @Override
        public long now() {
            return LakestreamManagedLedger.this.now();
        }

        @Override
        public ManagedLedgerException writeRefusal() {
            return LakestreamManagedLedger.this.writeRefusal();
        }

        @Override
        public void appended(AddOp op, AppendResult result, Throwable failure) {
            LakestreamManagedLedger.this.appended(op, result, failure);
        }

        @Override
        public void ledgerIdDrawn(long end, long id) {
            LakestreamManagedLedger.this.ledgerIdDrawn(end, id);
        }

        @Override
        public void rolloverDone(Throwable failure) {
            LakestreamManagedLedger.this.rolloverDone(failure);
        }

        @Override
        public void wakeAllWaiting() {
            LakestreamManagedLedger.this.wakeAllWaiting();
        }

        @Override
        public CompletableFuture<Void> updateRecord(Consumer<ManagedLedgerRecord> change) {
            return recordWriter.update(change);
        }

        @Override
        public void evictFromFactory() {
            services.evict().evict(name, LakestreamManagedLedger.this);
        }
    }

    /** The owner of this ledger's state and its only lock (see {@link LedgerState}). */
    LedgerState state() {
        return state;
    }

    LedgerServices services() {
        return services;
    }

    public StreamLog stream() {
        return stream;
    }

    SerialExecutor executor() {
        return executor;
    }

    LedgerCursors cursors() {
        return cursors;
    }

    /** The narrow view this ledger's cursors get of it. */
    LedgerCursorView cursorView() {
        return cursorView;
    }

    long now() {
        return config.getClock().millis();
    }

    // ------------------------------------------------------------------ positions

    long offsetOf(Position p) {
        return state.offsetOf(p);
    }

    public Position positionOf(long offset) {
        return state.positionOf(offset);
    }

    public long lceOffset() {
        return state.lceOffset();
    }

    boolean isReadOnly() {
        return readOnly;
    }

    public long startOffset() {
        return state.startOffset();
    }

    long averageEntrySize() {
        return state.averageEntrySize();
    }

    /**
     * Position arithmetic over the virtual ledgers and readable range as they are now; to use before the lock is let
     * go.
     */
    @GuardedBy("state")
    private LedgerPositions positionsLocked() {
        return new LedgerPositions(state.ledgersLocked(), state.startOffset(), state.lceOffset());
    }

    // ------------------------------------------------------------------ identity/config

    @Override
    public String getName() {
        return name;
    }

    @Override
    public ManagedLedgerConfig getConfig() {
        return config;
    }

    @Override
    public void setConfig(ManagedLedgerConfig config) {
        this.config = config;
    }

    @Override
    public Map<String, String> getProperties() {
        return recordWriter.properties();
    }

    @Override
    public void setProperty(String key, String value) throws InterruptedException, ManagedLedgerException {
        Sync.await(recordWriter.updateProperties(p -> p.put(key, value)));
    }

    @Override
    public void asyncSetProperty(String key, String value, UpdatePropertiesCallback cb, Object ctx) {
        propertiesCallback(recordWriter.updateProperties(p -> p.put(key, value)), cb, ctx);
    }

    @Override
    public void deleteProperty(String key) throws InterruptedException, ManagedLedgerException {
        Sync.await(recordWriter.updateProperties(p -> p.remove(key)));
    }

    @Override
    public void asyncDeleteProperty(String key, UpdatePropertiesCallback cb, Object ctx) {
        propertiesCallback(recordWriter.updateProperties(p -> p.remove(key)), cb, ctx);
    }

    @Override
    public void setProperties(Map<String, String> properties) throws InterruptedException, ManagedLedgerException {
        Sync.await(recordWriter.updateProperties(p -> {
            p.clear();
            p.putAll(properties);
        }));
    }

    @Override
    public void asyncSetProperties(Map<String, String> properties, UpdatePropertiesCallback cb, Object ctx) {
        propertiesCallback(
                recordWriter.updateProperties(p -> {
                    p.clear();
                    p.putAll(properties);
                }),
                cb,
                ctx);
    }

    private void propertiesCallback(CompletableFuture<Map<String, String>> f, UpdatePropertiesCallback cb, Object ctx) {
        Callbacks.deliver(
                f,
                executor,
                props -> logIfThrows(() -> {
                    // Pulsar's admin callback copies the new properties into the config's map
                    // (getConfig().getProperties().putAll): the map the broker gave may be immutable.
                    Map<String, String> configured = config.getProperties();
                    if (configured != null) {
                        config.setProperties(new java.util.HashMap<>(configured));
                    }
                    cb.updatePropertiesComplete(props, ctx);
                }),
                e -> logIfThrows(() -> cb.updatePropertiesFailed(e, ctx)));
    }

    private void logIfThrows(Runnable propertiesCallback) {
        try {
            propertiesCallback.run();
        } catch (RuntimeException ex) {
            // A callback that throws here would leave its caller (an admin request) waiting forever, unseen.
            org.slf4j.LoggerFactory.getLogger(LakestreamManagedLedger.class)
                    .warn("[{}] the properties-update callback threw", name, ex);
        }
    }

    /** Applies {@code change} to a copy of the record and writes it by compare-and-set; writes are serialised. */
    CompletableFuture<Void> updateRecord(Consumer<ManagedLedgerRecord> change) {
        return recordWriter.update(change);
    }

    /**
     * The executor every callback of this ledger and its cursors runs on (serial, in order). Components that order
     * their own work with the ledger's callbacks use it (the transaction log's buffered writer).
     */
    public java.util.concurrent.Executor callbackExecutor() {
        return executor;
    }

    @Override
    public ManagedLedgerInterceptor getManagedLedgerInterceptor() {
        return config.getManagedLedgerInterceptor();
    }

    // ------------------------------------------------------------------ append

    @Override
    public Position addEntry(byte[] data) throws InterruptedException, ManagedLedgerException {
        return addEntry(data, 1, 0, data.length);
    }

    @Override
    public Position addEntry(byte[] data, int numberOfMessages) throws InterruptedException, ManagedLedgerException {
        return addEntry(data, numberOfMessages, 0, data.length);
    }

    @Override
    public Position addEntry(byte[] data, int offset, int length) throws InterruptedException, ManagedLedgerException {
        return addEntry(data, 1, offset, length);
    }

    @Override
    public Position addEntry(byte[] data, int numberOfMessages, int offset, int length)
            throws InterruptedException, ManagedLedgerException {
        return BlockingCalls.addEntry(this, Unpooled.wrappedBuffer(data, offset, length), numberOfMessages);
    }

    @Override
    public void asyncAddEntry(byte[] data, AddEntryCallback cb, Object ctx) {
        asyncAddEntry(Unpooled.wrappedBuffer(data), 1, cb, ctx);
    }

    @Override
    public void asyncAddEntry(byte[] data, int offset, int length, AddEntryCallback cb, Object ctx) {
        asyncAddEntry(Unpooled.wrappedBuffer(data, offset, length), 1, cb, ctx);
    }

    @Override
    public void asyncAddEntry(
            byte[] data, int numberOfMessages, int offset, int length, AddEntryCallback cb, Object ctx) {
        asyncAddEntry(Unpooled.wrappedBuffer(data, offset, length), numberOfMessages, cb, ctx);
    }

    @Override
    public void asyncAddEntry(ByteBuf buffer, AddEntryCallback cb, Object ctx) {
        asyncAddEntry(buffer, 1, cb, ctx);
    }

    @Override
    public void asyncAddEntry(ByteBuf buffer, int numberOfMessages, AddEntryCallback cb, Object ctx) {
        AddOp op = AppendPipeline.newAdd(buffer, numberOfMessages, cb, ctx);
        ManagedLedgerException refused;
        synchronized (appends.state) {
            refused = appends.addLocked(op);
        }
        if (refused != null) {
            appends.refuse(op, refused);
        }
    }

    // The write path's continuations (see LedgerView): each takes the state lock for one step of the pipeline. The
    // lock is named as the pipeline names it (appends.state, the same LedgerState as this.state) so that Error Prone
    // can match it to the pipeline's @GuardedBy("state").

    private void appended(AddOp op, AppendResult result, Throwable failure) {
        synchronized (appends.state) {
            appends.appendedLocked(op, result, failure);
        }
    }

    private void ledgerIdDrawn(long end, long id) {
        synchronized (appends.state) {
            appends.ledgerIdDrawnLocked(end, id);
        }
    }

    private void rolloverDone(Throwable failure) {
        synchronized (appends.state) {
            appends.rolloverDoneLocked(failure);
        }
    }

    private void wakeAllWaiting() {
        synchronized (state) {
            cursors.notifyAllWaiting();
        }
    }

    /**
     * Why adds (and terminate) are refused in the current state; null when they are accepted. Callers that act on
     * the answer hold the state lock, so that the phase cannot change in between.
     */
    ManagedLedgerException writeRefusal() {
        if (readOnly) {
            return Errors.unsupported("asyncAddEntry", "the managed ledger " + name + " is read-only");
        }
        return switch (state.phase()) {
            case OPEN -> null;
            case WRITE_FAILED ->
                new WriteRefusedException(
                        "managed ledger " + name + " had a failed write; adds are refused until"
                                + " readyToCreateNewLedger() is called or it is opened again (waiting to recover from failure)");
            case FENCED ->
                new ManagedLedgerException.ManagedLedgerFencedByAnotherWriterException(
                        "managed ledger " + name + " was fenced by another owner");
            case TERMINATED ->
                new ManagedLedgerException.ManagedLedgerTerminatedException(
                        "managed ledger " + name + " is terminated");
            case CLOSED, DELETED ->
                new ManagedLedgerException.ManagedLedgerAlreadyClosedException("managed ledger " + name + " is closed");
        };
    }

    /** Creates the first ledger of this session (at open): the ledger every position written now lives in. */
    public CompletableFuture<Void> initializeForWriting() {
        CompletableFuture<Void> done = new CompletableFuture<>();
        synchronized (appends.state) {
            if (!appends.initializeForWritingLocked(done)) {
                return CompletableFuture.completedFuture(null);
            }
        }
        return done;
    }

    @Override
    public int getPendingAddEntriesCount() {
        synchronized (appends.state) {
            return appends.pendingAddsLocked();
        }
    }

    @Override
    public long getLastAddEntryTime() {
        return appends.lastAddEntryTime();
    }

    @Override
    public Position getLastConfirmedEntry() {
        return state.lastConfirmed();
    }

    @Override
    public void readyToCreateNewLedger() {
        synchronized (appends.state) {
            appends.readyToCreateNewLedgerLocked();
        }
    }

    @Override
    public void rollCurrentLedgerIfFull() {
        synchronized (appends.state) {
            appends.rollCurrentLedgerIfFullLocked();
        }
    }

    @Override
    public boolean checkInactiveLedgerAndRollOver() {
        synchronized (appends.state) {
            return appends.checkInactiveLedgerAndRollOverLocked();
        }
    }

    @Override
    public void checkCursorsToCacheEntries() {}

    // ------------------------------------------------------------------ cursors

    @Override
    public void removeWaitingCursor(ManagedCursor cursor) {
        cursors.removeWaiting(cursor);
    }

    @Override
    public ManagedCursor openCursor(String name) throws InterruptedException, ManagedLedgerException {
        return openCursor(name, InitialPosition.Latest);
    }

    @Override
    public ManagedCursor openCursor(String name, InitialPosition initialPosition)
            throws InterruptedException, ManagedLedgerException {
        return openCursor(name, initialPosition, Map.of(), Map.of());
    }

    @Override
    public ManagedCursor openCursor(
            String name,
            InitialPosition initialPosition,
            Map<String, Long> properties,
            Map<String, String> cursorProperties)
            throws InterruptedException, ManagedLedgerException {
        return Sync.await(cursors.open(name, initialPosition, properties, cursorProperties));
    }

    @Override
    public void asyncOpenCursor(String name, OpenCursorCallback cb, Object ctx) {
        asyncOpenCursor(name, InitialPosition.Latest, cb, ctx);
    }

    @Override
    public void asyncOpenCursor(String name, InitialPosition initialPosition, OpenCursorCallback cb, Object ctx) {
        asyncOpenCursor(name, initialPosition, Map.of(), Map.of(), cb, ctx);
    }

    @Override
    public void asyncOpenCursor(
            String name,
            InitialPosition initialPosition,
            Map<String, Long> properties,
            Map<String, String> cursorProperties,
            OpenCursorCallback cb,
            Object ctx) {
        Callbacks.deliver(
                cursors.open(name, initialPosition, properties, cursorProperties),
                executor,
                c -> cb.openCursorComplete(c, ctx),
                e -> cb.openCursorFailed(e, ctx));
    }

    /** Loads the cursors persisted for the stream (at open). */
    public CompletableFuture<Void> recoverCursors() {
        return cursors.recover();
    }

    @Override
    public ManagedCursor newNonDurableCursor(Position startCursorPosition) throws ManagedLedgerException {
        return newNonDurableCursor(startCursorPosition, "non-durable-cursor-" + java.util.UUID.randomUUID());
    }

    @Override
    public ManagedCursor newNonDurableCursor(Position startPosition, String subscriptionName)
            throws ManagedLedgerException {
        return newNonDurableCursor(startPosition, subscriptionName, InitialPosition.Latest, false);
    }

    @Override
    public ManagedCursor newNonDurableCursor(
            Position startPosition, String cursorName, InitialPosition initialPosition, boolean isReadCompacted)
            throws ManagedLedgerException {
        long ackedBefore;
        synchronized (state) {
            if (state.isClosedOrDeleted()) {
                throw new ManagedLedgerException.ManagedLedgerAlreadyClosedException(
                        "managed ledger " + name + " is closed");
            }
            ackedBefore = LedgerCursors.nonDurableStart(
                    state.ledgersLocked(),
                    state.startOffset(),
                    state.lceOffset(),
                    state.lastConfirmed(),
                    startPosition,
                    initialPosition);
        }
        return cursors.newNonDurable(cursorName, ackedBefore);
    }

    /**
     * Registers {@code cursor} as waiting for entries. An add may have landed between the cursor's check and its
     * registration: then it is woken at once. The check holds the state lock, so no confirm slips between it and the
     * wake-ups of the write path (which run holding it too).
     */
    void addWaiting(LakestreamManagedCursor cursor) {
        cursors.addWaiting(cursor);
        synchronized (state) {
            if (cursor.hasEntriesBeyondRead(state.lceOffset())) {
                cursors.wake(cursor);
            }
        }
    }

    @Override
    public void asyncDeleteCursor(String cursorName, DeleteCursorCallback cb, Object ctx) {
        Callbacks.deliver(
                cursors.delete(cursorName),
                executor,
                v -> cb.deleteCursorComplete(ctx),
                e -> cb.deleteCursorFailed(e, ctx));
    }

    @Override
    public void deleteCursor(String name) throws InterruptedException, ManagedLedgerException {
        Sync.await(cursors.delete(name));
    }

    @Override
    public Iterable<ManagedCursor> getCursors() {
        return new ArrayList<>(cursors.durableCursors());
    }

    @Override
    public Iterable<ManagedCursor> getActiveCursors() {
        return cursors.activeCursors();
    }

    @Override
    public ManagedCursor getSlowestConsumer() {
        return cursors.slowestConsumer();
    }

    // ------------------------------------------------------------------ reads

    /** Reads raw entries; Entry objects are made by the caller with {@link #toEntry}. */
    CompletableFuture<List<LogEntry>> readRaw(long from, int maxEntries, long maxBytes) {
        return reader.readRaw(from, maxEntries, maxBytes);
    }

    Entry toEntry(LogEntry e) {
        return reader.toEntry(e);
    }

    /** The entry at {@code offset}, or a failure naming it when it is not readable. */
    public CompletableFuture<Entry> readOne(long offset) {
        return reader.readOne(offset);
    }

    @Override
    public void asyncReadEntry(Position position, ReadEntryCallback cb, Object ctx) {
        reader.readEntry(position, cb, ctx);
    }

    LakestreamManagedLedgerMBean mbean() {
        return stats;
    }

    // ------------------------------------------------------------------ positions API

    @Override
    public Position getFirstPosition() {
        synchronized (state) {
            return positionsLocked().first();
        }
    }

    @Override
    public Position getNextValidPosition(Position position) {
        synchronized (state) {
            return positionsLocked().nextValid(position);
        }
    }

    @Override
    public Position getPreviousPosition(Position position) {
        synchronized (state) {
            return positionsLocked().previous(position);
        }
    }

    @Override
    public Position getPositionAfterN(Position startPosition, long n, PositionBound startRange) {
        synchronized (state) {
            return positionsLocked().afterN(startPosition, n, startRange);
        }
    }

    @Override
    public long getNumberOfEntries() {
        return state.numberOfEntries();
    }

    @Override
    public long getNumberOfEntries(Range<Position> range) {
        synchronized (state) {
            return positionsLocked().numberOfEntries(range);
        }
    }

    @Override
    public long getNumberOfActiveEntries() {
        // Entries not yet acknowledged by the slowest durable cursor; the cursors are asked before the lock is taken.
        long slowest = cursors.slowestAckedBefore(false);
        synchronized (state) {
            return positionsLocked().activeEntries(slowest);
        }
    }

    @Override
    public long getTotalSize() {
        return state.totalSize();
    }

    @Override
    public long getEstimatedBacklogSize() {
        return getNumberOfActiveEntries() * averageEntrySize();
    }

    @Override
    public long getEstimatedBacklogSize(Position position) {
        long off = state.offsetOf(position);
        synchronized (state) {
            return positionsLocked().entriesAfter(off) * state.averageEntrySize();
        }
    }

    @Override
    public CompletableFuture<Long> getEarliestMessagePublishTimeInBacklog() {
        return reader.earliestPublishTimeInBacklog();
    }

    @Override
    public long getCacheSize() {
        return 0;
    }

    @Override
    public CompletableFuture<Position> asyncFindPosition(Predicate<Entry> predicate) {
        return reader.findPosition(predicate);
    }

    @Override
    public CompletableFuture<Position> getLastDispatchablePosition(Predicate<Entry> predicate, Position startPosition) {
        return reader.lastDispatchablePosition(predicate, startPosition);
    }

    // ------------------------------------------------------------------ ledger info

    @Override
    public NavigableMap<Long, LedgerInfo> getLedgersInfo() {
        return state.ledgerInfos();
    }

    @Override
    public CompletableFuture<LedgerInfo> getLedgerInfo(long ledgerId) {
        return CompletableFuture.completedFuture(state.ledgerInfo(ledgerId).orElse(null));
    }

    @Override
    public Optional<LedgerInfo> getOptionalLedgerInfo(long ledgerId) {
        return state.ledgerInfo(ledgerId);
    }

    public List<VirtualLedgers.Ledger> ledgerList() {
        return state.ledgerList();
    }

    public long ledgerEntries(int i) {
        return state.ledgerEntries(i);
    }

    public long ledgerSize(int i) {
        return state.ledgerSize(i);
    }

    @Override
    public CompletableFuture<Void> asyncAddLedgerProperty(long ledgerId, String key, String value) {
        return Errors.unsupportedFuture("asyncAddLedgerProperty", "virtual ledgers carry no properties");
    }

    @Override
    public CompletableFuture<Void> asyncRemoveLedgerProperty(long ledgerId, String key) {
        return Errors.unsupportedFuture("asyncRemoveLedgerProperty", "virtual ledgers carry no properties");
    }

    @Override
    public CompletableFuture<String> asyncGetLedgerProperty(long ledgerId, String key) {
        return Errors.unsupportedFuture("asyncGetLedgerProperty", "virtual ledgers carry no properties");
    }

    // ------------------------------------------------------------------ trim / retention

    /**
     * Trimming runs when the broker asks (every retention check), not on every acknowledgement: a reset or rewind
     * right after an ack can still reach the consumed ledgers.
     */
    @Override
    public void trimConsumedLedgersInBackground(CompletableFuture<?> promise) {
        trimmer.trimConsumedLedgersInBackground(promise);
    }

    @Override
    public CompletableFuture<Void> asyncTruncate() {
        return Errors.unsupportedFuture(
                "asyncTruncate",
                "truncation of unconsumed data is not implemented;" + " consumed ledgers are trimmed by retention");
    }

    // ------------------------------------------------------------------ terminate / close / delete

    @Override
    public Position terminate() throws InterruptedException, ManagedLedgerException {
        return BlockingCalls.terminate(this);
    }

    @Override
    public void asyncTerminate(TerminateCallback cb, Object ctx) {
        synchronized (appends.state) {
            if (state.is(LedgerState.Phase.TERMINATED)) {
                Position p = state.lastConfirmed();
                executor.execute(() -> cb.terminateComplete(p, ctx));
                return;
            }
            ManagedLedgerException refused = writeRefusal();
            if (refused != null) {
                executor.execute(() -> cb.terminateFailed(refused, ctx));
                return;
            }
            state.terminate();
            appends.failUnsentLocked(() -> new ManagedLedgerException.ManagedLedgerTerminatedException(
                    "managed ledger " + name + " was terminated"));
            Runnable persist = lifecycle.persistTermination(cb, ctx);
            if (!appends.hasInflightLocked()) {
                executor.execute(persist);
            } else {
                appends.onDrainedLocked(persist);
            }
        }
    }

    @Override
    public boolean isTerminated() {
        return state.is(LedgerState.Phase.TERMINATED);
    }

    @Override
    public boolean isMigrated() {
        return false;
    }

    @Override
    public CompletableFuture<Position> asyncMigrate() {
        return Errors.unsupportedFuture("asyncMigrate", "blue-green cluster migration is not implemented");
    }

    @Override
    public void close() throws InterruptedException, ManagedLedgerException {
        BlockingCalls.close(this);
    }

    @Override
    public void asyncClose(CloseCallback cb, Object ctx) {
        Callbacks.deliver(closeAsync(), executor, v -> cb.closeComplete(ctx), e -> cb.closeFailed(e, ctx));
    }

    public CompletableFuture<Void> closeAsync() {
        CompletableFuture<Void> drained = new CompletableFuture<>();
        synchronized (appends.state) {
            CompletableFuture<Void> closing = state.closeFuture();
            if (closing != null) {
                return closing;
            }
            state.close();
            appends.failUnsentLocked(() -> new ManagedLedgerException.ManagedLedgerAlreadyClosedException(
                    "managed ledger " + name + " was closed"));
            if (!appends.hasInflightLocked()) {
                drained.complete(null);
            } else {
                appends.onDrainedLocked(() -> drained.complete(null));
            }
            cursors.notifyAllWaiting();
            // Also wait for the appends of failed adds the stream has not answered yet: a ledger opened again
            // after this close (the next owner, here or elsewhere) then finds at its end every entry that will ever
            // land, and rebuilds its state (deduplication, next offset) from them.
            CompletableFuture<Void> settled = appends.appendsSettledLocked();
            closing = lifecycle.finishClose(drained, settled);
            state.closeStarted(closing);
            return closing;
        }
    }

    public boolean isClosedOrDeleted() {
        return state.isClosedOrDeleted();
    }

    @Override
    public void delete() throws InterruptedException, ManagedLedgerException {
        BlockingCalls.delete(this);
    }

    @Override
    public void asyncDelete(DeleteLedgerCallback cb, Object ctx) {
        Callbacks.deliver(
                deleteAsync(), executor, v -> cb.deleteLedgerComplete(ctx), e -> cb.deleteLedgerFailed(e, ctx));
    }

    public CompletableFuture<Void> deleteAsync() {
        state.delete();
        return closeAsync().thenCompose(v -> lifecycle.deleteStorage());
    }

    // ------------------------------------------------------------------ offload (unsupported)

    @Override
    public Position offloadPrefix(Position pos) throws InterruptedException, ManagedLedgerException {
        throw Errors.unsupported(
                "offloadPrefix",
                "entries already live in object storage; tiered-storage offload"
                        + " of BookKeeper ledgers does not apply");
    }

    @Override
    public void asyncOffloadPrefix(Position pos, AsyncCallbacks.OffloadCallback cb, Object ctx) {
        executor.execute(() -> cb.offloadFailed(
                Errors.unsupported(
                        "asyncOffloadPrefix",
                        "entries already live in"
                                + " object storage; tiered-storage offload of BookKeeper ledgers does not apply"),
                ctx));
    }

    @Override
    public long getOffloadedSize() {
        return 0;
    }

    @Override
    public long getLastOffloadedLedgerId() {
        return 0;
    }

    @Override
    public long getLastOffloadedSuccessTimestamp() {
        return 0;
    }

    @Override
    public long getLastOffloadedFailureTimestamp() {
        return 0;
    }

    // ------------------------------------------------------------------ stats

    @Override
    public ManagedLedgerMXBean getStats() {
        return stats;
    }

    @Override
    public CompletableFuture<ManagedLedgerInternalStats> getManagedLedgerInternalStats(boolean includeLedgerMetadata) {
        ManagedLedgerInternalStats s;
        synchronized (appends.state) {
            s = InternalStatsSnapshot.ofLedger(partsView, appends.countersLocked(), includeLedgerMetadata);
        }
        s.cursors = cursors.internalStats();
        return CompletableFuture.completedFuture(s);
    }

    public ManagedLedgerRecord recordSnapshot() {
        return state.recordCopy();
    }

    @Override
    public String toString() {
        return "LakestreamManagedLedger{" + name + ", stream " + stream.id() + "}";
    }
}
