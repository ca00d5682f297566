package dev.lakestream.core.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lakestream.testkit.BenchmarksDoc;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The section writer every benchmark uses on docs/benchmarks.md: one section replaced, the others kept. */
class BenchmarksDocTest {

    @TempDir
    Path dir;

    @Test
    void replacesOnlyItsOwnSectionAndAppendsANewOne() throws Exception {
        Path doc = dir.resolve("benchmarks.md");
        Files.writeString(doc, """
                # Benchmarks

                ## Core log

                old core figures
                ```
                ## not a heading inside a code fence
                ```

                ## Broker

                broker figures
                """);

        BenchmarksDoc.writeSection(doc, "## Core log", "## Core log\n\nnew core figures\n");
        BenchmarksDoc.writeSection(doc, "## Managed ledger", "## Managed ledger\n\nml figures");

        assertThat(Files.readString(doc)).isEqualTo("""
                # Benchmarks

                ## Core log

                new core figures

                ## Broker

                broker figures

                ## Managed ledger

                ml figures
                """);
    }

    @Test
    void createsTheDocumentWhenItIsMissing() throws Exception {
        Path doc = dir.resolve("docs/benchmarks.md");
        BenchmarksDoc.writeSection(doc, "## Core log", "## Core log\n\nfigures\n");
        assertThat(Files.readString(doc)).startsWith("# Benchmarks\n").endsWith("## Core log\n\nfigures\n");
    }
}
