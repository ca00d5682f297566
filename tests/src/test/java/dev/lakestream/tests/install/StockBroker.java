package dev.lakestream.tests.install;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

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
