package dev.lakestream.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lakestream.core.catalog.StreamInfo;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The hosts' entry point finds the topics' streams and wires their materializers from the log alone. */
class MaterializersTest {

    @TempDir
    java.nio.file.Path dir;

    @Test
    void everyPersistentTopicStreamGetsAMaterializerIntoItsTopicsTable() throws Exception {
        try (Fixture f = new Fixture(dir)) {
            f.stream(TopicRef.parse("persistent://public/default/a"));
            f.stream(TopicRef.parse("persistent://public/default/b-partition-1"));
            f.log.catalog()
                    .create("pulsar-compacted/public/default/persistent/a", "run-1", Map.of())
                    .join();
            Fixture.append(
                    f.log.stream(f.log.catalog()
                            .open(Materializers.MANAGED_LEDGERS, "public/default/persistent/b-partition-1")
                            .join()),
                    ExactlyOnceTest.entries(0, 3));

            var catalog = f.catalog();
            Materializers hosts = new Materializers(f.log, catalog, Fixture.eager(), DeadLetters.log(), f.executor);
            List<StreamInfo> streams = hosts.topicStreams();
            assertThat(streams)
                    .extracting(StreamInfo::name)
                    .containsExactlyInAnyOrder(
                            "public/default/persistent/a", "public/default/persistent/b-partition-1");
            for (StreamInfo s : streams) {
                TopicMaterializer m = hosts.materializer(s);
                m.open();
                Fixture.drain(m);
                m.close();
            }
            assertThat(catalog.tableExists(TableNames.of(TopicRef.parse("persistent://public/default/a"))))
                    .isTrue();
            var b = catalog.loadTable(TableNames.of(TopicRef.parse("persistent://public/default/b")));
            ExactlyOnceTest.assertExactly(b, 3);
            assertThat(Fixture.rows(b))
                    .allSatisfy(r -> assertThat(r.getField("_pulsar_partition")).isEqualTo(1));
            StreamInfo compacted = f.log.catalog()
                    .open("pulsar-compacted/public/default/persistent/a", "run-1")
                    .join();
            assertThatThrownBy(() -> hosts.materializer(compacted)).hasMessageContaining("not a managed ledger");
        }
    }
}
