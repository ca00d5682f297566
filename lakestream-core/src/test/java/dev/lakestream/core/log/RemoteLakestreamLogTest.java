package dev.lakestream.core.log;

import dev.lakestream.core.metadata.MetadataStore;
import dev.lakestream.core.metadata.oxia.OxiaMetadataStore;
import dev.lakestream.core.metadata.oxia.OxiaMetadataStoreConfig;
import dev.lakestream.core.objectstore.s3.S3ObjectStore;
import dev.lakestream.testkit.OxiaServerExtension;
import dev.lakestream.testkit.S3ProxyExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The log on real servers: S3Proxy and the Oxia server; a second writer is a second Oxia client. */
class RemoteLakestreamLogTest extends LakestreamLogTest {

    @RegisterExtension
    static final S3ProxyExtension S3 = new S3ProxyExtension();

    @RegisterExtension
    static final OxiaServerExtension OXIA = new OxiaServerExtension();

    @Override
    protected Stores openStores() {
        S3ObjectStore objects = RemoteTestStores.freshBucket(S3);
        return new Stores(objects, OxiaMetadataStore.open(OxiaMetadataStoreConfig.of(OXIA.serviceAddress())));
    }

    @Override
    protected MetadataStore secondMetadataClient(Stores stores) {
        return OxiaMetadataStore.open(OxiaMetadataStoreConfig.of(OXIA.serviceAddress()));
    }
}
