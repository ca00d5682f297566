package dev.lakestream.pulsar.common;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.bookkeeper.mledger.ManagedLedgerException;

/** Blocking helpers for the synchronous API methods (never used on callback threads by this module). */
public final class Sync {
    private Sync() {}

    public static <T> T await(CompletableFuture<T> f) throws InterruptedException, ManagedLedgerException {
        try {
            return f.get(120, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            throw Errors.toMl(e.getCause());
        } catch (java.util.concurrent.TimeoutException e) {
            throw new ManagedLedgerException("timed out after 120 s");
        }
    }

    public static void await(CountDownLatch latch) throws InterruptedException {
        latch.await();
    }
}
