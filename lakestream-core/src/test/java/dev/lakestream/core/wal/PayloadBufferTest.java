package dev.lakestream.core.wal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lakestream.core.objectstore.ObjectBody;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.IllegalReferenceCountException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

class PayloadBufferTest {

    private final TrackingAllocator allocator = new TrackingAllocator();
    private final SplittableRandom random = new SplittableRandom(7);
    private static final int FIRST = 1024;
    private static final int MAX = 4096;

    private byte[] bytes(int n) {
        byte[] b = new byte[n];
        random.nextBytes(b);
        return b;
    }

    private static byte[] all(ByteBuffer[] parts) {
        int n = 0;
        for (ByteBuffer p : parts) {
            n += p.remaining();
        }
        ByteBuffer out = ByteBuffer.allocate(n);
        for (ByteBuffer p : parts) {
            out.put(p.duplicate());
        }
        return out.array();
    }

    @Test
    void entriesOfAnySizeLandWholeInGrowingChunksAndComeBackInAnyOrderWithoutCopies() {
        PayloadBuffer buffer = new PayloadBuffer(allocator, FIRST, MAX);
        List<byte[]> written = new ArrayList<>();
        List<Long> slots = new ArrayList<>();
        int[] sizes = {1, 1000, 30, 3, MAX * 2 + 17, 0, 999, 2000, 2000};
        for (int size : sizes) {
            byte[] b = bytes(size);
            // A reader index past 0 and bytes after the writer index must not leak into the copy.
            ByteBuf payload =
                    Unpooled.buffer(size + 8).writeInt(-1).writeBytes(b).writeInt(-1);
            payload.readerIndex(4).writerIndex(4 + size);
            slots.add(buffer.write(payload));
            assertThat(payload.readerIndex()).isEqualTo(4);
            written.add(b);
        }
        assertThat(buffer.size()).isEqualTo(java.util.Arrays.stream(sizes).sum());
        // Each new chunk as large as all before it (1 KiB first, 4 KiB at most), or as the entry that needs it.
        assertThat(buffer.capacity()).isEqualTo(FIRST + FIRST + (MAX * 2 + 17) + MAX + MAX);

        // An object of the entries in reverse order, after a header: each entry one slice, the CRC of the whole.
        byte[] header = bytes(12);
        WalObjectBody body = new WalObjectBody(ByteBuffer.wrap(header));
        ByteBuffer expected =
                ByteBuffer.allocate(header.length + (int) buffer.size()).put(header);
        for (int i = sizes.length - 1; i >= 0; i--) {
            body.add(buffer.chunk(slots.get(i)), PayloadBuffer.offsetInChunk(slots.get(i)), sizes[i]);
            expected.put(written.get(i));
        }
        WalObjectBody.Built built = body.build();
        buffer.release();
        buffer.release();
        assertThat(allocator.live()).as("the object's slices keep the chunks").isNotEmpty();
        ObjectBody store = built.store();
        assertThat(all(store.parts())).isEqualTo(expected.array());
        assertThat(store.length()).isEqualTo(expected.capacity());
        CRC32C crc = new CRC32C();
        crc.update(expected.array());
        assertThat(store.crc32c()).isEqualTo((int) crc.getValue());
        assertThat(store.parts())
                .allSatisfy(p -> assertThat(p.isDirect() || p.remaining() == header.length)
                        .isTrue());

        built.bytes().release();
        assertThat(allocator.live()).isEmpty();
    }

    @Test
    void appendsThatFollowEachOtherInAChunkBecomeOneSlice() {
        PayloadBuffer buffer = new PayloadBuffer(allocator, FIRST, MAX);
        long a = buffer.write(Unpooled.wrappedBuffer(bytes(100)));
        long b = buffer.write(Unpooled.wrappedBuffer(bytes(100)));
        long c = buffer.write(Unpooled.wrappedBuffer(bytes(100)));
        WalObjectBody body = new WalObjectBody(ByteBuffer.allocate(4));
        body.add(buffer.chunk(a), PayloadBuffer.offsetInChunk(a), 100);
        body.add(buffer.chunk(b), PayloadBuffer.offsetInChunk(b), 100);
        body.add(buffer.chunk(c), PayloadBuffer.offsetInChunk(c), 100);
        WalObjectBody.Built built = body.build();
        buffer.release();
        assertThat(built.store().parts()).hasSize(2);
        built.bytes().release();
        assertThat(allocator.live()).isEmpty();
    }

    @Test
    void aPayloadThatCannotBeReadLeavesNothingBehind() {
        PayloadBuffer buffer = new PayloadBuffer(allocator, FIRST, MAX);
        byte[] first = bytes(FIRST - 10);
        buffer.write(Unpooled.wrappedBuffer(first));
        ByteBuf released = Unpooled.directBuffer(100).writeBytes(bytes(100));
        released.release();

        assertThatThrownBy(() -> buffer.write(released)).isInstanceOf(IllegalReferenceCountException.class);

        assertThat(buffer.size()).isEqualTo(first.length);
        assertThat(buffer.capacity()).isEqualTo(FIRST);
        assertThat(allocator.live()).hasSize(1);
        byte[] next = bytes(5);
        long at = buffer.write(Unpooled.wrappedBuffer(next));
        byte[] out = new byte[5];
        buffer.chunk(at).getBytes(PayloadBuffer.offsetInChunk(at), out);
        assertThat(out).isEqualTo(next);
        buffer.release();
        assertThat(allocator.live()).isEmpty();
    }
}
