package dev.lakestream.core;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;

/**
 * The worked byte examples of docs/layout.md, read from the document itself so that it cannot drift from the code.
 * An example is the fenced block after a line {@code <!-- asserted: NAME -->}; on each of its lines the bytes are the
 * hex digits left of the first double space (single spaces between them are ignored), the rest is commentary.
 */
final class LayoutDocExamples {

    /** docs/layout.md, found from the module directory (where Maven runs tests) or the repository root. */
    static final Path DOC =
            Files.exists(Path.of("../docs/layout.md")) ? Path.of("../docs/layout.md") : Path.of("docs/layout.md");

    private LayoutDocExamples() {}

    static byte[] example(String name) {
        List<String> lines;
        try {
            lines = Files.readAllLines(DOC);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + DOC.toAbsolutePath(), e);
        }
        int marker = lines.indexOf("<!-- asserted: " + name + " -->");
        if (marker < 0 || marker + 1 >= lines.size() || !lines.get(marker + 1).startsWith("```")) {
            throw new IllegalStateException(
                    "no example '" + name + "' (a marker line followed by a fenced block) in " + DOC);
        }
        StringBuilder hex = new StringBuilder();
        for (int i = marker + 2; !lines.get(i).startsWith("```"); i++) {
            String line = lines.get(i).strip();
            int comment = line.indexOf("  ");
            String bytes = (comment < 0 ? line : line.substring(0, comment)).replace(" ", "");
            if (!bytes.matches("([0-9a-f]{2})*")) {
                throw new IllegalStateException("example '" + name + "' line " + (i + 1) + " has no whole hex bytes"
                        + " before its comment: " + lines.get(i));
            }
            hex.append(bytes);
        }
        return HexFormat.of().parseHex(hex);
    }
}
