package dev.lakestream.core.config;

/** A configuration value is missing or invalid. The message names the key and the value. */
public class ConfigException extends IllegalArgumentException {

    private final String key;

    public ConfigException(String key, String value, String problem) {
        super(value == null ? "Configuration key '" + key + "' " + problem
                : "Configuration key '" + key + "' = '" + value + "' " + problem);
        this.key = key;
    }

    public String key() {
        return key;
    }
}
