package dev.lakestream.core.catalog;

import dev.lakestream.core.log.LogException;

/** A catalog operation was refused. The message names the namespace and stream. */
public class CatalogException extends LogException {

    public enum Reason {
        ALREADY_EXISTS,
        NOT_FOUND,
        DELETED,
        CONCURRENT_UPDATE,
        /** Every id a create drew was taken already (see {@link StreamIds}); creating again draws further. */
        NO_FREE_ID
    }

    private final Reason reason;

    public CatalogException(Reason reason, String message) {
        super(message);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }
}
