package dev.lakestream.core.cursor;

import java.util.Map;

/**
 * What a durable cursor persists: every offset below {@code ackedBefore} is acknowledged (the mark-delete
 * point), plus the offsets acknowledged individually beyond it, plus two small property maps (numeric ones
 * that travel with the mark-delete point, and free-form ones of the cursor).
 */
public record CursorState(
        long ackedBefore,
        AckRanges individuallyAcked,
        Map<String, Long> positionProperties,
        Map<String, String> properties) {

    public CursorState {
        positionProperties = Map.copyOf(positionProperties);
        properties = Map.copyOf(properties);
        individuallyAcked = individuallyAcked.copy();
    }

    public static CursorState at(long ackedBefore) {
        return new CursorState(ackedBefore, new AckRanges(), Map.of(), Map.of());
    }
}
