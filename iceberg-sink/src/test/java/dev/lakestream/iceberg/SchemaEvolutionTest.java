package dev.lakestream.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lakestream.core.StreamLog;
import dev.lakestream.iceberg.pulsar.PulsarEntries;
import dev.lakestream.iceberg.pulsar.PulsarEntries.Msg;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.apache.pulsar.common.api.proto.CompressionType;
import org.apache.pulsar.common.schema.SchemaType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Schema evolution by field id across versions; an incompatible version pauses only its topic; dead letters. */
class SchemaEvolutionTest {

    static final String V0 = """
            {"type":"record","name":"U","fields":[{"name":"id","type":"int"},{"name":"name","type":"string"}]}""";
    /** Adds an optional field. */
    static final String V1 = """
            {"type":"record","name":"U","fields":[{"name":"id","type":"int"},{"name":"name","type":"string"},
             {"name":"email","type":["null","string"],"default":null}]}""";
    /** Widens id to long and drops name. */
    static final String V2 = """
            {"type":"record","name":"U","fields":[{"name":"id","type":"long"},
             {"name":"email","type":["null","string"],"default":null}]}""";
    /** Changes id to a string: not a widening. */
    static final String V3 = """
            {"type":"record","name":"U","fields":[{"name":"id","type":"string"}]}""";

    @TempDir
    java.nio.file.Path dir;

    static ByteBuf json(long version, long seq, String json) {
        return PulsarEntries.single(
                "p",
                1_764_000_000_000L + seq,
                version,
                CompressionType.ZSTD,
                new Msg(null, Map.of(), 0, seq, json.getBytes(StandardCharsets.UTF_8)),
                false);
    }

    @Test
    void threeVersionsEvolveTheTableAndAnIncompatibleOnePausesOnlyItsTopic() throws Exception {
        try (Fixture f = new Fixture(dir)) {
            TopicRef topic = TopicRef.parse("persistent://acme/users/users");
            TopicRef other = TopicRef.parse("persistent://acme/users/other");
            long v0 = f.registerSchema(topic, SchemaType.JSON, V0, Map.of());
            long v1 = f.registerSchema(topic, SchemaType.JSON, V1, Map.of());
            long v2 = f.registerSchema(topic, SchemaType.JSON, V2, Map.of());
            StreamLog stream = f.stream(topic);
            Fixture.append(stream, List.of(json(v0, 0, "{\"id\":1,\"name\":\"a\"}")));
            var catalog = f.catalog();
            TopicMaterializer m = f.materializer(topic, stream, catalog, Fixture.eager(), DeadLetters.log());
            m.open();
            Fixture.drain(m);
            Table table = catalog.loadTable(TableNames.of(topic));
            // Created from the latest version, then the older ones' columns merged in.
            int idField = table.schema().findField("id").fieldId();

            Fixture.append(
                    stream,
                    List.of(
                            json(v1, 1, "{\"id\":2,\"name\":\"b\",\"email\":\"b@x\"}"),
                            json(v2, 2, "{\"id\":3000000000,\"email\":\"c@x\"}"),
                            json(v0, 3, "{\"id\":4,\"name\":\"d\"}")));
            Fixture.drain(m);
            table.refresh();
            assertThat(table.schema().findField("id").fieldId()).isEqualTo(idField);
            assertThat(table.schema().findType("id")).isEqualTo(Types.LongType.get());
            assertThat(table.schema().findField("name")).isNotNull();
            assertThat(table.schema().findField("email")).isNotNull();
            List<Record> rows = Fixture.rows(table);
            assertThat(rows).extracting(r -> r.getField("id")).containsExactly(1L, 2L, 3_000_000_000L, 4L);
            assertThat(rows).extracting(r -> r.getField("name")).containsExactly("a", "b", null, "d");
            assertThat(rows).extracting(r -> r.getField("email")).containsExactly(null, "b@x", "c@x", null);

            // Another topic is materialized alongside.
            StreamLog otherStream = f.stream(other);
            Fixture.append(otherStream, ExactlyOnceTest.entries(0, 2));
            TopicMaterializer o = f.materializer(other, otherStream, catalog, Fixture.eager(), DeadLetters.log());
            o.open();

            // An incompatible version: the rows before it are committed, then the topic pauses.
            long v3 = f.registerSchema(topic, SchemaType.JSON, V3, Map.of());
            Fixture.append(
                    stream,
                    List.of(
                            json(v0, 4, "{\"id\":5,\"name\":\"e\"}"),
                            json(v3, 5, "{\"id\":\"x\"}"),
                            json(v0, 6, "{\"id\":7,\"name\":\"g\"}")));
            Fixture.drain(m);
            Fixture.drain(o);
            assertThat(m.status().state()).isEqualTo(MaterializerStatus.State.PAUSED);
            assertThat(m.status().lastError()).contains("version " + v3).contains("id");
            assertThat(m.status().committedOffset()).isEqualTo(5);
            assertThat(Fixture.rows(table))
                    .extracting(r -> r.getField("id"))
                    .containsExactly(1L, 2L, 3_000_000_000L, 4L, 5L);
            assertThat(o.status().state()).isEqualTo(MaterializerStatus.State.RUNNING);
            assertThat(o.status().committedOffset()).isEqualTo(2);
            m.close();
            o.close();
        }
    }

    @Test
    void aMessageThatDoesNotDecodeGoesToTheDeadLettersAndTheRestIsKept() throws Exception {
        try (Fixture f = new Fixture(dir)) {
            TopicRef topic = TopicRef.parse("persistent://acme/users/bad");
            long v0 = f.registerSchema(topic, SchemaType.JSON, V0, Map.of());
            StreamLog stream = f.stream(topic);
            List<ByteBuf> entries = new ArrayList<>();
            entries.add(json(v0, 0, "{\"id\":1,\"name\":\"a\"}"));
            entries.add(json(v0, 1, "not json"));
            entries.add(PulsarEntries.batch(
                    "p",
                    1_764_000_000_000L,
                    v0,
                    CompressionType.NONE,
                    List.of(
                            new Msg(null, Map.of(), 0, 2, "{\"id\":3,\"name\":\"c\"}".getBytes(StandardCharsets.UTF_8)),
                            new Msg(null, Map.of(), 0, 3, "{\"id\":\"four\"}".getBytes(StandardCharsets.UTF_8)),
                            new Msg(
                                    null,
                                    Map.of(),
                                    0,
                                    4,
                                    "{\"id\":5,\"name\":\"e\"}".getBytes(StandardCharsets.UTF_8))),
                    false));
            entries.add(io.netty.buffer.Unpooled.wrappedBuffer(new byte[] {1, 2, 3})); // not a Pulsar entry
            entries.add(json(v0, 5, "{\"id\":6,\"name\":\"f\"}"));
            Fixture.append(stream, entries);
            List<String> dead = new ArrayList<>();
            DeadLetters sink = (t, p, batchIndex, reason) -> {
                dead.add(p.offset() + ":" + batchIndex);
                DeadLetters.log().add(t, p, batchIndex, reason);
            };
            var catalog = f.catalog();
            TopicMaterializer m = f.materializer(topic, stream, catalog, Fixture.eager(), sink);
            m.open();
            Fixture.drain(m);
            assertThat(dead).containsExactly("1:-1", "2:1", "3:-1");
            assertThat(m.status().deadLetters()).isEqualTo(3);
            assertThat(m.status().committedOffset()).isEqualTo(5);
            assertThat(Fixture.rows(catalog.loadTable(TableNames.of(topic))))
                    .extracting(r -> r.getField("id"))
                    .containsExactly(1, 3, 5, 6);
            m.close();
        }
    }
}
