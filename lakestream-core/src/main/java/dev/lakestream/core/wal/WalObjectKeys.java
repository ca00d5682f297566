package dev.lakestream.core.wal;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.UUID;

/**
 * Names WAL objects {@code yyyy/MM/dd/HH/mm/ss/<uuid>} (relative to the object store's root), from the
 * writer's clock in UTC. The date prefix lets garbage collection list old objects by time; the offset
 * index, not the name, orders data.
 */
public final class WalObjectKeys {

    private static final DateTimeFormatter DATE_PATH =
            DateTimeFormatter.ofPattern("yyyy/MM/dd/HH/mm/ss").withZone(ZoneOffset.UTC);

    private WalObjectKeys() {}

    public static String newKey(Instant now) {
        return DATE_PATH.format(now) + "/" + UUID.randomUUID();
    }

    /** The date-path prefix of every object written in the given second, e.g. {@code 2026/11/29/22/40/01/}. */
    public static String secondPrefix(Instant t) {
        return DATE_PATH.format(t) + "/";
    }

    /** Parses the time a key was written from its date path, or {@code null} when it is not a WAL object key. */
    public static Instant writtenAt(String key) {
        if (key.length() < 20) {
            return null;
        }
        try {
            return DATE_PATH.parse(key.substring(0, 19), Instant::from);
        } catch (java.time.format.DateTimeParseException e) {
            return null;
        }
    }
}
