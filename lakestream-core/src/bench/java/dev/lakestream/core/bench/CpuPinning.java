package dev.lakestream.core.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Gives the stores (S3Proxy and Oxia, this JVM's child processes) CPU 0 and this JVM the other CPUs, with
 * {@code taskset}, and gives every process all CPUs back on {@link #close()}.
 *
 * <p>Why: on a small machine the writer and S3Proxy compete for the same cores, so the writer's CPU per byte
 * lowers the store's rate too, and the writer/raw ratio measures CPU as much as the writer. A deployment's
 * object store does not run on the broker's cores; with the stores pinned apart, the ratio says whether the
 * writer keeps up with what the store can take.
 */
final class CpuPinning implements AutoCloseable {

    private final int cores;
    private final List<Long> stores;

    private CpuPinning(int cores, List<Long> stores) {
        this.cores = cores;
        this.stores = stores;
    }

    /** Why pinning cannot be done here, or null when it can. */
    static String unavailable(int cores) {
        if (cores < 2) {
            return "the machine has " + cores + " core";
        }
        try {
            run("taskset", "-p", Long.toString(ProcessHandle.current().pid()));
            return null;
        } catch (IOException | IllegalStateException e) {
            return "taskset is not usable (" + e.getMessage() + ")";
        }
    }

    /** Pins the stores to CPU 0 and this JVM (all its threads) to CPUs 1..cores-1. */
    static CpuPinning pin(int cores) throws IOException {
        List<Long> stores = new ArrayList<>();
        for (ProcessHandle p : ProcessHandle.current().descendants().toList()) {
            String cmd = p.info().commandLine().orElse(p.info().command().orElse(""));
            if (cmd.contains("s3proxy") || cmd.contains("oxia")) {
                stores.add(p.pid());
            }
        }
        if (stores.isEmpty()) {
            throw new IllegalStateException("found no S3Proxy or Oxia process among this JVM's children to pin");
        }
        CpuPinning pinning = new CpuPinning(cores, stores);
        for (long pid : stores) {
            affinity(pid, "0");
        }
        affinity(ProcessHandle.current().pid(), cores == 2 ? "1" : "1-" + (cores - 1));
        return pinning;
    }

    String description() {
        return "S3Proxy and Oxia on CPU 0, the benchmark JVM on " + (cores == 2 ? "CPU 1" : "CPUs 1-" + (cores - 1));
    }

    @Override
    public void close() throws IOException {
        String all = "0-" + (cores - 1);
        affinity(ProcessHandle.current().pid(), all);
        for (long pid : stores) {
            affinity(pid, all);
        }
    }

    /** Sets the CPU list of every thread of {@code pid}. */
    private static void affinity(long pid, String cpus) throws IOException {
        run("taskset", "-a", "-p", "-c", cpus, Long.toString(pid));
    }

    private static String run(String... command) throws IOException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            int rc = p.waitFor();
            if (rc != 0) {
                throw new IllegalStateException(String.join(" ", command) + " exited with " + rc + ": " + out);
            }
            return out;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while running " + String.join(" ", command), e);
        }
    }
}
