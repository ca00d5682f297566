package dev.lakestream.pulsar.metrics;

import org.apache.bookkeeper.mledger.ManagedCursorMXBean;

/**
 * The cursor stats Pulsar's MXBean asks for. A Lakestream cursor keeps its state in the metadata store through the
 * core cursor, not in a cursor ledger, so the ledger and ZooKeeper persistence counters stay zero and the size
 * updates are ignored.
 */
public final class LakestreamManagedCursorMXBean implements ManagedCursorMXBean {

    private final String cursorName;
    private final String ledgerName;

    public LakestreamManagedCursorMXBean(String cursorName, String ledgerName) {
        this.cursorName = cursorName;
        this.ledgerName = ledgerName;
    }

    @Override
    public String getName() {
        return cursorName;
    }

    @Override
    public String getLedgerName() {
        return ledgerName;
    }

    @Override
    public void persistToLedger(boolean success) {}

    @Override
    public void persistToZookeeper(boolean success) {}

    @Override
    public long getPersistLedgerSucceed() {
        return 0;
    }

    @Override
    public long getPersistLedgerErrors() {
        return 0;
    }

    @Override
    public long getPersistZookeeperSucceed() {
        return 0;
    }

    @Override
    public long getPersistZookeeperErrors() {
        return 0;
    }

    @Override
    public void addWriteCursorLedgerSize(long size) {}

    @Override
    public void addReadCursorLedgerSize(long size) {}

    @Override
    public long getWriteCursorLedgerSize() {
        return 0;
    }

    @Override
    public long getWriteCursorLedgerLogicalSize() {
        return 0;
    }

    @Override
    public long getReadCursorLedgerSize() {
        return 0;
    }
}
