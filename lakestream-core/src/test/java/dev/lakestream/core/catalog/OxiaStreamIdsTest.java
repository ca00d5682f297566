package dev.lakestream.core.catalog;

import dev.lakestream.core.metadata.MetadataStore;
import dev.lakestream.core.metadata.oxia.OxiaMetadataStore;
import dev.lakestream.core.metadata.oxia.OxiaMetadataStoreConfig;
import dev.lakestream.testkit.OxiaServerExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Stream ids on the real Oxia server, one shard (version ids count across it); a second client is a second process. */
class OxiaStreamIdsTest extends StreamIdsTest {

    @RegisterExtension
    static final OxiaServerExtension OXIA = new OxiaServerExtension();

    @Override
    protected MetadataStore openMetadata() {
        return OxiaMetadataStore.open(OxiaMetadataStoreConfig.of(OXIA.serviceAddress()));
    }

    @Override
    protected MetadataStore secondClient(MetadataStore first) {
        return OxiaMetadataStore.open(OxiaMetadataStoreConfig.of(OXIA.serviceAddress()));
    }
}
