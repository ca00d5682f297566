package dev.lakestream.iceberg.io;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;
import org.apache.iceberg.io.SeekableInputStream;
import org.apache.iceberg.io.SupportsPrefixOperations;

/**
 * An Iceberg {@link FileIO} on the local filesystem through {@code java.nio}.
 *
 * <p>Why not Iceberg's {@code HadoopFileIO}: with Hadoop 3.4 it fails on JDK 25 ({@code getSubject is not
 * supported}), and Iceberg has no local FileIO of its own. Locations are {@code file:} URIs ({@code file:/a/b} or
 * {@code file:///a/b}) or absolute paths; the location given is the one kept in metadata, so other engines
 * (pyiceberg, Spark) read the same strings. A file is created by writing a temporary sibling and moving it into
 * place atomically, so a reader never sees a half-written data or metadata file and {@code create} fails if the
 * file exists.
 */
public final class LocalFileIO implements FileIO, SupportsPrefixOperations {

    @Override
    public void initialize(Map<String, String> properties) {
        // No settings.
    }

    @Override
    public InputFile newInputFile(String location) {
        return new LocalInputFile(location, toPath(location));
    }

    @Override
    public OutputFile newOutputFile(String location) {
        return new LocalOutputFile(location, toPath(location));
    }

    @Override
    public void deleteFile(String location) {
        try {
            Files.deleteIfExists(toPath(location));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + location, e);
        }
    }

    /**
     * Every file under the directory {@code prefix} names (none if it does not exist), as {@code file:} URIs with
     * their size and last-modified time; for orphan-file removal.
     */
    @Override
    public Iterable<FileInfo> listPrefix(String prefix) {
        Path dir = toPath(prefix);
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        List<FileInfo> out = new ArrayList<>();
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                BasicFileAttributes a;
                try {
                    a = Files.readAttributes(f, BasicFileAttributes.class);
                } catch (NoSuchFileException gone) {
                    continue; // deleted meanwhile
                }
                if (a.isRegularFile()) {
                    out.add(new FileInfo(
                            f.toUri().toString(), a.size(), a.lastModifiedTime().toMillis()));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + prefix, e);
        }
        return out;
    }

    /** Deletes every file under the directory {@code prefix} names. */
    @Override
    public void deletePrefix(String prefix) {
        for (FileInfo f : listPrefix(prefix)) {
            deleteFile(f.location());
        }
    }

    /** The path of a {@code file:} URI or an absolute path; anything else is refused with the location named. */
    static Path toPath(String location) {
        if (location.startsWith("file:")) {
            return Path.of(URI.create(location));
        }
        if (location.startsWith("/")) {
            return Path.of(location);
        }
        throw new IllegalArgumentException("LocalFileIO reads file: URIs and absolute paths only, not '" + location
                + "' (use S3FileIO for s3:// warehouses)");
    }

    private record LocalInputFile(String location, Path path) implements InputFile {

        @Override
        public long getLength() {
            try {
                return Files.size(path);
            } catch (NoSuchFileException e) {
                throw new NotFoundException(e, "file %s does not exist", location);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot stat " + location, e);
            }
        }

        @Override
        public SeekableInputStream newStream() {
            try {
                return new ChannelInputStream(FileChannel.open(path, StandardOpenOption.READ));
            } catch (NoSuchFileException e) {
                throw new NotFoundException(e, "file %s does not exist", location);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot open " + location, e);
            }
        }

        @Override
        public boolean exists() {
            return Files.exists(path);
        }
    }

    private record LocalOutputFile(String location, Path path) implements OutputFile {

        @Override
        public PositionOutputStream create() {
            if (Files.exists(path)) {
                throw new AlreadyExistsException("file %s already exists", location);
            }
            return open(false);
        }

        @Override
        public PositionOutputStream createOrOverwrite() {
            return open(true);
        }

        private PositionOutputStream open(boolean overwrite) {
            try {
                Files.createDirectories(path.getParent());
                Path tmp = path.resolveSibling("." + path.getFileName() + "." + UUID.randomUUID() + ".tmp");
                return new MovingOutputStream(
                        location,
                        FileChannel.open(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE),
                        tmp,
                        path,
                        overwrite);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot create " + location, e);
            }
        }

        @Override
        public InputFile toInputFile() {
            return new LocalInputFile(location, path);
        }
    }

    private static final class ChannelInputStream extends SeekableInputStream {
        private final FileChannel channel;

        ChannelInputStream(FileChannel channel) {
            this.channel = channel;
        }

        @Override
        public long getPos() throws IOException {
            return channel.position();
        }

        @Override
        public void seek(long newPos) throws IOException {
            channel.position(newPos);
        }

        @Override
        public int read() throws IOException {
            ByteBuffer one = ByteBuffer.allocate(1);
            int n = channel.read(one);
            return n <= 0 ? -1 : one.get(0) & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (len == 0) {
                return 0;
            }
            return channel.read(ByteBuffer.wrap(b, off, len));
        }

        @Override
        public void close() throws IOException {
            channel.close();
        }
    }

    /** Writes a temporary file and moves it into place on close (atomically; refusing to replace unless asked). */
    private static final class MovingOutputStream extends PositionOutputStream {
        private final String location;
        private final FileChannel channel;
        private final Path tmp;
        private final Path target;
        private final boolean overwrite;
        private boolean closed;
        /** Parquet asks for the length after closing. */
        private long finalPos;

        MovingOutputStream(String location, FileChannel channel, Path tmp, Path target, boolean overwrite) {
            this.location = location;
            this.channel = channel;
            this.tmp = tmp;
            this.target = target;
            this.overwrite = overwrite;
        }

        @Override
        public long getPos() throws IOException {
            return closed ? finalPos : channel.position();
        }

        @Override
        public void write(int b) throws IOException {
            channel.write(ByteBuffer.wrap(new byte[] {(byte) b}));
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            ByteBuffer buf = ByteBuffer.wrap(b, off, len);
            while (buf.hasRemaining()) {
                channel.write(buf);
            }
        }

        @Override
        public void close() throws IOException {
            if (closed) {
                return;
            }
            finalPos = channel.position();
            closed = true;
            try {
                channel.force(true);
                channel.close();
                if (overwrite) {
                    Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                } else {
                    // A hard link fails if the target exists: create-if-absent without a check-then-act race.
                    Files.createLink(target, tmp);
                    Files.delete(tmp);
                }
            } catch (FileAlreadyExistsException e) {
                Files.deleteIfExists(tmp);
                throw new AlreadyExistsException("file %s already exists", location);
            } catch (IOException | RuntimeException e) {
                Files.deleteIfExists(tmp);
                throw e;
            }
        }
    }
}
