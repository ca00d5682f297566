package dev.lakestream.core.index;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class IndexKeyTest {

    @Test
    void formatsZeroPaddedAndParsesBack() {
        IndexKey key = new IndexKey(42, 1_000, 123_456);
        assertThat(key.format()).isEqualTo("00000000000000000042-00000000000000001000-00000000000000123456");
        assertThat(IndexKey.parse(key.format())).isEqualTo(key);
        assertThat(IndexKey.partitionKey(42)).isEqualTo("42");
        assertThat(IndexKey.prefix(42)).isEqualTo("00000000000000000042");
    }

    @Test
    void byteOrderIsStreamThenOffsetOrder() {
        List<String> keys = Stream.of(
                        new IndexKey(2, 5, 0), new IndexKey(1, 10, 0), new IndexKey(1, 9, 0), new IndexKey(1, 100, 0))
                .map(IndexKey::format)
                .sorted()
                .toList();
        assertThat(keys)
                .containsExactly(
                        new IndexKey(1, 9, 0).format(),
                        new IndexKey(1, 10, 0).format(),
                        new IndexKey(1, 100, 0).format(),
                        new IndexKey(2, 5, 0).format());
    }

    @Test
    void coveringSearchKeySitsBetweenEndingAtAndEndingAfter() {
        String search = IndexKey.coveringSearchKey(1, 10);
        assertThat(new IndexKey(1, 10, Long.MAX_VALUE).format()).isLessThan(search);
        assertThat(new IndexKey(1, 11, 0).format()).isGreaterThan(search);
        assertThat(IndexKey.lowest(1)).isLessThan(new IndexKey(1, 0, 0).format());
        assertThat(IndexKey.highest(1))
                .isGreaterThan(new IndexKey(1, Long.MAX_VALUE, Long.MAX_VALUE).format())
                .isLessThan(IndexKey.lowest(2));
    }

    @Test
    void rejectsOtherKeys() {
        assertThatThrownBy(() -> IndexKey.parse("/streams/a")).hasMessageContaining("/streams/a");
        assertThat(IndexKey.belongsTo(new IndexKey(12, 1, 1).format(), 12)).isTrue();
        assertThat(IndexKey.belongsTo(new IndexKey(13, 1, 1).format(), 12)).isFalse();
    }
}
