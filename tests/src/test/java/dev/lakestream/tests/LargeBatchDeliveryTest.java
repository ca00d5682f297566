package dev.lakestream.tests;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lakestream.iceberg.schema.MetadataColumns;
import dev.lakestream.iceberg.tool.MaterializeCommand;
import dev.lakestream.tests.Cli.Result;
import dev.lakestream.tests.iceberg.IcebergTables;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiPredicate;
import java.util.function.IntFunction;
import java.util.stream.Stream;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.data.Record;
import org.apache.pulsar.client.api.Consumer;
import org.apache.pulsar.client.api.Message;
import org.apache.pulsar.client.api.MessageId;
import org.apache.pulsar.client.api.MessageIdAdv;
import org.apache.pulsar.client.api.Producer;
import org.apache.pulsar.client.api.ProducerBuilder;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.PulsarClientException;
import org.apache.pulsar.client.api.Reader;
import org.apache.pulsar.client.api.SubscriptionInitialPosition;
import org.apache.pulsar.client.api.SubscriptionType;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Large entries end to end: producers batching 128 KiB to 5 MiB of 1 KiB messages at full speed, and chunked
 * messages above the broker's maximum message size. Every message the broker acknowledged to the producer is delivered
 * exactly once to every subscription made before the first send (Exclusive, Shared, Failover, Key_Shared, and a
 * reader from the earliest message, spread over the rows), chunked messages arrive whole and byte-identical, the
 * operator tool's {@code dump} prints every entry of the topic, and the standalone materializer puts every message in
 * the topic's Iceberg table.
 *
 * <p>The regression this guards: the core reader ({@code WalReader.plan}) went on to the next index record after the
 * byte budget refused an entry of this one, so a read returned entries with a hole and its caller, reading on from the
 * last entry's end, stepped over stored entries: consumers, the materializer and the dump silently skipped messages
 * (fixed in 19d517f; {@code StreamReadCompletenessTest} covers the reader itself).
 */
class LargeBatchDeliveryTest {

    private static final Logger LOG = LoggerFactory.getLogger(LargeBatchDeliveryTest.class);

    private static final int KIB = 1024;
    private static final int MIB = 1024 * KIB;
    private static final int MESSAGE_SIZE = KIB;
    /**
     * How long the producer's batch stays open. Long enough that the byte limit closes most batches at full speed
     * (the client's default of 1 ms closes them at a few hundred KiB), short enough that the last ones leave soon.
     */
    private static final int PUBLISH_DELAY_MS = 20;
    /** A subscription that has received nothing for this long, the producer done, has got all it will get. */
    private static final long IDLE_NANOS = TimeUnit.SECONDS.toNanos(15);

    private static final int CHUNKED_MESSAGES = 6;
    private static final int CHUNKED_SIZE = 7_000_000;

    /** The embedded stores: Pulsar's {@code rocksdb://}, the objects in a directory, the embedded metadata store. */
    @Nested
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    class Embedded extends Scenarios {

        @RegisterExtension
        static final PulsarBrokerExtension BROKER = PulsarBrokerExtension.embedded();

        @Override
        PulsarBrokerExtension broker() {
            return BROKER;
        }

        /**
         * The embedded metadata store admits one open store per directory (RocksDB's lock), and the broker holds it:
         * the tools run while the broker is stopped, as the README says for {@code bin/run-broker}.
         */
        @Override
        void withTheStoresFree(ToolRun run) throws Exception {
            BROKER.stopBroker();
            try {
                run.run();
            } finally {
                BROKER.start();
            }
        }
    }

    /** The production configuration: objects in an S3Proxy bucket, all metadata in Oxia; tools beside the broker. */
    @Nested
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    class OnS3ProxyAndOxia extends Scenarios {

        @RegisterExtension
        static final PulsarBrokerExtension BROKER = PulsarBrokerExtension.onS3ProxyAndOxia();

        @Override
        PulsarBrokerExtension broker() {
            return BROKER;
        }

        @Override
        void withTheStoresFree(ToolRun run) throws Exception {
            run.run();
        }
    }

    /** What reads a row's topic: a subscription of one type (one consumer) or a reader from the earliest message. */
    enum Sub {
        EXCLUSIVE(SubscriptionType.Exclusive),
        SHARED(SubscriptionType.Shared),
        FAILOVER(SubscriptionType.Failover),
        KEY_SHARED(SubscriptionType.Key_Shared),
        READER(null);

        final SubscriptionType type;

        Sub(SubscriptionType type) {
            this.type = type;
        }

        String label() {
            return type == null ? "reader from earliest" : type + " subscription";
        }
    }

    /**
     * A producer configuration: batches of at most {@code maxBytes} (and {@code maxMessages}, set high enough that
     * the bytes bind) of {@code messages} 1 KiB messages, read by {@code subs}.
     */
    record Row(String name, int maxBytes, int maxMessages, int messages, List<Sub> subs) {

        /** Messages in a batch the byte limit closes. */
        int fullBatch() {
            return maxBytes / MESSAGE_SIZE;
        }

        @Override
        public String toString() {
            return name + " batches, " + messages + " messages, " + subs;
        }
    }

    static Stream<Row> rows() {
        return Stream.of(
                // The client's defaults: 128 KiB or 1000 messages; 1 KiB messages fill the bytes first.
                new Row("128 KiB", 128 * KIB, 1000, 30_000, List.of(Sub.EXCLUSIVE, Sub.READER)),
                new Row("512 KiB", 512 * KIB, 10_000, 30_000, List.of(Sub.SHARED, Sub.FAILOVER)),
                new Row("1 MiB", MIB, 10_000, 40_000, List.of(Sub.KEY_SHARED, Sub.EXCLUSIVE, Sub.READER)),
                new Row("2 MiB", 2 * MIB, 10_000, 60_000, List.of(Sub.FAILOVER, Sub.SHARED)),
                // As large as an entry gets: the broker's maxMessageSize (5 MiB) bounds the whole batch, and the
                // client adds a few bytes of metadata per message to the payload bytes it counts; a batch of 5 MiB
                // of payloads would be refused by the client ("Message size is bigger than 5242880 bytes").
                new Row("5 MiB", 5 * MIB - 128 * KIB, 10_000, 120_000, List.of(Sub.KEY_SHARED, Sub.READER)));
    }

    @FunctionalInterface
    interface ToolRun {
        void run() throws Exception;
    }

    abstract static class Scenarios {

        /** The large-batch topic of the tool checks, produced once per broker. */
        private static final Map<PulsarBrokerExtension, Stored> STORED = new ConcurrentHashMap<>();

        @TempDir
        static Path dir;

        abstract PulsarBrokerExtension broker();

        /** Runs an operator tool on the broker's stores; on the embedded stores only with the broker stopped. */
        abstract void withTheStoresFree(ToolRun run) throws Exception;

        @ParameterizedTest(name = "{0}")
        @MethodSource("dev.lakestream.tests.LargeBatchDeliveryTest#rows")
        void everyAcknowledgedMessageIsDeliveredOncePerSubscription(Row row) throws Exception {
            String topic = "persistent://public/default/large-" + row.maxBytes();
            PulsarClient client = broker().newClient(b -> b.operationTimeout(60, TimeUnit.SECONDS));
            Delivery d = deliver(
                    client,
                    row.name(),
                    topic,
                    row.subs(),
                    batched(client, topic, row),
                    row.messages(),
                    LargeBatchDeliveryTest::message,
                    LargeBatchDeliveryTest::isMessage);
            List<String> problems = d.problems();
            // The row is what it says: dozens of entries close to the byte limit, not the publish delay's small ones.
            int nearlyFull = d.entriesOfAtLeast(row.fullBatch() * 3 / 4);
            if (nearlyFull < 8) {
                problems.add(String.format(
                        "only %d entries of at least 3/4 of %d messages (the byte limit): the batches did not grow"
                                + " large (entries of %s)",
                        nearlyFull, row.fullBatch(), d.batchSizes()));
            }
            assertThat(problems).as("row %s on %s", row, broker().stores()).isEmpty();
        }

        @Test
        void chunkedMessagesAboveTheMaxMessageSizeArriveWholeAndByteIdentical() throws Exception {
            assertThat(CHUNKED_SIZE)
                    .as("the messages exceed the broker's maxMessageSize, so the client chunks them")
                    .isGreaterThan(broker().configuration().getMaxMessageSize());
            String topic = "persistent://public/default/chunked";
            PulsarClient client = broker().newClient(b -> b.operationTimeout(60, TimeUnit.SECONDS));
            ProducerBuilder<byte[]> producer = client.newProducer()
                    .topic(topic)
                    .enableBatching(false)
                    .enableChunking(true)
                    .blockIfQueueFull(true)
                    .sendTimeout(120, TimeUnit.SECONDS);
            Delivery d = deliver(
                    client,
                    "chunked " + CHUNKED_MESSAGES + " x " + CHUNKED_SIZE + " B",
                    topic,
                    List.of(Sub.EXCLUSIVE, Sub.FAILOVER, Sub.READER),
                    producer,
                    CHUNKED_MESSAGES,
                    LargeBatchDeliveryTest::chunked,
                    (seq, payload) -> Arrays.equals(payload, chunked(seq)));
            assertThat(d.problems())
                    .as("chunked messages on %s", broker().stores())
                    .isEmpty();
        }

        @Test
        void theDumpToolPrintsEveryEntryOfALargeBatchTopic() throws Exception {
            Stored s = stored();
            Path conf = tools().write("dump", s.topic());
            AtomicReference<Result> dump = new AtomicReference<>();
            withTheStoresFree(() -> dump.set(Cli.runOk(
                    "lakestream",
                    "--conf",
                    conf.toString(),
                    "dump",
                    s.topic(),
                    "--from",
                    "0",
                    "--count",
                    Long.toString(s.entries()))));
            List<String> lines = dump.get().stdout().lines().toList();
            long printed = lines.stream().filter(l -> l.startsWith("offset ")).count();
            BitSet seqs = new BitSet();
            int repeated = 0;
            for (String l : lines) {
                if (l.startsWith("    properties {seq=")) {
                    int seq = Integer.parseInt(l.substring(l.indexOf('=') + 1, l.indexOf('}')));
                    repeated += seqs.get(seq) ? 1 : 0;
                    seqs.set(seq);
                }
            }
            String last = lines.isEmpty() ? "(no output)" : lines.get(lines.size() - 1);
            LOG.info("dump of {} ({} entries): {} entries printed; {}", s.topic(), s.entries(), printed, last);
            assertThat(printed)
                    .as("entries printed by dump --from 0 --count %d of %s (its last line: %s)", s.entries(), s, last)
                    .isEqualTo(s.entries());
            assertThat(last).isEqualTo(s.entries() + " entries from offset 0 (stream end " + s.entries() + ")");
            assertThat(missing(s.acked(), seqs))
                    .as("messages of %s the dump does not show (%d repeated)", s, repeated)
                    .isEqualTo("none");
            assertThat(repeated).as("messages the dump shows twice").isZero();
        }

        @Test
        void theMaterializedTableHasEveryAcknowledgedMessage() throws Exception {
            Stored s = stored();
            Path conf = tools().write("materialize", s.topic());
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            AtomicReference<Integer> code = new AtomicReference<>();
            withTheStoresFree(() -> code.set(MaterializeCommand.run(
                    new String[] {"--conf", conf.toString(), "--once"},
                    new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8),
                    null)));
            String said = out.toString(StandardCharsets.UTF_8);
            LOG.info("materialize --once: {}", said.strip());
            assertThat(code.get())
                    .as("exit code of lakestream-materialize --once; %s%s", said, err.toString(StandardCharsets.UTF_8))
                    .isZero();
            Catalog catalog = tools().catalog();
            List<Record> rows;
            try {
                rows = new IcebergTables(catalog).rows(s.topic());
            } finally {
                if (catalog instanceof AutoCloseable c) {
                    c.close();
                }
            }
            BitSet seqs = new BitSet();
            int repeated = 0;
            for (Record r : rows) {
                @SuppressWarnings("unchecked")
                Map<String, String> props = (Map<String, String>) r.getField(MetadataColumns.PROPERTIES);
                int seq = Integer.parseInt(props.get("seq"));
                repeated += seqs.get(seq) ? 1 : 0;
                seqs.set(seq);
            }
            assertThat(missing(s.acked(), seqs))
                    .as(
                            "acknowledged messages of %s missing from its table (%d rows, %d repeated; %s)",
                            s, rows.size(), repeated, said.strip())
                    .isEqualTo("none");
            assertThat(repeated).as("rows of one message twice").isZero();
            assertThat(rows).hasSize(s.acked().cardinality());
        }

        private StandaloneToolsConf tools() {
            return new StandaloneToolsConf(broker(), dir);
        }

        /**
         * A topic of 1 MiB batches for the tools: produced once per broker, with a subscription that acknowledges
         * nothing (so the topic stays and keeps every entry); its entry count from the broker's internal stats,
         * checked against the entries the producer's message ids name.
         */
        private Stored stored() throws Exception {
            Stored s = STORED.get(broker());
            if (s != null) {
                return s;
            }
            String topic = "persistent://public/default/large-for-tools";
            broker().admin().topics().createNonPartitionedTopic(topic);
            broker().admin().topics().createSubscription(topic, "holds-everything", MessageId.earliest);
            PulsarClient client = broker().newClient(b -> b.operationTimeout(60, TimeUnit.SECONDS));
            Row row = new Row("1 MiB", MIB, 10_000, 30_000, List.of());
            Delivery d = deliver(
                    client,
                    "tools",
                    topic,
                    List.of(),
                    batched(client, topic, row),
                    row.messages(),
                    LargeBatchDeliveryTest::message,
                    LargeBatchDeliveryTest::isMessage);
            assertThat(d.problems()).as("producing %s", topic).isEmpty();
            long entries = broker().admin().topics().getInternalStats(topic).numberOfEntries;
            assertThat(entries)
                    .as("the topic's entries (internal stats) against the entries of the acknowledged message ids")
                    .isEqualTo(d.ackedEntries());
            assertThat(d.ackedEntries()).as("entries of the tools' topic").isGreaterThanOrEqualTo(20);
            s = new Stored(topic, entries, d.acked());
            STORED.put(broker(), s);
            return s;
        }
    }

    /** The tools' topic: its name, entry count and the sequences the broker acknowledged. */
    record Stored(String topic, long entries, BitSet acked) {
        @Override
        public String toString() {
            return topic + " (" + entries + " entries, " + acked.cardinality() + " messages acknowledged)";
        }
    }

    private static ProducerBuilder<byte[]> batched(PulsarClient client, String topic, Row row) {
        return client.newProducer()
                .topic(topic)
                .enableBatching(true)
                .batchingMaxBytes(row.maxBytes())
                .batchingMaxMessages(row.maxMessages())
                .batchingMaxPublishDelay(PUBLISH_DELAY_MS, TimeUnit.MILLISECONDS)
                .blockIfQueueFull(true)
                .sendTimeout(120, TimeUnit.SECONDS);
    }

    /** Message {@code seq}: 1 KiB, its sequence in the first 8 bytes, the rest filled with its low byte. */
    static byte[] message(int seq) {
        byte[] b = new byte[MESSAGE_SIZE];
        Arrays.fill(b, (byte) seq);
        ByteBuffer.wrap(b).putLong(0, seq);
        return b;
    }

    static boolean isMessage(int seq, byte[] payload) {
        return Arrays.equals(payload, message(seq));
    }

    /** Chunked message {@code seq}: {@value #CHUNKED_SIZE} pseudo-random bytes of a seed of its own. */
    static byte[] chunked(int seq) {
        byte[] b = new byte[CHUNKED_SIZE];
        new Random(0x5eed_0000L + seq).nextBytes(b);
        return b;
    }

    /** "none", or how many of {@code expected} are not in {@code got} and the first of them. */
    static String missing(BitSet expected, BitSet got) {
        BitSet m = (BitSet) expected.clone();
        m.andNot(got);
        return m.isEmpty() ? "none" : m.cardinality() + " missing, the first sequence " + m.nextSetBit(0);
    }

    /**
     * Makes the subscriptions (and readers), then sends {@code count} messages as fast as the producer takes them
     * (asynchronous sends, blocking when its queue is full), and reads until every subscription has every
     * acknowledged message or has been idle for {@link #IDLE_NANOS} since the last send was answered.
     */
    static Delivery deliver(
            PulsarClient client,
            String name,
            String topic,
            List<Sub> subs,
            ProducerBuilder<byte[]> producerBuilder,
            int count,
            IntFunction<byte[]> payload,
            BiPredicate<Integer, byte[]> check)
            throws Exception {
        long t0 = System.nanoTime();
        Delivery d = new Delivery(name, count);
        List<Receiver> receivers = new ArrayList<>();
        try {
            for (Sub sub : subs) {
                receivers.add(new Receiver(sub, open(client, topic, sub), new Tally(sub), check));
            }
            receivers.forEach(Receiver::start);
            List<CompletableFuture<MessageId>> sends = new ArrayList<>(count);
            try (Producer<byte[]> producer = producerBuilder.create()) {
                for (int seq = 0; seq < count; seq++) {
                    int s = seq;
                    sends.add(producer.newMessage()
                            .property("seq", Integer.toString(seq))
                            .value(payload.apply(seq))
                            .sendAsync()
                            .whenComplete((id, e) -> d.answered(s, id, e)));
                }
                producer.flush();
                CompletableFuture.allOf(sends.toArray(new CompletableFuture<?>[0]))
                        .handle((v, e) -> null)
                        .get(5, TimeUnit.MINUTES);
            }
            long sent = System.nanoTime();
            int acked = d.acked().cardinality();
            for (Receiver r : receivers) {
                while (r.tally.distinct() < acked
                        && System.nanoTime() - Math.max(sent, r.tally.lastNanos()) < IDLE_NANOS) {
                    Thread.sleep(50);
                }
            }
            for (Receiver r : receivers) {
                r.stop();
                d.tallies.add(r.tally);
            }
            LOG.info(
                    "{} on {}: {} acknowledged in {} entries (messages per entry {}), sent in {} ms, read in {} ms"
                            + " more: {}",
                    name,
                    topic,
                    acked,
                    d.ackedEntries(),
                    d.batchSizes(),
                    TimeUnit.NANOSECONDS.toMillis(sent - t0),
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sent),
                    d.tallies);
            return d;
        } finally {
            for (Receiver r : receivers) {
                r.stop();
            }
        }
    }

    private static Source open(PulsarClient client, String topic, Sub sub) throws PulsarClientException {
        if (sub.type == null) {
            Reader<byte[]> reader = client.newReader()
                    .topic(topic)
                    .startMessageId(MessageId.earliest)
                    .create();
            return new Source() {
                @Override
                public Message<byte[]> next(int millis) throws PulsarClientException {
                    return reader.readNext(millis, TimeUnit.MILLISECONDS);
                }

                @Override
                public void done(Message<byte[]> m) {}

                @Override
                public void close() throws IOException {
                    reader.close();
                }
            };
        }
        Consumer<byte[]> consumer = client.newConsumer()
                .topic(topic)
                .subscriptionName(sub.name().toLowerCase(java.util.Locale.ROOT))
                .subscriptionType(sub.type)
                .subscriptionInitialPosition(SubscriptionInitialPosition.Earliest)
                .subscribe();
        return new Source() {
            @Override
            public Message<byte[]> next(int millis) throws PulsarClientException {
                return consumer.receive(millis, TimeUnit.MILLISECONDS);
            }

            @Override
            public void done(Message<byte[]> m) {
                // acknowledgements are grouped by the client; a lost one would show as a redelivery (a duplicate)
                var unused = consumer.acknowledgeAsync(m);
            }

            @Override
            public void close() throws IOException {
                consumer.close();
            }
        };
    }

    /** A consumer or a reader, as the receiving loop sees it. */
    interface Source extends java.io.Closeable {
        Message<byte[]> next(int millis) throws PulsarClientException;

        void done(Message<byte[]> m);
    }

    /** Receives on its own thread into a {@link Tally} until stopped. */
    static final class Receiver {
        final Sub sub;
        final Source source;
        final Tally tally;
        final BiPredicate<Integer, byte[]> check;
        private volatile boolean stopping;
        private Thread thread;

        Receiver(Sub sub, Source source, Tally tally, BiPredicate<Integer, byte[]> check) {
            this.sub = sub;
            this.source = source;
            this.tally = tally;
            this.check = check;
        }

        void start() {
            thread = Thread.ofPlatform().name("receive-" + sub).start(() -> {
                try {
                    while (!stopping) {
                        Message<byte[]> m = source.next(200);
                        if (m != null) {
                            int seq = Integer.parseInt(m.getProperty("seq"));
                            tally.received(seq, check.test(seq, m.getValue()));
                            source.done(m);
                        }
                    }
                } catch (Exception e) {
                    tally.failed(e);
                }
            });
        }

        void stop() throws Exception {
            if (thread != null) {
                stopping = true;
                thread.join(TimeUnit.SECONDS.toMillis(30));
                thread = null;
                source.close();
            }
        }
    }

    /** What one subscription (or reader) received. */
    static final class Tally {
        final Sub sub;
        private final BitSet seen = new BitSet();
        private int received;
        private int repeated;
        private int firstRepeated = -1;
        private int wrongPayloads;
        private int firstWrongPayload = -1;
        private Exception error;
        private volatile long lastNanos;

        Tally(Sub sub) {
            this.sub = sub;
        }

        synchronized void received(int seq, boolean payloadOk) {
            received++;
            if (seen.get(seq)) {
                repeated++;
                if (firstRepeated < 0) {
                    firstRepeated = seq;
                }
            }
            seen.set(seq);
            if (!payloadOk) {
                wrongPayloads++;
                if (firstWrongPayload < 0) {
                    firstWrongPayload = seq;
                }
            }
            lastNanos = System.nanoTime();
        }

        synchronized void failed(Exception e) {
            error = e;
        }

        synchronized int distinct() {
            return seen.cardinality();
        }

        long lastNanos() {
            return lastNanos;
        }

        /** What is wrong with this subscription's deliveries of {@code acked}, or null. */
        synchronized String problem(String row, BitSet acked) {
            BitSet extra = (BitSet) seen.clone();
            extra.andNot(acked);
            String missing = missing(acked, seen);
            if (missing.equals("none") && repeated == 0 && wrongPayloads == 0 && extra.isEmpty() && error == null) {
                return null;
            }
            return String.format(
                    "%s, %s: %d acknowledged, %d delivered (%d distinct); %s; %d delivered twice%s; %d not as sent%s;"
                            + " %d never acknowledged%s",
                    row,
                    sub.label(),
                    acked.cardinality(),
                    received,
                    seen.cardinality(),
                    missing,
                    repeated,
                    firstRepeated < 0 ? "" : " (the first sequence " + firstRepeated + ")",
                    wrongPayloads,
                    firstWrongPayload < 0 ? "" : " (the first sequence " + firstWrongPayload + ")",
                    extra.cardinality(),
                    error == null ? "" : "; receiving failed: " + error);
        }

        @Override
        public synchronized String toString() {
            return sub + " " + seen.cardinality();
        }
    }

    /** A row's sends and what each subscription received. */
    static final class Delivery {
        final String name;
        final int sent;
        private final BitSet acked = new BitSet();
        /** Per entry (ledger id, entry id) of the acknowledged message ids: its messages. */
        private final Map<List<Long>, Integer> entries = new HashMap<>();

        private int failed;
        private Throwable firstFailure;
        final List<Tally> tallies = new ArrayList<>();

        Delivery(String name, int sent) {
            this.name = name;
            this.sent = sent;
        }

        synchronized void answered(int seq, MessageId id, Throwable e) {
            if (e != null) {
                failed++;
                if (firstFailure == null) {
                    firstFailure = e;
                }
                return;
            }
            acked.set(seq);
            if (id instanceof MessageIdAdv adv) {
                entries.merge(List.of(adv.getLedgerId(), adv.getEntryId()), 1, Integer::sum);
            }
        }

        synchronized BitSet acked() {
            return (BitSet) acked.clone();
        }

        synchronized long ackedEntries() {
            return entries.size();
        }

        synchronized int entriesOfAtLeast(int messages) {
            return (int) entries.values().stream().filter(n -> n >= messages).count();
        }

        /** Messages per entry: min, median, max. */
        synchronized String batchSizes() {
            int[] n = entries.values().stream()
                    .mapToInt(Integer::intValue)
                    .sorted()
                    .toArray();
            return n.length == 0 ? "-" : n[0] + "/" + n[n.length / 2] + "/" + n[n.length - 1];
        }

        /** Every problem of the row: failed sends, and each subscription's missing, repeated or wrong messages. */
        synchronized List<String> problems() {
            List<String> p = new ArrayList<>();
            if (failed > 0) {
                p.add(name + ": " + failed + " of " + sent + " sends failed, the first: " + firstFailure);
            }
            for (Tally t : tallies) {
                String problem = t.problem(name, acked);
                if (problem != null) {
                    p.add(problem);
                }
            }
            return p;
        }
    }
}
