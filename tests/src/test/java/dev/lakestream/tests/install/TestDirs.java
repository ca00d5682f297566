package dev.lakestream.tests.install;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Work directories under tests/target that a run starts empty (and leaves behind, for the logs). */
final class TestDirs {

    private TestDirs() {}

    /** Empties {@code dir}, keeping the directory. */
    static void clean(Path dir) throws IOException {
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                if (!p.equals(dir)) {
                    Files.delete(p);
                }
            }
        }
    }
}
