"""Reads a Parquet segment with pyarrow, an independent reader, and prints what it finds as JSON (ParquetWithPyarrowTest).

Usage: read_segment.py <segment file>
Prints: row and row-group counts, the columns with their field ids, the footer's lakestream.* metadata, each row group's
_lakestream_offset min/max and codec, and every row (offset, records, entry index, CRC-32 of the raw entry or null;
the first three raw entries also in hex).
"""
import json
import sys
import zlib

import pyarrow.parquet as pq


def main(path):
    f = pq.ParquetFile(path)
    meta = f.metadata
    schema = f.schema_arrow
    columns = []
    for field in schema:
        md = field.metadata or {}
        columns.append({"name": field.name, "type": str(field.type), "nullable": field.nullable,
                        "field_id": int(md[b"PARQUET:field_id"]) if b"PARQUET:field_id" in md else None})
    kv = {k.decode(): v.decode() for k, v in (meta.metadata or {}).items() if k.startswith(b"lakestream.")}
    groups = []
    for g in range(meta.num_row_groups):
        rg = meta.row_group(g)
        off = next(rg.column(i) for i in range(rg.num_columns) if rg.column(i).path_in_schema == "_lakestream_offset")
        groups.append({"rows": rg.num_rows, "min": off.statistics.min, "max": off.statistics.max,
                       "codec": off.compression})
    table = f.read()
    rows = []
    hexes = []
    entry = table.column("_lakestream_entry").to_pylist()
    offset = table.column("_lakestream_offset").to_pylist()
    records = table.column("_lakestream_records").to_pylist()
    index = table.column("_lakestream_entry_index").to_pylist()
    for i in range(table.num_rows):
        raw = entry[i]
        if raw is not None and len(hexes) < 3:
            hexes.append(raw.hex())
        rows.append([offset[i], records[i], index[i], None if raw is None else zlib.crc32(raw)])
    print(json.dumps({"num_rows": meta.num_rows, "num_row_groups": meta.num_row_groups, "columns": columns,
                      "metadata": kv, "row_groups": groups, "rows": rows, "first_entries_hex": hexes}))


if __name__ == "__main__":
    main(sys.argv[1])
