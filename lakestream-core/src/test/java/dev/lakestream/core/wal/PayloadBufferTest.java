package dev.lakestream.core.wal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.IllegalReferenceCountException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class PayloadBufferTest {

    private final UnpooledByteBufAllocator allocator = new UnpooledByteBufAllocator(true);
    private final SplittableRandom random = new SplittableRandom(7);
    private static final int CHUNK = 4096;
    /** Keeps no idle chunks, so the allocator's count shows what the buffer holds. */
    private final ChunkPool pool = new ChunkPool(allocator, CHUNK, 0);

    private byte[] bytes(int n) {
        byte[] b = new byte[n];
        random.nextBytes(b);
        return b;
    }

    @Test
    void entriesOfAnySizeComeBackAsWrittenAcrossChunks() {
        PayloadBuffer buffer = new PayloadBuffer(pool);
        List<byte[]> written = new ArrayList<>();
        List<Long> offsets = new ArrayList<>();
        int[] sizes = {1, 1024, CHUNK - 1025, 3, CHUNK * 2 + 17, 0, 999};
        for (int size : sizes) {
            byte[] b = bytes(size);
            // A reader index past 0 and bytes after the writer index must not leak into the copy.
            ByteBuf payload = Unpooled.buffer(size + 8).writeInt(-1).writeBytes(b).writeInt(-1);
            payload.readerIndex(4).writerIndex(4 + size);
            offsets.add(buffer.write(payload));
            assertThat(payload.readerIndex()).isEqualTo(4);
            written.add(b);
        }
        long total = Arrays.stream(sizes).asLongStream().sum();
        assertThat(buffer.size()).isEqualTo(total);
        for (int i = 0; i < sizes.length; i++) {
            byte[] out = new byte[sizes[i] + 2];
            buffer.copy(offsets.get(i), sizes[i], out, 1);
            assertThat(Arrays.copyOfRange(out, 1, 1 + sizes[i])).isEqualTo(written.get(i));
        }
        assertThat(allocator.metric().usedDirectMemory()).isEqualTo(4L * CHUNK);
        buffer.release();
        buffer.release();
        assertThat(allocator.metric().usedDirectMemory()).isZero();
    }

    @Test
    void aPayloadThatCannotBeReadLeavesNothingBehind() {
        PayloadBuffer buffer = new PayloadBuffer(pool);
        byte[] first = bytes(CHUNK - 10);
        buffer.write(Unpooled.wrappedBuffer(first));
        ByteBuf released = Unpooled.directBuffer(100).writeBytes(bytes(100));
        released.release();

        assertThatThrownBy(() -> buffer.write(released)).isInstanceOf(IllegalReferenceCountException.class);

        assertThat(buffer.size()).isEqualTo(first.length);
        assertThat(allocator.metric().usedDirectMemory()).isEqualTo(CHUNK);
        byte[] next = bytes(30);
        long at = buffer.write(Unpooled.wrappedBuffer(next));
        assertThat(at).isEqualTo(first.length);
        byte[] out = new byte[30];
        buffer.copy(at, 30, out, 0);
        assertThat(out).isEqualTo(next);
        buffer.release();
        assertThat(allocator.metric().usedDirectMemory()).isZero();
    }

    @Test
    void theChunkPoolHandsOutGivenBackChunksAndReleasesThemWhenClosed() {
        ChunkPool keeping = new ChunkPool(allocator, CHUNK, 2);
        ByteBuf a = keeping.take().writeInt(1);
        ByteBuf b = keeping.take();
        ByteBuf c = keeping.take();
        keeping.give(a);
        keeping.give(b);
        keeping.give(c);
        assertThat(keeping.idle()).isEqualTo(2);
        assertThat(c.refCnt()).isZero();
        ByteBuf again = keeping.take();
        assertThat(again).isSameAs(b);
        assertThat(again.writerIndex()).isZero();
        keeping.give(again);
        keeping.close();
        assertThat(keeping.idle()).isZero();
        assertThat(allocator.metric().usedDirectMemory()).isZero();
        ByteBuf late = keeping.take();
        keeping.give(late);
        assertThat(late.refCnt()).isZero();
    }
}
