package dev.lakestream.core.bench;

import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * CPU time of the three processes that share the machine (this JVM, the S3Proxy JVM and the Oxia server,
 * both started by this JVM) and of this JVM's threads grouped by name, between two snapshots. The share
 * of the JVM not spent in Java threads is GC, JIT and VM threads.
 */
final class CpuMeter {

    /**
     * CPU nanoseconds per process and per thread group at one instant, the whole machine's busy CPU time
     * ({@code /proc/stat}, -1 where unavailable) and this JVM's accumulated GC pause time in milliseconds.
     */
    record Snapshot(
            long wallNanos,
            Map<String, Long> processes,
            Map<String, Long> threadGroups,
            long machineNanos,
            long gcMillis) {}

    /**
     * Busy cores (1.0 = one core fully busy) over an interval, per process and per thread group; the busy cores
     * of every other process on the machine (NaN where unknown); this JVM's GC pauses per second of wall time.
     */
    record Usage(
            double seconds,
            Map<String, Double> processes,
            Map<String, Double> threadGroups,
            double others,
            double gcPauseMillisPerSecond) {

        double total() {
            return processes.values().stream().mapToDouble(Double::doubleValue).sum();
        }

        /** e.g. {@code bench JVM 1.10, S3Proxy 0.55, Oxia 0.20 (total 1.85 of 2 cores), other processes 0.10}. */
        String summary(int cores) {
            return processes.entrySet().stream()
                            .map(e -> e.getKey() + " " + fmt(e.getValue()))
                            .collect(Collectors.joining(", "))
                    + " (total " + fmt(total()) + " of " + cores + " cores), "
                    + "other processes " + fmt(others) + ", bench GC pauses " + fmt(gcPauseMillisPerSecond) + " ms/s";
        }

        /** The busiest thread groups of this JVM, e.g. {@code lakestream-s3-io-# 0.30, ...}. */
        String topThreads(int n) {
            return threadGroups.entrySet().stream()
                    .sorted(Map.Entry.<String, Double>comparingByValue().reversed())
                    .filter(e -> e.getValue() >= 0.005)
                    .limit(n)
                    .map(e -> "`" + e.getKey() + "` " + fmt(e.getValue()))
                    .collect(Collectors.joining(", "));
        }

        private static String fmt(double v) {
            return String.format("%.2f", v);
        }
    }

    static final String BENCH = "bench JVM";
    static final String S3PROXY = "S3Proxy";
    static final String OXIA = "Oxia";
    static final String JVM_GC = "(JVM GC threads)";
    static final String JVM_JIT = "(JVM JIT compiler threads)";
    static final String JVM_OTHER = "(JVM other native threads)";
    /** Clock ticks per second of {@code /proc/stat} (USER_HZ, 100 on Linux everywhere that matters). */
    private static final long USER_HZ = 100;

    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();

    Snapshot snapshot() {
        Map<String, Long> processes = new LinkedHashMap<>();
        processes.put(BENCH, cpu(ProcessHandle.current()));
        long s3 = 0;
        long oxia = 0;
        for (ProcessHandle p : ProcessHandle.current().descendants().toList()) {
            String cmd = p.info().commandLine().orElse(p.info().command().orElse(""));
            if (cmd.contains("s3proxy")) {
                s3 += cpu(p);
            } else if (cmd.contains("oxia")) {
                oxia += cpu(p);
            }
        }
        processes.put(S3PROXY, s3);
        processes.put(OXIA, oxia);

        Map<String, Long> groups = new HashMap<>();
        long javaThreads = 0;
        long[] ids = threads.getAllThreadIds();
        ThreadInfo[] infos = threads.getThreadInfo(ids);
        for (int i = 0; i < ids.length; i++) {
            long t = threads.getThreadCpuTime(ids[i]);
            if (t <= 0 || infos[i] == null) {
                continue;
            }
            javaThreads += t;
            groups.merge(group(infos[i].getThreadName()), t, Long::sum);
        }
        // What is not in Java threads ran in the JVM's own threads: split GC and JIT out by their Linux names.
        long internal = Math.max(0, processes.get(BENCH) - javaThreads);
        long[] gcJit = nativeGcAndJit();
        groups.put(JVM_GC, gcJit[0]);
        groups.put(JVM_JIT, gcJit[1]);
        groups.put(JVM_OTHER, Math.max(0, internal - gcJit[0] - gcJit[1]));
        long gc = 0;
        for (GarbageCollectorMXBean bean : ManagementFactory.getGarbageCollectorMXBeans()) {
            gc += Math.max(0, bean.getCollectionTime());
        }
        return new Snapshot(System.nanoTime(), processes, groups, machineBusyNanos(), gc);
    }

    /**
     * CPU nanoseconds of this JVM's GC threads ({@code GC Thread#n}, {@code G1 ...}) and JIT compiler threads
     * ({@code C1/C2 CompilerThread}), from {@code /proc/self/task}; zeros where unavailable.
     */
    @SuppressWarnings("StringSplitter") // /proc fields are never empty between separators; trailing ones unused
    private static long[] nativeGcAndJit() {
        long gc = 0;
        long jit = 0;
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path task : tasks) {
                try {
                    String comm = Files.readString(task.resolve("comm")).trim();
                    boolean isGc = comm.startsWith("GC Thread") || comm.startsWith("G1 ") || comm.startsWith("GC ");
                    boolean isJit = comm.startsWith("C1 Compiler") || comm.startsWith("C2 Compiler");
                    if (!isGc && !isJit) {
                        continue;
                    }
                    String stat = Files.readString(task.resolve("stat"));
                    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    // After "pid (comm) ": state is field 3, utime 14 and stime 15 (1-based) of the whole line.
                    long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
                    long nanos = ticks * (1_000_000_000L / USER_HZ);
                    if (isGc) {
                        gc += nanos;
                    } else {
                        jit += nanos;
                    }
                } catch (IOException | RuntimeException threadGone) {
                    // the thread ended while we looked
                }
            }
        } catch (IOException | RuntimeException e) {
            return new long[] {0, 0};
        }
        return new long[] {gc, jit};
    }

    /** CPU time the whole machine spent busy (not idle, not waiting for I/O), from {@code /proc/stat}; -1 if unknown. */
    @SuppressWarnings("StringSplitter") // /proc fields are never empty between separators; trailing ones unused
    private static long machineBusyNanos() {
        try {
            String cpu = Files.readAllLines(Path.of("/proc/stat")).get(0);
            String[] f = cpu.trim().split("\\s+");
            long busy = 0;
            for (int i = 1; i < f.length && i <= 8; i++) {
                if (i != 4 && i != 5) { // idle, iowait
                    busy += Long.parseLong(f[i]);
                }
            }
            return busy * (1_000_000_000L / USER_HZ);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    static Usage between(Snapshot a, Snapshot b) {
        double wall = (b.wallNanos() - a.wallNanos()) / 1e9;
        double ours = 0;
        for (String k : b.processes().keySet()) {
            ours += (b.processes().get(k) - a.processes().getOrDefault(k, 0L)) / 1e9 / wall;
        }
        double others = a.machineNanos() < 0 || b.machineNanos() < 0
                ? Double.NaN
                : Math.max(0, (b.machineNanos() - a.machineNanos()) / 1e9 / wall - ours);
        double gc = (b.gcMillis() - a.gcMillis()) / wall;
        Map<String, Double> processes = new LinkedHashMap<>();
        b.processes().forEach((k, v) -> processes.put(k, (v - a.processes().getOrDefault(k, 0L)) / 1e9 / wall));
        Map<String, Double> groups = new HashMap<>();
        b.threadGroups().forEach((k, v) -> {
            // A group whose threads died in between can come out negative: clamp.
            double busy = Math.max(0, (v - a.threadGroups().getOrDefault(k, 0L)) / 1e9 / wall);
            groups.put(k, busy);
        });
        return new Usage(wall, processes, groups, others, gc);
    }

    private static long cpu(ProcessHandle p) {
        return p.info().totalCpuDuration().map(Duration::toNanos).orElse(0L);
    }

    /** Thread names with their numbers folded, so pools count as one: {@code lakestream-s3-io-b-3} → {@code -#}. */
    private static String group(String name) {
        return name.replaceAll("\\d+", "#");
    }

    static List<String> names() {
        return List.of(BENCH, S3PROXY, OXIA);
    }
}
