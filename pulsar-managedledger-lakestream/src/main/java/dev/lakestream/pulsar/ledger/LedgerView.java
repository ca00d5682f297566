package dev.lakestream.pulsar.ledger;

import dev.lakestream.core.StreamLog;
import dev.lakestream.core.log.AppendResult;
import dev.lakestream.pulsar.common.ManagedLedgerRecord;
import dev.lakestream.pulsar.cursor.CursorLedger;
import dev.lakestream.pulsar.metrics.LakestreamManagedLedgerMBean;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.apache.bookkeeper.mledger.ManagedLedgerConfig;
import org.apache.bookkeeper.mledger.ManagedLedgerException;

/**
 * The narrow view of a ledger its parts ({@link AppendPipeline}, {@link LedgerLifecycle}, {@link LedgerCursors},
 * {@link EntryReader}, {@link RetentionTrimmer}) get: its identity, its state owner and collaborators, and the two
 * decisions only the ledger makes (why writes are refused, how the metadata record is written). The parts never see
 * the ledger class itself, so the dependency runs one way: ledger -> parts -> this view. The parts take no lock: where
 * an asynchronous step of theirs needs the state lock, they come back through this view and the ledger takes it.
 */
interface LedgerView {

    long MB = 1024L * 1024L;

    /** The log category of a ledger and its parts: the ledger class's name, so one logger setting covers them all. */
    String LOGGER = "dev.lakestream.pulsar.ledger.LakestreamManagedLedger";

    String name();

    /** The current configuration; may be replaced by the broker at any time, so read it per use. */
    ManagedLedgerConfig config();

    /** The owner of the ledger's state and its only lock (see {@link LedgerState}). */
    LedgerState state();

    StreamLog stream();

    /** The serial executor every callback of the ledger and its cursors runs on. */
    SerialExecutor executor();

    /** What the ledger uses of the factory that opened it. */
    LedgerServices services();

    LedgerCursors cursors();

    /** The narrow view the ledger's cursors get of it. */
    CursorLedger cursorView();

    LakestreamManagedLedgerMBean mbean();

    boolean isReadOnly();

    /** The ledger's clock (from its configuration), in milliseconds. */
    long now();

    /**
     * Why adds (and terminate) are refused in the current state; null when accepted. Reads the state through its own
     * lock: callers that act on the answer hold the lock already, so that the state cannot move in between.
     */
    ManagedLedgerException writeRefusal();

    // --- the continuations of the write path: the ledger takes the state lock and calls the pipeline's ...Locked step

    /** The stream answered the append of {@code op}; see {@link AppendPipeline#appendedLocked}. */
    void appended(AddOp op, AppendResult result, Throwable failure);

    /** A rollover drew its ledger id; see {@link AppendPipeline#ledgerIdDrawnLocked}. */
    void ledgerIdDrawn(long end, long id);

    /** A rollover ended, failed when {@code failure} is not null; see {@link AppendPipeline#rolloverDoneLocked}. */
    void rolloverDone(Throwable failure);

    /** Wakes every waiting cursor under the state lock (the ledger was terminated). */
    void wakeAllWaiting();

    /** Applies {@code change} to a copy of the metadata record and writes it by compare-and-set. */
    CompletableFuture<Void> updateRecord(Consumer<ManagedLedgerRecord> change);

    /** Removes this ledger from its factory's open ledgers (once closed), unless another instance replaced it. */
    void evictFromFactory();
}
