package dev.lakestream.pulsar.compaction;

import dev.lakestream.core.StreamLog;
import dev.lakestream.core.collect.LruMap;
import dev.lakestream.core.log.LogEntry;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;
import org.apache.bookkeeper.mledger.Entry;
import org.apache.bookkeeper.mledger.Position;
import org.apache.bookkeeper.mledger.impl.EntryImpl;
import org.apache.pulsar.common.api.proto.MessageMetadata;
import org.apache.pulsar.common.api.proto.SingleMessageMetadata;
import org.apache.pulsar.common.compression.CompressionCodecProvider;
import org.apache.pulsar.common.protocol.Commands;
import org.apache.pulsar.compaction.TopicCompactionService.MessagePosition;

/**
 * Reads one committed compacted stream: its records are in position order, so the first record at or after a
 * position (or a publish time) is found by binary search over offsets; the positions probed are cached.
 */
final class CompactedView {

    private static final int POSITION_CACHE = 4096;
    private static final long READ_BYTES = 8L << 20;

    private final CompactionState state;
    private final StreamLog stream;
    private final Map<Long, Position> positions = new LruMap<>(POSITION_CACHE);

    CompactedView(CompactionState state, StreamLog stream) {
        this.state = state;
        this.stream = stream;
    }

    CompactionState state() {
        return state;
    }

    /** Up to {@code max} compacted entries from the first one at or after {@code from}; empty past the last. */
    CompletableFuture<List<Entry>> read(Position from, int max) {
        return firstOffset(0, state.entries(), p -> p.compareTo(from) >= 0).thenCompose(offset -> {
            if (offset >= state.entries()) {
                return CompletableFuture.completedFuture(List.<Entry>of());
            }
            int n = (int) Math.min(max, state.entries() - offset);
            return stream.read(offset, n, READ_BYTES).thenApply(this::toEntries);
        });
    }

    /** The position of the first compacted entry published at or after {@code publishTime}, or null. */
    CompletableFuture<Position> findByPublishTime(long publishTime) {
        return firstOffsetByEntry(0, state.entries(), e -> publishTime(e) >= publishTime)
                .thenCompose(offset ->
                        offset >= state.entries() ? CompletableFuture.completedFuture(null) : positionAt(offset));
    }

    /** The last message of the view ({@link MessagePosition#EARLIEST} when it is empty), as Pulsar reports it. */
    CompletableFuture<MessagePosition> lastMessage() {
        if (state.entries() == 0) {
            return CompletableFuture.completedFuture(MessagePosition.EARLIEST);
        }
        long offset = state.entries() - 1;
        return readOne(offset).thenApply(e -> {
            try {
                String where = stream + " offset " + offset;
                return lastMessageOf(
                        CompactedRecord.position(e.payload(), where), CompactedRecord.message(e.payload(), where));
            } finally {
                e.payload().release();
            }
        });
    }

    // ------------------------------------------------------------------------------------------------- internals

    private List<Entry> toEntries(List<LogEntry> read) {
        List<Entry> out = new ArrayList<>(read.size());
        try {
            for (LogEntry e : read) {
                String where = stream + " offset " + e.offset();
                Position p = CompactedRecord.position(e.payload(), where);
                remember(e.offset(), p);
                out.add(EntryImpl.create(p.getLedgerId(), p.getEntryId(), CompactedRecord.message(e.payload(), where)));
            }
        } finally {
            read.forEach(e -> e.payload().release());
        }
        return out;
    }

    /** The first offset in [lo, hi) whose position passes {@code test} (which holds for a suffix), or hi. */
    private CompletableFuture<Long> firstOffset(long lo, long hi, Predicate<Position> test) {
        if (lo >= hi) {
            return CompletableFuture.completedFuture(lo);
        }
        long mid = (lo + hi) >>> 1;
        return positionAt(mid)
                .thenCompose(p -> test.test(p) ? firstOffset(lo, mid, test) : firstOffset(mid + 1, hi, test));
    }

    private CompletableFuture<Long> firstOffsetByEntry(long lo, long hi, Predicate<ByteBuf> test) {
        if (lo >= hi) {
            return CompletableFuture.completedFuture(lo);
        }
        long mid = (lo + hi) >>> 1;
        return readOne(mid).thenCompose(e -> {
            boolean pass;
            try {
                pass = test.test(CompactedRecord.message(e.payload(), stream + " offset " + mid));
            } finally {
                e.payload().release();
            }
            return pass ? firstOffsetByEntry(lo, mid, test) : firstOffsetByEntry(mid + 1, hi, test);
        });
    }

    private CompletableFuture<Position> positionAt(long offset) {
        synchronized (positions) {
            Position p = positions.get(offset);
            if (p != null) {
                return CompletableFuture.completedFuture(p);
            }
        }
        return readOne(offset).thenApply(e -> {
            try {
                Position p = CompactedRecord.position(e.payload(), stream + " offset " + offset);
                remember(offset, p);
                return p;
            } finally {
                e.payload().release();
            }
        });
    }

    private void remember(long offset, Position p) {
        synchronized (positions) {
            positions.put(offset, p);
        }
    }

    private CompletableFuture<LogEntry> readOne(long offset) {
        return stream.read(offset, 1, 1).thenApply(list -> {
            if (list.isEmpty() || list.get(0).offset() != offset) {
                list.forEach(e -> e.payload().release());
                throw new IllegalStateException("compacted " + stream + " has no entry at offset " + offset
                        + " (it should hold " + state.entries() + ")");
            }
            return list.get(0);
        });
    }

    private static long publishTime(ByteBuf message) {
        return Commands.parseMessageMetadata(message.duplicate()).getPublishTime();
    }

    /** Pulsar's rule: a non-batch message has batch index -1; a batch reports its last message not compacted out. */
    static MessagePosition lastMessageOf(Position p, ByteBuf message) {
        ByteBuf b = message.duplicate();
        MessageMetadata md = Commands.parseMessageMetadata(b);
        long publishTime = md.getPublishTime();
        int n = md.getNumMessagesInBatch();
        if (n <= 1) {
            return new MessagePosition(p.getLedgerId(), p.getEntryId(), -1, publishTime);
        }
        if (md.getCompactedBatchIndexesCount() > 0) {
            return new MessagePosition(
                    p.getLedgerId(),
                    p.getEntryId(),
                    md.getCompactedBatchIndexeAt(md.getCompactedBatchIndexesCount() - 1),
                    publishTime);
        }
        if (md.getEncryptionKeysCount() > 0) {
            return new MessagePosition(p.getLedgerId(), p.getEntryId(), n - 1, publishTime);
        }
        ByteBuf payload;
        try {
            payload = md.hasCompression()
                    ? CompressionCodecProvider.getCompressionCodec(md.getCompression())
                            .decode(b, md.getUncompressedSize())
                    : b.retain();
        } catch (IOException e) {
            throw new IllegalStateException("cannot decompress the compacted batch at " + p, e);
        }
        try {
            int last = -1;
            SingleMessageMetadata smd = new SingleMessageMetadata();
            for (int i = 0; i < n; i++) {
                Commands.deSerializeSingleMessageInBatch(payload, smd, i, n).release();
                if (!smd.isCompactedOut()) {
                    last = i;
                }
            }
            if (last < 0) {
                throw new IllegalStateException("the compacted batch at " + p + " has every message compacted out");
            }
            return new MessagePosition(p.getLedgerId(), p.getEntryId(), last, publishTime);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read the compacted batch at " + p, e);
        } finally {
            payload.release();
        }
    }
}
