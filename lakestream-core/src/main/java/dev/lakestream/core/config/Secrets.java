package dev.lakestream.core.config;

import java.util.Properties;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The one place that decides how a configuration value is shown in a log line, an exception message or a
 * {@code toString()}: secrets never appear, identifiers of credentials only by their last characters. Which keys hold
 * them, the config that reads them says ({@link ConfigKeySet#secretKeys()}, {@link ConfigKeySet#credentialIdKeys()}).
 */
public final class Secrets {

    /** Shown instead of a secret. */
    public static final String MASK = "****";

    /** Keys whose values are secrets: never shown. */
    private static final Set<String> SECRET_KEYS = RegisteredKeySets.ALL.stream()
            .flatMap(set -> set.secretKeys().stream())
            .collect(Collectors.toUnmodifiableSet());

    /** Keys whose values identify a credential: shown by their last 4 characters, enough to tell two apart. */
    private static final Set<String> CREDENTIAL_ID_KEYS = RegisteredKeySets.ALL.stream()
            .flatMap(set -> set.credentialIdKeys().stream())
            .collect(Collectors.toUnmodifiableSet());

    private Secrets() {}

    public static boolean isSecret(String key) {
        return SECRET_KEYS.contains(key);
    }

    /**
     * Replaces the credentials in {@code properties} by what {@link #shown} shows of them, for a host whose configuration object outlives
     * the reading of it and is printed by code we do not own (Pulsar logs every custom broker property at start-up).
     * Call it once the secrets have been read.
     */
    public static void maskIn(Properties properties) {
        if (properties == null) {
            return;
        }
        for (String key :
                Stream.concat(SECRET_KEYS.stream(), CREDENTIAL_ID_KEYS.stream()).toList()) {
            String value = properties.getProperty(key);
            if (value != null) {
                properties.setProperty(key, shown(key, value));
            }
        }
    }

    /** {@code value} as it may be shown for {@code key}; {@code null} stays {@code null}. */
    public static String shown(String key, String value) {
        if (value == null) {
            return null;
        }
        if (SECRET_KEYS.contains(key)) {
            return MASK;
        }
        if (CREDENTIAL_ID_KEYS.contains(key)) {
            return value.length() <= 8 ? MASK : MASK + value.substring(value.length() - 4);
        }
        return value;
    }
}
