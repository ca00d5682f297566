package dev.lakestream.iceberg;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * The Iceberg identifier of a topic's table: namespace {@code [tenant, namespace]}, table {@code topic} (all
 * partitions of a topic share one table), each name escaped so that any engine accepts it unquoted and no two
 * topics share a table:
 * <ul>
 *   <li>ASCII letters and digits are kept;</li>
 *   <li>{@code _} becomes {@code __};</li>
 *   <li>any other character becomes {@code _x} and two lower-case hex digits per UTF-8 byte.</li>
 * </ul>
 * So {@code persistent://public/default/orders-v1} is {@code public.default.orders_x2dv1}, and the mapping can be
 * reversed ({@link #unescape}).
 */
public final class TableNames {

    private TableNames() {}

    public static TableIdentifier of(TopicRef topic) {
        return TableIdentifier.of(
                Namespace.of(escape(topic.tenant()), escape(topic.namespace())), escape(topic.topic()));
    }

    public static String escape(String name) {
        StringBuilder sb = new StringBuilder(name.length() + 8);
        for (byte b : name.getBytes(StandardCharsets.UTF_8)) {
            char c = (char) (b & 0xff);
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
                sb.append(c);
            } else if (c == '_') {
                sb.append("__");
            } else {
                sb.append("_x").append(Character.forDigit((b >> 4) & 0xf, 16)).append(Character.forDigit(b & 0xf, 16));
            }
        }
        return sb.toString();
    }

    public static String unescape(String escaped) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(escaped.length());
        for (int i = 0; i < escaped.length(); i++) {
            char c = escaped.charAt(i);
            if (c != '_') {
                out.write(c);
            } else if (i + 1 < escaped.length() && escaped.charAt(i + 1) == '_') {
                out.write('_');
                i++;
            } else if (i + 3 < escaped.length() && escaped.charAt(i + 1) == 'x') {
                out.write(Integer.parseInt(escaped.substring(i + 2, i + 4), 16));
                i += 3;
            } else {
                throw new IllegalArgumentException("'" + escaped + "' is not an escaped name (bad '_' at " + i + ")");
            }
        }
        return out.toString(StandardCharsets.UTF_8);
    }
}
