package dev.lakestream.segments;

import dev.lakestream.core.concurrent.DaemonThreads;
import dev.lakestream.core.concurrent.Futures;
import dev.lakestream.core.index.IndexRecord;
import dev.lakestream.core.log.EntryUnreadableException;
import dev.lakestream.core.log.LogEntry;
import dev.lakestream.core.objectstore.InvalidRangeException;
import dev.lakestream.core.objectstore.ObjectNotFoundException;
import dev.lakestream.core.objectstore.ObjectStore;
import dev.lakestream.core.segment.SegmentReader;
import io.netty.buffer.ByteBufAllocator;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * Reads entries out of Parquet segments by ranged GETs: the footer (once per object, then cached), then the row group
 * holding the offset, by the footer's {@code _lakestream_offset} statistics, in one GET of its core columns' bytes,
 * then the following row groups while the read's budget lasts. A segment below {@link Limits#wholeObjectBelow()}
 * bytes is fetched whole, in one GET. A row group is decoded whole and kept a while ({@link DecodedGroups}, up to
 * {@link Limits#decodedGroupBytes()}): a consumer catching up reads far less than a group at a time, and its next
 * reads are served from memory, not by fetching and decoding the group again. For a reader reading on ({@link #readOn},
 * which the core tells apart, also into the stream's next segment) the groups after its read come ahead in spans of up to
 * {@link Limits#readAheadBytes()} ({@link FetchedSpans}), read one after the other from one stream of the segment's row
 * groups ({@link SpanStreams}: one GET a segment), and the next group is decoded before it is asked for. Bytes are
 * fetched first and decoded from memory after, on the reader's own decoding threads, and
 * entries are copied into reads on a thread of its own: neither the store's response threads nor the caller's carry
 * the work, and nothing here waits on a future.
 */
final class ParquetSegmentReader implements SegmentReader {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ParquetSegmentReader.class);

    /**
     * @param wholeObjectBelow segments smaller than this are fetched in one GET
     * @param tailBytes the first GET of a larger segment's footer fetches this many bytes of its end (most footers fit)
     * @param footers decoded footers kept, by object key
     * @param decodeThreads threads decoding fetched bytes (daemon threads, ended on {@link #close()})
     * @param decodedGroupBytes payload bytes of decoded row groups kept for the next reads (eight default row groups)
     * @param readAheadBytes a reader reading on has the row groups after its own fetched ahead in spans of up to this
     *     many bytes, read from one stream of the segment, a new span once less than this is ahead of it; twice this
     *     is the bound on bytes fetched ahead and not decoded yet, over all readers (0: one row group ahead, in its
     *     own GET)
     */
    record Limits(
            long wholeObjectBelow,
            int tailBytes,
            int footers,
            int decodeThreads,
            long decodedGroupBytes,
            long readAheadBytes) {
        static final Limits DEFAULT = new Limits(
                256 << 10,
                64 << 10,
                1024,
                Math.max(2, Math.min(4, Runtime.getRuntime().availableProcessors() / 2)),
                64L << 20,
                32L << 20);

        Limits(long wholeObjectBelow, int tailBytes, int footers) {
            this(wholeObjectBelow, tailBytes, footers, 1, DEFAULT.decodedGroupBytes(), DEFAULT.readAheadBytes());
        }
    }

    private final ObjectStore objects;
    private final ByteBufAllocator allocator;
    private final Limits limits;
    private final FooterCache footers;
    private final DecodedGroups groups;
    /** Row groups' bytes fetched ahead of readers reading on, not decoded yet. */
    private final FetchedSpans spans;
    /** Where those spans come from: one stream per segment a reader reads on through. */
    private final SpanStreams streams;
    /** Row groups being decoded (or fetched) ahead of a reader reading on, by {@link #name}: a read of one waits. */
    private final Map<String, CompletableFuture<Void>> ahead = new ConcurrentHashMap<>();

    private final ParquetReadOptions options;
    private final ExecutorService decoder;
    /**
     * Copies entries of groups already decoded into reads: its own thread, so that a read served from memory never
     * waits behind a row group being decoded ahead.
     */
    private final ExecutorService copier;

    ParquetSegmentReader(ObjectStore objects, ByteBufAllocator allocator, Limits limits) {
        this.copier = Executors.newSingleThreadExecutor(DaemonThreads.numbered("lakestream-segment-copy-"));
        this.decoder = Executors.newFixedThreadPool(
                limits.decodeThreads(), DaemonThreads.numbered("lakestream-segment-decode-"));
        this.objects = objects;
        this.allocator = allocator;
        this.limits = limits;
        this.footers = new FooterCache(limits.footers());
        this.groups = new DecodedGroups(limits.decodedGroupBytes());
        this.spans = new FetchedSpans(2 * limits.readAheadBytes());
        this.streams = new SpanStreams(objects);
        // Parquet's default allocator (heap, never reusing a buffer) is what lets a decoded group keep views of the
        // pages instead of copies (DecodedGroup): do not give it a pooling or direct one.
        this.options = ParquetReadOptions.builder(new PlainParquetConfiguration())
                .withCodecFactory(new SegmentCodecs(0))
                .usePageChecksumVerification(true)
                .withUseHadoopVectoredIo(true) // not Hadoop's: FetchedInputFile serves the chunks as views
                .useStatsFilter(false)
                .useDictionaryFilter(false)
                .useRecordFilter(false)
                .useColumnIndexFilter(false)
                .useBloomFilter(false)
                .build();
    }

    @Override
    public CompletableFuture<List<LogEntry>> read(IndexRecord record, long fromOffset, int maxEntries, long maxBytes) {
        return read(record, fromOffset, maxEntries, maxBytes, false);
    }

    @Override
    public CompletableFuture<List<LogEntry>> readOn(
            IndexRecord record, long fromOffset, int maxEntries, long maxBytes) {
        return read(record, fromOffset, maxEntries, maxBytes, true);
    }

    private CompletableFuture<List<LogEntry>> read(
            IndexRecord record, long fromOffset, int maxEntries, long maxBytes, boolean onward) {
        String key = record.value().location();
        long at = Math.max(fromOffset, record.startOffset());
        if (maxEntries < 1 || maxBytes < 1) {
            return CompletableFuture.failedFuture(new IllegalArgumentException(
                    "a read needs room for an entry, not " + maxEntries + " entries / " + maxBytes + " bytes"));
        }
        if (at >= record.endOffset()) {
            return CompletableFuture.completedFuture(List.of());
        }
        EntryCollector collector =
                new EntryCollector(record.streamId(), record.timestamp(), at, maxEntries, maxBytes, allocator);
        long size = record.value().fileSize();
        CompletableFuture<List<LogEntry>> read;
        try {
            SegmentFooter known = footers.get(key, size);
            read = size < limits.wholeObjectBelow() && (known == null || !groups.contains(key, known.groupHolding(at)))
                    ? readWhole(record, key, size, at, collector)
                    : footer(key, size).thenCompose(f -> {
                        agree(record, f);
                        return readGroups(key, f, f.groupHolding(at), collector, onward);
                    });
        } catch (RuntimeException e) {
            read = CompletableFuture.failedFuture(e);
        }
        return read.handle((entries, e) -> {
            if (e == null) {
                return entries;
            }
            collector.releaseAll();
            throw unreadable(record, at, key, Futures.unwrap(e));
        });
    }

    /**
     * The stream's next segment, for a reader reading on near the end of this one: its footer, then its first span,
     * with row group 0 decoded ahead. Failures are not reported: the read that comes fetches what it needs itself.
     */
    @Override
    public void readAhead(IndexRecord next) {
        String key = next.value().location();
        long size = next.value().fileSize();
        if (size < limits.wholeObjectBelow() || groups.contains(key, 0) || spans.contains(key, 0)) {
            return; // a small segment is one GET when it is read; a large one is on its way
        }
        var unused = footer(key, size)
                .thenAccept(f -> {
                    agree(next, f);
                    fetchSpan(key, f, 0);
                    decodeAhead(key, f, 0);
                })
                .whenComplete((v, e) -> {
                    if (e != null) {
                        LOG.debug("Fetching segment {} ahead failed (its read will fetch it)", key, e);
                    }
                });
    }

    /** A small segment: one GET of all of it, then the row groups from memory. */
    private CompletableFuture<List<LogEntry>> readWhole(
            IndexRecord record, String key, long size, long at, EntryCollector collector) {
        return objects.get(key, 0, Math.max(size, 1))
                .thenApplyAsync(
                        bytes -> {
                            checkLength(bytes, size, 0, size);
                            SegmentFooter f = footers.get(key, size);
                            if (f == null) {
                                f = SegmentFooter.parse(key, size, bytes, options);
                                footers.put(key, f);
                            }
                            agree(record, f);
                            FetchedInputFile in = new FetchedInputFile(key, size).with(0, bytes);
                            for (int g = f.groupHolding(at); g < f.groups(); g++) {
                                feed(decode(key, f, g, in), collector);
                                if (!collector.wantsMore()) {
                                    break;
                                }
                            }
                            return collector.entries();
                        },
                        decoder);
    }

    /** The footer: cached, or fetched from the object's end (a second GET when it is longer than the first got). */
    private CompletableFuture<SegmentFooter> footer(String key, long size) {
        SegmentFooter cached = footers.get(key, size);
        if (cached != null) {
            return CompletableFuture.completedFuture(cached);
        }
        long tailLength = Math.min(size, limits.tailBytes());
        return objects.get(key, size - tailLength, tailLength)
                .thenCompose(tail -> {
                    checkLength(tail, tailLength, size - tailLength, size);
                    int footerLength = SegmentFooter.footerLength(tail, size);
                    long needed = (long) footerLength + SegmentFooter.TRAILER;
                    if (needed <= tailLength) {
                        return CompletableFuture.completedFuture(tail);
                    }
                    return objects.get(key, size - needed, needed).thenApply(all -> {
                        checkLength(all, needed, size - needed, size);
                        return all;
                    });
                })
                .thenApplyAsync(
                        tail -> {
                            SegmentFooter f = SegmentFooter.parse(key, size, tail, options);
                            footers.put(key, f);
                            return f;
                        },
                        decoder);
    }

    /**
     * Row group {@code g}, from the decoded groups kept, or decoded ahead, or fetched ahead, or in one GET (then decoded
     * whole and kept); then the next while the read wants more. A reader reading on ({@code onward}) has the groups
     * after the one it stops in fetched ahead ({@link #readAhead}), so that GETs and decoding overlap its reads.
     */
    private CompletableFuture<List<LogEntry>> readGroups(
            String key, SegmentFooter f, int g, EntryCollector collector, boolean onward) {
        DecodedGroup kept = groups.get(key, g);
        CompletableFuture<Void> fed;
        if (kept != null) {
            fed = feedAsync(kept, collector);
        } else {
            CompletableFuture<Void> decoding = ahead.get(name(key, g));
            fed = decoding == null
                    ? fetchedOrGet(key, f, g, collector)
                    // What it kept, once it is done; fetched again if it failed or was evicted meanwhile.
                    : decoding.thenCompose(v -> {
                        DecodedGroup got = groups.get(key, g);
                        return got != null ? feedAsync(got, collector) : fetchAndFeed(key, f, g, collector);
                    });
        }
        return fed.thenCompose(v -> {
            if (collector.wantsMore() && g + 1 < f.groups()) {
                return readGroups(key, f, g + 1, collector, onward);
            }
            if (onward && g + 1 < f.groups()) {
                readAhead(key, f, g);
            }
            return CompletableFuture.completedFuture(collector.entries());
        });
    }

    /** Group {@code g} from a span fetched ahead (GET again if that failed), or in its own GET. */
    private CompletableFuture<Void> fetchedOrGet(String key, SegmentFooter f, int g, EntryCollector collector) {
        CompletableFuture<FetchedSpans.Span> span = spans.take(key, g);
        if (span == null) {
            return fetchAndFeed(key, f, g, collector);
        }
        return span.handle((s, e) -> s)
                .thenCompose(s -> s == null
                        ? fetchAndFeed(key, f, g, collector)
                        : CompletableFuture.runAsync(
                                () -> feed(decode(key, f, g, fetched(key, f, s)), collector), decoder));
    }

    private CompletableFuture<Void> fetchAndFeed(String key, SegmentFooter f, int g, EntryCollector collector) {
        long start = f.groupStart[g];
        long length = f.groupEnd[g] - start;
        return objects.get(key, start, length)
                .thenAcceptAsync(
                        bytes -> {
                            checkLength(bytes, length, start, f.fileSize);
                            feed(
                                    decode(key, f, g, new FetchedInputFile(key, f.fileSize).with(start, bytes)),
                                    collector);
                        },
                        decoder);
    }

    /**
     * A reader reading on stopped in group {@code g}: keeps up to {@link Limits#readAheadBytes()} after it fetched or on
     * the way (a span of the groups after those in one GET, when less is), and has group {@code g + 1} decoded ahead.
     * Without room in the bound for spans, group {@code g + 1} alone is fetched ahead.
     */
    private void readAhead(String key, SegmentFooter f, int g) {
        long covered = 0;
        int h = g + 1;
        while (h < f.groups()
                && covered < limits.readAheadBytes()
                && (groups.contains(key, h) || ahead.containsKey(name(key, h)) || spans.contains(key, h))) {
            covered += f.groupEnd[h] - f.groupStart[h];
            h++;
        }
        if (h < f.groups() && covered < limits.readAheadBytes()) {
            fetchSpan(key, f, h);
        }
        decodeAhead(key, f, g + 1);
    }

    /**
     * The groups from {@code first} on, up to {@link Limits#readAheadBytes()} (at least one), read from the segment's
     * stream ({@link SpanStreams}).
     */
    private void fetchSpan(String key, SegmentFooter f, int first) {
        int last = first;
        while (last + 1 < f.groups() && f.groupEnd[last + 1] - f.groupStart[first] <= limits.readAheadBytes()) {
            last++;
        }
        long[] lengths = new long[last - first + 1];
        for (int i = 0; i < lengths.length; i++) {
            lengths[i] = f.groupEnd[first + i] - f.groupStart[first + i];
        }
        long start = f.groupStart[first];
        long length = f.groupEnd[last] - start;
        CompletableFuture<FetchedSpans.Span> span = new CompletableFuture<>();
        if (!spans.offer(key, first, lengths, span, System.nanoTime())) {
            return;
        }
        streams.span(key, start, length, f.groupEnd[f.groups() - 1]).whenComplete((bytes, e) -> {
            if (e == null && bytes.remaining() == length) {
                span.complete(new FetchedSpans.Span(start, bytes));
            } else {
                spans.forget(span);
                span.completeExceptionally(
                        e != null ? e : new BadSegmentException("returned a short span (truncated?)", null));
            }
        });
    }

    /**
     * Decodes group {@code g} into the groups kept, from a span fetched ahead or in a GET of its own, unless it is there
     * or on its way. Its failure is not reported: the read that needs the group fetches it again, and reports what goes
     * wrong then.
     */
    private void decodeAhead(String key, SegmentFooter f, int g) {
        String name = name(key, g);
        if (groups.contains(key, g)) {
            return;
        }
        CompletableFuture<Void> mine = new CompletableFuture<>();
        if (ahead.putIfAbsent(name, mine) != null) {
            return;
        }
        CompletableFuture<FetchedSpans.Span> fetched = spans.take(key, g);
        if (fetched == null) {
            long start = f.groupStart[g];
            long length = f.groupEnd[g] - start;
            fetched = objects.get(key, start, length).thenApply(bytes -> {
                checkLength(bytes, length, start, f.fileSize);
                return new FetchedSpans.Span(start, bytes);
            });
        }
        var unused = fetched.thenAcceptAsync(
                        s -> decode(key, f, g, fetched(key, f, s)).release(), // kept by the groups
                        decoder)
                .whenComplete((v, e) -> {
                    ahead.remove(name, mine);
                    mine.complete(null);
                });
    }

    private static FetchedInputFile fetched(String key, SegmentFooter f, FetchedSpans.Span s) {
        return new FetchedInputFile(key, f.fileSize).with(s.position(), s.bytes());
    }

    private static String name(String key, int group) {
        return group + "@" + key;
    }

    /** Decodes row group {@code g} whole and keeps it; the caller owns the reference returned. */
    private DecodedGroup decode(String key, SegmentFooter f, int g, FetchedInputFile in) {
        // Compressed pages are arrays of their own; an uncompressed one is a view of the fetched span, which a view of
        // it would keep whole: copy those entries.
        boolean pagesOwnTheirBytes = f.metadata.getBlocks().get(g).getColumns().stream()
                .filter(c -> c.getPath().toDotString().equals(SegmentColumns.ENTRY))
                .allMatch(c -> c.getCodec() != CompressionCodecName.UNCOMPRESSED);
        DecodedGroup d = new DecodedGroup(key, g, pagesOwnTheirBytes);
        try {
            RowGroupDecoder.decode(f, g, in, options, d);
        } catch (RuntimeException e) {
            d.release();
            throw e;
        }
        groups.put(d);
        return d;
    }

    /** {@link #feed} on the copying thread; the group's reference is released also when that thread is refused. */
    private CompletableFuture<Void> feedAsync(DecodedGroup g, EntryCollector collector) {
        try {
            return CompletableFuture.runAsync(() -> feed(g, collector), copier);
        } catch (RuntimeException e) {
            g.release(); // closed: the task never runs
            return CompletableFuture.failedFuture(e);
        }
    }

    /** Hands the group's entries to the read, and releases the caller's reference of the group. */
    private static void feed(DecodedGroup g, EntryCollector collector) {
        try {
            g.feed(collector);
        } finally {
            g.release();
        }
    }

    private static void checkLength(ByteBuffer got, long wanted, long position, long size) {
        if (got.remaining() != wanted) {
            throw new BadSegmentException(
                    "is corrupt: bytes [" + position + ", " + (position + wanted) + ") of the " + size
                            + " its index record gives returned " + got.remaining() + " bytes (truncated?)",
                    null);
        }
    }

    /** The footer must say what the compacted record says: stream, offsets, entries and messages. */
    private static void agree(IndexRecord record, SegmentFooter f) {
        if (f.streamId != record.streamId()
                || f.firstOffset != record.startOffset()
                || f.endOffset != record.endOffset()
                || f.entryCount != record.value().entryCount()
                || f.rows != record.value().messageCount()) {
            throw new BadSegmentException(
                    "disagrees with its compacted index record " + record.key().format()
                            + ": the segment's footer says stream " + f.streamId + ", offsets [" + f.firstOffset + ", "
                            + f.endOffset + "), " + f.entryCount + " entries, " + f.rows
                            + " messages; the record says stream "
                            + record.streamId() + ", offsets [" + record.startOffset() + ", " + record.endOffset()
                            + "), "
                            + record.value().entryCount() + " entries, "
                            + record.value().messageCount() + " messages",
                    null);
        }
    }

    private static RuntimeException unreadable(IndexRecord record, long at, String key, Throwable c) {
        if (c instanceof EntryUnreadableException u) {
            return u;
        }
        String problem;
        if (c instanceof ObjectNotFoundException) {
            problem = "is missing from the object store";
        } else if (c instanceof InvalidRangeException) {
            problem = "is corrupt: shorter than the " + record.value().fileSize()
                    + " bytes its index record gives (truncated; " + c.getMessage() + ")";
        } else if (c instanceof BadSegmentException) {
            problem = c.getMessage();
        } else {
            // The store failing (unavailable, denied): not the segment's fault; the caller may retry.
            return c instanceof RuntimeException r ? r : new CompletionException(c);
        }
        return new EntryUnreadableException(
                record.streamId(),
                at,
                key,
                problem + " (segment of index record " + record.key().format() + ", offsets [" + record.startOffset()
                        + ", " + record.endOffset() + "))",
                c);
    }

    /** Footers cached now (tests). */
    int cachedFooters() {
        return footers.size();
    }

    @Override
    public void close() {
        footers.clear();
        streams.close();
        groups.close();
        decoder.shutdown();
        copier.shutdown();
    }
}
