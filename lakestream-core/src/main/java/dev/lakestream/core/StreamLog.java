package dev.lakestream.core;

import dev.lakestream.core.cursor.CursorState;
import dev.lakestream.core.cursor.DurableCursor;
import dev.lakestream.core.log.AppendResult;
import dev.lakestream.core.log.LogEntry;
import io.netty.buffer.ByteBuf;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

/**
 * One stream of a {@link Lakestream}: append, read, tail, trim, fence, find by time, and its cursors.
 * Offsets count records, are dense and start at 0. Handles are cheap and stateless; the state lives in
 * the stores and in the shared {@link Lakestream}.
 */
public final class StreamLog {

    private final Lakestream log;
    private final long id;
    private final String name;

    StreamLog(Lakestream log, long id, String name) {
        this.log = log;
        this.id = id;
        this.name = name;
    }

    public long id() {
        return id;
    }

    /** The catalog name, or {@code #<id>} for a handle opened by id. */
    public String name() {
        return name;
    }

    /**
     * Appends one entry of {@code records} records. Completes once it is durable, with its offsets;
     * completions of one stream arrive in append order. The payload is retained until written; the caller
     * may release its own reference at once.
     */
    public CompletableFuture<AppendResult> append(int records, ByteBuf payload) {
        // Readers waiting at the end are woken by the writer, once per index commit rather than per append.
        return log.writer().append(id, records, payload);
    }

    /**
     * Entries from {@code fromOffset} on (the first one holds it), at most {@code maxEntries} and about
     * {@code maxBytes}; empty when nothing there is committed yet. Offsets trimmed away by hard trim are
     * skipped: the first entry returned may then start after {@code fromOffset}.
     */
    public CompletableFuture<List<LogEntry>> read(long fromOffset, int maxEntries, long maxBytes) {
        return log.reader().read(id, fromOffset, maxEntries, maxBytes);
    }

    /** Completes with the end offset once it is past {@code offset}: for readers waiting at the end. */
    public CompletableFuture<Long> waitBeyond(long offset) {
        return log.tail().waitBeyond(id, offset);
    }

    /** The offset the next append will get (0 for an empty stream). */
    public CompletableFuture<Long> endOffset() {
        return log.index().endOffset(id);
    }

    /** Payload bytes of the entries starting in {@code [from, to)}, from the offset index (see {@code OffsetIndex}). */
    public CompletableFuture<Long> payloadBytes(long from, long to) {
        return log.index().payloadBytes(id, from, to);
    }

    /** The first offset still readable. */
    public CompletableFuture<Long> startOffset() {
        return log.trimmer().startOffset(id);
    }

    /**
     * Makes offsets below {@code offset} unreadable (never moves back); returns the start after the call. Ursa's marker
     * stops at the start of the last index record; the exact point is kept for this project's readers ({@code
     * StreamTrimmer}).
     */
    public CompletableFuture<Long> softTrim(long offset) {
        return log.trimmer().softTrim(id, offset);
    }

    /** Soft-trims, then deletes the index records wholly below {@code offset} (keeping the last one). */
    public CompletableFuture<Void> trim(long offset) {
        return log.trimmer()
                .softTrim(id, offset)
                .thenCompose(start -> log.trimmer().hardTrim(id, start));
    }

    /** The lowest retention hold on the stream: retention keeps offsets at or above it ({@code RetentionHolds}). */
    public CompletableFuture<OptionalLong> retentionFloor() {
        return log.retentionHolds().floor(id);
    }

    /**
     * Takes the stream over for writing; writers holding an older epoch are refused. Returns the new epoch. Fails with
     * {@link dev.lakestream.core.log.StreamWriteFencedException} (raising no epoch) when the stream's permanent write
     * fence {@code /stream-write-fences/<id>} exists: the stream is being deleted.
     */
    public CompletableFuture<Long> fence() {
        return log.writeFences()
                .checkForWriting(id)
                .thenCompose(v -> log.fences().fence(id));
    }

    /** Stops checking this process's epoch and permanent write fence for the stream (the owner closed it). */
    public void releaseFence() {
        log.fences().release(id);
        log.writeFences().forget(id);
    }

    /** The first offset in {@code [start, end)} committed at or after {@code timestamp} (ms), or empty. */
    public CompletableFuture<Optional<Long>> findOffsetByTime(long timestamp) {
        return startOffset()
                .thenCombine(endOffset(), (s, e) -> new long[] {s, e})
                .thenCompose(r -> log.timeIndex().firstOffsetAtOrAfter(id, timestamp, r[0], r[1]));
    }

    /** Opens a durable cursor, restoring its persisted state, or creating it at {@code initialAckedBefore}. */
    public CompletableFuture<DurableCursor> openCursor(String cursorName, long initialAckedBefore) {
        return log.cursors()
                .load(id, cursorName)
                .thenApply(state -> new DurableCursor(
                        id,
                        cursorName,
                        state.orElse(CursorState.at(initialAckedBefore)),
                        log.cursors(),
                        log.scheduler(),
                        log.config().cursorPersistInterval()));
    }

    /** A cursor kept in memory only. */
    public DurableCursor nonDurableCursor(String cursorName, long ackedBefore) {
        return new DurableCursor(
                id,
                cursorName,
                CursorState.at(ackedBefore),
                null,
                log.scheduler(),
                log.config().cursorPersistInterval());
    }

    public CompletableFuture<List<String>> cursorNames() {
        return log.cursors().list(id);
    }

    public CompletableFuture<Boolean> deleteCursor(String cursorName) {
        return log.cursors().delete(id, cursorName);
    }

    /**
     * Removes the stream's index, trim marker and trim point, cursors and retention holds from the metadata store, and what this process keeps in
     * memory for it. Its objects are reclaimed by garbage collection. The catalog record is the caller's (see
     * {@code StreamCatalog#delete}).
     *
     * <p>First it places the stream's permanent write fence {@code /stream-write-fences/<id>}, as Ursa does before it
     * purges a stream: writers of this project (in any process) and Ursa's stop committing to it. The fence stays.
     */
    public CompletableFuture<Void> deleteData() {
        return log.writeFences()
                .place(id)
                .thenCompose(v -> log.cursors().deleteAll(id))
                .thenCompose(v -> log.retentionHolds().releaseAll(id))
                .thenCompose(v -> log.trimmer().deleteAll(id))
                .thenRun(() -> {
                    log.fences().release(id);
                    log.reader().forget(id);
                });
    }

    @Override
    public String toString() {
        return "stream " + name + " (id " + id + ")";
    }
}
