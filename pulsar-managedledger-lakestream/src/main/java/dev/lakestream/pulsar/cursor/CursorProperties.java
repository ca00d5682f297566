package dev.lakestream.pulsar.cursor;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.lakestream.core.concurrent.Futures;
import dev.lakestream.core.cursor.DurableCursor;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A cursor's two kinds of properties, both kept by the core cursor: the position properties (numbers stored with the
 * mark-delete, Pulsar's {@code getProperties}) and the cursor properties (strings, Pulsar's
 * {@code getCursorProperties}), which share the core cursor's property map with the batch ack records of
 * {@link BatchIndexAcks}: those are hidden from Pulsar and kept when it rewrites the map.
 *
 * <p>Locks: a cursor property rewrite runs under the owning cursor's monitor, as the batch ack records' do, so that
 * neither loses the other's change. This class never takes it: the rewrites are {@code ...Locked} methods the cursor
 * calls holding it (as {@code properties.monitor}).
 */
final class CursorProperties {

    private static final Logger LOG = LoggerFactory.getLogger(CursorProperties.class);

    /** The owning cursor's monitor. */
    final Object monitor;

    private final DurableCursor dc;

    CursorProperties(Object monitor, DurableCursor dc) {
        this.monitor = monitor;
        this.dc = dc;
    }

    Map<String, Long> positionProperties() {
        return dc.positionProperties();
    }

    boolean putPositionProperty(String key, Long value) {
        Map<String, Long> p = new HashMap<>(dc.positionProperties());
        p.put(key, value);
        // Pulsar's call is synchronous: the change joins the cursor's next write; a failure of it is only logged.
        Futures.logFailure(dc.markDelete(dc.ackedBefore(), p), LOG, "persisting position property '" + key + "'");
        return true;
    }

    /** True when the key was there. */
    boolean removePositionProperty(String key) {
        Map<String, Long> p = new HashMap<>(dc.positionProperties());
        boolean had = p.remove(key) != null;
        // Pulsar's call is synchronous: the change joins the cursor's next write; a failure of it is only logged.
        Futures.logFailure(dc.markDelete(dc.ackedBefore(), p), LOG, "removing position property '" + key + "'");
        return had;
    }

    Map<String, String> cursorProperties() {
        return BatchIndexAcks.userProperties(dc.properties());
    }

    @GuardedBy("monitor")
    CompletableFuture<Void> putCursorPropertyLocked(String key, String value) {
        Map<String, String> p = new HashMap<>(dc.properties());
        p.put(key, value);
        return dc.setProperties(p);
    }

    /** Replaces the cursor properties (none when null), keeping the batch ack records. */
    @GuardedBy("monitor")
    CompletableFuture<Void> setCursorPropertiesLocked(Map<String, String> cursorProperties) {
        Map<String, String> p = BatchIndexAcks.records(dc.properties());
        if (cursorProperties != null) {
            p.putAll(cursorProperties);
        }
        return dc.setProperties(p);
    }

    @GuardedBy("monitor")
    CompletableFuture<Void> removeCursorPropertyLocked(String key) {
        Map<String, String> p = new HashMap<>(dc.properties());
        p.remove(key);
        return dc.setProperties(p);
    }
}
