package dev.lakestream.core.metadata;

/** How a get compares its key with the stored keys. */
public enum Comparison {
    /** The key itself. */
    EQUAL,
    /** The highest key {@code <=} the given one. */
    FLOOR,
    /** The lowest key {@code >=} the given one. */
    CEILING,
    /** The highest key {@code <} the given one. */
    LOWER,
    /** The lowest key {@code >} the given one. */
    HIGHER
}
