package dev.lakestream.pulsar;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The retention holds a managed ledger's stream starts with: placed at offset 0 at the ledger's first open, before
 * its first entry can be written. A reader that is not a cursor (the broker plugin's Iceberg materializer) finds its
 * topics only by looking at the broker now and then; without a hold from the start, retention (with no subscription
 * and no retention time) could trim a new topic's first entries before that reader placed its own hold. The reader
 * moves or releases its hold later through {@link dev.lakestream.core.trim.RetentionHolds}.
 */
@FunctionalInterface
public interface InitialHolds {

    /** No initial holds: the factory's default. */
    InitialHolds NONE = (managedLedger, properties) -> CompletableFuture.completedFuture(Set.of());

    /**
     * The holder names whose holds the new stream gets. Called on the open's thread: it must not block.
     *
     * @param managedLedger the managed ledger's name ({@code tenant/namespace/persistent/topic})
     * @param properties the managed ledger's properties at creation (the topic's properties), never null
     */
    CompletableFuture<Set<String>> holders(String managedLedger, Map<String, String> properties);
}
