package dev.lakestream.pulsar.compaction;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.bookkeeper.mledger.Entry;
import org.apache.pulsar.common.api.proto.MessageMetadata;
import org.apache.pulsar.common.api.proto.SingleMessageMetadata;
import org.apache.pulsar.common.protocol.Commands;

/** Pulsar message bytes as a producer writes them (metadata + payload), and their decoding, for the tests. */
final class Messages {

    private Messages() {}

    /** A single message; {@code value} null is a tombstone (null value, empty payload); {@code key} null: no key. */
    static byte[] message(String key, String value, long publishTime) {
        MessageMetadata md = new MessageMetadata()
                .setProducerName("p")
                .setSequenceId(publishTime)
                .setPublishTime(publishTime);
        if (key != null) {
            md.setPartitionKey(key);
        }
        byte[] payload = value == null ? new byte[0] : value.getBytes(UTF_8);
        if (value == null) {
            md.setNullValue(true);
        }
        md.setUncompressedSize(payload.length);
        return bytes(Commands.serializeMetadataAndPayload(
                Commands.ChecksumType.Crc32c, md, Unpooled.wrappedBuffer(payload)));
    }

    /** A batch of messages: {@code kv} is key, value, key, value... (value null: tombstone). */
    static byte[] batch(long publishTime, String... kv) {
        ByteBuf body = Unpooled.buffer();
        int n = kv.length / 2;
        for (int i = 0; i < n; i++) {
            String value = kv[2 * i + 1];
            SingleMessageMetadata smd = new SingleMessageMetadata().setPartitionKey(kv[2 * i]);
            byte[] payload = value == null ? new byte[0] : value.getBytes(UTF_8);
            if (value == null) {
                smd.setNullValue(true);
            }
            smd.setPayloadSize(payload.length);
            body = Commands.serializeSingleMessageInBatchWithPayload(smd, Unpooled.wrappedBuffer(payload), body);
        }
        MessageMetadata md = new MessageMetadata()
                .setProducerName("p")
                .setSequenceId(publishTime)
                .setPublishTime(publishTime)
                .setNumMessagesInBatch(n)
                .setUncompressedSize(body.readableBytes());
        return bytes(Commands.serializeMetadataAndPayload(Commands.ChecksumType.Crc32c, md, body));
    }

    /** A server-only marker (replicated-subscription snapshot kind), which compaction always drops. */
    static byte[] marker(long publishTime) {
        MessageMetadata md = new MessageMetadata()
                .setProducerName("p")
                .setSequenceId(publishTime)
                .setPublishTime(publishTime)
                .setMarkerType(10)
                .setUncompressedSize(1);
        return bytes(Commands.serializeMetadataAndPayload(
                Commands.ChecksumType.Crc32c, md, Unpooled.wrappedBuffer(new byte[] {1})));
    }

    /** "key=value" (or "=value" without key) for every message of the entries that is not compacted out; releases them. */
    static List<String> decode(List<Entry> entries) throws IOException {
        List<String> out = new ArrayList<>();
        try {
            for (Entry e : entries) {
                ByteBuf b = e.getDataBuffer().duplicate();
                MessageMetadata md = Commands.parseMessageMetadata(b);
                if (!md.hasNumMessagesInBatch()) {
                    out.add((md.hasPartitionKey() ? md.getPartitionKey() : "") + "=" + b.toString(UTF_8));
                    continue;
                }
                int n = md.getNumMessagesInBatch();
                for (int i = 0; i < n; i++) {
                    SingleMessageMetadata smd = new SingleMessageMetadata();
                    ByteBuf p = Commands.deSerializeSingleMessageInBatch(b, smd, i, n);
                    try {
                        if (!smd.isCompactedOut()) {
                            out.add((smd.hasPartitionKey() ? smd.getPartitionKey() : "") + "=" + p.toString(UTF_8));
                        }
                    } finally {
                        p.release();
                    }
                }
            }
        } finally {
            entries.forEach(Entry::release);
        }
        return out;
    }

    private static byte[] bytes(ByteBuf b) {
        try {
            return ByteBufUtil.getBytes(b);
        } finally {
            b.release();
        }
    }
}
