package dev.lakestream.core.wal;

import dev.lakestream.core.concurrent.Futures;
import dev.lakestream.core.index.IndexRecord;
import dev.lakestream.core.index.IndexValue;
import dev.lakestream.core.index.OffsetIndex;
import dev.lakestream.core.index.VoidedRanges;
import dev.lakestream.core.index.VoidedRecords;
import dev.lakestream.core.log.EntryUnreadableException;
import dev.lakestream.core.log.LogEntry;
import dev.lakestream.core.objectstore.ObjectCorruptedException;
import dev.lakestream.core.objectstore.ObjectNotFoundException;
import dev.lakestream.core.objectstore.ObjectStore;
import dev.lakestream.core.segment.SegmentFormats;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Reads entries of a stream by offset: finds the covering index records, fetches the objects (from the
 * cache, whole, or by byte range) and slices the entries out.
 *
 * <p>Small objects are fetched whole and cached, so readers of the other streams in them hit the cache.
 * Large objects are read by range: their index first (its length is in the index record), then only the
 * bytes of the entries wanted. A reader that reads on from where its last read ended is sequential: it
 * fetches the next few small objects ahead into the cache, and in a large object the stream's next bytes, a
 * read-ahead window at a time ({@link RangeCache}), going on into the next object as it nears the end of this one.
 *
 * <p>Compacted records (a range of the stream moved into a segment of its own) are read through the segment format
 * of their file type ({@link CompactedReads}). A read returns entries of one compacted record alone, or of WAL records
 * alone: it ends where the level changes, and the caller's next read, from the last entry's end, goes on there.
 *
 * <p>Data that cannot be read back intact fails with {@link EntryUnreadableException} naming the stream,
 * the offset and the object; wrong bytes are never returned.
 */
public final class WalReader {

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(WalReader.class);

    private final ObjectStore objects;
    private final OffsetIndex index;
    /** Judges each scan's records: a stale owner's void ones are read as void entries, never as data. */
    private final VoidedRecords voids;

    private final ObjectCache cache;
    private final ReaderConfig config;
    private final Map<Long, StreamReads> streams = new ConcurrentHashMap<>();
    /** Object indexes fetched for ranged reads: every stream in a large object needs the same one. */
    private final ObjectCache headers;

    private final Map<String, CompletableFuture<ByteBuffer>> headerFetches = new ConcurrentHashMap<>();
    /** Indexes of the objects read lately, decoded once. */
    private final DecodedIndexes decoded = new DecodedIndexes(DECODED_INDEXES);
    /** Read-ahead of large objects; null when it is off. */
    private final RangeCache ranges;

    /** Where fetched bytes go: pooled direct buffers, so that reads make no garbage (entries are slices of them). */
    private final ByteBufAllocator allocator;

    private final CompactedReads compacted;

    /** Objects whose decoded index is kept: more than a catch-up reader of many streams has open at once. */
    static final int DECODED_INDEXES = 64;

    /** Index records scanned per read (plus prefetch); a read returns fewer entries when records hold one each. */
    static final int MAX_RECORDS_PER_READ = 32;

    public WalReader(
            ObjectStore objects,
            OffsetIndex index,
            VoidedRecords voids,
            ObjectCache cache,
            ReaderConfig config,
            SegmentFormats formats) {
        this(objects, index, voids, cache, config, PooledByteBufAllocator.DEFAULT, formats);
    }

    /** As above with no segment formats, fetching into buffers of {@code allocator} (tests count what it hands out). */
    WalReader(
            ObjectStore objects,
            OffsetIndex index,
            ObjectCache cache,
            ReaderConfig config,
            ByteBufAllocator allocator) {
        this(objects, index, VoidedRecords.NONE, cache, config, allocator, SegmentFormats.none());
    }

    private WalReader(
            ObjectStore objects,
            OffsetIndex index,
            VoidedRecords voids,
            ObjectCache cache,
            ReaderConfig config,
            ByteBufAllocator allocator,
            SegmentFormats formats) {
        this.allocator = allocator;
        this.compacted = new CompactedReads(formats, objects, allocator);
        this.objects = objects;
        this.index = index;
        this.voids = voids;
        this.cache = cache;
        this.config = config;
        this.headers = new ObjectCache(Math.min(config.cacheBytes() / 8, 32L << 20));
        long readAheadMemory = config.cacheBytes() / 4;
        this.ranges = config.readAheadBytes() > 0 && readAheadMemory >= config.readAheadBytes()
                ? new RangeCache(objects, readAheadMemory, allocator)
                : null;
    }

    /**
     * Reads entries from {@code fromOffset} on: at most {@code maxEntries}, and no more bytes than
     * {@code maxBytes} except that the first entry is always returned whole. The first entry is the one
     * holding {@code fromOffset}. Empty when nothing at or after {@code fromOffset} is committed yet.
     */
    public CompletableFuture<List<LogEntry>> read(long streamId, long fromOffset, int maxEntries, long maxBytes) {
        if (maxEntries < 1) {
            return CompletableFuture.completedFuture(List.of());
        }
        StreamReads reads = streams.computeIfAbsent(streamId, id -> new StreamReads());
        IndexRecord known = reads.compactedHolding(fromOffset, System.nanoTime());
        if (known != null) {
            // A reader reading on inside a segment: no index scan. The record may have been replaced since (a merge,
            // a trim): its segment stays readable for GC's safety margin, and if it is gone, the index is asked.
            boolean sequential = reads.continues(fromOffset);
            return guarded(compacted
                    .read(known, fromOffset, maxEntries, maxBytes, sequential)
                    .thenApply(got -> readCompacted(reads, known, fromOffset, voidedIn(known, got), sequential))
                    .exceptionallyCompose(e -> {
                        reads.forgetCompacted();
                        return readFromIndex(reads, streamId, fromOffset, maxEntries, maxBytes);
                    }));
        }
        return guarded(readFromIndex(reads, streamId, fromOffset, maxEntries, maxBytes));
    }

    private CompletableFuture<List<LogEntry>> readFromIndex(
            StreamReads reads, long streamId, long fromOffset, int maxEntries, long maxBytes) {
        boolean sequential = reads.continues(fromOffset);
        int prefetch = sequential ? config.prefetchRecords() : 0;
        // An index record holds all of a stream's entries in one object, often many: scan about as many records as
        // the read needs, judged by the records of the stream's last scan (one more, as the first may be
        // partly read already). Scanning a fixed 32 cost a busy stream's catch-up reader many times more index bytes
        // than entry bytes.
        int perRecord = reads.entriesPerRecord();
        int needed = (int) Math.min(MAX_RECORDS_PER_READ, (maxEntries + (long) perRecord - 1) / perRecord + 1);
        int scan = Math.min(needed, maxEntries) + prefetch;
        CompletableFuture<List<LogEntry>> entries = records(streamId, fromOffset, scan)
                .thenCompose(found -> fromHolder(streamId, fromOffset, scan, found))
                .thenCompose(all -> {
                    if (!all.isEmpty() && all.get(0).voided()) {
                        return CompletableFuture.completedFuture(voidEntries(reads, all, fromOffset, maxEntries));
                    }
                    if (!all.isEmpty() && all.get(0).value().isCompacted()) {
                        IndexRecord first = all.get(0);
                        return compacted
                                .read(first, fromOffset, maxEntries, maxBytes, sequential)
                                .thenApply(got -> {
                                    reads.rememberCompacted(first, System.nanoTime());
                                    return readCompacted(reads, first, fromOffset, voidedIn(first, got), sequential);
                                })
                                .exceptionallyCompose(e -> CompletableFuture.failedFuture(unreadable(
                                        streamId,
                                        Math.max(fromOffset, first.startOffset()),
                                        first.value().location(),
                                        e)));
                    }
                    List<IndexRecord> records = walRecordsBeforeCompacted(all);
                    rememberEntriesPerRecord(reads, records);
                    List<Selection> plan = plan(records, fromOffset, maxEntries, maxBytes);
                    if (plan.isEmpty()) {
                        return CompletableFuture.completedFuture(List.<LogEntry>of());
                    }
                    int used = plan.get(plan.size() - 1).recordIndex + 1;
                    prefetch(records.subList(Math.min(used, records.size()), records.size()));
                    Map<String, CompletableFuture<ObjectView>> fetches = new HashMap<>();
                    for (Selection s : plan) {
                        fetches.computeIfAbsent(s.record.value().location(), loc -> fetch(s));
                    }
                    return CompletableFuture.allOf(fetches.values().toArray(CompletableFuture[]::new))
                            .handle((v, e) -> {
                                // Each view holds one reference to its bytes; the entries take their own (retained
                                // slices).
                                try {
                                    if (e != null) {
                                        Throwable cause = Futures.unwrap(e);
                                        throw cause instanceof RuntimeException r ? r : new CompletionException(cause);
                                    }
                                    List<LogEntry> out = new ArrayList<>();
                                    try {
                                        for (Selection s : plan) {
                                            fetches.get(s.record.value().location())
                                                    .join()
                                                    .slice(s, out);
                                        }
                                    } catch (RuntimeException sliceError) {
                                        out.forEach(entry -> entry.payload().release());
                                        throw sliceError;
                                    }
                                    // A read of one entry that continues nothing (a redelivery, a lookup) starts no
                                    // sequence: it does
                                    // not take the place of a sequential reader's.
                                    if (sequential || out.size() > 1) {
                                        reads.ended(
                                                fromOffset,
                                                out.get(out.size() - 1).endOffset());
                                    }
                                    if (sequential && ranges != null) {
                                        Selection last = plan.get(plan.size() - 1);
                                        try {
                                            readAhead(
                                                    fetches.get(last.record
                                                                    .value()
                                                                    .location())
                                                            .join(),
                                                    last,
                                                    used < records.size() ? records.get(used) : null);
                                        } catch (RuntimeException ex) {
                                            // Only a hint: the read itself succeeded, and the read that needs these
                                            // bytes fetches them.
                                            log.debug(
                                                    "Read-ahead of stream {} after offset {} not started",
                                                    streamId,
                                                    fromOffset,
                                                    ex);
                                        }
                                    }
                                    return out;
                                } finally {
                                    for (CompletableFuture<ObjectView> f : fetches.values()) {
                                        if (f.isDone() && !f.isCompletedExceptionally()) {
                                            f.join().release();
                                        }
                                    }
                                }
                            });
                })
                .exceptionallyCompose(e -> CompletableFuture.failedFuture(Futures.unwrap(e)));
        return entries;
    }

    /**
     * The caller owns the entries only if it still wants them: entries that arrive for a read it cancelled (or
     * completed otherwise) are released here, not left to the collector.
     */
    private static CompletableFuture<List<LogEntry>> guarded(CompletableFuture<List<LogEntry>> entries) {
        CompletableFuture<List<LogEntry>> result = new CompletableFuture<>();
        // the callback completes result either way.
        var unused = entries.whenComplete((list, e) -> {
            if (e != null) {
                result.completeExceptionally(e);
            } else if (!result.complete(list)) {
                list.forEach(entry -> entry.payload().release());
            }
        });
        return result;
    }

    /**
     * After a read through a compacted record: the read is remembered (a read from its end reads on), and a reader
     * reading on near the record's end has the stream's next record looked up, so that a compacted one's first bytes
     * are fetched ahead ({@link CompactedReads#readAhead}) and crossing into it does not wait for them.
     */
    private List<LogEntry> readCompacted(
            StreamReads reads, IndexRecord record, long fromOffset, List<LogEntry> got, boolean sequential) {
        if (got.isEmpty()) {
            return got;
        }
        long end = got.get(got.size() - 1).endOffset();
        reads.ended(fromOffset, end);
        if (sequential && reads.nearsEndOf(record, end)) {
            var unused = index.recordsFrom(record.streamId(), record.endOffset(), 1)
                    .thenAccept(next -> {
                        if (!next.isEmpty()
                                && next.get(0).value().isCompacted()
                                && next.get(0).startOffset() == record.endOffset()) {
                            compacted.readAhead(next.get(0));
                        }
                    })
                    .whenComplete((v, e) -> {
                        if (e != null) {
                            log.debug("Looking up the record after {} to read it ahead failed", record.key(), e);
                        }
                    });
        }
        return got;
    }

    /**
     * Records scanned, when a scan's first record starts past the read's offset, to find the compacted record that holds
     * it: more than one switch covers ({@code StreamCompactor.SCAN} WAL records, or a merge's few segments).
     */
    static final int HOLDER_SCAN = 1024;

    /**
     * The scanned records from the one that holds {@code from} on. A compaction switch overwrites its range's last
     * record with the compacted one (whose key, the range's end, sorts after the others) and then deletes the records
     * it replaced, in parallel: a scan between the two finds records of the range that start after {@code from} before
     * the compacted record that holds it, and a read of the first found would skip the entries in between. Those
     * leading records are dropped; when the scan ended before the holder, one longer scan looks for it. When no record
     * holds {@code from} (it was trimmed), the scan is returned as it is: the read starts at the first entry kept.
     */
    private CompletableFuture<List<IndexRecord>> fromHolder(
            long streamId, long from, int scanned, List<IndexRecord> found) {
        if (found.isEmpty() || found.get(0).startOffset() <= from) {
            return CompletableFuture.completedFuture(found);
        }
        for (int i = 1; i < found.size(); i++) {
            if (found.get(i).startOffset() <= from) {
                return CompletableFuture.completedFuture(found.subList(i, found.size()));
            }
        }
        if (found.size() < scanned) {
            return CompletableFuture.completedFuture(found);
        }
        return records(streamId, from, HOLDER_SCAN).thenApply(more -> {
            for (int i = 0; i < more.size(); i++) {
                if (more.get(i).startOffset() <= from) {
                    return more.subList(i, Math.min(more.size(), i + scanned));
                }
            }
            return found;
        });
    }

    /**
     * Up to {@code limit} records from the one covering {@code from}, judged: void ones marked, cut before one not
     * settled yet ({@link VoidedRecords}).
     */
    private CompletableFuture<List<IndexRecord>> records(long streamId, long from, int limit) {
        return index.recordsFrom(streamId, from, limit)
                .thenCompose(found ->
                        found.isEmpty() ? CompletableFuture.completedFuture(found) : voids.resolve(streamId, found));
    }

    /**
     * The void entries of the scan's leading void records from the one holding {@code from} on, at most {@code max}:
     * their offsets, no payload (nothing is fetched: no reader may deliver them).
     */
    private static List<LogEntry> voidEntries(StreamReads reads, List<IndexRecord> records, long from, int max) {
        List<LogEntry> out = new ArrayList<>();
        for (IndexRecord r : records) {
            if (!r.voided() || out.size() >= max) {
                break;
            }
            long[] offsets = r.entryOffsets();
            int[] counts = r.value().entryRecordCounts();
            for (int i = 0; i < offsets.length && out.size() < max; i++) {
                if (offsets[i] + counts[i] > from) {
                    out.add(LogEntry.voided(r.streamId(), offsets[i], counts[i], r.timestamp()));
                }
            }
        }
        if (!out.isEmpty()) {
            reads.ended(from, out.get(out.size() - 1).endOffset());
        }
        return out;
    }

    /** The entries read through a compacted record, those in its void ranges ({@link VoidedRanges}) made void. */
    private static List<LogEntry> voidedIn(IndexRecord record, List<LogEntry> got) {
        VoidedRanges voided = VoidedRanges.of(record.value());
        if (voided.isEmpty()) {
            return got;
        }
        List<LogEntry> out = new ArrayList<>(got.size());
        for (LogEntry e : got) {
            out.add(voided.contains(e.offset()) ? e.asVoided() : e);
        }
        return out;
    }

    /**
     * The leading WAL records of a scan: a read does not go on into a compacted record (the next read starts it), nor
     * into a void one (read as void entries).
     */
    private static List<IndexRecord> walRecordsBeforeCompacted(List<IndexRecord> records) {
        for (int i = 0; i < records.size(); i++) {
            if (records.get(i).value().isCompacted() || records.get(i).voided()) {
                return records.subList(0, i);
            }
        }
        return records;
    }

    /**
     * Reads compacted records of {@code formats} too from now on: formats a plugin brings in its own class loader (the
     * broker plugin's Parquet format), found after the storage opened.
     */
    public void addSegmentFormats(SegmentFormats formats) {
        compacted.add(formats);
    }

    /** Releases what this reader keeps in memory of its own (read-ahead ranges, object indexes, segment readers). */
    public void close() {
        compacted.close();
        if (ranges != null) {
            ranges.clear();
        }
        headers.clear();
        decoded.clear();
    }

    /** Forgets what this reader keeps per stream (where its reads ended, its records' sizes): the stream is gone. */
    public void forget(long streamId) {
        streams.remove(streamId);
    }

    /** Streams this reader keeps read state for (what {@link #forget} drops). */
    public int streamsTracked() {
        return streams.size();
    }

    private static void rememberEntriesPerRecord(StreamReads stream, List<IndexRecord> records) {
        if (records.isEmpty()) {
            return;
        }
        // The smallest: where records shrink (a stream slowing down), scanning too many costs less than too few.
        int fewest = Integer.MAX_VALUE;
        for (IndexRecord r : records) {
            fewest = Math.min(fewest, r.value().entryCount());
        }
        stream.entriesPerRecord(fewest);
    }

    /** Which entries of which records a read returns: entries {@code [first, last]} of one index record. */
    private record Selection(IndexRecord record, int recordIndex, int first, int last) {}

    /**
     * Which entries a read returns: a contiguous run from the entry holding {@code from}, within the budgets. It ends at
     * the first entry the budgets refuse, and never goes on to a later record past one: a read whose last entry is not
     * the next one's predecessor would make its caller, which reads on from the last entry's end, step over what lies
     * between. It also ends where the index itself is not contiguous (the next read starts there).
     */
    private static List<Selection> plan(List<IndexRecord> records, long from, int maxEntries, long maxBytes) {
        List<Selection> plan = new ArrayList<>();
        int entries = 0;
        long bytes = 0;
        long expected = -1; // where the next entry must start: the end of the last one planned
        for (int r = 0; r < records.size(); r++) {
            IndexRecord rec = records.get(r);
            long[] offsets = rec.entryOffsets();
            int[] counts = rec.value().entryRecordCounts();
            // Entry sizes are only known from the object; budget bytes by the record's average entry size.
            long avg = Math.max(1, rec.value().entrySizeBytes() / Math.max(1, counts.length));
            int first = -1;
            int last = -1;
            boolean full = false;
            for (int i = 0; i < offsets.length; i++) {
                if (offsets[i] + counts[i] <= from) {
                    continue;
                }
                if (expected >= 0 && offsets[i] != expected) {
                    log.warn(
                            "Offset index of stream {} is not contiguous: record at offset {} follows entries ending"
                                    + " at {}; the read ends there",
                            rec.streamId(),
                            offsets[i],
                            expected);
                    full = true;
                    break;
                }
                if (entries >= maxEntries || (entries > 0 && bytes + avg > maxBytes)) {
                    full = true;
                    break;
                }
                if (first < 0) {
                    first = i;
                }
                last = i;
                entries++;
                bytes += avg;
                expected = offsets[i] + counts[i];
            }
            if (first >= 0) {
                plan.add(new Selection(rec, r, first, last));
            }
            if (full || entries >= maxEntries || (entries > 0 && bytes >= maxBytes)) {
                break;
            }
        }
        return plan;
    }

    /**
     * After a sequential read whose last entries came from a large object: has the stream's next bytes in that object
     * fetched ahead and, when less than a window of them is left, the first bytes of its next record's object (the rest
     * of the window), so that the reader's GETs go on across objects.
     */
    private void readAhead(ObjectView view, Selection last, IndexRecord next) {
        long window = config.readAheadBytes();
        long left = view.readAhead(ranges, last, window);
        if (left < 0 || left >= window || next == null) {
            return;
        }
        IndexValue v = next.value();
        if (v.isCompacted()
                || v.fileSize() <= config.wholeObjectMaxBytes()
                || !v.extraData().containsKey(IndexValue.EXTRA_INDEX_LENGTH)
                || cache.contains(v.location())) {
            return;
        }
        long offset = next.entryOffsets()[0];
        header(v.location(), headerLength(v))
                .thenAccept(h -> {
                    ObjectView following = ObjectView.indexOnly(decoded, h, next, offset);
                    following.readAheadFrom(ranges, v.location(), 0, window - left, window);
                })
                .exceptionally(e -> null); // only a hint: the read that needs these bytes reports what went wrong
    }

    private static int headerLength(IndexValue v) {
        return WalObjectFormat.LENGTH_PREFIX_BYTES
                + Integer.parseInt(v.extraData().get(IndexValue.EXTRA_INDEX_LENGTH));
    }

    private void prefetch(List<IndexRecord> ahead) {
        for (IndexRecord r : ahead) {
            IndexValue v = r.value();
            if (v.fileSize() <= config.wholeObjectMaxBytes() && !cache.contains(v.location())) {
                // a failed prefetch is only a missed cache fill: the read fetches the object itself.
                var unused = objects.get(v.location(), allocator).thenAccept(b -> {
                    try {
                        if (FileSize.matchesObject(v.fileSize(), b.readableBytes(), FileSize.dataStart(b))) {
                            cache.put(v.location(), b);
                        }
                    } finally {
                        b.release();
                    }
                });
            }
        }
    }

    private CompletableFuture<ObjectView> fetch(Selection s) {
        IndexValue v = s.record.value();
        String key = v.location();
        long streamId = s.record.streamId();
        long offset = s.record.entryOffsets()[s.first];
        ByteBuf cached = cache.get(key);
        if (cached != null) {
            try {
                return CompletableFuture.completedFuture(ObjectView.whole(decoded, cached, s.record, offset));
            } catch (RuntimeException e) {
                return CompletableFuture.failedFuture(e);
            }
        }
        if (v.fileSize() <= config.wholeObjectMaxBytes() || !v.extraData().containsKey(IndexValue.EXTRA_INDEX_LENGTH)) {
            return objects.get(key, allocator).handle((b, e) -> {
                if (e != null) {
                    throw unreadable(streamId, offset, key, e);
                }
                if (!FileSize.matchesObject(v.fileSize(), b.readableBytes(), FileSize.dataStart(b))) {
                    int size = b.readableBytes();
                    b.release();
                    throw new EntryUnreadableException(
                            streamId,
                            offset,
                            key,
                            "is " + size + " bytes, which fits neither meaning of the offset index's file_size "
                                    + v.fileSize() + " (its data section, or the whole object) (truncated or replaced)",
                            null);
                }
                ObjectView view = ObjectView.whole(decoded, b, s.record, offset);
                if (v.fileSize() <= config.wholeObjectMaxBytes()) {
                    cache.put(key, b);
                }
                return view;
            });
        }
        return header(key, headerLength(v))
                .handle((h, e) -> {
                    if (e != null) {
                        throw unreadable(streamId, offset, key, e);
                    }
                    return ObjectView.indexOnly(decoded, h, s.record, offset);
                })
                .thenCompose(view -> view.fetchRange(objects, allocator, ranges, s));
    }

    /**
     * The first {@code length} bytes of an object (its index), from the cache, or from one GET shared by every
     * reader that asks while it is in flight: the streams of one large object are usually read together.
     */
    private CompletableFuture<ByteBuffer> header(String key, int length) {
        ByteBuf known = headers.get(key);
        if (known != null) {
            // A heap buffer (see below): its bytes stay valid after the release.
            ByteBuffer h = known.nioBuffer();
            known.release();
            return CompletableFuture.completedFuture(h);
        }
        CompletableFuture<ByteBuffer> mine = new CompletableFuture<>();
        CompletableFuture<ByteBuffer> inFlight = headerFetches.putIfAbsent(key, mine);
        if (inFlight != null) {
            return inFlight.thenApply(ByteBuffer::duplicate);
        }
        // On the heap: an object's index is small, parsed once and cached, and ranges' views keep pointing into it.
        // the callback completes the in-flight header future either way.
        var unused = objects.get(key, 0, length).whenComplete((h, e) -> {
            if (e == null) {
                headers.put(key, Unpooled.wrappedBuffer(h));
            }
            headerFetches.remove(key, mine);
            if (e != null) {
                mine.completeExceptionally(e);
            } else {
                mine.complete(h);
            }
        });
        return mine.thenApply(ByteBuffer::duplicate);
    }

    private static RuntimeException unreadable(long streamId, long offset, String key, Throwable e) {
        Throwable cause = Futures.unwrap(e);
        if (cause instanceof EntryUnreadableException u) {
            return u;
        }
        if (cause instanceof ObjectNotFoundException) {
            return new EntryUnreadableException(streamId, offset, key, "is missing from the object store", cause);
        }
        if (cause instanceof ObjectCorruptedException) {
            return new EntryUnreadableException(streamId, offset, key, "is corrupt (checksum mismatch)", cause);
        }
        if (cause instanceof WalObjectFormatException) {
            return new EntryUnreadableException(streamId, offset, key, "does not parse: " + cause.getMessage(), cause);
        }
        return cause instanceof RuntimeException r ? r : new CompletionException(cause);
    }

    /** A parsed object (whole, or index plus one data range) from which entries are sliced. */
    private static final class ObjectView {
        private final WalObjectFormat.Index objectIndex;
        private final List<WalObjectFormat.EntryLocation> entries;
        /** The bytes entries are sliced from, one reference held by this view until {@link #release()}. */
        private ByteBuf data;

        private long dataBase;
        /** Holds only the bytes of a range (a large object), not the whole object. */
        private boolean ranged;

        private ObjectView(WalObjectFormat.Index objectIndex, List<WalObjectFormat.EntryLocation> entries) {
            this.objectIndex = objectIndex;
            this.entries = entries;
        }

        /** A view of a whole object; takes over the caller's reference to it (released here if it does not parse). */
        static ObjectView whole(DecodedIndexes decoded, ByteBuf object, IndexRecord record, long offset) {
            ObjectView view;
            try {
                // The index alone, without copying: in the writer's objects it is the first component on its own.
                int readable = object.readableBytes();
                int at = object.readerIndex();
                int indexEnd = readable;
                if (readable >= WalObjectFormat.LENGTH_PREFIX_BYTES) {
                    long length = Math.max(0, object.getInt(at));
                    indexEnd = (int) Math.min(readable, WalObjectFormat.LENGTH_PREFIX_BYTES + length);
                }
                view = indexOnly(decoded, object.nioBuffer(at, indexEnd), record, offset, readable);
            } catch (RuntimeException e) {
                object.release();
                throw e;
            }
            view.data = object;
            view.dataBase = 0;
            return view;
        }

        /** Releases the view's reference to its bytes. Idempotent. */
        void release() {
            ByteBuf held = data;
            data = null;
            if (held != null) {
                held.release();
            }
        }

        /** As {@link #indexOnly(DecodedIndexes, ByteBuffer, IndexRecord, long, long)}, the object's length unknown. */
        static ObjectView indexOnly(DecodedIndexes decoded, ByteBuffer header, IndexRecord record, long offset) {
            return indexOnly(decoded, header, record, offset, -1);
        }

        /**
         * A view of an object's index, checked against the record: entries inside the object's real length when it is
         * known ({@code objectLength} >= 0), else inside the data section the record's {@code file_size} allows.
         */
        static ObjectView indexOnly(
                DecodedIndexes decoded, ByteBuffer header, IndexRecord record, long offset, long objectLength) {
            String key = record.value().location();
            WalObjectFormat.Index idx;
            try {
                idx = decoded.decode(header, key, objectLength);
            } catch (WalObjectFormatException e) {
                throw unreadable(record.streamId(), offset, key, e);
            }
            if (!FileSize.matchesIndex(record.value().fileSize(), idx)) {
                throw new EntryUnreadableException(
                        record.streamId(),
                        offset,
                        key,
                        "has entries up to byte " + idx.dataEnd() + " of its data section, past the offset index's"
                                + " file_size " + record.value().fileSize(),
                        null);
            }
            List<WalObjectFormat.EntryLocation> entries = idx.entriesOf(record.streamId());
            int[] counts = record.value().entryRecordCounts();
            boolean matches = entries.size() == counts.length;
            for (int i = 0; matches && i < counts.length; i++) {
                matches = entries.get(i).records() == counts[i];
            }
            if (!matches) {
                throw new EntryUnreadableException(
                        record.streamId(),
                        offset,
                        key,
                        "holds entries of this stream that disagree with the offset index",
                        null);
            }
            return new ObjectView(idx, entries);
        }

        /** Fetches the selected entries' bytes: from a range read ahead when one holds them, else by a ranged GET. */
        CompletableFuture<ObjectView> fetchRange(
                ObjectStore store, ByteBufAllocator allocator, RangeCache ranges, Selection s) {
            WalObjectFormat.EntryLocation first = entries.get(s.first);
            WalObjectFormat.EntryLocation last = entries.get(s.last);
            long start = objectIndex.dataStart() + first.dataOffset();
            long length = last.dataOffset() + last.size() - first.dataOffset();
            String key = s.record.value().location();
            long offset = s.record.entryOffsets()[s.first];
            CompletableFuture<ByteBuf> bytes = ranges == null
                    ? null
                    : ranges.find(key, start, length)
                            // A read-ahead that failed is fetched again here, so that this read reports its own error.
                            .map(f -> f.exceptionallyCompose(e -> store.get(key, start, length, allocator)))
                            .orElse(null);
            return (bytes != null ? bytes : store.get(key, start, length, allocator)).handle((b, e) -> {
                if (e != null) {
                    throw unreadable(s.record.streamId(), offset, key, e);
                }
                if (b.readableBytes() != length) {
                    int got = b.readableBytes();
                    b.release();
                    throw new EntryUnreadableException(
                            s.record.streamId(),
                            offset,
                            key,
                            "returned " + got + " bytes for a range of " + length + " (truncated)",
                            null);
                }
                data = b;
                dataBase = start;
                ranged = true;
                return this;
            });
        }

        /**
         * After a read that ended at entry {@code s.last}: reads ahead the stream's next bytes in this object, if it was
         * read by range. Returns how many of the stream's bytes in this object follow that entry, or -1 when the view
         * holds the whole object (nothing to read ahead).
         */
        long readAhead(RangeCache ranges, Selection s, long window) {
            return ranged ? readAheadFrom(ranges, s.record.value().location(), s.last + 1, window, window) : -1;
        }

        /**
         * Reads ahead {@code wanted} of this stream's bytes in the object from its entry {@code next} on, in parts of a
         * {@value RangeCache#PARTS}th of {@code window}; returns how many of the stream's bytes there are from there.
         */
        long readAheadFrom(RangeCache ranges, String key, int next, long wanted, long window) {
            if (next >= entries.size()) {
                return 0;
            }
            WalObjectFormat.EntryLocation last = entries.get(entries.size() - 1);
            long from = objectIndex.dataStart() + entries.get(next).dataOffset();
            long end = objectIndex.dataStart() + last.dataOffset() + last.size();
            ranges.readAhead(key, from, end, wanted, Math.max(1, window / RangeCache.PARTS));
            return end - from;
        }

        /** Adds the selected entries to {@code out}, each a retained slice of this view's bytes (no copy). */
        void slice(Selection s, List<LogEntry> out) {
            long[] offsets = s.record.entryOffsets();
            int[] counts = s.record.value().entryRecordCounts();
            for (int i = s.first; i <= s.last; i++) {
                WalObjectFormat.EntryLocation e = entries.get(i);
                int at = Math.toIntExact(objectIndex.dataStart() + e.dataOffset() - dataBase);
                ByteBuf bytes = data.retainedSlice(data.readerIndex() + at, e.size());
                out.add(new LogEntry(s.record.streamId(), offsets[i], counts[i], s.record.timestamp(), bytes));
            }
        }
    }
}
