package dev.lakestream.core.wal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lakestream.core.codec.VarInt;
import dev.lakestream.core.wal.WalObjectFormat.EntryLocation;
import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WalObjectFormatTest {

    private static Map<Long, List<EntryLocation>> twoStreams() {
        Map<Long, List<EntryLocation>> streams = new LinkedHashMap<>();
        streams.put(7L, List.of(new EntryLocation(0, 5, 1), new EntryLocation(5, 3, 2)));
        streams.put(300L, List.of(new EntryLocation(8, 200, 10)));
        return streams;
    }

    @Test
    void indexEncodesByteForByte() {
        ByteBuffer index = WalObjectFormat.encodeIndex(twoStreams());
        // length 32 (version included) | version 3 | stream 7, 2 entries: (0,5,1) (5,3,2) | stream 300, 1 entry: (8,
        // 200=c8 01, 10)
        assertThat(HexFormat.of().formatHex(toArray(index)))
                .isEqualTo("00000020" + "00000003"
                        + "0000000000000007" + "02" + "000501" + "050302"
                        + "000000000000012c" + "01" + "08c8010a");
    }

    @Test
    void indexRoundTrips() {
        ByteBuffer object = objectWith(WalObjectFormat.encodeIndex(twoStreams()), 208);
        WalObjectFormat.Index index = WalObjectFormat.decodeIndex(object, "k", object.remaining());
        assertThat(index.dataStart()).isEqualTo(36);
        assertThat(index.entriesOf(7)).containsExactly(new EntryLocation(0, 5, 1), new EntryLocation(5, 3, 2));
        assertThat(index.entriesOf(300)).containsExactly(new EntryLocation(8, 200, 10));
        assertThat(index.entriesOf(8)).isEmpty();
    }

    @Test
    void truncatedObjectIsNamedInTheError() {
        ByteBuffer object = objectWith(WalObjectFormat.encodeIndex(twoStreams()), 100);
        assertThatThrownBy(() -> WalObjectFormat.decodeIndex(object, "2026/11/29/22/00/00/abc", object.remaining()))
                .isInstanceOf(WalObjectFormatException.class)
                .hasMessageContaining("2026/11/29/22/00/00/abc")
                .hasMessageContaining("past the object's");
    }

    @Test
    void truncatedIndexIsRejected() {
        ByteBuffer full = WalObjectFormat.encodeIndex(twoStreams());
        ByteBuffer cut = full.slice(0, 10);
        assertThatThrownBy(() -> WalObjectFormat.decodeIndex(cut, "obj", -1))
                .isInstanceOf(WalObjectFormatException.class)
                .hasMessageContaining("truncated");
    }

    @Test
    void garbageIsRejected() {
        ByteBuffer garbage = ByteBuffer.wrap(new byte[] {0, 0, 0, 8, 0, 0, 0, 9, 1, 2, 3, 4});
        assertThatThrownBy(() -> WalObjectFormat.decodeIndex(garbage, "obj", -1))
                .isInstanceOf(WalObjectFormatException.class)
                .hasMessageContaining("version 9");
        ByteBuffer negative = ByteBuffer.wrap(new byte[] {(byte) 0xff, 0, 0, 0});
        assertThatThrownBy(() -> WalObjectFormat.decodeIndex(negative, "obj", -1))
                .isInstanceOf(WalObjectFormatException.class)
                .hasMessageContaining("index length");
    }

    @Test
    void varintRoundTripsEdgeValues() {
        for (long v : new long[] {0, 1, 127, 128, 16_383, 16_384, Integer.MAX_VALUE, Long.MAX_VALUE, -1}) {
            ByteBuffer b = ByteBuffer.allocate(10);
            VarInt.write(b, v);
            assertThat(b.position()).isEqualTo(VarInt.size(v));
            assertThat(VarInt.read(b.flip())).isEqualTo(v);
        }
    }

    private static ByteBuffer objectWith(ByteBuffer index, int dataBytes) {
        ByteBuffer object = ByteBuffer.allocate(index.remaining() + dataBytes);
        object.put(index.duplicate());
        return object.position(object.capacity()).flip();
    }

    private static byte[] toArray(ByteBuffer b) {
        byte[] a = new byte[b.remaining()];
        b.duplicate().get(a);
        return a;
    }
}
