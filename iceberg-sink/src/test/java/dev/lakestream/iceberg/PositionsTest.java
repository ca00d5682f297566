package dev.lakestream.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lakestream.core.StreamLog;
import dev.lakestream.pulsar.common.ManagedLedgerRecord;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.List;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.pulsar.common.api.proto.MessageMetadata;
import org.apache.pulsar.common.protocol.Commands;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Pulsar positions from the managed-ledger record; entries that hold no message still advance the offsets. */
class PositionsTest {

    @TempDir
    java.nio.file.Path dir;

    private static ManagedLedgerRecord.LedgerEntry ledger(long id, long firstOffset) {
        ManagedLedgerRecord.LedgerEntry l = new ManagedLedgerRecord.LedgerEntry();
        l.id = id;
        l.firstOffset = firstOffset;
        return l;
    }

    @Test
    void rowsCarryTheirLedgerAndEntryIds() throws Exception {
        try (Fixture f = new Fixture(dir)) {
            TopicRef topic = TopicRef.parse("persistent://public/default/positions");
            StreamLog stream = f.stream(topic);
            ManagedLedgerRecord record = new ManagedLedgerRecord();
            record.name = "public/default/persistent/positions";
            record.streamId = stream.id();
            record.ledgers.add(ledger(40, 0));
            record.ledgers.add(ledger(57, 3));
            record.save(f.metadata, Fixture.ROOT).join();
            Fixture.append(stream, ExactlyOnceTest.entries(0, 5));

            var catalog = f.catalog();
            TopicMaterializer m = f.materializer(topic, stream, catalog, Fixture.eager(), DeadLetters.log());
            m.open();
            Fixture.drain(m);
            List<Record> rows = Fixture.rows(catalog.loadTable(TableNames.of(topic)));
            assertThat(rows)
                    .extracting(r -> r.getField("_pulsar_ledger_id") + ":" + r.getField("_pulsar_entry_id") + ":"
                            + r.getField("_pulsar_batch_index"))
                    .containsExactly(
                            "40:0:0", "40:0:1", "40:0:2", "40:1:0", "40:1:1", "40:1:2", "40:2:0", "40:2:1", "40:2:2",
                            "57:0:0", "57:0:1", "57:0:2", "57:1:0", "57:1:1", "57:1:2");

            // A transaction marker holds no message: committed as an offset range without data files.
            MessageMetadata md = new MessageMetadata()
                    .setProducerName("tc")
                    .setPublishTime(1)
                    .setSequenceId(0)
                    .setMarkerType(20);
            ByteBuf marker = Commands.serializeMetadataAndPayload(Commands.ChecksumType.Crc32c, md, Unpooled.buffer());
            Fixture.append(stream, List.of(marker));
            Fixture.drain(m);
            assertThat(m.status().committedOffset()).isEqualTo(6);
            Table table = catalog.loadTable(TableNames.of(topic));
            assertThat(table.currentSnapshot().summary()).containsEntry(CommitSummary.RANGE, stream.id() + ":5-6");
            assertThat(Fixture.rows(table)).hasSize(15);
            m.close();
        }
    }
}
