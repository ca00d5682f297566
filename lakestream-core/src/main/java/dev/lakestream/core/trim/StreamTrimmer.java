package dev.lakestream.core.trim;

import dev.lakestream.core.index.IndexKey;
import dev.lakestream.core.index.IndexRecord;
import dev.lakestream.core.index.OffsetIndex;
import dev.lakestream.core.metadata.DeleteOptions;
import dev.lakestream.core.metadata.GetOptions;
import dev.lakestream.core.metadata.KeyAlreadyExistsException;
import dev.lakestream.core.metadata.MetadataStore;
import dev.lakestream.core.metadata.PutOptions;
import dev.lakestream.core.metadata.UnexpectedVersionException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * Trims the head of a stream.
 *
 * <ul>
 *   <li><b>Soft trim</b> moves the stream's start offset forward. It writes two compare-and-set records that never
 *       move backwards (a trim to an offset at or below the current one changes neither):
 *       <ul>
 *         <li>the marker {@code /mark-deleted-offsets/<streamId>} (partition key: the stream id; value: the exclusive
 *             offset in decimal), Ursa's key, which Ursa's readers and cleaner read. As Ursa's own soft trim does, it
 *             is clamped to the start of the stream's last index record at the time of the write: Ursa's cleaner
 *             deletes the records wholly below the marker, and a marker past the last record's start would let it
 *             delete the last record, from which the stream's next offset comes. As appends move the last record
 *             forward, a later trim raises the marker up to the trim point.</li>
 *         <li>the trim point {@code <root>/trimmed-before/<streamId>} (same partition key and value format), our own
 *             record, written only when the trim point is above the clamped marker (a trim into the last record, as
 *             a managed ledger's retention does when everything is consumed): readers of this project start at the
 *             exact point trimmed, across restarts, while Ursa's see at most the last record.</li>
 *       </ul></li>
 *   <li><b>Hard trim</b> deletes the index records that lie wholly below an offset (one range delete),
 *       always keeping the stream's last record: the sequence-key counters, and so the next offset, come
 *       from the highest surviving key. The objects those records pointed at are reclaimed later by
 *       garbage collection.</li>
 * </ul>
 *
 * Before index records are deleted (hard trim, {@link #deleteAll}), the keys of the objects they point at are noted
 * under {@code <root>/gc/released/} for the garbage collector: it checks each noted object once and deletes it if
 * no live stream references it any more, even when a stream that is never trimmed holds its horizon back.
 *
 * The start offset is {@code max(marker, trim point, start of the first surviving record)}. An Ursa reader, which
 * knows only the marker, starts at {@code max(marker, start of the first surviving record)}: never past the last
 * record's start, so it always finds the last record.
 */
public final class StreamTrimmer {

    private static final int CAS_ATTEMPTS = 5;
    /** Records scanned at a time, and so object keys per note at most: about 30 KB of value. */
    private static final int SCAN_PAGE = 500;

    private final MetadataStore metadata;
    private final OffsetIndex index;
    private final String releasedPrefix;
    private final String metadataRoot;

    public StreamTrimmer(MetadataStore metadata, OffsetIndex index, String metadataRoot) {
        this.metadata = metadata;
        this.index = index;
        this.releasedPrefix = releasedPrefix(metadataRoot);
        this.metadataRoot = metadataRoot;
    }

    /** Where the notes of released objects live: {@code <root>/gc/released/<streamId>-<end offset>}. */
    public static String releasedPrefix(String metadataRoot) {
        return metadataRoot + "/gc/released/";
    }

    /** Ursa's soft-trim marker: never above the start of the stream's last index record when written. */
    public static String markerKey(long streamId) {
        return "/mark-deleted-offsets/" + streamId;
    }

    /** Our exact trim point, where only this project reads it: {@code <root>/trimmed-before/<streamId>}. */
    public static String trimPointKey(String metadataRoot, long streamId) {
        return metadataRoot + "/trimmed-before/" + streamId;
    }

    /** The soft-trim point (the marker, or our trim point if higher), 0 when the stream was never trimmed. */
    public CompletableFuture<Long> trimmedBefore(long streamId) {
        return read(markerKey(streamId), streamId).thenCombine(read(trimPointKey(streamId), streamId), Math::max);
    }

    /** The first readable offset: the soft-trim point, or the start of the first surviving index record if later. */
    public CompletableFuture<Long> startOffset(long streamId) {
        return trimmedBefore(streamId)
                .thenCombine(
                        index.first(streamId),
                        (trimmed, first) -> Math.max(
                                trimmed, first.map(IndexRecord::startOffset).orElse(trimmed)));
    }

    private String trimPointKey(long streamId) {
        return trimPointKey(metadataRoot, streamId);
    }

    /** An offset record of the stream ({@link #markerKey} or {@link #trimPointKey}), 0 when absent. */
    private CompletableFuture<Long> read(String key, long streamId) {
        return metadata.get(key, GetOptions.DEFAULT.partitionKey(IndexKey.partitionKey(streamId)))
                .thenApply(r -> r.map(rec -> parse(rec.value(), key)).orElse(0L));
    }

    /**
     * Moves the start offset to {@code offset} (exclusive: offsets below it become unreadable). Ursa's marker goes to
     * {@code min(offset, start of the last index record)}, and to our trim point if that is higher and the last
     * record has moved past it since; our trim point goes to {@code offset} when the marker stops short of it.
     *
     * @return the soft-trim point after the call (greater than {@code offset} if another trim went further)
     */
    public CompletableFuture<Long> softTrim(long streamId, long offset) {
        String trimPoint = trimPointKey(streamId);
        return read(trimPoint, streamId)
                .thenCombine(index.last(streamId), (ours, last) -> {
                    long wanted = Math.max(offset, ours);
                    // An empty stream has no last record: the marker stays where it is (0 on a new stream).
                    long clamped =
                            Math.min(wanted, last.map(IndexRecord::startOffset).orElse(0L));
                    return new long[] {ours, wanted, clamped};
                })
                .thenCompose(t -> {
                    long ours = t[0];
                    long wanted = t[1];
                    long clamped = t[2];
                    // Our point first: stopped between the two writes, our readers already start at the new point
                    // and Ursa's see less trimmed, never more than Ursa allows.
                    CompletableFuture<Long> oursAfter = wanted > clamped && offset > ours
                            ? raise(trimPoint, streamId, offset, CAS_ATTEMPTS)
                            : CompletableFuture.completedFuture(ours);
                    return oursAfter.thenCompose(o -> raise(markerKey(streamId), streamId, clamped, CAS_ATTEMPTS)
                            .thenApply(marker -> Math.max(o, marker)));
                });
    }

    /** Raises the offset record {@code key} to {@code offset} by compare-and-set, never lowering it; its value after. */
    private CompletableFuture<Long> raise(String key, long streamId, long offset, int attemptsLeft) {
        String pk = IndexKey.partitionKey(streamId);
        return metadata.get(key, GetOptions.DEFAULT.partitionKey(pk)).thenCompose(current -> {
            long now = current.map(r -> parse(r.value(), key)).orElse(0L);
            if (offset <= now) {
                return CompletableFuture.completedFuture(now);
            }
            PutOptions options = current.map(
                            r -> PutOptions.ifVersion(r.version().versionId()))
                    .orElse(PutOptions.ifAbsent())
                    .partitionKey(pk);
            return metadata.put(key, Long.toString(offset).getBytes(StandardCharsets.UTF_8), options)
                    .thenApply(p -> offset)
                    .exceptionallyCompose(e -> {
                        Throwable c = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
                        boolean raced =
                                c instanceof UnexpectedVersionException || c instanceof KeyAlreadyExistsException;
                        if (raced && attemptsLeft > 1) {
                            return raise(key, streamId, offset, attemptsLeft - 1);
                        }
                        return CompletableFuture.failedFuture(c);
                    });
        });
    }

    /**
     * Deletes the index records whose entries all lie below {@code offset}, keeping the last record.
     * Readers must already be kept off those offsets by a soft trim at or beyond {@code offset}.
     */
    @SuppressWarnings("FutureReturnValueIgnored") // thenCombine's nested future is flattened by thenCompose(f -> f)
    public CompletableFuture<Void> hardTrim(long streamId, long offset) {
        return index.first(streamId)
                .thenCombine(index.last(streamId), (first, last) -> {
                    if (first.isEmpty()
                            || first.get().endOffset() > offset
                            || last.isEmpty()
                            || first.get().endOffset() == last.get().endOffset()) {
                        return CompletableFuture.<Void>completedFuture(
                                null); // nothing wholly below the offset but the last
                    }
                    String end = last.get().endOffset() <= offset
                            ? last.get().key().format()
                            : IndexKey.coveringSearchKey(streamId, offset);
                    long lastEnd = last.get().endOffset();
                    return noteReleased(streamId, 0, r -> r.endOffset() <= offset && r.endOffset() < lastEnd)
                            .thenCompose(v -> metadata.deleteRange(
                                    IndexKey.lowest(streamId), end, Optional.of(IndexKey.partitionKey(streamId))));
                })
                .thenCompose(f -> f);
    }

    /** Removes everything the stream has in the metadata store: its index, its marker and its trim point. */
    public CompletableFuture<Void> deleteAll(long streamId) {
        Optional<String> pk = Optional.of(IndexKey.partitionKey(streamId));
        DeleteOptions options = DeleteOptions.DEFAULT.partitionKey(pk.get());
        return noteReleased(streamId, 0, r -> true)
                .thenCompose(v -> metadata.deleteRange(IndexKey.lowest(streamId), IndexKey.highest(streamId), pk))
                .thenCompose(v -> metadata.delete(markerKey(streamId), options))
                .thenCompose(deleted -> metadata.delete(trimPointKey(streamId), options))
                .thenApply(deleted -> null);
    }

    /**
     * Notes the objects of the stream's records from {@code from} on, as long as {@code released} accepts them: one
     * note per page of records, its keys one per line, written before the records are deleted.
     */
    private CompletableFuture<Void> noteReleased(long streamId, long from, Predicate<IndexRecord> released) {
        return index.recordsFrom(streamId, from, SCAN_PAGE).thenCompose(records -> {
            List<IndexRecord> page = new ArrayList<>();
            for (IndexRecord r : records) {
                if (!released.test(r)) {
                    break;
                }
                page.add(r);
            }
            if (page.isEmpty()) {
                return CompletableFuture.completedFuture(null);
            }
            String keys =
                    page.stream().map(r -> r.value().location()).distinct().collect(Collectors.joining("\n"));
            boolean more = page.size() == SCAN_PAGE;
            return metadata.put(
                            releasedPrefix + streamId + "-" + page.get(0).endOffset(),
                            keys.getBytes(StandardCharsets.UTF_8))
                    .thenCompose(p -> more
                            ? noteReleased(streamId, page.get(page.size() - 1).endOffset(), released)
                            : CompletableFuture.completedFuture(null));
        });
    }

    private static long parse(byte[] value, String key) {
        String s = new String(value, StandardCharsets.UTF_8).trim();
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            throw new IllegalStateException("trim record " + key + " holds '" + s + "', not an offset", e);
        }
    }
}
