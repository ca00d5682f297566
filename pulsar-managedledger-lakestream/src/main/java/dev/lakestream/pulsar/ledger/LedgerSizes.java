package dev.lakestream.pulsar.ledger;

import dev.lakestream.core.StreamLog;
import dev.lakestream.pulsar.common.VirtualLedgers;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Sizes the virtual ledgers whose stored size is not final, from the stream's offset index. The record is written at
 * each rollover with every ledger's size as confirmed so far; the ledger that rollover closes may still have adds in
 * flight, whose bytes reach the record only at the next write, and the ledger open at the stop has no stored size at
 * all. So the last two ledgers are measured, and any stored with no size while holding entries (written by another
 * program, or by a version that lost them). Without it a topic's storage size, backlog size and size-based retention
 * count only what this owner confirmed, 0 right after a restart.
 */
public final class LedgerSizes {

    private LedgerSizes() {}

    /**
     * The ledgers of a stream readable from {@code start} to {@code end}, each with its size: as stored, or measured
     * (the last two, and those stored as 0) when it holds entries not trimmed away. The last ledger's size is what
     * {@link VirtualLedgers#setCurrentSize} takes.
     */
    public static CompletableFuture<VirtualLedgers> measured(
            StreamLog stream, List<VirtualLedgers.Ledger> ledgers, long start, long end) {
        List<CompletableFuture<Long>> sizes = new ArrayList<>();
        for (int i = 0; i < ledgers.size(); i++) {
            VirtualLedgers.Ledger l = ledgers.get(i);
            boolean last = i == ledgers.size() - 1;
            boolean notFinal = i >= ledgers.size() - 2 || l.size() == 0;
            long to = last ? end : ledgers.get(i + 1).firstOffset();
            sizes.add(
                    notFinal && to > l.firstOffset() && to > start
                            ? stream.payloadBytes(l.firstOffset(), to)
                            : CompletableFuture.completedFuture(l.size()));
        }
        return CompletableFuture.allOf(sizes.toArray(CompletableFuture[]::new)).thenApply(v -> {
            List<VirtualLedgers.Ledger> sized = new ArrayList<>();
            for (int i = 0; i < ledgers.size(); i++) {
                VirtualLedgers.Ledger l = ledgers.get(i);
                long size = i == ledgers.size() - 1 ? l.size() : sizes.get(i).join();
                sized.add(new VirtualLedgers.Ledger(l.id(), l.firstOffset(), size, l.timestamp()));
            }
            VirtualLedgers result = new VirtualLedgers(sized, end);
            if (!ledgers.isEmpty()) {
                result.setCurrentSize(sizes.get(sizes.size() - 1).join());
            }
            return result;
        });
    }
}
