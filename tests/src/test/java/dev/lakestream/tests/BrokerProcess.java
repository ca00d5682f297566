package dev.lakestream.tests;

import dev.lakestream.broker.LakestreamBroker;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A Pulsar broker in its own JVM, started with the launcher {@code bin/run-broker} uses
 * ({@link LakestreamBroker}), so that a test can kill it the way a machine dies: {@code SIGKILL}, no shutdown hook, no
 * graceful unload. Its output goes to a log file the failure messages name.
 */
public final class BrokerProcess implements AutoCloseable {

    /** What the launcher prints once the broker serves. */
    private static final String READY_LINE = "Pulsar broker is running";

    private final String name;
    private final List<String> command;
    private final Path logFile;
    private final int brokerPort;
    private final int webPort;
    private Process process;

    private BrokerProcess(String name, List<String> command, Path logFile, int brokerPort, int webPort) {
        this.name = name;
        this.command = command;
        this.logFile = logFile;
        this.brokerPort = brokerPort;
        this.webPort = webPort;
    }

    /**
     * A broker of {@code confFile} with {@code overrides} (ports are picked here), not started yet. Its data directory
     * and log file live under {@code workDir}.
     */
    public static BrokerProcess of(String name, Path confFile, Path workDir, Map<String, String> overrides)
            throws IOException {
        int brokerPort = freePort();
        int webPort = freePort();
        Path dataDir = Files.createDirectories(workDir.resolve(name));
        Map<String, String> all = PulsarBrokerExtension.localBrokerSettings(brokerPort, webPort);
        // The broker plugin the configuration names, as bin/run-broker provides it.
        all.put(
                "brokerInterceptorsDirectory",
                PulsarBrokerExtension.pluginDirectory().toString());
        all.put(
                "protocolHandlerDirectory",
                PulsarBrokerExtension.pluginDirectory().toString());
        all.put("narExtractionDirectory", dataDir.resolve("nar").toString());
        all.putAll(overrides);

        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse("java"));
        cmd.add("-Xms256m");
        cmd.add("-Xmx768m");
        cmd.add("-XX:+UseSerialGC");
        cmd.add("-XX:TieredStopAtLevel=1");
        // The module-access flags the test JVM got from surefire are the ones the broker needs too.
        for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (arg.startsWith("--add-opens")
                    || arg.startsWith("--enable-native-access")
                    || arg.startsWith("--sun-misc-unsafe")
                    || arg.startsWith("-Dio.netty")
                    || arg.equals("-XX:+EnableDynamicAgentLoading")) {
                cmd.add(arg);
            }
        }
        cmd.add("-Dlog4j2.configurationFile="
                + PulsarBrokerExtension.projectDir().resolve("conf/log4j2.xml"));
        cmd.add("-cp");
        cmd.add(testClassPath());
        cmd.add(LakestreamBroker.class.getName());
        cmd.add("--broker-conf");
        cmd.add(confFile.toString());
        cmd.add("--data-dir");
        cmd.add(dataDir.toString());
        all.forEach((k, v) -> cmd.add(k + "=" + v));
        return new BrokerProcess(name, cmd, workDir.resolve(name + ".log"), brokerPort, webPort);
    }

    /** Starts the JVM and returns once the launcher reports the broker serving. */
    public synchronized BrokerProcess start(Duration timeout) throws IOException, InterruptedException {
        if (process != null && process.isAlive()) {
            throw new IllegalStateException("broker " + name + " is already running");
        }
        ProcessBuilder pb = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
        pb.environment()
                .put(
                        LakestreamBroker.DATA_DIR_ENV,
                        logFile.getParent().resolve(name).toString());
        pb.environment().put("LAKESTREAM_LOG_LEVEL", "INFO");
        long logStart = Files.exists(logFile) ? Files.size(logFile) : 0;
        process = pb.start();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (logSince(logStart).contains(READY_LINE)) {
                return this;
            }
            if (!process.isAlive()) {
                throw new IllegalStateException(
                        "broker " + name + " exited with " + process.exitValue() + " before serving; log: " + logFile);
            }
            Thread.sleep(200);
        }
        kill();
        throw new IllegalStateException("broker " + name + " did not serve within " + timeout + "; log: " + logFile);
    }

    /** {@code SIGKILL}: the broker gets no chance to close anything. */
    public synchronized void kill() throws InterruptedException {
        if (process != null) {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
        }
    }

    /** {@code SIGTERM}: the launcher's shutdown hook closes the broker cleanly. */
    public synchronized void stop() throws InterruptedException {
        if (process != null && process.isAlive()) {
            process.destroy();
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(30, TimeUnit.SECONDS);
            }
        }
    }

    /**
     * {@code SIGSTOP}: the JVM freezes as a process does in a long GC pause or a stalled VM; its sockets stay open
     * and the kernel keeps accepting bytes for it. {@link #resume()} lets it run on as if nothing happened.
     */
    public synchronized void pause() throws IOException, InterruptedException {
        signal("STOP");
    }

    /** {@code SIGCONT}: a paused broker runs on. */
    public synchronized void resume() throws IOException, InterruptedException {
        signal("CONT");
    }

    private void signal(String sig) throws IOException, InterruptedException {
        if (process == null || !process.isAlive()) {
            throw new IllegalStateException("broker " + name + " is not running; cannot send SIG" + sig);
        }
        Process kill = new ProcessBuilder("kill", "-" + sig, Long.toString(process.pid()))
                .inheritIO()
                .start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new IOException("kill -" + sig + " " + process.pid() + " (broker " + name + ") failed");
        }
    }

    /**
     * Writes the broker JVM's thread dump ({@code jcmd PID Thread.print}, the JDK's own tool beside the test JVM's
     * {@code java}) next to its log, for a test that finds the broker stuck; returns the file.
     */
    public synchronized Path threadDump(String label) throws IOException, InterruptedException {
        if (process == null || !process.isAlive()) {
            throw new IOException("broker " + name + " is not running: no thread dump");
        }
        Path java = Path.of(ProcessHandle.current().info().command().orElse("java"));
        Path jcmd = java.resolveSibling("jcmd");
        Path out = logFile.resolveSibling(name + "-threads-" + label + ".txt");
        Process p = new ProcessBuilder(jcmd.toString(), Long.toString(process.pid()), "Thread.print")
                .redirectErrorStream(true)
                .redirectOutput(out.toFile())
                .start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException(jcmd + " " + process.pid() + " did not finish within 60 s (broker " + name + ")");
        }
        return out;
    }

    public synchronized boolean isAlive() {
        return process != null && process.isAlive();
    }

    public String name() {
        return name;
    }

    /** {@code 127.0.0.1:<port>} of the binary protocol. */
    public String brokerAddress() {
        return "127.0.0.1:" + brokerPort;
    }

    /** {@code 127.0.0.1:<port>} of the admin API. */
    public String webAddress() {
        return "127.0.0.1:" + webPort;
    }

    public Path logFile() {
        return logFile;
    }

    @Override
    public void close() throws InterruptedException {
        kill();
    }

    @Override
    public String toString() {
        return "broker " + name + " (" + brokerAddress() + ", log " + logFile + ")";
    }

    private String logSince(long offset) throws IOException {
        if (!Files.exists(logFile)) {
            return "";
        }
        byte[] all = Files.readAllBytes(logFile);
        int from = (int) Math.min(offset, all.length);
        return new String(all, from, all.length - from, StandardCharsets.UTF_8);
    }

    /** The test class path: surefire hands it over in a property when the JVM runs from a manifest-only jar. */
    private static String testClassPath() {
        String cp = System.getProperty("surefire.test.class.path");
        return cp != null && !cp.isBlank() ? cp : System.getProperty("java.class.path");
    }

    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
