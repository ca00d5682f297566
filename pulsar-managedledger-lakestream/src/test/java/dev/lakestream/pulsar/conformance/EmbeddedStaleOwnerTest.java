package dev.lakestream.pulsar.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lakestream.core.Lakestream;
import dev.lakestream.core.log.HeldCommitsMetadataStore;
import dev.lakestream.core.log.NonClosingMetadataStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.bookkeeper.mledger.Entry;
import org.apache.bookkeeper.mledger.ManagedCursor;
import org.apache.bookkeeper.mledger.ManagedLedger;
import org.apache.bookkeeper.mledger.ManagedLedgerException;
import org.apache.bookkeeper.mledger.ManagedLedgerFactory;
import org.apache.bookkeeper.mledger.Position;
import org.apache.pulsar.common.api.proto.CommandSubscribe.InitialPosition;
import org.apache.pulsar.common.api.proto.MessageMetadata;
import org.apache.pulsar.common.protocol.Commands;
import org.apache.pulsar.common.protocol.Markers;
import org.junit.jupiter.api.Test;

/**
 * A broker that lost its topic while frozen between its epoch check and its commit (docs/layout.md §5, seals): the
 * commit lands after the new owner took the topic over. Its add must fail (never acknowledged), and its position must
 * read as a server-only marker, which Pulsar's dispatcher acknowledges without delivering, so with deduplication on the
 * producer's resend to the new owner is the only copy consumers see. The new owner's next add lands past that entry:
 * its ledger fences, and opened again (after a clean close: at once) writes on.
 */
class EmbeddedStaleOwnerTest extends ManagedLedgerConformanceTest {

    @Override
    protected Stores openStores(Path scratch) {
        return EmbeddedStores.open(scratch);
    }

    @Test
    void aStaleOwnersLateAddFailsAndItsPositionReadsAsAServerOnlyMarker() throws Exception {
        HeldCommitsMetadataStore held = new HeldCommitsMetadataStore(new NonClosingMetadataStore(stores.metadata()));
        Lakestream staleLog = Lakestream.open(stores.objects(), held, LOG_CONFIG);
        ManagedLedgerFactory staleFactory = newFactory(staleLog);
        try {
            ManagedLedger stale = staleFactory.open(name, config());
            addEntries(stale, "a", 1);
            held.hold();
            CompletableFuture<Position> late = addAsync(stale, bytes("late"));
            held.firstHeld().get(10, TimeUnit.SECONDS);

            ManagedLedger owner = open();
            addEntries(owner, "b", 1);
            held.letGo();
            assertThatThrownBy(() -> late.get(WAIT.toSeconds(), TimeUnit.SECONDS))
                    .hasMessageContaining("void");
            // The owner's next add lands past the void entry: its ledger, which predicted the offset, fences (the
            // broker closes the topic and opens it again). The add is stored but not acknowledged, as any add of a
            // fenced ledger may be; a producer's resend is dropped by deduplication after the reopen.
            CompletableFuture<Position> next = addAsync(owner, bytes("c-0"));
            assertThatThrownBy(() -> next.get(WAIT.toSeconds(), TimeUnit.SECONDS))
                    .hasCauseInstanceOf(ManagedLedgerException.ManagedLedgerFencedException.class);
            owner.close();
            long reopening = System.nanoTime();
            owner = open();
            assertThat(System.nanoTime() - reopening)
                    .as("a reopen after a clean close does not wait the seal delay")
                    .isLessThan(TimeUnit.SECONDS.toNanos(2));
            addEntries(owner, "d", 1);

            ManagedCursor cursor = owner.openCursor("c", InitialPosition.Earliest);
            List<Entry> entries = cursor.readEntries(10);
            List<String> seen = new ArrayList<>();
            try {
                for (Entry e : entries) {
                    String text = new String(e.getData(), StandardCharsets.UTF_8);
                    if (text.startsWith("a-")
                            || text.startsWith("b-")
                            || text.startsWith("c-")
                            || text.startsWith("d-")) {
                        seen.add(text);
                        continue;
                    }
                    MessageMetadata md = Commands.parseMessageMetadata(e.getDataBuffer());
                    assertThat(Markers.isServerOnlyMarker(md)).isTrue();
                    assertThat(md.getProducerName()).isEqualTo("lakestream-void");
                    seen.add("marker");
                }
            } finally {
                entries.forEach(Entry::release);
            }
            assertThat(seen).containsExactly("a-0", "b-0", "marker", "c-0", "d-0");
        } finally {
            quietly(() -> staleFactory.shutdownAsync().get(20, TimeUnit.SECONDS));
            quietly(staleLog::close);
        }
    }
}
