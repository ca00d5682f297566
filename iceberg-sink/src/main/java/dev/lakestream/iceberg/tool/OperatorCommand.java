package dev.lakestream.iceberg.tool;

import dev.lakestream.core.Lakestream;
import dev.lakestream.core.StreamLog;
import dev.lakestream.core.catalog.StreamInfo;
import dev.lakestream.core.compaction.CompactionConfig;
import dev.lakestream.core.compaction.CompactionService;
import dev.lakestream.core.cursor.CursorState;
import dev.lakestream.core.cursor.CursorStore;
import dev.lakestream.core.index.IndexRecord;
import dev.lakestream.core.index.OffsetIndex;
import dev.lakestream.core.log.LogEntry;
import dev.lakestream.core.metrics.CompactionMetrics;
import dev.lakestream.iceberg.Materializers;
import dev.lakestream.iceberg.PositionResolver;
import dev.lakestream.iceberg.TopicRef;
import dev.lakestream.iceberg.pulsar.EncryptedMessageException;
import dev.lakestream.iceberg.pulsar.EntryDecodeException;
import dev.lakestream.iceberg.pulsar.EntryDecoder;
import dev.lakestream.iceberg.pulsar.PulsarMessage;
import dev.lakestream.iceberg.schema.MessagePosition;
import dev.lakestream.pulsar.common.ManagedLedgerRecord;
import java.io.PrintStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;

/**
 * {@code bin/lakestream}: what the bucket and the metadata store hold, read directly (no broker needed).
 *
 * <pre>
 *   lakestream --conf FILE streams                              every live stream, with its topic name
 *   lakestream --conf FILE describe TOPIC|STREAM_ID             offsets, managed-ledger ledgers, WAL objects, cursors
 *   lakestream --conf FILE dump TOPIC|STREAM_ID [--from N] [--count K]   entries decoded as Pulsar messages
 *   lakestream --conf FILE compact TOPIC|STREAM_ID              one compaction pass over the stream, now
 * </pre>
 *
 * TOPIC is {@code persistent://tenant/namespace/topic} (a partition: {@code ...-partition-N}). Exit codes: 0 done,
 * 1 not found, 2 bad arguments or configuration.
 */
public final class OperatorCommand {

    static final String USAGE = """
            usage: lakestream --conf FILE streams
                   lakestream --conf FILE describe TOPIC|STREAM_ID
                   lakestream --conf FILE dump TOPIC|STREAM_ID [--from OFFSET] [--count ENTRIES]
                   lakestream --conf FILE compact TOPIC|STREAM_ID
              FILE: the broker's lakestream.* keys (a whole broker.conf will do)
              compact: WAL records older than lakestream.compaction.delay into segments, as a broker does (safe
                beside the stream's owner: a switch changes only records unchanged since it read them)
              TOPIC: persistent://tenant/namespace/topic (a partition: ...-partition-N)""";

    private static final int PREVIEW_BYTES = 64;
    private static final int MAX_OBJECTS_SHOWN = 1000;

    private final Lakestream log;
    private final PrintStream out;

    OperatorCommand(Lakestream log, PrintStream out) {
        this.log = log;
        this.out = out;
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    public static int run(String[] args, PrintStream out, PrintStream err) {
        Options options;
        try {
            options = Options.parse(args);
        } catch (ParameterException e) {
            err.println("lakestream: " + e.getMessage() + "\n" + USAGE);
            return 2;
        }
        if (options.help) {
            out.println(USAGE);
            return 0;
        }
        Path conf = options.conf;
        List<String> words = options.words;
        if (conf == null || words.isEmpty()) {
            err.println("lakestream: " + (conf == null ? "--conf FILE is required" : "a command is required") + "\n"
                    + USAGE);
            return 2;
        }
        String command = words.get(0);
        int arity = command.equals("streams") ? 1 : 2;
        if (!List.of("streams", "describe", "dump", "compact").contains(command) || words.size() != arity) {
            err.println("lakestream: unexpected arguments " + words + "\n" + USAGE);
            return 2;
        }
        if (options.count < 1) {
            err.println("lakestream: --count must be positive");
            return 2;
        }
        ToolConfig config = ToolConfig.load(conf);
        try (Lakestream log = Lakestream.open(config.reader())) {
            OperatorCommand tool = new OperatorCommand(log, out);
            if (command.equals("streams")) {
                tool.streams();
                return 0;
            }
            Optional<StreamInfo> stream = tool.resolve(words.get(1));
            if (stream.isEmpty()) {
                err.println("lakestream: no live stream for '" + words.get(1) + "'");
                return 1;
            }
            if (command.equals("describe")) {
                tool.describe(stream.get());
            } else if (command.equals("compact")) {
                return tool.compact(stream.get(), CompactionConfig.fromProperties(config.reader()), err);
            } else {
                tool.dump(stream.get(), options.from, options.count);
            }
            return 0;
        } catch (IllegalArgumentException e) {
            err.println("lakestream: " + e.getMessage());
            return 2;
        }
    }

    /**
     * The command line: what {@link #USAGE} describes. The options may come anywhere among the command's words (as
     * {@code dump TOPIC --from 4}).
     */
    @Command(name = "lakestream")
    static final class Options {
        @Option(
                names = {"--conf", "-c"},
                paramLabel = "FILE")
        Path conf;

        /** Where {@code dump} starts: null for the stream's start. */
        @Option(names = "--from", paramLabel = "OFFSET")
        Long from;

        @Option(names = "--count", paramLabel = "ENTRIES")
        int count = 10;

        @Option(
                names = {"-h", "--help"},
                usageHelp = true)
        boolean help;

        /** The command and its TOPIC|STREAM_ID. */
        @Parameters(paramLabel = "COMMAND")
        List<String> words = new ArrayList<>();

        /** Fails naming the option that is unknown, lacks its value or has a bad one. */
        static Options parse(String... args) {
            Options options = new Options();
            ToolCommandLine.of(options).parseArgs(args);
            return options;
        }
    }

    /** A stream by topic name or stream id. */
    Optional<StreamInfo> resolve(String topicOrId) {
        if (topicOrId.chars().allMatch(Character::isDigit)) {
            long id = Long.parseLong(topicOrId);
            return log.catalog()
                    .nameOf(id)
                    .join()
                    .flatMap(n -> log.catalog()
                            .lookup(n.get("namespace"), n.get("name"))
                            .join())
                    .filter(s -> s.id() == id && !s.deleted());
        }
        TopicRef topic = TopicRef.parse(topicOrId);
        String local = topic.partition() < 0 ? topic.topic() : topic.topic() + "-partition-" + topic.partition();
        String name = topic.tenant() + "/" + topic.namespace() + "/persistent/"
                + URLEncoder.encode(local, StandardCharsets.UTF_8);
        return log.catalog().lookup(Materializers.MANAGED_LEDGERS, name).join().filter(s -> !s.deleted());
    }

    /** The topic of a managed-ledger stream, else "-". */
    private static String topicOf(StreamInfo s) {
        if (Materializers.MANAGED_LEDGERS.equals(s.namespace())) {
            try {
                return TopicRef.fromManagedLedgerName(s.name()).toString();
            } catch (IllegalArgumentException e) {
                return "-"; // a non-persistent name, e.g. the transaction log's
            }
        }
        return "-";
    }

    void streams() {
        List<StreamInfo> live = new ArrayList<>();
        for (long id : log.catalog().allIds().join()) {
            log.catalog()
                    .nameOf(id)
                    .join()
                    .flatMap(n -> log.catalog()
                            .lookup(n.get("namespace"), n.get("name"))
                            .join())
                    .filter(s -> s.id() == id && !s.deleted())
                    .ifPresent(live::add);
        }
        live.sort(Comparator.comparingLong(StreamInfo::id));
        out.printf("%8s %12s %12s  %-60s %s%n", "STREAM", "START", "END", "TOPIC", "CATALOG NAME");
        for (StreamInfo s : live) {
            StreamLog stream = log.stream(s);
            out.printf(
                    "%8d %12d %12d  %-60s %s%n",
                    s.id(), stream.startOffset().join(), stream.endOffset().join(), topicOf(s), s.fullName());
        }
        out.printf("%d streams%n", live.size());
    }

    void describe(StreamInfo s) {
        StreamLog stream = log.stream(s);
        long start = stream.startOffset().join();
        long end = stream.endOffset().join();
        String root = log.config().metadataRoot();
        out.printf("stream %d: %s%n", s.id(), s.fullName());
        out.printf("  topic: %s%n", topicOf(s));
        out.printf("  created: %s%n", Instant.ofEpochMilli(s.createdAt()));
        out.printf("  offsets: start %d, end %d (%d entries readable)%n", start, end, end - start);
        if (!s.properties().isEmpty()) {
            out.printf("  properties: %s%n", s.properties());
        }
        Optional<ManagedLedgerRecord> ml =
                ManagedLedgerRecord.load(log.metadataStore(), root, s.id()).join();
        ml.ifPresent(r -> {
            out.printf(
                    "  managed ledger %s%s: %d ledgers%n",
                    r.name,
                    r.terminatedOffset == null ? "" : " (terminated at offset " + r.terminatedOffset + ")",
                    r.ledgers.size());
            for (ManagedLedgerRecord.LedgerEntry l : r.ledgers) {
                // Size and time are filled in when a ledger is closed.
                out.printf(
                        "    ledger %d: first offset %d%s%n",
                        l.id,
                        l.firstOffset,
                        l.timestamp == 0 ? "" : ", " + l.size + " B, closed " + Instant.ofEpochMilli(l.timestamp));
            }
        });
        List<IndexRecord> records = new OffsetIndex(log.metadataStore())
                .recordsFrom(s.id(), start, MAX_OBJECTS_SHOWN)
                .join();
        out.printf(
                "  objects (index records from offset %d%s):%n",
                start, records.size() == MAX_OBJECTS_SHOWN ? ", first " + MAX_OBJECTS_SHOWN : "");
        long bytes = 0;
        for (IndexRecord r : records) {
            bytes += r.value().entrySizeBytes();
            out.printf(
                    "    [%d, %d) %d entries, %d B of this stream in %s %s (%s %d B), committed %s%n",
                    r.startOffset(),
                    r.endOffset(),
                    r.value().entryCount(),
                    r.value().entrySizeBytes(),
                    r.value().isCompacted() ? "segment" : "WAL object",
                    r.value().location(),
                    r.value().isCompacted() ? "file type " + r.value().fileType() + "," : "data section",
                    r.value().fileSize(),
                    Instant.ofEpochMilli(r.timestamp()));
        }
        out.printf("  %d objects, %d B of entries%n", records.size(), bytes);
        CursorStore cursors = new CursorStore(log.metadataStore(), root);
        List<String> names = cursors.list(s.id()).join();
        out.printf("  cursors: %d%n", names.size());
        for (String name : names) {
            Optional<CursorState> c = cursors.load(s.id(), name).join();
            c.ifPresent(st -> out.printf(
                    "    %s: acknowledged below %d, %d more acknowledged individually, backlog" + " %d entries%s%n",
                    name,
                    st.ackedBefore(),
                    st.individuallyAcked().count(),
                    Math.max(0, end - st.ackedBefore() - st.individuallyAcked().countIn(st.ackedBefore(), end)),
                    st.properties().isEmpty() ? "" : ", properties " + st.properties()));
        }
    }

    /** One pass of the compactor over the stream, now; 0 when nothing failed, 1 otherwise. */
    int compact(StreamInfo s, CompactionConfig config, PrintStream err) {
        // No scheduled pass: the interval is only what the service waits before its first one, and this closes first.
        try (CompactionService service = CompactionService.start(
                log, config.withInterval(java.time.Duration.ofDays(1)), () -> List.of(s.id()))) {
            if (!service.compacts()) {
                err.println("lakestream: compaction is off here (" + CompactionConfig.ENABLED + "=false, or the "
                        + "segment format '" + config.format() + "' is not installed)");
                return 2;
            }
            service.runOnce().join();
        }
        CompactionMetrics m = log.metrics().compaction();
        out.printf(
                "stream %d: %d segments written (%d entries, %d B of entries, %d B of segments), %d leftover records"
                        + " deleted, %d failures%n",
                s.id(),
                m.segments(),
                m.entries(),
                m.payloadBytes(),
                m.segmentBytes(),
                m.leftoversDeleted(),
                m.failures());
        CompactionMetrics.Lag lag = m.lag().get(s.id());
        if (lag != null) {
            out.printf(
                    "  not compacted yet: the oldest WAL record is %d s old, %d B%n", lag.millis() / 1000, lag.bytes());
        }
        if (m.failures() > 0) {
            err.println("lakestream: " + m.lastError());
            return 1;
        }
        return 0;
    }

    void dump(StreamInfo s, Long fromOffset, int count) {
        StreamLog stream = log.stream(s);
        long start = stream.startOffset().join();
        long end = stream.endOffset().join();
        long from = fromOffset == null ? start : fromOffset;
        if (from < start || from > end) {
            throw new IllegalArgumentException("--from " + from + " is outside the stream's readable offsets [" + start
                    + ", " + end + ") of stream " + s.id());
        }
        int partition = -1;
        if (!topicOf(s).equals("-")) {
            partition = TopicRef.fromManagedLedgerName(s.name()).partition();
        }
        PositionResolver positions = Materializers.MANAGED_LEDGERS.equals(s.namespace())
                ? PositionResolver.managedLedger(
                        log.metadataStore(), log.config().metadataRoot(), s.id(), partition)
                : PositionResolver.streamOffsets(partition);
        positions.refresh();
        EntryDecoder decoder = new EntryDecoder();
        int shown = 0;
        long next = from;
        while (shown < count && next < end) {
            List<LogEntry> batch =
                    stream.read(next, count - shown, 16L * 1024 * 1024).join();
            if (batch.isEmpty()) {
                break;
            }
            try {
                for (LogEntry e : batch) {
                    if (shown == count) {
                        break;
                    }
                    printEntry(e, positions.position(e.offset()), decoder);
                    shown++;
                    next = e.endOffset();
                }
            } finally {
                batch.forEach(e -> e.payload().release());
            }
        }
        out.printf("%d entries from offset %d (stream end %d)%n", shown, from, end);
    }

    private void printEntry(LogEntry e, MessagePosition p, EntryDecoder decoder) {
        out.printf(
                "offset %d  position %d:%d  %d B  appended %s%n",
                e.offset(),
                p.ledgerId(),
                p.entryId(),
                e.payload().readableBytes(),
                Instant.ofEpochMilli(e.timestamp()));
        if (e.voided()) {
            out.printf("  (void: a stale owner's commit after the stream was sealed, never delivered)%n");
            return;
        }
        List<PulsarMessage> messages;
        try {
            messages = decoder.decode(e.payload(), "stream offset " + e.offset());
        } catch (EntryDecodeException | EncryptedMessageException ex) {
            out.printf("  (not shown: %s)%n", ex.getMessage());
            return;
        }
        if (messages.isEmpty()) {
            out.println("  (a marker: no message)");
        }
        for (PulsarMessage m : messages) {
            out.printf(
                    "  [batch index %d] key=%s publish=%s%s producer=%s sequence=%d%s%n",
                    m.batchIndex(),
                    m.key() == null ? "-" : m.key() + (m.keyBase64() ? " (base64)" : ""),
                    Instant.ofEpochMilli(m.publishTime()),
                    m.eventTime() == null ? "" : " event=" + Instant.ofEpochMilli(m.eventTime()),
                    m.producerName(),
                    m.sequenceId(),
                    m.schemaVersion() == null ? "" : " schemaVersion=" + m.schemaVersion());
            if (!m.properties().isEmpty()) {
                out.printf("    properties %s%n", m.properties());
            }
            out.printf("    payload %s%n", m.nullValue() ? "null" : preview(m.payload()));
        }
    }

    /** Printable UTF-8 as text, anything else in hex; at most {@value #PREVIEW_BYTES} bytes. */
    static String preview(byte[] payload) {
        int n = Math.min(payload.length, PREVIEW_BYTES);
        String more = payload.length > n ? "... (" + payload.length + " B)" : " (" + payload.length + " B)";
        String text = new String(payload, 0, n, StandardCharsets.UTF_8);
        boolean printable =
                text.codePoints().allMatch(c -> (c >= 0x20 && c != 0x7f && c != 0xfffd) || c == '\n' || c == '\t');
        if (printable) {
            return "\"" + text.replace("\n", "\\n").replace("\t", "\\t") + "\"" + more;
        }
        StringBuilder hex = new StringBuilder("0x");
        for (int i = 0; i < n; i++) {
            hex.append(String.format("%02x", payload[i]));
        }
        return hex + more;
    }
}
