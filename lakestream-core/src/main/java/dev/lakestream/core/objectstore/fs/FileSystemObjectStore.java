package dev.lakestream.core.objectstore.fs;

import dev.lakestream.core.concurrent.DaemonThreads;
import dev.lakestream.core.objectstore.BucketNotFoundException;
import dev.lakestream.core.objectstore.InvalidObjectKeyException;
import dev.lakestream.core.objectstore.InvalidRangeException;
import dev.lakestream.core.objectstore.ObjectAlreadyExistsException;
import dev.lakestream.core.objectstore.ObjectBody;
import dev.lakestream.core.objectstore.ObjectCorruptedException;
import dev.lakestream.core.objectstore.ObjectInfo;
import dev.lakestream.core.objectstore.ObjectKeys;
import dev.lakestream.core.objectstore.ObjectListing;
import dev.lakestream.core.objectstore.ObjectNotFoundException;
import dev.lakestream.core.objectstore.ObjectStore;
import dev.lakestream.core.objectstore.ObjectStoreException;
import dev.lakestream.core.objectstore.ObjectStoreLifecycle;
import dev.lakestream.core.objectstore.ObjectUpload;
import dev.lakestream.core.objectstore.PartUpload;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An {@link ObjectStore} in a local directory, for the embedded single-node mode and tests.
 *
 * <h2>Layout</h2>
 * Key {@code a/b/c} is the file {@code root/a/b/c}. Keys follow {@link ObjectKeys}; in addition a segment
 * is at most 255 bytes in UTF-8 (the usual file-name limit), may not start with {@code .lakestream-}
 * (reserved for temporary files) and may not end with {@code .crc32c}, in any case (the name of Ursa's
 * checksum files, below). A key cannot name both an object and a "directory" of other objects
 * ({@code a} and {@code a/b}): the second put fails with {@link InvalidObjectKeyException}.
 *
 * <h2>Checksums</h2>
 * Each file this store writes holds the object's bytes followed by an 8-byte trailer: the CRC32C of the
 * bytes (4 bytes, big-endian) and the magic {@code "LSC1"}. The object's size is the file's size less 8. A
 * whole-object get recomputes the CRC32C and checks the magic, so an altered, truncated or foreign file fails
 * with {@link ObjectCorruptedException} naming the root and the key. <b>Ranged gets are not verified</b>:
 * they read only the bytes asked for (like S3's, whose checksum also covers the whole object).
 *
 * <h2>Files Ursa wrote</h2>
 * The store also reads the files of Ursa's filesystem storage, so a directory Ursa wrote (or a mix) can be
 * read in place: the object's bytes as they are, no trailer, and beside the file a <em>sidecar</em>
 * {@code <file>.crc32c} holding the CRC32C of those bytes in decimal (signed or unsigned, whitespace around
 * it ignored). <b>The sidecar's presence decides the format</b>, never the file's last bytes (an object of
 * Ursa's may well end in {@code LSC1}): a file with a sidecar is all object bytes, its size the file's size,
 * checked on whole gets against the sidecar (a mismatch, or a sidecar holding no decimal CRC32C, is
 * {@link ObjectCorruptedException} naming the key, the sidecar and both checksums); ranged gets are not
 * verified, as for trailer files. A file with neither sidecar nor a valid trailer is corrupted, not read
 * unverified: that is what an Ursa write cut between its two files can leave, and nothing would vouch for
 * its bytes. Listings never return sidecars (nor a sidecar whose object is gone); a delete removes the
 * object's sidecar after the object; a put or putIfAbsent removes a sidecar left at its key before it
 * commits, so that it cannot be taken for the new file's checksum (while a put replaces an Ursa object, a
 * whole get can find the old file without its sidecar and report it corrupted; nothing here overwrites WAL
 * objects, whose keys are unique).
 *
 * <p>This store <b>writes only its own format</b>: one file, written under a temporary name and renamed (or
 * linked) into place, so the bytes and their checksum appear together in one atomic step and a crash never
 * leaves an object without its checksum, or beside the checksum of the object it replaced; create-if-absent
 * is one hard link. Ursa's two files cannot be committed in one step. The cost: an Ursa reader of a directory
 * this store wrote sees each object with 8 more bytes and no sidecar.
 *
 * <h2>Atomicity and durability</h2>
 * A put writes a temporary file {@code .lakestream-tmp-<uuid>} in the target's directory, forces it to
 * disk, then renames it over the target ({@code ATOMIC_MOVE}) and forces the directory; readers see the old
 * object or the new one, never a part. {@link #putIfAbsent} instead hard-links the temporary file to the
 * target name, which the kernel does atomically and refuses when the name exists, so exactly one of any
 * number of racing writers — threads or processes — wins; the filesystem must support hard links. Listings
 * skip temporary files (any name starting with {@code .lakestream-}) and sidecars; a crash can leave
 * temporary files behind, harmless. With {@code fsync=false} nothing is forced. {@link #newUpload} writes
 * its parts ({@value #UPLOAD_PART_BYTES} bytes each) into such a temporary file as they come, keeps the CRC32C
 * running, and at completion writes the trailer, forces and renames it the same way; an aborted or failed upload
 * deletes it. An upload that never fills a part is one put.
 *
 * <h2>Threads</h2>
 * All file I/O runs on a fixed pool of {@code ioThreads} daemon threads, and the futures complete there
 * (failures found before any I/O, such as an invalid key, are returned already failed).
 *
 * <h2>Listing</h2>
 * A listing walks the directories that can hold keys with the prefix, keeps the {@code maxKeys} smallest
 * keys after the continuation in UTF-8 byte order, and returns the last of them as the next continuation.
 * Each page costs a walk of that part of the tree, fine for the embedded mode's sizes.
 */
public final class FileSystemObjectStore implements ObjectStore {

    private static final Logger LOG = LoggerFactory.getLogger(FileSystemObjectStore.class);

    /** Names starting with this are never keys: temporary files. Public for readers of the directory (layout.md §1.3). */
    public static final String RESERVED_PREFIX = ".lakestream-";
    /** A put's temporary file is this followed by a random UUID, in the target's directory. */
    public static final String TEMP_PREFIX = RESERVED_PREFIX + "tmp-";
    /** {@code "LSC1"}: Lakestream checksum trailer, version 1. */
    static final int TRAILER_MAGIC = 0x4C534331;

    static final int TRAILER_LENGTH = 8;
    /** The part size of {@link #newUpload}: what an upload buffers before a write to its temporary file. */
    public static final int UPLOAD_PART_BYTES = 1 << 20;

    private static final int MAX_SEGMENT_BYTES = 255;
    private static final int MAX_OBJECT_SIZE = Integer.MAX_VALUE - 64;
    private static final AtomicInteger POOLS = new AtomicInteger();

    private final FileSystemObjectStoreConfig config;
    private final Path root;
    private final String location;
    private final boolean fsync;
    private final ThreadPoolExecutor io;
    private final ObjectStoreLifecycle lifecycle;

    /**
     * Opens (and, when configured, creates) the root directory.
     *
     * @throws BucketNotFoundException when the root is missing and {@code createRoot} is false
     * @throws ObjectStoreException when the root cannot be created or is not a directory
     */
    public FileSystemObjectStore(FileSystemObjectStoreConfig config) {
        this.config = config;
        this.root = config.root();
        this.location = "file://" + root;
        this.lifecycle = new ObjectStoreLifecycle("Filesystem object store " + location);
        this.fsync = config.fsync();
        if (!Files.isDirectory(root)) {
            if (Files.exists(root)) {
                throw new ObjectStoreException("Object store root " + root + " is not a directory");
            }
            if (!config.createRoot()) {
                throw new BucketNotFoundException("Object store root directory " + root + " does not exist (and "
                        + FileSystemObjectStoreConfig.CREATE_ROOT + " is false)");
            }
            try {
                Files.createDirectories(root);
            } catch (IOException e) {
                throw new ObjectStoreException("Cannot create the object store root directory " + root + ": " + e, e);
            }
        }
        int pool = POOLS.incrementAndGet();
        this.io = new ThreadPoolExecutor(
                config.ioThreads(),
                config.ioThreads(),
                30,
                TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(),
                DaemonThreads.numbered("lakestream-fs-io-" + pool + "-"));
        this.io.allowCoreThreadTimeOut(true);
        LOG.info("Opened filesystem object store {} (fsync {}, ioThreads {})", location, fsync, config.ioThreads());
    }

    public FileSystemObjectStoreConfig config() {
        return config;
    }

    /** The root directory. */
    public Path root() {
        return root;
    }

    @Override
    public String location() {
        return location;
    }

    /** The file that holds {@code key} (it may not exist). */
    public Path pathOf(String key) {
        validate(key);
        return root.resolve(key);
    }

    // ---------------------------------------------------------------------------------------------
    // Writes

    @Override
    public CompletableFuture<Void> put(String key, ByteBuffer data) {
        return write("put", key, data, false);
    }

    @Override
    public CompletableFuture<Void> putIfAbsent(String key, ByteBuffer data) {
        return write("putIfAbsent", key, data, true);
    }

    @Override
    public CompletableFuture<Void> put(String key, ObjectBody body) {
        return write("put", key, body, false);
    }

    @Override
    public ObjectUpload newUpload(String key) {
        return new FileUpload(key);
    }

    private CompletableFuture<Void> write(String op, String key, ByteBuffer data, boolean ifAbsent) {
        if (data.remaining() > MAX_OBJECT_SIZE) {
            return CompletableFuture.failedFuture(new IllegalArgumentException(
                    "An object is at most " + MAX_OBJECT_SIZE + " bytes: " + data.remaining()));
        }
        return write(op, key, ObjectBody.of(data.asReadOnlyBuffer().slice()), ifAbsent);
    }

    private CompletableFuture<Void> write(String op, String key, ObjectBody body, boolean ifAbsent) {
        Path target;
        try {
            target = pathOf(key);
        } catch (InvalidObjectKeyException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (body.length() > MAX_OBJECT_SIZE) {
            return CompletableFuture.failedFuture(new IllegalArgumentException(
                    "An object is at most " + MAX_OBJECT_SIZE + " bytes: " + body.length()));
        }
        return submit(op, key, () -> {
            writeObject(key, target, body, ifAbsent);
            return null;
        });
    }

    private void writeObject(String key, Path target, ObjectBody body, boolean ifAbsent) throws IOException {
        Path dir = target.getParent();
        ByteBuffer trailer = ByteBuffer.allocate(TRAILER_LENGTH)
                .putInt(body.crc32c())
                .putInt(TRAILER_MAGIC)
                .flip();
        // A concurrent delete may remove an emptied directory between our mkdir and our writes: retry.
        for (int attempt = 1; ; attempt++) {
            Path tmp = null;
            try {
                createDirectories(key, dir);
                tmp = dir.resolve(TEMP_PREFIX + UUID.randomUUID());
                try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                    // One gathering write of the body's parts and the trailer: no copy into one buffer first.
                    ByteBuffer[] views = body.views();
                    ByteBuffer[] all = java.util.Arrays.copyOf(views, views.length + 1);
                    all[views.length] = trailer.duplicate();
                    writeFully(ch, all);
                    if (fsync) {
                        ch.force(true);
                    }
                }
                if (ifAbsent) {
                    // A sidecar with no object beside it (Ursa's, orphaned) would be taken for our file's checksum.
                    // One whose object is there stays: the link fails, the object is kept whole.
                    if (UrsaSidecar.exists(target) && !Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
                        Files.deleteIfExists(UrsaSidecar.of(target));
                    }
                    try {
                        Files.createLink(target, tmp);
                    } catch (FileAlreadyExistsException e) {
                        if (Files.isDirectory(target, LinkOption.NOFOLLOW_LINKS)) {
                            throw conflict(key, "it names a directory of other objects");
                        }
                        throw new ObjectAlreadyExistsException(
                                "Object " + ObjectKeys.printable(key) + " already exists in " + location);
                    }
                    Files.delete(tmp);
                    tmp = null;
                    if (fsync) {
                        forceDirectory(dir);
                    }
                } else {
                    moveIntoPlace(key, target, tmp);
                    tmp = null;
                }
                return;
            } catch (NoSuchFileException e) {
                if (attempt >= 10) {
                    throw e;
                }
            } finally {
                if (tmp != null) {
                    Files.deleteIfExists(tmp);
                }
            }
        }
    }

    /** Renames a complete temporary file over {@code target}, atomically, and forces the directory. */
    private void moveIntoPlace(String key, Path target, Path tmp) throws IOException {
        // The file that replaces an Ursa object must not keep its sidecar: removed just before
        // the rename, after the new bytes are safely in the temporary file.
        if (UrsaSidecar.exists(target)) {
            Files.deleteIfExists(UrsaSidecar.of(target));
        }
        try {
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
        } catch (DirectoryNotEmptyException e) {
            throw conflict(key, "it names a directory of other objects");
        } catch (FileSystemException e) {
            if (Files.isDirectory(target, LinkOption.NOFOLLOW_LINKS)) {
                throw conflict(key, "it names a directory of other objects");
            }
            throw e;
        }
        if (fsync) {
            forceDirectory(target.getParent());
        }
    }

    /**
     * An upload into a temporary file beside the target, opened with the first part; the hooks run one at a time on the
     * I/O threads (see {@link PartUpload}), so the channel and the running CRC need no lock of their own.
     */
    private final class FileUpload extends PartUpload {

        private final CRC32C crc = new CRC32C();
        private Path tmp;
        private FileChannel channel;
        private long written;

        FileUpload(String key) {
            super(key, UPLOAD_PART_BYTES);
        }

        @Override
        protected CompletableFuture<Void> sendPart(int number, ByteBuffer part) {
            Path target;
            try {
                target = pathOf(key());
            } catch (InvalidObjectKeyException e) {
                return CompletableFuture.failedFuture(e);
            }
            return submit("upload part " + number + " of", key(), () -> {
                if (channel == null) {
                    open(target);
                }
                if (written + part.remaining() > MAX_OBJECT_SIZE) {
                    throw new IllegalArgumentException("An object is at most " + MAX_OBJECT_SIZE + " bytes: upload of "
                            + ObjectKeys.printable(key()) + " passes that at part " + number);
                }
                crc.update(part.duplicate());
                written += part.remaining();
                writeFully(channel, new ByteBuffer[] {part.duplicate()});
                return null;
            });
        }

        /** The temporary file, in the target's directory (made if missing; a concurrent delete may prune it). */
        private void open(Path target) throws IOException {
            Path dir = target.getParent();
            for (int attempt = 1; ; attempt++) {
                try {
                    createDirectories(key(), dir);
                    Path t = dir.resolve(TEMP_PREFIX + UUID.randomUUID());
                    channel = FileChannel.open(t, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
                    tmp = t;
                    return;
                } catch (NoSuchFileException e) {
                    if (attempt >= 10) {
                        throw e;
                    }
                }
            }
        }

        @Override
        protected CompletableFuture<Void> commit(int parts) {
            Path target = pathOf(key());
            return submit("complete upload (" + parts + " parts) of", key(), () -> {
                ByteBuffer trailer = ByteBuffer.allocate(TRAILER_LENGTH)
                        .putInt((int) crc.getValue())
                        .putInt(TRAILER_MAGIC)
                        .flip();
                writeFully(channel, new ByteBuffer[] {trailer});
                if (fsync) {
                    channel.force(true);
                }
                channel.close();
                channel = null;
                moveIntoPlace(key(), target, tmp);
                tmp = null;
                return null;
            });
        }

        @Override
        protected CompletableFuture<Void> putWhole(ByteBuffer bytes) {
            return put(key(), bytes);
        }

        @Override
        protected CompletableFuture<Void> discard() {
            if (tmp == null && channel == null) {
                return CompletableFuture.completedFuture(null);
            }
            // Not refused when the store is closing: the temporary file goes either way (harmless if it stays).
            CompletableFuture<Void> done = new CompletableFuture<>();
            Runnable drop = () -> {
                try {
                    if (channel != null) {
                        channel.close();
                        channel = null;
                    }
                    if (tmp != null) {
                        Files.deleteIfExists(tmp);
                        tmp = null;
                    }
                    done.complete(null);
                } catch (IOException | RuntimeException e) {
                    done.completeExceptionally(e);
                }
            };
            try {
                io.execute(drop);
            } catch (RejectedExecutionException e) {
                drop.run();
            }
            return done;
        }
    }

    /** Creates {@code dir} and the missing directories between it and the root, never the root itself. */
    private void createDirectories(String key, Path dir) throws IOException {
        if (Files.isDirectory(dir)) {
            return;
        }
        List<Path> missing = new ArrayList<>();
        for (Path d = dir; !d.equals(root); d = d.getParent()) {
            if (Files.isDirectory(d)) {
                break;
            }
            missing.add(d);
        }
        for (int i = missing.size() - 1; i >= 0; i--) {
            Path d = missing.get(i);
            try {
                Files.createDirectory(d);
            } catch (FileAlreadyExistsException e) {
                if (!Files.isDirectory(d)) {
                    throw conflict(
                            key,
                            "'" + root.relativize(d) + "' is an object, so it cannot also be a prefix"
                                    + " of other objects in a filesystem store");
                }
                continue;
            } catch (NoSuchFileException e) {
                if (!Files.isDirectory(root)) {
                    throw rootMissing(e);
                }
                throw e;
            }
            if (fsync) {
                forceDirectory(d.getParent());
            }
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Reads

    @Override
    public CompletableFuture<ByteBuffer> get(String key) {
        return getWhole(key, size -> ByteBuffer.allocate((int) size), b -> b, b -> {});
    }

    @Override
    public CompletableFuture<ByteBuf> get(String key, ByteBufAllocator allocator) {
        return getWhole(
                key,
                size -> allocator.directBuffer((int) size, (int) size).writerIndex((int) size),
                b -> b.nioBuffer(0, b.capacity()),
                ByteBuf::release);
    }

    /**
     * Reads a whole object into a buffer from {@code allocate}, checking its trailer or its Ursa sidecar; releases
     * the buffer on failure.
     */
    private <B> CompletableFuture<B> getWhole(
            String key,
            java.util.function.LongFunction<B> allocate,
            java.util.function.Function<B, ByteBuffer> view,
            java.util.function.Consumer<B> release) {
        Path path;
        try {
            path = pathOf(key);
        } catch (InvalidObjectKeyException e) {
            return CompletableFuture.failedFuture(e);
        }
        return submit("get", key, () -> {
            try (FileChannel ch = openForRead(key, path)) {
                String sidecar = UrsaSidecar.read(path);
                long size = objectSize(key, path, ch.size(), sidecar != null);
                if (size > MAX_OBJECT_SIZE) {
                    throw new ObjectStoreException("Object " + ObjectKeys.printable(key) + " in " + location
                            + " is too large to read whole: " + size + " bytes");
                }
                B out = allocate.apply(size);
                boolean done = false;
                try {
                    ByteBuffer data = view.apply(out);
                    readFully(ch, data, 0);
                    data.flip();
                    if (sidecar != null) {
                        checkSidecar(key, path, data, sidecar);
                        done = true;
                        return out;
                    }
                    ByteBuffer trailer = ByteBuffer.allocate(TRAILER_LENGTH);
                    readFully(ch, trailer, size);
                    trailer.flip();
                    int storedCrc = trailer.getInt();
                    int magic = trailer.getInt();
                    if (magic != TRAILER_MAGIC) {
                        throw corrupted(
                                key,
                                path,
                                "its checksum trailer is missing or damaged, and it has no sidecar "
                                        + UrsaSidecar.of(path).getFileName() + " (as the files Ursa writes have)");
                    }
                    CRC32C crc = new CRC32C();
                    crc.update(data.duplicate());
                    int actual = (int) crc.getValue();
                    if (actual != storedCrc) {
                        throw corrupted(
                                key,
                                path,
                                String.format(
                                        "its %d bytes have CRC32C %08x but %08x was stored with them",
                                        size, actual, storedCrc));
                    }
                    done = true;
                    return out;
                } finally {
                    if (!done) {
                        release.accept(out);
                    }
                }
            }
        });
    }

    /** Checks the bytes of an Ursa file, {@code data}, against the text of its sidecar. */
    private void checkSidecar(String key, Path path, ByteBuffer data, String sidecar) {
        Integer stored = UrsaSidecar.parse(sidecar);
        if (stored == null) {
            throw corrupted(
                    key,
                    path,
                    "its sidecar " + UrsaSidecar.of(path) + " holds \"" + printable(sidecar.strip())
                            + "\", not a decimal CRC32C");
        }
        CRC32C crc = new CRC32C();
        crc.update(data.duplicate());
        int actual = (int) crc.getValue();
        if (actual != stored) {
            throw corrupted(
                    key,
                    path,
                    "its " + data.remaining() + " bytes have CRC32C " + UrsaSidecar.describe(actual)
                            + " but its sidecar " + UrsaSidecar.of(path) + " holds " + UrsaSidecar.describe(stored));
        }
    }

    private static String printable(String s) {
        StringBuilder sb = new StringBuilder(s.length());
        s.codePoints().forEach(c -> sb.appendCodePoint(Character.isISOControl(c) ? '?' : c));
        return sb.toString();
    }

    @Override
    public CompletableFuture<ByteBuffer> get(String key, long offset, long length) {
        return getRange(key, offset, length, n -> ByteBuffer.allocate((int) n), b -> b, b -> {})
                .thenApply(ByteBuffer::flip);
    }

    @Override
    public CompletableFuture<ByteBuf> get(String key, long offset, long length, ByteBufAllocator allocator) {
        return getRange(
                key,
                offset,
                length,
                n -> allocator.directBuffer((int) n, (int) n).writerIndex((int) n),
                b -> b.nioBuffer(0, b.capacity()),
                ByteBuf::release);
    }

    private <B> CompletableFuture<B> getRange(
            String key,
            long offset,
            long length,
            java.util.function.LongFunction<B> allocate,
            java.util.function.Function<B, ByteBuffer> view,
            java.util.function.Consumer<B> release) {
        Path path;
        try {
            path = pathOf(key);
        } catch (InvalidObjectKeyException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (offset < 0 || length < 1) {
            return CompletableFuture.failedFuture(new IllegalArgumentException(
                    "need offset >= 0 and length >= 1: offset " + offset + ", length " + length));
        }
        return submit("get range of", key, () -> {
            try (FileChannel ch = openForRead(key, path)) {
                long size = objectSize(key, path, ch.size(), UrsaSidecar.exists(path));
                if (offset >= size) {
                    throw new InvalidRangeException("Range starting at offset " + offset
                            + " is at or past the end of object " + ObjectKeys.printable(key) + " (" + size
                            + " bytes) in " + location);
                }
                long n = Math.min(length, size - offset);
                if (n > MAX_OBJECT_SIZE) {
                    throw new IllegalArgumentException("A range is at most " + MAX_OBJECT_SIZE + " bytes: " + n);
                }
                B out = allocate.apply(n);
                boolean done = false;
                try {
                    readFully(ch, view.apply(out), offset);
                    done = true;
                    return out;
                } finally {
                    if (!done) {
                        release.accept(out);
                    }
                }
            }
        });
    }

    @Override
    public CompletableFuture<Optional<ObjectInfo>> head(String key) {
        Path path;
        try {
            path = pathOf(key);
        } catch (InvalidObjectKeyException e) {
            return CompletableFuture.failedFuture(e);
        }
        return submit("head", key, () -> {
            BasicFileAttributes attrs;
            try {
                attrs = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            } catch (NoSuchFileException | NotDirectoryException e) {
                checkRoot(e);
                return Optional.empty();
            } catch (FileSystemException e) {
                if (isNotDirectory(e)) {
                    checkRoot(e);
                    return Optional.empty();
                }
                throw e;
            }
            if (!attrs.isRegularFile()) {
                return Optional.empty();
            }
            return Optional.of(new ObjectInfo(
                    key,
                    objectSize(key, path, attrs.size(), UrsaSidecar.exists(path)),
                    attrs.lastModifiedTime().toInstant()));
        });
    }

    @Override
    public CompletableFuture<ObjectListing> list(String prefix, String continuation, int maxKeys) {
        RuntimeException problem = ObjectKeys.listArgumentsProblem(prefix, maxKeys, location);
        if (problem != null) {
            return CompletableFuture.failedFuture(problem);
        }
        return submit("list of prefix", prefix, () -> listPage(prefix, continuation, maxKeys));
    }

    private ObjectListing listPage(String prefix, String continuation, int maxKeys) throws IOException {
        if (!Files.isDirectory(root)) {
            throw rootMissing(null);
        }
        // The maxKeys + 1 smallest keys after the continuation: a max-heap that drops its largest.
        PriorityQueue<ObjectInfo> smallest = new PriorityQueue<>((a, b) -> ObjectKeys.compareUtf8(b.key(), a.key()));
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                if (dir.equals(root)) {
                    return FileVisitResult.CONTINUE;
                }
                if (UrsaSidecar.isSidecarName(dir.getFileName().toString())) {
                    return FileVisitResult.SKIP_SUBTREE; // no key can be under it
                }
                String dirKey = keyOf(dir) + "/";
                boolean mayHold = dirKey.startsWith(prefix) || prefix.startsWith(dirKey);
                // Every key under dir extends dirKey, so it compares with another key as dirKey does
                // unless that key starts with dirKey.
                boolean allBefore = continuation != null
                        && !continuation.startsWith(dirKey)
                        && ObjectKeys.compareUtf8(dirKey, continuation) < 0;
                boolean allAfter = smallest.size() > maxKeys
                        && ObjectKeys.compareUtf8(dirKey, smallest.peek().key()) > 0;
                return mayHold && !allBefore && !allAfter ? FileVisitResult.CONTINUE : FileVisitResult.SKIP_SUBTREE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                String name = file.getFileName().toString();
                if (!attrs.isRegularFile() || name.startsWith(RESERVED_PREFIX) || UrsaSidecar.isSidecarName(name)) {
                    return FileVisitResult.CONTINUE; // temporary files and Ursa's checksum files are no objects
                }
                String key = keyOf(file);
                if (!key.startsWith(prefix)
                        || (continuation != null && ObjectKeys.compareUtf8(key, continuation) <= 0)) {
                    return FileVisitResult.CONTINUE;
                }
                if (smallest.size() > maxKeys
                        && ObjectKeys.compareUtf8(key, smallest.peek().key()) >= 0) {
                    return FileVisitResult.CONTINUE;
                }
                long size = UrsaSidecar.exists(file) ? attrs.size() : Math.max(0, attrs.size() - TRAILER_LENGTH);
                smallest.add(new ObjectInfo(key, size, attrs.lastModifiedTime().toInstant()));
                if (smallest.size() > maxKeys + 1) {
                    smallest.poll();
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                if (e instanceof NoSuchFileException) {
                    return FileVisitResult.CONTINUE; // deleted while we walked
                }
                throw e;
            }
        });
        List<ObjectInfo> page = new ArrayList<>(smallest);
        page.sort((a, b) -> ObjectKeys.compareUtf8(a.key(), b.key()));
        if (page.size() > maxKeys) {
            page = page.subList(0, maxKeys);
            return new ObjectListing(page, page.get(page.size() - 1).key());
        }
        return new ObjectListing(page, null);
    }

    private String keyOf(Path file) {
        Path rel = root.relativize(file);
        StringBuilder sb = new StringBuilder();
        for (Path part : rel) {
            if (!sb.isEmpty()) {
                sb.append('/');
            }
            sb.append(part);
        }
        return sb.toString();
    }

    // ---------------------------------------------------------------------------------------------
    // Deletes

    @Override
    public CompletableFuture<Void> delete(Collection<String> keys) {
        List<String> list = List.copyOf(keys);
        List<Path> paths = new ArrayList<>(list.size());
        try {
            for (String key : list) {
                paths.add(pathOf(key));
            }
        } catch (InvalidObjectKeyException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (paths.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        String first = list.get(0);
        return submit("delete of " + list.size() + " keys from", first, () -> {
            if (!Files.isDirectory(root)) {
                throw rootMissing(null);
            }
            Set<Path> touched = new LinkedHashSet<>();
            for (Path path : paths) {
                try {
                    BasicFileAttributes attrs =
                            Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                    if (attrs.isDirectory()) {
                        continue; // a "directory" of other keys, not an object
                    }
                    Files.deleteIfExists(path);
                    touched.add(path.getParent());
                } catch (NoSuchFileException e) {
                    // already gone (its sidecar may not be)
                } catch (FileSystemException e) {
                    if (!isNotDirectory(e)) {
                        throw e;
                    }
                    continue;
                }
                // After the object, so that a crash in between leaves a sidecar alone (never listed) rather than
                // Ursa's bytes without their checksum.
                if (UrsaSidecar.exists(path)) {
                    Files.deleteIfExists(UrsaSidecar.of(path));
                    touched.add(path.getParent());
                }
            }
            Set<Path> durable = new LinkedHashSet<>();
            for (Path dir : touched) {
                durable.add(pruneEmptyDirectories(dir));
            }
            if (fsync) {
                for (Path dir : durable) {
                    if (Files.isDirectory(dir)) {
                        forceDirectory(dir);
                    }
                }
            }
            return null;
        });
    }

    /** Removes {@code dir} and its parents while they are empty (best effort); returns the first kept one. */
    private Path pruneEmptyDirectories(Path dir) {
        Path d = dir;
        while (!d.equals(root) && d.startsWith(root)) {
            try {
                Files.delete(d);
            } catch (NoSuchFileException e) {
                // already removed by another delete: go on with the parent
            } catch (IOException e) {
                return d; // not empty (or in use): keep it
            }
            d = d.getParent();
        }
        return d;
    }

    // ---------------------------------------------------------------------------------------------

    @Override
    public void close() {
        if (!lifecycle.close()) {
            return;
        }
        io.shutdown();
        try {
            if (!io.awaitTermination(10, TimeUnit.SECONDS)) {
                io.shutdownNow();
            }
        } catch (InterruptedException e) {
            io.shutdownNow();
            Thread.currentThread().interrupt();
        }
        LOG.info("Closed filesystem object store {}", location);
    }

    @FunctionalInterface
    private interface IoTask<T> {
        T run() throws IOException;
    }

    private <T> CompletableFuture<T> submit(String op, String key, IoTask<T> task) {
        CompletableFuture<T> result = new CompletableFuture<>();
        if (lifecycle.isClosed()) {
            result.completeExceptionally(lifecycle.closedError(op, key));
            return result;
        }
        try {
            io.execute(() -> {
                try {
                    result.complete(task.run());
                } catch (ObjectStoreException | IllegalArgumentException e) {
                    result.completeExceptionally(e);
                } catch (IOException e) {
                    result.completeExceptionally(mapIo(op, key, e));
                } catch (Throwable t) {
                    result.completeExceptionally(new ObjectStoreException(
                            op + " " + ObjectKeys.printable(key) + " in " + location + " failed: " + t, t));
                }
            });
        } catch (RejectedExecutionException e) {
            result.completeExceptionally(lifecycle.closedError(op, key));
        }
        return result;
    }

    private ObjectStoreException mapIo(String op, String key, IOException e) {
        String what = op + " " + ObjectKeys.printable(key) + " in " + location;
        if (!Files.isDirectory(root)) {
            return rootMissing(e);
        }
        if (e instanceof java.io.EOFException) {
            return corrupted(key, root.resolve(key), "the file shrank while it was read (" + e.getMessage() + ")");
        }
        if (e instanceof NoSuchFileException || isNotDirectory(e)) {
            return new ObjectNotFoundException(
                    "No object " + ObjectKeys.printable(key) + " in " + location + ": " + what + " failed", e);
        }
        if (e instanceof FileSystemException fse
                && fse.getReason() != null
                && fse.getReason().toLowerCase(java.util.Locale.ROOT).contains("name too long")) {
            return ObjectKeys.invalid(key, location, "a segment is too long for this filesystem");
        }
        return new ObjectStoreException(what + " failed: " + e, e);
    }

    private FileChannel openForRead(String key, Path path) throws IOException {
        if (Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
            throw new ObjectNotFoundException("No object " + ObjectKeys.printable(key) + " in " + location
                    + " (only a directory of other objects)");
        }
        return FileChannel.open(path, StandardOpenOption.READ);
    }

    /** The size of the object in {@code path}: the whole file when it has an Ursa sidecar, else less the trailer. */
    private long objectSize(String key, Path path, long fileSize, boolean sidecar) {
        if (sidecar) {
            return fileSize;
        }
        if (fileSize < TRAILER_LENGTH) {
            throw corrupted(
                    key,
                    path,
                    "its file is " + fileSize + " bytes, shorter than the checksum trailer, and it has no sidecar "
                            + UrsaSidecar.of(path).getFileName() + " (as the files Ursa writes have)");
        }
        return fileSize - TRAILER_LENGTH;
    }

    private void validate(String key) {
        ObjectKeys.validate(key, location);
        int start = 0;
        while (start <= key.length()) {
            int slash = key.indexOf('/', start);
            String segment = slash < 0 ? key.substring(start) : key.substring(start, slash);
            if (segment.startsWith(RESERVED_PREFIX)) {
                throw ObjectKeys.invalid(
                        key,
                        location,
                        "a segment starts with '" + RESERVED_PREFIX
                                + "', reserved for the filesystem store's temporary files");
            }
            if (UrsaSidecar.isSidecarName(segment)) {
                throw ObjectKeys.invalid(
                        key,
                        location,
                        "a segment ends with '" + UrsaSidecar.SUFFIX + "' (in any case), the name of the checksum files"
                                + " beside the objects of Ursa's filesystem storage, which this store reads");
            }
            if (ObjectKeys.utf8Length(segment) > MAX_SEGMENT_BYTES) {
                throw ObjectKeys.invalid(
                        key,
                        location,
                        "a segment is longer than " + MAX_SEGMENT_BYTES
                                + " bytes in UTF-8, the filesystem's limit on a file name");
            }
            if (slash < 0) {
                break;
            }
            start = slash + 1;
        }
    }

    private InvalidObjectKeyException conflict(String key, String why) {
        return ObjectKeys.invalid(key, location, why);
    }

    private ObjectCorruptedException corrupted(String key, Path path, String why) {
        return new ObjectCorruptedException("Object " + ObjectKeys.printable(key) + " under root " + root
                + " is corrupted (file " + path + " altered or truncated): " + why);
    }

    private BucketNotFoundException rootMissing(Throwable cause) {
        return new BucketNotFoundException("Object store root directory " + root + " does not exist", cause);
    }

    private void checkRoot(Throwable cause) {
        if (!Files.isDirectory(root)) {
            throw rootMissing(cause);
        }
    }

    private static boolean isNotDirectory(IOException e) {
        return e instanceof NotDirectoryException
                || (e instanceof FileSystemException fse
                        && fse.getReason() != null
                        && fse.getReason().toLowerCase(java.util.Locale.ROOT).contains("not a directory"));
    }

    private static void writeFully(FileChannel ch, ByteBuffer[] bufs) throws IOException {
        int first = 0;
        while (first < bufs.length) {
            if (!bufs[first].hasRemaining()) {
                first++;
                continue;
            }
            // A gathering write takes at most IOV_MAX buffers at a time: go on from the first one left.
            ch.write(bufs, first, bufs.length - first);
        }
    }

    private static void readFully(FileChannel ch, ByteBuffer buf, long position) throws IOException {
        long pos = position;
        while (buf.hasRemaining()) {
            int n = ch.read(buf, pos);
            if (n < 0) {
                throw new java.io.EOFException("file ended at " + pos + " while reading");
            }
            pos += n;
        }
    }

    private static void forceDirectory(Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }
}
