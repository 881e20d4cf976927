"""Every one of the 26 catalog types Arrow maps to (variant, the 27th, has
no plain Arrow type), nested in lists, structs and maps, with nulls: a
ctypes stream -> create_table from its schema -> append -> read back, equal
values and the same Arrow formats; the read stream appended into another
table; and the same rows as plain data."""

import datetime as dt
import uuid
from decimal import Decimal

from arrow_ctypes import Field, Producer, consume


def entries(key, value):
    return [Field("entries", "+s", [key, value], nullable=False)]


FIELDS = [
    Field("id", "l", nullable=False),
    Field("b", "b"), Field("i8", "c"), Field("i16", "s"), Field("i32", "i"), Field("i64", "l"),
    Field("u8", "C"), Field("u16", "S"), Field("u32", "I"), Field("u64", "L"),
    Field("f32", "f"), Field("f64", "g"), Field("dec", "d:20,4"),
    Field("day", "tdD"), Field("tod", "ttu"),
    Field("ts_s", "tss:"), Field("ts_ms", "tsm:"), Field("ts_us", "tsu:"), Field("ts_ns", "tsn:"),
    Field("tstz", "tsu:UTC"),
    Field("s", "u"), Field("js", "u", extension="arrow.json"),
    Field("u", "w:16", extension="arrow.uuid"), Field("bin", "z"),
    Field("tags", "+l", [Field("element", "l")]),
    Field("pt", "+s", [Field("x", "g"), Field("label", "u")]),
    Field("attrs", "+m", entries(Field("key", "u", nullable=False), Field("value", "g"))),
    # list<struct<when: timestamptz, m: map<string, list<decimal(9,2)>>>>
    Field("deep", "+l", [Field("element", "+s", [
        Field("when", "tsu:UTC"),
        Field("m", "+m", entries(Field("key", "u", nullable=False),
                                 Field("value", "+l", [Field("element", "d:9,2")]))),
    ])]),
]

TYPES = {
    "id": "long", "b": "boolean", "i8": "int8", "i16": "int16", "i32": "int", "i64": "long",
    "u8": "uint8", "u16": "uint16", "u32": "uint32", "u64": "uint64", "f32": "float",
    "f64": "double", "dec": "decimal", "day": "date", "tod": "time", "ts_s": "timestamp_s",
    "ts_ms": "timestamp_ms", "ts_us": "timestamp", "ts_ns": "timestamp_ns",
    "tstz": "timestamptz", "s": "string", "js": "json", "u": "uuid", "bin": "binary",
    "tags": "list", "pt": "struct", "attrs": "map", "deep": "list",
}

UTC = dt.timezone.utc
WHEN = dt.datetime(2026, 1, 2, 3, 4, 5, 678901)
ROWS = [
    {"id": 1, "b": True, "i8": -128, "i16": -32768, "i32": -2**31, "i64": -2**63,
     "u8": 255, "u16": 65535, "u32": 2**32 - 1, "u64": 2**64 - 1, "f32": 1.5, "f64": -2.25,
     "dec": Decimal("-1234567890123456.7890"), "day": dt.date(1969, 12, 31),
     "tod": dt.time(23, 59, 59, 999999), "ts_s": WHEN.replace(microsecond=0),
     "ts_ms": WHEN.replace(microsecond=678000), "ts_us": WHEN, "ts_ns": WHEN,
     "tstz": WHEN.replace(tzinfo=UTC), "s": "héllo", "js": '{"a":[1,2,null]}',
     "u": uuid.UUID("12345678-9abc-def0-1234-56789abcdef0"), "bin": b"\x00\xff",
     "tags": [1, None, 3], "pt": {"x": 1.5, "label": None}, "attrs": {"a": 1.0, "b": None},
     "deep": [{"when": WHEN.replace(tzinfo=UTC), "m": {"k": [Decimal("1.25"), None], "e": []}},
              None, {"when": None, "m": None}]},
    {"id": 2, **{name: None for name in TYPES if name != "id"}},
    {"id": 3, "b": False, "i8": 127, "i16": 32767, "i32": 2**31 - 1, "i64": 2**63 - 1,
     "u8": 0, "u16": 0, "u32": 0, "u64": 0, "f32": -0.25, "f64": 1e300,
     "dec": Decimal("0.0001"), "day": dt.date(2000, 2, 29), "tod": dt.time(0, 0),
     "ts_s": dt.datetime(1900, 1, 1), "ts_ms": dt.datetime(1900, 1, 1),
     "ts_us": dt.datetime(1900, 1, 1), "ts_ns": dt.datetime(1900, 1, 1),
     "tstz": dt.datetime(1900, 1, 1, tzinfo=UTC), "s": "", "js": "null",
     "u": uuid.UUID(int=0), "bin": b"", "tags": [], "pt": {"x": None, "label": ""},
     "attrs": {}, "deep": []},
]


def columns(names):
    return {n: [r[n] for r in ROWS] for n in names}


def producer(fail_at=None):
    names = [f.name for f in FIELDS]
    batches = [{n: v[:2] for n, v in columns(names).items()},
               {n: v[2:] for n, v in columns(names).items()}]
    return Producer(FIELDS, batches, fail_at)


def tree(fields):
    return [(f.name, f.format, f.extension, tree(f.children)) for f in fields]


def by_id(rows):
    return sorted(rows, key=lambda r: r["id"])


def test_every_type_from_an_arrow_stream(catalog):
    ns = catalog.create_namespace("ns")
    p = producer()
    table = ns.create_table("all", p)
    assert p.schema_releases == 1  # the schema capsule, released by its destructor
    assert {c.name: c.type for c in table.columns} == TYPES
    assert len(set(TYPES.values())) == 26
    dec = next(c for c in table.columns if c.name == "dec")
    assert (dec.type_params.precision, dec.type_params.scale) == (20, 4)

    r = table.append(p)
    assert p.releases == 1 and p.calls == 3
    assert sum(f.record_count for f in r.files) == 3
    assert by_id(table.read(snapshot=r.snapshot_id).to_pylist()) == ROWS

    # Re-exported: the read stream carries the formats it was written with.
    formats, _ = consume(ns.table("all").read().__arrow_c_stream__())
    assert formats == tree(FIELDS)

    # The read stream into another table of the same schema: equal.
    copy = ns.create_table("copy", producer())
    copy.append(ns.table("all").read())
    assert by_id(ns.table("copy").read().to_pylist()) == ROWS

    # A table made from a read stream's schema has every type back, json
    # included (reads mark it arrow.json).
    again = ns.create_table("again", ns.table("all").read())
    assert {c.name: c.type for c in again.columns} == TYPES
    again.append(ns.table("all").read())
    assert by_id(ns.table("again").read().to_pylist()) == ROWS


def test_every_type_as_plain_data(catalog):
    ns = catalog.create_namespace("ns")
    table = ns.create_table("plain", producer())
    r = table.append(ROWS)
    assert by_id(table.read(snapshot=r.snapshot_id).to_pylist()) == ROWS
    # A dict of lists, ints into float columns.
    r = table.append({"id": [4], "f32": [2], "f64": [-3], "deep": [[{"m": [("z", [])]}]]})
    # The scan's column stats hold u64's 2**64 - 1, a JSON number wider
    # than int64: the predicate's pruning reads it exactly.
    [got] = table.read(snapshot=r.snapshot_id, where="id = 4").to_pylist()
    assert (got["f32"], got["f64"]) == (2.0, -3.0)
    big = table.read(snapshot=r.snapshot_id, where="u64 > 9223372036854775807").to_pylist()
    assert [x["u64"] for x in big] == [2**64 - 1]
    assert got["deep"] == [{"when": None, "m": {"z": []}}]
