package dev.lakestream.pulsar.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lakestream.pulsar.InitialHolds;
import dev.lakestream.pulsar.LakestreamManagedLedgerFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.bookkeeper.mledger.AsyncCallbacks;
import org.apache.bookkeeper.mledger.ManagedCursor;
import org.apache.bookkeeper.mledger.ManagedLedger;
import org.apache.bookkeeper.mledger.ManagedLedgerConfig;
import org.apache.bookkeeper.mledger.ManagedLedgerException;
import org.apache.bookkeeper.mledger.ManagedLedgerInfo;
import org.apache.bookkeeper.mledger.Position;
import org.apache.pulsar.common.api.proto.CommandSubscribe.InitialPosition;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** Retention and trimming, termination, ledger properties, deletion, ledger info, the broker metadata contract. */
public abstract class LifecycleConformanceTest extends ManagedLedgerConformanceTest {

    private static Map<Long, List<Position>> byLedger(List<Position> ps) {
        Map<Long, List<Position>> out = new LinkedHashMap<>();
        for (Position p : ps) {
            out.computeIfAbsent(p.getLedgerId(), k -> new ArrayList<>()).add(p);
        }
        return out;
    }

    private static void trim(ManagedLedger ml) throws Exception {
        CompletableFuture<Void> done = new CompletableFuture<>();
        ml.trimConsumedLedgersInBackground(done);
        await(done);
    }

    private static Set<Long> ledgerIds(ManagedLedger ml) {
        return ml.getLedgersInfo().keySet();
    }

    // ------------------------------------------------------------------ trimming and retention

    @Test
    void trimRemovesConsumedLedgersAndKeepsUnconsumedOnes() throws Exception {
        ManagedLedger ml = open(config().setMaxEntriesPerLedger(2)); // retention: none (0 / 0)
        ManagedCursor c = ml.openCursor("c", InitialPosition.Earliest);
        List<Position> ps = addEntries(ml, "e", 10);
        List<Long> ledgers = new ArrayList<>(byLedger(ps).keySet());
        assertThat(ledgers).hasSize(5);

        c.markDelete(ps.get(5)); // the first three ledgers are consumed
        trim(ml);

        assertThat(ledgerIds(ml)).doesNotContain(ledgers.get(0), ledgers.get(1));
        assertThat(ledgerIds(ml)).contains(ledgers.get(3), ledgers.get(4));
        assertThat(ml.getNumberOfEntries()).isBetween(4L, 6L);
        assertThat(ml.getFirstPosition().getLedgerId()).isGreaterThanOrEqualTo(ledgers.get(2));
        assertThat(texts(readAll(c))).isEqualTo(names("e", 6, 10));
        ManagedCursor late = ml.newNonDurableCursor(org.apache.bookkeeper.mledger.PositionFactory.EARLIEST);
        assertThat(texts(readAll(late))).endsWith("e-6", "e-7", "e-8", "e-9").doesNotContain("e-0", "e-3");
    }

    @Test
    void aRetentionHoldKeepsEntriesNoSubscriptionNeedsUntilItMoves() throws Exception {
        // Retention 0 and no cursor: without the hold every full ledger would go (the Iceberg materializer's case).
        ManagedLedger ml = open(config().setMaxEntriesPerLedger(2));
        List<Position> ps = addEntries(ml, "e", 10);
        List<Long> ledgers = new ArrayList<>(byLedger(ps).keySet());
        long stream = log.catalog()
                .lookup(LakestreamManagedLedgerFactory.NAMESPACE, name)
                .join()
                .orElseThrow()
                .id();

        log.retentionHolds().hold(stream, "iceberg", 0).join(); // nothing in the table yet
        trim(ml);
        assertThat(ledgerIds(ml)).containsAll(ledgers);
        assertThat(ml.getNumberOfEntries()).isEqualTo(10);

        log.retentionHolds().hold(stream, "iceberg", 6).join(); // offsets below 6 committed to the table
        trim(ml);
        assertThat(ledgerIds(ml))
                .doesNotContain(ledgers.get(0), ledgers.get(1), ledgers.get(2))
                .contains(ledgers.get(3), ledgers.get(4));
        assertThat(log.stream(stream).startOffset().join()).isEqualTo(6);
        assertThat(ml.getNumberOfEntries()).isEqualTo(4);

        log.retentionHolds().release(stream, "iceberg").join(); // materialization disabled: retention as usual
        trim(ml);
        assertThat(ledgerIds(ml)).doesNotContain(ledgers.get(3));
        assertThat(log.retentionHolds().floor(stream).join()).isEmpty();
    }

    @Test
    void initialHoldsHoldANewLedgerFromItsFirstEntryAndOnlyAtItsFirstOpen() throws Exception {
        // The broker plugin's materializer finds a new topic only at its next topic check: until then retention 0
        // without a cursor would trim every full ledger of it, entries it never read.
        List<String> asked = new ArrayList<>();
        InitialHolds holds = (ledger, properties) -> {
            asked.add(ledger);
            return CompletableFuture.completedFuture(
                    "disabled".equals(properties.get("materialize")) ? Set.of() : Set.of("iceberg"));
        };
        ((LakestreamManagedLedgerFactory) factory).setInitialHolds(holds);
        ManagedLedger ml = open(withProperties(config().setMaxEntriesPerLedger(2), Map.of("materialize", "yes")));
        long stream = streamId(name);
        assertThat(log.retentionHolds().get(stream, "iceberg").join())
                .as("the hold of a new ledger, before its first entry")
                .hasValue(0);
        List<Position> ps = addEntries(ml, "e", 10);
        trim(ml);
        assertThat(ledgerIds(ml)).containsAll(byLedger(ps).keySet());
        assertThat(ml.getNumberOfEntries()).isEqualTo(10);

        // Its holder moves it; a later open of the same ledger does not put it back.
        log.retentionHolds().hold(stream, "iceberg", 6).join();
        ml.close();
        ((LakestreamManagedLedgerFactory) restart()).setInitialHolds(holds);
        ManagedLedger again = factory.open(name, config().setMaxEntriesPerLedger(2));
        assertThat(log.retentionHolds().get(stream, "iceberg").join()).hasValue(6);
        assertThat(asked).as("ledgers the factories asked about").containsExactly(name);

        // A ledger its holder says no to gets no hold; a factory set back to NONE asks nobody.
        String off = name + "-off";
        factory.open(off, withProperties(config(), Map.of("materialize", "disabled")));
        assertThat(log.retentionHolds().floor(streamId(off)).join()).isEmpty();
        ((LakestreamManagedLedgerFactory) factory).setInitialHolds(InitialHolds.NONE);
        factory.open(name + "-none", config());
        assertThat(log.retentionHolds().floor(streamId(name + "-none")).join()).isEmpty();
        assertThat(asked).containsExactly(name, off);
        again.close();
    }

    private static ManagedLedgerConfig withProperties(ManagedLedgerConfig c, Map<String, String> properties) {
        c.setProperties(properties);
        return c;
    }

    private long streamId(String ledger) {
        return log.catalog()
                .lookup(LakestreamManagedLedgerFactory.NAMESPACE, ledger)
                .join()
                .orElseThrow()
                .id();
    }

    @Test
    void theSlowestCursorHoldsLedgersBack() throws Exception {
        ManagedLedger ml = open(config().setMaxEntriesPerLedger(2));
        ManagedCursor fast = ml.openCursor("fast", InitialPosition.Earliest);
        ManagedCursor slow = ml.openCursor("slow", InitialPosition.Earliest);
        List<Position> ps = addEntries(ml, "e", 8);
        List<Long> ledgers = new ArrayList<>(byLedger(ps).keySet());
        fast.markDelete(ps.get(7));
        slow.markDelete(ps.get(0));
        trim(ml);
        assertThat(ledgerIds(ml)).containsAll(ledgers);
        assertThat(ml.getNumberOfEntries()).isEqualTo(8);

        slow.markDelete(ps.get(4));
        trim(ml);
        assertThat(ledgerIds(ml)).doesNotContain(ledgers.get(0), ledgers.get(1));
        assertThat(ledgerIds(ml)).contains(ledgers.get(3));
    }

    @Test
    void retentionTimeKeepsConsumedLedgersUntilTheyExpire() throws Exception {
        ManagedLedgerConfig cfg = config().setMaxEntriesPerLedger(2)
                .setRetentionTime(5, TimeUnit.SECONDS)
                .setRetentionSizeInMB(-1);
        ManagedLedger ml = open(cfg);
        ManagedCursor c = ml.openCursor("c", InitialPosition.Earliest);
        List<Position> ps = addEntries(ml, "e", 10);
        List<Long> ledgers = new ArrayList<>(byLedger(ps).keySet());
        c.markDelete(ps.get(5));

        trim(ml);
        assertThat(ledgerIds(ml)).as("consumed but within the retention time").containsAll(ledgers);
        assertThat(ml.getNumberOfEntries()).isEqualTo(10);

        Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(20))
                .ignoreExceptions()
                .untilAsserted(() -> {
                    trim(ml);
                    assertThat(ledgerIds(ml)).doesNotContain(ledgers.get(0), ledgers.get(1));
                });
        assertThat(ledgerIds(ml)).contains(ledgers.get(3), ledgers.get(4));
        assertThat(texts(readAll(c))).isEqualTo(names("e", 6, 10));
    }

    @Test
    void retentionSizeKeepsTheNewestConsumedLedgersWithinTheQuota() throws Exception {
        ManagedLedgerConfig cfg = config().setMaxEntriesPerLedger(2)
                .setRetentionTime(-1, TimeUnit.SECONDS)
                .setRetentionSizeInMB(1);
        ManagedLedger ml = open(cfg);
        ManagedCursor c = ml.openCursor("c", InitialPosition.Earliest);
        byte[] payload = new byte[100_000];
        List<Position> ps = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            payload[0] = (byte) i;
            ps.add(ml.addEntry(payload));
        }
        List<Long> ledgers = new ArrayList<>(byLedger(ps).keySet());
        assertThat(ledgers).hasSize(10);
        assertThat(ml.getTotalSize()).isEqualTo(2_000_000L);

        c.markDelete(ps.get(15)); // ledgers 1..8 consumed (1.6 MB), 9..10 not
        trim(ml);

        // 2 MB in total against a 1 MiB quota: the oldest consumed ledgers go until the rest fits.
        assertThat(ledgerIds(ml)).doesNotContain(ledgers.get(0), ledgers.get(1), ledgers.get(2), ledgers.get(3));
        assertThat(ledgerIds(ml)).containsAll(ledgers.subList(5, 10));
        assertThat(ml.getTotalSize()).isLessThanOrEqualTo(1L << 20).isGreaterThanOrEqualTo(1_000_000L);
    }

    @Test
    void theTotalSizeSurvivesRestartsAndCrashes() throws Exception {
        ManagedLedgerConfig cfg = config().setMaxEntriesPerLedger(4);
        ManagedLedger ml = open(cfg);
        byte[] payload = new byte[100_000];
        for (int i = 0; i < 10; i++) {
            ml.addEntry(payload);
        }
        assertThat(ml.getTotalSize()).isEqualTo(1_000_000L);

        // The ledger open at the stop has no stored size; the next owner measures it (and keeps it when it closes it).
        ml = restart().open(name, cfg);
        assertThat(ml.getTotalSize()).as("after a restart").isEqualTo(1_000_000L);
        ml.addEntry(payload);
        ml.addEntry(payload);
        assertThat(ml.getTotalSize()).isEqualTo(1_200_000L);
        ml = crash().open(name, cfg);
        assertThat(ml.getTotalSize()).as("after a crash").isEqualTo(1_200_000L);
        ml = restart().open(name, cfg);
        assertThat(ml.getTotalSize()).as("after a second restart").isEqualTo(1_200_000L);
        ml.openCursor("backlog", InitialPosition.Earliest);
        assertThat(ml.getEstimatedBacklogSize())
                .as("backlog of a cursor at the start")
                .isEqualTo(1_200_000L);
    }

    @Test
    void trimWithoutConsumptionKeepsEverything() throws Exception {
        ManagedLedger ml = open(config().setMaxEntriesPerLedger(2));
        ManagedCursor c = ml.openCursor("c", InitialPosition.Earliest);
        List<Position> ps = addEntries(ml, "e", 6);
        trim(ml);
        assertThat(ledgerIds(ml)).containsAll(byLedger(ps).keySet());
        assertThat(texts(readAll(c))).isEqualTo(names("e", 0, 6));
    }

    @Test
    void trimmingEveryEntryKeepsTheStartAcrossAReopenThoughUrsasMarkerStopsAtTheLastRecord() throws Exception {
        ManagedLedgerConfig cfg = config().setMaxEntriesPerLedger(2); // retention: none (0 / 0)
        ManagedLedger ml = open(cfg);
        ManagedCursor c = ml.openCursor("c", InitialPosition.Earliest);
        List<Position> ps = addEntries(ml, "e", 4);
        ml.rollCurrentLedgerIfFull(); // an empty open ledger after the full ones, at offset 4
        Awaitility.await()
                .atMost(WAIT)
                .pollInterval(Duration.ofMillis(20))
                .ignoreExceptions()
                .untilAsserted(() -> assertThat(ledgerIds(ml)).hasSize(3));
        c.markDelete(ps.get(3)); // everything consumed
        trim(ml); // up to the open ledger: the stream's end, past the start of its last record

        long stream = log.catalog()
                .lookup(LakestreamManagedLedgerFactory.NAMESPACE, name)
                .join()
                .orElseThrow()
                .id();
        long lastRecordStart = new dev.lakestream.core.index.OffsetIndex(stores.metadata())
                .last(stream)
                .join()
                .orElseThrow()
                .startOffset();
        assertThat(lastRecordStart).isEqualTo(3);
        assertThat(stores.metadata()
                        .get(
                                dev.lakestream.core.trim.StreamTrimmer.markerKey(stream),
                                dev.lakestream.core.metadata.GetOptions.DEFAULT.partitionKey(Long.toString(stream)))
                        .join()
                        .map(r -> new String(r.value(), java.nio.charset.StandardCharsets.UTF_8)))
                .as("Ursa's marker, clamped to the start of the last record")
                .hasValue("3");
        assertThat(ml.getNumberOfEntries()).isZero();
        Position first = ml.getFirstPosition();
        long size = ml.getTotalSize();
        assertThat(ledgerIds(ml)).hasSize(1);

        // Reopening rolls to a new ledger (the empty one open at the stop is replaced), so the first position's ledger
        // id changes; what must not change is that it is the start of that ledger and that nothing trimmed is back.
        ManagedLedger reopened = restart().open(name, cfg);
        assertThat(reopened.getNumberOfEntries()).as("after a restart").isZero();
        Position firstAfter = reopened.getFirstPosition();
        assertThat(firstAfter.getEntryId()).isEqualTo(first.getEntryId());
        assertThat(ledgerIds(reopened)).containsExactly(firstAfter.getLedgerId());
        assertThat(reopened.getTotalSize()).isEqualTo(size);
        ManagedCursor again = reopened.openCursor("c", InitialPosition.Earliest);
        assertThat(again.getNumberOfEntriesInBacklog(true)).isZero();
        ManagedCursor late = reopened.openCursor("late", InitialPosition.Earliest);
        assertThat(late.getNumberOfEntriesInBacklog(true))
                .as("nothing trimmed comes back")
                .isZero();
        Position added = reopened.addEntry(bytes("after"));
        assertThat(added.getLedgerId()).isEqualTo(firstAfter.getLedgerId());
        assertThat(reopened.getNumberOfEntries()).isEqualTo(1);
        assertThat(texts(readAll(late))).containsExactly("after");
        assertThat(log.stream(stream).startOffset().join()).isEqualTo(4);
    }

    // ------------------------------------------------------------------ termination

    @Test
    void terminateRejectsAddsAndReadersSeeTheEnd() throws Exception {
        ManagedLedger ml = open();
        ManagedCursor c = ml.openCursor("c", InitialPosition.Earliest);
        List<Position> ps = addEntries(ml, "e", 2);
        assertThat(ml.isTerminated()).isFalse();

        Position last = ml.terminate();
        assertPos(last, ps.get(1));
        assertThat(ml.isTerminated()).isTrue();
        assertThatThrownBy(() -> ml.addEntry(bytes("late")))
                .isInstanceOf(ManagedLedgerException.ManagedLedgerTerminatedException.class);
        assertThatThrownBy(() -> await(addAsync(ml, bytes("late-async"))))
                .isInstanceOf(ManagedLedgerException.ManagedLedgerTerminatedException.class);
        assertPos(ml.getLastConfirmedEntry(), ps.get(1));

        assertThat(texts(drain(c.readEntries(10)))).containsExactly("e-0", "e-1");
        assertThat(c.readEntries(10))
                .as("a plain read at the end returns nothing")
                .isEmpty();
        assertThat(c.hasMoreEntries()).isFalse();
        assertThatThrownBy(() -> c.readEntriesOrWait(10))
                .isInstanceOf(ManagedLedgerException.NoMoreEntriesToReadException.class);
    }

    @Test
    void terminatedLedgerStaysTerminatedAfterReopen() throws Exception {
        ManagedLedger ml = open();
        List<Position> ps = addEntries(ml, "e", 3);
        CompletableFuture<Position> terminated = new CompletableFuture<>();
        ml.asyncTerminate(
                new AsyncCallbacks.TerminateCallback() {
                    @Override
                    public void terminateComplete(Position lastCommittedPosition, Object ctx) {
                        terminated.complete(lastCommittedPosition);
                    }

                    @Override
                    public void terminateFailed(ManagedLedgerException exception, Object ctx) {
                        terminated.completeExceptionally(exception);
                    }
                },
                null);
        assertPos(await(terminated), ps.get(2));
        ml.close();

        ManagedLedger again = open();
        assertThat(again.isTerminated()).isTrue();
        assertThatThrownBy(() -> again.addEntry(bytes("late")))
                .isInstanceOf(ManagedLedgerException.ManagedLedgerTerminatedException.class);

        restart();
        ManagedLedger afterRestart = open();
        assertThat(afterRestart.isTerminated()).isTrue();
        assertPos(afterRestart.getLastConfirmedEntry(), ps.get(2));
        ManagedCursor c = afterRestart.openCursor("c", InitialPosition.Earliest);
        assertThat(texts(readAll(c))).isEqualTo(names("e", 0, 3));
        assertThatThrownBy(() -> c.readEntriesOrWait(1))
                .isInstanceOf(ManagedLedgerException.NoMoreEntriesToReadException.class);
    }

    // ------------------------------------------------------------------ properties

    private static CompletableFuture<Map<String, String>> propertiesFuture(
            java.util.function.Consumer<AsyncCallbacks.UpdatePropertiesCallback> op) {
        CompletableFuture<Map<String, String>> f = new CompletableFuture<>();
        op.accept(new AsyncCallbacks.UpdatePropertiesCallback() {
            @Override
            public void updatePropertiesComplete(Map<String, String> properties, Object ctx) {
                f.complete(new HashMap<>(properties));
            }

            @Override
            public void updatePropertiesFailed(ManagedLedgerException exception, Object ctx) {
                f.completeExceptionally(exception);
            }
        });
        return f;
    }

    @Test
    void propertiesCanBeSetAndDeletedAndSurviveAReopen() throws Exception {
        ManagedLedger ml = open();
        ml.setProperty("a", "1");
        assertThat(ml.getProperties()).containsEntry("a", "1");

        Map<String, String> afterB = await(propertiesFuture(cb -> ml.asyncSetProperty("b", "2", cb, null)));
        assertThat(afterB).containsEntry("a", "1").containsEntry("b", "2");

        ml.setProperties(Map.of("a", "10", "c", "3"));
        assertThat(ml.getProperties()).containsEntry("a", "10").containsEntry("c", "3");

        ml.deleteProperty("c");
        assertThat(ml.getProperties()).doesNotContainKey("c");
        Map<String, String> afterDelete = await(propertiesFuture(cb -> ml.asyncDeleteProperty("b", cb, null)));
        assertThat(afterDelete).doesNotContainKey("b").containsEntry("a", "10");

        Map<String, String> snapshot = new HashMap<>(ml.getProperties());
        assertThat(await(factory.getManagedLedgerPropertiesAsync(name))).isEqualTo(snapshot);

        ml.close();
        assertThat(open().getProperties()).isEqualTo(snapshot);
        restart();
        assertThat(open().getProperties()).isEqualTo(snapshot);
        assertThat(await(factory.getManagedLedgerPropertiesAsync(name))).isEqualTo(snapshot);
    }

    @Test
    void configPropertiesInitializeANewLedger() throws Exception {
        ManagedLedgerConfig cfg = config();
        cfg.setProperties(Map.of("origin", "config"));
        ManagedLedger ml = open(cfg);
        assertThat(ml.getProperties()).containsEntry("origin", "config");
        ml.close();
        assertThat(open().getProperties()).containsEntry("origin", "config");
    }

    // ------------------------------------------------------------------ deletion and existence

    @Test
    void existsReportsCreatedLedgersOnly() throws Exception {
        assertThat(await(factory.asyncExists(name))).isFalse();
        ManagedLedger ml = open();
        ml.addEntry(bytes("x"));
        assertThat(await(factory.asyncExists(name))).isTrue();
        ml.close();
        assertThat(await(factory.asyncExists(name))).isTrue();
    }

    @Test
    void factoryDeleteThenReopenGivesAnEmptyLedger() throws Exception {
        ManagedLedger ml = open();
        ManagedCursor c = ml.openCursor("c", InitialPosition.Earliest);
        addEntries(ml, "old", 3);
        c.markDelete(ml.getLastConfirmedEntry());
        ml.setProperty("k", "v");
        ml.close();

        factory.delete(name);
        assertThat(await(factory.asyncExists(name))).isFalse();

        ManagedLedger fresh = open();
        assertThat(fresh.getNumberOfEntries()).isZero();
        assertThat(fresh.getTotalSize()).isZero();
        assertThat(fresh.getCursors()).isEmpty();
        assertThat(fresh.getProperties()).doesNotContainKey("k");
        ManagedCursor again = fresh.openCursor("c", InitialPosition.Earliest);
        assertThat(again.readEntries(10)).isEmpty();
        fresh.addEntry(bytes("new"));
        assertThat(texts(readAll(again))).containsExactly("new");
    }

    /**
     * Deleting a managed ledger that does not exist fails with {@code MetadataNotFoundException}, as Pulsar's factory
     * does: the broker deletes a topic's pending-ack ledgers (one per subscription, usually never created) and
     * treats exactly that exception as "nothing to delete"; any other failed the topic's deletion.
     */
    @Test
    void deletingAMissingLedgerFailsWithMetadataNotFound() throws Exception {
        assertThatThrownBy(() -> factory.delete(name))
                .isInstanceOf(ManagedLedgerException.MetadataNotFoundException.class)
                .hasMessageContaining(name);
        CompletableFuture<Void> done = new CompletableFuture<>();
        factory.asyncDelete(
                name,
                new AsyncCallbacks.DeleteLedgerCallback() {
                    @Override
                    public void deleteLedgerComplete(Object ctx) {
                        done.complete(null);
                    }

                    @Override
                    public void deleteLedgerFailed(ManagedLedgerException exception, Object ctx) {
                        done.completeExceptionally(exception);
                    }
                },
                null);
        assertThat(done)
                .failsWithin(Duration.ofSeconds(30))
                .withThrowableOfType(java.util.concurrent.ExecutionException.class)
                .withCauseInstanceOf(ManagedLedgerException.MetadataNotFoundException.class);
    }

    @Test
    void deletingAnOpenLedgerRemovesIt() throws Exception {
        ManagedLedger ml = open();
        ml.openCursor("c");
        addEntries(ml, "e", 2);
        ml.delete();
        assertThat(await(factory.asyncExists(name))).isFalse();
        assertThat(factory.getManagedLedgers()).doesNotContainKey(name);
        assertThatThrownBy(() -> ml.addEntry(bytes("late"))).isInstanceOf(ManagedLedgerException.class);

        ManagedLedger fresh = open();
        assertThat(fresh).isNotSameAs(ml);
        assertThat(fresh.getNumberOfEntries()).isZero();
    }

    @Test
    void factoryDeleteOfAnOpenLedger() throws Exception {
        ManagedLedger ml = open();
        addEntries(ml, "e", 2);
        CompletableFuture<Void> deleted = new CompletableFuture<>();
        factory.asyncDelete(
                name,
                new AsyncCallbacks.DeleteLedgerCallback() {
                    @Override
                    public void deleteLedgerComplete(Object ctx) {
                        deleted.complete(null);
                    }

                    @Override
                    public void deleteLedgerFailed(ManagedLedgerException exception, Object ctx) {
                        deleted.completeExceptionally(exception);
                    }
                },
                null);
        await(deleted);
        assertThat(await(factory.asyncExists(name))).isFalse();
        assertThat(open().getNumberOfEntries()).isZero();
    }

    // ------------------------------------------------------------------ info

    @Test
    void managedLedgerInfoDescribesLedgersCursorsAndProperties() throws Exception {
        ManagedLedger ml = open(config().setMaxEntriesPerLedger(2));
        ManagedCursor c = ml.openCursor("sub", InitialPosition.Earliest);
        List<Position> ps = addEntries(ml, "e", 5);
        c.markDelete(ps.get(1));
        ml.setProperty("k", "v");
        ml.close();

        ManagedLedgerInfo info = factory.getManagedLedgerInfo(name);
        List<Long> ids = info.ledgers.stream().map(l -> l.ledgerId).toList();
        assertThat(ids).containsAll(byLedger(ps).keySet());
        assertThat(ids).isSorted();
        Map<Long, List<Position>> expected = byLedger(ps);
        for (ManagedLedgerInfo.LedgerInfo l : info.ledgers) {
            if (l.entries != null && expected.containsKey(l.ledgerId)) {
                // (Pulsar leaves the count of the last ledger unset until it is recovered; set counts must be exact.)
                assertThat(l.entries).as("entries of ledger %s", l.ledgerId).isEqualTo((long)
                        expected.get(l.ledgerId).size());
            }
        }
        assertThat(info.ledgers.get(0).entries)
                .as("a closed ledger has its count")
                .isEqualTo(2L);
        assertThat(info.cursors).containsKey("sub");
        ManagedLedgerInfo.CursorInfo ci = info.cursors.get("sub");
        assertThat(ci.markDelete).isNotNull();
        assertThat(ci.markDelete.ledgerId).isEqualTo(ps.get(1).getLedgerId());
        assertThat(ci.markDelete.entryId).isEqualTo(ps.get(1).getEntryId());
        assertThat(info.properties).containsEntry("k", "v");
        assertThat(info.terminatedPosition).isNull();
    }

    // ------------------------------------------------------------------ broker metadata contract

    private String node() {
        return "/managed-ledgers/" + name;
    }

    private String namespaceNode() {
        return node().substring(0, node().lastIndexOf('/'));
    }

    private String localName() {
        return name.substring(name.lastIndexOf('/') + 1);
    }

    @Test
    void brokerMetadataNodeExistsExactlyWhileTheLedgerExists() throws Exception {
        assertThat(await(brokerStore.exists(node()))).isFalse();
        ManagedLedger ml = open();
        assertThat(await(brokerStore.exists(node())))
                .as("%s after open", node())
                .isTrue();
        ml.openCursor("c");
        addEntries(ml, "e", 3);
        assertThat(await(brokerStore.getChildren(namespaceNode())))
                .as("only the topic itself under the namespace's persistent domain")
                .containsExactly(localName());

        ml.delete();
        Awaitility.await()
                .atMost(WAIT)
                .pollInterval(Duration.ofMillis(20))
                .ignoreExceptions()
                .untilAsserted(() -> assertThat(await(brokerStore.exists(node())))
                        .as("%s after delete", node())
                        .isFalse());
    }

    @Test
    void brokerMetadataNodeIsRemovedByFactoryDelete() throws Exception {
        ManagedLedger ml = open();
        addEntries(ml, "e", 1);
        ml.close();
        assertThat(await(brokerStore.exists(node()))).isTrue();
        factory.delete(name);
        Awaitility.await()
                .atMost(WAIT)
                .pollInterval(Duration.ofMillis(20))
                .ignoreExceptions()
                .untilAsserted(
                        () -> assertThat(await(brokerStore.exists(node()))).isFalse());
    }

    @Test
    void anEmptyPreCreatedMetadataNodeMeansAnEmptyTopic() throws Exception {
        // Partitioned-topic creation writes zero-byte placeholders before any managed ledger exists.
        await(brokerStore.put(node(), new byte[0], Optional.of(-1L)));
        assertThat(await(factory.asyncExists(name))).isTrue();

        ManagedLedger ml = open();
        assertThat(ml.getNumberOfEntries()).isZero();
        assertThat(ml.getCursors()).isEmpty();
        ManagedCursor c = ml.openCursor("c", InitialPosition.Earliest);
        ml.addEntry(bytes("first"));
        assertThat(texts(readAll(c))).containsExactly("first");
        assertThat(await(brokerStore.exists(node()))).isTrue();
    }
}
