package dev.lakestream.tests.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lakestream.tests.PulsarBrokerExtension;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Property;
import org.apache.pulsar.client.admin.PulsarAdmin;
import org.apache.pulsar.client.api.Consumer;
import org.apache.pulsar.client.api.Message;
import org.apache.pulsar.client.api.MessageId;
import org.apache.pulsar.client.api.Producer;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.SubscriptionInitialPosition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A damaged WAL object under a topic with consumers (the embedded default: objects are files, so the test can
 * damage one): the reads of the damaged range fail with an error naming the object, the consumers get every message
 * before it with its right bytes and nothing wrong after it, another topic keeps working, the broker stays up, and
 * the operator procedure of docs/operations.md (reset the cursor past the range, or skip it) lets the consumers go on.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class CorruptObjectTest {

    private static final ConcurrentLinkedQueue<String> LOG_LINES = new ConcurrentLinkedQueue<>();
    private static final AbstractAppender CAPTURE =
            new AbstractAppender("corrupt-object-capture", null, null, true, Property.EMPTY_ARRAY) {
                @Override
                public void append(LogEvent event) {
                    if (event.getLevel().isMoreSpecificThan(org.apache.logging.log4j.Level.WARN)) {
                        StringBuilder line = new StringBuilder(event.getLevel().name())
                                .append(' ')
                                .append(event.getLoggerName())
                                .append(' ')
                                .append(event.getMessage().getFormattedMessage())
                                .append(' ')
                                .append(event.getContextData().toMap());
                        for (Throwable t = event.getThrown(); t != null; t = t.getCause()) {
                            line.append(" | ").append(t);
                        }
                        LOG_LINES.add(line.toString());
                    }
                }
            };

    static {
        CAPTURE.start();
        LoggerContext ctx = (LoggerContext) LogManager.getContext(false);
        ctx.getConfiguration().getRootLogger().addAppender(CAPTURE, null, null);
        ctx.updateLoggers();
    }

    @RegisterExtension
    static final PulsarBrokerExtension BROKER = PulsarBrokerExtension.embedded()
            // Pulsar retries a failed read after 15 s at first: shorter, so the test sees the retries settle.
            .config("dispatcherReadFailureBackoffInitialTimeInMs", "200")
            .config("dispatcherReadFailureBackoffMaxTimeInMs", "1000");

    static final FaultReport REPORT = new FaultReport(
            "## Measured: damaged WAL object",
            "Embedded default (objects are files of the broker's data directory), one in-process broker; 100 "
                    + "messages on the damaged topic, the object holding message 50 damaged while the broker was "
                    + "stopped. Heap and direct memory are the whole test JVM's (broker, client and test), from the "
                    + "broker's `/metrics/`.");

    @AfterAll
    static void detach() throws IOException {
        LoggerContext ctx = (LoggerContext) LogManager.getContext(false);
        ctx.getConfiguration().getRootLogger().removeAppender(CAPTURE.getName());
        ctx.updateLoggers();
        CAPTURE.stop();
        REPORT.write();
    }

    @Test
    void aCorruptObjectFailsItsReadsNamingItAndTheOperatorSkipsTheRange() throws Exception {
        run("corrupt", CorruptObjectTest::garble);
    }

    @Test
    void aMissingObjectFailsItsReadsNamingItAndTheOperatorSkipsTheRange() throws Exception {
        run("missing", Files::delete);
    }

    @FunctionalInterface
    interface Damage {
        void apply(Path file) throws IOException;
    }

    private void run(String kind, Damage damage) throws Exception {
        String damaged = "persistent://public/default/damaged-" + kind;
        String healthy = "persistent://public/default/healthy-" + kind;
        List<MessageId> ids = new ArrayList<>();
        List<Path> damagedFiles;
        try (PulsarClient client = BROKER.newClient()) {
            subscribe(client, damaged, "by-reset").close();
            subscribe(client, damaged, "by-skip").close();
            subscribe(client, healthy, "s").close();
            try (Producer<byte[]> p = client.newProducer()
                            .topic(damaged)
                            .enableBatching(false)
                            .create();
                    Producer<byte[]> h = client.newProducer()
                            .topic(healthy)
                            .enableBatching(false)
                            .create()) {
                for (int i = 0; i < 50; i++) {
                    ids.add(p.send(value(i)));
                    h.send(value(i));
                }
                Thread.sleep(500);
                FileTime before = FileTime.fromMillis(System.currentTimeMillis());
                Thread.sleep(50);
                ids.add(p.send(value(50)));
                Thread.sleep(50);
                FileTime after = FileTime.fromMillis(System.currentTimeMillis());
                Thread.sleep(500);
                for (int i = 51; i < 100; i++) {
                    ids.add(p.send(value(i)));
                }
                damagedFiles = objectsWrittenBetween(before, after);
            }
        }
        assertThat(damagedFiles)
                .as("WAL objects written while message 50 was sent")
                .isNotEmpty();
        BROKER.stopBroker();
        for (Path f : damagedFiles) {
            damage.apply(f);
        }
        LOG_LINES.clear();
        BROKER.start();

        try (MemorySampler memory = MemorySampler.ofWebAddresses(
                        List.of(BROKER.webServiceUrl().substring("http://".length())));
                PulsarClient client = BROKER.newClient();
                PulsarAdmin admin = BROKER.newAdmin();
                Consumer<byte[]> byReset = subscribe(client, damaged, "by-reset");
                Consumer<byte[]> bySkip = subscribe(client, damaged, "by-skip")) {
            List<Integer> first = receiveUntil(byReset, 49, 60);
            List<Integer> firstSkip = receiveUntil(bySkip, 49, 30);
            assertThat(first)
                    .as("messages before the damaged object, in order, with their bytes")
                    .isEqualTo(range(0, 50));
            assertThat(firstSkip).as("the other subscription too").isEqualTo(range(0, 50));
            List<String> named = damagedFiles.stream()
                    .map(f -> BROKER.objectsDir().relativize(f).toString())
                    .filter(key -> LOG_LINES.stream().anyMatch(l -> l.contains(key)))
                    .toList();
            assertThat(named)
                    .as(
                            "damaged objects named by a broker warning or error; log lines: %s",
                            LOG_LINES.stream().limit(5).toList())
                    .isNotEmpty();

            // Other topics keep working: read the healthy one from the start and write to it.
            try (Consumer<byte[]> h = subscribe(client, healthy, "s");
                    Producer<byte[]> hp = client.newProducer().topic(healthy).create()) {
                hp.send(value(50));
                assertThat(receiveAll(h, 3)).isEqualTo(range(0, 51));
            }

            // The operator's procedure (docs/operations.md, "A damaged WAL object").
            admin.topics().resetCursor(damaged, "by-reset", ids.get(51));
            admin.topics().skipMessages(damaged, "by-skip", 1);
            List<Integer> afterReset = receiveUntil(byReset, 99, 60);
            List<Integer> afterSkip = receiveUntil(bySkip, 99, 30);
            assertThat(afterReset)
                    .as("after reset-cursor past the damaged range")
                    .isEqualTo(range(51, 100));
            assertThat(afterSkip).as("after skip 1").isEqualTo(range(51, 100));
            assertThat(BROKER.pulsar().isRunning()).as("broker running").isTrue();
            REPORT.add(new FaultReport.Row(
                    "WAL object " + kind + " (" + damagedFiles.size() + " object(s))",
                    false,
                    100,
                    0,
                    0,
                    0,
                    0,
                    0,
                    0,
                    Double.NaN,
                    Double.NaN,
                    memory.maxHeapBytes(),
                    memory.maxDirectBytes(),
                    "consumers got 0-49 then nothing; objects named in the broker log: " + named.size() + "/"
                            + damagedFiles.size() + "; message 50 skipped by reset-cursor and by skip, then 51-99 "
                            + "delivered; the other topic unaffected"));
        }
    }

    private static Consumer<byte[]> subscribe(PulsarClient client, String topic, String sub) throws Exception {
        return client.newConsumer()
                .topic(topic)
                .subscriptionName(sub)
                .subscriptionInitialPosition(SubscriptionInitialPosition.Earliest)
                .subscribe();
    }

    /**
     * Receives until message {@code last} arrived (or {@code seconds} passed), then until three seconds pass without
     * another; acknowledges each; fails on foreign bytes.
     */
    private static List<Integer> receiveUntil(Consumer<byte[]> c, int last, int seconds) throws Exception {
        List<Integer> got = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!got.contains(last) && System.nanoTime() < deadline) {
            Message<byte[]> m = c.receive(1, TimeUnit.SECONDS);
            if (m != null) {
                got.add(number(m));
                c.acknowledge(m);
            }
        }
        got.addAll(receiveAll(c, 3));
        return got;
    }

    private static int number(Message<byte[]> m) {
        String v = new String(m.getValue(), StandardCharsets.UTF_8);
        assertThat(v).as("a message's bytes").matches("message-\\d+");
        return Integer.parseInt(v.substring("message-".length()));
    }

    /** Receives until {@code quietSeconds} pass without a message; acknowledges each; fails on foreign bytes. */
    private static List<Integer> receiveAll(Consumer<byte[]> c, int quietSeconds) throws Exception {
        List<Integer> got = new ArrayList<>();
        while (true) {
            Message<byte[]> m = c.receive(quietSeconds, TimeUnit.SECONDS);
            if (m == null) {
                return got;
            }
            got.add(number(m));
            c.acknowledge(m);
        }
    }

    private static List<Path> objectsWrittenBetween(FileTime from, FileTime to) throws IOException {
        try (Stream<Path> files = Files.walk(BROKER.objectsDir())) {
            return files.filter(Files::isRegularFile)
                    .filter(f -> !f.getFileName().toString().startsWith(".lakestream-"))
                    .filter(f -> {
                        try {
                            FileTime t = Files.getLastModifiedTime(f);
                            return t.compareTo(from) >= 0 && t.compareTo(to) <= 0;
                        } catch (IOException e) {
                            return false;
                        }
                    })
                    .toList();
        }
    }

    /** Overwrites the middle third of the file with other bytes (the trailer stays). */
    private static void garble(Path file) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            long n = f.length() - 8;
            for (long i = n / 3; i < 2 * n / 3; i++) {
                f.seek(i);
                int b = f.read();
                f.seek(i);
                f.write(b ^ 0x5a);
            }
        }
    }

    private static byte[] value(int i) {
        return ("message-" + i).getBytes(StandardCharsets.UTF_8);
    }

    private static List<Integer> range(int from, int to) {
        return java.util.stream.IntStream.range(from, to).boxed().toList();
    }
}
