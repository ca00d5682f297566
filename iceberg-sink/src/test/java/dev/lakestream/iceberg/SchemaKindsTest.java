package dev.lakestream.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lakestream.core.StreamLog;
import dev.lakestream.iceberg.pulsar.PulsarEntries;
import dev.lakestream.iceberg.pulsar.PulsarEntries.Msg;
import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.pulsar.common.api.proto.CompressionType;
import org.apache.pulsar.common.schema.SchemaType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Primitive, bytes, no-schema and KeyValue topics, and a partitioned topic into one table. */
class SchemaKindsTest {

    @TempDir
    java.nio.file.Path dir;

    private static ByteBuf entry(long version, long seq, byte[] value, String key) {
        return PulsarEntries.single(
                "p",
                1_764_000_000_000L,
                version < 0 ? null : version,
                CompressionType.SNAPPY,
                new Msg(key, Map.of(), 0, seq, value),
                false);
    }

    private static Object single(Fixture f, SchemaType type, byte[] value, Type expectedType) throws Exception {
        TopicRef topic = TopicRef.parse("persistent://public/default/p-" + type);
        long v = type == SchemaType.BYTES ? -1 : f.registerSchema(topic, type, new byte[0], Map.of());
        StreamLog stream = f.stream(topic);
        Fixture.append(stream, List.of(entry(v, 0, value, null)));
        var catalog = f.catalog();
        TopicMaterializer m = f.materializer(topic, stream, catalog, Fixture.eager(), DeadLetters.log());
        m.open();
        Fixture.drain(m);
        Table table = catalog.loadTable(TableNames.of(topic));
        assertThat(table.schema().findType("value")).as("%s", type).isEqualTo(expectedType);
        List<Record> rows = Fixture.rows(table);
        assertThat(rows).hasSize(1);
        m.close();
        return rows.get(0).getField("value");
    }

    @Test
    void primitivesBecomeAValueColumnOfTheirType() throws Exception {
        try (Fixture f = new Fixture(dir)) {
            assertThat(single(f, SchemaType.STRING, "héllo".getBytes(StandardCharsets.UTF_8), Types.StringType.get()))
                    .isEqualTo("héllo");
            assertThat(single(
                            f,
                            SchemaType.INT64,
                            ByteBuffer.allocate(8).putLong(-7L).array(),
                            Types.LongType.get()))
                    .isEqualTo(-7L);
            assertThat(single(
                            f,
                            SchemaType.INT16,
                            ByteBuffer.allocate(2).putShort((short) 300).array(),
                            Types.IntegerType.get()))
                    .isEqualTo(300);
            assertThat(single(
                            f,
                            SchemaType.DOUBLE,
                            ByteBuffer.allocate(8).putDouble(2.5).array(),
                            Types.DoubleType.get()))
                    .isEqualTo(2.5);
            assertThat(single(f, SchemaType.BOOLEAN, new byte[] {1}, Types.BooleanType.get()))
                    .isEqualTo(true);
            assertThat(single(
                            f,
                            SchemaType.LOCAL_DATE,
                            ByteBuffer.allocate(8).putLong(20_000).array(),
                            Types.DateType.get()))
                    .isEqualTo(LocalDate.ofEpochDay(20_000));
            assertThat(single(
                            f,
                            SchemaType.LOCAL_TIME,
                            ByteBuffer.allocate(8).putLong(3_000_000_000L).array(),
                            Types.TimeType.get()))
                    .isEqualTo(LocalTime.ofNanoOfDay(3_000_000_000L));
            assertThat(single(
                            f,
                            SchemaType.LOCAL_DATE_TIME,
                            ByteBuffer.allocate(16)
                                    .putLong(20_000)
                                    .putLong(5_000_000_000L)
                                    .array(),
                            Types.TimestampType.withoutZone()))
                    .isEqualTo(LocalDateTime.of(LocalDate.ofEpochDay(20_000), LocalTime.ofNanoOfDay(5_000_000_000L)));
            // No schema at all: raw bytes.
            assertThat(single(f, SchemaType.BYTES, new byte[] {9, 8, 7}, Types.BinaryType.get()))
                    .isEqualTo(ByteBuffer.wrap(new byte[] {9, 8, 7}));
        }
    }

    @Test
    void keyValueInlineBecomesAKeyAndAValueStruct() throws Exception {
        try (Fixture f = new Fixture(dir)) {
            TopicRef topic = TopicRef.parse("persistent://public/default/kv");
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
                    Map.of("key.schema.type", "STRING", "value.schema.type", "JSON", "kv.encoding.type", "INLINE"));
            StreamLog stream = f.stream(topic);
            byte[] k = "user-1".getBytes(StandardCharsets.UTF_8);
            byte[] val = "{\"id\":1,\"name\":\"a\"}".getBytes(StandardCharsets.UTF_8);
            byte[] payload = ByteBuffer.allocate(8 + k.length + val.length)
                    .putInt(k.length)
                    .put(k)
                    .putInt(val.length)
                    .put(val)
                    .array();
            Fixture.append(stream, List.of(entry(v, 0, payload, null)));
            var catalog = f.catalog();
            TopicMaterializer m = f.materializer(topic, stream, catalog, Fixture.eager(), DeadLetters.log());
            m.open();
            Fixture.drain(m);
            Table table = catalog.loadTable(TableNames.of(topic));
            assertThat(table.schema().findType("key")).isEqualTo(Types.StringType.get());
            assertThat(table.schema().findType("value").isStructType()).isTrue();
            Record row = Fixture.rows(table).get(0);
            assertThat(row.getField("key")).isEqualTo("user-1");
            assertThat(((Record) row.getField("value")).getField("id")).isEqualTo(1);
            assertThat(((Record) row.getField("value")).getField("name")).isEqualTo("a");
            m.close();
        }
    }

    @Test
    void thePartitionsOfATopicShareOneTableWithThePartitionAsAColumn() throws Exception {
        try (Fixture f = new Fixture(dir)) {
            var catalog = f.catalog();
            for (int p = 0; p < 3; p++) {
                TopicRef partition = TopicRef.parse("persistent://public/default/parts-partition-" + p);
                StreamLog stream = f.stream(partition);
                Fixture.append(stream, ExactlyOnceTest.entries(0, 2 + p));
                TopicMaterializer m = f.materializer(partition, stream, catalog, Fixture.eager(), DeadLetters.log());
                m.open();
                Fixture.drain(m);
                m.close();
            }
            Table table = catalog.loadTable(TableNames.of(TopicRef.parse("persistent://public/default/parts")));
            List<Record> rows = Fixture.rows(table);
            assertThat(rows).hasSize(3 * (2 + 3 + 4));
            assertThat(rows)
                    .filteredOn(r -> Integer.valueOf(2).equals(r.getField("_pulsar_partition")))
                    .hasSize(12);
            // The newest commit carries every partition's offsets forward.
            assertThat(CommitSummary.committedOffsets(table)).hasSize(3).containsValues(2L, 3L, 4L);
        }
    }
}
