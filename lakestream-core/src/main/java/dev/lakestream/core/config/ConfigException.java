package dev.lakestream.core.config;

import java.util.List;

/**
 * A configuration value is missing or invalid, or a key is unknown. The message names the key and the value
 * (a secret's value is masked, see {@link Secrets}).
 */
public class ConfigException extends IllegalArgumentException {

    private final List<String> keys;

    public ConfigException(String key, String value, String problem) {
        this(List.of(key), format(key, Secrets.shown(key, value), problem));
    }

    private ConfigException(List<String> keys, String message) {
        super(message);
        this.keys = List.copyOf(keys);
    }

    /** Unknown keys, with a message naming each (and the nearest known key, see {@link ConfigKeys}). */
    static ConfigException unknownKeys(List<String> keys, String message) {
        return new ConfigException(keys, message);
    }

    /** The (first) key at fault. */
    public String key() {
        return keys.get(0);
    }

    /** Every key at fault (several when more than one key is unknown). */
    public List<String> keys() {
        return keys;
    }

    private static String format(String key, String value, String problem) {
        return value == null
                ? "Configuration key '" + key + "' " + problem
                : "Configuration key '" + key + "' = '" + value + "' " + problem;
    }
}
