package dev.lakestream.handler;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An admin request that sets or removes the storage class of a namespace or a persistent topic, recognised from its
 * method, path and body. Pure: no broker access, so that every path form is unit-tested.
 *
 * <p>Recognised (v2 and v1 paths): {@code POST|DELETE .../namespaces/<ns>/persistence},
 * {@code POST|DELETE .../persistent/<ns>/<topic>/persistence} (also what {@code topicPolicies set-persistence} sends)
 * and {@code PUT .../namespaces/<ns>} (namespace creation with policies).
 *
 * @param scope          what the policy applies to
 * @param namespace      {@code tenant/ns} (v1: {@code property/cluster/ns})
 * @param topic          the topic's encoded local name (as in the URL and in managed-ledger names); null for a namespace
 * @param storageClass   the class named in the body; null when the request names none (removal, or no field)
 * @param namesClass     whether the body carries the field at all (a removal or a body without it does not)
 * @param changesStorage whether the request can move existing topics (set or remove a persistence policy; a namespace
 *                       creation cannot: the namespace holds no topic yet)
 * @param removal        whether the request removes the policy (the next level's policy then applies: the
 *                       namespace's for a topic, the broker's default for a namespace)
 */
public record PersistenceChange(
        Scope scope,
        String namespace,
        String topic,
        String storageClass,
        boolean namesClass,
        boolean changesStorage,
        boolean removal) {

    /** The body field of Pulsar's {@code PersistencePolicies}. */
    public static final String FIELD = "managedLedgerStorageClassName";

    public enum Scope {
        NAMESPACE,
        TOPIC
    }

    private static final String SEG = "([^/]+)";
    private static final Pattern NS_V2 = Pattern.compile("/admin/v2/namespaces/" + SEG + "/" + SEG + "/persistence/?");
    private static final Pattern NS_V1 =
            Pattern.compile("/admin/namespaces/" + SEG + "/" + SEG + "/" + SEG + "/persistence/?");
    private static final Pattern TOPIC_V2 =
            Pattern.compile("/admin/v2/persistent/" + SEG + "/" + SEG + "/" + SEG + "/persistence/?");
    private static final Pattern TOPIC_V1 =
            Pattern.compile("/admin/persistent/" + SEG + "/" + SEG + "/" + SEG + "/" + SEG + "/persistence/?");
    private static final Pattern CREATE_NS_V2 = Pattern.compile("/admin/v2/namespaces/" + SEG + "/" + SEG + "/?");

    /** The namespace or topic in Pulsar's words, for messages. */
    public String target() {
        return scope == Scope.NAMESPACE ? "namespace " + namespace : "topic persistent://" + namespace + "/" + topic;
    }

    /**
     * The change a request makes, or empty when it is not one of the recognised requests. {@code body} is read only
     * for recognised requests.
     *
     * @throws IllegalArgumentException the body of a recognised request is not JSON, or the field is not a string
     */
    public static Optional<PersistenceChange> parse(String method, String path, BodySource body, ObjectMapper json)
            throws IOException {
        String m = method == null ? "" : method.toUpperCase(Locale.ROOT);
        boolean set = m.equals("POST");
        boolean remove = m.equals("DELETE");
        if (set || remove) {
            Matcher x = NS_V2.matcher(path);
            if (x.matches()) {
                return Optional.of(of(Scope.NAMESPACE, x.group(1) + "/" + x.group(2), null, set, body, json, false));
            }
            x = NS_V1.matcher(path);
            if (x.matches()) {
                return Optional.of(of(
                        Scope.NAMESPACE,
                        x.group(1) + "/" + x.group(2) + "/" + x.group(3),
                        null,
                        set,
                        body,
                        json,
                        false));
            }
            x = TOPIC_V2.matcher(path);
            if (x.matches()) {
                return Optional.of(of(Scope.TOPIC, x.group(1) + "/" + x.group(2), x.group(3), set, body, json, false));
            }
            x = TOPIC_V1.matcher(path);
            if (x.matches()) {
                return Optional.of(of(
                        Scope.TOPIC,
                        x.group(1) + "/" + x.group(2) + "/" + x.group(3),
                        x.group(4),
                        set,
                        body,
                        json,
                        false));
            }
        }
        if (m.equals("PUT")) {
            Matcher x = CREATE_NS_V2.matcher(path);
            if (x.matches()) {
                return Optional.of(of(Scope.NAMESPACE, x.group(1) + "/" + x.group(2), null, true, body, json, true));
            }
        }
        return Optional.empty();
    }

    private static PersistenceChange of(
            Scope scope, String ns, String topic, boolean set, BodySource body, ObjectMapper json, boolean creation)
            throws IOException {
        if (!set) {
            return new PersistenceChange(scope, ns, topic, null, false, true, true);
        }
        byte[] bytes = body.read();
        if (bytes == null || bytes.length == 0) {
            return new PersistenceChange(scope, ns, topic, null, false, !creation, false);
        }
        JsonNode root;
        try {
            root = json.readTree(bytes);
        } catch (IOException e) {
            throw new IllegalArgumentException("the body is not JSON: " + e.getMessage(), e);
        }
        // Namespace creation carries whole Policies, the persistence policy under "persistence".
        JsonNode policies = creation ? root == null ? null : root.get("persistence") : root;
        JsonNode field = policies == null || !policies.isObject() ? null : policies.get(FIELD);
        if (field == null || field.isNull()) {
            return new PersistenceChange(scope, ns, topic, null, false, !creation, false);
        }
        if (!field.isTextual()) {
            throw new IllegalArgumentException(FIELD + " must be a string, not " + field);
        }
        return new PersistenceChange(scope, ns, topic, field.asText(), true, !creation, false);
    }

    /** The request body, read only when needed. */
    @FunctionalInterface
    public interface BodySource {
        byte[] read() throws IOException;
    }
}
