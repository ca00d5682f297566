package dev.lakestream.segments;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * The Python interpreter the tests run their independent readers with: the one of the tests' pyiceberg environment
 * ({@code bin/pyiceberg-env}, which holds pyarrow; or {@code LAKESTREAM_PYICEBERG_PYTHON}), else {@code python3} if it
 * imports pyarrow; without one the calling test is skipped, saying why (it fails under CI=true).
 */
final class PythonWithPyarrow {

    private PythonWithPyarrow() {}

    /** The interpreter with pyarrow, or the test is skipped (outside CI) naming why. */
    static Path find() throws IOException, InterruptedException {
        Optional<Path> found = Optional.ofNullable(System.getenv("LAKESTREAM_PYICEBERG_PYTHON"))
                .filter(s -> !s.isBlank())
                .map(Path::of)
                .or(PythonWithPyarrow::pyicebergEnvironment);
        if (found.isEmpty() && importsPyarrow(Path.of("python3"))) {
            found = Optional.of(Path.of("python3"));
        }
        if (found.isEmpty()) {
            String why = "no Python with pyarrow: LAKESTREAM_PYICEBERG_PYTHON is not set, bin/pyiceberg-env has not"
                    + " made its environment, and python3 does not import pyarrow (run bin/pyiceberg-env)";
            if ("true".equals(System.getenv("CI"))) {
                throw new AssertionError(why + "; CI=true requires it");
            }
            Assumptions.abort(why);
        }
        return found.get();
    }

    /** The environment bin/pyiceberg-env makes: ~/.cache/lakestream/pyiceberg-(12 hex of the requirements' sha-256). */
    private static Optional<Path> pyicebergEnvironment() {
        try {
            Path root = Path.of(System.getProperty("lakestream.projectDir", ".."));
            byte[] req = Files.readAllBytes(root.resolve("tests/src/test/python/requirements.txt"));
            String hash = HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-256").digest(req))
                    .substring(0, 12);
            String cache = Optional.ofNullable(System.getenv("LAKESTREAM_CACHE_DIR"))
                    .orElse(System.getProperty("user.home") + "/.cache/lakestream");
            Path venv = Path.of(cache, "pyiceberg-" + hash);
            return Files.exists(venv.resolve(".complete")) && Files.isExecutable(venv.resolve("bin/python"))
                    ? Optional.of(venv.resolve("bin/python"))
                    : Optional.empty();
        } catch (IOException | NoSuchAlgorithmException e) {
            return Optional.empty();
        }
    }

    private static boolean importsPyarrow(Path python) throws InterruptedException {
        try {
            Process p = new ProcessBuilder(python.toString(), "-c", "import pyarrow")
                    .redirectErrorStream(true)
                    .start();
            p.getInputStream().readAllBytes();
            return p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        }
    }
}
