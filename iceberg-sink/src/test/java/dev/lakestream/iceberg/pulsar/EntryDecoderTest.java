package dev.lakestream.iceberg.pulsar;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lakestream.iceberg.pulsar.PulsarEntries.Msg;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.pulsar.common.api.proto.CompressionType;
import org.apache.pulsar.common.api.proto.MessageMetadata;
import org.apache.pulsar.common.protocol.Commands;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class EntryDecoderTest {

    private final EntryDecoder decoder = new EntryDecoder();

    private static Msg msg(int i) {
        // Compressible and not: a repeated text and a varying tail.
        String value = "value-" + i + "-" + "x".repeat(200) + i * 31;
        return new Msg(
                i % 3 == 0 ? null : "key-" + i,
                i % 2 == 0 ? Map.of() : Map.of("p", "v" + i, "q", "w"),
                i % 4 == 0 ? 0 : 1_700_000_000_000L + i,
                100 + i,
                value.getBytes(StandardCharsets.UTF_8));
    }

    @ParameterizedTest
    @EnumSource(CompressionType.class)
    void unpacksABatchWithEveryCodec(CompressionType codec) throws Exception {
        List<Msg> msgs = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            msgs.add(msg(i));
        }
        for (boolean brokerMetadata : new boolean[] {false, true}) {
            ByteBuf entry = PulsarEntries.batch("prod-1", 1_700_000_123_000L, 3L, codec, msgs, brokerMetadata);
            List<PulsarMessage> out = decoder.decode(entry, "test entry");
            entry.release();
            assertThat(out).hasSize(7);
            for (int i = 0; i < 7; i++) {
                PulsarMessage m = out.get(i);
                Msg sent = msgs.get(i);
                assertThat(m.batchIndex()).isEqualTo(i);
                assertThat(m.key()).isEqualTo(sent.key());
                assertThat(m.properties()).isEqualTo(sent.properties());
                assertThat(m.eventTime()).isEqualTo(sent.eventTime() == 0 ? null : sent.eventTime());
                assertThat(m.sequenceId()).isEqualTo(sent.sequenceId());
                assertThat(m.publishTime()).isEqualTo(1_700_000_123_000L);
                assertThat(m.producerName()).isEqualTo("prod-1");
                assertThat(m.schemaVersion()).isEqualTo(3L);
                assertThat(m.payload()).isEqualTo(sent.value());
            }
        }
    }

    /**
     * Entries read from the log are slices of pooled direct buffers that hold other bytes before and after them (a
     * whole WAL object or a range of one): decoding must read exactly the slice. It did not for uncompressed batches
     * (Netty's no-argument {@code retainedSlice()} of a duplicate of a pooled slice starts at index 0, not at the
     * reader index), which made every such entry a dead letter.
     */
    @ParameterizedTest
    @EnumSource(CompressionType.class)
    void decodesABatchThatIsASliceOfALargerDirectBuffer(CompressionType codec) throws Exception {
        List<Msg> msgs = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            msgs.add(msg(i));
        }
        ByteBuf entry = PulsarEntries.batch("prod-1", 1_700_000_123_000L, 3L, codec, msgs, false);
        int before = 1_000;
        ByteBuf object =
                io.netty.buffer.PooledByteBufAllocator.DEFAULT.directBuffer(before + entry.readableBytes() + 500);
        object.writeBytes(new byte[before])
                .writeBytes(entry, entry.readerIndex(), entry.readableBytes())
                .writeBytes(new byte[500]);
        int length = entry.readableBytes();
        entry.release();
        ByteBuf slice = object.retainedSlice(before, length);
        object.release();
        try {
            List<PulsarMessage> out = decoder.decode(slice, "sliced entry");
            assertThat(out)
                    .extracting(PulsarMessage::payload)
                    .containsExactlyElementsOf(msgs.stream().map(Msg::value).toList());
        } finally {
            slice.release();
        }
    }

    @ParameterizedTest
    @EnumSource(CompressionType.class)
    void decodesASingleMessageWithEveryCodec(CompressionType codec) throws Exception {
        Msg sent = msg(5);
        ByteBuf entry = PulsarEntries.single("prod-2", 42L, null, codec, sent, true);
        List<PulsarMessage> out = decoder.decode(entry, "test entry");
        entry.release();
        assertThat(out).singleElement().satisfies(m -> {
            assertThat(m.batchIndex()).isEqualTo(-1);
            assertThat(m.key()).isEqualTo("key-5");
            assertThat(m.properties()).isEqualTo(Map.of("p", "v5", "q", "w"));
            assertThat(m.sequenceId()).isEqualTo(105);
            assertThat(m.schemaVersion()).isNull();
            assertThat(m.payload()).isEqualTo(sent.value());
        });
    }

    @Test
    void markersYieldNothing() throws Exception {
        MessageMetadata md = new MessageMetadata()
                .setProducerName("p")
                .setPublishTime(1)
                .setSequenceId(0)
                .setMarkerType(20);
        ByteBuf entry = Commands.serializeMetadataAndPayload(Commands.ChecksumType.Crc32c, md, Unpooled.buffer());
        assertThat(decoder.decode(entry, "marker")).isEmpty();
        entry.release();
    }

    @Test
    void encryptedMessagesAreRefusedWithTheirPosition() {
        MessageMetadata md = new MessageMetadata()
                .setProducerName("p")
                .setPublishTime(1)
                .setSequenceId(0)
                .setEncryptionAlgo("RSA");
        md.addEncryptionKey().setKey("k").setValue(new byte[] {1});
        ByteBuf entry = Commands.serializeMetadataAndPayload(
                Commands.ChecksumType.Crc32c, md, Unpooled.wrappedBuffer(new byte[] {1, 2, 3}));
        assertThatThrownBy(() -> decoder.decode(entry, "stream 3 offset 9"))
                .isInstanceOf(EncryptedMessageException.class)
                .hasMessageContaining("stream 3 offset 9");
        entry.release();
    }

    @Test
    void garbageIsADecodeErrorNamingTheEntry() {
        ByteBuf entry = Unpooled.wrappedBuffer(new byte[] {0, 0, 0, 50, 1, 2, 3});
        assertThatThrownBy(() -> decoder.decode(entry, "stream 3 offset 10"))
                .isInstanceOf(EntryDecodeException.class)
                .hasMessageContaining("stream 3 offset 10");
    }
}
