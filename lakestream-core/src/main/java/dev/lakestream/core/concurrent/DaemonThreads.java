package dev.lakestream.core.concurrent;

import java.util.Objects;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Thread factories for the storage's background threads. They are daemons so that a process that forgets to close
 * a store or a service can still exit; every thread is named, so a thread dump says whose it is.
 */
public final class DaemonThreads {

    private DaemonThreads() {}

    /** Daemon threads all called {@code name} (for single-thread executors). */
    public static ThreadFactory named(String name) {
        Objects.requireNonNull(name, "name");
        return r -> daemon(r, name);
    }

    /** Daemon threads called {@code prefix + n}, {@code n} counting from 1 for each factory. */
    public static ThreadFactory numbered(String prefix) {
        Objects.requireNonNull(prefix, "prefix");
        AtomicInteger n = new AtomicInteger();
        return r -> daemon(r, prefix + n.incrementAndGet());
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }
}
