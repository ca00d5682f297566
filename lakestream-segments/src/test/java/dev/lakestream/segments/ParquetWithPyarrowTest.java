package dev.lakestream.segments;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lakestream.segments.Segments.Entries;
import dev.lakestream.segments.Segments.Expected;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A segment is a valid Parquet file for an independent reader: pyarrow ({@code src/test/python/read_segment.py}) finds
 * its rows, columns, field ids, footer metadata, offset statistics and raw entries. The interpreter is
 * {@link PythonWithPyarrow#find()}'s.
 */
class ParquetWithPyarrowTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    void pyarrowReadsTheSegmentsRowsColumnsFieldIdsAndRawEntries() throws Exception {
        Path python = PythonWithPyarrow.find();
        Entries entries =
                Segments.entries(5, 7000, 120, 4, new Random(6), (i, r) -> i == 50 ? 1 << 20 : 1 + r.nextInt(2000));
        Segments.Written file = Segments.write(
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
}
