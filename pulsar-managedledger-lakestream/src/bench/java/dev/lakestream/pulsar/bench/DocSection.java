package dev.lakestream.pulsar.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Replaces one {@code ## } section of a Markdown file (up to the next {@code ## } heading), or appends it. */
final class DocSection {

    private DocSection() {}

    static void write(Path doc, String heading, String section) throws IOException {
        String body = section.endsWith("\n") ? section : section + "\n";
        List<String> lines = Files.readAllLines(doc, StandardCharsets.UTF_8);
        int start = -1;
        for (int i = 0; i < lines.size() && start < 0; i++) {
            if (lines.get(i).trim().equals(heading)) {
                start = i;
            }
        }
        StringBuilder out = new StringBuilder();
        if (start < 0) {
            lines.forEach(l -> out.append(l).append('\n'));
            if (!lines.isEmpty() && !lines.get(lines.size() - 1).isBlank()) {
                out.append('\n');
            }
            out.append(body);
        } else {
            int end = lines.size();
            boolean fenced = false;
            for (int i = start + 1; i < lines.size(); i++) {
                fenced ^= lines.get(i).startsWith("```");
                if (!fenced && lines.get(i).startsWith("## ")) {
                    end = i;
                    break;
                }
            }
            lines.subList(0, start).forEach(l -> out.append(l).append('\n'));
            out.append(body);
            if (end < lines.size()) {
                out.append('\n');
                lines.subList(end, lines.size()).forEach(l -> out.append(l).append('\n'));
            }
        }
        Files.writeString(doc, out.toString(), StandardCharsets.UTF_8);
    }
}
