package dev.lakestream.iceberg.segment;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lakestream.iceberg.CatalogConfig;
import dev.lakestream.iceberg.Catalogs;
import dev.lakestream.iceberg.schema.MetadataColumns;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.parquet.ParquetSchemaUtil;
import org.apache.iceberg.parquet.ParquetUtil;
import org.apache.iceberg.types.Types;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.example.data.simple.convert.GroupRecordConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.io.RecordReader;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;

/**
 * Spike for the compaction design's segments (docs/design/stream-compaction.md, "Segments"): a Parquet file whose
 * schema is the table's columns with their Iceberg field ids plus Lakestream's own columns (raw entry, offset,
 * records, index in the entry), appended to the table as a data file.
 *
 * <p>Iceberg's Java stack takes our columns WITHOUT a field id (the design): no metrics for them, the generic reader
 * with projection and filters never sees them, and a later table column of the same name reads null. Our own reader
 * reads them back by name and seeks by the footer's row-group statistics on {@code _lakestream_offset}. But
 * pyiceberg 0.12.0 and DuckDB 1.4.4's iceberg extension refuse such a file (any column without an id), with or
 * without a name mapping; they read it when our columns carry ids far above the table's
 * ({@link Extras#RESERVED_IDS}, the fallback tested here too). Findings and the Python/DuckDB runs:
 * /tmp/spike-segment-columns.md of the spike (issue 21).
 *
 * <p>{@code LAKESTREAM_ICEBERG_KEEP_TABLES_IN=<empty dir>} keeps the catalog and tables there, for those readers.
 */
class IdlessColumnsTest {

    static final String ENTRY = "_lakestream_entry";
    static final String OFFSET = "_lakestream_offset";
    static final String RECORDS = "_lakestream_records";
    static final String ENTRY_INDEX = "_lakestream_entry_index";

    static final int ENTRIES = 200;
    static final int RECORDS_PER_ENTRY = 5;
    static final long FIRST_OFFSET = 1000;
    static final long DAY_START_MICROS = Instant.parse("2026-12-03T00:00:00Z").toEpochMilli() * 1000;

    @TempDir
    Path tmp;

    private Catalog catalog;
    private String tableName;

    @BeforeEach
    void openCatalog(TestInfo test) {
        String keep = System.getenv("LAKESTREAM_ICEBERG_KEEP_TABLES_IN");
        Path dir = keep == null || keep.isBlank() ? tmp : Path.of(keep);
        catalog = Catalogs.open(CatalogConfig.embedded(dir));
        tableName = test.getTestMethod().orElseThrow().getName().toLowerCase(java.util.Locale.ROOT);
    }

    @AfterEach
    void closeCatalog() throws Exception {
        if (catalog instanceof AutoCloseable c) {
            c.close();
        }
    }

    /** The topic's table as the materializer makes it: the {@code _pulsar_*} columns and two value columns. */
    private Table createTable() {
        List<Types.NestedField> cols = new ArrayList<>(MetadataColumns.columns());
        cols.add(Types.NestedField.optional(14, "name", Types.StringType.get()));
        cols.add(Types.NestedField.optional(15, "amount", Types.LongType.get()));
        Schema schema = new Schema(cols);
        PartitionSpec spec = PartitionSpec.builderFor(schema)
                .day(MetadataColumns.PUBLISH_TIME)
                .build();
        Namespace ns = Namespace.of("spike");
        if (catalog instanceof SupportsNamespaces n && !n.namespaceExists(ns)) {
            n.createNamespace(ns);
        }
        return catalog.createTable(TableIdentifier.of(ns, tableName), schema, spec);
    }

    /** How a segment's own columns are written. */
    enum Extras {
        /** Not at all: the control, a plain data file of the table. */
        NONE,
        /** Without a field id: the design. */
        WITHOUT_IDS,
        /** With ids from {@link #RESERVED_ID_BASE} down: the fallback. */
        RESERVED_IDS
    }

    /**
     * The fallback's ids: far above any id a table assigns (last-column-id + 1 onwards) and below the range Iceberg
     * reserves for its own metadata columns (Integer.MAX_VALUE - 200 and above: _file, _pos, _row_id, ...).
     */
    static final int RESERVED_ID_BASE = Integer.MAX_VALUE - 1000;

    /** The table's own Parquet schema (ids from the table) plus the segment's columns. */
    static MessageType segmentType(Schema tableSchema, Extras extras) {
        MessageType tableType = ParquetSchemaUtil.convert(tableSchema, "table");
        List<Type> fields = new ArrayList<>(tableType.getFields());
        if (extras != Extras.NONE) {
            fields.add(withId(org.apache.parquet.schema.Types.optional(PrimitiveTypeName.BINARY), extras, 0)
                    .named(ENTRY));
            fields.add(withId(org.apache.parquet.schema.Types.required(PrimitiveTypeName.INT64), extras, 1)
                    .named(OFFSET));
            fields.add(withId(org.apache.parquet.schema.Types.required(PrimitiveTypeName.INT32), extras, 2)
                    .named(RECORDS));
            fields.add(withId(org.apache.parquet.schema.Types.required(PrimitiveTypeName.INT32), extras, 3)
                    .named(ENTRY_INDEX));
        }
        return new MessageType("table", fields);
    }

    private static org.apache.parquet.schema.Types.PrimitiveBuilder<org.apache.parquet.schema.PrimitiveType> withId(
            org.apache.parquet.schema.Types.PrimitiveBuilder<org.apache.parquet.schema.PrimitiveType> b,
            Extras extras,
            int n) {
        return extras == Extras.RESERVED_IDS ? b.id(RESERVED_ID_BASE - n) : b;
    }

    static long offsetOf(int row) {
        return FIRST_OFFSET + row / RECORDS_PER_ENTRY;
    }

    static String nameOf(int row) {
        return "name-" + (row % 4);
    }

    static byte[] entryBytes(long offset) {
        return ("entry-" + offset).getBytes(StandardCharsets.UTF_8);
    }

    /** Writes {@code ENTRIES} entries of {@code RECORDS_PER_ENTRY} messages, one row each; small row groups. */
    static void writeSegment(Path file, MessageType type) throws IOException {
        SimpleGroupFactory groups = new SimpleGroupFactory(type);
        try (ParquetWriter<Group> w = ExampleParquetWriter.builder(new LocalOutputFile(file))
                .withType(type)
                .withConf(new Configuration(false))
                .withCompressionCodec(CompressionCodecName.ZSTD)
                .withRowGroupRowCountLimit(100)
                .build()) {
            for (int row = 0; row < ENTRIES * RECORDS_PER_ENTRY; row++) {
                long offset = offsetOf(row);
                int index = row % RECORDS_PER_ENTRY;
                Group g = groups.newGroup();
                if (row % 10 != 0) {
                    g.append(MetadataColumns.KEY, "k" + (row % 7));
                }
                g.append(MetadataColumns.PUBLISH_TIME, DAY_START_MICROS + row * 1000L);
                if (row % 3 == 0) {
                    g.addGroup(MetadataColumns.PROPERTIES)
                            .addGroup("key_value")
                            .append("key", "p")
                            .append("value", Integer.toString(row));
                }
                g.append(MetadataColumns.PRODUCER, "producer-1");
                g.append(MetadataColumns.SEQUENCE_ID, offset);
                g.append(MetadataColumns.LEDGER_ID, 7L);
                g.append(MetadataColumns.ENTRY_ID, offset - FIRST_OFFSET);
                g.append(MetadataColumns.BATCH_INDEX, index);
                g.append(MetadataColumns.OFFSET, offset);
                g.append("name", nameOf(row));
                g.append("amount", row * 10L);
                if (!type.containsField(OFFSET)) {
                    w.write(g);
                    continue;
                }
                if (index == 0) {
                    g.append(ENTRY, org.apache.parquet.io.api.Binary.fromConstantByteArray(entryBytes(offset)));
                }
                g.append(OFFSET, offset);
                g.append(RECORDS, RECORDS_PER_ENTRY);
                g.append(ENTRY_INDEX, index);
                w.write(g);
            }
        }
    }

    /** Writes a segment into the table's data directory and appends it as a data file. */
    private DataFile appendSegment(Table table) throws IOException {
        return appendSegment(table, Extras.WITHOUT_IDS);
    }

    private DataFile appendSegment(Table table, Extras extras) throws IOException {
        String location = table.locationProvider().newDataLocation("segment-" + tableName + ".parquet");
        Path file = Path.of(URI.create(location));
        Files.createDirectories(file.getParent());
        writeSegment(file, segmentType(table.schema(), extras));
        Metrics metrics = ParquetUtil.fileMetrics(table.io().newInputFile(location), MetricsConfig.forTable(table));
        DataFile df = DataFiles.builder(table.spec())
                .withPath(location)
                .withFormat(FileFormat.PARQUET)
                .withFileSizeInBytes(Files.size(file))
                .withPartitionPath("_pulsar_publish_time_day=2026-12-03")
                .withMetrics(metrics)
                .build();
        table.newAppend().appendFile(df).commit();
        table.refresh();
        return df;
    }

    private static List<Record> read(CloseableIterable<Record> it) throws IOException {
        try (it) {
            List<Record> out = new ArrayList<>();
            it.forEach(r -> out.add(r.copy()));
            return out;
        }
    }

    @Test
    void theFileHasIdsOnTheTableColumnsOnly() throws IOException {
        Table table = createTable();
        DataFile df = appendSegment(table);
        try (ParquetFileReader r = ParquetFileReader.open(new LocalInputFile(Path.of(URI.create(df.location()))))) {
            MessageType type = r.getFooter().getFileMetaData().getSchema();
            for (String extra : List.of(ENTRY, OFFSET, RECORDS, ENTRY_INDEX)) {
                assertThat(type.getType(extra).getId()).as(extra).isNull();
            }
            for (Types.NestedField f : table.schema().columns()) {
                assertThat(type.getType(f.name()).getId().intValue())
                        .as(f.name())
                        .isEqualTo(f.fieldId());
            }
            assertThat(ParquetSchemaUtil.hasIds(type)).isTrue();
        }
    }

    @Test
    void icebergMetricsCoverTheTableColumnsOnly() throws IOException {
        Table table = createTable();
        DataFile df = appendSegment(table);
        Set<Integer> ids = table.schema().columns().stream()
                .map(Types.NestedField::fieldId)
                .collect(Collectors.toSet());
        // Nested ids (the properties map's key 12 and value 13) may appear in counts; none outside the schema.
        Set<Integer> allIds = new java.util.HashSet<>(ids);
        allIds.addAll(table.schema().idToName().keySet());
        assertThat(df.recordCount()).isEqualTo((long) ENTRIES * RECORDS_PER_ENTRY);
        assertThat(df.columnSizes().keySet()).isSubsetOf(allIds);
        assertThat(df.valueCounts().keySet()).isSubsetOf(allIds);
        assertThat(df.lowerBounds().keySet()).isSubsetOf(allIds);
        int pulsarOffset = table.schema().findField(MetadataColumns.OFFSET).fieldId();
        assertThat(df.lowerBounds()).containsKey(pulsarOffset);
        assertThat(org.apache.iceberg.types.Conversions.<Long>fromByteBuffer(
                        Types.LongType.get(), df.upperBounds().get(pulsarOffset)))
                .isEqualTo(FIRST_OFFSET + ENTRIES - 1);
    }

    @Test
    void genericReaderSeesTheTableColumnsWithTheirValuesAndNothingElse() throws IOException {
        Table table = createTable();
        appendSegment(table);
        List<Record> rows = read(IcebergGenerics.read(table).build());
        assertThat(rows).hasSize(ENTRIES * RECORDS_PER_ENTRY);
        assertThat(rows.get(0).struct().fields())
                .isEqualTo(table.schema().asStruct().fields());
        rows.sort(java.util.Comparator.comparingLong(r -> (Long) r.getField("amount")));
        for (int row = 0; row < rows.size(); row++) {
            Record r = rows.get(row);
            assertThat(r.getField(MetadataColumns.OFFSET)).isEqualTo(offsetOf(row));
            assertThat(r.getField(MetadataColumns.BATCH_INDEX)).isEqualTo(row % RECORDS_PER_ENTRY);
            assertThat(r.getField(MetadataColumns.KEY)).isEqualTo(row % 10 == 0 ? null : "k" + (row % 7));
            assertThat(r.getField(MetadataColumns.PUBLISH_TIME))
                    .isEqualTo(OffsetDateTime.ofInstant(
                            Instant.ofEpochMilli(DAY_START_MICROS / 1000 + row), ZoneOffset.UTC));
            assertThat(r.getField(MetadataColumns.PROPERTIES))
                    .isEqualTo(row % 3 == 0 ? Map.of("p", Integer.toString(row)) : null);
            assertThat(r.getField(MetadataColumns.EVENT_TIME)).isNull();
            assertThat(r.getField(MetadataColumns.PARTITION)).isNull();
            assertThat(r.getField("name")).isEqualTo(nameOf(row));
            assertThat(r.getField("amount")).isEqualTo(row * 10L);
        }
    }

    @Test
    void projectionAndFiltersWork() throws IOException {
        Table table = createTable();
        appendSegment(table);

        List<Record> projected = read(IcebergGenerics.read(table)
                .select("name", MetadataColumns.OFFSET)
                .build());
        assertThat(projected).hasSize(ENTRIES * RECORDS_PER_ENTRY);
        assertThat(projected.get(0).struct().fields())
                .extracting(Types.NestedField::name)
                .containsExactly(MetadataColumns.OFFSET, "name");

        List<Record> byName = read(IcebergGenerics.read(table)
                .where(Expressions.equal("name", "name-1"))
                .build());
        assertThat(byName).hasSize(ENTRIES * RECORDS_PER_ENTRY / 4);
        assertThat(byName).allSatisfy(r -> assertThat(r.getField("name")).isEqualTo("name-1"));

        List<Record> byOffset = read(IcebergGenerics.read(table)
                .where(Expressions.and(
                        Expressions.greaterThanOrEqual(MetadataColumns.OFFSET, FIRST_OFFSET + 10),
                        Expressions.lessThan(MetadataColumns.OFFSET, FIRST_OFFSET + 12)))
                .build());
        assertThat(byOffset).hasSize(2 * RECORDS_PER_ENTRY);

        // The file's bounds (from the footer, table ids only) prune it for offsets it does not hold.
        try (CloseableIterable<FileScanTask> none = table.newScan()
                .filter(Expressions.greaterThan(MetadataColumns.OFFSET, FIRST_OFFSET + ENTRIES))
                .planFiles()) {
            assertThat(none).isEmpty();
        }
    }

    /** A later table column named like one of ours gets a new id and reads as null from the old segment. */
    @Test
    void aLaterColumnOfTheSameNameNeverReadsOurs() throws IOException {
        Table table = createTable();
        appendSegment(table);
        table.updateSchema()
                .addColumn(OFFSET, Types.LongType.get())
                .addColumn(ENTRY, Types.BinaryType.get())
                .commit();
        table.refresh();
        List<Record> rows = read(IcebergGenerics.read(table).build());
        assertThat(rows).hasSize(ENTRIES * RECORDS_PER_ENTRY);
        assertThat(rows).allSatisfy(r -> {
            assertThat(r.getField(OFFSET)).isNull();
            assertThat(r.getField(ENTRY)).isNull();
        });
        List<Record> filtered = read(IcebergGenerics.read(table)
                .where(Expressions.equal(OFFSET, FIRST_OFFSET))
                .build());
        assertThat(filtered).isEmpty();
    }

    /** Our own reader: the id-less columns by name, and a row group found by the footer's offset statistics. */
    @Test
    void segmentReaderSeeksByOffsetWithTheFootersStatistics() throws IOException {
        Table table = createTable();
        DataFile df = appendSegment(table);
        long target = FIRST_OFFSET + 123;
        try (ParquetFileReader r = ParquetFileReader.open(new LocalInputFile(Path.of(URI.create(df.location()))))) {
            MessageType fileType = r.getFooter().getFileMetaData().getSchema();
            List<BlockMetaData> blocks = r.getFooter().getBlocks();
            assertThat(blocks).hasSizeGreaterThan(1);
            int found = -1;
            long previousMax = Long.MIN_VALUE;
            for (int i = 0; i < blocks.size(); i++) {
                ColumnChunkMetaData col = blocks.get(i).getColumns().stream()
                        .filter(c -> c.getPath().toDotString().equals(OFFSET))
                        .findFirst()
                        .orElseThrow();
                Statistics<?> stats = col.getStatistics();
                assertThat(stats.hasNonNullValue())
                        .as("statistics of %s in row group %d", OFFSET, i)
                        .isTrue();
                long min = (Long) stats.genericGetMin();
                long max = (Long) stats.genericGetMax();
                assertThat(min).isGreaterThanOrEqualTo(previousMax);
                previousMax = max;
                if (min <= target && target <= max) {
                    found = i;
                }
            }
            assertThat(found).isGreaterThanOrEqualTo(0);

            MessageType ours = new MessageType(
                    "segment",
                    fileType.getType(ENTRY),
                    fileType.getType(OFFSET),
                    fileType.getType(RECORDS),
                    fileType.getType(ENTRY_INDEX));
            r.setRequestedSchema(ours);
            PageReadStore pages = r.readRowGroup(found);
            RecordReader<Group> records = new ColumnIOFactory()
                    .getColumnIO(ours, fileType)
                    .getRecordReader(pages, new GroupRecordConverter(ours));
            Map<Integer, byte[]> entryOfTarget = new HashMap<>();
            int rowsOfTarget = 0;
            for (long i = 0; i < pages.getRowCount(); i++) {
                Group g = records.read();
                int index = g.getInteger(ENTRY_INDEX, 0);
                boolean hasEntry = g.getFieldRepetitionCount(ENTRY) == 1;
                assertThat(hasEntry).isEqualTo(index == 0);
                assertThat(g.getInteger(RECORDS, 0)).isEqualTo(RECORDS_PER_ENTRY);
                if (g.getLong(OFFSET, 0) == target) {
                    rowsOfTarget++;
                    if (hasEntry) {
                        entryOfTarget.put(index, g.getBinary(ENTRY, 0).getBytes());
                    }
                }
            }
            assertThat(rowsOfTarget).isEqualTo(RECORDS_PER_ENTRY);
            assertThat(entryOfTarget).containsOnlyKeys(0);
            assertThat(entryOfTarget.get(0)).isEqualTo(entryBytes(target));
        }
    }

    /** The fallback: Iceberg's Java reader ignores ids it does not know just as it ignores id-less columns. */
    @Test
    void reservedIdsAreIgnoredLikeNoIds() throws IOException {
        Table table = createTable();
        DataFile df = appendSegment(table, Extras.RESERVED_IDS);
        Set<Integer> tableIds = table.schema().idToName().keySet();
        // Unlike id-less columns, columns with ids outside the schema get metrics in the manifest (sizes, counts,
        // bounds): harmless to readers, but a fallback writer should drop them from the Metrics it commits.
        Set<Integer> ours = Set.of(RESERVED_ID_BASE, RESERVED_ID_BASE - 1, RESERVED_ID_BASE - 2, RESERVED_ID_BASE - 3);
        assertThat(df.columnSizes().keySet()).containsAll(ours);
        assertThat(df.valueCounts().keySet()).containsAll(ours);
        assertThat(df.lowerBounds().keySet()).containsAll(ours);
        assertThat(tableIds).doesNotContainAnyElementsOf(ours);
        List<Record> rows = read(IcebergGenerics.read(table).build());
        assertThat(rows).hasSize(ENTRIES * RECORDS_PER_ENTRY);
        assertThat(rows.get(0).struct().fields())
                .isEqualTo(table.schema().asStruct().fields());
        assertThat(read(IcebergGenerics.read(table)
                        .where(Expressions.equal("name", "name-1"))
                        .build()))
                .hasSize(ENTRIES * RECORDS_PER_ENTRY / 4);
        table.updateSchema().addColumn(OFFSET, Types.LongType.get()).commit();
        table.refresh();
        assertThat(read(IcebergGenerics.read(table).build()))
                .allSatisfy(r -> assertThat(r.getField(OFFSET)).isNull());
    }

    /** The control for the independent readers: the same writer, the same rows, no columns of ours. */
    @Test
    void controlWithoutOurColumns() throws IOException {
        Table table = createTable();
        appendSegment(table, Extras.NONE);
        assertThat(read(IcebergGenerics.read(table).build())).hasSize(ENTRIES * RECORDS_PER_ENTRY);
    }
}
