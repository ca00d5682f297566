package dev.lakestream.pulsar.ledger;

import java.util.ArrayDeque;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs tasks one at a time in submission order on a shared pool: the callback thread of one managed ledger.
 *
 * <p>Why not Guava's {@code MoreExecutors.newSequentialExecutor}: that one drains its queue to the end on the pool
 * thread it got, so a ledger whose callbacks keep coming (a hot topic's adds) holds that thread for as long as they
 * do, and the other ledgers on the pool wait. This one gives the thread back after 1,024 tasks and queues itself
 * again, and logs a failing callback through SLF4J instead of {@code java.util.logging}.
 */
final class SerialExecutor implements Executor {

    private static final Logger LOG = LoggerFactory.getLogger(SerialExecutor.class);

    private final Executor pool;
    private final ArrayDeque<Runnable> tasks = new ArrayDeque<>();
    private boolean running;

    SerialExecutor(Executor pool) {
        this.pool = pool;
    }

    @Override
    public void execute(Runnable task) {
        synchronized (this) {
            tasks.add(task);
            if (running) {
                return;
            }
            running = true;
        }
        pool.execute(this::drain);
    }

    private void drain() {
        int n = 0;
        while (true) {
            Runnable r;
            synchronized (this) {
                r = tasks.poll();
                if (r == null || n >= 1024) {
                    if (r != null) {
                        tasks.addFirst(r);
                        pool.execute(this::drain);
                        return;
                    }
                    running = false;
                    return;
                }
            }
            n++;
            try {
                r.run();
            } catch (Throwable t) {
                LOG.error("managed-ledger callback failed", t);
            }
        }
    }
}
