package dev.lakestream.core.gc;

import dev.lakestream.core.catalog.StreamCatalog;
import dev.lakestream.core.concurrent.Futures;
import dev.lakestream.core.cursor.CursorStore;
import dev.lakestream.core.fence.PermanentWriteFences;
import dev.lakestream.core.index.IndexRecord;
import dev.lakestream.core.index.OffsetIndex;
import dev.lakestream.core.index.TimeIndex;
import dev.lakestream.core.metadata.DeleteOptions;
import dev.lakestream.core.metadata.MetadataStore;
import dev.lakestream.core.metadata.Record;
import dev.lakestream.core.metadata.UnexpectedVersionException;
import dev.lakestream.core.objectstore.ObjectInfo;
import dev.lakestream.core.objectstore.ObjectNotFoundException;
import dev.lakestream.core.objectstore.ObjectStore;
import dev.lakestream.core.segment.SegmentKeys;
import dev.lakestream.core.trim.StreamTrimmer;
import dev.lakestream.core.wal.WalObjectFormat;
import dev.lakestream.core.wal.WalObjectFormatException;
import dev.lakestream.core.wal.WalObjectKeys;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes WAL objects no index record references any more.
 *
 * <p>One run (the caller makes sure one process runs at a time: {@link GcService} holds a lease for that; two
 * concurrent runs would not delete anything referenced, only do the work twice):
 * <ol>
 *   <li>Streams whose catalog entry is gone or tombstoned lose their leftover index records, trim marker
 *       and cursors (a delete that crashed half-way is finished here), after their permanent write fence
 *       ({@link PermanentWriteFences}) is placed as a delete places it.</li>
 *   <li><b>Horizon</b>: the oldest object any live stream still references is the one its first WAL index
 *       record (the first not compacted into a segment) points at; the minimum over all live streams is the horizon. Objects are named by time,
 *       so every object named before {@code horizon - safetyMargin} is referenced by no one: deleted.</li>
 *   <li><b>Orphans</b>: objects named after that but before {@code now - orphanDelay} (and after the last
 *       run's checkpoint) are checked one by one: their own index lists the streams they hold, and each of
 *       those streams' index records committed within {@code commitWindow} of the object's time are
 *       searched for the object's key. An object no record references is an orphan (its writer crashed
 *       between PUT and index commit, or the commit failed): deleted.</li>
 *   <li><b>Released objects</b>: the objects noted by {@link StreamTrimmer} when it deleted index records (hard
 *       trim, stream delete), at least {@code max(safetyMargin, orphanDelay)} ago, are checked the same way and deleted if no live
 *       stream references them; then the note goes. This is what reclaims the objects of deleted and trimmed
 *       streams while a stream that is never trimmed holds the horizon back.</li>
 * </ol>
 * The checkpoint ({@code <root>/gc/checked-until}, ms since the epoch) makes each orphan check happen once.
 * Deletes go in requests of at most {@link DeleteGate#maxBatch()} objects, each admitted by the run's
 * {@link DeleteGate} first (rate limit, lease still held).
 *
 * <p>Known cost: one live stream that is never trimmed pins the horizon; objects after it are then collected only
 * as orphans or released objects, each checked by reading its own index. Objects are never partially referenced:
 * an object lives while any stream in it needs it.
 */
public final class WalGarbageCollector {

    private static final Logger log = LoggerFactory.getLogger(WalGarbageCollector.class);
    private static final int LIST_PAGE = 1000;
    private static final int NOTES_PAGE = 100;

    private final ObjectStore objects;
    private final MetadataStore metadata;
    private final StreamCatalog catalog;
    private final OffsetIndex index;
    private final TimeIndex timeIndex;
    private final StreamTrimmer trimmer;
    private final CursorStore cursors;
    private final GcConfig config;
    private final Clock clock;
    private final String checkpointKey;
    private final String releasedPrefix;

    public WalGarbageCollector(
            ObjectStore objects, MetadataStore metadata, String metadataRoot, GcConfig config, Clock clock) {
        this.objects = objects;
        this.metadata = metadata;
        this.catalog = new StreamCatalog(metadata, metadataRoot);
        this.index = new OffsetIndex(metadata);
        this.timeIndex = new TimeIndex(index);
        this.trimmer = new StreamTrimmer(metadata, index, metadataRoot);
        this.cursors = new CursorStore(metadata, metadataRoot);
        this.config = config;
        this.clock = clock;
        this.checkpointKey = metadataRoot + "/gc/checked-until";
        this.releasedPrefix = StreamTrimmer.releasedPrefix(metadataRoot);
    }

    /** One run; deletes are admitted by {@code gate}. Fails with the gate's error when it stops the run. */
    public CompletableFuture<GcResult> runOnce(DeleteGate gate) {
        return collect(clock.instant(), gate);
    }

    private CompletableFuture<GcResult> collect(Instant now, DeleteGate gate) {
        return catalog.allIds()
                .thenCompose(ids -> {
                    List<CompletableFuture<StreamState>> states =
                            ids.stream().map(this::streamState).toList();
                    return CompletableFuture.allOf(states.toArray(CompletableFuture[]::new))
                            .thenApply(v ->
                                    states.stream().map(CompletableFuture::join).toList());
                })
                .thenCompose(states -> {
                    int dead = (int) states.stream().filter(s -> s.clearedDead).count();
                    Instant horizon = states.stream()
                            .map(s -> s.oldestObject)
                            .filter(t -> t != null)
                            .min(Instant::compareTo)
                            .orElse(now);
                    Instant cutoff = horizon.minus(config.safetyMargin());
                    Instant orphansBefore = now.minus(config.orphanDelay());
                    List<Long> liveIds =
                            states.stream().filter(s -> s.live).map(s -> s.id).toList();
                    Sweep sweep = new Sweep(cutoff, orphansBefore, liveIds, gate);
                    return checkpoint()
                            .thenCompose(checkedUntil -> sweep.page(null, checkedUntil)
                                    .thenCompose(v -> sweep.segmentPage(null, checkedUntil)))
                            .thenCompose(v -> sweep.released(now))
                            .thenCompose(v -> metadata.put(
                                            checkpointKey,
                                            Long.toString(orphansBefore.toEpochMilli())
                                                    .getBytes(StandardCharsets.UTF_8))
                                    .thenApply(p -> new GcResult(
                                            horizon,
                                            sweep.belowHorizon,
                                            sweep.orphans,
                                            sweep.released,
                                            sweep.segments,
                                            sweep.bytes,
                                            dead)));
                });
    }

    /** A stream's part in the run: whether it is live, and the time of the oldest object it references. */
    private record StreamState(long id, boolean live, Instant oldestObject, boolean clearedDead) {}

    private CompletableFuture<StreamState> streamState(long id) {
        return catalog.isLive(id)
                .thenCombine(index.first(id), (live, first) -> new Object[] {live, first})
                .thenCompose(pair -> {
                    boolean live = (Boolean) pair[0];
                    @SuppressWarnings("unchecked")
                    Optional<IndexRecord> first = (Optional<IndexRecord>) pair[1];
                    if (!live) {
                        if (first.isEmpty()) {
                            return CompletableFuture.completedFuture(new StreamState(id, false, null, false));
                        }
                        log.info("Clearing the leftover index of deleted stream {}", id);
                        // Fenced first, as a delete does: a writer still appending to it (ours or Ursa's) stops.
                        return PermanentWriteFences.place(metadata, id)
                                .thenCompose(v -> trimmer.deleteAll(id))
                                .thenCompose(v -> cursors.deleteAll(id))
                                .thenApply(v -> new StreamState(id, false, null, true));
                    }
                    // The first WAL record, not the first record: a compacted one names a segment, and the stream's
                    // WAL objects start at the first record after its compacted ones.
                    CompletableFuture<Optional<IndexRecord>> firstWal =
                            first.isPresent() && first.get().value().isCompacted()
                                    ? index.firstWal(id)
                                    : CompletableFuture.completedFuture(first);
                    return firstWal.thenApply(wal -> new StreamState(
                            id,
                            true,
                            wal.map(r -> WalObjectKeys.writtenAt(r.value().location()))
                                    .orElse(null),
                            false));
                });
    }

    private CompletableFuture<Long> checkpoint() {
        return metadata.get(checkpointKey)
                .thenApply(r -> r.map(rec -> Long.parseLong(new String(rec.value(), StandardCharsets.UTF_8)))
                        .orElse(0L));
    }

    /** One run's walk over the objects in key (= time) order, page by page, and what it deleted. */
    private final class Sweep {
        private final Instant cutoff;
        private final Instant orphansBefore;
        private final List<Long> liveIds;
        private final DeleteGate gate;
        int belowHorizon;
        int orphans;
        int released;
        int segments;
        long bytes;

        Sweep(Instant cutoff, Instant orphansBefore, List<Long> liveIds, DeleteGate gate) {
            this.cutoff = cutoff;
            this.orphansBefore = orphansBefore;
            this.liveIds = liveIds;
            this.gate = gate;
        }

        CompletableFuture<Void> page(String continuation, long checkedUntil) {
            return objects.list("", continuation, LIST_PAGE).thenCompose(page -> {
                List<ObjectInfo> unreferenced = new ArrayList<>();
                List<ObjectInfo> toCheck = new ArrayList<>();
                boolean done = !page.hasMore();
                for (ObjectInfo o : page.objects()) {
                    Instant t = WalObjectKeys.writtenAt(o.key());
                    if (t == null) {
                        continue;
                    }
                    if (!t.isBefore(orphansBefore) && !t.isBefore(cutoff)) {
                        done = true;
                        break;
                    }
                    if (t.isBefore(cutoff)) {
                        unreferenced.add(o);
                    } else if (t.toEpochMilli() >= checkedUntil - 1000) {
                        toCheck.add(o);
                    }
                }
                boolean last = done;
                return delete(unreferenced)
                        .thenRun(() -> belowHorizon += unreferenced.size())
                        .thenCompose(v -> checkOrphans(toCheck, liveIds))
                        .thenCompose(found -> delete(found).thenRun(() -> orphans += found.size()))
                        .thenCompose(v -> last
                                ? CompletableFuture.completedFuture(null)
                                : page(page.continuation(), checkedUntil));
            });
        }

        /**
         * Segments written more than {@code orphanDelay} ago and not yet checked: deleted when no index record names
         * them (a switch that failed or stopped after the segment's PUT). Segments released later, by a trim, a
         * stream delete or a merge, are found through the notes instead.
         */
        CompletableFuture<Void> segmentPage(String continuation, long checkedUntil) {
            return objects.list(SegmentKeys.ROOT, continuation, LIST_PAGE).thenCompose(page -> {
                List<ObjectInfo> candidates = page.objects().stream()
                        .filter(o -> o.lastModified().isBefore(orphansBefore)
                                && o.lastModified().toEpochMilli() >= checkedUntil - 1000)
                        .toList();
                return unreferencedSegments(candidates)
                        .thenCompose(found -> delete(found).thenRun(() -> segments += found.size()))
                        .thenCompose(v -> page.hasMore()
                                ? segmentPage(page.continuation(), checkedUntil)
                                : CompletableFuture.completedFuture(null));
            });
        }

        /** Checks the objects of the notes old enough, and deletes the notes; a page of notes at a time. */
        CompletableFuture<Void> released(Instant now) {
            // A note is written after its objects' records were committed: once it is orphanDelay old, no commit
            // to its objects can still be pending; once it is safetyMargin old, no reader that found the deleted
            // records just before can still be reading.
            Duration wait = config.safetyMargin().compareTo(config.orphanDelay()) > 0
                    ? config.safetyMargin()
                    : config.orphanDelay();
            return releasedFrom(releasedPrefix, now.minus(wait).toEpochMilli());
        }

        private CompletableFuture<Void> releasedFrom(String start, long notedBefore) {
            // The notes are the direct children of the prefix: [prefix, prefix + "/") in the store's key order.
            return metadata.rangeScan(start, releasedPrefix + "/", Optional.empty(), NOTES_PAGE)
                    .thenCompose(notes -> {
                        CompletableFuture<Void> chain = CompletableFuture.completedFuture(null);
                        for (Record note : notes) {
                            if (note.version().createdTimestamp() > notedBefore) {
                                continue; // Too young: left for a later run.
                            }
                            chain = chain.thenCompose(v -> releasedIn(note)).thenCompose(v -> deleteNote(note));
                        }
                        if (notes.size() < NOTES_PAGE) {
                            return chain;
                        }
                        // Note keys are <streamId>-<offset>: nothing sorts between a key and the key with a "0"
                        // appended.
                        String next = notes.get(notes.size() - 1).key() + "0";
                        return chain.thenCompose(v -> releasedFrom(next, notedBefore));
                    });
        }

        /** Deletes a checked note, unless it was written again meanwhile (a retried trim): that one is checked later. */
        private CompletableFuture<Void> deleteNote(Record note) {
            return metadata.delete(
                            note.key(), DeleteOptions.ifVersion(note.version().versionId()))
                    .<Void>thenApply(d -> null)
                    .exceptionallyCompose(e -> Futures.unwrap(e) instanceof UnexpectedVersionException
                            ? CompletableFuture.completedFuture(null)
                            : CompletableFuture.failedFuture(Futures.unwrap(e)));
        }

        @SuppressWarnings("StringSplitter") // object keys hold no newline; dropping trailing empty lines is wanted
        private CompletableFuture<Void> releasedIn(Record note) {
            List<CompletableFuture<Optional<ObjectInfo>>> heads = new ArrayList<>();
            List<CompletableFuture<Optional<ObjectInfo>>> segmentHeads = new ArrayList<>();
            for (String key : new String(note.value(), StandardCharsets.UTF_8).split("\n")) {
                if (SegmentKeys.isSegment(key)) {
                    segmentHeads.add(objects.head(key));
                    continue;
                }
                Instant t = WalObjectKeys.writtenAt(key);
                // Below the cutoff the sweep has deleted it already.
                if (t != null && !t.isBefore(cutoff)) {
                    heads.add(objects.head(key));
                }
            }
            return CompletableFuture.allOf(heads.toArray(CompletableFuture[]::new))
                    .thenCompose(v -> checkOrphans(
                            heads.stream()
                                    .map(CompletableFuture::join)
                                    .flatMap(Optional::stream)
                                    .toList(),
                            liveIds))
                    .thenCompose(unreferenced -> delete(unreferenced).thenRun(() -> released += unreferenced.size()))
                    .thenCompose(v -> CompletableFuture.allOf(segmentHeads.toArray(CompletableFuture[]::new)))
                    .thenCompose(v -> unreferencedSegments(segmentHeads.stream()
                            .map(CompletableFuture::join)
                            .flatMap(Optional::stream)
                            .toList()))
                    .thenCompose(found -> delete(found).thenRun(() -> segments += found.size()));
        }

        /** Deletes in requests of at most the gate's batch, one after the other, each admitted by the gate. */
        private CompletableFuture<Void> delete(List<ObjectInfo> unreferenced) {
            if (unreferenced.isEmpty()) {
                return CompletableFuture.completedFuture(null);
            }
            log.info(
                    "Deleting {} unreferenced objects, from {} to {}",
                    unreferenced.size(),
                    unreferenced.get(0).key(),
                    unreferenced.get(unreferenced.size() - 1).key());
            CompletableFuture<Void> chain = CompletableFuture.completedFuture(null);
            int batch = gate.maxBatch();
            for (int from = 0; from < unreferenced.size(); from += batch) {
                List<ObjectInfo> part = unreferenced.subList(from, Math.min(unreferenced.size(), from + batch));
                List<String> keys = part.stream().map(ObjectInfo::key).toList();
                long size = part.stream().mapToLong(ObjectInfo::size).sum();
                chain = chain.thenCompose(v -> gate.admit(keys.size()))
                        .thenCompose(v -> objects.delete(keys))
                        .thenRun(() -> {
                            bytes += size;
                            gate.deleted(keys.size(), size);
                        });
            }
            return chain;
        }
    }

    /** The segments among {@code candidates} that no index record names, checked one after the other. */
    private CompletableFuture<List<ObjectInfo>> unreferencedSegments(List<ObjectInfo> candidates) {
        List<ObjectInfo> unreferenced = new ArrayList<>();
        CompletableFuture<Void> chain = CompletableFuture.completedFuture(null);
        for (ObjectInfo o : candidates) {
            chain = chain.thenCompose(v -> segmentReferenced(o.key())).thenAccept(referenced -> {
                if (!referenced) {
                    unreferenced.add(o);
                }
            });
        }
        return chain.thenApply(v -> unreferenced);
    }

    /**
     * Whether the index names the segment: a compacted record sits at the key of its range's end, so the one record
     * covering the segment's last offset is the only one that can. A key we cannot parse is never deleted.
     */
    private CompletableFuture<Boolean> segmentReferenced(String key) {
        Optional<SegmentKeys.SegmentName> name = SegmentKeys.parse(key);
        if (name.isEmpty()) {
            log.warn("Not collecting {}: it is under {} but not named as a segment", key, SegmentKeys.ROOT);
            return CompletableFuture.completedFuture(true);
        }
        SegmentKeys.SegmentName n = name.get();
        return index.recordsFrom(n.streamId(), n.endOffset() - 1, 1)
                .thenApply(records -> records.stream()
                        .anyMatch(r -> r.endOffset() == n.endOffset()
                                && r.value().location().equals(key)));
    }

    private CompletableFuture<List<ObjectInfo>> checkOrphans(List<ObjectInfo> candidates, List<Long> liveIds) {
        List<ObjectInfo> orphans = new ArrayList<>();
        CompletableFuture<Void> chain = CompletableFuture.completedFuture(null);
        for (ObjectInfo o : candidates) {
            chain = chain.thenCompose(v -> isReferenced(o, liveIds)).thenAccept(referenced -> {
                if (!referenced) {
                    orphans.add(o);
                }
            });
        }
        return chain.thenApply(v -> orphans);
    }

    private CompletableFuture<Boolean> isReferenced(ObjectInfo o, List<Long> liveIds) {
        return readIndex(o).thenCompose(objectIndex -> {
            if (objectIndex == null) {
                return CompletableFuture.completedFuture(true); // Not ours or unreadable: never delete.
            }
            Instant t = WalObjectKeys.writtenAt(o.key());
            CompletableFuture<Boolean> any = CompletableFuture.completedFuture(false);
            for (long sid : objectIndex.streams().keySet()) {
                if (!liveIds.contains(sid)) {
                    continue;
                }
                any = any.thenCompose(
                        found -> found ? CompletableFuture.completedFuture(true) : referencedBy(sid, o.key(), t));
            }
            return any;
        });
    }

    /** Whether a record of the stream committed around the object's time points at it. */
    private CompletableFuture<Boolean> referencedBy(long streamId, String key, Instant t) {
        long from = t.minus(config.safetyMargin()).toEpochMilli();
        long until = t.plus(config.commitWindow()).toEpochMilli();
        return index.endOffset(streamId)
                .thenCompose(end -> timeIndex.firstOffsetAtOrAfter(streamId, from, 0, end))
                .thenCompose(start -> start.isEmpty()
                        ? CompletableFuture.completedFuture(false)
                        : scanFor(streamId, key, start.get(), until));
    }

    private CompletableFuture<Boolean> scanFor(long streamId, String key, long fromOffset, long untilMillis) {
        return index.recordsFrom(streamId, fromOffset, 256).thenCompose(records -> {
            for (IndexRecord r : records) {
                if (r.value().location().equals(key)) {
                    return CompletableFuture.completedFuture(true);
                }
                if (r.timestamp() > untilMillis) {
                    return CompletableFuture.completedFuture(false);
                }
            }
            if (records.size() < 256) {
                return CompletableFuture.completedFuture(false);
            }
            return scanFor(streamId, key, records.get(records.size() - 1).endOffset(), untilMillis);
        });
    }

    /** The object's own index, or null when it is not a WAL object we can parse or is gone already. */
    private CompletableFuture<WalObjectFormat.Index> readIndex(ObjectInfo o) {
        if (o.size() < WalObjectFormat.LENGTH_PREFIX_BYTES) {
            return CompletableFuture.completedFuture(null);
        }
        return objects.get(o.key(), 0, WalObjectFormat.LENGTH_PREFIX_BYTES)
                .thenCompose(prefix -> {
                    int length = WalObjectFormat.readIndexLength(prefix, o.key());
                    return objects.get(o.key(), 0, WalObjectFormat.LENGTH_PREFIX_BYTES + (long) length);
                })
                .thenApply(header -> WalObjectFormat.decodeIndex(header, o.key(), o.size()))
                .exceptionally(e -> {
                    Throwable c = Futures.unwrap(e);
                    if (c instanceof WalObjectFormatException) {
                        log.warn("Not collecting {}: it is not a readable WAL object ({})", o.key(), c.getMessage());
                        return null;
                    }
                    if (c instanceof ObjectNotFoundException) {
                        return null; // Deleted since it was listed (by an earlier holder's run): nothing to do.
                    }
                    throw new CompletionException(c);
                });
    }
}
