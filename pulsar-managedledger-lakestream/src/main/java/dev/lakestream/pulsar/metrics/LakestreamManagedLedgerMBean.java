package dev.lakestream.pulsar.metrics;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.apache.bookkeeper.mledger.ManagedLedger;
import org.apache.bookkeeper.mledger.impl.ManagedLedgerMBeanImpl;
import org.apache.bookkeeper.mledger.proto.PendingBookieOpsStats;

/**
 * Stats of a Lakestream managed ledger. It extends {@link ManagedLedgerMBeanImpl} because the broker's Prometheus
 * code casts {@code getStats()} to it; it is built with a null managed ledger and overrides every method that would
 * touch one.
 */
public final class LakestreamManagedLedgerMBean extends ManagedLedgerMBeanImpl {

    private final ManagedLedger ml;
    private final LongAdder addOps = new LongAdder();
    private final LongAdder addBytes = new LongAdder();
    private final LongAdder addErrors = new LongAdder();
    private final LongAdder readEntries = new LongAdder();
    private final LongAdder readBytes = new LongAdder();
    private final LongAdder readErrors = new LongAdder();
    private final LongAdder markDeletes = new LongAdder();

    public LakestreamManagedLedgerMBean(ManagedLedger ml) {
        super(null);
        this.ml = ml;
    }

    public void recordAdd(long bytes) {
        addOps.increment();
        addBytes.add(bytes);
    }

    public void recordRead(int entries, long bytes) {
        readEntries.add(entries);
        readBytes.add(bytes);
    }

    @Override
    public void refreshStats(long period, TimeUnit unit) {}

    @Override
    public void addAddEntrySample(long size) {
        recordAdd(size);
    }

    @Override
    public void addMarkDeleteOp() {
        markDeletes.increment();
    }

    @Override
    public void recordAddEntryError() {
        addErrors.increment();
    }

    @Override
    public void recordReadEntriesError() {
        readErrors.increment();
    }

    @Override
    public void recordReadEntriesOpsCacheMisses(int count, long totalSize) {}

    @Override
    public void addAddEntryLatencySample(long latency, TimeUnit unit) {}

    @Override
    public void addLedgerAddEntryLatencySample(long latency, TimeUnit unit) {}

    @Override
    public void addLedgerSwitchLatencySample(long latency, TimeUnit unit) {}

    @Override
    public void addReadEntriesSample(int count, long totalSize) {
        recordRead(count, totalSize);
    }

    @Override
    public String getName() {
        return ml.getName();
    }

    @Override
    public long getEntriesReadTotalCount() {
        return readEntries.sum();
    }

    @Override
    public long getAddEntryBytesTotal() {
        return addBytes.sum();
    }

    @Override
    public long getAddEntryWithReplicasBytesTotal() {
        return addBytes.sum();
    }

    @Override
    public long getReadEntriesBytesTotal() {
        return readBytes.sum();
    }

    @Override
    public long getAddEntrySucceed() {
        return addOps.sum();
    }

    @Override
    public long getAddEntrySucceedTotal() {
        return addOps.sum();
    }

    @Override
    public long getAddEntryErrors() {
        return addErrors.sum();
    }

    @Override
    public long getAddEntryErrorsTotal() {
        return addErrors.sum();
    }

    @Override
    public long getReadEntriesSucceeded() {
        return readEntries.sum();
    }

    @Override
    public long getReadEntriesSucceededTotal() {
        return readEntries.sum();
    }

    @Override
    public long getReadEntriesErrors() {
        return readErrors.sum();
    }

    @Override
    public long getReadEntriesErrorsTotal() {
        return readErrors.sum();
    }

    @Override
    public long getMarkDeleteTotal() {
        return markDeletes.sum();
    }

    @Override
    public long getStoredMessagesSize() {
        return ml.getTotalSize();
    }

    @Override
    public long getStoredMessagesLogicalSize() {
        return ml.getTotalSize();
    }

    @Override
    public long getNumberOfMessagesInBacklog() {
        long n = 0;
        for (var c : ml.getCursors()) {
            n += c.getNumberOfEntriesInBacklog(false);
        }
        return n;
    }

    @Override
    public PendingBookieOpsStats getPendingBookieOpsStats() {
        return new PendingBookieOpsStats();
    }
}
