package dev.lakestream.broker;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/**
 * What {@code bin/run-broker} starts, {@code conf/broker-diskless-embedded.conf}: every directory the broker writes is
 * under {@code ${LAKESTREAM_DATA_DIR}}, so that setting it moves all of the broker's data (the in-broker
 * materializer's Iceberg catalog and warehouse too, which once stayed in {@code ./data/iceberg}).
 */
class EmbeddedBrokerConfTest {

    private static final String DATA_DIR = "${LAKESTREAM_DATA_DIR}";

    @Test
    void everyDirectoryTheBrokerWritesIsUnderTheDataDirectory() throws IOException {
        Properties conf = new Properties();
        // Maven runs the tests in the module's directory; the configuration is the repository's.
        try (Reader r = Files.newBufferedReader(Path.of("..", "conf", "broker-diskless-embedded.conf"))) {
            conf.load(r);
        }
        for (String key : List.of(
                "metadataStoreUrl",
                "configurationMetadataStoreUrl",
                "lakestream.fs.root",
                "lakestream.embedded.dataDir",
                "lakestream.iceberg.dataDir")) {
            assertThat(conf.getProperty(key))
                    .as("%s in conf/broker-diskless-embedded.conf", key)
                    .isNotNull()
                    .contains(DATA_DIR);
        }
    }
}
