package dev.lakestream.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Base64;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real S3Proxy server in its own JVM ({@code java -jar s3proxy.jar --properties <file>}), on a free port
 * of 127.0.0.1, storing buckets as directories of a temporary directory ({@code filesystem-nio2} backend,
 * object metadata in extended attributes), with SigV2/SigV4 authentication.
 *
 * <p>The jar is the one the test kit's build copied (classpath resource {@code lakestream-testkit.properties},
 * key {@code s3proxy.jar}); the environment variable {@code S3PROXY_JAR} overrides it. The server runs on
 * the test JVM's own {@code java}. Its output goes to {@code target/test-servers/logs/s3proxy-<port>-*.log}
 * (the directory can be changed with the system property {@code lakestream.testkit.logDir}).
 *
 * <pre>{@code
 * try (S3ProxyServer s3 = S3ProxyServer.start()) {
 *     String bucket = s3.createBucket();
 *     ... s3.endpoint(), s3.accessKey(), s3.secretKey() ...
 * }
 * }</pre>
 */
public final class S3ProxyServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(S3ProxyServer.class);
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
    private static final AtomicInteger BUCKETS = new AtomicInteger();

    private final String accessKey;
    private final String secretKey;
    private final Path workDir;
    private final Path dataDir;
    private final boolean ownsWorkDir;
    private int port;
    /** The https port, when started with a key store ({@link #startWithHttps}); 0 otherwise. */
    private int httpsPort;

    private Path keyStore;
    private String keyStorePassword;
    private Process process;
    private Thread shutdownHook;
    private Path logFile;

    private S3ProxyServer(Path workDir, boolean ownsWorkDir, String accessKey, String secretKey) {
        this.workDir = workDir;
        this.ownsWorkDir = ownsWorkDir;
        this.dataDir = workDir.resolve("data");
        this.accessKey = accessKey;
        this.secretKey = secretKey;
    }

    /** Starts a server on a fresh temporary directory, deleted by {@link #close()}. */
    public static S3ProxyServer start() {
        try {
            Path dir = Files.createTempDirectory("s3proxy-");
            S3ProxyServer server =
                    new S3ProxyServer(dir, true, "lakestream-test-access-key", "lakestream-test-secret-key");
            server.startProcess(0);
            return server;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Starts a server, as {@link #start()}, that also serves https on a second port with the key and certificate of
     * {@code keyStore} (PKCS#12, whose key password is {@code password}): {@link #httpsEndpoint()}.
     */
    public static S3ProxyServer startWithHttps(Path keyStore, String password) {
        try {
            Path dir = Files.createTempDirectory("s3proxy-");
            S3ProxyServer server =
                    new S3ProxyServer(dir, true, "lakestream-test-access-key", "lakestream-test-secret-key");
            server.keyStore = keyStore.toAbsolutePath();
            server.keyStorePassword = password;
            server.startProcess(0);
            return server;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The https endpoint, {@code https://127.0.0.1:<port>}, of a server started {@link #startWithHttps}. */
    public URI httpsEndpoint() {
        if (httpsPort == 0) {
            throw new IllegalStateException("this S3Proxy serves no https: start it with startWithHttps");
        }
        return URI.create("https://127.0.0.1:" + httpsPort);
    }

    /** The S3 endpoint, {@code http://127.0.0.1:<port>}. Use path-style access. */
    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + port);
    }

    public int port() {
        return port;
    }

    public String accessKey() {
        return accessKey;
    }

    public String secretKey() {
        return secretKey;
    }

    /** The region to sign with (S3Proxy accepts any; this is the usual one). */
    public String region() {
        return "us-east-1";
    }

    /** The directory holding the buckets: bucket {@code b}, key {@code k} is the file {@code dataDir/b/k}. */
    public Path dataDir() {
        return dataDir;
    }

    /** The file that holds {@code key} of {@code bucket} in the filesystem backend. */
    public Path objectFile(String bucket, String key) {
        return dataDir.resolve(bucket).resolve(key);
    }

    /** The server's log file. */
    public Path logFile() {
        return logFile;
    }

    public synchronized boolean isRunning() {
        return process != null && process.isAlive();
    }

    /** Creates a bucket with a fresh name (through the S3 API) and returns the name. */
    public String createBucket() {
        String name = "test-" + BUCKETS.incrementAndGet() + "-" + Long.toString(System.nanoTime() & 0xffffffffL, 36);
        createBucket(name);
        return name;
    }

    /** Creates {@code bucket} through the S3 API (a SigV2-signed {@code PUT /bucket}). */
    public void createBucket(String bucket) {
        int status = signedRequest("PUT", "/" + bucket);
        if (status != 200) {
            throw new IllegalStateException(
                    "S3Proxy answered HTTP " + status + " to creating bucket '" + bucket + "'; see " + logFile);
        }
    }

    /** Stops the server (the data stays) and starts it again on the same port. */
    public synchronized void restart() {
        stopProcess();
        startProcess(port);
    }

    /** Stops the server; the data stays until {@link #close()}. */
    public synchronized void stop() {
        stopProcess();
    }

    /** Stops the server and deletes its temporary directory. */
    @Override
    public synchronized void close() {
        stopProcess();
        if (ownsWorkDir) {
            deleteRecursively(workDir);
        }
    }

    // ---------------------------------------------------------------------------------------------

    private synchronized void startProcess(int wantedPort) {
        Path jar = s3ProxyJar();
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        IOException lastFailure = null;
        for (int tries = 0; tries < 5; tries++) {
            int p = wantedPort != 0 ? wantedPort : freePort();
            try {
                Files.createDirectories(dataDir);
                Path props = workDir.resolve("s3proxy.properties");
                Properties properties = new Properties();
                properties.setProperty("s3proxy.endpoint", "http://127.0.0.1:" + p);
                if (keyStore != null) {
                    if (httpsPort == 0) {
                        httpsPort = freePort();
                    }
                    properties.setProperty("s3proxy.secure-endpoint", "https://127.0.0.1:" + httpsPort);
                    properties.setProperty("s3proxy.keystore-path", keyStore.toString());
                    properties.setProperty("s3proxy.keystore-password", keyStorePassword);
                }
                properties.setProperty("s3proxy.authorization", "aws-v2-or-v4");
                properties.setProperty("s3proxy.identity", accessKey);
                properties.setProperty("s3proxy.credential", secretKey);
                properties.setProperty("jclouds.provider", "filesystem-nio2");
                properties.setProperty("jclouds.filesystem.basedir", dataDir.toString());
                try (var out = Files.newOutputStream(props)) {
                    properties.store(out, "Written by " + S3ProxyServer.class.getName());
                }
                Path logDir = Path.of(System.getProperty("lakestream.testkit.logDir", "target/test-servers/logs"))
                        .toAbsolutePath();
                Files.createDirectories(logDir);
                logFile = logDir.resolve("s3proxy-" + p + "-" + System.currentTimeMillis() + ".log");
                ProcessBuilder pb = new ProcessBuilder(
                                java.toString(),
                                "-Xmx256m",
                                "-XX:+UseSerialGC",
                                "-XX:TieredStopAtLevel=1",
                                "-Xshare:auto",
                                "-jar",
                                jar.toString(),
                                "--properties",
                                props.toString())
                        .redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
                pb.environment().put("LOG_LEVEL", "info");
                Process proc = pb.start();
                if (waitUntilAnswering(proc, p)) {
                    process = proc;
                    port = p;
                    // The server must not outlive a test JVM that exits without closing it.
                    shutdownHook = new Thread(proc::destroyForcibly, "s3proxy-" + p + "-shutdown");
                    Runtime.getRuntime().addShutdownHook(shutdownHook);
                    LOG.info("S3Proxy started at http://127.0.0.1:{} (data {}, log {})", p, dataDir, logFile);
                    return;
                }
                destroy(proc);
                lastFailure = new IOException("S3Proxy exited with " + proc.exitValue() + " before answering on port "
                        + p + ":\n" + tail(logFile));
                if (wantedPort != 0 && tries >= 2) {
                    break;
                }
                LOG.warn("S3Proxy did not start on port {}, trying again: {}", p, lastFailure.getMessage());
            } catch (IOException e) {
                lastFailure = e;
            }
        }
        throw new IllegalStateException("Cannot start S3Proxy from " + jar, lastFailure);
    }

    /** True once the server answers HTTP; false if the process died first; throws after the timeout. */
    private boolean waitUntilAnswering(Process proc, int p) throws IOException {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!proc.isAlive()) {
                return false;
            }
            try {
                HttpURLConnection c = (HttpURLConnection)
                        URI.create("http://127.0.0.1:" + p + "/").toURL().openConnection();
                c.setConnectTimeout(200);
                c.setReadTimeout(2000);
                int status = c.getResponseCode();
                c.disconnect();
                if (status > 0) {
                    return true;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            try {
                if (proc.waitFor(50, TimeUnit.MILLISECONDS)) {
                    return false;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                destroy(proc);
                throw new IOException("interrupted while waiting for S3Proxy", e);
            }
        }
        destroy(proc);
        throw new IOException(
                "S3Proxy did not answer on port " + p + " within " + START_TIMEOUT + ":\n" + tail(logFile));
    }

    private void stopProcess() {
        if (shutdownHook != null) {
            try {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            } catch (IllegalStateException shuttingDown) {
                // the hook runs anyway
            }
            shutdownHook = null;
        }
        if (process != null) {
            destroy(process);
            LOG.info("S3Proxy on port {} stopped", port);
            process = null;
        }
    }

    private static void destroy(Process proc) {
        proc.destroy();
        try {
            if (!proc.waitFor(10, TimeUnit.SECONDS)) {
                proc.destroyForcibly();
                proc.waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            proc.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    private int signedRequest(String method, String resource) {
        String date = DateTimeFormatter.RFC_1123_DATE_TIME.format(Instant.now().atOffset(ZoneOffset.UTC));
        String toSign = method + "\n\n\n" + date + "\n" + resource;
        String signature;
        try {
            Mac mac = Mac.getInstance("HmacSHA1");
            mac.init(new SecretKeySpec(secretKey.getBytes(StandardCharsets.UTF_8), "HmacSHA1"));
            signature = Base64.getEncoder().encodeToString(mac.doFinal(toSign.getBytes(StandardCharsets.UTF_8)));
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
        try {
            HttpURLConnection c =
                    (HttpURLConnection) endpoint().resolve(resource).toURL().openConnection();
            c.setRequestMethod(method);
            c.setConnectTimeout(5000);
            c.setReadTimeout(10000);
            c.setRequestProperty("Date", date);
            c.setRequestProperty("Authorization", "AWS " + accessKey + ":" + signature);
            c.setFixedLengthStreamingMode(0);
            c.setDoOutput(true);
            c.getOutputStream().close();
            int status = c.getResponseCode();
            try (InputStream in = status >= 400 ? c.getErrorStream() : c.getInputStream()) {
                if (in != null) {
                    in.readAllBytes();
                }
            }
            return status;
        } catch (IOException e) {
            throw new UncheckedIOException("S3Proxy request " + method + " " + resource + " failed", e);
        }
    }

    /** A free port on 127.0.0.1 (free when asked; the caller retries when someone takes it first). */
    static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Path s3ProxyJar() {
        String env = System.getenv("S3PROXY_JAR");
        String where;
        String value;
        if (env != null && !env.isBlank()) {
            value = env;
            where = "environment variable S3PROXY_JAR";
        } else {
            Properties p = new Properties();
            try (InputStream in = S3ProxyServer.class.getResourceAsStream("/lakestream-testkit.properties")) {
                if (in == null) {
                    throw new IllegalStateException("lakestream-testkit.properties is not on the classpath");
                }
                p.load(in);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            value = p.getProperty("s3proxy.jar");
            where = "lakestream-testkit.properties (s3proxy.jar)";
        }
        if (value == null || value.isBlank() || value.contains("${")) {
            throw new IllegalStateException("No S3Proxy jar configured in " + where
                    + ": build lakestream-testkit with Maven, or set S3PROXY_JAR");
        }
        Path jar = Path.of(value);
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("S3Proxy jar " + jar + " (from " + where + ") does not exist: build "
                    + "lakestream-testkit with Maven (it copies the jar), or set S3PROXY_JAR");
        }
        return jar;
    }

    private static String tail(Path file) {
        if (file == null || !Files.exists(file)) {
            return "(no log)";
        }
        try {
            List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "(cannot read " + file + ": " + e + ")";
        }
    }

    static void deleteRecursively(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try {
            Files.walkFileTree(dir, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Files.deleteIfExists(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
                    Files.deleteIfExists(d);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            LOG.warn("Could not delete {}: {}", dir, e.toString());
        }
    }

    @Override
    public String toString() {
        return "S3ProxyServer[" + endpoint() + ", data " + dataDir + "]";
    }
}
