package dev.lakestream.core.gc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lakestream.core.Lakestream;
import dev.lakestream.core.StreamLog;
import dev.lakestream.core.index.OffsetIndex;
import dev.lakestream.core.log.RemoteTestStores;
import dev.lakestream.core.metadata.oxia.OxiaMetadataStore;
import dev.lakestream.core.metadata.oxia.OxiaMetadataStoreConfig;
import dev.lakestream.core.objectstore.s3.S3ObjectStore;
import dev.lakestream.testkit.OxiaServerExtension;
import dev.lakestream.testkit.S3ProxyExtension;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The GC service on S3Proxy and the Oxia server; here two processes are two Oxia clients (two sessions), and one
 * of them dies in the middle of a run.
 */
class RemoteGcServiceTest extends GcServiceTest {

    @RegisterExtension
    static final S3ProxyExtension S3 = new S3ProxyExtension();

    @RegisterExtension
    static final OxiaServerExtension OXIA = new OxiaServerExtension();

    @Override
    protected Stores openStores() {
        S3ObjectStore objects = RemoteTestStores.freshBucket(S3);
        return new Stores(objects, session());
    }

    private static OxiaMetadataStore session() {
        return OxiaMetadataStore.open(OxiaMetadataStoreConfig.of(OXIA.serviceAddress()));
    }

    @Test
    void whenTheLeaseHolderDiesMidRunTheOtherProcessTakesOverAndFinishes() {
        Lakestream writer = log(stores.objects(), stores.metadata());
        StreamLog b = create(writer, "b");
        int backlog = 30;
        for (int i = 0; i < backlog; i++) {
            append(b, "old-" + i);
        }
        awaitNextSecond(newestObject());
        long keep = b.endOffset().join();
        append(b, "new-0");
        append(b, "new-1");
        b.trim(keep).join();
        List<String> stillReferenced = new OffsetIndex(stores.metadata())
                .recordsFrom(b.id(), 0, 100).join().stream()
                        .map(r -> r.value().location())
                        .toList();
        Map<String, Long> before = objectSizes(stores.objects());
        assertThat(before).hasSize(backlog + 2);

        // Two broker processes: each its own Oxia session and Lakestream on the shared bucket.
        OxiaMetadataStore session1 = session();
        OxiaMetadataStore session2 = closeLater(session());
        GcConfig slow = GC.withMaxDeletesPerSecond(10);
        GcService first = gc(log(stores.objects(), session1), slow);
        await("the first process to take the lease")
                .atMost(Duration.ofSeconds(30))
                .until(() -> first.status().leaseHeld());
        GcService second = gc(log(stores.objects(), session2), slow);
        await("the first process to delete 5 objects")
                .atMost(Duration.ofSeconds(30))
                .until(() -> first.status().deletedObjects() >= 5);
        assertThat(second.status().leaseHeld()).isFalse();
        assertThat(second.status().deletedObjects()).isZero();

        // The holder dies: its session ends, and with it the ephemeral lease.
        session1.close();
        await("the second process to finish a run")
                .atMost(Duration.ofSeconds(30))
                .until(() -> second.status().lastResult().isPresent());
        long deletedByFirst = first.status().deletedObjects();
        assertThat(deletedByFirst).isLessThan(backlog);
        assertThat(first.status().leaseHeld()).isFalse();
        assertThat(first.status().failedRuns()).isPositive();
        assertThat(second.status().leaseHeld()).isTrue();
        assertThat(second.status().deletedObjects()).isPositive();

        Map<String, Long> after = objectSizes(stores.objects());
        assertThat(after.keySet()).containsExactlyInAnyOrderElementsOf(stillReferenced);
        // Deletes in flight when the first died may be repeated by the second: at least everything, at most a batch
        // twice.
        assertThat(deletedByFirst + second.status().deletedObjects())
                .isBetween((long) backlog, (long) backlog + slow.deleteBatchSize());
        assertThat(readAll(log(stores.objects(), stores.metadata()).stream(b.id()), keep))
                .containsExactly("new-0", "new-1");
    }
}
