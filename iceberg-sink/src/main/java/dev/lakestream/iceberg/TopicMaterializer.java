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
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.io.DataWriteResult;
import org.apache.iceberg.io.FanoutDataWriter;
import org.apache.iceberg.io.OutputFileFactory;
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
 * and committed in one Iceberg append whose summary records every stream's next offset ({@link CommitSummary}).
 * Before each commit attempt the table is re-read: if this stream's committed offset is no longer the one this
 * materializer started its range from, another process committed those offsets, so the files are deleted and
 * reading resumes from the table. Iceberg's own commit retry is switched off on these tables (it would re-apply a
 * summary built on a stale base); this class retries instead, re-validating each time. A commit of unknown outcome
 * is looked up by its commit id; if it is not in the table, its files are deleted and the range is redone.
 */
public final class TopicMaterializer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(TopicMaterializer.class);
    /** Commit attempts lost to other streams' commits before giving up for this poll. */
    private static final int MAX_COMMIT_ATTEMPTS = 20;

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
    private FanoutDataWriter<Record> writer;
    private Schema writerSchema;
    private final List<DataFile> closedFiles = new ArrayList<>();
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
    private PartitionKey partitionKey;
    private InternalRecordWrapper keyWrapper;
    private Schema keySchema;
    private PartitionSpec keySpec;

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
            table = loadOrCreateTable();
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
            List<LogEntry> batch =
                    stream.read(next, config.readEntries(), config.readBytes()).join();
            long kept = 0;
            try {
                // The entries are ours from here: released below whatever happens.
                streamEnd = stream.endOffset().join();
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
        if (table == null || (next == pendingStart && writer == null && closedFiles.isEmpty())) {
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
            writerFor(table.schema()).write(row, table.spec(), partitionKey(row));
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

    private FanoutDataWriter<Record> writerFor(Schema schema) {
        if (writer != null && writerSchema.schemaId() == schema.schemaId()) {
            return writer;
        }
        closeWriter();
        GenericFileWriterFactory factory = new GenericFileWriterFactory.Builder(table)
                .dataFileFormat(FileFormat.PARQUET)
                .dataSchema(schema)
                .build();
        OutputFileFactory files = OutputFileFactory.builderFor(table, Math.max(topic.partition(), 0), clock.millis())
                .format(FileFormat.PARQUET)
                .operationId(UUID.randomUUID().toString())
                .build();
        writer = new FanoutDataWriter<>(factory, files, table.io(), config.targetFileSizeBytes());
        writerSchema = schema;
        return writer;
    }

    /**
     * The row's partition, in one key object reused for every row (building a key and a wrapper per row cost more
     * than writing it; FanoutDataWriter copies the keys it keeps). Rebuilt when the table's schema or spec changes.
     */
    @SuppressWarnings("ReferenceEquality") // identity on purpose: a schema or spec change is a new object
    private PartitionKey partitionKey(Record row) {
        Schema schema = table.schema();
        PartitionSpec spec = table.spec();
        if (partitionKey == null || keySchema != schema || keySpec != spec) {
            partitionKey = new PartitionKey(spec, schema);
            keyWrapper = new InternalRecordWrapper(schema.asStruct());
            keySchema = schema;
            keySpec = spec;
        }
        partitionKey.partition(keyWrapper.wrap(row));
        return partitionKey;
    }

    private void closeWriter() {
        if (writer == null) {
            return;
        }
        FanoutDataWriter<Record> w = writer;
        writer = null;
        try {
            w.close();
        } catch (IOException e) {
            throw new UncheckedIOException(where + ": closing data files failed", e);
        }
        DataWriteResult result = w.result();
        closedFiles.addAll(result.dataFiles());
    }

    private void deadLetter(MessagePosition pos, int batchIndex, String reason) {
        deadLetterCount++;
        deadLetters.add(topic, pos, batchIndex, reason);
    }

    // ---- committing ----

    private void commitPending() {
        closeWriter();
        List<DataFile> files = List.copyOf(closedFiles);
        long start = pendingStart;
        long end = next;
        long rows = pendingRows;
        String commitId = UUID.randomUUID().toString();
        for (int attempt = 1; ; attempt++) {
            // The check and the append see one version of the table: the append cannot rebase past the check.
            ValidatedBase base = ValidatedBase.read(table);
            Map<Long, Long> offsets = CommitSummary.committedOffsets(base.table());
            Long now = offsets.get(stream.id());
            if (!Objects.equals(now, committedBase)) {
                // Another materializer committed this stream since we read the table: its commit wins.
                conflicts++;
                LOG.warn(
                        "{}: offsets [{}, {}) were committed by another materializer (table now at {}); dropping"
                                + " {} data files",
                        where,
                        start,
                        end,
                        now,
                        files.size());
                deleteFiles(files);
                resync();
                return;
            }
            AppendFiles append = base.newAppend();
            files.forEach(append::appendFile);
            Map<Long, Long> carried = new LinkedHashMap<>(offsets);
            carried.put(stream.id(), end);
            carried.forEach((sid, off) -> append.set(CommitSummary.OFFSET_PREFIX + sid, Long.toString(off)));
            append.set(CommitSummary.RANGE, stream.id() + ":" + start + "-" + end);
            append.set(CommitSummary.COMMIT_ID, commitId);
            append.set("lakestream.topic", topic.toString());
            try {
                append.commit();
                table.refresh();
            } catch (CommitFailedException e) {
                // The catalog refused our base (another commit landed first): re-validate and try again.
                if (attempt >= MAX_COMMIT_ATTEMPTS) {
                    throw e;
                }
                continue;
            } catch (RuntimeException e) {
                // CommitStateUnknownException, or anything else from the catalog: the commit may have landed, so its
                // files must not be deleted unless the table shows it did not.
                Boolean landed = lookUp(commitId);
                if (landed == null) {
                    LOG.warn(
                            "{}: commit {} of offsets [{}, {}) has an unknown outcome that could not be resolved;"
                                    + " its {} files are left in place (orphans if it did not land)",
                            where,
                            commitId,
                            start,
                            end,
                            files.size(),
                            e);
                    closedFiles.clear();
                    throw e;
                }
                if (!landed) {
                    LOG.warn(
                            "{}: commit {} of offsets [{}, {}) failed ({}) and is not in the table; redoing the"
                                    + " range",
                            where,
                            commitId,
                            start,
                            end,
                            e.toString());
                    deleteFiles(files);
                    resync();
                    return;
                }
                LOG.info("{}: commit {} of unknown outcome ({}) is in the table", where, commitId, e.toString());
            }
            committed(end, rows);
            return;
        }
    }

    /** Whether the commit is in the table; null when the table cannot be read (after a few tries). */
    private Boolean lookUp(String commitId) {
        for (int attempt = 1; attempt <= 5; attempt++) {
            try {
                table.refresh();
                return CommitSummary.contains(table, commitId);
            } catch (RuntimeException e) {
                LOG.warn(
                        "{}: cannot read the table to resolve commit {} (attempt {}): {}",
                        where,
                        commitId,
                        attempt,
                        e.toString());
                try {
                    Thread.sleep(200L * attempt);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    return null;
                }
            }
        }
        return null;
    }

    /** The pending range landed. */
    private void committed(long end, long rows) {
        closedFiles.clear();
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
        try {
            if (writer != null) {
                closeWriter();
            }
        } catch (RuntimeException e) {
            LOG.warn("{}: closing the abandoned writer failed: {}", where, e.toString());
        }
        if (table != null) {
            deleteFiles(List.copyOf(closedFiles));
        }
        closedFiles.clear();
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

    private void deleteFiles(List<DataFile> files) {
        for (DataFile f : files) {
            try {
                table.io().deleteFile(f.location());
            } catch (RuntimeException e) {
                LOG.warn(
                        "{}: cannot delete uncommitted data file {} ({}); it is an orphan",
                        where,
                        f.location(),
                        e.toString());
            }
        }
        closedFiles.removeAll(files);
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
        long start =
                committedBase != null ? committedBase : stream.startOffset().join();
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

    // ---- the table ----

    private Table loadOrCreateTable() throws IncompatibleSchemaException, SchemaUnavailableException {
        try {
            return ensureOwnRetries(catalog.loadTable(tableId));
        } catch (NoSuchTableException e) {
            // Created from the topic's latest schema; older versions' columns are merged in as they are met.
        }
        String what = "schema " + topic.schemaId() + " (latest)";
        Schema schema = TableSchemas.schemaFor(ValueMappings.of(schemas.schema(topic.schemaId(), null), what), what);
        PartitionSpec spec = config.partitionByDay()
                ? PartitionSpec.builderFor(schema)
                        .day(MetadataColumns.PUBLISH_TIME)
                        .build()
                : PartitionSpec.unpartitioned();
        Map<String, String> props = new LinkedHashMap<>(config.tableProperties());
        props.put(TableProperties.COMMIT_NUM_RETRIES, "0");
        props.put("lakestream.topic", topic.topicName());
        if (catalog instanceof SupportsNamespaces ns) {
            createNamespace(ns, tableId.namespace());
        }
        try {
            Table t = catalog.createTable(tableId, schema, spec, props);
            LOG.info("{}: created table {}", where, tableId);
            return t;
        } catch (AlreadyExistsException e) {
            return ensureOwnRetries(catalog.loadTable(tableId));
        }
    }

    private static void createNamespace(SupportsNamespaces catalog, Namespace ns) {
        for (int i = 1; i <= ns.length(); i++) {
            Namespace level = Namespace.of(java.util.Arrays.copyOf(ns.levels(), i));
            if (!catalog.namespaceExists(level)) {
                try {
                    catalog.createNamespace(level);
                } catch (AlreadyExistsException e) {
                    // Created meanwhile by another materializer.
                }
            }
        }
    }

    /** Iceberg's internal retry would re-apply our summary on a base we did not validate: it must be off. */
    private Table ensureOwnRetries(Table t) {
        if (!"0".equals(t.properties().get(TableProperties.COMMIT_NUM_RETRIES))) {
            t.updateProperties().set(TableProperties.COMMIT_NUM_RETRIES, "0").commit();
            t.refresh();
        }
        return t;
    }
}
