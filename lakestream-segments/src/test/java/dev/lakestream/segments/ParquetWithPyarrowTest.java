package dev.lakestream.segments;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lakestream.core.segment.SegmentFile;
import dev.lakestream.segments.Segments.Entries;
import dev.lakestream.segments.Segments.Expected;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A segment is a valid Parquet file for an independent reader: pyarrow ({@code src/test/python/read_segment.py}) finds
 * its rows, columns, field ids, footer metadata, offset statistics and raw entries. The interpreter is the one of the
 * tests' pyiceberg environment ({@code bin/pyiceberg-env}, which holds pyarrow; or {@code LAKESTREAM_PYICEBERG_PYTHON}),
 * else {@code python3} if it imports pyarrow; without one the test is skipped, saying why (it fails under CI=true).
 */
class ParquetWithPyarrowTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    void pyarrowReadsTheSegmentsRowsColumnsFieldIdsAndRawEntries() throws Exception {
        Path python = python();
        Entries entries =
                Segments.entries(5, 7000, 120, 4, new Random(6), (i, r) -> i == 50 ? 1 << 20 : 1 + r.nextInt(2000));
        SegmentFile file = Segments.write(
                new ParquetSegmentFormat(
                        ParquetSegmentOptions.DEFAULT.withRowGroupPayloadBytes(64 << 10), ValueColumns.NONE),
                entries);
        Path segment = dir.resolve("segment.parquet");
        try (FileChannel ch = FileChannel.open(segment, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            ch.write(file.bytes().duplicate());
        }
        JsonNode out = run(python, segment);

        long rows = entries.endOffset() - entries.firstOffset();
        assertThat(out.get("num_rows").asLong()).isEqualTo(rows);
        assertThat(out.get("num_row_groups").asInt()).isGreaterThan(2);
        assertThat(out.get("columns").toString()).isEqualTo(JSON.readTree("""
                        [{"name":"_lakestream_entry","type":"binary","nullable":true,"field_id":2147482647},
                         {"name":"_lakestream_offset","type":"int64","nullable":false,"field_id":2147482646},
                         {"name":"_lakestream_records","type":"int32","nullable":false,"field_id":2147482645},
                         {"name":"_lakestream_entry_index","type":"int32","nullable":false,"field_id":2147482644}]
                        """).toString());
        assertThat(out.get("metadata").get("lakestream.segment.version").asText())
                .isEqualTo("1");
        assertThat(out.get("metadata").get("lakestream.segment.streamId").asText())
                .isEqualTo("5");
        assertThat(out.get("metadata").get("lakestream.segment.firstOffset").asText())
                .isEqualTo("7000");
        assertThat(out.get("metadata").get("lakestream.segment.endOffset").asText())
                .isEqualTo(Long.toString(entries.endOffset()));
        assertThat(out.get("metadata").get("lakestream.segment.entryCount").asText())
                .isEqualTo("120");
        long groupRows = 0;
        long previousMax = -1;
        for (JsonNode g : out.get("row_groups")) {
            groupRows += g.get("rows").asLong();
            assertThat(g.get("min").asLong()).isGreaterThan(previousMax);
            assertThat(g.get("max").asLong())
                    .isGreaterThanOrEqualTo(g.get("min").asLong());
            assertThat(g.get("codec").asText()).isEqualTo("ZSTD");
            previousMax = g.get("max").asLong();
        }
        assertThat(groupRows).isEqualTo(rows);
        // Every row: the entry's offset and records, the message's index, the raw bytes in the first row only.
        JsonNode got = out.get("rows");
        int row = 0;
        for (Expected e : entries.expected()) {
            for (int i = 0; i < e.records(); i++, row++) {
                JsonNode r = got.get(row);
                assertThat(r.get(0).asLong()).as("row %d", row).isEqualTo(e.offset());
                assertThat(r.get(1).asInt()).isEqualTo(e.records());
                assertThat(r.get(2).asInt()).isEqualTo(i);
                if (i == 0) {
                    assertThat(r.get(3).asLong())
                            .as("crc of the entry at %d", e.offset())
                            .isEqualTo(e.crc());
                } else {
                    assertThat(r.get(3).isNull()).isTrue();
                }
            }
        }
        assertThat(row).isEqualTo(rows);
        for (int i = 0; i < 3; i++) {
            assertThat(out.get("first_entries_hex").get(i).asText())
                    .isEqualTo(HexFormat.of().formatHex(entries.payloads().get(i)));
        }
    }

    private static JsonNode run(Path python, Path segment) throws Exception {
        Path script = Path.of("src/test/python/read_segment.py").toAbsolutePath();
        Path stdout = Files.createTempFile("read-segment", ".json");
        Path stderr = Files.createTempFile("read-segment", ".err");
        Process p = new ProcessBuilder(List.of(python.toString(), script.toString(), segment.toString()))
                .redirectOutput(stdout.toFile())
                .redirectError(stderr.toFile())
                .start();
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("pyarrow finishes").isTrue();
        assertThat(p.exitValue())
                .as("read_segment.py: %s", Files.readString(stderr, StandardCharsets.UTF_8))
                .isZero();
        return JSON.readTree(stdout.toFile());
    }

    /** The interpreter with pyarrow, or the test is skipped (outside CI) naming why. */
    private static Path python() throws IOException, InterruptedException {
        Optional<Path> found = Optional.ofNullable(System.getenv("LAKESTREAM_PYICEBERG_PYTHON"))
                .filter(s -> !s.isBlank())
                .map(Path::of)
                .or(ParquetWithPyarrowTest::pyicebergEnvironment);
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
