package dev.lakestream.pulsar.compaction;

import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.bookkeeper.mledger.Position;
import org.apache.commons.lang3.tuple.ImmutableTriple;
import org.apache.pulsar.client.api.MessageId;
import org.apache.pulsar.client.api.RawMessage;
import org.apache.pulsar.client.impl.MessageIdImpl;
import org.apache.pulsar.client.impl.RawBatchConverter;
import org.apache.pulsar.client.impl.RawMessageImpl;
import org.apache.pulsar.common.api.proto.MessageIdData;
import org.apache.pulsar.common.api.proto.MessageMetadata;
import org.apache.pulsar.common.protocol.Commands;
import org.apache.pulsar.common.protocol.Markers;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The rules of one compaction run, with Pulsar's publishing-order semantics.
 *
 * <p>Phase one ({@link #observe}) sees every message in order and keeps, per key, the id of its latest message: a
 * message with a non-empty payload becomes the key's latest, an empty one (a tombstone, e.g. a null value) removes the
 * key. Phase two ({@link #select}) sees the same messages again and says what the compacted view keeps: a keyed
 * message only if it is still its key's latest; a message without a key only when {@code topicCompactionRetainNullKey}
 * is set; server-only markers never. A batch is rewritten keeping only its retained messages (the others are marked
 * compacted-out, so batch indexes do not move); a batch left with nothing is dropped. Messages are given to both
 * phases as their Pulsar bytes (metadata and payload, no broker entry metadata).
 */
final class CompactionPlan {

    private static final Logger LOG = LoggerFactory.getLogger(CompactionPlan.class);

    private final boolean retainNullKey;
    private final Map<String, MessageId> latest = new HashMap<>();
    private long observed;
    private long kept;
    private long removed;

    CompactionPlan(boolean retainNullKey) {
        this.retainNullKey = retainNullKey;
    }

    /** Phase one: records the message at {@code position} ({@code message} is not consumed). */
    void observe(Position position, ByteBuf message) {
        observed++;
        ByteBuf b = message.duplicate();
        MessageMetadata md = Commands.parseMessageMetadata(b);
        if (Markers.isServerOnlyMarker(md)) {
            return;
        }
        if (RawBatchConverter.isReadableBatch(md)) {
            RawMessage raw = raw(position, message);
            try {
                for (ImmutableTriple<MessageId, String, Integer> m :
                        RawBatchConverter.extractIdsAndKeysAndSize(raw, md)) {
                    if (m == null) {
                        continue;
                    }
                    if (m.getMiddle() != null) {
                        apply(m.getMiddle(), m.getRight(), m.getLeft());
                    } else {
                        keyless();
                    }
                }
            } catch (IOException e) {
                // As Pulsar: an undecodable batch is kept whole by phase two, and changes no key here.
                LOG.info("Batch at {} cannot be decoded; it is kept whole in the compacted view", position, e);
            } finally {
                raw.close();
            }
            return;
        }
        if (md.hasPartitionKey()) {
            int size = md.hasUncompressedSize() ? md.getUncompressedSize() : b.readableBytes();
            apply(md.getPartitionKey(), size, idOf(position));
        } else {
            keyless();
        }
    }

    /** A removed event (as Pulsar's statistics count them): a value that replaces an earlier one, or a tombstone. */
    private void apply(String key, Integer size, MessageId id) {
        if (size != null && size > 0) {
            if (latest.put(key, id) != null) {
                removed++;
            }
        } else {
            latest.remove(key);
            removed++;
        }
    }

    /** A message without a key is a removed event too, unless the view keeps those. */
    private void keyless() {
        if (!retainNullKey) {
            removed++;
        }
    }

    /**
     * Phase two: what the compacted view keeps of the message at {@code position}: empty, or the bytes to write (a
     * new reference the caller owns: the message itself or its rewritten batch). {@code message} is not consumed.
     */
    Optional<ByteBuf> select(Position position, ByteBuf message) {
        ByteBuf b = message.duplicate();
        MessageMetadata md = Commands.parseMessageMetadata(b);
        if (Markers.isServerOnlyMarker(md)) {
            return Optional.empty();
        }
        if (RawBatchConverter.isReadableBatch(md)) {
            RawMessage raw = raw(position, message);
            try {
                Optional<RawMessage> rebatched = RawBatchConverter.rebatchMessage(
                        raw, md, (key, id) -> id.equals(latest.get(key)), retainNullKey);
                if (rebatched.isEmpty()) {
                    return Optional.empty();
                }
                RawMessage r = rebatched.get();
                try {
                    kept++;
                    return Optional.of(readable(r.getHeadersAndPayload()));
                } finally {
                    r.close();
                }
            } catch (IOException e) {
                kept++;
                return Optional.of(readable(message));
            } finally {
                raw.close();
            }
        }
        boolean keep = md.hasPartitionKey() ? idOf(position).equals(latest.get(md.getPartitionKey())) : retainNullKey;
        if (!keep) {
            return Optional.empty();
        }
        kept++;
        return Optional.of(readable(message));
    }

    /** Keys with a live value after phase one. */
    int keys() {
        return latest.size();
    }

    /**
     * Messages phase one found removed from the view: each value that replaced an earlier one of its key, each
     * tombstone, and each message without a key unless those are kept. Pulsar's {@code lastCompactionRemovedEventCount}.
     */
    long removedEvents() {
        return removed;
    }

    long observed() {
        return observed;
    }

    long kept() {
        return kept;
    }

    private static MessageId idOf(Position p) {
        return new MessageIdImpl(p.getLedgerId(), p.getEntryId(), -1);
    }

    /** The message as Pulsar's batch tools take it; the ids they hand out carry partition -1, as {@link #idOf}. */
    private static RawMessage raw(Position p, ByteBuf message) {
        MessageIdData id = new MessageIdData()
                .setLedgerId(p.getLedgerId())
                .setEntryId(p.getEntryId())
                .setPartition(-1);
        return new RawMessageImpl(id, message);
    }

    /**
     * A retained slice of the readable bytes, by explicit indexes: Netty's no-argument {@code retainedSlice()} of a
     * derived pooled buffer (a duplicate or slice of an entry read from the log) starts at index 0, not at the
     * reader index.
     */
    private static ByteBuf readable(ByteBuf b) {
        return b.retainedSlice(b.readerIndex(), b.readableBytes());
    }
}
