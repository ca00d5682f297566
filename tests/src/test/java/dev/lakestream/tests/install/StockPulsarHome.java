package dev.lakestream.tests.install;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A copy of the stock Pulsar 5.0.1 home (module {@code stock-pulsar}) in a test's directory: {@code conf/} and
 * {@code bin/} copied, {@code lib/} jars hard-linked (the same 300 jars, none of this project's). Tests install the
 * release bundle (module {@code distribution}) into it with {@code bin/lakestream-install}, as a user does, and start
 * Pulsar's own launcher from it.
 */
public final class StockPulsarHome {

    public static final String VERSION = "0.1.0-SNAPSHOT";

    private final Path dir;

    private StockPulsarHome(Path dir) {
        this.dir = dir;
    }

    /** The repository root (surefire passes it; else the parent of the working directory). */
    public static Path projectDir() {
        String p = System.getProperty("lakestream.projectDir");
        return p != null && !p.isBlank()
                ? Path.of(p)
                : Path.of("").toAbsolutePath().getParent();
    }

    /** The stock home the module stock-pulsar assembled. */
    public static Path stockHome() {
        Path home = projectDir().resolve("stock-pulsar/target/apache-pulsar-5.0.1");
        if (!Files.isRegularFile(home.resolve("lib/org.apache.pulsar-pulsar-broker-5.0.1.jar"))) {
            throw new IllegalStateException("No stock Pulsar home at " + home + ": package the module stock-pulsar"
                    + " (run the tests with 'package' or 'install', e.g. bin/test)");
        }
        return home;
    }

    /** The unpacked release bundle the module distribution built. */
    public static Path bundle() {
        Path b = projectDir().resolve("distribution/target/lakestream-pulsar-" + VERSION);
        if (!Files.isExecutable(b.resolve("bin/lakestream-install"))) {
            throw new IllegalStateException("No release bundle at " + b + ": package the module distribution first");
        }
        return b;
    }

    /** A fresh copy of the stock home at {@code dir}. */
    public static StockPulsarHome copyTo(Path dir) throws IOException {
        Path stock = stockHome();
        Files.createDirectories(dir);
        for (String sub : List.of("bin", "conf", "lib", "protocols", "interceptors")) {
            Path from = stock.resolve(sub);
            Path to = Files.createDirectories(dir.resolve(sub));
            try (Stream<Path> files = Files.list(from)) {
                for (Path f : files.filter(Files::isRegularFile).toList()) {
                    Path target = to.resolve(f.getFileName());
                    if (sub.equals("lib")) {
                        link(f, target);
                    } else {
                        Files.copy(f, target, StandardCopyOption.COPY_ATTRIBUTES);
                    }
                }
            }
        }
        return new StockPulsarHome(dir);
    }

    private static void link(Path from, Path to) throws IOException {
        try {
            Files.createLink(to, from);
        } catch (IOException | UnsupportedOperationException e) {
            Files.copy(from, to);
        }
    }

    public Path dir() {
        return dir;
    }

    public Path brokerConf() {
        return dir.resolve("conf/broker.conf");
    }

    /**
     * Sets keys in {@code conf/broker.conf} as a user editing it would: an existing {@code key=} line gets the value,
     * others are appended.
     */
    public void editBrokerConf(Map<String, String> values) throws IOException {
        List<String> lines = new ArrayList<>(Files.readAllLines(brokerConf(), StandardCharsets.UTF_8));
        for (Map.Entry<String, String> e : values.entrySet()) {
            boolean found = false;
            for (int i = 0; i < lines.size(); i++) {
                if (lines.get(i).startsWith(e.getKey() + "=")) {
                    lines.set(i, e.getKey() + "=" + e.getValue());
                    found = true;
                }
            }
            if (!found) {
                lines.add(e.getKey() + "=" + e.getValue());
            }
        }
        Files.write(brokerConf(), lines, StandardCharsets.UTF_8);
    }

    /** Removes every line setting {@code key}, as a user deleting it would. */
    public void removeFromBrokerConf(String key) throws IOException {
        List<String> lines = Files.readAllLines(brokerConf(), StandardCharsets.UTF_8).stream()
                .filter(l -> !l.startsWith(key + "="))
                .toList();
        Files.write(brokerConf(), lines, StandardCharsets.UTF_8);
    }

    /** Runs the bundle's {@code bin/lakestream-install} on this home; its exit code and output. */
    public CommandResult install(String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(bundle().resolve("bin/lakestream-install").toString());
        cmd.add(dir.toString());
        cmd.addAll(List.of(args));
        return run(cmd, Map.of(), 60);
    }

    /** Runs one of this home's {@code bin/} commands (Pulsar's launcher) to completion. */
    public CommandResult bin(String command, Map<String, String> env, int timeoutSeconds, String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(dir.resolve("bin").resolve(command).toString());
        cmd.addAll(List.of(args));
        return run(cmd, env, timeoutSeconds);
    }

    /** The environment a JVM launched from this home gets: this test JVM's JDK. */
    static Map<String, String> javaEnv() {
        String javaHome = System.getProperty("java.home");
        return Map.of("JAVA_HOME", javaHome);
    }

    /** A finished command: exit code and merged output. */
    public record CommandResult(int exitCode, String output) {
        @Override
        public String toString() {
            return "exit " + exitCode + ":\n" + output;
        }
    }

    static CommandResult run(List<String> cmd, Map<String, String> env, int timeoutSeconds) {
        try {
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
            pb.environment().putAll(javaEnv());
            pb.environment().putAll(env);
            Path out = Files.createTempFile("cmd-", ".log");
            pb.redirectOutput(out.toFile());
            Process p = pb.start();
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                throw new IllegalStateException(
                        cmd + " did not finish within " + timeoutSeconds + " s; output: " + Files.readString(out));
            }
            String text = Files.readString(out);
            Files.deleteIfExists(out);
            return new CommandResult(p.exitValue(), text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
