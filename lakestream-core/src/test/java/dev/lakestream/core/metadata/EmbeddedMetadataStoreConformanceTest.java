package dev.lakestream.core.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lakestream.core.metadata.embedded.EmbeddedMetadataStore;
import dev.lakestream.core.metadata.embedded.EmbeddedMetadataStoreConfig;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The conformance suite against the embedded RocksDB store, plus what only a local store can show. */
public class EmbeddedMetadataStoreConformanceTest extends MetadataStoreConformanceTest {

    @TempDir
    Path dir;

    private EmbeddedMetadataStoreConfig config() {
        return EmbeddedMetadataStoreConfig.of(dir.resolve("md"));
    }

    @Override
    protected MetadataStore openStore() {
        return EmbeddedMetadataStore.open(config());
    }

    @Override
    protected Optional<MetadataStore> openSecondClient() {
        return Optional.empty();
    }

    @Override
    protected MetadataStore restartBackend(MetadataStore current) {
        current.close();
        return openStore();
    }

    @Test
    void aSecondOpenOfTheSameDirectoryFailsNamingIt() {
        assertThatThrownBy(() -> EmbeddedMetadataStore.open(config()))
                .isExactlyInstanceOf(MetadataStoreException.class)
                .hasMessageContaining(config().dataDir().toString())
                .hasMessageContaining("in use");
        // The first store is unharmed.
        join(store.put(p + "/still", bytes("ok")));
        assertThat(join(store.get(p + "/still"))).isPresent();
    }

    @Test
    void operationsOnAClosedStoreFailAsUnavailable() {
        store.close();
        assertThatThrownBy(() -> join(store.get(p + "/x")))
                .isInstanceOf(MetadataStoreUnavailableException.class)
                .hasMessageContaining(store.address());
        assertThatThrownBy(() -> join(store.put(p + "/x", bytes("x"))))
                .isInstanceOf(MetadataStoreUnavailableException.class);
        store = openStore();
    }

    @Test
    void withoutSyncWritesSurviveACleanClose() {
        store.close();
        store = EmbeddedMetadataStore.open(config().withSync(false));
        Version v = join(store.put(p + "/k", bytes("v"))).version();
        store.close();
        store = openStore();
        assertThat(join(store.get(p + "/k")).orElseThrow().version()).isEqualTo(v);
    }

    @Test
    void inFlightWritesFinishBeforeCloseAndLaterOnesFail() {
        List<CompletableFuture<PutResult>> puts = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            puts.add(store.put(p + "/w" + i, bytes("x")));
        }
        store.close();
        for (CompletableFuture<PutResult> f : puts) {
            assertThat(join(f).key()).startsWith(p + "/w");
        }
        store = openStore();
        assertThat(join(store.list(p + "/", p + "//", Optional.empty()))).hasSize(200);
    }

    /**
     * Another process holds the store: opening it here fails naming the directory. Then that process dies without
     * closing (halt): every write it had acknowledged is there, its ephemeral records are gone.
     */
    @Test
    void aCrashedOwnerLeavesItsAcknowledgedWritesAndNoEphemeralRecords() throws Exception {
        Path crashDir = dir.resolve("crash");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process child = new ProcessBuilder(
                        java,
                        "--enable-native-access=ALL-UNNAMED",
                        "-cp",
                        System.getProperty("java.class.path"),
                        Holder.class.getName(),
                        crashDir.toString(),
                        p)
                .redirectErrorStream(true)
                .start();
        try (BufferedReader out =
                        new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
                Writer in = new java.io.OutputStreamWriter(child.getOutputStream(), StandardCharsets.UTF_8)) {
            List<String> lines = new ArrayList<>();
            CompletableFuture<Void> ready = CompletableFuture.runAsync(() -> {
                try {
                    String line;
                    while ((line = out.readLine()) != null) {
                        lines.add(line);
                        if (line.equals("READY")) {
                            return;
                        }
                    }
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
                throw new AssertionError("the child exited early: " + lines);
            });
            ready.get(60, TimeUnit.SECONDS);

            EmbeddedMetadataStoreConfig crashConfig = EmbeddedMetadataStoreConfig.of(crashDir);
            assertThatThrownBy(() -> EmbeddedMetadataStore.open(crashConfig))
                    .isExactlyInstanceOf(MetadataStoreException.class)
                    .hasMessageContaining(crashConfig.dataDir().toString())
                    .hasMessageContaining("in use");

            in.write("halt\n");
            in.flush();
            assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
        } finally {
            child.destroyForcibly();
        }
        try (EmbeddedMetadataStore reopened = EmbeddedMetadataStore.open(EmbeddedMetadataStoreConfig.of(crashDir))) {
            for (int i = 0; i < 20; i++) {
                assertThat(join(reopened.get(p + "/durable/" + i))).isPresent();
            }
            assertThat(join(reopened.get(p + "/eph"))).isEmpty();
            assertThat(join(reopened.list(p + "/", p + "//", Optional.empty()))).isEmpty();
            assertThat(join(reopened.put(p + "/eph", bytes("mine"), PutOptions.DEFAULT.asEphemeral()))
                            .version()
                            .sessionId())
                    .as("a new session")
                    .isGreaterThan(1);
        }
    }

    /** The other process of {@link #aCrashedOwnerLeavesItsAcknowledgedWritesAndNoEphemeralRecords}. */
    public static final class Holder {
        public static void main(String[] args) throws Exception {
            EmbeddedMetadataStore s = EmbeddedMetadataStore.open(EmbeddedMetadataStoreConfig.of(Path.of(args[0])));
            String p = args[1];
            for (int i = 0; i < 20; i++) {
                s.put(p + "/durable/" + i, bytes("d")).get();
            }
            s.put(p + "/eph", bytes("e"), PutOptions.DEFAULT.asEphemeral()).get();
            System.out.println("READY");
            System.out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            in.readLine(); // "halt", or EOF when the test dies
            Runtime.getRuntime().halt(3);
        }
    }
}
