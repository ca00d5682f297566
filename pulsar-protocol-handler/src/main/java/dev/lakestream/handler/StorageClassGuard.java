package dev.lakestream.handler;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lakestream.pulsar.common.BrokerNode;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import org.apache.pulsar.broker.PulsarService;
import org.apache.pulsar.broker.intercept.BrokerInterceptor;
import org.apache.pulsar.broker.service.ServerCnx;
import org.apache.pulsar.broker.storage.ManagedLedgerStorage;
import org.apache.pulsar.broker.storage.ManagedLedgerStorageClass;
import org.apache.pulsar.broker.web.RequestWrapper;
import org.apache.pulsar.common.api.proto.BaseCommand;
import org.apache.pulsar.common.intercept.InterceptException;
import org.apache.pulsar.common.naming.NamespaceName;
import org.apache.pulsar.common.policies.data.PersistencePolicies;
import org.apache.pulsar.common.policies.data.Policies;
import org.apache.pulsar.common.util.Codec;
import org.apache.pulsar.common.util.ObjectMapperFactory;
import org.apache.pulsar.metadata.api.GetResult;
import org.apache.pulsar.metadata.api.MetadataStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks persistence policies when they are set, which Pulsar 5.0.1 does not do for the storage class (it checks only
 * the quorums, and a wrong class name surfaces later, when a topic fails to load):
 *
 * <ul>
 *   <li><b>412</b> when the request names a storage class this broker's storage does not offer; the message names it
 *       and the classes on offer;</li>
 *   <li><b>409</b> when setting (or removing) the policy would move topics that already hold data to another storage,
 *       where they would silently reopen empty; the message lists those topics and where their data is.</li>
 * </ul>
 *
 * A broker interceptor, loaded from a NAR ({@code brokerInterceptorsDirectory}, {@code brokerInterceptors=lakestream});
 * it sees every admin request before Pulsar's REST resources do. Requests it does not recognise (see
 * {@link PersistenceChange}) pass untouched. It runs on the web server's request thread, never on a Netty event loop,
 * and waits at most {@value #METADATA_TIMEOUT_SECONDS} s for the metadata store.
 */
public class StorageClassGuard implements BrokerInterceptor {

    private static final Logger LOG = LoggerFactory.getLogger(StorageClassGuard.class);

    static final String MANAGED_LEDGERS = "/managed-ledgers/";
    static final int METADATA_TIMEOUT_SECONDS = 30;
    /** HTTP 412, as Pulsar answers other invalid persistence policies. */
    static final int PRECONDITION_FAILED = 412;

    static final int CONFLICT = 409;

    private final ObjectMapper json = ObjectMapperFactory.getMapper().getObjectMapper();
    private volatile PulsarService pulsar;

    @Override
    public void initialize(PulsarService pulsar) {
        this.pulsar = pulsar;
        LOG.info(
                "Lakestream storage-class guard installed: persistence policies are checked against the storage"
                        + " classes {} (default '{}')",
                knownClasses(),
                defaultClass());
    }

    @Override
    public void onWebserviceRequest(ServletRequest request) throws IOException, InterceptException {
        if (!(request instanceof HttpServletRequest http) || pulsar == null) {
            return;
        }
        Optional<PersistenceChange> change;
        try {
            change = PersistenceChange.parse(http.getMethod(), http.getRequestURI(), () -> body(request), json);
        } catch (IllegalArgumentException e) {
            throw new InterceptException(400, "Invalid persistence policies: " + e.getMessage());
        }
        if (change.isPresent()) {
            check(change.get());
        }
    }

    /** Throws the answer to a change that must be refused. */
    void check(PersistenceChange c) throws InterceptException {
        List<String> known = knownClasses();
        if (c.namesClass() && !known.contains(c.storageClass())) {
            throw new InterceptException(
                    PRECONDITION_FAILED,
                    "Unknown managed-ledger storage class '"
                            + c.storageClass() + "' for " + c.target() + ": this broker's storage offers " + known
                            + " (default '" + defaultClass() + "'); leave the storage class out for the default");
        }
        if (!c.changesStorage()) {
            return;
        }
        String target = targetClass(c);
        SortedMap<String, String> elsewhere = ledgersNotIn(c, target);
        if (!elsewhere.isEmpty()) {
            List<String> lines = new ArrayList<>();
            elsewhere.forEach((topic, storage) -> lines.add(topic + " (in " + storage + ")"));
            throw new InterceptException(
                    CONFLICT,
                    "Refusing to put " + c.target() + " on storage class '" + target
                            + "': " + elsewhere.size()
                            + " topic(s) already hold data in another storage and would reopen"
                            + " empty there (Pulsar does not move data between storages): " + lines + ". Delete those"
                            + " topics first, or set the policy on a new namespace or topic"
                            + (elsewhere.keySet().stream().anyMatch(t -> t.contains("/__"))
                                    ? " (system topics count too: __change_events holds the namespace's topic-level policies)"
                                    : ""));
        }
    }

    /** The storage class the topics in the change's scope get once it is applied. */
    private String targetClass(PersistenceChange c) throws InterceptException {
        if (c.storageClass() != null) {
            return c.storageClass();
        }
        if (c.scope() == PersistenceChange.Scope.TOPIC && c.removal()) {
            // Without its own policy a topic follows its namespace's.
            String path = "policies of namespace " + c.namespace();
            Optional<Policies> ns = await(
                    pulsar.getPulsarResources()
                            .getNamespaceResources()
                            .getPoliciesAsync(NamespaceName.get(c.namespace())),
                    "reading the " + path);
            String cls = ns.map(p -> p.persistence)
                    .map(PersistencePolicies::getManagedLedgerStorageClassName)
                    .orElse(null);
            if (cls != null) {
                return cls;
            }
        }
        return defaultClass();
    }

    /**
     * Topics in the change's scope whose managed ledger lives in a storage other than {@code target}. The ledgers'
     * records are read all at once, so the request thread waits for one round of reads, not one per topic.
     */
    private SortedMap<String, String> ledgersNotIn(PersistenceChange c, String target) throws InterceptException {
        MetadataStore store = pulsar.getLocalMetadataStore();
        String dir = MANAGED_LEDGERS + c.namespace() + "/persistent";
        List<String> children = await(store.getChildren(dir), "listing " + dir);
        Pattern partitions = c.topic() == null ? null : Pattern.compile(Pattern.quote(c.topic()) + "-partition-\\d+");
        TreeMap<String, CompletableFuture<Optional<GetResult>>> reads = new TreeMap<>();
        for (String child : children) {
            if (partitions == null
                    || child.equals(c.topic())
                    || partitions.matcher(child).matches()) {
                reads.put(child, store.get(dir + "/" + child));
            }
        }
        await(
                CompletableFuture.allOf(reads.values().toArray(CompletableFuture[]::new)),
                "reading the " + reads.size() + " managed-ledger record(s) under " + dir);
        TreeMap<String, String> out = new TreeMap<>();
        reads.forEach((child, read) -> {
            Optional<String> storage = read.join().flatMap(r -> BrokerNode.storageOf(r.getValue()));
            if (storage.isPresent() && !storage.get().equals(target)) {
                out.put("persistent://" + c.namespace() + "/" + Codec.decode(child), storage.get());
            }
        });
        return out;
    }

    private static <T> T await(CompletableFuture<T> f, String what) throws InterceptException {
        try {
            return f.get(METADATA_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterceptException(503, "Interrupted while " + what);
        } catch (ExecutionException | TimeoutException e) {
            throw new InterceptException(
                    503,
                    "Could not check the storage of existing topics: " + what + " in the metadata store failed: "
                            + (e instanceof ExecutionException ? e.getCause() : e));
        }
    }

    private static byte[] body(ServletRequest request) throws IOException {
        // The broker wraps every admin request before calling interceptors, so that the body can be read twice.
        if (request instanceof RequestWrapper w) {
            return w.getBody();
        }
        throw new IllegalStateException("the request body cannot be read without consuming it ("
                + request.getClass().getName() + " is not the broker's RequestWrapper)");
    }

    List<String> knownClasses() {
        List<String> names = new ArrayList<>();
        ManagedLedgerStorage storage = pulsar.getManagedLedgerStorage();
        if (storage != null) {
            for (ManagedLedgerStorageClass s : storage.getStorageClasses()) {
                names.add(s.getName());
            }
        }
        return names;
    }

    String defaultClass() {
        ManagedLedgerStorage storage = pulsar.getManagedLedgerStorage();
        return storage == null ? null : storage.getDefaultStorageClass().getName();
    }

    // Hooks this interceptor has no use for.

    @Override
    public void onPulsarCommand(BaseCommand command, ServerCnx cnx) {}

    @Override
    public void onConnectionClosed(ServerCnx cnx) {}

    @Override
    public void onWebserviceResponse(ServletRequest request, ServletResponse response) {}

    @Override
    public void close() {}
}
