package dev.lakestream.pulsar.metrics;

import dev.lakestream.core.Lakestream;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.bookkeeper.mledger.ManagedLedgerFactoryMXBean;

/**
 * The factory's cache statistics as the broker reads them ({@code ManagedLedgerFactory.getCacheStats()}). The cache
 * that matters here is the log's object cache (its size, hits and misses); the entry cache's rates, throughputs and
 * eviction counts are not kept (there is no entry cache), so they read 0.
 */
public final class LakestreamManagedLedgerFactoryMXBean implements ManagedLedgerFactoryMXBean {

    private final IntSupplier ledgers;
    private final Supplier<Lakestream.CacheStats> cache;
    private final LongSupplier maxSize;

    /**
     * @param ledgers how many managed ledgers are open
     * @param cache the log's object-cache statistics, read on each call
     * @param maxSize the configured cache size ({@code managedLedgerCacheSizeMB})
     */
    public LakestreamManagedLedgerFactoryMXBean(
            IntSupplier ledgers, Supplier<Lakestream.CacheStats> cache, LongSupplier maxSize) {
        this.ledgers = ledgers;
        this.cache = cache;
        this.maxSize = maxSize;
    }

    @Override
    public int getNumberOfManagedLedgers() {
        return ledgers.getAsInt();
    }

    @Override
    public long getCacheUsedSize() {
        return cache.get().bytes();
    }

    @Override
    public long getCacheMaxSize() {
        return maxSize.getAsLong();
    }

    @Override
    public double getCacheHitsRate() {
        return 0;
    }

    @Override
    public long getCacheHitsTotal() {
        return cache.get().hits();
    }

    @Override
    public double getCacheMissesRate() {
        return 0;
    }

    @Override
    public long getCacheMissesTotal() {
        return cache.get().misses();
    }

    @Override
    public double getCacheHitsThroughput() {
        return 0;
    }

    @Override
    public long getCacheHitsBytesTotal() {
        return 0;
    }

    @Override
    public double getCacheMissesThroughput() {
        return 0;
    }

    @Override
    public long getCacheMissesBytesTotal() {
        return 0;
    }

    @Override
    public long getNumberOfCacheEvictions() {
        return 0;
    }

    @Override
    public long getNumberOfCacheEvictionsTotal() {
        return 0;
    }

    @Override
    public long getCacheInsertedEntriesCount() {
        return 0;
    }

    @Override
    public long getCacheEvictedEntriesCount() {
        return 0;
    }

    @Override
    public long getCacheEntriesCount() {
        return 0;
    }
}
