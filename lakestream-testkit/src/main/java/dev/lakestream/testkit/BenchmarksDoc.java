package dev.lakestream.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The benchmarks document ({@code docs/benchmarks.md}): one section per benchmark, each replaced as a whole by
 * the program that measures it. Shared by the core, managed-ledger and broker benchmarks.
 */
public final class BenchmarksDoc {

    private BenchmarksDoc() {}

    /**
     * Replaces the section of {@code doc} that starts at the line {@code heading} (up to the next {@code ## }
     * heading outside a code fence) with {@code section}, or adds it at the end; creates the file if need be.
     */
    public static void writeSection(Path doc, String heading, String section) throws IOException {
        String body = section.endsWith("\n") ? section : section + "\n";
        if (!Files.exists(doc)) {
            Path parent = doc.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            Files.writeString(
                    doc,
                    "# Benchmarks\n\nMeasured figures of the project's benchmarks, one section per "
                            + "benchmark, each written by its own program.\n\n" + body,
                    StandardCharsets.UTF_8);
            return;
        }
        List<String> lines = Files.readAllLines(doc, StandardCharsets.UTF_8);
        int start = -1;
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).trim().equals(heading)) {
                start = i;
                break;
            }
        }
        StringBuilder out = new StringBuilder();
        if (start < 0) {
            lines.forEach(l -> out.append(l).append("\n"));
            if (!lines.isEmpty() && !lines.get(lines.size() - 1).isBlank()) {
                out.append("\n");
            }
            out.append(body);
        } else {
            int end = lines.size();
            boolean fenced = false;
            for (int i = start + 1; i < lines.size(); i++) {
                if (lines.get(i).startsWith("```")) {
                    fenced = !fenced;
                }
                if (!fenced && lines.get(i).startsWith("## ")) {
                    end = i;
                    break;
                }
            }
            for (int i = 0; i < start; i++) {
                out.append(lines.get(i)).append("\n");
            }
            out.append(body);
            if (end < lines.size()) {
                out.append("\n");
                for (int i = end; i < lines.size(); i++) {
                    out.append(lines.get(i)).append("\n");
                }
            }
        }
        Files.writeString(doc, out.toString(), StandardCharsets.UTF_8);
    }
}
