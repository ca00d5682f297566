package dev.lakestream.handler.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class TopicEnablementTest {

    @Test
    void theTopicPropertyWinsOverTheNamespacesWhichWinsOverTheDefault() {
        assertThat(TopicEnablement.decide(null, null, false, "t")).isFalse();
        assertThat(TopicEnablement.decide(null, null, true, "t")).isTrue();
        assertThat(TopicEnablement.decide(null, "enabled", false, "t")).isTrue();
        assertThat(TopicEnablement.decide(null, "disabled", true, "t")).isFalse();
        assertThat(TopicEnablement.decide("enabled", "disabled", false, "t")).isTrue();
        assertThat(TopicEnablement.decide("disabled", "enabled", true, "t")).isFalse();
        assertThat(TopicEnablement.decide(" Enabled ", null, false, "t")).isTrue();
    }

    @Test
    void aValueThatIsNeitherNamesThePropertyAndTheTopic() {
        assertThatThrownBy(() -> TopicEnablement.decide("yes please", null, false, "persistent://a/b/c"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("topic property lakestream.iceberg of persistent://a/b/c is 'yes please'");
        assertThatThrownBy(() -> TopicEnablement.decide(null, "on", false, "persistent://a/b/c"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("namespace property lakestream.iceberg");
    }
}
