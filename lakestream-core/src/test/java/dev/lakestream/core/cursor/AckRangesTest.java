package dev.lakestream.core.cursor;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class AckRangesTest {

    @Test
    void mergesOverlappingAndAdjacentRanges() {
        AckRanges r = new AckRanges();
        assertThat(r.add(10, 20)).isEqualTo(10);
        assertThat(r.add(30, 40)).isEqualTo(10);
        assertThat(r.add(20, 30)).isEqualTo(10);
        assertThat(r.rangeCount()).isEqualTo(1);
        assertThat(r.add(5, 45)).isEqualTo(10);
        assertThat(r.toString()).isEqualTo("[[5,45)]");
        assertThat(r.add(7, 9)).isZero();
    }

    @Test
    void countsAndRemovesBelow() {
        AckRanges r = new AckRanges();
        r.add(0, 3);
        r.add(5, 8);
        r.add(10, 11);
        assertThat(r.count()).isEqualTo(7);
        assertThat(r.countIn(2, 6)).isEqualTo(2);
        assertThat(r.contains(5)).isTrue();
        assertThat(r.contains(8)).isFalse();
        r.removeBelow(6);
        assertThat(r.toString()).isEqualTo("[[6,8), [10,11)]");
        assertThat(r.takeRunFrom(6)).isEqualTo(8);
        assertThat(r.takeRunFrom(9)).isEqualTo(9);
    }
}
