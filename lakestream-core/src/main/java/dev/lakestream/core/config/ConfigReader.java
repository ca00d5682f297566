package dev.lakestream.core.config;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads typed values from string properties (a broker.conf, a {@link java.util.Properties}) with errors
 * that name the key and the bad value. Config objects use it in their {@code fromProperties} factories;
 * their defaults live in the config objects, documented in {@code docs/configuration.md}.
 */
public final class ConfigReader {

    private static final Pattern DURATION = Pattern.compile("(\\d+)\\s*(ms|s|m|h|d)?");
    private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*(b|k|kb|kib|m|mb|mib|g|gb|gib)?");

    private final Map<String, String> props;

    public ConfigReader(Map<String, String> props) {
        this.props = Map.copyOf(props);
    }

    public static ConfigReader of(java.util.Properties p) {
        java.util.Map<String, String> m = new java.util.HashMap<>();
        p.stringPropertyNames().forEach(k -> m.put(k, p.getProperty(k)));
        return new ConfigReader(m);
    }

    /** The keys present (set, even if blank). */
    public java.util.Set<String> keys() {
        return props.keySet();
    }

    /** The trimmed value, or empty when the key is absent or blank. */
    public Optional<String> optional(String key) {
        String v = props.get(key);
        if (v == null || v.isBlank()) {
            return Optional.empty();
        }
        return Optional.of(v.trim());
    }

    public String string(String key, String defaultValue) {
        return optional(key).orElse(defaultValue);
    }

    public String required(String key) {
        return optional(key).orElseThrow(() -> new ConfigException(key, null, "is required"));
    }

    public int integer(String key, int defaultValue) {
        return optional(key)
                .map(v -> {
                    try {
                        return Integer.parseInt(v);
                    } catch (NumberFormatException e) {
                        throw new ConfigException(
                                key, v, "is not an integer between " + Integer.MIN_VALUE + " and " + Integer.MAX_VALUE);
                    }
                })
                .orElse(defaultValue);
    }

    public boolean bool(String key, boolean defaultValue) {
        return optional(key)
                .map(v -> switch (v.toLowerCase(Locale.ROOT)) {
                    case "true", "yes", "on" -> true;
                    case "false", "no", "off" -> false;
                    default -> throw new ConfigException(key, v, "is not a boolean (true or false)");
                })
                .orElse(defaultValue);
    }

    /**
     * One of the constants of {@code defaultValue}'s enum, named in any case ({@code wait}, {@code WAIT}); a value
     * that names none is refused listing the allowed names in lower case ("must be 'wait' or 'reject'").
     */
    public <E extends Enum<E>> E choice(String key, E defaultValue) {
        Class<E> type = defaultValue.getDeclaringClass();
        String v = string(key, defaultValue.name().toLowerCase(Locale.ROOT));
        try {
            return Enum.valueOf(type, v.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            StringBuilder allowed = new StringBuilder();
            for (E c : type.getEnumConstants()) {
                allowed.append(allowed.isEmpty() ? "" : " or ")
                        .append('\'')
                        .append(c.name().toLowerCase(Locale.ROOT))
                        .append('\'');
            }
            throw new ConfigException(key, v, "must be " + allowed);
        }
    }

    /** A duration such as {@code 250ms}, {@code 30s}, {@code 5m}, {@code 1h}; a bare number is milliseconds. */
    public Duration duration(String key, Duration defaultValue) {
        return optional(key).map(v -> parseDuration(key, v)).orElse(defaultValue);
    }

    /** A byte size such as {@code 4096}, {@code 64KiB}, {@code 8MiB}, {@code 1GiB} (K/M/G are powers of 1024). */
    public long bytes(String key, long defaultValue) {
        return optional(key).map(v -> parseBytes(key, v)).orElse(defaultValue);
    }

    /**
     * {@code d} in the form this reader accepts ({@code 250ms}, {@code 30s}, {@code 5m}, {@code 1h}, {@code 1d}), for
     * messages: the largest unit that divides it; {@code null} for {@code null}.
     */
    public static String format(Duration d) {
        if (d == null) {
            return null;
        }
        if (d.isZero()) {
            return "0ms";
        }
        long ms;
        try {
            ms = d.toMillis();
        } catch (ArithmeticException e) {
            return d.toString();
        }
        if (d.toNanosPart() % 1_000_000 != 0) {
            return d.toString();
        }
        long[] factors = {86_400_000L, 3_600_000L, 60_000L, 1_000L};
        String[] units = {"d", "h", "m", "s"};
        for (int i = 0; i < factors.length; i++) {
            if (ms % factors[i] == 0) {
                return ms / factors[i] + units[i];
            }
        }
        return ms + "ms";
    }

    static Duration parseDuration(String key, String v) {
        Matcher m = DURATION.matcher(v.toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new ConfigException(key, v, "is not a duration (e.g. 250ms, 30s, 5m, 1h)");
        }
        try {
            long n = Long.parseLong(m.group(1));
            String unit = m.group(2) == null ? "ms" : m.group(2);
            return switch (unit) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                default -> Duration.ofDays(n);
            };
        } catch (NumberFormatException | ArithmeticException e) {
            throw new ConfigException(key, v, "is too large a duration");
        }
    }

    static long parseBytes(String key, String v) {
        Matcher m = SIZE.matcher(v.toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new ConfigException(key, v, "is not a byte size (e.g. 4096, 64KiB, 8MiB)");
        }
        String unit = m.group(2) == null ? "b" : m.group(2);
        long factor = switch (unit.charAt(0)) {
            case 'k' -> 1L << 10;
            case 'm' -> 1L << 20;
            case 'g' -> 1L << 30;
            default -> 1L;
        };
        try {
            return Math.multiplyExact(Long.parseLong(m.group(1)), factor);
        } catch (NumberFormatException | ArithmeticException e) {
            throw new ConfigException(key, v, "is too large a byte size (at most " + Long.MAX_VALUE + " bytes)");
        }
    }
}
