package dev.lakestream.pulsar;

import org.apache.bookkeeper.mledger.ManagedLedger;
import org.apache.bookkeeper.mledger.impl.cache.EntryCache;
import org.apache.bookkeeper.mledger.impl.cache.EntryCacheManager;

/**
 * The broker's dynamic-config listeners call the default factory's entry-cache manager; Lakestream caches WAL
 * objects in the core ({@code lakestream.reader.cacheSize}), so this one holds nothing and ignores the knobs.
 */
final class NoopEntryCacheManager implements EntryCacheManager {

    private volatile long maxSize;
    private volatile double watermark = 0.9;

    NoopEntryCacheManager(long maxSize) {
        this.maxSize = maxSize;
    }

    @Override
    public EntryCache getEntryCache(ManagedLedger ml) {
        return null;
    }

    @Override
    public void removeEntryCache(String name) {}

    @Override
    public long getSize() {
        return 0;
    }

    @Override
    public long getMaxSize() {
        return maxSize;
    }

    @Override
    public void clear() {}

    @Override
    public void updateCacheSizeAndThreshold(long maxSize) {
        this.maxSize = maxSize;
    }

    @Override
    public void updateCacheEvictionWatermark(double watermark) {
        this.watermark = watermark;
    }

    @Override
    public double getCacheEvictionWatermark() {
        return watermark;
    }

    @Override
    public void doCacheEviction() {}

    @Override
    public void updateCacheEvictionExtendTTLOfEntriesWithRemainingExpectedReadsMaxTimes(int n) {}

    @Override
    public void updateCacheEvictionExtendTTLOfRecentlyAccessed(boolean b) {}
}
