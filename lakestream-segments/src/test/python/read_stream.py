"""Replays one stream from the object store's directory and its offset-index records, written from docs/layout.md
alone (IndependentPythonReaderTest): the Python standard library and pyarrow, nothing of the project.

Usage: read_stream.py <index records JSON> <object store directory> <start offset>

The JSON file is a list of the stream's index records as the metadata store holds them:
  [{"key": "<%020d-%020d-%020d>", "value_base64": "...", "created": <ms>}, ...]
("value_hex" may stand for "value_base64"). The directory is the filesystem store's root (layout §1.3).

Prints one line per entry, from the entry holding the start offset to the stream's end:
  <offset> <records> <length> <zlib.crc32 of the entry's bytes> <timestamp ms>
Exits non-zero naming the key, object and offset of anything that does not follow the layout.
"""
import base64
import io
import json
import os
import struct
import sys
import zlib

import pyarrow.parquet as pq


class LayoutError(Exception):
    pass


# ------------------------------------------------------------------------------------------------ §1.3 the store

def _crc32c_table():
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


_CRC32C = _crc32c_table()


def crc32c(data):
    c = 0xFFFFFFFF
    t = _CRC32C
    for b in data:
        c = t[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


class ObjectStore:
    """The filesystem store's directory: key a/b/c is the file <root>/a/b/c, read whole and checked (§1.3)."""

    def __init__(self, root):
        self.root = root
        self.cache = {}

    def get(self, key):
        if key in self.cache:
            return self.cache[key]
        parts = key.split("/")
        if any(p.startswith(".lakestream-") or p.lower().endswith(".crc32c") or p in ("", ".", "..") for p in parts):
            raise LayoutError("object key %r is not a key the store can hold" % key)
        path = os.path.join(self.root, *parts)
        if not os.path.isfile(path) or os.path.islink(path):
            raise LayoutError("object %r is missing from the store (%s)" % (key, path))
        with open(path, "rb") as f:
            data = f.read()
        sidecar = path + ".crc32c"
        if os.path.isfile(sidecar) and not os.path.islink(sidecar):
            # A file Ursa wrote: all object bytes, its CRC32C in decimal beside it.
            with open(sidecar, "rb") as f:
                expected = int(f.read().decode("ascii").strip()) & 0xFFFFFFFF
            obj = data
        else:
            if len(data) < 8 or data[-4:] != b"LSC1":
                raise LayoutError("object %r: file of %d bytes has no LSC1 trailer" % (key, len(data)))
            expected = struct.unpack(">I", data[-8:-4])[0]
            obj = data[:-8]
        actual = crc32c(obj)
        if actual != expected:
            raise LayoutError("object %r: CRC32C %08x, the store holds %08x" % (key, actual, expected))
        self.cache[key] = obj
        return obj


# ------------------------------------------------------------------------------------------------ §1.2 WAL objects

def uvarint(buf, pos):
    """Unsigned LEB128 (protobuf's varint) at pos: (value, next pos)."""
    value = 0
    shift = 0
    while True:
        if pos >= len(buf):
            raise LayoutError("varint runs past the end")
        b = buf[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        if not b & 0x80:
            return value, pos
        shift += 7


def wal_index(obj):
    """The object's own index: stream id -> [(dataOffset, size, records)], and where data starts."""
    (index_length,) = struct.unpack_from(">i", obj, 0)
    end = 4 + index_length
    (version,) = struct.unpack_from(">i", obj, 4)
    if version != 3:
        raise LayoutError("formatVersion %d, not 3" % version)
    pos = 8
    streams = {}
    while pos < end:
        (stream_id,) = struct.unpack_from(">q", obj, pos)
        pos += 8
        count, pos = uvarint(obj, pos)
        entries = []
        for _ in range(count):
            data_offset, pos = uvarint(obj, pos)
            size, pos = uvarint(obj, pos)
            records, pos = uvarint(obj, pos)
            entries.append((data_offset, size, records))
        streams[stream_id] = entries
    if pos != end:
        raise LayoutError("the object's index ends at %d, indexLength says %d" % (pos, end))
    return streams, end


# ------------------------------------------------------------------------------------------------ §2.3 index values

def protobuf(buf):
    """Field number -> list of values (ints for varints, bytes for length-delimited); other wire types skipped."""
    fields = {}
    pos = 0
    while pos < len(buf):
        tag, pos = uvarint(buf, pos)
        number, wire = tag >> 3, tag & 7
        if wire == 0:
            value, pos = uvarint(buf, pos)
        elif wire == 2:
            length, pos = uvarint(buf, pos)
            value = bytes(buf[pos:pos + length])
            pos += length
        elif wire == 1:
            value = buf[pos:pos + 8]
            pos += 8
        elif wire == 5:
            value = buf[pos:pos + 4]
            pos += 4
        else:
            raise LayoutError("protobuf wire type %d" % wire)
        fields.setdefault(number, []).append(value)
    return fields


def signed64(v):
    return v - (1 << 64) if v >= 1 << 63 else v


def entry_offsets(message):
    """§2.3.1: the cumulative record counts of an entry_offsets message (field 10)."""
    m = protobuf(message)
    if m.get(1, [0])[0] != 1:
        raise LayoutError("entry_offsets compression %s, not 1" % m.get(1))
    payload = m[3][0]
    if len(payload) % 4:
        raise LayoutError("entry_offsets payload of %d bytes is not whole words" % len(payload))
    words = list(struct.unpack(">%dI" % (len(payload) // 4), payload))
    n = words[0]
    if m[2][0] != 4 * n:
        raise LayoutError("entry_offsets uncompressed_size %d for %d values" % (m[2][0], n))
    values = []
    if n == 0:
        return values
    w = 1
    full = n // 32 * 32
    previous = 0
    if full == 0:
        w += 1  # the empty packed part's zero word
    while len(values) < full:
        blocks = 4 if (full - len(values)) // 32 >= 4 else 1
        header = words[w]
        w += 1
        for k in range(blocks):
            b = (header >> (24 - 8 * k)) & 0xFF if blocks == 4 else header
            bits = 0
            for j in range(b):
                bits |= words[w + j] << (32 * j)
            w += b
            for j in range(32):
                raw = (bits >> (j * b)) & ((1 << b) - 1) if b else 0
                previous = raw if b == 32 else (previous + raw) & 0xFFFFFFFF
                values.append(previous)
    delta = 0
    shift = 0
    while len(values) < n:
        word = words[w]
        w += 1
        for k in range(4):
            byte = (word >> (8 * k)) & 0xFF
            delta += (byte & 0x7F) << shift
            if byte & 0x80:
                previous = (previous + delta) & 0xFFFFFFFF
                values.append(previous)
                delta = 0
                shift = 0
                if len(values) == n:
                    break
            else:
                shift += 7
    return values


class IndexRecord:
    def __init__(self, raw):
        self.key = raw["key"]
        parts = self.key.split("-")
        if len(self.key) != 62 or len(parts) != 3 or not all(len(p) == 20 and p.isdigit() for p in parts):
            raise LayoutError("not an offset-index key: %r" % self.key)
        self.stream_id, self.end, self.cumulative_size = (int(p) for p in parts)
        value = base64.b64decode(raw["value_base64"]) if "value_base64" in raw else bytes.fromhex(raw["value_hex"])
        self.created = raw["created"]
        f = protobuf(value)
        if f.get(1, [None])[0] != 3:
            raise LayoutError("index record %s: version %s, not 3" % (self.key, f.get(1)))
        self.location = f[2][0].decode("utf-8")
        self.file_type = f.get(3, [0])[0]
        self.message_count = f[5][0]
        self.entry_size_bytes = f.get(6, [0])[0]
        self.file_size = f.get(7, [0])[0]
        self.offset_in_file = signed64(f.get(8, [0])[0])
        self.entry_count = f.get(9, [1])[0]
        self.cumulative = entry_offsets(f[10][0]) if 10 in f else None
        self.extra = {}
        for kv in f.get(11, []):
            m = protobuf(kv)
            self.extra[m[1][0].decode("utf-8")] = m[2][0].decode("utf-8")
        self.start = self.end - self.message_count

    def where(self):
        return "index record %s (%s, offsets [%d, %d))" % (self.key, self.location, self.start, self.end)


# ------------------------------------------------------------------------------------------------ §2.4 and §2.5 reads

def wal_entries(record, store, stream_id):
    """The entries a WAL record covers, from its object's own index: (offset, records, bytes)."""
    obj = store.get(record.location)
    streams, data_start = wal_index(obj)
    if stream_id not in streams:
        raise LayoutError("%s: the object holds no entries of stream %d" % (record.where(), stream_id))
    entries = streams[stream_id]
    if len(entries) != record.entry_count:
        raise LayoutError("%s: the object holds %d entries, entry_count %d"
                          % (record.where(), len(entries), record.entry_count))
    counts = [r for _, _, r in entries]
    if sum(counts) != record.message_count:
        raise LayoutError("%s: the object's entries hold %d records, message_count %d"
                          % (record.where(), sum(counts), record.message_count))
    if record.cumulative is not None:
        running = []
        total = 0
        for c in counts:
            total += c
            running.append(total)
        if running != record.cumulative:
            raise LayoutError("%s: entry_offsets %s disagree with the object's index %s"
                              % (record.where(), record.cumulative, running))
    if sum(s for _, s, _ in entries) != record.entry_size_bytes:
        raise LayoutError("%s: entries of %d bytes, entry_size_bytes %d"
                          % (record.where(), sum(s for _, s, _ in entries), record.entry_size_bytes))
    out = []
    at = record.start
    for data_offset, size, records in entries:
        begin = data_start + data_offset
        if begin + size > len(obj):
            raise LayoutError("%s: entry at %d runs past the object's end" % (record.where(), at))
        out.append((at, records, obj[begin:begin + size]))
        at += records
    return out


def segment_entries(record, store, stream_id):
    """The entries of a compacted record's Parquet segment (§2.5.1): one per row of _lakestream_entry_index 0."""
    if record.file_type != 1:
        raise LayoutError("%s: file_type %d, no segment format read here" % (record.where(), record.file_type))
    if record.cumulative is not None:
        raise LayoutError("%s: a compacted record with entry_offsets" % record.where())
    obj = store.get(record.location)
    if len(obj) != record.file_size:
        raise LayoutError("%s: segment of %d bytes, file_size %d" % (record.where(), len(obj), record.file_size))
    f = pq.ParquetFile(io.BytesIO(obj))
    kv = {k.decode(): v.decode() for k, v in (f.metadata.metadata or {}).items()}
    want = {"lakestream.segment.version": "1", "lakestream.segment.streamId": str(stream_id),
            "lakestream.segment.firstOffset": str(record.start), "lakestream.segment.endOffset": str(record.end),
            "lakestream.segment.entryCount": str(record.entry_count),
            "lakestream.segment.payloadBytes": str(record.entry_size_bytes)}
    for k, v in want.items():
        if kv.get(k) != v:
            raise LayoutError("%s: footer %s = %r, expected %r" % (record.where(), k, kv.get(k), v))
    table = f.read(columns=["_lakestream_entry", "_lakestream_offset", "_lakestream_records",
                            "_lakestream_entry_index"])
    if table.num_rows != record.message_count:
        raise LayoutError("%s: %d rows for %d records" % (record.where(), table.num_rows, record.message_count))
    raw = table.column("_lakestream_entry").to_pylist()
    offsets = table.column("_lakestream_offset").to_pylist()
    records = table.column("_lakestream_records").to_pylist()
    index = table.column("_lakestream_entry_index").to_pylist()
    out = []
    at = record.start
    row = 0
    while row < table.num_rows:
        n = records[row]
        if offsets[row] != at or index[row] != 0 or raw[row] is None or n < 1 or row + n > table.num_rows:
            raise LayoutError("%s: row %d does not start the entry at %d" % (record.where(), row, at))
        for i in range(1, n):
            r = row + i
            if offsets[r] != at or records[r] != n or index[r] != i or raw[r] is not None:
                raise LayoutError("%s: row %d is not message %d of the entry at %d" % (record.where(), r, i, at))
        out.append((at, n, raw[row]))
        at += n
        row += n
    if len(out) != record.entry_count:
        raise LayoutError("%s: %d entries, entry_count %d" % (record.where(), len(out), record.entry_count))
    return out


def replay(records, store, start):
    """§2.4/§2.5: from offset o, take the first record, from the one with the smallest end above o on, whose range
    holds o; read its entries from o, go on from its end. Yields (offset, records, bytes, timestamp)."""
    if not records:
        return
    stream_id = records[0].stream_id
    if any(r.stream_id != stream_id for r in records):
        raise LayoutError("records of more than one stream")
    ordered = sorted(records, key=lambda r: r.key)  # zero-padded keys: key order is end-offset order
    o = max(start, ordered[0].start)
    i = 0
    while True:
        while i < len(ordered) and ordered[i].end <= o:
            i += 1
        if i == len(ordered):
            return
        # Records that start after o are WAL records a switch is deleting: the compacted record holding o follows.
        record = next((r for r in ordered[i:] if r.start <= o), None)
        if record is None:
            raise LayoutError("no index record covers offset %d: the next, %s, starts after it"
                              % (o, ordered[i].where()))
        entries = wal_entries(record, store, stream_id) if record.file_type == 0 \
            else segment_entries(record, store, stream_id)
        for offset, n, data in entries:
            if offset + n > o:  # a read at o starts at the entry holding o
                yield offset, n, data, record.created
        o = record.end


def main(index_json, root, start):
    with open(index_json, "r", encoding="utf-8") as f:
        records = [IndexRecord(r) for r in json.load(f)]
    store = ObjectStore(root)
    out = sys.stdout
    for offset, n, data, created in replay(records, store, start):
        out.write("%d %d %d %d %d\n" % (offset, n, len(data), zlib.crc32(data), created))


if __name__ == "__main__":
    try:
        main(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 0)
    except LayoutError as e:
        print("read_stream.py: %s" % e, file=sys.stderr)
        sys.exit(2)
