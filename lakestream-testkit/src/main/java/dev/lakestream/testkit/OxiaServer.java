package dev.lakestream.testkit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real Oxia standalone server in its own process, for tests.
 *
 * <p>The binary is {@code $OXIA_BIN} if set; otherwise the launcher in {@code tools/oxia-server} is built (or
 * found in its cache) by its {@code build.sh}, whose directory comes from the classpath resource
 * {@code lakestream-testkit.properties} (key {@code oxia.launcher.dir}). The server listens on a free port of
 * 127.0.0.1, keeps its data in its own temporary directory, and writes its output to
 * {@code target/oxia-server-logs/NAME-TIME.log} (relative to the working directory, the module under Maven).
 * {@link #start()} returns once the server printed its readiness line, which it does after its shards are led
 * and its gRPC listener is bound. {@link #restart()} stops it (SIGTERM) and starts it again on the same port and
 * data. {@link #close()} stops it and deletes the data.
 */
public final class OxiaServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(OxiaServer.class);

    /** Environment variable naming a ready Oxia launcher binary; skips the build. */
    public static final String OXIA_BIN_ENV = "OXIA_BIN";

    private static final String READY_PREFIX = "OXIA-SERVER READY public=";
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(15);
    private static final Duration BUILD_TIMEOUT = Duration.ofMinutes(10);
    private static final AtomicInteger COUNTER = new AtomicInteger();
    private static final Set<Process> RUNNING = ConcurrentHashMap.newKeySet();
    private static volatile Path resolvedBinary;

    static {
        Runtime.getRuntime()
                .addShutdownHook(new Thread(() -> RUNNING.forEach(Process::destroyForcibly), "oxia-server-reaper"));
    }

    private final String name;
    private final int shards;
    private final boolean walSync;
    /** PEM certificate and key of the public port (TLS), or null. */
    private final Path tlsCert;

    private final Path tlsKey;
    private Path dataDir;
    private Path logFile;
    private Process process;
    private Thread pump;
    private int port;
    private String serviceAddress;

    private OxiaServer(String name, int shards, boolean walSync, Path tlsCert, Path tlsKey) {
        this.name = name;
        this.shards = shards;
        this.walSync = walSync;
        this.tlsCert = tlsCert;
        this.tlsKey = tlsKey;
    }

    /** A server with one shard and the WAL not fsynced (clean stops and restarts keep all data). */
    public static OxiaServer create(String name) {
        return new OxiaServer(name, 1, false, null, null);
    }

    /** A copy of this (not started) server's settings with {@code n} shards in the default namespace. */
    public OxiaServer withShards(int n) {
        if (n < 1) {
            throw new IllegalArgumentException("shards must be >= 1, got " + n);
        }
        return new OxiaServer(name, n, walSync, tlsCert, tlsKey);
    }

    /** A copy with the WAL fsynced on every write (needed only to survive a kill -9 with no data loss). */
    public OxiaServer withWalSync(boolean sync) {
        return new OxiaServer(name, shards, sync, tlsCert, tlsKey);
    }

    /** A copy serving TLS on its public port with this PEM certificate (chain) and key. */
    public OxiaServer withTls(Path certPem, Path keyPem) {
        return new OxiaServer(name, shards, walSync, certPem, keyPem);
    }

    /**
     * Starts the server and waits until it serves: on a free port the first time, and after a {@link #stop()} on
     * the same port with the same data.
     */
    public synchronized OxiaServer start() {
        if (process != null) {
            throw new IllegalStateException("Oxia server " + name + " is already running at " + serviceAddress);
        }
        try {
            if (dataDir == null) {
                dataDir = Files.createTempDirectory("oxia-" + sanitize(name) + "-");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Could not start Oxia server " + name, e);
        }
        launchOnSamePort();
        return this;
    }

    /** {@code host:port} of the public endpoint, for {@code lakestream.oxia.serviceAddress}. */
    public synchronized String serviceAddress() {
        if (serviceAddress == null) {
            throw new IllegalStateException("Oxia server " + name + " was never started");
        }
        return serviceAddress;
    }

    public synchronized int port() {
        return port;
    }

    public synchronized Path dataDir() {
        return dataDir;
    }

    public synchronized Path logFile() {
        return logFile;
    }

    public synchronized boolean isRunning() {
        return process != null && process.isAlive();
    }

    /** Stops the server (SIGTERM, then SIGKILL after a timeout), keeping its data. */
    public synchronized void stop() {
        if (process == null) {
            return;
        }
        Process p = process;
        process = null;
        p.destroy();
        try {
            if (!p.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.warn(
                        "Oxia server {} did not stop within {} s after SIGTERM; killing it",
                        name,
                        STOP_TIMEOUT.toSeconds());
                p.destroyForcibly();
                p.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            }
            if (pump != null) {
                pump.join(STOP_TIMEOUT.toMillis());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
        } finally {
            RUNNING.remove(p);
        }
    }

    /** Kills the server without letting it shut down cleanly (SIGKILL), keeping its data. */
    public synchronized void kill() {
        if (process == null) {
            return;
        }
        Process p = process;
        process = null;
        p.destroyForcibly();
        try {
            p.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            RUNNING.remove(p);
        }
    }

    /**
     * {@code SIGSTOP}: the server freezes with its sockets open (a stalled VM, a long pause); clients' requests hang
     * rather than fail, and its sessions stop being kept. {@link #resume()} lets it run on.
     */
    public synchronized void pause() {
        signal("STOP");
    }

    /** {@code SIGCONT}: a paused server runs on. */
    public synchronized void resume() {
        signal("CONT");
    }

    private void signal(String sig) {
        if (process == null || !process.isAlive()) {
            throw new IllegalStateException("Oxia server " + name + " is not running; cannot send SIG" + sig);
        }
        try {
            Process kill = new ProcessBuilder("kill", "-" + sig, Long.toString(process.pid()))
                    .inheritIO()
                    .start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException(
                        "kill -" + sig + " " + process.pid() + " (Oxia server " + name + ") failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("kill -" + sig + " of Oxia server " + name, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while signalling Oxia server " + name, e);
        }
    }

    /** Stops the server and starts it again on the same port with the same data; waits until it serves. */
    public synchronized void restart() {
        stop();
        launchOnSamePort();
    }

    private void launchOnSamePort() {
        IOException last = null;
        // After a stop the port was just released; retry briefly should another socket still hold it.
        for (int attempt = 0; attempt < 20; attempt++) {
            try {
                launch(port);
                return;
            } catch (PortInUseException e) {
                last = e;
                sleep(250);
            } catch (IOException e) {
                throw new UncheckedIOException("Could not start Oxia server " + name, e);
            }
        }
        throw new UncheckedIOException("Could not start Oxia server " + name + " on port " + port, last);
    }

    /** Stops the server and deletes its data directory. */
    @Override
    public synchronized void close() {
        stop();
        if (dataDir != null) {
            deleteRecursively(dataDir);
            dataDir = null;
        }
    }

    @Override
    public String toString() {
        return "OxiaServer[" + name + " " + serviceAddress + "]";
    }

    // ---------------------------------------------------------------- process

    private static final class PortInUseException extends IOException {
        private static final long serialVersionUID = 1L;

        PortInUseException(String message) {
            super(message);
        }
    }

    private void launch(int wantedPort) throws IOException {
        Path bin = binary();
        Path logDir = Path.of(System.getProperty("user.dir"), "target", "oxia-server-logs");
        Files.createDirectories(logDir);
        if (logFile == null) {
            logFile = logDir.resolve(sanitize(name) + "-"
                    + LocalDateTime.now(ZoneId.systemDefault()).format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"))
                    + "-"
                    + COUNTER.incrementAndGet() + ".log");
        }
        List<String> cmd = new ArrayList<>(List.of(
                bin.toString(),
                "--data-dir",
                dataDir.toString(),
                "--public-addr",
                "127.0.0.1:" + wantedPort,
                "--shards",
                Integer.toString(shards),
                "--wal-sync-data=" + walSync,
                "--log-json=true"));
        if (tlsCert != null) {
            cmd.addAll(List.of("--tls-cert-file", tlsCert.toString(), "--tls-key-file", tlsKey.toString()));
        }
        LOG.info("Starting Oxia server {}: {} (log: {})", name, String.join(" ", cmd), logFile);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        Process p = pb.start();
        RUNNING.add(p);
        CompletableFuture<String> ready = new CompletableFuture<>();
        Deque<String> tail = new ArrayDeque<>();
        Writer log = Files.newBufferedWriter(
                logFile, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        log.write("==== " + LocalDateTime.now(ZoneId.systemDefault()) + " " + String.join(" ", cmd)
                + System.lineSeparator());
        log.flush();
        Thread t = new Thread(() -> pumpOutput(p.getInputStream(), log, ready, tail), "oxia-server-log-" + name);
        t.setDaemon(true);
        t.start();
        String address;
        try {
            address = ready.get(START_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException | InterruptedException | ExecutionException e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            p.destroyForcibly();
            RUNNING.remove(p);
            String lastLines = lastLines(tail);
            if (lastLines.contains("address already in use")) {
                throw new PortInUseException("Oxia server " + name + ": port " + wantedPort + " in use");
            }
            throw new IOException(
                    "Oxia server " + name + " did not become ready within " + START_TIMEOUT.toSeconds()
                            + " s (exit: " + (p.isAlive() ? "running" : "exited") + "); log " + logFile
                            + ", last lines:\n"
                            + lastLines,
                    e);
        }
        process = p;
        pump = t;
        serviceAddress = address;
        port = Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
        LOG.info("Oxia server {} ready at {}", name, address);
    }

    private static void pumpOutput(InputStream in, Writer log, CompletableFuture<String> ready, Deque<String> tail) {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
                log) {
            String line;
            while ((line = r.readLine()) != null) {
                log.write(line);
                log.write(System.lineSeparator());
                log.flush();
                synchronized (tail) {
                    tail.addLast(line);
                    if (tail.size() > 30) {
                        tail.removeFirst();
                    }
                }
                if (line.startsWith(READY_PREFIX)) {
                    String rest = line.substring(READY_PREFIX.length());
                    int space = rest.indexOf(' ');
                    ready.complete(space < 0 ? rest : rest.substring(0, space));
                }
            }
        } catch (IOException e) {
            // process gone
        } finally {
            ready.completeExceptionally(new IOException("the server's output ended (process exited)"));
        }
    }

    private static String lastLines(Deque<String> tail) {
        synchronized (tail) {
            return String.join("\n", tail);
        }
    }

    // ---------------------------------------------------------------- binary

    /** The launcher binary: {@code $OXIA_BIN}, or built by {@code tools/oxia-server/build.sh} (cached). */
    public static Path binary() throws IOException {
        Path b = resolvedBinary;
        if (b != null) {
            return b;
        }
        synchronized (OxiaServer.class) {
            if (resolvedBinary == null) {
                resolvedBinary = resolveBinary();
            }
            return resolvedBinary;
        }
    }

    private static Path resolveBinary() throws IOException {
        String env = System.getenv(OXIA_BIN_ENV);
        if (env != null && !env.isBlank()) {
            Path p = Path.of(env.trim());
            if (!Files.isExecutable(p)) {
                throw new IOException(OXIA_BIN_ENV + "=" + env + " is not an executable file");
            }
            return p;
        }
        Path launcherDir = launcherDir();
        Path script = launcherDir.resolve("build.sh");
        if (!Files.isRegularFile(script)) {
            throw new IOException("No Oxia launcher build script at " + script + " (set " + OXIA_BIN_ENV
                    + " to an Oxia server binary instead)");
        }
        ProcessBuilder pb = new ProcessBuilder("bash", script.toString()).directory(launcherDir.toFile());
        // A Go installed in the usual place but not on PATH (e.g. a non-login shell) still builds.
        String path = pb.environment().getOrDefault("PATH", "");
        pb.environment().put("PATH", path + (path.isEmpty() ? "" : java.io.File.pathSeparator) + "/usr/local/go/bin");
        Path buildLog = Files.createTempFile("oxia-server-build-", ".log");
        pb.redirectError(buildLog.toFile());
        LOG.info("Building (or finding cached) Oxia server with {}", script);
        Process p = pb.start();
        List<String> out = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                out.add(line);
            }
        }
        try {
            if (!p.waitFor(BUILD_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                throw new IOException(script + " did not finish within " + BUILD_TIMEOUT.toMinutes() + " min");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
            throw new IOException("Interrupted while building the Oxia server", e);
        }
        String err = Files.readString(buildLog);
        Files.deleteIfExists(buildLog);
        if (p.exitValue() != 0 || out.isEmpty()) {
            throw new IOException(script + " failed (exit " + p.exitValue() + "):\n" + err);
        }
        Path bin = Path.of(out.get(out.size() - 1).trim());
        if (!Files.isExecutable(bin)) {
            throw new IOException(script + " printed " + bin + ", which is not an executable file:\n" + err);
        }
        return bin;
    }

    private static Path launcherDir() throws IOException {
        Properties props = new Properties();
        try (InputStream in = OxiaServer.class.getClassLoader().getResourceAsStream("lakestream-testkit.properties")) {
            if (in == null) {
                throw new IOException("Classpath resource lakestream-testkit.properties not found (set " + OXIA_BIN_ENV
                        + " to an Oxia server binary instead)");
            }
            props.load(in);
        }
        String dir = props.getProperty("oxia.launcher.dir");
        if (dir == null || dir.isBlank() || dir.contains("${")) {
            throw new IOException("lakestream-testkit.properties has no usable oxia.launcher.dir (" + dir + "); set "
                    + OXIA_BIN_ENV + " to an Oxia server binary instead");
        }
        return Path.of(dir.trim());
    }

    // ---------------------------------------------------------------- misc

    private static String sanitize(String s) {
        return s.replaceAll("[^A-Za-z0-9._-]", "_");
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void deleteRecursively(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    LOG.debug("Could not delete {}", p, e);
                }
            });
        } catch (IOException e) {
            LOG.debug("Could not delete {}", dir, e);
        }
    }
}
