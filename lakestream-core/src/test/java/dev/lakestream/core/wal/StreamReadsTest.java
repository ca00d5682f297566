package dev.lakestream.core.wal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class StreamReadsTest {

    @Test
    void aReaderStaysSequentialWhileAnotherReadsElsewhere() {
        StreamReads ends = new StreamReads();
        assertThat(ends.continues(0)).isFalse();
        ends.ended(0, 100);
        // Another reader, at the tail, reads the same entries again and again in between.
        ends.ended(9000, 9001);
        assertThat(ends.continues(100)).isTrue();
        ends.ended(100, 200);
        ends.ended(9000, 9001);
        assertThat(ends.continues(200)).isTrue();
        assertThat(ends.continues(150)).isFalse();
    }

    @Test
    void moreReadersThanTrackedForgetTheLeastRecent() {
        StreamReads ends = new StreamReads();
        for (int r = 0; r < StreamReads.TRACKED; r++) {
            ends.ended(r * 1000L, r * 1000L + 10);
        }
        ends.ended(0, 20); // reader 0 goes on: now the most recent
        ends.ended(50_000, 50_010); // one more reader: takes the place of reader 1, the least recent
        assertThat(ends.continues(20)).isTrue();
        assertThat(ends.continues(1010)).isFalse();
        assertThat(ends.continues(2010)).isTrue();
        assertThat(ends.continues(50_010)).isTrue();
    }
}
