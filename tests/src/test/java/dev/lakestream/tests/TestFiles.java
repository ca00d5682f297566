package dev.lakestream.tests;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** File helpers of the hybrid-mode harness. */
final class TestFiles {

    private static final Logger LOG = LoggerFactory.getLogger(TestFiles.class);

    private TestFiles() {}

    /** Deletes {@code dir} and everything under it; logs (does not throw) what cannot be deleted. */
    static void deleteRecursively(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException | UncheckedIOException e) {
            LOG.warn("Could not delete {}", dir, e);
        }
    }
}
