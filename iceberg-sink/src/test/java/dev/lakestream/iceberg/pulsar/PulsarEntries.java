package dev.lakestream.iceberg.pulsar;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.pulsar.common.api.proto.CompressionType;
import org.apache.pulsar.common.api.proto.MessageMetadata;
import org.apache.pulsar.common.api.proto.SingleMessageMetadata;
import org.apache.pulsar.common.compression.CompressionCodecProvider;
import org.apache.pulsar.common.intercept.AppendBrokerTimestampMetadataInterceptor;
import org.apache.pulsar.common.intercept.AppendIndexMetadataInterceptor;
import org.apache.pulsar.common.intercept.BrokerEntryMetadataInterceptor;
import org.apache.pulsar.common.protocol.Commands;

/** Builds managed-ledger entries exactly as a Pulsar client and broker do, with pulsar-common's serialisation. */
public final class PulsarEntries {

    /** What a test message carries. */
    public record Msg(
            String key,
            Map<String, String> properties,
            long eventTime,
            long sequenceId,
            @SuppressWarnings("ArrayRecordComponent") // a test payload; never compared or hashed
            byte[] value) {}

    private PulsarEntries() {}

    public static byte[] schemaVersion(long v) {
        return ByteBuffer.allocate(8).putLong(v).array();
    }

    /** A message sent without batching. */
    public static ByteBuf single(
            String producer,
            long publishTime,
            Long schemaVersion,
            CompressionType compression,
            Msg m,
            boolean brokerEntryMetadata) {
        return single(producer, publishTime, schemaVersion, compression, m, brokerEntryMetadata, false);
    }

    /** As above; {@code keyBase64}: the key is base64 of key bytes, as the client sends a bytes key. */
    public static ByteBuf single(
            String producer,
            long publishTime,
            Long schemaVersion,
            CompressionType compression,
            Msg m,
            boolean brokerEntryMetadata,
            boolean keyBase64) {
        MessageMetadata md = new MessageMetadata()
                .setProducerName(producer)
                .setPublishTime(publishTime)
                .setSequenceId(m.sequenceId());
        if (m.key() != null) {
            md.setPartitionKey(m.key());
            md.setPartitionKeyB64Encoded(keyBase64);
        }
        if (m.eventTime() != 0) {
            md.setEventTime(m.eventTime());
        }
        m.properties().forEach((k, v) -> md.addProperty().setKey(k).setValue(v));
        if (schemaVersion != null) {
            md.setSchemaVersion(schemaVersion(schemaVersion));
        }
        return finish(md, compression, Unpooled.wrappedBuffer(m.value()), brokerEntryMetadata);
    }

    /** A message a producer sent in transaction {@code (most,least)}, without batching, as the client sends it. */
    public static ByteBuf inTransaction(long most, long least, long sequenceId, byte[] value) {
        MessageMetadata md = new MessageMetadata()
                .setProducerName("txn-producer")
                .setPublishTime(1_764_000_000_000L)
                .setSequenceId(sequenceId)
                .setTxnidMostBits(most)
                .setTxnidLeastBits(least);
        return finish(md, CompressionType.NONE, Unpooled.wrappedBuffer(value), false);
    }

    /** A batch, as the client's BatchMessageContainer builds it. */
    public static ByteBuf batch(
            String producer,
            long publishTime,
            Long schemaVersion,
            CompressionType compression,
            List<Msg> msgs,
            boolean brokerEntryMetadata) {
        ByteBuf batch = Unpooled.buffer();
        for (Msg m : msgs) {
            SingleMessageMetadata smd =
                    new SingleMessageMetadata().setSequenceId(m.sequenceId()).setPayloadSize(m.value().length);
            if (m.key() != null) {
                smd.setPartitionKey(m.key());
            }
            if (m.eventTime() != 0) {
                smd.setEventTime(m.eventTime());
            }
            m.properties().forEach((k, v) -> smd.addProperty().setKey(k).setValue(v));
            Commands.serializeSingleMessageInBatchWithPayload(smd, Unpooled.wrappedBuffer(m.value()), batch);
        }
        MessageMetadata md = new MessageMetadata()
                .setProducerName(producer)
                .setPublishTime(publishTime)
                .setSequenceId(msgs.get(0).sequenceId())
                .setNumMessagesInBatch(msgs.size())
                .setHighestSequenceId(msgs.get(msgs.size() - 1).sequenceId());
        if (schemaVersion != null) {
            md.setSchemaVersion(schemaVersion(schemaVersion));
        }
        return finish(md, compression, batch, brokerEntryMetadata);
    }

    private static ByteBuf finish(
            MessageMetadata md, CompressionType compression, ByteBuf payload, boolean brokerEntryMetadata) {
        md.setUncompressedSize(payload.readableBytes());
        ByteBuf compressed = payload;
        if (compression != CompressionType.NONE) {
            md.setCompression(compression);
            compressed =
                    CompressionCodecProvider.getCompressionCodec(compression).encode(payload);
            payload.release();
        }
        ByteBuf entry = Commands.serializeMetadataAndPayload(Commands.ChecksumType.Crc32c, md, compressed);
        compressed.release();
        if (brokerEntryMetadata) {
            Set<BrokerEntryMetadataInterceptor> interceptors =
                    Set.of(new AppendBrokerTimestampMetadataInterceptor(), new AppendIndexMetadataInterceptor());
            entry = Commands.addBrokerEntryMetadata(
                    entry, interceptors, md.hasNumMessagesInBatch() ? md.getNumMessagesInBatch() : 1);
        }
        return entry;
    }
}
