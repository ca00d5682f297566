package dev.lakestream.pulsar.common;

import dev.lakestream.core.catalog.CatalogException;
import dev.lakestream.core.log.StreamFencedException;
import dev.lakestream.core.metadata.UnexpectedVersionException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.apache.bookkeeper.mledger.ManagedLedgerException;

/** Maps core failures to Pulsar's exceptions, and the one helper every unsupported method uses. */
public final class Errors {

    private Errors() {}

    public static Throwable unwrap(Throwable e) {
        while ((e instanceof CompletionException || e instanceof ExecutionException) && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
    }

    public static ManagedLedgerException toMl(Throwable t) {
        Throwable e = unwrap(t);
        if (e instanceof ManagedLedgerException mle) {
            return mle;
        }
        if (e instanceof StreamFencedException || e instanceof UnexpectedVersionException) {
            // Another owner raised the stream's fence or rewrote the ledger's record. Pulsar 5 then also stops
            // serving the topic's bundle if this broker's metadata session was lost (a paused or partitioned owner).
            ManagedLedgerException.ManagedLedgerFencedException f =
                    new ManagedLedgerException.ManagedLedgerFencedByAnotherWriterException(e.getMessage());
            f.initCause(e);
            return f;
        }
        if (e instanceof CatalogException ce && ce.reason() == CatalogException.Reason.NOT_FOUND) {
            return new ManagedLedgerException.ManagedLedgerNotFoundException(e.getMessage());
        }
        return new ManagedLedgerException(e);
    }

    /** The exception of a method this managed ledger does not implement, naming it and why. */
    public static ManagedLedgerException unsupported(String method, String why) {
        return new ManagedLedgerException("Lakestream managed ledger does not support " + method + ": " + why
                + " (see docs/managed-ledger.md, \"Unsupported managed-ledger methods\")");
    }

    public static <T> CompletableFuture<T> unsupportedFuture(String method, String why) {
        return CompletableFuture.failedFuture(unsupported(method, why));
    }
}
