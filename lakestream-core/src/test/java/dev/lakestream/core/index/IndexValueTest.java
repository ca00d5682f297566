package dev.lakestream.core.index;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.Map;
import org.junit.jupiter.api.Test;

class IndexValueTest {

    @Test
    void singleEntryValueEncodesByteForByte() {
        IndexValue v = new IndexValue("a/b", true, 3, 100, 100, new int[] {3}, Map.of());
        assertThat(HexFormat.of().formatHex(v.encode()))
                .isEqualTo("0803" + "1203612f62" + "1800" + "2001" + "2803" + "3064" + "38" + "64" + "40"
                        + "ffffffffffffffffff01" + "4801");
        assertThat(IndexValue.decode(v.encode(), "k")).isEqualTo(v);
    }

    @Test
    void manyEntriesRoundTripThroughFastPfor() {
        int[] counts = new int[5_000];
        Arrays.fill(counts, 10);
        counts[17] = 1;
        IndexValue v = new IndexValue(
                "2026/11/29/22/10/00/x",
                false,
                Arrays.stream(counts).sum(),
                1 << 20,
                8 << 20,
                counts,
                Map.of(IndexValue.EXTRA_INDEX_LENGTH, "1234"));
        IndexValue back = IndexValue.decode(v.encode(), "k");
        assertThat(back).isEqualTo(v);
        assertThat(back.entryRecordCounts()[17]).isEqualTo(1);
        assertThat(back.extraData()).containsEntry(IndexValue.EXTRA_INDEX_LENGTH, "1234");
        assertThat(v.encode().length)
                .as("compressed well below 4 bytes per entry")
                .isLessThan(5_000);
    }

    @Test
    void corruptValuesNameTheKey() {
        assertThatThrownBy(() -> IndexValue.decode(new byte[] {0x08, 0x02}, "00000000000000000001-x"))
                .isInstanceOf(IndexFormatException.class)
                .hasMessageContaining("00000000000000000001-x")
                .hasMessageContaining("version 2");
        byte[] good = new IndexValue("loc", true, 1, 1, 1, new int[] {1}, Map.of()).encode();
        byte[] cut = Arrays.copyOf(good, 4);
        assertThatThrownBy(() -> IndexValue.decode(cut, "key-9"))
                .isInstanceOf(IndexFormatException.class)
                .hasMessageContaining("key-9");
    }
}
