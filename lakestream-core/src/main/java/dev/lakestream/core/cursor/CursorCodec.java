package dev.lakestream.core.cursor;

import dev.lakestream.core.codec.VarInt;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.Inflater;

/**
 * The bytes of a cursor record:
 *
 * <pre>
 * magic "LC" | version:byte (= 1)
 * ackedBefore:varint
 * positionPropertyCount:varint { name:string value:int64 }*
 * propertyCount:varint { name:string value:string }*
 * rangeCount:varint  rangeBytes:varint  deflate({ gap:varint length:varint }*)
 * string := length:varint utf8[length]
 * </pre>
 *
 * Each range is written as its distance from the end of the previous one (the first from
 * {@code ackedBefore}) and its length, then the whole list is deflated: a million holes of regular shape
 * take a few kilobytes.
 */
public final class CursorCodec {

    private static final byte[] MAGIC = {'L', 'C'};
    private static final byte VERSION = 1;

    private CursorCodec() {}

    public static byte[] encode(CursorState s) {
        ByteArrayOutputStream rangesRaw = new ByteArrayOutputStream();
        long[] prevEnd = {s.ackedBefore()};
        boolean[] isStart = {true};
        long[] start = {0};
        s.individuallyAcked().forEachBound(bound -> {
            if (isStart[0]) {
                start[0] = bound;
            } else {
                writeVarInt(rangesRaw, start[0] - prevEnd[0]);
                writeVarInt(rangesRaw, bound - start[0]);
                prevEnd[0] = bound;
            }
            isStart[0] = !isStart[0];
        });
        byte[] deflated = deflate(rangesRaw.toByteArray());

        ByteArrayOutputStream out = new ByteArrayOutputStream(64 + deflated.length);
        out.writeBytes(MAGIC);
        out.write(VERSION);
        writeVarInt(out, s.ackedBefore());
        Map<String, Long> pp = new TreeMap<>(s.positionProperties());
        writeVarInt(out, pp.size());
        pp.forEach((k, v) -> {
            writeString(out, k);
            out.writeBytes(ByteBuffer.allocate(8).putLong(v).array());
        });
        Map<String, String> p = new TreeMap<>(s.properties());
        writeVarInt(out, p.size());
        p.forEach((k, v) -> {
            writeString(out, k);
            writeString(out, v);
        });
        writeVarInt(out, s.individuallyAcked().rangeCount());
        writeVarInt(out, deflated.length);
        out.writeBytes(deflated);
        return out.toByteArray();
    }

    /** Decodes a record; {@code key} names it in errors. */
    public static CursorState decode(byte[] bytes, String key) {
        try {
            ByteBuffer in = ByteBuffer.wrap(bytes);
            if (in.remaining() < 3 || in.get() != MAGIC[0] || in.get() != MAGIC[1]) {
                throw new IllegalArgumentException("does not start with the cursor magic 'LC'");
            }
            byte version = in.get();
            if (version != VERSION) {
                throw new IllegalArgumentException(
                        "cursor format version " + version + " (this reader knows " + VERSION + ")");
            }
            long ackedBefore = VarInt.read(in);
            Map<String, Long> pp = new LinkedHashMap<>();
            for (long n = VarInt.read(in); n > 0; n--) {
                pp.put(readString(in), in.getLong());
            }
            Map<String, String> p = new LinkedHashMap<>();
            for (long n = VarInt.read(in); n > 0; n--) {
                p.put(readString(in), readString(in));
            }
            long rangeCount = VarInt.read(in);
            int deflatedLength = Math.toIntExact(VarInt.read(in));
            byte[] deflated = new byte[deflatedLength];
            in.get(deflated);
            ByteBuffer ranges = ByteBuffer.wrap(inflate(deflated));
            AckRanges acked = new AckRanges();
            long prevEnd = ackedBefore;
            for (long i = 0; i < rangeCount; i++) {
                long start = prevEnd + VarInt.read(ranges);
                long end = start + VarInt.read(ranges);
                acked.add(start, end);
                prevEnd = end;
            }
            return new CursorState(ackedBefore, acked, pp, p);
        } catch (RuntimeException | DataFormatException e) {
            throw new IllegalStateException("cursor record '" + key + "' is corrupt: " + e.getMessage(), e);
        }
    }

    private static void writeVarInt(ByteArrayOutputStream out, long v) {
        ByteBuffer b = ByteBuffer.allocate(10);
        VarInt.write(b, v);
        out.write(b.array(), 0, b.position());
    }

    private static void writeString(ByteArrayOutputStream out, String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        writeVarInt(out, b.length);
        out.writeBytes(b);
    }

    private static String readString(ByteBuffer in) {
        int n = Math.toIntExact(VarInt.read(in));
        byte[] b = new byte[n];
        in.get(b);
        return new String(b, StandardCharsets.UTF_8);
    }

    private static byte[] deflate(byte[] raw) {
        Deflater d = new Deflater(Deflater.BEST_SPEED);
        try {
            d.setInput(raw);
            d.finish();
            ByteArrayOutputStream out = new ByteArrayOutputStream(Math.max(16, raw.length / 4));
            byte[] buf = new byte[8192];
            while (!d.finished()) {
                out.write(buf, 0, d.deflate(buf));
            }
            return out.toByteArray();
        } finally {
            d.end();
        }
    }

    private static byte[] inflate(byte[] deflated) throws DataFormatException {
        Inflater i = new Inflater();
        try {
            i.setInput(deflated);
            ByteArrayOutputStream out = new ByteArrayOutputStream(deflated.length * 4);
            byte[] buf = new byte[8192];
            while (!i.finished()) {
                int n = i.inflate(buf);
                if (n == 0 && !i.finished() && (i.needsInput() || i.needsDictionary())) {
                    throw new DataFormatException("deflated ranges are truncated");
                }
                out.write(buf, 0, n);
            }
            return out.toByteArray();
        } finally {
            i.end();
        }
    }
}
