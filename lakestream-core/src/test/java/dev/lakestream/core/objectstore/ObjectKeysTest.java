package dev.lakestream.core.objectstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ObjectKeysTest {

    @Test
    void validKeys() {
        for (String key : new String[] {
            "a",
            "a/b/c",
            "ünï/日本/\uD83D\uDE00",
            "dots.in.name",
            "a..b",
            ".hidden",
            "x".repeat(1024),
            "with space",
            "a-b_c+d=e"
        }) {
            assertThat(ObjectKeys.problem(key)).as(key).isNull();
        }
    }

    @Test
    void invalidKeysSayWhy() {
        assertThat(ObjectKeys.problem("")).contains("empty");
        assertThat(ObjectKeys.problem("a//b")).contains("empty segment");
        assertThat(ObjectKeys.problem("a/../b")).contains("'..'");
        assertThat(ObjectKeys.problem("a\u0000")).contains("U+0000");
        assertThat(ObjectKeys.problem("a\\b")).contains("backslash");
        assertThat(ObjectKeys.problem("a\uDC00")).contains("surrogate");
        assertThat(ObjectKeys.problem("\uD800")).contains("surrogate");
        assertThat(ObjectKeys.problem("é".repeat(513))).contains("1026 bytes");
        assertThatThrownBy(() -> ObjectKeys.validate("a\nb", "s3://b"))
                .isInstanceOf(InvalidObjectKeyException.class)
                .hasMessageContaining("'a\\u000Ab'")
                .hasMessageContaining("s3://b");
    }

    @Test
    void prefixesMayEndWithASlash() {
        assertThat(ObjectKeys.prefixProblem("")).isNull();
        assertThat(ObjectKeys.prefixProblem("a/")).isNull();
        assertThat(ObjectKeys.prefixProblem("a\u0001")).isNotNull();
    }

    @Test
    void utf8LengthAndOrderMatchTheEncoding() {
        Random random = new Random(42);
        int[] ranges = {0x20, 0x7f, 0x80, 0x7ff, 0x800, 0xd7ff, 0xe000, 0xffff, 0x10000, 0x10ffff};
        for (int i = 0; i < 5000; i++) {
            String a = randomString(random, ranges);
            String b = randomString(random, ranges);
            byte[] ba = a.getBytes(StandardCharsets.UTF_8);
            byte[] bb = b.getBytes(StandardCharsets.UTF_8);
            assertThat(ObjectKeys.utf8Length(a)).isEqualTo(ba.length);
            assertThat(Integer.signum(ObjectKeys.compareUtf8(a, b)))
                    .as("%s vs %s", a, b)
                    .isEqualTo(Integer.signum(Arrays.compareUnsigned(ba, bb)));
        }
        // Where UTF-16 order differs: U+E000 sorts before U+1F600 in UTF-8.
        assertThat(ObjectKeys.compareUtf8("\uE000", "\uD83D\uDE00")).isNegative();
        assertThat("\uE000".compareTo("\uD83D\uDE00")).isPositive();
    }

    @Test
    void crc32cOfKnownValue() {
        // CRC32C("123456789") = 0xE3069283, the standard check value.
        ByteBuffer data = ByteBuffer.wrap("123456789".getBytes(StandardCharsets.US_ASCII));
        assertThat(ObjectKeys.crc32c(data)).isEqualTo(0xE3069283);
        assertThat(data.position()).isZero();
        assertThat(ObjectKeys.crc32cBase64(0xE3069283)).isEqualTo("4waSgw==");
    }

    private static String randomString(Random random, int[] ranges) {
        StringBuilder sb = new StringBuilder();
        int n = random.nextInt(4);
        for (int i = 0; i < n; i++) {
            int r = random.nextInt(ranges.length / 2) * 2;
            sb.appendCodePoint(ranges[r] + random.nextInt(ranges[r + 1] - ranges[r] + 1));
        }
        return sb.toString();
    }
}
