package dev.lakestream.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lakestream.core.StreamLog;
import dev.lakestream.iceberg.pulsar.PulsarEntries;
import dev.lakestream.iceberg.pulsar.PulsarEntries.Msg;
import io.netty.buffer.ByteBuf;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.apache.pulsar.common.api.proto.CompressionType;
import org.apache.pulsar.common.schema.SchemaType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** An Avro topic (nested records, arrays, maps, logical types), batched and not, every codec, read back row for row. */
class AvroTopicTest {

    static final String ORDER = """
            {"type":"record","name":"Order","namespace":"t","fields":[
             {"name":"id","type":"long"},
             {"name":"name","type":["null","string"],"default":null},
             {"name":"price","type":{"type":"bytes","logicalType":"decimal","precision":10,"scale":2}},
             {"name":"day","type":{"type":"int","logicalType":"date"}},
             {"name":"at","type":{"type":"int","logicalType":"time-millis"}},
             {"name":"tsMillis","type":{"type":"long","logicalType":"timestamp-millis"}},
             {"name":"tsMicros","type":{"type":"long","logicalType":"timestamp-micros"}},
             {"name":"uid","type":{"type":"string","logicalType":"uuid"}},
             {"name":"tags","type":{"type":"array","items":"string"}},
             {"name":"attrs","type":{"type":"map","values":"int"}},
             {"name":"address","type":{"type":"record","name":"Address","fields":[
               {"name":"city","type":"string"},{"name":"zip","type":["null","int"],"default":null}]}}
            ]}""";

    @TempDir
    java.nio.file.Path dir;

    static byte[] avro(Schema schema, GenericData.Record r) {
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            BinaryEncoder enc = EncoderFactory.get().binaryEncoder(out, null);
            new GenericDatumWriter<GenericData.Record>(schema).write(r, enc);
            enc.flush();
            return out.toByteArray();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    static GenericData.Record order(Schema schema, int i) {
        GenericData.Record address =
                new GenericData.Record(schema.getField("address").schema());
        address.put("city", "city-" + i);
        address.put("zip", i % 2 == 0 ? null : 10_000 + i);
        GenericData.Record r = new GenericData.Record(schema);
        r.put("id", (long) i);
        r.put("name", i % 5 == 0 ? null : "name-" + i);
        r.put(
                "price",
                ByteBuffer.wrap(
                        BigDecimal.valueOf(100_00L + i, 2).unscaledValue().toByteArray()));
        r.put("day", 19_000 + i);
        r.put("at", 3_600_000 + i);
        r.put("tsMillis", 1_700_000_000_000L + i);
        r.put("tsMicros", 1_700_000_000_000_000L + i);
        r.put("uid", new UUID(42, i).toString());
        r.put("tags", List.of("a" + i, "b"));
        r.put("attrs", Map.of("k", i));
        r.put("address", address);
        return r;
    }

    @Test
    void everyMessageBecomesOneRowWithItsTypesAndMetadata() throws Exception {
        try (Fixture f = new Fixture(dir)) {
            TopicRef topic = TopicRef.parse("persistent://public/default/orders-v1");
            long version = f.registerSchema(topic, SchemaType.AVRO, ORDER, Map.of());
            Schema schema = new Schema.Parser().parse(ORDER);
            StreamLog stream = f.stream(topic);

            List<ByteBuf> entries = new ArrayList<>();
            int id = 0;
            List<Long> publishTimes = new ArrayList<>();
            for (CompressionType codec : CompressionType.values()) {
                // One message alone, then a batch of 5.
                long t = 1_764_000_000_000L + id * 1000L;
                entries.add(PulsarEntries.single(
                        "p1",
                        t,
                        version,
                        codec,
                        new Msg("k" + id, Map.of("i", "" + id), 0, id, avro(schema, order(schema, id))),
                        true));
                publishTimes.add(t);
                id++;
                List<Msg> batch = new ArrayList<>();
                long bt = 1_764_000_000_000L + id * 1000L;
                for (int j = 0; j < 5; j++) {
                    batch.add(new Msg(null, Map.of(), bt + 7, id, avro(schema, order(schema, id))));
                    publishTimes.add(bt);
                    id++;
                }
                entries.add(PulsarEntries.batch("p1", bt, version, codec, batch, false));
            }
            Fixture.append(stream, entries);

            Catalog catalog = f.catalog();
            TopicMaterializer m = f.materializer(topic, stream, catalog, Fixture.eager(), DeadLetters.log());
            m.open();
            Fixture.drain(m);
            assertThat(m.status().state()).isEqualTo(MaterializerStatus.State.RUNNING);
            assertThat(m.status().committedOffset()).isEqualTo(entries.size());

            Table table = catalog.loadTable(TableNames.of(topic));
            assertThat(table.name()).endsWith("public.default.orders_x2dv1");
            assertThat(table.spec().fields())
                    .singleElement()
                    .satisfies(pf -> assertThat(pf.transform().toString()).isEqualTo("day"));
            assertThat(table.schema().findType("tsMillis")).isEqualTo(Types.TimestampType.withZone());
            assertThat(table.schema().findType("uid")).isEqualTo(Types.UUIDType.get());
            assertThat(table.schema().findType("price")).isEqualTo(Types.DecimalType.of(10, 2));

            List<Record> rows = Fixture.rows(table);
            assertThat(rows).hasSize(id);
            for (int i = 0; i < id; i++) {
                Record r = rows.get(i);
                assertThat(r.getField("id")).isEqualTo((long) i);
                assertThat(r.getField("name")).isEqualTo(i % 5 == 0 ? null : "name-" + i);
                assertThat(r.getField("price")).isEqualTo(BigDecimal.valueOf(100_00L + i, 2));
                assertThat(r.getField("day")).isEqualTo(LocalDate.ofEpochDay(19_000 + i));
                assertThat(r.getField("at")).isEqualTo(LocalTime.ofNanoOfDay((3_600_000L + i) * 1_000_000L));
                assertThat(r.getField("tsMillis"))
                        .isEqualTo(
                                OffsetDateTime.ofInstant(Instant.ofEpochMilli(1_700_000_000_000L + i), ZoneOffset.UTC));
                assertThat(r.getField("tsMicros"))
                        .isEqualTo(OffsetDateTime.ofInstant(
                                Instant.ofEpochSecond(0, (1_700_000_000_000_000L + i) * 1000), ZoneOffset.UTC));
                assertThat(r.getField("uid")).isEqualTo(new UUID(42, i));
                assertThat(r.getField("tags")).isEqualTo(List.of("a" + i, "b"));
                assertThat(r.getField("attrs")).isEqualTo(Map.of("k", i));
                Record address = (Record) r.getField("address");
                assertThat(address.getField("city")).isEqualTo("city-" + i);
                assertThat(address.getField("zip")).isEqualTo(i % 2 == 0 ? null : 10_000 + i);
                // Metadata columns.
                assertThat(r.getField("_pulsar_sequence_id")).isEqualTo((long) i);
                assertThat(r.getField("_pulsar_producer")).isEqualTo("p1");
                assertThat(r.getField("_pulsar_publish_time"))
                        .isEqualTo(OffsetDateTime.ofInstant(Instant.ofEpochMilli(publishTimes.get(i)), ZoneOffset.UTC));
                assertThat(r.getField("_pulsar_partition")).isNull();
                assertThat(r.getField("_pulsar_ledger_id")).isEqualTo(-1L);
            }
            // Non-batched messages keep key, properties and batch index -1; batched ones their event time.
            assertThat(rows.get(0).getField("_pulsar_key")).isEqualTo("k0");
            assertThat(rows.get(0).getField("_pulsar_properties")).isEqualTo(Map.of("i", "0"));
            assertThat(rows.get(0).getField("_pulsar_batch_index")).isEqualTo(-1);
            assertThat(rows.get(1).getField("_pulsar_batch_index")).isEqualTo(0);
            assertThat(rows.get(1).getField("_pulsar_event_time")).isNotNull();
            assertThat(rows.get(0).getField("_pulsar_event_time")).isNull();

            Snapshot s = table.currentSnapshot();
            assertThat(s.summary()).containsEntry(CommitSummary.OFFSET_PREFIX + stream.id(), "" + entries.size());
            m.close();
        }
    }
}
