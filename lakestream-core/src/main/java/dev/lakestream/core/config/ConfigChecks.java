package dev.lakestream.core.config;

import java.time.Duration;

/**
 * The range checks several config records make, each with the one message they all give, so a record's constructor
 * states what it requires in a line. A check whose wording is its record's own stays in that record.
 */
public final class ConfigChecks {

    private ConfigChecks() {}

    /** Refuses a zero or negative {@code d}: "must be positive", the value shown as {@link ConfigReader#format}. */
    public static void requirePositive(String key, Duration d) {
        if (d.isNegative() || d.isZero()) {
            throw new ConfigException(key, ConfigReader.format(d), "must be positive");
        }
    }

    /** Refuses a negative {@code d}: "must not be negative", the value shown as {@link ConfigReader#format}. */
    public static void requireNotNegative(String key, Duration d) {
        if (d.isNegative()) {
            throw new ConfigException(key, ConfigReader.format(d), "must not be negative");
        }
    }

    /** Refuses a negative {@code n}: "must not be negative". */
    public static void requireNotNegative(String key, long n) {
        if (n < 0) {
            throw new ConfigException(key, String.valueOf(n), "must not be negative");
        }
    }
}
