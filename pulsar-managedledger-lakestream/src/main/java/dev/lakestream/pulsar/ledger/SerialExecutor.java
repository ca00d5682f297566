package dev.lakestream.pulsar.ledger;

import java.util.ArrayDeque;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Runs tasks one at a time in submission order on a shared pool: the callback thread of one managed ledger. */
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
