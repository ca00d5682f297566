package dev.lakestream.tests;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * pyiceberg, the tests' independent Iceberg reader: the interpreter of the virtual environment {@code bin/pyiceberg-env}
 * makes ({@code bin/test} passes it as {@code LAKESTREAM_PYICEBERG_PYTHON}; a run without it finds an environment
 * made earlier). Absent, a test is skipped with the reason, except under {@code CI=true}, where it fails.
 */
final class PyIceberg {

    static final String ENV = "LAKESTREAM_PYICEBERG_PYTHON";
    private static final Path SCRIPT_DIR = Path.of("src/test/python").toAbsolutePath();
    private static final ObjectMapper JSON = new ObjectMapper();

    private PyIceberg() {}

    /** The interpreter, or the test is skipped (outside CI) / fails (CI). */
    static Path python() {
        Optional<Path> found = find();
        if (found.isEmpty()) {
            String why = "no pyiceberg environment: " + ENV + " is not set and bin/pyiceberg-env has not made one"
                    + " (run bin/pyiceberg-env, or the test command bin/test, which makes it)";
            if ("true".equals(System.getenv("CI"))) {
                throw new AssertionError(why + "; CI=true requires it");
            }
            Assumptions.abort(why);
        }
        return found.get();
    }

    private static Optional<Path> find() {
        String env = System.getenv(ENV);
        if (env != null && !env.isBlank()) {
            return Optional.of(Path.of(env));
        }
        // The environment bin/pyiceberg-env makes: ~/.cache/lakestream/pyiceberg-<sha-256 of requirements, 12 hex>.
        try {
            byte[] req = Files.readAllBytes(SCRIPT_DIR.resolve("requirements.txt"));
            String hash = HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-256").digest(req))
                    .substring(0, 12);
            String cache = Optional.ofNullable(System.getenv("LAKESTREAM_CACHE_DIR"))
                    .orElse(System.getProperty("user.home") + "/.cache/lakestream");
            Path venv = Path.of(cache, "pyiceberg-" + hash);
            if (Files.exists(venv.resolve(".complete")) && Files.isExecutable(venv.resolve("bin/python"))) {
                return Optional.of(venv.resolve("bin/python"));
            }
        } catch (IOException | NoSuchAlgorithmException e) {
            throw new IllegalStateException("cannot look for the pyiceberg environment", e);
        }
        return Optional.empty();
    }

    /**
     * Reads a table with pyiceberg ({@code src/test/python/read_table.py}): its rows in plain JSON (see the script),
     * the snapshot summaries and the schema.
     */
    static JsonNode readTable(Path catalogDb, String warehouse, String catalogName, String table) throws Exception {
        Path out = Files.createTempFile("pyiceberg-", ".json");
        Path err = Files.createTempFile("pyiceberg-", ".err");
        try {
            Process p = new ProcessBuilder(List.of(
                            python().toString(),
                            SCRIPT_DIR.resolve("read_table.py").toString(),
                            catalogDb.toString(),
                            warehouse,
                            catalogName,
                            table))
                    .redirectOutput(out.toFile())
                    .redirectError(err.toFile())
                    .start();
            assertThat(p.waitFor(180, TimeUnit.SECONDS))
                    .as("pyiceberg finished")
                    .isTrue();
            assertThat(p.exitValue())
                    .as("pyiceberg failed: %s", Files.readString(err, StandardCharsets.UTF_8))
                    .isZero();
            return JSON.readTree(out.toFile());
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }
}
