package dev.lakestream.core.metrics;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A strict reader of the Prometheus text format, for tests: every line must be a HELP or TYPE comment or a sample,
 * every sample must follow its family's TYPE line, and families must not repeat. Fails on anything else.
 */
public final class PrometheusSamples {

    private static final Pattern SAMPLE = Pattern.compile(
            "([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{((?:[a-zA-Z_][a-zA-Z0-9_]*=\"(?:[^\"\\\\]|\\\\.)*\",?)*)\\})? (\\S+)");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");
    private static final Pattern TYPE = Pattern.compile("# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram)");
    private static final Pattern HELP = Pattern.compile("# HELP ([a-zA-Z_:][a-zA-Z0-9_:]*) .+");

    /** Type by family name, in order of appearance. */
    public final Map<String, String> types = new LinkedHashMap<>();
    /** Value by sample name and its sorted labels, e.g. {@code lakestream_x_total{op=put}}. */
    public final Map<String, Double> values = new LinkedHashMap<>();

    public final List<String> lines = new ArrayList<>();

    public static PrometheusSamples parse(String text) {
        PrometheusSamples s = new PrometheusSamples();
        if (!text.endsWith("\n")) {
            throw new AssertionError("The text does not end with a line feed");
        }
        String family = null;
        String helpFor = null;
        // lines() drops only the empty string after the final line feed, so a stray blank line is reported below.
        for (String line : text.lines().toList()) {
            s.lines.add(line);
            Matcher help = HELP.matcher(line);
            Matcher type = TYPE.matcher(line);
            Matcher sample = SAMPLE.matcher(line);
            if (help.matches()) {
                helpFor = help.group(1);
            } else if (type.matches()) {
                family = type.group(1);
                if (!family.equals(helpFor)) {
                    throw new AssertionError("TYPE of " + family + " without its HELP line before it");
                }
                if (s.types.put(family, type.group(2)) != null) {
                    throw new AssertionError("Family " + family + " appears twice");
                }
            } else if (sample.matches()) {
                String name = sample.group(1);
                if (family == null
                        || !(name.equals(family)
                                || name.equals(family + "_bucket")
                                || name.equals(family + "_sum")
                                || name.equals(family + "_count"))) {
                    throw new AssertionError("Sample " + line + " is not of the family before it (" + family + ")");
                }
                Map<String, String> labels = new TreeMap<>();
                if (sample.group(3) != null) {
                    Matcher l = LABEL.matcher(sample.group(3));
                    while (l.find()) {
                        labels.put(l.group(1), l.group(2));
                    }
                }
                double value = switch (sample.group(4)) {
                    case "+Inf" -> Double.POSITIVE_INFINITY;
                    case "-Inf" -> Double.NEGATIVE_INFINITY;
                    default -> Double.parseDouble(sample.group(4));
                };
                String key = name + (labels.isEmpty() ? "" : labels.toString());
                if (s.values.put(key, value) != null) {
                    throw new AssertionError("Sample " + key + " appears twice");
                }
            } else {
                throw new AssertionError("Not a line of the Prometheus text format: '" + line + "'");
            }
        }
        return s;
    }

    /** The value of a sample, e.g. {@code get("lakestream_object_store_requests_total", "op", "put")}. */
    public double get(String name, String... labelPairs) {
        Map<String, String> labels = new TreeMap<>();
        for (int i = 0; i < labelPairs.length; i += 2) {
            labels.put(labelPairs[i], labelPairs[i + 1]);
        }
        String key = name + (labels.isEmpty() ? "" : labels.toString());
        Double v = values.get(key);
        if (v == null) {
            throw new AssertionError("No sample " + key + " in the text");
        }
        return v;
    }

    /** The histogram's buckets by {@code le}, in order, with the given other labels. */
    public List<Double> buckets(String family, String... labelPairs) {
        List<Double> counts = new ArrayList<>();
        for (Map.Entry<String, Double> e : values.entrySet()) {
            if (!e.getKey().startsWith(family + "_bucket{")) {
                continue;
            }
            boolean all = true;
            for (int i = 0; i < labelPairs.length; i += 2) {
                all &= e.getKey().contains(labelPairs[i] + "=" + labelPairs[i + 1]);
            }
            if (all) {
                counts.add(e.getValue());
            }
        }
        return counts;
    }
}
