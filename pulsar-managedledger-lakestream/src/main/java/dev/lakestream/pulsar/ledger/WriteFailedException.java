package dev.lakestream.pulsar.ledger;

import org.apache.bookkeeper.mledger.ManagedLedgerException;

/**
 * An add the ledger could not store (the object store or the metadata store failed it), or one queued behind it. Adds
 * made after it are refused with a {@link WriteRefusedException} until the ledger is ready to write again.
 *
 * <p>It is a {@link ManagedLedgerException.ManagedLedgerFencedException} on purpose: for that exception Pulsar's
 * topic closes and is loaded again, its deduplication state rebuilt from what is stored. For any other add failure
 * it fences the topic, disconnects its producers and un-fences it (resetting deduplication to the last persisted
 * sequence id) once the failed adds are answered; but a send the closed producer had already put on its connection
 * can still be accepted after that, though earlier sends failed. That send is stored out of order, and with
 * deduplication on the earlier ones, sent again, are answered "cannot tell whether duplicate", which the client
 * treats as done: acknowledged and never stored (found by the S3 fault suite, see docs/reliability.md). A topic
 * closed and loaded again has no such window.
 */
public final class WriteFailedException extends ManagedLedgerException.ManagedLedgerFencedException {

    private static final long serialVersionUID = 1L;

    WriteFailedException(String message, Throwable cause) {
        super(message);
        if (cause != null) {
            initCause(cause);
        }
    }
}
