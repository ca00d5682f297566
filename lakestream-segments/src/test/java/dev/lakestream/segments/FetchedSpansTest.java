package dev.lakestream.segments;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class FetchedSpansTest {

    private static final long MIB = 1 << 20;

    @Test
    void spansAreHeldWithinTheBoundAndAGroupTakenFreesItsShare() {
        FetchedSpans spans = new FetchedSpans(16 * MIB);
        CompletableFuture<FetchedSpans.Span> first = new CompletableFuture<>();
        assertThat(spans.offer("a", 1, new long[] {8 * MIB, 8 * MIB}, first, 0)).isTrue();
        assertThat(spans.bytes()).isEqualTo(16 * MIB);
        // Full: another span waits until groups are taken (its reader fetches group by group meanwhile).
        assertThat(spans.offer("b", 0, new long[] {MIB}, new CompletableFuture<>(), 0))
                .isFalse();
        assertThat(spans.contains("b", 0)).isFalse();

        assertThat(spans.take("a", 1)).isSameAs(first);
        assertThat(spans.take("a", 1)).isNull();
        assertThat(spans.contains("a", 2)).isTrue();
        assertThat(spans.bytes()).isEqualTo(8 * MIB);
        assertThat(spans.offer("b", 0, new long[] {MIB}, new CompletableFuture<>(), 0))
                .isTrue();
    }

    @Test
    void groupsNobodyTookForALongTimeMakeRoomForNewSpans() {
        FetchedSpans spans = new FetchedSpans(8 * MIB);
        CompletableFuture<FetchedSpans.Span> abandoned =
                CompletableFuture.completedFuture(new FetchedSpans.Span(0, ByteBuffer.allocate(0)));
        assertThat(spans.offer("a", 3, new long[] {8 * MIB}, abandoned, 0)).isTrue();
        assertThat(spans.offer("b", 0, new long[] {MIB}, new CompletableFuture<>(), FetchedSpans.STALE_NANOS - 1))
                .isFalse();
        assertThat(spans.offer("b", 0, new long[] {MIB}, new CompletableFuture<>(), FetchedSpans.STALE_NANOS))
                .isTrue();
        assertThat(spans.contains("a", 3)).isFalse();
        assertThat(spans.bytes()).isEqualTo(MIB);
    }

    @Test
    void aSpanWhoseGetFailedIsForgottenWhole() {
        FetchedSpans spans = new FetchedSpans(64 * MIB);
        CompletableFuture<FetchedSpans.Span> failed = new CompletableFuture<>();
        CompletableFuture<FetchedSpans.Span> other = new CompletableFuture<>();
        spans.offer("a", 0, new long[] {MIB, MIB, MIB}, failed, 0);
        spans.offer("a", 3, new long[] {MIB}, other, 0);
        spans.forget(failed);
        assertThat(spans.contains("a", 0)).isFalse();
        assertThat(spans.contains("a", 2)).isFalse();
        assertThat(spans.contains("a", 3)).isTrue();
        assertThat(spans.bytes()).isEqualTo(MIB);
    }
}
