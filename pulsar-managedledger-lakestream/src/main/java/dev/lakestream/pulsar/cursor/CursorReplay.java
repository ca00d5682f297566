package dev.lakestream.pulsar.cursor;

import dev.lakestream.pulsar.common.Callbacks;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.bookkeeper.mledger.AsyncCallbacks.ReadEntriesCallback;
import org.apache.bookkeeper.mledger.Entry;
import org.apache.bookkeeper.mledger.Position;

/**
 * Redelivery: reads the given positions again, whatever the read position, leaving out those acknowledged meanwhile.
 * All or nothing: when one read fails, the entries the others read are released and the callback gets the failure.
 * The callback runs on the ledger's executor.
 */
final class CursorReplay {

    private CursorReplay() {}

    /** Starts the reads and answers the positions left out because they are acknowledged. */
    static Set<? extends Position> replay(
            CursorOwner cursor,
            CursorLedger ml,
            Set<? extends Position> positions,
            ReadEntriesCallback cb,
            Object ctx,
            boolean sortEntries) {
        HashSet<Position> alreadyAcked = new HashSet<>();
        List<Position> toRead = new ArrayList<>();
        for (Position p : positions) {
            if (cursor.isMessageDeleted(p)) {
                alreadyAcked.add(p);
            } else {
                toRead.add(p);
            }
        }
        if (sortEntries) {
            Collections.sort(toRead);
        }
        List<CompletableFuture<Entry>> reads = new ArrayList<>();
        for (Position p : toRead) {
            reads.add(ml.readOne(ml.offsetOf(p)));
        }
        Callbacks.deliver(
                CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new)),
                ml.executor(),
                v -> cb.readEntriesComplete(joinAll(reads), ctx),
                e -> {
                    // all or nothing: the entries the other reads got are released before the failure is reported.
                    releaseSucceeded(reads);
                    cb.readEntriesFailed(e, ctx);
                });
        return alreadyAcked;
    }

    /** The entries of reads that all succeeded, in order. */
    private static List<Entry> joinAll(List<CompletableFuture<Entry>> reads) {
        List<Entry> out = new ArrayList<>(reads.size());
        for (CompletableFuture<Entry> r : reads) {
            out.add(r.join());
        }
        return out;
    }

    private static void releaseSucceeded(List<CompletableFuture<Entry>> reads) {
        for (CompletableFuture<Entry> r : reads) {
            if (!r.isCompletedExceptionally()) {
                r.join().release();
            }
        }
    }
}
