package dev.lakestream.core.config;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Every {@code lakestream.*} configuration key, gathered from the {@link ConfigKeySet}s registered on the class path:
 * each lists the {@code KEYS} of the typed config objects of its package, which read them (so a key is declared
 * once, where it is read, and this package knows none of the packages that read keys). Start-up refuses a {@code lakestream.*} key that
 * is not here, naming it and the nearest known key: a misspelt key would otherwise be ignored silently.
 */
public final class ConfigKeys {

    /** The prefix of every key of this project; other keys (a broker's own) are not checked. */
    public static final String PREFIX = "lakestream.";

    private static final Set<String> KNOWN =
            RegisteredKeySets.ALL.stream().flatMap(set -> set.keys().stream()).collect(Collectors.toUnmodifiableSet());

    private static final List<String> PREFIXES = RegisteredKeySets.ALL.stream()
            .flatMap(set -> set.prefixes().stream())
            .toList();

    /**
     * Key families of modules that may live in another class loader than this one: the Iceberg materializer's keys
     * are read by the broker plugin, whose NAR the storage in the broker's {@code lib/} cannot see. When no key set
     * on this class path claims such a family, its keys pass here and the module that reads them checks them.
     */
    private static final List<String> CHECKED_BY_THEIR_MODULE = List.of("lakestream.iceberg.");

    private ConfigKeys() {}

    /** Every known key, sorted. */
    public static Set<String> known() {
        return new TreeSet<>(KNOWN);
    }

    public static boolean isKnown(String key) {
        return KNOWN.contains(key) || PREFIXES.stream().anyMatch(key::startsWith) || checkedElsewhere(key);
    }

    private static boolean checkedElsewhere(String key) {
        return CHECKED_BY_THEIR_MODULE.stream()
                .anyMatch(family -> key.startsWith(family) && KNOWN.stream().noneMatch(k -> k.startsWith(family)));
    }

    /**
     * Refuses unknown {@code lakestream.*} keys among {@code keys}.
     *
     * @throws ConfigException naming every unknown key and, for each, the nearest known key if one is close
     */
    public static void requireKnown(Collection<String> keys) {
        List<String> unknown = keys.stream()
                .filter(k -> k.startsWith(PREFIX) && !isKnown(k))
                .sorted()
                .toList();
        if (unknown.isEmpty()) {
            return;
        }
        List<String> parts = new ArrayList<>();
        for (String k : unknown) {
            parts.add("unknown key " + k
                    + nearest(k).map(n -> " (did you mean " + n + "?)").orElse(""));
        }
        throw ConfigException.unknownKeys(
                unknown, String.join("; ", parts) + " (known lakestream.* keys are listed in docs/configuration.md)");
    }

    /**
     * The known key closest to {@code key} by edit distance (ignoring case), if it is close enough to be a typo:
     * at most 3 edits, and fewer than a third of the key's characters.
     */
    public static Optional<String> nearest(String key) {
        String k = key.toLowerCase(Locale.ROOT);
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String candidate : new TreeSet<>(KNOWN)) {
            int d = editDistance(k, candidate.toLowerCase(Locale.ROOT));
            if (d < bestDistance) {
                best = candidate;
                bestDistance = d;
            }
        }
        int suffix = Math.max(1, key.length() - PREFIX.length());
        return bestDistance <= 3 && bestDistance * 3 < suffix ? Optional.of(best) : Optional.empty();
    }

    /** Levenshtein distance: insertions, deletions and substitutions of one character. */
    static int editDistance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitution = prev[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                cur[j] = Math.min(substitution, Math.min(prev[j], cur[j - 1]) + 1);
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }
}
