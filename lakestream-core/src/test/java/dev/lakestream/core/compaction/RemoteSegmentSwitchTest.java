package dev.lakestream.core.compaction;

import dev.lakestream.core.log.LakestreamLogTest;
import dev.lakestream.core.log.RemoteTestStores;
import dev.lakestream.core.metadata.oxia.OxiaMetadataStore;
import dev.lakestream.core.metadata.oxia.OxiaMetadataStoreConfig;
import dev.lakestream.testkit.OxiaServerExtension;
import dev.lakestream.testkit.S3ProxyExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Segment switches on real servers, S3Proxy and Oxia; among others this proves that Oxia keeps a key's creation time
 * across the switch's overwrite, which the time index relies on.
 */
class RemoteSegmentSwitchTest extends SegmentSwitchTest {

    @RegisterExtension
    static final S3ProxyExtension S3 = new S3ProxyExtension();

    @RegisterExtension
    static final OxiaServerExtension OXIA = new OxiaServerExtension();

    @Override
    protected LakestreamLogTest.Stores openStores() {
        return new LakestreamLogTest.Stores(
                RemoteTestStores.freshBucket(S3),
                OxiaMetadataStore.open(OxiaMetadataStoreConfig.of(OXIA.serviceAddress())));
    }
}
