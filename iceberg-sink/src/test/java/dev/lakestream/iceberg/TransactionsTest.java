package dev.lakestream.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lakestream.core.StreamLog;
import dev.lakestream.iceberg.pulsar.PulsarEntries;
import dev.lakestream.iceberg.pulsar.PulsarEntries.Msg;
import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.pulsar.common.api.proto.CompressionType;
import org.apache.pulsar.common.protocol.Markers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Pulsar transactions: messages of an aborted transaction never become rows, those of a committed one do, and the
 * materializer waits at the first message of a transaction that is still open (it does not skip past it, and it does
 * not commit offsets beyond it), on the entries the broker writes: transactional messages carrying the transaction's
 * id, then the broker's commit or abort marker.
 */
class TransactionsTest {

    @TempDir
    Path dir;

    private static ByteBuf plain(String v) {
        return PulsarEntries.single(
                "p",
                1_764_000_000_000L,
                null,
                CompressionType.NONE,
                new Msg(null, Map.of(), 0, 0, v.getBytes(StandardCharsets.UTF_8)),
                false);
    }

    private static ByteBuf txn(long least, String v) {
        return PulsarEntries.inTransaction(1, least, 0, v.getBytes(StandardCharsets.UTF_8));
    }

    private static List<String> values(Table table) {
        return Fixture.rows(table).stream()
                .map(r -> StandardCharsets.UTF_8
                        .decode(((ByteBuffer) r.getField("value")).duplicate())
                        .toString())
                .toList();
    }

    @Test
    void abortedTransactionsNeverBecomeRowsAndOpenOnesAreWaitedFor() throws Exception {
        try (Fixture f = new Fixture(dir)) {
            TopicRef topic = TopicRef.parse("persistent://public/default/transactions");
            StreamLog stream = f.stream(topic);
            Catalog catalog = f.catalog();
            Fixture.append(
                    stream,
                    List.of(
                            plain("a"),
                            txn(1, "t1-first"), // aborted below
                            txn(2, "t2"), // committed below
                            plain("b"),
                            txn(1, "t1-second"),
                            Markers.newTxnAbortMarker(-1, 1, 1),
                            Markers.newTxnCommitMarker(-1, 1, 2),
                            txn(3, "t3"), // still open
                            plain("c")));
            long firstOfOpen = 7;

            TopicMaterializer m = f.materializer(topic, stream, catalog, Fixture.eager(), DeadLetters.log());
            m.open();
            Fixture.drain(m);
            Fixture.drain(m);
            Table table = catalog.loadTable(TableNames.of(topic));
            assertThat(values(table)).as("rows while t3 is open").containsExactly("a", "t2", "b");
            assertThat(m.status().committedOffset())
                    .as("committed offset: the first entry of the open t3")
                    .isEqualTo(firstOfOpen);
            m.close();

            // t3 commits; a new materializer (as after a restart) continues from the table and takes it in.
            Fixture.append(
                    stream,
                    List.of(
                            Markers.newTxnCommitMarker(-1, 1, 3),
                            plain("d"),
                            txn(4, "t4"),
                            Markers.newTxnAbortMarker(-1, 1, 4),
                            plain("e")));
            TopicMaterializer again = f.materializer(topic, stream, catalog, Fixture.eager(), DeadLetters.log());
            again.open();
            Fixture.drain(again);
            assertThat(values(table)).containsExactly("a", "t2", "b", "t3", "c", "d", "e");
            assertThat(again.status().committedOffset())
                    .isEqualTo(stream.endOffset().join());
            again.close();
        }
    }
}
