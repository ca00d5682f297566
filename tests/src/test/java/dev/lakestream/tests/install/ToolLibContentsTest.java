package dev.lakestream.tests.install;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The release bundle's {@code tools/lib/} (the standalone tools' jars, from iceberg-sink's {@code target/tool-lib})
 * against a stock Pulsar 5.0.1's {@code lib/}: every artifact iceberg-sink needs at run time that Pulsar lacks is
 * there (except this project's own modules, which the storage jar in {@code lib/} holds), and none that Pulsar has.
 */
class ToolLibContentsTest {

    @Test
    void toolsLibHoldsExactlyWhatIcebergSinkNeedsBeyondPulsarsLib() throws IOException {
        Path root = StockPulsarHome.projectDir();
        Map<String, StockLibContentsTest.Artifact> stock =
                StockLibContentsTest.artifacts(root.resolve("stock-pulsar/target/stock-lib-artifacts.txt"));
        Map<String, StockLibContentsTest.Artifact> needed =
                StockLibContentsTest.artifacts(root.resolve("iceberg-sink/target/runtime-artifacts.txt"));
        assertThat(needed).as("iceberg-sink's run-time artifact list").containsKey("org.apache.iceberg:iceberg-core");

        Set<String> jars = new TreeSet<>();
        try (Stream<Path> files = Files.list(StockPulsarHome.bundle().resolve("tools/lib"))) {
            files.forEach(f -> jars.add(f.getFileName().toString()));
        }
        assertThat(jars)
                .as("the materializer itself")
                .contains("dev.lakestream.iceberg-sink-" + StockPulsarHome.VERSION + ".jar");
        Set<String> expected = new TreeSet<>();
        expected.add("dev.lakestream.iceberg-sink-" + StockPulsarHome.VERSION + ".jar");
        List<String> inStockToo = new ArrayList<>();
        for (StockLibContentsTest.Artifact a : needed.values()) {
            // This project's modules are in the storage jar (JavaFastPFOR relocated there, used only by the core).
            if (a.key().startsWith("dev.lakestream:") || a.key().startsWith("me.lemire.integercompression:")) {
                continue;
            }
            String[] ga = a.key().split(":");
            String jar = ga[0] + "." + ga[1] + "-" + a.version() + ".jar";
            if (stock.containsKey(a.key())) {
                if (jars.contains(jar)) {
                    inStockToo.add(jar);
                }
            } else {
                expected.add(jar);
            }
        }
        assertThat(inStockToo)
                .as("jars in tools/lib that Pulsar's lib/ already has (narrow includeGroupIds of the"
                        + " tool-lib execution in iceberg-sink/pom.xml)")
                .isEmpty();
        assertThat(jars)
                .as("tools/lib: what iceberg-sink needs beyond Pulsar's lib/ (see the tool-lib execution in"
                        + " iceberg-sink/pom.xml)")
                .containsExactlyInAnyOrderElementsOf(expected);
    }
}
