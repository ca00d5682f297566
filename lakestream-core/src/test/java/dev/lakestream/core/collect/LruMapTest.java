package dev.lakestream.core.collect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class LruMapTest {

    @Test
    void dropsTheLeastRecentlyUsedOnThePutThatGoesOver() {
        LruMap<String, Integer> map = new LruMap<>(2);
        map.put("a", 1);
        map.put("b", 2);
        map.get("a"); // a read makes "a" the most recently used
        map.put("c", 3);
        assertThat(map).containsOnlyKeys("a", "c");
        map.put("a", 4); // a write too
        map.put("d", 5);
        assertThat(map).containsOnlyKeys("a", "d").containsEntry("a", 4);
    }

    @Test
    void refusesABoundBelowOne() {
        assertThatThrownBy(() -> new LruMap<String, String>(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxEntries must be >= 1, got 0");
    }
}
