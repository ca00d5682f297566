package dev.lakestream.handler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class PersistenceChangeTest {

    private final ObjectMapper json = new ObjectMapper();

    private Optional<PersistenceChange> parse(String method, String path, String body) throws Exception {
        return PersistenceChange.parse(
                method, path, () -> body == null ? null : body.getBytes(StandardCharsets.UTF_8), json);
    }

    private static final String POLICY = "{\"bookkeeperEnsemble\":1,\"bookkeeperWriteQuorum\":1,"
            + "\"bookkeeperAckQuorum\":1,\"managedLedgerMaxMarkDeleteRate\":0.0,"
            + "\"managedLedgerStorageClassName\":\"lakestream\"}";

    @Test
    void namespacePolicyV2AndV1() throws Exception {
        PersistenceChange c =
                parse("POST", "/admin/v2/namespaces/t/ns/persistence", POLICY).orElseThrow();
        assertThat(c.scope()).isEqualTo(PersistenceChange.Scope.NAMESPACE);
        assertThat(c.namespace()).isEqualTo("t/ns");
        assertThat(c.topic()).isNull();
        assertThat(c.storageClass()).isEqualTo("lakestream");
        assertThat(c.namesClass()).isTrue();
        assertThat(c.changesStorage()).isTrue();
        assertThat(c.target()).isEqualTo("namespace t/ns");

        PersistenceChange v1 =
                parse("POST", "/admin/namespaces/p/c/ns/persistence", POLICY).orElseThrow();
        assertThat(v1.namespace()).isEqualTo("p/c/ns");
    }

    @Test
    void topicPolicyV2AndV1() throws Exception {
        PersistenceChange c = parse("POST", "/admin/v2/persistent/t/ns/my%20topic/persistence", POLICY)
                .orElseThrow();
        assertThat(c.scope()).isEqualTo(PersistenceChange.Scope.TOPIC);
        assertThat(c.namespace()).isEqualTo("t/ns");
        assertThat(c.topic()).isEqualTo("my%20topic");
        assertThat(c.target()).isEqualTo("topic persistent://t/ns/my%20topic");

        PersistenceChange v1 =
                parse("POST", "/admin/persistent/p/c/ns/x/persistence", POLICY).orElseThrow();
        assertThat(v1.namespace()).isEqualTo("p/c/ns");
        assertThat(v1.topic()).isEqualTo("x");
    }

    @Test
    void removalAndPoliciesWithoutAClassMoveToTheDefault() throws Exception {
        PersistenceChange removal =
                parse("DELETE", "/admin/v2/namespaces/t/ns/persistence", null).orElseThrow();
        assertThat(removal.namesClass()).isFalse();
        assertThat(removal.storageClass()).isNull();
        assertThat(removal.changesStorage()).isTrue();
        assertThat(removal.removal()).isTrue();

        PersistenceChange quorumsOnly = parse(
                        "POST", "/admin/v2/namespaces/t/ns/persistence", "{\"bookkeeperEnsemble\":2}")
                .orElseThrow();
        assertThat(quorumsOnly.namesClass()).isFalse();
        assertThat(quorumsOnly.changesStorage()).isTrue();
        assertThat(quorumsOnly.removal()).isFalse();
    }

    @Test
    void namespaceCreationIsCheckedForTheNameOnly() throws Exception {
        PersistenceChange c = parse(
                        "PUT",
                        "/admin/v2/namespaces/t/ns",
                        "{\"persistence\":" + POLICY.replace("lakestream", "nope") + "}")
                .orElseThrow();
        assertThat(c.storageClass()).isEqualTo("nope");
        assertThat(c.changesStorage()).isFalse();
        assertThat(parse("PUT", "/admin/v2/namespaces/t/ns", null).orElseThrow().namesClass())
                .isFalse();
    }

    @Test
    void otherRequestsAreNotRecognisedAndTheirBodyIsNotRead() throws Exception {
        PersistenceChange.BodySource fails = () -> {
            throw new AssertionError("body read");
        };
        assertThat(PersistenceChange.parse("GET", "/admin/v2/namespaces/t/ns/persistence", fails, json))
                .isEmpty();
        assertThat(PersistenceChange.parse("POST", "/admin/v2/namespaces/t/ns/retention", fails, json))
                .isEmpty();
        assertThat(PersistenceChange.parse("POST", "/admin/v2/non-persistent/t/ns/x/persistence", fails, json))
                .isEmpty();
        assertThat(PersistenceChange.parse("PUT", "/admin/v2/persistent/t/ns/x", fails, json))
                .isEmpty();
    }

    @Test
    void aMalformedBodyIsReported() {
        assertThatThrownBy(() -> parse("POST", "/admin/v2/namespaces/t/ns/persistence", "{nope"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not JSON");
        assertThatThrownBy(() ->
                        parse("POST", "/admin/v2/namespaces/t/ns/persistence", "{\"managedLedgerStorageClassName\":3}"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must be a string");
    }
}
