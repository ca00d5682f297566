package dev.lakestream.core.trim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lakestream.core.metadata.MetadataStore;
import dev.lakestream.core.metadata.embedded.EmbeddedMetadataStore;
import dev.lakestream.core.metadata.embedded.EmbeddedMetadataStoreConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RetentionHoldsTest {

    @TempDir
    Path dir;

    @Test
    void theFloorIsTheLowestHoldOfTheStreamAndOnlyOfIt() {
        try (MetadataStore store = EmbeddedMetadataStore.open(EmbeddedMetadataStoreConfig.of(dir.resolve("md")))) {
            RetentionHolds holds = new RetentionHolds(store, "/lakestream");
            assertThat(holds.floor(7).join()).isEmpty();
            holds.hold(7, "iceberg", 120).join();
            holds.hold(7, "other", 80).join();
            holds.hold(70, "iceberg", 5).join(); // another stream whose id shares the prefix "7"
            assertThat(holds.floor(7).join()).isEqualTo(OptionalLong.of(80));
            assertThat(holds.get(7, "iceberg").join()).isEqualTo(OptionalLong.of(120));
            assertThat(new String(
                            store.get("/lakestream/retention-holds/7/iceberg")
                                    .join()
                                    .orElseThrow()
                                    .value(),
                            StandardCharsets.UTF_8))
                    .isEqualTo("120");

            holds.hold(7, "other", 200).join(); // a holder moves its own hold, up or down
            assertThat(holds.floor(7).join()).isEqualTo(OptionalLong.of(120));
            assertThat(holds.release(7, "iceberg").join()).isTrue();
            assertThat(holds.floor(7).join()).isEqualTo(OptionalLong.of(200));
            holds.releaseAll(7).join();
            assertThat(holds.floor(7).join()).isEmpty();
            assertThat(holds.floor(70).join()).isEqualTo(OptionalLong.of(5));
        }
    }

    @Test
    void badHoldsAreRefusedNamingWhatIsWrong() {
        try (MetadataStore store = EmbeddedMetadataStore.open(EmbeddedMetadataStoreConfig.of(dir.resolve("md")))) {
            RetentionHolds holds = new RetentionHolds(store, "/lakestream");
            assertThatThrownBy(() -> holds.hold(1, "a/b", 3)).hasMessageContaining("holder 'a/b'");
            assertThatThrownBy(() -> holds.hold(1, "x", -1)).hasMessageContaining("negative offset -1");
        }
    }
}
