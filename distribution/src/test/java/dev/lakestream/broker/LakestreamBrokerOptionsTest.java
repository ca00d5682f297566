package dev.lakestream.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The launcher's command line; nothing here reaches a configuration file or a metadata store. */
class LakestreamBrokerOptionsTest {

    @Test
    void optionsDefaultToStartingTheBrokerWithNoOverrides() {
        LakestreamBroker.Options o = LakestreamBroker.Options.parse("--broker-conf", "broker.conf");
        assertThat(o.confFile).isEqualTo(Path.of("broker.conf"));
        assertThat(o.dataDir).as("null: LAKESTREAM_DATA_DIR, else ./data").isNull();
        assertThat(o.setupOnly).isFalse();
        assertThat(o.help).isFalse();
        assertThat(o.overrides).isEmpty();

        LakestreamBroker.Options all = LakestreamBroker.Options.parse(
                "-c", "a.conf", "clusterName=x", "--data-dir", "d", "--setup-only", "-c", "b.conf", "webServicePort=0");
        assertThat(all.confFile).as("the last one wins").isEqualTo(Path.of("b.conf"));
        assertThat(all.dataDir).isEqualTo(Path.of("d"));
        assertThat(all.setupOnly).isTrue();
        assertThat(all.overrides).containsExactly("clusterName=x", "webServicePort=0");
    }

    @Test
    void anUnknownOptionOrABadArgumentFailsNamingIt() {
        assertThatThrownBy(() -> LakestreamBroker.run("--broker-conf", "b.conf", "--setup-onyl"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Unknown option: '--setup-onyl'")
                .hasMessageContaining(LakestreamBroker.USAGE);
        assertThatThrownBy(() -> LakestreamBroker.run("--data-dir"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'--data-dir'");
        assertThatThrownBy(() -> LakestreamBroker.run("-c", "b.conf", "clusterName"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unexpected argument 'clusterName'");
        assertThatThrownBy(() -> LakestreamBroker.run("clusterName=x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--broker-conf FILE is required");
    }

    @Test
    void helpNeedsNoConfiguration() throws Exception {
        LakestreamBroker.run("--help");
        assertThat(LakestreamBroker.Options.parse("-h").help).isTrue();
    }
}
