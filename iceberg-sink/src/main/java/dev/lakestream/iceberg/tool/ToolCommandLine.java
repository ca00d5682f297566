package dev.lakestream.iceberg.tool;

import picocli.CommandLine;

/** The tools' picocli parser, set to read arguments as the tools always have. */
final class ToolCommandLine {

    private ToolCommandLine() {}

    /**
     * A parser filling {@code options}: an option given twice takes its last value (scripts put defaults first), and
     * an argument starting with {@code @} is itself, not a file of arguments.
     */
    static CommandLine of(Object options) {
        return new CommandLine(options).setOverwrittenOptionsAllowed(true).setExpandAtFiles(false);
    }
}
