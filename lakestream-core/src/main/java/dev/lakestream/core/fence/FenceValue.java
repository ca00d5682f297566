package dev.lakestream.core.fence;

import java.nio.charset.StandardCharsets;
import java.util.OptionalLong;

/**
 * The value of a stream's fence key {@code /lakestream/fences/<streamId>}: the current write epoch in decimal, and once
 * its owner sealed the stream, {@code :} and the seal (the stream's end when it took over): {@code "7"}, {@code "7:1200"}.
 */
record FenceValue(long epoch, OptionalLong seal) {

    static final FenceValue NONE = new FenceValue(0, OptionalLong.empty());

    static FenceValue parse(byte[] value, String key) {
        String text = new String(value, StandardCharsets.UTF_8).trim();
        int colon = text.indexOf(':');
        try {
            return colon < 0
                    ? new FenceValue(Long.parseLong(text), OptionalLong.empty())
                    : new FenceValue(
                            Long.parseLong(text.substring(0, colon)),
                            OptionalLong.of(Long.parseLong(text.substring(colon + 1))));
        } catch (NumberFormatException e) {
            throw new IllegalStateException("fence " + key + " holds '" + text + "', not <epoch> or <epoch>:<seal>", e);
        }
    }

    static long parseLong(byte[] value, String key) {
        String text = new String(value, StandardCharsets.UTF_8).trim();
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw new IllegalStateException(key + " holds '" + text + "', not a number", e);
        }
    }

    byte[] encode() {
        String text = seal.isPresent() ? epoch + ":" + seal.getAsLong() : Long.toString(epoch);
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
