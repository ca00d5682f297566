package dev.lakestream.core.gc;

import dev.lakestream.core.config.ConfigException;
import dev.lakestream.core.config.ConfigReader;
import java.time.Duration;

/**
 * Garbage collection of WAL objects.
 *
 * @param safetyMargin how much older than the oldest object still referenced an object must be before it
 *     is deleted; covers clock skew between writers and the time between an object's PUT and its index
 *     commit ({@code lakestream.gc.safetyMargin}, default 1 h)
 * @param orphanDelay how old an object that no index record references must be before it is deleted as an
 *     orphan (a writer crashed between PUT and commit, or a commit failed) ({@code lakestream.gc.orphanDelay},
 *     default 1 h); must exceed the longest a commit can take after its PUT
 * @param commitWindow how far after an object's name time its index commit may be, when looking for the
 *     records that reference it ({@code lakestream.gc.commitWindow}, default 10 min)
 */
public record GcConfig(Duration safetyMargin, Duration orphanDelay, Duration commitWindow) {

    public static final GcConfig DEFAULT = new GcConfig(Duration.ofHours(1), Duration.ofHours(1), Duration.ofMinutes(10));

    public GcConfig {
        if (safetyMargin.isNegative()) {
            throw new ConfigException("lakestream.gc.safetyMargin", safetyMargin.toString(), "must not be negative");
        }
        if (orphanDelay.compareTo(commitWindow) < 0) {
            throw new ConfigException("lakestream.gc.orphanDelay", orphanDelay.toString(),
                    "must be at least lakestream.gc.commitWindow (" + commitWindow + ")");
        }
    }

    public static GcConfig fromProperties(ConfigReader r) {
        return new GcConfig(r.duration("lakestream.gc.safetyMargin", DEFAULT.safetyMargin),
                r.duration("lakestream.gc.orphanDelay", DEFAULT.orphanDelay),
                r.duration("lakestream.gc.commitWindow", DEFAULT.commitWindow));
    }
}
