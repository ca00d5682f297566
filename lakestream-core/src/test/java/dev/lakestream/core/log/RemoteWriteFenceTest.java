package dev.lakestream.core.log;

import dev.lakestream.core.metadata.MetadataStore;
import dev.lakestream.core.metadata.oxia.OxiaMetadataStore;
import dev.lakestream.core.metadata.oxia.OxiaMetadataStoreConfig;
import dev.lakestream.testkit.OxiaServerExtension;
import dev.lakestream.testkit.S3ProxyExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Permanent write fences on S3Proxy and the real Oxia server; the "Ursa" process is a second Oxia client. */
class RemoteWriteFenceTest extends WriteFenceTest {

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

    @Override
    protected MetadataStore secondMetadataClient(LakestreamLogTest.Stores stores) {
        return OxiaMetadataStore.open(OxiaMetadataStoreConfig.of(OXIA.serviceAddress()));
    }
}
