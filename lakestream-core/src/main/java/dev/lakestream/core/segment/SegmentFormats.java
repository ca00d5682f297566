package dev.lakestream.core.segment;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.stream.Collectors;

/** The segment formats a process can read and write, by file type. Immutable. */
public final class SegmentFormats {

    private static final SegmentFormats NONE = new SegmentFormats(List.of());

    private final Map<Integer, SegmentFormat> byType;

    private SegmentFormats(List<SegmentFormat> formats) {
        Map<Integer, SegmentFormat> m = new HashMap<>();
        for (SegmentFormat f : formats) {
            if (f.fileType() <= 0) {
                throw new IllegalArgumentException("segment format " + f.name() + " claims file type " + f.fileType()
                        + ", which is not a segment's");
            }
            SegmentFormat other = m.putIfAbsent(f.fileType(), f);
            if (other != null) {
                throw new IllegalStateException("segment formats " + other.name() + " ("
                        + other.getClass().getName()
                        + ") and " + f.name() + " (" + f.getClass().getName() + ") both claim file type "
                        + f.fileType());
            }
        }
        this.byType = Map.copyOf(m);
    }

    /** The formats on the class path ({@code META-INF/services/dev.lakestream.core.segment.SegmentFormat}). */
    public static SegmentFormats installed() {
        return installed(SegmentFormats.class.getClassLoader());
    }

    /** As {@link #installed()}, from {@code loader}'s class path (a plugin's). */
    public static SegmentFormats installed(ClassLoader loader) {
        return of(ServiceLoader.load(SegmentFormat.class, loader).stream()
                .map(ServiceLoader.Provider::get)
                .toList());
    }

    public static SegmentFormats of(List<SegmentFormat> formats) {
        return formats.isEmpty() ? NONE : new SegmentFormats(formats);
    }

    public static SegmentFormats none() {
        return NONE;
    }

    /** The format of the given name ({@link SegmentFormat#name()}), if installed. */
    public Optional<SegmentFormat> named(String name) {
        return byType.values().stream().filter(f -> f.name().equals(name)).findFirst();
    }

    public Optional<SegmentFormat> forFileType(int fileType) {
        return Optional.ofNullable(byType.get(fileType));
    }

    /** The formats by name, for messages: e.g. {@code [parquet (1)]}, or {@code none}. */
    public String describe() {
        return byType.isEmpty()
                ? "none"
                : byType.values().stream()
                        .map(f -> f.name() + " (" + f.fileType() + ")")
                        .sorted()
                        .collect(Collectors.joining(", ", "[", "]"));
    }

    /**
     * These formats and {@code more}'s. The same class found twice (through two class loaders) counts once; two
     * classes claiming one file type are refused, naming both.
     */
    public SegmentFormats plus(SegmentFormats more) {
        List<SegmentFormat> all = new ArrayList<>(byType.values());
        for (SegmentFormat f : more.byType.values()) {
            SegmentFormat mine = byType.get(f.fileType());
            if (mine == null || !mine.getClass().getName().equals(f.getClass().getName())) {
                all.add(f);
            }
        }
        return of(all);
    }

    public List<SegmentFormat> all() {
        return List.copyOf(byType.values());
    }
}
