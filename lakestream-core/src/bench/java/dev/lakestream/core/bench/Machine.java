package dev.lakestream.core.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/** What the benchmark ran on, from {@code nproc}, {@code /proc} and the JVM, for the report. */
record Machine(int cores, String cpu, String memory, String jdk, String os) {

    static Machine describe() {
        int cores = command("nproc")
                .map(s -> Integer.parseInt(s.trim()))
                .orElse(Runtime.getRuntime().availableProcessors());
        String cpu = lines("/proc/cpuinfo").stream()
                .filter(l -> l.startsWith("model name"))
                .map(l -> l.substring(l.indexOf(':') + 1).trim())
                .findFirst()
                .orElse(System.getProperty("os.arch"));
        String memory = lines("/proc/meminfo").stream()
                .filter(l -> l.startsWith("MemTotal:"))
                .map(l -> Long.parseLong(l.replaceAll("\\D", "")))
                .map(kib -> String.format(Locale.ROOT, "%.1f GiB", kib / 1024.0 / 1024.0))
                .findFirst()
                .orElse("unknown");
        String jdk = System.getProperty("java.vm.vendor") + " " + System.getProperty("java.runtime.name") + " "
                + System.getProperty("java.runtime.version");
        String distro = lines("/etc/os-release").stream()
                .filter(l -> l.startsWith("PRETTY_NAME="))
                .map(l -> l.substring("PRETTY_NAME=".length()).replace("\"", ""))
                .findFirst()
                .orElse(System.getProperty("os.name"));
        String os = distro + ", kernel " + System.getProperty("os.version") + " " + System.getProperty("os.arch");
        return new Machine(cores, cpu, memory, jdk, os);
    }

    /** The 1-, 5- and 15-minute load averages, as {@code /proc/loadavg} gives them. */
    @SuppressWarnings("StringSplitter") // /proc fields are never empty between separators; trailing ones unused
    static String loadAverage() {
        List<String> l = lines("/proc/loadavg");
        if (l.isEmpty()) {
            return "unknown";
        }
        String[] f = l.get(0).split("\\s+");
        return f.length >= 3 ? f[0] + " / " + f[1] + " / " + f[2] : l.get(0);
    }

    private static List<String> lines(String file) {
        try {
            return Files.readAllLines(Path.of(file), StandardCharsets.UTF_8);
        } catch (IOException | RuntimeException e) {
            return List.of();
        }
    }

    private static Optional<String> command(String... cmd) {
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            return p.waitFor(5, TimeUnit.SECONDS) && p.exitValue() == 0 ? Optional.of(out) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }
}
