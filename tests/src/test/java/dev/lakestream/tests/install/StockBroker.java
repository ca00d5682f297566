package dev.lakestream.tests.install;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * A broker started by a Pulsar home's own launcher ({@code bin/pulsar broker}, i.e. {@code PulsarBrokerStarter} with
 * {@code conf/} and {@code lib/*} on the class path), in its own process, its output in a log file.
 */
public final class StockBroker implements AutoCloseable {

    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private final StockPulsarHome home;
    private final int webPort;
    private final Path logFile;
    private Process process;

    public StockBroker(StockPulsarHome home, int webPort, Path logFile) {
        this.home = home;
        this.webPort = webPort;
        this.logFile = logFile;
    }

    /** Starts {@code bin/pulsar broker}; does not wait. */
    public synchronized StockBroker start() throws IOException {
        ProcessBuilder pb = new ProcessBuilder(home.dir().resolve("bin/pulsar").toString(), "broker")
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
        Map<String, String> env = new HashMap<>(StockPulsarHome.javaEnv());
        env.put("PULSAR_MEM", "-Xms256m -Xmx768m -XX:MaxDirectMemorySize=512m -XX:+UseSerialGC");
        env.put("PULSAR_EXTRA_OPTS", "-XX:TieredStopAtLevel=1 --sun-misc-unsafe-memory-access=allow");
        env.put("PULSAR_LOG_DIR", logFile.getParent().toString());
        pb.environment().putAll(env);
        process = pb.start();
        return this;
    }

    /** Waits until the admin API answers; fails with the log's tail when the process exits first. */
    public StockBroker awaitServing(Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("the broker exited with " + process.exitValue() + " before serving;"
                        + " log " + logFile + ":\n" + tail(8000));
            }
            try {
                HttpResponse<String> r = HTTP.send(
                        HttpRequest.newBuilder(URI.create(webServiceUrl() + "/admin/v2/clusters"))
                                .timeout(Duration.ofSeconds(5))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200) {
                    return this;
                }
            } catch (IOException e) {
                // not listening yet
            }
            Thread.sleep(250);
        }
        kill();
        throw new IllegalStateException(
                "the broker did not serve within " + timeout + "; log " + logFile + ":\n" + tail(8000));
    }

    /** Waits for the process to end by itself (a start-up that must fail); its exit code. */
    public int awaitExit(Duration timeout) throws InterruptedException, IOException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            kill();
            throw new IllegalStateException("the broker was expected to refuse to start, but still ran after " + timeout
                    + "; log " + logFile + ":\n" + tail(8000));
        }
        return process.exitValue();
    }

    public String webServiceUrl() {
        return "http://127.0.0.1:" + webPort;
    }

    public Path logFile() {
        return logFile;
    }

    public String log() throws IOException {
        return Files.exists(logFile) ? Files.readString(logFile) : "";
    }

    /**
     * Why the broker may have stopped serving, for a test failure that shows only the failure's message: whether the
     * process still runs (else its exit code), the lines where Pulsar logs that it shuts down or a fatal error, and
     * the first errors before them. Empty when the process runs and logged none of these.
     */
    public String diagnosis() {
        StringBuilder out = new StringBuilder();
        if (process != null && !process.isAlive()) {
            out.append("the broker process exited with code ")
                    .append(process.exitValue())
                    .append("; ");
        }
        List<String> lines;
        try {
            lines = Files.exists(logFile) ? Files.readAllLines(logFile) : List.of();
        } catch (IOException | UncheckedIOException e) {
            return out + "its log " + logFile + " is unreadable: " + e;
        }
        int firstStop = -1;
        for (int i = 0; i < lines.size() && firstStop < 0; i++) {
            if (STOPPING.matcher(lines.get(i)).find()) {
                firstStop = i;
            }
        }
        if (firstStop < 0 && out.isEmpty()) {
            return "";
        }
        // The errors logged before the broker began to stop say why it did; then the stop itself.
        int end = firstStop < 0 ? lines.size() : firstStop + 1;
        List<String> errors = lines.subList(0, end).stream()
                .filter(l -> l.contains(" ERROR ") || l.startsWith("# ") || l.contains("Exception"))
                .toList();
        out.append("log ").append(logFile).append(": ");
        errors.subList(Math.max(0, errors.size() - 6), errors.size())
                .forEach(l -> out.append(l).append(" | "));
        if (firstStop >= 0) {
            out.append(lines.get(firstStop));
        }
        return out.toString();
    }

    private static final Pattern STOPPING = Pattern.compile(
            "Closing PulsarService|Shutting down|OutOfMemoryError|fatal error has been detected"
                    + "|session with metadata service was lost",
            Pattern.CASE_INSENSITIVE);

    private String tail(int chars) throws IOException {
        String all = log();
        return all.length() <= chars ? all : all.substring(all.length() - chars);
    }

    /** {@code SIGTERM}, as an operator stops a broker; waits for the process to end. */
    public synchronized void stop() throws InterruptedException {
        if (process != null && process.isAlive()) {
            process.destroy();
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                kill();
            }
        }
    }

    public synchronized void kill() throws InterruptedException {
        if (process != null && process.isAlive()) {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
        }
    }

    @Override
    public void close() throws InterruptedException {
        kill();
    }
}
