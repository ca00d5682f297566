package dev.lakestream.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lakestream.core.StreamLog;
import dev.lakestream.core.cursor.CursorState;
import dev.lakestream.core.cursor.CursorStore;
import dev.lakestream.core.metadata.embedded.EmbeddedMetadataStoreConfig;
import dev.lakestream.core.objectstore.fs.FileSystemObjectStoreConfig;
import dev.lakestream.iceberg.tool.OperatorCommand;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The operator tool ({@code bin/lakestream}) on the stores a configuration file names, nothing else running. */
class OperatorCommandTest {

    @TempDir
    Path dir;

    private record Run(int code, String out, String err) {}

    private Run run(String... args) throws Exception {
        return runWith("", args);
    }

    /** Runs the tool with {@code extraConf} (lines of {@code key=value}) added to the configuration file. */
    private Run runWith(String extraConf, String... args) throws Exception {
        Path conf = dir.resolve("tool.conf");
        Files.writeString(
                conf,
                "lakestream.objectStore=filesystem\n" + FileSystemObjectStoreConfig.ROOT + "="
                        + dir.resolve("objects") + "\nlakestream.metadataStore=embedded\n"
                        + EmbeddedMetadataStoreConfig.DATA_DIR + "=" + dir.resolve("metadata") + "\n" + extraConf);
        String[] all = new String[args.length + 2];
        all[0] = "--conf";
        all[1] = conf.toString();
        System.arraycopy(args, 0, all, 2, args.length);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = OperatorCommand.run(
                all,
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void listsDescribesAndDumpsATopicsStream() throws Exception {
        long id;
        try (Fixture f = new Fixture(dir)) {
            StreamLog stream = f.stream(TopicRef.parse("persistent://public/default/orders-v1-partition-2"));
            id = stream.id();
            Fixture.append(stream, ExactlyOnceTest.entries(0, 4));
            Fixture.append(stream, ExactlyOnceTest.entries(4, 2));
            new CursorStore(f.metadata, Fixture.ROOT)
                    .save(id, "sub-a", CursorState.at(3))
                    .join();
        }

        Run streams = run("streams");
        assertThat(streams.code()).as(streams.err()).isZero();
        assertThat(streams.out())
                .containsPattern(id + "\\s+0\\s+6\\s+persistent://public/default/orders-v1"
                        + "-partition-2\\s+managed-ledgers/public/default/persistent/orders-v1-partition-2")
                .contains("1 streams");

        Run byTopic = run("describe", "persistent://public/default/orders-v1-partition-2");
        assertThat(byTopic.code()).as(byTopic.err()).isZero();
        assertThat(byTopic.out())
                .contains("stream " + id + ": managed-ledgers/public/default/persistent/")
                .contains("offsets: start 0, end 6 (6 entries readable)")
                .containsPattern("\\[0, \\d\\) \\d entries")
                .contains("cursors: 1")
                .contains("sub-a: acknowledged below 3, 0 more acknowledged individually," + " backlog 3 entries");
        Run byId = run("describe", Long.toString(id));
        assertThat(byId.out()).isEqualTo(byTopic.out());

        Run dump = run("dump", "persistent://public/default/orders-v1-partition-2", "--from", "4", "--count", "1");
        assertThat(dump.code()).as(dump.err()).isZero();
        assertThat(dump.out())
                .contains("offset 4  position -1:4")
                .contains("[batch index 0] key=- publish=2025-11-24T16:00:00.004Z producer=p sequence=12")
                .contains("payload \"m-4-0\" (5 B)")
                .contains("[batch index 2]")
                .doesNotContain("m-5-0")
                .contains("1 entries from offset 4 (stream end 6)");
    }

    @Test
    void compactsAStreamNoBrokerOwnsAndStillDumpsIt() throws Exception {
        String topic = "persistent://public/default/compact-me";
        try (Fixture f = new Fixture(dir)) {
            StreamLog stream = f.stream(TopicRef.parse(topic));
            for (int i = 0; i < 5; i++) {
                Fixture.append(stream, ExactlyOnceTest.entries(2 * i, 2));
            }
        }
        Run compact = runWith("lakestream.compaction.delay=0s\n", "compact", topic);
        assertThat(compact.code()).as(compact.err()).isZero();
        assertThat(compact.out()).containsPattern("[1-9]\\d* segments written").contains(", 0 failures");
        Run describe = run("describe", topic);
        assertThat(describe.out())
                .containsPattern("\\[0, \\d+\\) \\d+ entries, \\d+ B of this stream in segment segments/");
        Run dump = run("dump", topic, "--from", "0", "--count", "10");
        assertThat(dump.code()).as(dump.err()).isZero();
        assertThat(dump.out()).contains("payload \"m-0-0\"").contains("payload \"m-9-0\"");
        // A second pass has nothing left but the stream's last record, which stays WAL.
        Run again = runWith("lakestream.compaction.delay=0s\n", "compact", topic);
        assertThat(again.out()).contains("0 segments written");
    }

    @Test
    void unknownStreamsAndBadArgumentsAreNamed() throws Exception {
        try (Fixture f = new Fixture(dir)) {
            f.stream(TopicRef.parse("persistent://public/default/a"));
        }
        Run missing = run("describe", "persistent://public/default/nope");
        assertThat(missing.code()).isEqualTo(1);
        assertThat(missing.err()).contains("no live stream for 'persistent://public/default/nope'");
        Run outside = run("dump", "persistent://public/default/a", "--from", "7");
        assertThat(outside.code()).isEqualTo(2);
        assertThat(outside.err()).contains("--from 7 is outside the stream's readable offsets [0, 0)");
        Run bad = run("frobnicate");
        assertThat(bad.code()).isEqualTo(2);
        assertThat(bad.err()).contains("unexpected arguments [frobnicate]");
    }
}
