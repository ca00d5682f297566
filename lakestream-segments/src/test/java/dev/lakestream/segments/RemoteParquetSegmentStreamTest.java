package dev.lakestream.segments;

import dev.lakestream.core.log.LakestreamLogTest;
import dev.lakestream.core.log.RemoteTestStores;
import dev.lakestream.core.metadata.oxia.OxiaMetadataStore;
import dev.lakestream.core.metadata.oxia.OxiaMetadataStoreConfig;
import dev.lakestream.testkit.OxiaServerExtension;
import dev.lakestream.testkit.S3ProxyExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Parquet segments in a stream on real servers: S3Proxy (ranged GETs over HTTP) and Oxia. */
class RemoteParquetSegmentStreamTest extends ParquetSegmentStreamTest {

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
