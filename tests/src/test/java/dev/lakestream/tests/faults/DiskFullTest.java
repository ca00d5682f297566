package dev.lakestream.tests.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.lakestream.tests.KeyedTraffic;
import dev.lakestream.tests.PulsarBrokerExtension;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Property;
import org.apache.pulsar.client.api.PulsarClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The embedded default with its objects on a full local filesystem: a real 32 MiB tmpfs mounted for the test (root
 * only; the test is skipped, saying so, where it cannot mount one), filled to the last byte by a file while keyed
 * traffic runs. Appends fail with an error naming the object and the device's complaint, nothing is acknowledged
 * that was not stored, and publishing resumes by itself once the file is removed.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class DiskFullTest {

    static final FaultReport REPORT = new FaultReport(
            "## Measured: local disk full",
            "Embedded default, one in-process broker; its objects (`lakestream.fs.root`) on a 32 MiB tmpfs that a file "
                    + "fills for 15 s; " + FaultScenario.RATE + " keyed messages/s on a plain topic. Heap and direct "
                    + "memory are the whole test JVM's (broker, client and test), from the broker's `/metrics/`.");

    private static final ConcurrentLinkedQueue<String> WARNINGS = new ConcurrentLinkedQueue<>();
    private static final AbstractAppender CAPTURE =
            new AbstractAppender("disk-full-capture", null, null, true, Property.EMPTY_ARRAY) {
                @Override
                public void append(LogEvent event) {
                    if (event.getLevel().isMoreSpecificThan(Level.WARN)) {
                        StringBuilder line = new StringBuilder(
                                        event.getMessage().getFormattedMessage())
                                .append(' ')
                                .append(event.getContextData().toMap());
                        for (Throwable t = event.getThrown(); t != null; t = t.getCause()) {
                            line.append(" | ").append(t);
                        }
                        WARNINGS.add(line.toString());
                    }
                }
            };

    @AfterAll
    static void writeReport() throws IOException {
        REPORT.write();
    }

    @Test
    void aFullDiskFailsAppendsClearlyLosesNothingAndRecoversWhenSpaceReturns() throws Exception {
        Path mount = Files.createTempDirectory("lakestream-tmpfs-");
        Process m = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=32m", "tmpfs", mount.toString())
                .redirectErrorStream(true)
                .start();
        boolean mounted = m.waitFor(30, TimeUnit.SECONDS) && m.exitValue() == 0;
        assumeTrue(
                mounted,
                "cannot mount a tmpfs here (needs root): "
                        + new String(m.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
        LoggerContext ctx = (LoggerContext) LogManager.getContext(false);
        CAPTURE.start();
        ctx.getConfiguration().getRootLogger().addAppender(CAPTURE, null, null);
        ctx.updateLoggers();
        PulsarBrokerExtension broker = PulsarBrokerExtension.embedded()
                .config("lakestream.fs.root", mount.resolve("objects").toString())
                .config("lakestream.fs.createRoot", "true");
        Path filler = mount.resolve("filler");
        try {
            broker.start();
            try (MemorySampler memory = MemorySampler.ofWebAddresses(
                            List.of(broker.webServiceUrl().substring("http://".length())));
                    PulsarClient client = broker.newClient();
                    KeyedTraffic t = new KeyedTraffic(client, "persistent://public/default/disk-full", "disk-full")
                            .start(FaultScenario.RATE)) {
                await("200 acknowledgements before the disk fills")
                        .atMost(Duration.ofMinutes(1))
                        .ignoreExceptionsInstanceOf(Exception.class)
                        .until(() -> t.ackedCount() >= 200);
                long full = System.nanoTime();
                fill(filler);
                WARNINGS.clear();
                Thread.sleep(15_000);
                Files.delete(filler);
                long freed = System.nanoTime();
                await("publishing to resume after space returned")
                        .atMost(Duration.ofSeconds(90))
                        .ignoreExceptionsInstanceOf(Exception.class)
                        .until(() -> t.firstAckAtOrAfter(freed) > 0);
                Thread.sleep(3000);
                t.stopSending();
                boolean settled = t.awaitSettled(90);
                KeyedTraffic.Stored stored = KeyedTraffic.stored(client, t.topic());
                List<Integer> lost = t.acked().stream()
                        .filter(n -> !stored.counts().containsKey(n) || !t.wasReceived(n))
                        .sorted()
                        .toList();
                long storedWhileFull = t.storedInWindow(full + TimeUnit.SECONDS.toNanos(1), freed);
                List<String> noSpace = WARNINGS.stream()
                        .filter(l -> l.contains("No space left on device"))
                        .toList();
                REPORT.add(new FaultReport.Row(
                        "Local disk full 15 s (tmpfs)",
                        false,
                        t.ackedCount(),
                        t.failed().size(),
                        lost.size(),
                        stored.storedTwice(),
                        t.redelivered(),
                        t.orderViolations(),
                        stored.idsNotRising(),
                        (t.firstAckAtOrAfter(freed) - freed) / 1e9,
                        t.latencyMs(0.99, full, freed),
                        memory.maxHeapBytes(),
                        memory.maxDirectBytes(),
                        "stored and acked while full: " + storedWhileFull
                                + "; broker warnings naming the device's complaint: " + noSpace.size()));
                assertThat(settled)
                        .as("every send answered and every acknowledged message consumed")
                        .isTrue();
                assertThat(lost)
                        .as("acknowledged but not stored or never delivered")
                        .isEmpty();
                assertThat(storedWhileFull)
                        .as("appends acknowledged while the disk was full")
                        .isZero();
                assertThat(noSpace).as("a warning that says why appends fail").isNotEmpty();
                assertThat(noSpace.get(0))
                        .as("the warning names the object directory")
                        .contains(mount.toString());
                assertThat(t.orderViolations()).as("per-key order violations").isZero();
                assertThat(stored.idsNotRising())
                        .as("stored ids that do not rise")
                        .isZero();
                assertThat(stored.afterEnd())
                        .as("messages read after the reader's end (%s)", stored.end())
                        .isZero();
            }
        } finally {
            ctx.getConfiguration().getRootLogger().removeAppender(CAPTURE.getName());
            ctx.updateLoggers();
            CAPTURE.stop();
            broker.close();
            Files.deleteIfExists(filler);
            new ProcessBuilder("umount", mount.toString()).inheritIO().start().waitFor(30, TimeUnit.SECONDS);
        }
    }

    /** Writes {@code file} until the filesystem refuses another byte. */
    private static void fill(Path file) throws IOException {
        byte[] chunk = new byte[64 * 1024];
        try (OutputStream out = Files.newOutputStream(file)) {
            while (true) {
                out.write(chunk);
            }
        } catch (IOException full) {
            if (!String.valueOf(full.getMessage()).contains("No space left")) {
                throw full;
            }
        }
        try (OutputStream out = Files.newOutputStream(file, java.nio.file.StandardOpenOption.APPEND)) {
            for (int i = 0; i < 64 * 1024; i++) {
                out.write(0); // the last partial chunk's worth, a byte at a time
            }
        } catch (IOException full) {
            // full to the byte
        }
    }
}
