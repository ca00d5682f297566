package dev.lakestream.tests;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lakestream.tests.Cli.Result;
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
        Result tenants = Cli.runOk("pulsar-admin", "--admin-url", BROKER.webServiceUrl(), "tenants", "list");
        assertThat(tenants.stdout().lines()).contains("public", "pulsar");
        Result namespaces =
                Cli.runOk("pulsar-admin", "--admin-url", BROKER.webServiceUrl(), "namespaces", "list", "public");
        assertThat(namespaces.stdout().lines()).contains("public/default");
    }

    @Test
    void clientProducesAndConsumesAPersistentTopic() throws Exception {
        String topic = "persistent://public/default/cli";
        Result produced = Cli.runOk(
                "pulsar-client", "--url", BROKER.brokerServiceUrl(), "produce", topic, "-m", "hello", "-n", "3");
        assertThat(produced.stderr()).contains("3 messages successfully produced");

        Result consumed = Cli.runOk(
                "pulsar-client",
                "--url",
                BROKER.brokerServiceUrl(),
                "consume",
                topic,
                "-s",
                "sub",
                "-n",
                "3",
                "-p",
                "Earliest");
        assertThat(consumed.stdout().lines().filter(l -> l.endsWith("content:hello")))
                .hasSize(3);
        assertThat(consumed.stderr()).contains("3 messages successfully consumed");
    }
}
