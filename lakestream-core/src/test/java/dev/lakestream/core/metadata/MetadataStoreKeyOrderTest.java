package dev.lakestream.core.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** {@link KeyOrder}: the encoding is reversible, its bytewise order is {@link KeyOrder#compare}, and known cases. */
class MetadataStoreKeyOrderTest {

    private static final String[] PIECES = {"a", "b", "/", "-", "0", "é", "Ａ", "😀", "~", "__oxia/"};

    @Test
    void encodingRoundTripsAndItsByteOrderIsTheComparator() {
        Random random = new Random(1234);
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < 2_000; i++) {
            StringBuilder sb = new StringBuilder();
            int n = random.nextInt(7);
            for (int j = 0; j < n; j++) {
                sb.append(PIECES[random.nextInt(PIECES.length)]);
            }
            keys.add(sb.toString());
        }
        for (String k : keys) {
            assertThat(KeyOrder.decode(KeyOrder.encode(k))).isEqualTo(k);
        }
        for (int i = 0; i < keys.size(); i++) {
            String a = keys.get(i);
            String b = keys.get((i * 7 + 3) % keys.size());
            int bytewise = Integer.signum(Arrays.compareUnsigned(KeyOrder.encode(a), KeyOrder.encode(b)));
            assertThat(Integer.signum(KeyOrder.compare(a, b)))
                    .as("%s vs %s", a, b)
                    .isEqualTo(bytewise);
            assertThat(Integer.signum(KeyOrder.compare(b, a))).isEqualTo(-bytewise);
        }
    }

    @Test
    void knownOrders() {
        assertOrdered("", "a", "a-1", "ab", "/", "/a", "/a-1", "/ab", "/z", "/a/", "/a/b", "/a//", "/b/c", "/a/b/c");
        // Depth first, then bytes with '/' above everything (also above any non-ASCII character).
        assertOrdered("/é", "/Ａ", "/😀", "/a/x");
        assertOrdered("a/b", "a//", "a/b/");
        // Oxia's internal keys after every user key.
        assertOrdered("/a/b/c/d/e/f", "__oxia/x");
    }

    @Test
    void theEncodingIsOxias() {
        assertThat(KeyOrder.encode("abc")).containsExactly(0, 0, 'a', 'b', 'c');
        assertThat(KeyOrder.encode("/a/b")).containsExactly(0, 2, 0xFF, 'a', 0xFF, 'b');
        assertThat(KeyOrder.encode("a//")).containsExactly(0, 1, 'a', 0xFF, 0xFF);
        assertThat(KeyOrder.encode("__oxia/x")).containsExactly(0x80, 1, '_', '_', 'o', 'x', 'i', 'a', 0xFF, 'x');
    }

    private static void assertOrdered(String... keys) {
        for (int i = 0; i + 1 < keys.length; i++) {
            assertThat(KeyOrder.compare(keys[i], keys[i + 1]))
                    .as("%s < %s", keys[i], keys[i + 1])
                    .isNegative();
            assertThat(Arrays.compareUnsigned(KeyOrder.encode(keys[i]), KeyOrder.encode(keys[i + 1])))
                    .isNegative();
        }
        List<String> shuffled = new ArrayList<>(List.of(keys));
        java.util.Collections.shuffle(shuffled, new Random(5));
        shuffled.sort(KeyOrder.COMPARATOR);
        assertThat(shuffled).containsExactly(keys);
    }
}
