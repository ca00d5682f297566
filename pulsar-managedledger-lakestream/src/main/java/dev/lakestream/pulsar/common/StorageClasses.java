package dev.lakestream.pulsar.common;

/**
 * The names of the two storage classes {@code LakestreamManagedLedgerStorage} offers ({@code set-persistence
 * --ml-storage-class}), which are also the {@code storage} values a broker node records ({@link BrokerNode}).
 */
public final class StorageClasses {

    /** Topics in Lakestream streams. */
    public static final String LAKESTREAM = "lakestream";

    /** Pulsar's stock BookKeeper managed ledgers. */
    public static final String BOOKKEEPER = "bookkeeper";

    private StorageClasses() {}
}
