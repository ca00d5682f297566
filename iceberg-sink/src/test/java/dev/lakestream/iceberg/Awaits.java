package dev.lakestream.iceberg;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Waiting in tests for something a background thread publishes (a runner's status, a status file). */
final class Awaits {

    private Awaits() {}

    /** Polls {@code condition} every 20 ms; fails naming {@code what} if it is not true within {@code timeout}. */
    static void awaitUntil(String what, Duration timeout, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within " + timeout + ": " + what);
            }
            Thread.sleep(20);
        }
    }
}
