package dev.lakestream.iceberg;

import java.util.HashMap;
import java.util.Map;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;

/**
 * What a materializer commit records in its Iceberg snapshot summary (docs/iceberg.md, "Exactly once"):
 * <ul>
 *   <li>{@code lakestream.offset.<streamId>} = the next offset to materialize, for <b>every</b> stream of the
 *       table (each commit carries the others' forward), so the newest such snapshot alone tells where each
 *       stream stands, even after older snapshots expire;</li>
 *   <li>{@code lakestream.range} = {@code <streamId>:<start>-<end>}, the offsets this commit covers;</li>
 *   <li>{@code lakestream.commit-id} = a random id, to recognise the commit after an unknown outcome.</li>
 * </ul>
 */
public final class CommitSummary {

    public static final String OFFSET_PREFIX = "lakestream.offset.";
    public static final String RANGE = "lakestream.range";
    public static final String COMMIT_ID = "lakestream.commit-id";

    /** How far back a commit of unknown outcome is looked for (it can only be among the newest snapshots). */
    static final int COMMIT_SEARCH_DEPTH = 100;

    private CommitSummary() {}

    /** Every stream's next offset, from the newest snapshot that records any (empty for a fresh table). */
    public static Map<Long, Long> committedOffsets(Table table) {
        for (Snapshot s = table.currentSnapshot(); s != null; s = parent(table, s)) {
            Map<Long, Long> offsets = offsets(s);
            if (!offsets.isEmpty()) {
                return offsets;
            }
        }
        return Map.of();
    }

    static Map<Long, Long> offsets(Snapshot s) {
        Map<Long, Long> m = new HashMap<>();
        s.summary().forEach((k, v) -> {
            if (k.startsWith(OFFSET_PREFIX)) {
                m.put(Long.parseLong(k.substring(OFFSET_PREFIX.length())), Long.parseLong(v));
            }
        });
        return m;
    }

    /** Whether a snapshot among the newest carries {@code commitId}. */
    static boolean contains(Table table, String commitId) {
        int depth = 0;
        for (Snapshot s = table.currentSnapshot();
                s != null && depth < COMMIT_SEARCH_DEPTH;
                s = parent(table, s), depth++) {
            if (commitId.equals(s.summary().get(COMMIT_ID))) {
                return true;
            }
        }
        return false;
    }

    private static Snapshot parent(Table table, Snapshot s) {
        return s.parentId() == null ? null : table.snapshot(s.parentId());
    }
}
