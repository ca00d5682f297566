package dev.lakestream.tests;

import java.util.concurrent.TimeUnit;

/** Waits on a condition with a generous limit (no fixed sleeps in the tests). */
public final class Await {

    @FunctionalInterface
    public interface Condition {
        boolean holds() throws Exception;
    }

    private Await() {}

    /** Polls {@code condition} every 100 ms until it holds; fails naming {@code what} after {@code seconds}. */
    public static void until(String what, int seconds, Condition condition) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        Exception last = null;
        while (System.nanoTime() < deadline) {
            try {
                if (condition.holds()) {
                    return;
                }
                last = null;
            } catch (Exception e) {
                last = e;
            }
            Thread.sleep(100);
        }
        AssertionError e = new AssertionError("not within " + seconds + " s: " + what);
        if (last != null) {
            e.initCause(last);
        }
        throw e;
    }
}
