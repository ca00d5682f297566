package dev.lakestream.core.log;

import dev.lakestream.core.metadata.oxia.OxiaMetadataStore;
import dev.lakestream.core.metadata.oxia.OxiaMetadataStoreConfig;
import dev.lakestream.core.objectstore.s3.S3ObjectStore;
import dev.lakestream.testkit.OxiaServerExtension;
import dev.lakestream.testkit.S3ProxyExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Read completeness on real servers, S3Proxy and Oxia: the budgets that matter, not the whole sweep. */
class RemoteStreamReadCompletenessTest extends StreamReadCompletenessTest {

    @RegisterExtension
    static final S3ProxyExtension S3 = new S3ProxyExtension();

    @RegisterExtension
    static final OxiaServerExtension OXIA = new OxiaServerExtension();

    @Override
    protected LakestreamLogTest.Stores openStores() {
        S3ObjectStore objects = RemoteTestStores.freshBucket(S3);
        return new LakestreamLogTest.Stores(
                objects, OxiaMetadataStore.open(OxiaMetadataStoreConfig.of(OXIA.serviceAddress())));
    }

    @Override
    protected long[] byteBudgets() {
        return new long[] {1, 500_000, 1 << 20, 16 << 20};
    }

    @Override
    protected int[] entryBudgets() {
        return new int[] {1, 100};
    }
}
