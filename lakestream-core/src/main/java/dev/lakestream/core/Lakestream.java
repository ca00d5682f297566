package dev.lakestream.core;

import dev.lakestream.core.catalog.StreamCatalog;
import dev.lakestream.core.catalog.StreamInfo;
import dev.lakestream.core.concurrent.DaemonThreads;
import dev.lakestream.core.config.ConfigKeys;
import dev.lakestream.core.config.ConfigReader;
import dev.lakestream.core.cursor.CursorStore;
import dev.lakestream.core.fence.PermanentWriteFences;
import dev.lakestream.core.fence.StreamFences;
import dev.lakestream.core.index.OffsetIndex;
import dev.lakestream.core.index.TimeIndex;
import dev.lakestream.core.index.VoidedRecords;
import dev.lakestream.core.metadata.MetadataStore;
import dev.lakestream.core.metadata.embedded.EmbeddedMetadataStore;
import dev.lakestream.core.metadata.embedded.EmbeddedMetadataStoreConfig;
import dev.lakestream.core.metadata.oxia.OxiaMetadataStore;
import dev.lakestream.core.metadata.oxia.OxiaMetadataStoreConfig;
import dev.lakestream.core.metrics.LakestreamMetrics;
import dev.lakestream.core.objectstore.ObjectStore;
import dev.lakestream.core.objectstore.fs.FileSystemObjectStore;
import dev.lakestream.core.objectstore.fs.FileSystemObjectStoreConfig;
import dev.lakestream.core.objectstore.s3.S3ObjectStore;
import dev.lakestream.core.objectstore.s3.S3ObjectStoreConfig;
import dev.lakestream.core.segment.SegmentFormats;
import dev.lakestream.core.trim.RetentionHolds;
import dev.lakestream.core.trim.StreamTrimmer;
import dev.lakestream.core.wal.ObjectCache;
import dev.lakestream.core.wal.TailWatcher;
import dev.lakestream.core.wal.WalReader;
import dev.lakestream.core.wal.WalWriter;
import java.time.Clock;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The Lakestream log on one object store and one metadata store: the entry point that wires the writer,
 * readers, index, catalog, trimming, fences, tailing and cursors together, and hands out per-stream
 * {@link StreamLog} handles. One instance serves every stream of a process.
 */
public final class Lakestream implements AutoCloseable {

    private final ObjectStore objects;
    private final MetadataStore metadata;
    private final boolean ownsStores;
    private final LakestreamConfig config;
    private final ScheduledExecutorService scheduler;
    private final ObjectCache cache;
    private final OffsetIndex index;
    private final StreamCatalog catalog;
    private final StreamFences fences;
    private final PermanentWriteFences writeFences;
    private final WalWriter writer;
    private final WalReader reader;
    /**
     * The formats of compacted segments this log reads: those on its class path, plus those a plugin added
     * ({@link #addSegmentFormats}). Replaced, never changed.
     */
    private volatile SegmentFormats segmentFormats;

    private final TailWatcher tail;
    private final StreamTrimmer trimmer;
    private final RetentionHolds retentionHolds;
    private final CursorStore cursors;
    private final TimeIndex timeIndex;
    private final LakestreamMetrics metrics;

    private Lakestream(
            ObjectStore objects, MetadataStore metadata, boolean ownsStores, LakestreamConfig config, Clock clock) {
        this.ownsStores = ownsStores;
        this.config = config;
        this.cache = new ObjectCache(config.reader().cacheBytes());
        this.metrics = new LakestreamMetrics(cache, config.reader().cacheBytes(), this::pendingAppendBytes);
        // Everything below (writer, readers, GC) reaches the object store through the metered view.
        this.objects = metrics.meter(objects);
        this.metadata = metadata;
        this.scheduler = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("lakestream-scheduler"));
        this.index = new OffsetIndex(metadata);
        this.catalog = new StreamCatalog(metadata, config.metadataRoot());
        this.fences = new StreamFences(metadata, config.metadataRoot());
        this.writeFences = new PermanentWriteFences(metadata);
        this.tail = new TailWatcher(metadata, index, scheduler, config.tailPollInterval());
        this.writer = new WalWriter(
                this.objects,
                metrics.meterIndexCommits(metadata),
                config.writer(),
                cache,
                // Both checked at once before a commit; a permanent fence's refusal is the one reported.
                writeFences.and(fences),
                tail::committed,
                scheduler,
                clock);
        this.segmentFormats = SegmentFormats.installed();
        this.reader =
                new WalReader(this.objects, index, fences.voidedRecords(), cache, config.reader(), segmentFormats);
        this.trimmer = new StreamTrimmer(metadata, index, config.metadataRoot());
        this.retentionHolds = new RetentionHolds(metadata, config.metadataRoot());
        this.cursors = new CursorStore(metadata, config.metadataRoot());
        this.timeIndex = new TimeIndex(index);
    }

    /**
     * Reads (and lets compaction write) the compacted segments of {@code formats} too, from now on: formats that a
     * plugin brings in its own class loader, e.g. the broker plugin's Parquet format. Idempotent.
     */
    public synchronized void addSegmentFormats(SegmentFormats formats) {
        segmentFormats = segmentFormats.plus(formats);
        reader.addSegmentFormats(formats);
    }

    /** The formats of compacted segments this log reads and compaction may write. */
    public SegmentFormats segmentFormats() {
        return segmentFormats;
    }

    /** A log on stores the caller owns (and closes). */
    public static Lakestream open(ObjectStore objects, MetadataStore metadata, LakestreamConfig config) {
        return new Lakestream(objects, metadata, false, config, Clock.systemUTC());
    }

    /** As {@link #open(ObjectStore, MetadataStore, LakestreamConfig)}, naming WAL objects by {@code clock}. */
    public static Lakestream open(ObjectStore objects, MetadataStore metadata, LakestreamConfig config, Clock clock) {
        return new Lakestream(objects, metadata, false, config, clock);
    }

    /**
     * A log on the stores the properties describe ({@code lakestream.objectStore}, {@code lakestream.metadataStore}
     * and their keys); it owns them and closes them on {@link #close()}.
     *
     * @throws dev.lakestream.core.config.ConfigException for an unknown {@code lakestream.*} key (naming the nearest
     *     known key) or an invalid value
     */
    public static Lakestream open(ConfigReader properties) {
        ConfigKeys.requireKnown(properties.keys());
        LakestreamConfig config = LakestreamConfig.fromProperties(properties);
        ObjectStore objects = switch (LakestreamConfig.objectStoreKind(properties)) {
            case S3 -> new S3ObjectStore(S3ObjectStoreConfig.fromProperties(properties));
            case FILESYSTEM -> new FileSystemObjectStore(FileSystemObjectStoreConfig.fromProperties(properties));
        };
        MetadataStore metadata;
        try {
            metadata = switch (LakestreamConfig.metadataStoreKind(properties)) {
                case OXIA -> OxiaMetadataStore.open(OxiaMetadataStoreConfig.fromProperties(properties));
                case EMBEDDED -> EmbeddedMetadataStore.open(EmbeddedMetadataStoreConfig.fromProperties(properties));
            };
        } catch (RuntimeException e) {
            objects.close();
            throw e;
        }
        return new Lakestream(objects, metadata, true, config, Clock.systemUTC());
    }

    /** A handle on one stream (cheap; handles of the same stream share everything). */
    public StreamLog stream(StreamInfo info) {
        return new StreamLog(this, info.id(), info.fullName());
    }

    /** A handle on a stream by id, for programs that know the id (e.g. from the bucket). */
    public StreamLog stream(long streamId) {
        return new StreamLog(this, streamId, "#" + streamId);
    }

    public StreamCatalog catalog() {
        return catalog;
    }

    public ObjectStore objectStore() {
        return objects;
    }

    public MetadataStore metadataStore() {
        return metadata;
    }

    public LakestreamConfig config() {
        return config;
    }

    /** The storage's metrics (object-store calls, index commits, cache, writer, GC), e.g. for Prometheus. */
    public LakestreamMetrics metrics() {
        return metrics;
    }

    /** What the object cache holds and how it has served reads, for broker metrics. */
    public record CacheStats(long bytes, long maxBytes, long hits, long misses) {}

    public CacheStats cacheStats() {
        return new CacheStats(cache.bytes(), config.reader().cacheBytes(), cache.hits(), cache.misses());
    }

    private long pendingAppendBytes() {
        return writer.pendingBytes();
    }

    ObjectCache cache() {
        return cache;
    }

    OffsetIndex index() {
        return index;
    }

    StreamFences fences() {
        return fences;
    }

    /** Which index records are void (a stale owner's, docs/layout.md §5): what every reader of the log must ask. */
    public VoidedRecords voidedRecords() {
        return fences.voidedRecords();
    }

    PermanentWriteFences writeFences() {
        return writeFences;
    }

    WalWriter writer() {
        return writer;
    }

    WalReader reader() {
        return reader;
    }

    TailWatcher tail() {
        return tail;
    }

    /** The streams' retention holds (floors retention does not trim below; see {@link RetentionHolds}). */
    public RetentionHolds retentionHolds() {
        return retentionHolds;
    }

    StreamTrimmer trimmer() {
        return trimmer;
    }

    CursorStore cursors() {
        return cursors;
    }

    TimeIndex timeIndex() {
        return timeIndex;
    }

    ScheduledExecutorService scheduler() {
        return scheduler;
    }

    /** Flushes pending appends and waits for them, then stops the background work (and the owned stores). */
    @Override
    public void close() {
        try {
            writer.close();
        } finally {
            tail.close();
            fences.close();
            writeFences.close();
            // The cached objects and read-ahead ranges are off-heap: give them back.
            reader.close();
            cache.clear();
            scheduler.shutdownNow();
            if (ownsStores) {
                try {
                    metadata.close();
                } finally {
                    objects.close();
                }
            }
        }
    }
}
