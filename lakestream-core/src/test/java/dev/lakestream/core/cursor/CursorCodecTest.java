package dev.lakestream.core.cursor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CursorCodecTest {

    @Test
    void roundTripsEverything() {
        AckRanges acked = new AckRanges();
        acked.add(12, 13);
        acked.add(20, 25);
        CursorState s = new CursorState(10, acked, Map.of("ledger", -1L, "entry", 7L), Map.of("a", "b"));
        CursorState back = CursorCodec.decode(CursorCodec.encode(s), "k");
        assertThat(back.ackedBefore()).isEqualTo(10);
        assertThat(back.individuallyAcked().toString()).isEqualTo("[[12,13), [20,25)]");
        assertThat(back.positionProperties()).isEqualTo(s.positionProperties());
        assertThat(back.properties()).isEqualTo(s.properties());
    }

    @Test
    void aCursorWithoutHolesRoundTrips() {
        CursorState back = CursorCodec.decode(CursorCodec.encode(CursorState.at(42)), "k");
        assertThat(back.ackedBefore()).isEqualTo(42);
        assertThat(back.individuallyAcked().isEmpty()).isTrue();
    }

    @Test
    void aMillionHolesStayCompact() {
        AckRanges acked = new AckRanges();
        for (long i = 0; i < 1_000_000; i++) {
            acked.add(100 + 2 * i, 101 + 2 * i); // every other offset acknowledged
        }
        byte[] bytes = CursorCodec.encode(new CursorState(100, acked, Map.of(), Map.of()));
        assertThat(bytes.length).as("a million holes").isLessThan(64 * 1024);
        CursorState back = CursorCodec.decode(bytes, "k");
        assertThat(back.individuallyAcked().rangeCount()).isEqualTo(1_000_000);
        assertThat(back.individuallyAcked().contains(2_000_098)).isTrue();
        assertThat(back.individuallyAcked().contains(2_000_099)).isFalse();
    }

    @Test
    void corruptRecordsNameTheirKey() {
        byte[] good = CursorCodec.encode(CursorState.at(5));
        assertThatThrownBy(() -> CursorCodec.decode(Arrays.copyOf(good, 4), "/lakestream/cursors/1/sub"))
                .hasMessageContaining("/lakestream/cursors/1/sub")
                .hasMessageContaining("corrupt");
        assertThatThrownBy(() -> CursorCodec.decode(new byte[] {'X', 'Y', 1}, "key"))
                .hasMessageContaining("magic");
    }
}
