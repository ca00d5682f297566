package dev.lakestream.handler;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** The plugin's version, from {@code plugin.properties} (filled in by the build); "dev" when it is missing. */
final class PluginVersion {

    private PluginVersion() {}

    static String get() {
        Properties p = new Properties();
        try (InputStream in = PluginVersion.class.getResourceAsStream("plugin.properties")) {
            if (in != null) {
                p.load(in);
            }
        } catch (IOException e) {
            // the version is informative only
        }
        return "lakestream-" + p.getProperty("version", "dev");
    }
}
