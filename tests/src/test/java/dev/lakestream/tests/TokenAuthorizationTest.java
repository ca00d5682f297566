package dev.lakestream.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jsonwebtoken.SignatureAlgorithm;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import javax.crypto.SecretKey;
import org.apache.pulsar.broker.authentication.utils.AuthTokenUtils;
import org.apache.pulsar.client.admin.PulsarAdmin;
import org.apache.pulsar.client.api.AuthenticationFactory;
import org.apache.pulsar.client.api.Consumer;
import org.apache.pulsar.client.api.Message;
import org.apache.pulsar.client.api.Producer;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.PulsarClientException;
import org.apache.pulsar.client.api.SubscriptionInitialPosition;
import org.apache.pulsar.common.policies.data.AuthAction;
import org.apache.pulsar.common.policies.data.TenantInfo;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Pulsar's own token authentication and authorization on a namespace stored by Lakestream: a broker with
 * {@code authenticationEnabled}, {@code AuthenticationProviderToken} (a secret key made by the test) and
 * {@code authorizationEnabled}. A client without a token, or whose role has no produce permission, is refused; one
 * whose role was granted produce may publish, and what it published is stored and readable by a role allowed to
 * consume.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class TokenAuthorizationTest {

    private static final SecretKey KEY = AuthTokenUtils.createSecretKey(SignatureAlgorithm.HS256);
    private static final String ADMIN_TOKEN = AuthTokenUtils.createToken(KEY, "admin", Optional.empty());
    private static final String NAMESPACE = "secured/orders";
    private static final String TOPIC = "persistent://" + NAMESPACE + "/payments";

    @RegisterExtension
    static final PulsarBrokerExtension BROKER = PulsarBrokerExtension.embedded()
            .config("authenticationEnabled", "true")
            .config("authenticationProviders", "org.apache.pulsar.broker.authentication.AuthenticationProviderToken")
            .config("tokenSecretKey", "data:;base64," + AuthTokenUtils.encodeKeyBase64(KEY))
            .config("authorizationEnabled", "true")
            .config("superUserRoles", "admin")
            // The broker's own clients (system topics, transactions, the plugin's services) act as the super user.
            .config("brokerClientAuthenticationPlugin", "org.apache.pulsar.client.impl.auth.AuthenticationToken")
            .config("brokerClientAuthenticationParameters", "token:" + ADMIN_TOKEN);

    @BeforeAll
    static void securedNamespace() throws Exception {
        try (PulsarAdmin admin = admin()) {
            admin.tenants()
                    .createTenant(
                            "secured",
                            TenantInfo.builder()
                                    .adminRoles(Set.of("admin"))
                                    .allowedClusters(Set.copyOf(admin.clusters().getClusters()))
                                    .build());
            admin.namespaces().createNamespace(NAMESPACE);
            admin.namespaces().grantPermissionOnNamespace(NAMESPACE, "writer", EnumSet.of(AuthAction.produce));
            admin.namespaces().grantPermissionOnNamespace(NAMESPACE, "reader", EnumSet.of(AuthAction.consume));
            admin.topics().createNonPartitionedTopic(TOPIC);
        }
    }

    @Test
    void aClientWithoutATokenIsNotAuthenticated() throws Exception {
        try (PulsarClient anonymous = PulsarClient.builder()
                .serviceUrl(BROKER.brokerServiceUrl())
                .operationTimeout(10, TimeUnit.SECONDS)
                .build()) {
            assertThatThrownBy(() -> anonymous.newProducer().topic(TOPIC).create())
                    .isInstanceOf(PulsarClientException.AuthenticationException.class);
        }
    }

    @Test
    void aRoleWithoutProducePermissionIsRefusedAndOneWithItPublishes() throws Exception {
        try (PulsarClient stranger = client("stranger");
                PulsarClient reader = client("reader");
                PulsarClient writer = client("writer")) {
            assertThatThrownBy(() -> stranger.newProducer().topic(TOPIC).create())
                    .isInstanceOf(PulsarClientException.AuthorizationException.class);
            // Consume permission is not produce permission.
            assertThatThrownBy(() -> reader.newProducer().topic(TOPIC).create())
                    .isInstanceOf(PulsarClientException.AuthorizationException.class);

            try (Consumer<byte[]> consumer = reader.newConsumer()
                            .topic(TOPIC)
                            .subscriptionName("audit")
                            .subscriptionInitialPosition(SubscriptionInitialPosition.Earliest)
                            .subscribe();
                    Producer<byte[]> producer =
                            writer.newProducer().topic(TOPIC).create()) {
                producer.send("paid 42".getBytes(StandardCharsets.UTF_8));
                Message<byte[]> m = consumer.receive(30, TimeUnit.SECONDS);
                assertThat(m).as("the writer's message, read by the reader").isNotNull();
                assertThat(new String(m.getValue(), StandardCharsets.UTF_8)).isEqualTo("paid 42");
                consumer.acknowledge(m);
            }
            // The writer may not consume.
            assertThatThrownBy(() -> writer.newConsumer()
                            .topic(TOPIC)
                            .subscriptionName("sneak")
                            .subscribe())
                    .isInstanceOf(PulsarClientException.AuthorizationException.class);
        }
        try (PulsarAdmin admin = admin()) {
            // Exactly the writer's one message was stored: the refused producers wrote nothing.
            assertThat(admin.topics().getInternalStats(TOPIC).entriesAddedCounter)
                    .isEqualTo(1);
        }
    }

    private static PulsarClient client(String role) throws PulsarClientException {
        return PulsarClient.builder()
                .serviceUrl(BROKER.brokerServiceUrl())
                .authentication(AuthenticationFactory.token(AuthTokenUtils.createToken(KEY, role, Optional.empty())))
                .operationTimeout(10, TimeUnit.SECONDS)
                .build();
    }

    private static PulsarAdmin admin() throws PulsarClientException {
        return PulsarAdmin.builder()
                .serviceHttpUrl(BROKER.webServiceUrl())
                .authentication(AuthenticationFactory.token(ADMIN_TOKEN))
                .build();
    }
}
