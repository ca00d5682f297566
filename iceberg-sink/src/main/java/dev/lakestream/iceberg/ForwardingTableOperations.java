package dev.lakestream.iceberg;

import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.encryption.EncryptionManager;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.LocationProvider;

/** Iceberg table operations that forward every call: a base for operations that change one or two of them. */
class ForwardingTableOperations implements TableOperations {

    protected final TableOperations real;

    ForwardingTableOperations(TableOperations real) {
        this.real = real;
    }

    @Override
    public TableMetadata current() {
        return real.current();
    }

    @Override
    public TableMetadata refresh() {
        return real.refresh();
    }

    @Override
    public void commit(TableMetadata base, TableMetadata metadata) {
        real.commit(base, metadata);
    }

    @Override
    public FileIO io() {
        return real.io();
    }

    @Override
    public EncryptionManager encryption() {
        return real.encryption();
    }

    @Override
    public String metadataFileLocation(String fileName) {
        return real.metadataFileLocation(fileName);
    }

    @Override
    public LocationProvider locationProvider() {
        return real.locationProvider();
    }

    @Override
    public TableOperations temp(TableMetadata uncommittedMetadata) {
        return real.temp(uncommittedMetadata);
    }

    @Override
    public long newSnapshotId() {
        return real.newSnapshotId();
    }

    @Override
    public boolean requireStrictCleanup() {
        return real.requireStrictCleanup();
    }
}
