package dev.lakestream.tests.bench;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The options every benchmark here takes (a picocli mixin): where its section is written, the command it names. */
final class DocOptions {

    @Option(names = "--doc", paramLabel = "FILE", description = "the file whose section the figures replace")
    Path doc = Path.of("docs/benchmarks.md");

    @Option(names = "--command", paramLabel = "TEXT", description = "the command the section says ran it")
    String command;

    @Option(
            names = {"-h", "--help"},
            usageHelp = true)
    boolean help;

    /** @param command the script that runs the benchmark, named in its section unless {@code --command} says else */
    DocOptions(String command) {
        this.command = command;
    }

    @Option(names = "--no-doc", description = "print the report only")
    void noDoc(boolean on) {
        if (on) {
            doc = null;
        }
    }
}
