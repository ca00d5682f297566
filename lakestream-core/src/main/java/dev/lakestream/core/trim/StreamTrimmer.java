package dev.lakestream.core.trim;

import dev.lakestream.core.index.IndexKey;
import dev.lakestream.core.index.IndexRecord;
import dev.lakestream.core.index.OffsetIndex;
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
 *   <li><b>Soft trim</b> moves the stream's start offset forward by writing the marker
 *       {@code /mark-deleted-offsets/<streamId>} (partition key: the stream id; value: the exclusive offset
 *       in decimal, as Ursa writes it). The marker never moves backwards: it is compare-and-set, and a trim to
 *       an offset at or below the current marker is a no-op.</li>
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
 * The start offset is {@code max(marker, start of the first surviving record)}.
 */
public final class StreamTrimmer {

    private static final int CAS_ATTEMPTS = 5;
    /** Records scanned at a time, and so object keys per note at most: about 30 KB of value. */
    private static final int SCAN_PAGE = 500;

    private final MetadataStore metadata;
    private final OffsetIndex index;
    private final String releasedPrefix;

    public StreamTrimmer(MetadataStore metadata, OffsetIndex index, String metadataRoot) {
        this.metadata = metadata;
        this.index = index;
        this.releasedPrefix = releasedPrefix(metadataRoot);
    }

    /** Where the notes of released objects live: {@code <root>/gc/released/<streamId>-<end offset>}. */
    public static String releasedPrefix(String metadataRoot) {
        return metadataRoot + "/gc/released/";
    }

    public static String markerKey(long streamId) {
        return "/mark-deleted-offsets/" + streamId;
    }

    /** The soft-trim marker, 0 when the stream was never trimmed. */
    public CompletableFuture<Long> trimmedBefore(long streamId) {
        return metadata.get(markerKey(streamId), GetOptions.DEFAULT.partitionKey(IndexKey.partitionKey(streamId)))
                .thenApply(r -> r.map(rec -> parse(rec.value(), streamId)).orElse(0L));
    }

    /** The first readable offset: the marker, or the start of the first surviving index record if later. */
    public CompletableFuture<Long> startOffset(long streamId) {
        return trimmedBefore(streamId)
                .thenCombine(
                        index.first(streamId),
                        (marker, first) -> Math.max(
                                marker, first.map(IndexRecord::startOffset).orElse(marker)));
    }

    /**
     * Moves the start offset to {@code offset} (exclusive: offsets below it become unreadable).
     *
     * @return the marker after the call (greater than {@code offset} if another trim went further)
     */
    public CompletableFuture<Long> softTrim(long streamId, long offset) {
        return softTrim(streamId, offset, CAS_ATTEMPTS);
    }

    private CompletableFuture<Long> softTrim(long streamId, long offset, int attemptsLeft) {
        String pk = IndexKey.partitionKey(streamId);
        return metadata.get(markerKey(streamId), GetOptions.DEFAULT.partitionKey(pk))
                .thenCompose(current -> {
                    long now = current.map(r -> parse(r.value(), streamId)).orElse(0L);
                    if (offset <= now) {
                        return CompletableFuture.completedFuture(now);
                    }
                    PutOptions options = current.map(
                                    r -> PutOptions.ifVersion(r.version().versionId()))
                            .orElse(PutOptions.ifAbsent())
                            .partitionKey(pk);
                    return metadata.put(
                                    markerKey(streamId),
                                    Long.toString(offset).getBytes(StandardCharsets.UTF_8),
                                    options)
                            .thenApply(p -> offset)
                            .exceptionallyCompose(e -> {
                                Throwable c =
                                        e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
                                boolean raced = c instanceof UnexpectedVersionException
                                        || c instanceof KeyAlreadyExistsException;
                                if (raced && attemptsLeft > 1) {
                                    return softTrim(streamId, offset, attemptsLeft - 1);
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

    /** Removes everything the stream has in the metadata store: its index and its marker. */
    public CompletableFuture<Void> deleteAll(long streamId) {
        Optional<String> pk = Optional.of(IndexKey.partitionKey(streamId));
        return noteReleased(streamId, 0, r -> true)
                .thenCompose(v -> metadata.deleteRange(IndexKey.lowest(streamId), IndexKey.highest(streamId), pk))
                .thenCompose(v -> metadata.delete(
                        markerKey(streamId), dev.lakestream.core.metadata.DeleteOptions.DEFAULT.partitionKey(pk.get())))
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

    private static long parse(byte[] value, long streamId) {
        String s = new String(value, StandardCharsets.UTF_8).trim();
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            throw new IllegalStateException(
                    "trim marker " + markerKey(streamId) + " holds '" + s + "', not an offset", e);
        }
    }
}
