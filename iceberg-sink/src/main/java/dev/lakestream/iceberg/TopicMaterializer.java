package dev.lakestream.iceberg;

import dev.lakestream.core.StreamLog;
import dev.lakestream.core.log.LogEntry;
import dev.lakestream.iceberg.MaterializerStatus.State;
import dev.lakestream.iceberg.pulsar.EncryptedMessageException;
import dev.lakestream.iceberg.pulsar.EntryDecodeException;
import dev.lakestream.iceberg.pulsar.EntryDecoder;
import dev.lakestream.iceberg.pulsar.PulsarMessage;
import dev.lakestream.iceberg.pulsar.TransactionMark;
import dev.lakestream.iceberg.schema.BadMessageException;
import dev.lakestream.iceberg.schema.IncompatibleSchemaException;
import dev.lakestream.iceberg.schema.MessagePosition;
import dev.lakestream.iceberg.schema.MetadataColumns;
import dev.lakestream.iceberg.schema.SchemaSource;
import dev.lakestream.iceberg.schema.SchemaUnavailableException;
import dev.lakestream.iceberg.schema.TableSchemas;
import dev.lakestream.iceberg.schema.TopicSchema;
import dev.lakestream.iceberg.schema.ValueMapping;
import dev.lakestream.iceberg.schema.ValueMappings;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Materializes one topic partition's stream into its Iceberg table, exactly once.
 *
 * <p>Confined to one thread (the caller of {@link #open}, {@link #poll}, {@link #commit} and {@link #close}); it
 * blocks on the stores and the catalog, so that thread must be the materializer's own, never an event loop or a
 * broker callback thread. {@link #status()} may be read from anywhere.
 *
 * <p>Exactly once (docs/iceberg.md): rows of stream offsets {@code [pendingStart, next)} are written to data files
 * ({@link RangeFiles}) and committed in one Iceberg append whose summary records every stream's next offset
 * ({@link RangeCommit}, {@link CommitSummary}). When another process committed those offsets meanwhile, or a commit
 * is known not to have landed, the files are deleted and reading resumes from the table's offsets.
 */
public final class TopicMaterializer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(TopicMaterializer.class);
    private final TopicRef topic;
    private final StreamLog stream;
    private final PositionResolver positions;
    private final SchemaSource schemas;
    private final Catalog catalog;
    private final TableIdentifier tableId;
    private final MaterializerConfig config;
    private final DeadLetters deadLetters;
    private final Clock clock;
    private final MemoryBudget budget;
    private final EntryDecoder decoder = new EntryDecoder();
    private final TransactionOutcomes transactions;
    private final String where;

    // ---- state, changed only by the transitions below ----
    private Table table;
    /** This stream's offset in the table when the pending range started (null: the table has none). */
    private Long committedBase;

    private long pendingStart;
    private long next;
    private long pendingRows;
    private final RangeFiles files;
    private final Map<Long, ValueMapping.Converter> converters = new HashMap<>();
    private long lastCommitMillis;
    private State state = State.NEW;
    private String lastError;
    private long commits;
    private long rowsCommitted;
    private long deadLetterCount;
    private long conflicts;
    private long streamEnd = -1;
    /** Bytes of entries read and not yet committed, taken from {@link #budget}. */
    private long buffered;

    private long readsHeld;
    /** Whether the last poll found the budget full (see {@link #readsHeld}). */
    private boolean holding;

    /** Reads in a row that came back empty although the stream ends after {@code next} (see {@link #poll}). */
    private int shortReads;

    private long oldestUncommittedMillis;
    private volatile MaterializerStatus status;

    /** A materializer with a memory budget of its own ({@code config.maxBufferedBytes()}). */
    public TopicMaterializer(
            TopicRef topic,
            StreamLog stream,
            PositionResolver positions,
            SchemaSource schemas,
            Catalog catalog,
            TableIdentifier tableId,
            MaterializerConfig config,
            DeadLetters deadLetters,
            Clock clock) {
        this(
                topic,
                stream,
                positions,
                schemas,
                catalog,
                tableId,
                config,
                deadLetters,
                clock,
                new MemoryBudget(config.maxBufferedBytes()));
    }

    /**
     * @param catalog the catalog (not owned)
     * @param tableId the table, usually {@link TableNames#of(TopicRef)}
     * @param budget the bound on buffered entries this materializer shares with the others of its process
     */
    public TopicMaterializer(
            TopicRef topic,
            StreamLog stream,
            PositionResolver positions,
            SchemaSource schemas,
            Catalog catalog,
            TableIdentifier tableId,
            MaterializerConfig config,
            DeadLetters deadLetters,
            Clock clock,
            MemoryBudget budget) {
        this.topic = Objects.requireNonNull(topic, "topic");
        this.stream = Objects.requireNonNull(stream, "stream");
        this.positions = Objects.requireNonNull(positions, "positions");
        this.schemas = Objects.requireNonNull(schemas, "schemas");
        this.catalog = Objects.requireNonNull(catalog, "catalog");
        this.tableId = Objects.requireNonNull(tableId, "tableId");
        this.config = Objects.requireNonNull(config, "config");
        this.deadLetters = Objects.requireNonNull(deadLetters, "deadLetters");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.budget = Objects.requireNonNull(budget, "budget");
        this.where = topic + " (" + stream + ") -> table " + tableId;
        this.transactions = new TransactionOutcomes(stream, config);
        this.files = new RangeFiles(Math.max(topic.partition(), 0), config.targetFileSizeBytes(), clock, where);
        publish();
    }

    public TopicRef topic() {
        return topic;
    }

    public TableIdentifier tableId() {
        return tableId;
    }

    public MaterializerStatus status() {
        return status;
    }

    /** Loads (or creates) the table and finds where this stream stands in it. */
    public void open() {
        try {
            table = TopicTables.loadOrCreate(catalog, tableId, topic, schemas, config, where);
            resync();
            lastCommitMillis = clock.millis();
            state = State.RUNNING;
            lastError = null;
        } catch (IncompatibleSchemaException e) {
            pause(e.getMessage());
        } catch (SchemaUnavailableException | RuntimeException e) {
            fail("open", e);
        }
        publish();
    }

    /**
     * Reads what the stream holds now, writes it, and commits when the commit interval has passed since the last
     * commit. Returns the number of entries read and kept (0 when caught up, paused or failed).
     */
    public int poll() {
        if (state == State.NEW || state == State.RETRYING) {
            open();
        }
        if (state != State.RUNNING) {
            return 0;
        }
        int entries = 0;
        long reservation = config.readBytes();
        if (!budget.tryReserve(reservation)) {
            // The process holds as much as it may: read nothing, and give back what this one holds by committing
            // it early (the other materializers do the same), so that memory never grows past the bound.
            if (!holding) {
                // Once per hold, so that a topic that stops moving says why.
                LOG.warn(
                        "{}: reads held: the materializers of this process hold {} of their {} bytes"
                                + " (lakestream.iceberg.maxBufferedBytes); this one holds {}",
                        where,
                        budget.used(),
                        budget.limit(),
                        buffered);
                holding = true;
            }
            readsHeld++;
            if (buffered > 0) {
                commit();
            }
            publish();
            return 0;
        }
        holding = false;
        try {
            long at = next;
            List<LogEntry> batch = StreamWaits.entries(
                    stream.read(at, config.readEntries(), config.readBytes()),
                    config.readTimeout(),
                    () -> "the read of " + where + " at offset " + at);
            long kept = 0;
            try {
                // The entries are ours from here: released below whatever happens.
                streamEnd =
                        StreamWaits.value(stream.endOffset(), config.readTimeout(), () -> "the end offset of " + where);
                noteShortRead(batch.isEmpty());
                if (!batch.isEmpty()) {
                    positions.refresh();
                    if (oldestUncommittedMillis == 0) {
                        oldestUncommittedMillis = batch.get(0).timestamp();
                    }
                }
                for (LogEntry e : batch) {
                    long size = e.payload().readableBytes();
                    if (!write(e)) {
                        break; // an open transaction: wait at its first message
                    }
                    kept += size;
                    entries++;
                }
            } finally {
                // What this read holds until the commit is what it kept; the rest of the reservation goes back.
                budget.adjust(kept - reservation);
                reservation = 0;
                buffered += kept;
                for (LogEntry e : batch) {
                    e.payload().release();
                }
            }
            if (clock.millis() - lastCommitMillis >= config.commitInterval().toMillis()) {
                commit();
            }
        } catch (IncompatibleSchemaException | EncryptedMessageException e) {
            // Everything before the entry that stopped us is good: commit it, then pause.
            commit();
            pause(e.getMessage());
        } catch (SchemaUnavailableException | RuntimeException e) {
            abort();
            fail("poll", e);
            entries = 0; // nothing was kept
        } finally {
            budget.release(reservation); // a read that failed before it returned
        }
        if (state != State.RUNNING) {
            entries = 0;
        }
        publish();
        return entries;
    }

    /**
     * Commits the rows written so far (if any). On a failure the rows are abandoned and their files deleted; the
     * next poll starts again from the table's offsets.
     */
    public void commit() {
        if (table == null || (next == pendingStart && files.isEmpty())) {
            lastCommitMillis = clock.millis();
            return;
        }
        try {
            commitPending();
        } catch (RuntimeException e) {
            abort();
            fail("commit", e);
        }
        publish();
    }

    /** Commits what is pending and stops. */
    @Override
    public void close() {
        if (state == State.RUNNING) {
            commit();
        } else {
            abort();
        }
        state = State.CLOSED;
        publish();
    }

    // ---- reading and writing ----

    /**
     * Writes the entry's rows; false (and nothing written, {@code next} unchanged) when the entry is a message of a
     * transaction that is still open.
     */
    @SuppressWarnings("ReferenceEquality") // identity on purpose: was the cached converter replaced?
    private boolean write(LogEntry e)
            throws IncompatibleSchemaException, EncryptedMessageException, SchemaUnavailableException {
        MessagePosition pos = positions.position(e.offset());
        String entryName = "entry " + pos.ledgerId() + ":" + pos.entryId() + " (stream " + stream.id() + " offset "
                + e.offset() + ")";
        if (e.voided()) {
            // A stale owner's commit that landed after the new owner sealed the stream: never a message.
            LOG.debug("{}: {} is void (a stale owner's commit); left out", where, entryName);
            skippedTo(e);
            return true;
        }
        List<PulsarMessage> messages;
        try {
            TransactionMark txn = EntryDecoder.transactionOf(e.payload(), entryName);
            if (txn != null && txn.isMarker()) {
                transactions.passed(txn);
            } else if (txn != null) {
                TransactionOutcomes.Outcome outcome = transactions.outcome(txn, e.endOffset());
                if (outcome == TransactionOutcomes.Outcome.OPEN) {
                    return false;
                }
                if (outcome == TransactionOutcomes.Outcome.ABORTED) {
                    // Never visible to a Pulsar consumer: never a row either.
                    LOG.debug("{}: {} is of aborted transaction {}; left out", where, entryName, txn.txnId());
                    skippedTo(e);
                    return true;
                }
            }
            messages = decoder.decode(e.payload(), entryName);
        } catch (EntryDecodeException ex) {
            deadLetter(pos, -1, ex.getMessage());
            skippedTo(e);
            return true;
        }
        // Settle every schema version of the entry first (which may evolve the table), then convert the whole
        // entry before writing any of it, so rows all have the final shape and a pause never leaves half an
        // entry written.
        List<ValueMapping.Converter> perMessage = new ArrayList<>(messages.size());
        for (PulsarMessage m : messages) {
            perMessage.add(converter(m.schemaVersion()));
        }
        for (int i = 0; i < messages.size(); i++) {
            if (perMessage.get(i) != converters.get(key(messages.get(i).schemaVersion()))) {
                // A later version evolved the table: rebind (cached converters were cleared).
                perMessage.set(i, converter(messages.get(i).schemaVersion()));
            }
        }
        List<Record> rows = new ArrayList<>(messages.size());
        for (int i = 0; i < messages.size(); i++) {
            PulsarMessage m = messages.get(i);
            ValueMapping.Converter converter = perMessage.get(i);
            Record row = GenericRecord.create(table.schema());
            MetadataColumns.fill(row, m, pos);
            try {
                converter.fill(m, row);
            } catch (BadMessageException ex) {
                deadLetter(pos, m.batchIndex(), ex.getMessage());
                continue;
            }
            rows.add(row);
        }
        for (Record row : rows) {
            files.write(table, row);
        }
        pendingRows += rows.size();
        skippedTo(e);
        return true;
    }

    /** The entry is dealt with (written, dead-lettered or left out): reading goes on after it. */
    private void skippedTo(LogEntry e) {
        if (e.offset() > next) {
            LOG.warn(
                    "{}: offsets [{}, {}) were trimmed from the stream before they were materialized",
                    where,
                    next,
                    e.offset());
        }
        next = e.endOffset();
    }

    private ValueMapping.Converter converter(Long schemaVersion)
            throws IncompatibleSchemaException, SchemaUnavailableException {
        long key = key(schemaVersion);
        ValueMapping.Converter c = converters.get(key);
        if (c != null) {
            return c;
        }
        String what = "schema " + topic.schemaId() + " version " + (schemaVersion == null ? "latest" : schemaVersion);
        TopicSchema schema = schemas.schema(topic.schemaId(), schemaVersion);
        ValueMapping mapping = ValueMappings.of(schema, what);
        int before = table.schema().schemaId();
        Schema evolved = TableSchemas.evolve(table, mapping, what);
        if (evolved.schemaId() != before) {
            LOG.info("{}: table schema evolved for {} (schema id {} -> {})", where, what, before, evolved.schemaId());
            // Converters bound to the old schema would build rows of the old shape.
            converters.clear();
        }
        c = mapping.bind(table.schema());
        converters.put(key, c);
        return c;
    }

    private static long key(Long schemaVersion) {
        return schemaVersion == null ? -1 : schemaVersion;
    }

    private void deadLetter(MessagePosition pos, int batchIndex, String reason) {
        deadLetterCount++;
        deadLetters.add(topic, pos, batchIndex, reason);
    }

    // ---- committing ----

    private void commitPending() {
        List<DataFile> written = files.close();
        long end = next;
        RangeCommit.Outcome outcome;
        try {
            outcome = new RangeCommit(
                            table, stream.id(), committedBase, pendingStart, end, written, topic.toString(), where)
                    .run();
        } catch (RangeCommit.OutcomeUnknownException e) {
            files.committed(); // they may be in the table: never deleted
            throw e;
        }
        switch (outcome) {
            case COMMITTED -> committed(end, pendingRows);
            case SUPERSEDED -> {
                conflicts++;
                files.delete(table);
                resync();
            }
            case NOT_LANDED -> {
                files.delete(table);
                resync();
            }
        }
    }

    /** The pending range landed. */
    private void committed(long end, long rows) {
        files.committed();
        releaseBuffered();
        commits++;
        rowsCommitted += rows;
        committedBase = end;
        pendingStart = end;
        next = end;
        pendingRows = 0;
        oldestUncommittedMillis = 0;
        lastCommitMillis = clock.millis();
    }

    /** Drops everything not committed (deleting its files) and goes back to the table's offsets. */
    private void abort() {
        if (table != null) {
            files.delete(table);
        }
        pendingRows = 0;
        oldestUncommittedMillis = 0;
        next = pendingStart;
        transactions.reset();
        releaseBuffered();
    }

    private void releaseBuffered() {
        budget.release(buffered);
        buffered = 0;
    }

    /**
     * Says once per episode that reads find nothing at {@code next} although the stream ends after it: an in-broker
     * materializer was once seen to stall (docs/iceberg.md, "Not yet"), and a stall must not be silent. One such read
     * is a race (an append between the read and the end's lookup); two in a row are not.
     */
    private void noteShortRead(boolean empty) {
        if (empty && streamEnd > next) {
            if (++shortReads == 2) {
                LOG.warn("{}: reads at offset {} return nothing, though the stream ends at {}", where, next, streamEnd);
            }
        } else {
            if (shortReads >= 2) {
                LOG.info("{}: reads at offset {} return entries again", where, next);
            }
            shortReads = 0;
        }
    }

    /** Goes to where the table says this stream stands. */
    private void resync() {
        table.refresh();
        committedBase = CommitSummary.committedOffsets(table).get(stream.id());
        long start = committedBase != null
                ? committedBase
                : StreamWaits.value(stream.startOffset(), config.readTimeout(), () -> "the start offset of " + where);
        pendingStart = start;
        next = start;
        pendingRows = 0;
        oldestUncommittedMillis = 0;
        converters.clear();
        transactions.reset();
        releaseBuffered();
    }

    private void pause(String reason) {
        state = State.PAUSED;
        lastError = reason;
        LOG.error("{}: materialization paused: {}", where, reason);
    }

    private void fail(String what, Exception e) {
        state = State.RETRYING;
        lastError = what + " failed: " + e;
        LOG.warn("{}: {} failed; starting again from the table's offsets", where, what, e);
    }

    private void publish() {
        status = new MaterializerStatus(
                state,
                committedBase == null ? -1 : committedBase,
                next,
                lastCommitMillis,
                lastError,
                commits,
                rowsCommitted,
                deadLetterCount,
                conflicts,
                streamEnd,
                oldestUncommittedMillis,
                readsHeld);
    }
}
