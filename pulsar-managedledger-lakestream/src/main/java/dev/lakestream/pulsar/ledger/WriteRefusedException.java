package dev.lakestream.pulsar.ledger;

import org.apache.bookkeeper.mledger.ManagedLedgerException;

/**
 * An add refused because an earlier write of the ledger failed, until {@code readyToCreateNewLedger()} is called or
 * the ledger is opened again.
 *
 * <p>It is a {@link ManagedLedgerException.ManagedLedgerAlreadyClosedException} on purpose: BookKeeper's managed
 * ledger answers an add in that state so ("waiting to recover from failure"), and Pulsar's own users of a managed
 * ledger that is not a topic, the transaction coordinator's log and the pending-ack store, call
 * {@code readyToCreateNewLedger()} on exactly that exception. Answered anything else, a coordinator whose log had one
 * failed write never wrote again: it could neither end nor time out its transactions, and an open transaction holds
 * back every later message of its topics from consumers (found by the nemesis, docs/reliability.md). A topic is not
 * affected: it got a {@link WriteFailedException} for the failed add itself, and is closing.
 */
public final class WriteRefusedException extends ManagedLedgerException.ManagedLedgerAlreadyClosedException {

    private static final long serialVersionUID = 1L;

    WriteRefusedException(String message) {
        super(message);
    }
}
