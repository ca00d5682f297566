package dev.lakestream.testkit;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A small HTTP/1.1 proxy on 127.0.0.1 in front of an HTTP server (S3Proxy), for injecting the faults of a
 * real network and a struggling S3 into tests without mocking the server.
 *
 * <p>Clients talk to {@link #endpoint()} as if it were the server. Each request is read whole (head and
 * body, by {@code Content-Length} or chunked framing) and forwarded byte for byte, {@code Host} header
 * included, so SigV4 signatures stay valid; the response is streamed back. Until told otherwise it changes
 * nothing. Faults apply to the next requests, in this order of precedence:
 * <ul>
 *   <li>{@link #dropNextRequests(int)}: close the client's connection without an answer;</li>
 *   <li>{@link #failNextRequests(int)}: answer {@code 503 Slow Down} with S3's XML error body
 *       ({@code <Code>SlowDown</Code>}) without forwarding;</li>
 *   <li>{@link #delayNextRequests(int, Duration)}: hold the request that long before forwarding it (so its
 *       response comes that much later); if the client has hung up meanwhile (it timed out), the request
 *       is not forwarded at all.</li>
 *   <li>{@link #truncateNextResponses(int)}: forward the request, then send the response's head and only
 *       half of its {@code Content-Length} body, and close the connection (a transfer cut off midway).</li>
 * </ul>
 * It counts the requests it received and the most it had in flight at once (received and not yet answered).
 *
 * <p>One virtual thread serves each client connection, at most {@value #MAX_CONNECTIONS} at once (more are
 * closed on accept). {@link #close()} closes every socket and ends every thread.
 */
public final class FaultyHttpProxy implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(FaultyHttpProxy.class);
    static final int MAX_CONNECTIONS = 256;
    private static final int MAX_HEAD_BYTES = 64 * 1024;
    private static final Duration IDLE_TIMEOUT = Duration.ofMinutes(2);
    private static final Duration HOLD_CHECK = Duration.ofMillis(100);

    private final String upstreamHost;
    private final int upstreamPort;
    private final ServerSocket server;
    private final ExecutorService threads = Executors.newThreadPerTaskExecutor(
            Thread.ofVirtual().name("faulty-http-proxy-", 0).factory());
    private final Semaphore connections = new Semaphore(MAX_CONNECTIONS);
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private final AtomicInteger failNext = new AtomicInteger();
    private final AtomicInteger dropNext = new AtomicInteger();
    private final AtomicInteger truncateNext = new AtomicInteger();
    private final AtomicInteger delayNext = new AtomicInteger();
    private final AtomicLong delayNanos = new AtomicLong();
    /** Counts {@link #heal()} calls, so a held request knows it was healed. */
    private final AtomicLong heals = new AtomicLong();

    private final AtomicInteger requests = new AtomicInteger();
    private final AtomicInteger forwarded = new AtomicInteger();
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger maxInFlight = new AtomicInteger();
    private volatile boolean closed;

    private FaultyHttpProxy(String upstreamHost, int upstreamPort) throws IOException {
        this.upstreamHost = upstreamHost;
        this.upstreamPort = upstreamPort;
        this.server = new ServerSocket();
        this.server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 128);
        threads.execute(this::acceptLoop);
    }

    /** Starts a proxy in front of {@code upstream} ({@code http://host:port}). */
    public static FaultyHttpProxy start(URI upstream) {
        if (!"http".equalsIgnoreCase(upstream.getScheme()) || upstream.getPort() < 0) {
            throw new IllegalArgumentException("need an http://host:port upstream: " + upstream);
        }
        try {
            FaultyHttpProxy proxy = new FaultyHttpProxy(upstream.getHost(), upstream.getPort());
            LOG.info("Faulty HTTP proxy {} -> {}", proxy.endpoint(), upstream);
            return proxy;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Where clients connect: {@code http://127.0.0.1:<port>}. */
    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + server.getLocalPort());
    }

    public int port() {
        return server.getLocalPort();
    }

    /** Answers the next {@code n} requests with 503 SlowDown ({@link Integer#MAX_VALUE}: until {@link #heal()}). */
    public void failNextRequests(int n) {
        failNext.set(n);
    }

    /** Answers every request with 503 SlowDown until {@link #heal()}. */
    public void failAllRequests() {
        failNext.set(Integer.MAX_VALUE);
    }

    /** Closes the connection of the next {@code n} requests without answering. */
    public void dropNextRequests(int n) {
        dropNext.set(n);
    }

    /** Cuts the bodies of the next {@code n} responses that have a {@code Content-Length} body in half. */
    public void truncateNextResponses(int n) {
        truncateNext.set(n);
    }

    /** Holds each of the next {@code n} requests for {@code delay} before forwarding it. */
    public void delayNextRequests(int n, Duration delay) {
        delayNanos.set(delay.toNanos());
        delayNext.set(n);
    }

    /** Holds every request for {@code delay} until {@link #heal()}. */
    public void delayAllRequests(Duration delay) {
        delayNextRequests(Integer.MAX_VALUE, delay);
    }

    /** Stops injecting faults; requests held by a delay are forwarded now (those whose client is still there). */
    public void heal() {
        heals.incrementAndGet();
        failNext.set(0);
        dropNext.set(0);
        delayNext.set(0);
        truncateNext.set(0);
    }

    /** Requests received (forwarded or not) since the start or {@link #resetCounters()}. */
    public int requests() {
        return requests.get();
    }

    /** Requests forwarded to the server. */
    public int forwarded() {
        return forwarded.get();
    }

    /** Requests received and not yet answered. */
    public int inFlight() {
        return inFlight.get();
    }

    /** The most requests in flight at once since the start or {@link #resetCounters()}. */
    public int maxInFlight() {
        return maxInFlight.get();
    }

    public void resetCounters() {
        requests.set(0);
        forwarded.set(0);
        maxInFlight.set(inFlight.get());
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            server.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        sockets.forEach(FaultyHttpProxy::closeQuietly);
        threads.shutdownNow();
        try {
            threads.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // ---------------------------------------------------------------------------------------------

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException e) {
                if (!closed) {
                    LOG.warn("Faulty HTTP proxy stops accepting: {}", e.toString());
                }
                return;
            }
            if (!connections.tryAcquire()) {
                closeQuietly(client);
                continue;
            }
            sockets.add(client);
            try {
                threads.execute(() -> {
                    try {
                        serve(client);
                    } finally {
                        connections.release();
                    }
                });
            } catch (RuntimeException rejected) {
                connections.release();
                closeQuietly(client);
            }
        }
    }

    private void serve(Socket client) {
        Socket upstream = null;
        try {
            client.setTcpNoDelay(true);
            client.setSoTimeout((int) IDLE_TIMEOUT.toMillis());
            BufferedInputStream cin = new BufferedInputStream(client.getInputStream(), 64 * 1024);
            OutputStream cout = client.getOutputStream();
            InputStream uin = null;
            OutputStream uout = null;
            while (!closed) {
                Head request = Head.read(cin);
                if (request == null) {
                    return; // the client closed its connection
                }
                if (request.expectsContinue()) {
                    // The client holds its body back until told to go on (the SDK does for large parts): the proxy
                    // reads requests whole before deciding their fate, so it says go on itself.
                    cout.write("HTTP/1.1 100 Continue\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
                    cout.flush();
                }
                byte[] body = readBody(cin, request);
                requests.incrementAndGet();
                int now = inFlight.incrementAndGet();
                maxInFlight.accumulateAndGet(now, Math::max);
                try {
                    if (take(dropNext)) {
                        return;
                    }
                    if (take(failNext)) {
                        writeSlowDown(cout, request);
                        if (request.connectionClose()) {
                            return;
                        }
                        continue;
                    }
                    if (take(delayNext) && !holdUntilDueOrHealed(client, cin)) {
                        return;
                    }
                    if (upstream == null || upstream.isClosed()) {
                        try {
                            upstream = new Socket();
                            sockets.add(upstream);
                            upstream.connect(new InetSocketAddress(upstreamHost, upstreamPort), 5000);
                            upstream.setTcpNoDelay(true);
                            uin = new BufferedInputStream(upstream.getInputStream(), 64 * 1024);
                            uout = upstream.getOutputStream();
                        } catch (IOException e) {
                            writeSimple(
                                    cout,
                                    502,
                                    "Bad Gateway",
                                    "upstream " + upstreamHost + ":" + upstreamPort + " unreachable: " + e);
                            return;
                        }
                    }
                    forwarded.incrementAndGet();
                    uout.write(request.forwardedRaw());
                    uout.write(body);
                    uout.flush();
                    boolean keepOpen = relayResponse(uin, cout, request, truncateNext);
                    if (!keepOpen || request.connectionClose()) {
                        return;
                    }
                } finally {
                    inFlight.decrementAndGet();
                }
            }
        } catch (IOException e) {
            // one side hung up or the proxy closed
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            closeQuietly(client);
            sockets.remove(client);
            if (upstream != null) {
                closeQuietly(upstream);
                sockets.remove(upstream);
            }
        }
    }

    /** Copies one response (and any 1xx before it); false when the connection must close after it. */
    private static boolean relayResponse(InputStream uin, OutputStream cout, Head request, AtomicInteger truncate)
            throws IOException {
        while (true) {
            Head response = Head.read(uin);
            if (response == null) {
                throw new EOFException("upstream closed before answering");
            }
            cout.write(response.raw());
            int status = response.status();
            if (status >= 100 && status < 200 && status != 101) {
                cout.flush();
                continue;
            }
            boolean noBody = request.method().equals("HEAD") || status == 204 || status == 304;
            if (noBody) {
                // no body
            } else if (response.chunked()) {
                copyChunked(uin, cout, null);
            } else if (response.contentLength() > 1 && take(truncate)) {
                copyExactly(uin, cout, response.contentLength() / 2);
                cout.flush();
                return false;
            } else if (response.contentLength() >= 0) {
                copyExactly(uin, cout, response.contentLength());
            } else {
                uin.transferTo(cout);
                cout.flush();
                return false;
            }
            cout.flush();
            return !response.connectionClose();
        }
    }

    private static byte[] readBody(InputStream in, Head request) throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        if (request.chunked()) {
            copyChunked(in, null, body);
        } else if (request.contentLength() > 0) {
            copyExactly(in, body, request.contentLength());
        }
        return body.toByteArray();
    }

    /** True when the client closed its side (it gave up); leaves any byte it sent to be read again. */
    /**
     * Holds a delayed request for the delay, or until {@link #heal()}, or until the client hangs up (then it returns
     * false and the request is not forwarded). Checked every {@link #HOLD_CHECK}, so a black-holed request the client
     * gave up on frees its connection slot at once rather than after the delay, and heal ends every hold.
     */
    private boolean holdUntilDueOrHealed(Socket client, BufferedInputStream cin)
            throws IOException, InterruptedException {
        long generation = heals.get();
        long due = System.nanoTime() + delayNanos.get();
        while (true) {
            long left = due - System.nanoTime();
            if (left <= 0 || heals.get() != generation) {
                return !clientHungUp(client, cin);
            }
            Thread.sleep(Math.min(HOLD_CHECK.toMillis(), Math.max(1, left / 1_000_000)));
            if (clientHungUp(client, cin)) {
                return false;
            }
        }
    }

    private static boolean clientHungUp(Socket client, BufferedInputStream cin) throws IOException {
        int timeout = client.getSoTimeout();
        client.setSoTimeout(1);
        cin.mark(1);
        try {
            if (cin.read() < 0) {
                return true;
            }
            cin.reset();
            return false;
        } catch (SocketTimeoutException alive) {
            return false;
        } catch (IOException reset) {
            return true;
        } finally {
            if (!client.isClosed()) {
                client.setSoTimeout(timeout);
            }
        }
    }

    private static boolean take(AtomicInteger counter) {
        while (true) {
            int n = counter.get();
            if (n <= 0) {
                return false;
            }
            if (n == Integer.MAX_VALUE || counter.compareAndSet(n, n - 1)) {
                return true;
            }
        }
    }

    private final AtomicInteger errorIds = new AtomicInteger();

    private void writeSlowDown(OutputStream out, Head request) throws IOException {
        String id = "FAULTYPROXY" + errorIds.incrementAndGet();
        byte[] xml = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>SlowDown</Code>"
                        + "<Message>Please reduce your request rate.</Message><RequestId>" + id
                        + "</RequestId></Error>")
                .getBytes(StandardCharsets.UTF_8);
        String head = "HTTP/1.1 503 Slow Down\r\nContent-Type: application/xml\r\nx-amz-request-id: " + id
                + "\r\nContent-Length: " + xml.length + "\r\n\r\n";
        out.write(head.getBytes(StandardCharsets.ISO_8859_1));
        if (!request.method().equals("HEAD")) {
            out.write(xml);
        }
        out.flush();
    }

    private static void writeSimple(OutputStream out, int status, String reason, String text) throws IOException {
        byte[] body = text.getBytes(StandardCharsets.UTF_8);
        out.write(("HTTP/1.1 " + status + " " + reason + "\r\nContent-Type: text/plain\r\nContent-Length: "
                        + body.length + "\r\nConnection: close\r\n\r\n")
                .getBytes(StandardCharsets.ISO_8859_1));
        out.write(body);
        out.flush();
    }

    private static void copyExactly(InputStream in, OutputStream out, long n) throws IOException {
        byte[] buf = new byte[(int) Math.min(64 * 1024, Math.max(1, n))];
        long left = n;
        while (left > 0) {
            int r = in.read(buf, 0, (int) Math.min(buf.length, left));
            if (r < 0) {
                throw new EOFException("stream ended " + left + " bytes early");
            }
            out.write(buf, 0, r);
            left -= r;
        }
    }

    /** Copies a chunked body, chunk lines and trailers included, to {@code out} (or {@code sink}). */
    private static void copyChunked(InputStream in, OutputStream out, OutputStream sink) throws IOException {
        OutputStream to = out != null ? out : sink;
        while (true) {
            String line = readLine(in);
            to.write((line + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
            int semi = line.indexOf(';');
            long size = Long.parseLong((semi < 0 ? line : line.substring(0, semi)).trim(), 16);
            if (size == 0) {
                while (true) {
                    String trailer = readLine(in);
                    to.write((trailer + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
                    if (trailer.isEmpty()) {
                        return;
                    }
                }
            }
            copyExactly(in, to, size + 2); // the data and its CRLF
        }
    }

    private static String readLine(InputStream in) throws IOException {
        StringBuilder sb = new StringBuilder();
        while (true) {
            int c = in.read();
            if (c < 0) {
                throw new EOFException("stream ended in a line");
            }
            if (c == '\n') {
                int len = sb.length();
                if (len > 0 && sb.charAt(len - 1) == '\r') {
                    sb.setLength(len - 1);
                }
                return sb.toString();
            }
            if (sb.length() > MAX_HEAD_BYTES) {
                throw new IOException("line too long");
            }
            sb.append((char) c);
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    /** A request or response head: the raw bytes, and what the framing needs. */
    @SuppressWarnings("ArrayRecordComponent") // raw is forwarded as read; a Head is never compared or hashed
    private record Head(
            byte[] raw,
            String firstLine,
            long contentLength,
            boolean chunked,
            boolean connectionClose,
            boolean expectsContinue) {

        /** Reads a head up to and including the blank line; null on a clean end of stream before it. */
        @SuppressWarnings("StringSplitter") // a head ends in a blank line: dropping the trailing empty ones is wanted
        static Head read(InputStream in) throws IOException {
            ByteArrayOutputStream raw = new ByteArrayOutputStream(1024);
            int matched = 0;
            while (matched < 4) {
                int c = in.read();
                if (c < 0) {
                    if (raw.size() == 0) {
                        return null;
                    }
                    throw new EOFException("stream ended in a message head");
                }
                raw.write(c);
                if (raw.size() > MAX_HEAD_BYTES) {
                    throw new IOException("message head longer than " + MAX_HEAD_BYTES + " bytes");
                }
                matched = (c == '\r' && (matched == 0 || matched == 2)) || (c == '\n' && (matched == 1 || matched == 3))
                        ? matched + 1
                        : (c == '\r' ? 1 : 0);
            }
            byte[] bytes = raw.toByteArray();
            String[] lines = new String(bytes, StandardCharsets.ISO_8859_1).split("\r\n");
            long length = -1;
            boolean chunked = false;
            boolean close = false;
            boolean expectsContinue = false;
            for (int i = 1; i < lines.length; i++) {
                int colon = lines[i].indexOf(':');
                if (colon <= 0) {
                    continue;
                }
                String name = lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT);
                String value = lines[i].substring(colon + 1).trim().toLowerCase(Locale.ROOT);
                switch (name) {
                    case "content-length" -> length = Long.parseLong(value);
                    case "transfer-encoding" -> chunked = value.contains("chunked");
                    case "connection" -> close = value.contains("close");
                    case "expect" -> expectsContinue = value.contains("100-continue");
                    default -> {}
                }
            }
            return new Head(bytes, lines[0], length, chunked, close, expectsContinue);
        }

        /**
         * The head to forward: as read, less an {@code Expect: 100-continue} (answered here already; SigV4 does not
         * sign {@code Expect}), so the server answers once.
         */
        byte[] forwardedRaw() {
            if (!expectsContinue) {
                return raw;
            }
            StringBuilder out = new StringBuilder();
            for (String line : new String(raw, StandardCharsets.ISO_8859_1).split("\r\n", -1)) {
                if (!line.toLowerCase(Locale.ROOT).startsWith("expect:")) {
                    out.append(line).append("\r\n");
                }
            }
            out.setLength(out.length() - 2); // the split's last piece is the empty one after the blank line
            return out.toString().getBytes(StandardCharsets.ISO_8859_1);
        }

        String method() {
            int sp = firstLine.indexOf(' ');
            return sp < 0 ? firstLine : firstLine.substring(0, sp);
        }

        int status() {
            String[] parts = firstLine.split(" ", 3);
            try {
                return parts.length > 1 ? Integer.parseInt(parts[1]) : -1;
            } catch (NumberFormatException e) {
                return -1;
            }
        }
    }
}
