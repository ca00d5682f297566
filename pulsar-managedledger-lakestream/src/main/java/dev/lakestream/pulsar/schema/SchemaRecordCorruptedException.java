package dev.lakestream.pulsar.schema;

import org.apache.pulsar.broker.service.schema.exceptions.SchemaException;

/**
 * A schema record that cannot be decoded, or a version whose data record is missing. Recoverable on purpose: Pulsar's
 * registry force-deletes a schema whose read fails with a non-recoverable error, and a corrupt record is evidence to
 * keep, not to wipe. An operator removes it with {@code pulsar-admin schemas delete --force}.
 */
public class SchemaRecordCorruptedException extends SchemaException {

    private static final long serialVersionUID = 1L;

    public SchemaRecordCorruptedException(String message) {
        super(true, message);
    }
}
