package dev.lakestream.iceberg.pulsar;

import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.pulsar.common.api.proto.CompressionType;
import org.apache.pulsar.common.api.proto.KeyValue;
import org.apache.pulsar.common.api.proto.MessageMetadata;
import org.apache.pulsar.common.api.proto.SingleMessageMetadata;
import org.apache.pulsar.common.compression.CompressionCodec;
import org.apache.pulsar.common.compression.CompressionCodecProvider;
import org.apache.pulsar.common.protocol.Commands;
import org.apache.pulsar.common.protocol.Markers;

/**
 * Unpacks a managed-ledger entry (the bytes a broker stores: optional broker entry metadata, optional checksum,
 * message metadata, payload) into {@link PulsarMessage}s, with Pulsar's own parsers and compression codecs.
 *
 * <p>What an entry yields: one message, or each message of a batch except those compaction marked
 * {@code compacted_out}; nothing for a marker (transaction and replicated-subscription markers are broker
 * bookkeeping, not messages). Stateless and thread-safe.
 */
public final class EntryDecoder {

    /**
     * Decodes one entry. The buffer is read from its reader index and not released (the caller owns it).
     *
     * @param where names the entry in errors (e.g. {@code "stream 12 offset 40"})
     */
    public List<PulsarMessage> decode(ByteBuf entry, String where)
            throws EntryDecodeException, EncryptedMessageException {
        ByteBuf buf = entry.duplicate();
        MessageMetadata md = new MessageMetadata();
        try {
            Commands.skipBrokerEntryMetadataIfExist(buf);
            Commands.skipChecksumIfPresent(buf);
            Commands.parseMessageMetadata(buf, md);
        } catch (RuntimeException e) {
            throw new EntryDecodeException(where + ": not a Pulsar message (" + e + ")", e);
        }
        if (md.hasMarkerType()) {
            return List.of();
        }
        if (md.getEncryptionKeysCount() > 0) {
            throw new EncryptedMessageException(where + ": the message is end-to-end encrypted ("
                    + md.getEncryptionAlgo() + "); encrypted topics are not materialized");
        }
        if (md.hasNumChunksFromMsg() && md.getNumChunksFromMsg() > 1) {
            throw new EntryDecodeException(where + ": chunk " + md.getChunkId() + " of " + md.getNumChunksFromMsg()
                    + " of message " + md.getUuid() + "; chunked messages are not reassembled");
        }
        ByteBuf payload = uncompress(md, buf, where);
        try {
            if (!md.hasNumMessagesInBatch()) {
                return List.of(single(md, payload));
            }
            return batch(md, payload, where);
        } finally {
            payload.release();
        }
    }

    private static ByteBuf uncompress(MessageMetadata md, ByteBuf buf, String where) throws EntryDecodeException {
        CompressionType type = md.getCompression();
        if (type == CompressionType.NONE) {
            // Explicit indexes: Netty's no-argument retainedSlice() of a duplicate of a pooled slice (an entry read
            // from the log) starts at index 0 rather than at the reader index (netty-buffer 4.2.18).
            return buf.retainedSlice(buf.readerIndex(), buf.readableBytes());
        }
        CompressionCodec codec = CompressionCodecProvider.getCompressionCodec(type);
        try {
            return codec.decode(buf, md.getUncompressedSize());
        } catch (IOException | RuntimeException e) {
            throw new EntryDecodeException(
                    where + ": cannot uncompress " + buf.readableBytes() + " bytes of " + type + " to "
                            + md.getUncompressedSize() + " bytes (" + e + ")",
                    e);
        }
    }

    private static PulsarMessage single(MessageMetadata md, ByteBuf payload) {
        return new PulsarMessage(
                -1,
                md.hasPartitionKey() ? md.getPartitionKey() : null,
                md.isPartitionKeyB64Encoded(),
                properties(md.getPropertiesList()),
                md.getPublishTime(),
                md.hasEventTime() && md.getEventTime() != 0 ? md.getEventTime() : null,
                md.getProducerName(),
                md.getSequenceId(),
                schemaVersion(md),
                md.isNullValue(),
                bytes(payload));
    }

    private static List<PulsarMessage> batch(MessageMetadata md, ByteBuf payload, String where)
            throws EntryDecodeException {
        int n = md.getNumMessagesInBatch();
        List<PulsarMessage> out = new ArrayList<>(n);
        Long schemaVersion = schemaVersion(md);
        for (int i = 0; i < n; i++) {
            SingleMessageMetadata smd = new SingleMessageMetadata();
            ByteBuf single;
            try {
                single = Commands.deSerializeSingleMessageInBatch(payload, smd, i, n);
            } catch (IOException | RuntimeException e) {
                throw new EntryDecodeException(
                        where + ": message " + i + " of a batch of " + n + " does not decode (" + e + ")", e);
            }
            try {
                if (smd.isCompactedOut()) {
                    continue;
                }
                // Pulsar's client numbers a batch's messages from the batch's sequence id.
                long sequenceId = smd.hasSequenceId() ? smd.getSequenceId() : md.getSequenceId() + i;
                out.add(new PulsarMessage(
                        i,
                        smd.hasPartitionKey() ? smd.getPartitionKey() : null,
                        smd.isPartitionKeyB64Encoded(),
                        properties(smd.getPropertiesList()),
                        md.getPublishTime(),
                        smd.hasEventTime() && smd.getEventTime() != 0 ? smd.getEventTime() : null,
                        md.getProducerName(),
                        sequenceId,
                        schemaVersion,
                        smd.isNullValue(),
                        bytes(single)));
            } finally {
                single.release();
            }
        }
        return out;
    }

    /**
     * The transaction an entry belongs to, or null for an entry outside any transaction: a message a producer sent
     * in a transaction carries the transaction's id in its metadata, and the broker ends each transaction on the
     * topic with a commit or abort marker carrying the same id. The buffer is not consumed or released.
     *
     * @throws EntryDecodeException when the entry has no readable message metadata
     */
    public static TransactionMark transactionOf(ByteBuf entry, String where) throws EntryDecodeException {
        ByteBuf buf = entry.duplicate();
        MessageMetadata md = new MessageMetadata();
        try {
            Commands.skipBrokerEntryMetadataIfExist(buf);
            Commands.skipChecksumIfPresent(buf);
            Commands.parseMessageMetadata(buf, md);
        } catch (RuntimeException e) {
            throw new EntryDecodeException(where + ": not a Pulsar message (" + e + ")", e);
        }
        if (!md.hasTxnidMostBits() || !md.hasTxnidLeastBits()) {
            return null;
        }
        TransactionMark.Kind kind;
        if (Markers.isTxnCommitMarker(md)) {
            kind = TransactionMark.Kind.COMMIT;
        } else if (Markers.isTxnAbortMarker(md)) {
            kind = TransactionMark.Kind.ABORT;
        } else if (md.hasMarkerType()) {
            return null;
        } else {
            kind = TransactionMark.Kind.MESSAGE;
        }
        return new TransactionMark(md.getTxnidMostBits(), md.getTxnidLeastBits(), kind);
    }

    /** Pulsar's schema versions are the big-endian long of their 8 bytes (LongSchemaVersion). */
    private static Long schemaVersion(MessageMetadata md) {
        if (!md.hasSchemaVersion()) {
            return null;
        }
        byte[] v = md.getSchemaVersion();
        return v.length >= 8 ? ByteBuffer.wrap(v).getLong() : null;
    }

    private static Map<String, String> properties(List<KeyValue> kvs) {
        if (kvs.isEmpty()) {
            return Collections.emptyMap();
        }
        Map<String, String> m = new LinkedHashMap<>();
        for (KeyValue kv : kvs) {
            m.put(kv.getKey(), kv.getValue());
        }
        return Collections.unmodifiableMap(m);
    }

    private static byte[] bytes(ByteBuf b) {
        byte[] out = new byte[b.readableBytes()];
        b.getBytes(b.readerIndex(), out);
        return out;
    }
}
