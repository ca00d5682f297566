package dev.lakestream.core.catalog;

import dev.lakestream.core.log.NonClosingMetadataStore;
import dev.lakestream.core.metadata.MetadataStore;
import dev.lakestream.core.metadata.embedded.EmbeddedMetadataStore;
import dev.lakestream.core.metadata.embedded.EmbeddedMetadataStoreConfig;

/** Stream ids on the embedded store: version ids count across the whole store. */
class EmbeddedStreamIdsTest extends StreamIdsTest {

    @Override
    protected MetadataStore openMetadata() {
        return EmbeddedMetadataStore.open(EmbeddedMetadataStoreConfig.of(dir.resolve("metadata")));
    }

    /** The embedded store is single-process: "another process" shares the same store instance. */
    @Override
    protected MetadataStore secondClient(MetadataStore first) {
        return new NonClosingMetadataStore(first);
    }
}
