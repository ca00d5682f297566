package dev.lakestream.pulsar.compaction;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.bookkeeper.mledger.ManagedCursor;
import org.apache.bookkeeper.mledger.ManagedLedger;

/** What compaction needs of a topic: its managed ledger and its {@code __compaction} durable cursor. */
interface CompactionTopic {

    /** The name of the compaction cursor (Pulsar's {@code Compactor.COMPACTION_SUBSCRIPTION}). */
    String CURSOR = "__compaction";

    /** The topic's managed ledger; fails naming the topic when it is not loaded or not on Lakestream. */
    CompletableFuture<ManagedLedger> ledger();

    /** The {@code __compaction} cursor if the topic has one (nothing was ever compacted otherwise). */
    CompletableFuture<Optional<ManagedCursor>> existingCursor();

    /** The {@code __compaction} cursor, created at the earliest position if absent. */
    CompletableFuture<ManagedCursor> cursor();
}
