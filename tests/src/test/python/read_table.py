"""Reads an Iceberg table the Java side wrote, with pyiceberg only, and prints it as canonical JSON.

usage: read_table.py CATALOG_DB WAREHOUSE_URI CATALOG_NAME TABLE (e.g. public.default.orders)

Output (stdout, one JSON document): {"rows": [...], "snapshot_summaries": [...], "schema": "..."} where every
value is made plain so that the Java test can build the same document from IcebergGenerics:
timestamps (with or without zone) -> microseconds since the epoch, date -> days since the epoch, time ->
microseconds since midnight, decimal -> plain string, binary/fixed/uuid -> base64 of the bytes, map -> object,
struct -> object, list -> array. Rows are sorted by (_pulsar_partition, _pulsar_offset, _pulsar_batch_index).
"""
import base64
import datetime
import decimal
import json
import sys
import uuid

from pyiceberg.catalog.sql import SqlCatalog

EPOCH_TZ = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
EPOCH = datetime.datetime(1970, 1, 1)
MICRO = datetime.timedelta(microseconds=1)


def plain(v):
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, datetime.datetime):
        return (v - (EPOCH_TZ if v.tzinfo else EPOCH)) // MICRO
    if isinstance(v, datetime.date):
        return (v - datetime.date(1970, 1, 1)).days
    if isinstance(v, datetime.time):
        return ((v.hour * 60 + v.minute) * 60 + v.second) * 1_000_000 + v.microsecond
    if isinstance(v, decimal.Decimal):
        return format(v, "f")
    if isinstance(v, (bytes, bytearray)):
        return base64.b64encode(bytes(v)).decode("ascii")
    if isinstance(v, uuid.UUID):
        return base64.b64encode(v.bytes).decode("ascii")
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    if isinstance(v, list):
        # pyarrow gives a map as a list of (key, value) tuples
        if v and all(isinstance(x, tuple) and len(x) == 2 for x in v):
            return {k: plain(x) for k, x in v}
        return [plain(x) for x in v]
    raise TypeError(f"no plain form for {type(v)}: {v!r}")


def main():
    db, warehouse, name, table_name = sys.argv[1:5]
    # Read-only: pyiceberg's SQL catalog would otherwise create its tables in the file.
    catalog = SqlCatalog(name, uri=f"sqlite:///file:{db}?mode=ro&uri=true", warehouse=warehouse)
    table = catalog.load_table(tuple(table_name.split(".")))
    rows = [plain(r) for r in table.scan().to_arrow().to_pylist()]
    for r in rows:
        for k, v in list(r.items()):
            if isinstance(v, list) and not v and k == "_pulsar_properties":
                r[k] = {}
    rows.sort(key=lambda r: (r["_pulsar_partition"] if r["_pulsar_partition"] is not None else -1,
                             r["_pulsar_offset"], r["_pulsar_batch_index"]))
    summaries = [dict(s.summary.additional_properties) for s in table.snapshots()]
    json.dump({"rows": rows, "snapshot_summaries": summaries, "schema": str(table.schema())}, sys.stdout)


if __name__ == "__main__":
    main()
