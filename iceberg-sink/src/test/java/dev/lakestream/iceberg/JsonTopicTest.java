package dev.lakestream.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lakestream.core.StreamLog;
import dev.lakestream.iceberg.pulsar.PulsarEntries;
import dev.lakestream.iceberg.pulsar.PulsarEntries.Msg;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.pulsar.common.api.proto.CompressionType;
import org.apache.pulsar.common.schema.SchemaType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** JSON (struct) topics: plain JSON payloads against the schema's Avro definition; KeyValue SEPARATED. */
class JsonTopicTest {

    /** As Pulsar's JSON schema describes a POJO: nullable unions, nested record, list, map, enum, logical types. */
    static final String EVENT = """
            {"type":"record","name":"Event","fields":[
             {"name":"id","type":"long"},
             {"name":"kind","type":["null",{"type":"enum","name":"Kind","symbols":["A","B"]}],"default":null},
             {"name":"amount","type":["null",{"type":"bytes","logicalType":"decimal","precision":12,"scale":3}]},
             {"name":"day","type":["null",{"type":"int","logicalType":"date"}]},
             {"name":"at","type":["null",{"type":"long","logicalType":"timestamp-millis"}]},
             {"name":"uid","type":["null",{"type":"string","logicalType":"uuid"}]},
             {"name":"blob","type":["null","bytes"]},
             {"name":"scores","type":["null",{"type":"array","items":"double"}]},
             {"name":"labels","type":["null",{"type":"map","values":"string"}]},
             {"name":"inner","type":["null",{"type":"record","name":"Inner","fields":[
               {"name":"flag","type":"boolean"},{"name":"note","type":["null","string"]}]}]}
            ]}""";

    @TempDir
    java.nio.file.Path dir;

    @Test
    void jsonPayloadsBecomeTypedColumns() throws Exception {
        try (Fixture f = new Fixture(dir)) {
            TopicRef topic = TopicRef.parse("persistent://public/default/events");
            long v = f.registerSchema(topic, SchemaType.JSON, EVENT, Map.of());
            StreamLog stream = f.stream(topic);
            UUID uid = UUID.randomUUID();
            String full = "{\"id\":1,\"kind\":\"B\",\"amount\":12.345,\"day\":20000,\"at\":1764000000123,"
                    + "\"uid\":\"" + uid + "\",\"blob\":\""
                    + Base64.getEncoder().encodeToString(new byte[] {7, 8})
                    + "\",\"scores\":[1.5,2],\"labels\":{\"x\":\"y\"},\"inner\":{\"flag\":true,\"note\":null}}";
            String sparse = "{\"id\":2}";
            Fixture.append(
                    stream,
                    List.of(PulsarEntries.batch(
                            "p",
                            1_764_000_000_000L,
                            v,
                            CompressionType.ZLIB,
                            List.of(
                                    new Msg(null, Map.of(), 0, 0, full.getBytes(StandardCharsets.UTF_8)),
                                    new Msg(null, Map.of(), 0, 1, sparse.getBytes(StandardCharsets.UTF_8))),
                            false)));
            var catalog = f.catalog();
            TopicMaterializer m = f.materializer(topic, stream, catalog, Fixture.eager(), DeadLetters.log());
            m.open();
            Fixture.drain(m);
            assertThat(m.status().deadLetters()).isZero();
            Table table = catalog.loadTable(TableNames.of(topic));
            List<Record> rows = Fixture.rows(table);
            Record r = rows.get(0);
            assertThat(r.getField("id")).isEqualTo(1L);
            assertThat(r.getField("kind")).isEqualTo("B");
            assertThat(r.getField("amount")).isEqualTo(new BigDecimal("12.345"));
            assertThat(r.getField("day")).isEqualTo(LocalDate.ofEpochDay(20000));
            assertThat(r.getField("at"))
                    .isEqualTo(OffsetDateTime.ofInstant(Instant.ofEpochMilli(1764000000123L), ZoneOffset.UTC));
            assertThat(r.getField("uid")).isEqualTo(uid);
            assertThat(r.getField("blob")).isEqualTo(ByteBuffer.wrap(new byte[] {7, 8}));
            assertThat(r.getField("scores")).isEqualTo(List.of(1.5, 2.0));
            assertThat(r.getField("labels")).isEqualTo(Map.of("x", "y"));
            assertThat(((Record) r.getField("inner")).getField("flag")).isEqualTo(true);
            Record sparseRow = rows.get(1);
            assertThat(sparseRow.getField("id")).isEqualTo(2L);
            assertThat(sparseRow.getField("kind")).isNull();
            assertThat(sparseRow.getField("inner")).isNull();
            m.close();
        }
    }

    @Test
    void keyValueSeparatedTakesTheKeyFromTheMessageKey() throws Exception {
        try (Fixture f = new Fixture(dir)) {
            TopicRef topic = TopicRef.parse("persistent://public/default/kv-separated");
            byte[] valueDef = SchemaEvolutionTest.V0.getBytes(StandardCharsets.UTF_8);
            byte[] def = ByteBuffer.allocate(8 + valueDef.length)
                    .putInt(0)
                    .putInt(valueDef.length)
                    .put(valueDef)
                    .array();
            long v = f.registerSchema(
                    topic,
                    SchemaType.KEY_VALUE,
                    def,
                    Map.of("key.schema.type", "INT64", "value.schema.type", "AVRO", "kv.encoding.type", "SEPARATED"));
            StreamLog stream = f.stream(topic);
            // The client sends a SEPARATED key as base64 of its bytes; Avro value: id=3 (zigzag 6), name="c".
            String key = Base64.getEncoder()
                    .encodeToString(ByteBuffer.allocate(8).putLong(42L).array());
            byte[] value = {6, 2, 'c'};
            var entry = PulsarEntries.single(
                    "p", 1_764_000_000_000L, v, CompressionType.NONE, new Msg(key, Map.of(), 0, 0, value), false, true);
            Fixture.append(stream, List.of(entry));
            var catalog = f.catalog();
            TopicMaterializer m = f.materializer(topic, stream, catalog, Fixture.eager(), DeadLetters.log());
            m.open();
            Fixture.drain(m);
            assertThat(m.status().deadLetters()).isZero();
            Record row = Fixture.rows(catalog.loadTable(TableNames.of(topic))).get(0);
            assertThat(row.getField("key")).isEqualTo(42L);
            assertThat(row.getField("_pulsar_key")).isEqualTo(key);
            assertThat(row.getField("value")).satisfies(val -> {
                assertThat(((Record) val).getField("id")).isEqualTo(3);
                assertThat(((Record) val).getField("name")).isEqualTo("c");
            });
            m.close();
        }
    }
}
