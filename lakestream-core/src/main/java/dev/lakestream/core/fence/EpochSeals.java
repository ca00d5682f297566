package dev.lakestream.core.fence;

import dev.lakestream.core.collect.LruMap;
import dev.lakestream.core.index.IndexKey;
import dev.lakestream.core.index.IndexRecord;
import dev.lakestream.core.index.VoidedRecords;
import dev.lakestream.core.metadata.GetOptions;
import dev.lakestream.core.metadata.MetadataStore;
import dev.lakestream.core.metadata.PutOptions;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongFunction;

/**
 * The seals of a stream's write epochs, and the verdict they give on index records (docs/layout.md, §5, seals).
 *
 * <p>An owner of epoch {@code j} <em>seals</em> the stream once it took it over: it reads the stream's end {@code X}
 * and records {@code j:X} in the fence key. A record a writer of an older epoch {@code k < j} committed lands either
 * before that read (its start is below {@code X}: valid) or after it (start {@code >= X}: void, the stale owner's
 * commit, never acknowledged). Seals rise with epochs, so a record of epoch {@code k} is void exactly when its start is
 * at or past the seal of the lowest sealed epoch above {@code k}. The seal of the fence's current epoch is in the fence
 * value; older seals are in keys of their own, {@code <fence key>/seal/<epoch>}, each written by the next owner before
 * it raises the epoch, so when a reader sees epoch {@code F} every sealed epoch below {@code F} has its key.
 *
 * <p>Reads the fence after the records were scanned: a record not in the scan cannot be judged by a fence read older
 * than it. Answers and seals are cached (a seal never changes once written); thread-safe.
 */
final class EpochSeals implements VoidedRecords {

    /** Streams whose verdicts are remembered. */
    private static final int MAX_STREAMS = 1 << 14;

    private final MetadataStore metadata;
    private final String root;
    /** The fence state this process holds for a stream (its epoch and seal), or null: no fence read needed. */
    private final LongFunction<FenceValue> held;

    /** Per stream: the lowest seal above an epoch, once found (never changes). */
    private final Map<Long, Map<Long, Long>> sealAbove = new LruMap<>(MAX_STREAMS);
    /** Per stream: the fence state a read found after a scan that reached {@code end}: records below it are judged. */
    private final Map<Long, Judged> judged = new LruMap<>(MAX_STREAMS);

    EpochSeals(MetadataStore metadata, String root, LongFunction<FenceValue> held) {
        this.metadata = metadata;
        this.root = root;
        this.held = held;
    }

    String fenceKey(long streamId) {
        return root + "/fences/" + streamId;
    }

    String sealKey(long streamId, long epoch) {
        return fenceKey(streamId) + "/seal/" + String.format("%020d", epoch);
    }

    /** The fence's state as stored now (epoch 0: never fenced). */
    CompletableFuture<FenceValue> readFence(long streamId) {
        return metadata.get(fenceKey(streamId), options(streamId))
                .thenApply(r -> r.map(rec -> FenceValue.parse(rec.value(), fenceKey(streamId)))
                        .orElse(FenceValue.NONE));
    }

    /** Writes the key of {@code epoch}'s seal (idempotent: a seal never changes). */
    CompletableFuture<Void> writeSealKey(long streamId, long epoch, long seal) {
        return metadata.put(
                        sealKey(streamId, epoch),
                        Long.toString(seal).getBytes(StandardCharsets.UTF_8),
                        PutOptions.DEFAULT.partitionKey(IndexKey.partitionKey(streamId)))
                .thenApply(p -> null);
    }

    @Override
    public CompletableFuture<List<IndexRecord>> resolve(long streamId, List<IndexRecord> scanned) {
        if (scanned.stream().allMatch(r -> r.value().epoch() == 0)) {
            return CompletableFuture.completedFuture(scanned);
        }
        FenceValue mine = held.apply(streamId);
        if (mine != null) {
            // This process owns the stream: its epoch and seal are the newest it needs (a newer owner would make this
            // one a stale owner, whose readers are closed as it learns so).
            return judge(streamId, scanned, mine);
        }
        long scannedEnd = scanned.get(scanned.size() - 1).endOffset();
        Judged before;
        synchronized (judged) {
            before = judged.get(streamId);
        }
        if (before != null && scannedEnd <= before.end()) {
            return judge(streamId, scanned, before.fence());
        }
        return readFence(streamId).thenCompose(fence -> {
            synchronized (judged) {
                Judged j = judged.get(streamId);
                // An unsealed fence settles nothing for good: the next scan reads it again.
                if ((fence.seal().isPresent() || fence.epoch() == 0) && (j == null || j.end() < scannedEnd)) {
                    judged.put(streamId, new Judged(fence, scannedEnd));
                }
            }
            return judge(streamId, scanned, fence);
        });
    }

    /**
     * The verdict on one record of epoch {@code epoch} starting at {@code start}, given the fence state {@code fence}
     * read after the record landed: empty while it is not settled (the fence's epoch is not sealed yet).
     */
    CompletableFuture<Optional<Boolean>> isVoid(long streamId, long epoch, long start, FenceValue fence) {
        if (epoch == 0 || epoch >= fence.epoch()) {
            return CompletableFuture.completedFuture(Optional.of(false));
        }
        return lowestSealAbove(streamId, epoch, fence)
                .thenApply(seal -> seal.isPresent() ? Optional.of(start >= seal.getAsLong()) : Optional.empty());
    }

    private CompletableFuture<List<IndexRecord>> judge(long streamId, List<IndexRecord> records, FenceValue fence) {
        return judgeFrom(streamId, records, fence, 0, new ArrayList<>(records.size()));
    }

    private CompletableFuture<List<IndexRecord>> judgeFrom(
            long streamId, List<IndexRecord> records, FenceValue fence, int from, List<IndexRecord> out) {
        for (int i = from; i < records.size(); i++) {
            IndexRecord r = records.get(i);
            long epoch = r.value().epoch();
            if (epoch == 0 || epoch >= fence.epoch()) {
                out.add(r);
                continue;
            }
            int next = i + 1;
            return isVoid(streamId, epoch, r.startOffset(), fence).thenCompose(verdict -> {
                if (verdict.isEmpty()) {
                    // Its newer owner has not sealed yet: the records from here on wait for the next read.
                    return CompletableFuture.completedFuture(out);
                }
                out.add(verdict.get() ? r.asVoided() : r);
                return judgeFrom(streamId, records, fence, next, out);
            });
        }
        return CompletableFuture.completedFuture(out);
    }

    /** The seal of the lowest sealed epoch above {@code epoch} up to {@code fence}'s epoch, if any is sealed. */
    private CompletableFuture<OptionalLong> lowestSealAbove(long streamId, long epoch, FenceValue fence) {
        synchronized (sealAbove) {
            Long known = sealAbove.getOrDefault(streamId, Map.of()).get(epoch);
            if (known != null) {
                return CompletableFuture.completedFuture(OptionalLong.of(known));
            }
        }
        CompletableFuture<OptionalLong> older = epoch + 1 >= fence.epoch()
                ? CompletableFuture.completedFuture(OptionalLong.empty())
                : metadata.rangeScan(
                                sealKey(streamId, epoch + 1),
                                sealKey(streamId, fence.epoch()),
                                Optional.of(IndexKey.partitionKey(streamId)),
                                1)
                        .thenApply(found -> found.isEmpty()
                                ? OptionalLong.empty()
                                : OptionalLong.of(FenceValue.parseLong(
                                        found.get(0).value(), found.get(0).key())));
        return older.thenApply(seal -> {
            OptionalLong result = seal.isPresent() ? seal : fence.seal();
            if (result.isPresent()) {
                synchronized (sealAbove) {
                    sealAbove.computeIfAbsent(streamId, id -> new LruMap<>(64)).put(epoch, result.getAsLong());
                }
            }
            return result;
        });
    }

    private static GetOptions options(long streamId) {
        return GetOptions.DEFAULT.partitionKey(IndexKey.partitionKey(streamId));
    }

    /** A fence state read after a scan whose records end at {@code end}. */
    private record Judged(FenceValue fence, long end) {}
}
