package dev.lakestream.tests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code bin/pulsar-admin} and {@code bin/pulsar-client}, run as a user types them (as processes, with
 * {@code conf/client.conf}), against the broker {@code bin/run-broker} would start. The scripts run what the
 * {@code distribution} module built (its build precedes this module's); they are told not to build.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class CliToolsTest {

    @RegisterExtension
    static final PulsarBrokerExtension BROKER = PulsarBrokerExtension.embedded();

    @Test
    void adminListsTenantsAndNamespaces() throws Exception {
        Result tenants = run("pulsar-admin", "--admin-url", BROKER.webServiceUrl(), "tenants", "list");
        assertThat(tenants.stdout.lines()).contains("public", "pulsar");
        Result namespaces = run("pulsar-admin", "--admin-url", BROKER.webServiceUrl(), "namespaces", "list",
                "public");
        assertThat(namespaces.stdout.lines()).contains("public/default");
    }

    @Test
    void clientProducesAndConsumesAPersistentTopic() throws Exception {
        String topic = "persistent://public/default/cli";
        Result produced = run("pulsar-client", "--url", BROKER.brokerServiceUrl(), "produce", topic, "-m", "hello",
                "-n", "3");
        assertThat(produced.stderr).contains("3 messages successfully produced");

        Result consumed = run("pulsar-client", "--url", BROKER.brokerServiceUrl(), "consume", topic, "-s", "sub",
                "-n", "3", "-p", "Earliest");
        assertThat(consumed.stdout.lines().filter(l -> l.endsWith("content:hello"))).hasSize(3);
        assertThat(consumed.stderr).contains("3 messages successfully consumed");
    }

    private record Result(String stdout, String stderr) {
    }

    /** Runs {@code bin/<tool> args...} from the repository root; fails on a non-zero exit. */
    private static Result run(String tool, String... args) throws IOException, InterruptedException {
        Path root = PulsarBrokerExtension.projectDir();
        List<String> command = new ArrayList<>();
        command.add(root.resolve("bin").resolve(tool).toString());
        command.addAll(List.of(args));
        Path out = Files.createTempFile("cli-", ".out");
        Path err = Files.createTempFile("cli-", ".err");
        try {
            ProcessBuilder pb = new ProcessBuilder(command).directory(root.toFile())
                    .redirectOutput(out.toFile()).redirectError(err.toFile());
            pb.environment().put("LAKESTREAM_SKIP_BUILD", "1");
            pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
            Process p = pb.start();
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError(command + " did not finish within 120 s; stderr:\n" + Files.readString(err));
            }
            Result r = new Result(Files.readString(out, StandardCharsets.UTF_8),
                    Files.readString(err, StandardCharsets.UTF_8));
            assertThat(p.exitValue()).as("exit code of %s; stdout:%n%s%nstderr:%n%s", command, r.stdout, r.stderr)
                    .isZero();
            return r;
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }
}
