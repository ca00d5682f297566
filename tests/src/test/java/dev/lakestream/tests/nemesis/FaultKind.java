package dev.lakestream.tests.nemesis;

/**
 * What the nemesis can do to the cluster. Faults of one {@link Group} never overlap (there is one S3 proxy, one Oxia
 * server, and at most one broker is out at a time); faults of different groups do.
 */
enum FaultKind {
    S3_RESET(Group.S3, 3_000, 10_000, "S3 connections closed without an answer"),
    S3_BLACKHOLE(Group.S3, 3_000, 10_000, "S3 black-holed (requests held, never answered)"),
    S3_SLOW(Group.S3, 4_000, 15_000, "S3 slow (each request held 1.5 s)"),
    S3_STORM(Group.S3, 3_000, 12_000, "S3 503 SlowDown storm"),
    OXIA_RESTART(Group.OXIA, 0, 3_000, "Oxia stopped and restarted"),
    OXIA_PAUSE(Group.OXIA, 1_000, 4_000, "Oxia paused (SIGSTOP) and resumed"),
    BROKER_PAUSE(Group.BROKER, 8_000, 14_000, "a topic's owner paused (SIGSTOP) past its session, then resumed"),
    BROKER_KILL(Group.BROKER, 1_000, 6_000, "a topic's owner killed (SIGKILL), then restarted"),
    UNLOAD(Group.ADMIN, 0, 0, "a namespace unloaded (its topics change owner)"),
    TRIM(Group.ADMIN, 0, 0, "the trimmed topic's consumed ledgers trimmed (trim-topic)");

    /** Faults of one group are injected one after the other. */
    enum Group {
        S3,
        OXIA,
        BROKER,
        ADMIN
    }

    final Group group;
    final long minHoldMillis;
    final long maxHoldMillis;
    final String description;

    FaultKind(Group group, long minHoldMillis, long maxHoldMillis, String description) {
        this.group = group;
        this.minHoldMillis = minHoldMillis;
        this.maxHoldMillis = maxHoldMillis;
        this.description = description;
    }

    /** Whether the fault takes a broker out, after which its group waits for the cluster to settle. */
    boolean takesABrokerOut() {
        return group == Group.BROKER;
    }
}
