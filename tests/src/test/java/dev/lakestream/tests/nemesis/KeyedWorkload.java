package dev.lakestream.tests.nemesis;

import dev.lakestream.tests.KeyedTraffic;
import org.apache.pulsar.client.api.SubscriptionType;

/**
 * One keyed topic of a nemesis run and what may be asked of it: {@code dedup} (nothing stored twice, per-key order);
 * {@code retained} (everything is kept, so a reader at the end must find every acknowledged message; a trimmed topic
 * is judged by what its subscription received only).
 */
record KeyedWorkload(KeyedTraffic traffic, boolean dedup, boolean retained) {

    /** Per-key order holds for one consumer of any subscription type but Shared (which gives no order). */
    boolean ordered() {
        return dedup && traffic.subscriptionType() != SubscriptionType.Shared;
    }
}
