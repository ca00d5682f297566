package dev.lakestream.iceberg.tool;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.lakestream.iceberg.MaterializerStatus;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Optional;

/**
 * The status a running standalone materializer publishes for {@code lakestream-materialize status}: one JSON file,
 * replaced whole through a rename (a reader never sees half of it).
 */
public final class StatusFile {

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    /** One topic partition's line. */
    public record Topic(
            String topic,
            long streamId,
            String table,
            MaterializerStatus.State state,
            long committedOffset,
            long streamEndOffset,
            long lagEntries,
            long lagMillis,
            long commits,
            long rowsCommitted,
            long deadLetters,
            long conflicts,
            String lastError) {

        static Topic of(String topic, long streamId, String table, MaterializerStatus s, long nowMillis) {
            return new Topic(
                    topic,
                    streamId,
                    table,
                    s.state(),
                    s.committedOffset(),
                    s.streamEndOffset(),
                    s.lagEntries(),
                    s.lagMillis(nowMillis),
                    s.commits(),
                    s.rowsCommitted(),
                    s.deadLetters(),
                    s.conflicts(),
                    s.lastError());
        }
    }

    /** The whole file: who wrote it and when. */
    public record Snapshot(long pid, long writtenAtMillis, boolean running, List<Topic> topics) {}

    private StatusFile() {}

    public static void write(Path file, Snapshot snapshot) {
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
            JSON.writeValue(tmp.toFile(), snapshot);
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the status file " + file, e);
        }
    }

    public static Optional<Snapshot> read(Path file) {
        if (!Files.exists(file)) {
            return Optional.empty();
        }
        try {
            return Optional.of(JSON.readValue(file.toFile(), Snapshot.class));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the status file " + file, e);
        }
    }
}
