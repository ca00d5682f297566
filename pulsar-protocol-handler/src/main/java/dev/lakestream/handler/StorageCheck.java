package dev.lakestream.handler;

import org.apache.pulsar.broker.ServiceConfiguration;

/**
 * Refuses to run the plugin in a broker that does not run Lakestream storage, naming the key or file to fix. It
 * reads only the configuration and asks the broker's own class loader for the storage class: nothing here links to
 * the storage jar.
 */
final class StorageCheck {

    static final String STORAGE_CLASS = "dev.lakestream.pulsar.LakestreamManagedLedgerStorage";
    static final String STORAGE_KEY = "managedLedgerStorageClassName";

    private StorageCheck() {}

    /** Throws {@link IllegalStateException} naming what is missing when the broker does not run Lakestream. */
    static void require(ServiceConfiguration conf, ClassLoader brokerLoader) {
        String configured = conf.getManagedLedgerStorageClassName();
        if (!STORAGE_CLASS.equals(configured == null ? null : configured.trim())) {
            throw new IllegalStateException("The Lakestream broker plugin (messagingProtocols=lakestream) runs the"
                    + " background services of Lakestream storage, but this broker does not run it: set "
                    + STORAGE_KEY + "=" + STORAGE_CLASS + " in broker.conf (it is '" + configured + "'), or remove"
                    + " 'lakestream' from messagingProtocols. bin/lakestream-install writes both.");
        }
        try {
            Class.forName(STORAGE_CLASS, false, brokerLoader);
        } catch (ClassNotFoundException | LinkageError e) {
            throw new IllegalStateException(
                    "The Lakestream broker plugin found " + STORAGE_KEY + "=" + STORAGE_CLASS
                            + " but the broker's class path lacks that class: copy lakestream-pulsar-<version>.jar into"
                            + " PULSAR_HOME/lib (bin/lakestream-install does), or add it to PULSAR_EXTRA_CLASSPATH. The storage"
                            + " cannot come from the plugin's NAR: the broker creates it before it loads any plugin. ("
                            + e
                            + ")",
                    e);
        }
    }
}
