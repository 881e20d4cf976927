"""Nested values in plain-data appends: lists, structs and maps, nested in
one another, nulls at every level, typed by the table's columns, read back
with to_pylist(); and the errors a value of the wrong shape raises."""

import datetime as dt
import uuid
from decimal import Decimal

import pytest

import hoglake
from hoglake import column


def el(type_, **extra):
    return {"name": "element", "type": type_, **extra}


def field(name, type_, **extra):
    return {"name": name, "type": type_, **extra}


def kv(key, value, **value_extra):
    return [{"name": "key", "type": key, "nullable": False},
            {"name": "value", "type": value, **value_extra}]


def flat_table(ns):
    return ns.create_table("t", [
        column("id", "long", nullable=False),
        column("tags", "list", children=[el("long")]),
        column("pt", "struct", children=[field("x", "long"), field("label", "string")]),
        column("attrs", "map", children=kv("string", "double")),
    ])


ROWS = [
    {"id": 1, "tags": [1, 2, None], "pt": {"x": 5, "label": "five"},
     "attrs": {"a": 1.5, "b": None}},
    {"id": 2, "tags": [], "pt": None, "attrs": {}},
    {"id": 3, "tags": None, "pt": {"x": None, "label": None}, "attrs": None},
]


def by_id(reader):
    return sorted(reader.to_pylist(), key=lambda r: r["id"])


def test_list_struct_and_map_columns(catalog):
    table = flat_table(catalog.create_namespace("ns"))
    r = table.append(ROWS)
    assert by_id(table.read(snapshot=r.snapshot_id)) == ROWS


def test_dict_of_lists_and_pairs_and_missing_fields(catalog):
    table = flat_table(catalog.create_namespace("ns"))
    # A dict of lists; a map as (key, value) pairs; a struct missing a
    # field (None); a tuple as a list.
    r = table.append({"id": [1, 2], "tags": [(7,), None],
                      "pt": [{"label": "only"}, {"x": 9}],
                      "attrs": [[("k", 2.0), ["j", None]], None]})
    assert by_id(table.read(snapshot=r.snapshot_id)) == [
        {"id": 1, "tags": [7], "pt": {"x": None, "label": "only"},
         "attrs": {"k": 2.0, "j": None}},
        {"id": 2, "tags": None, "pt": {"x": 9, "label": None}, "attrs": None},
    ]


def deep_table(ns):
    """list<struct<n: int, when: timestamptz, amount: decimal(9,3),
    tags: list<string>, scores: map<string, list<float>>,
    inner: struct<id: uuid, d: date>>>, and a map of structs."""
    item = [
        field("n", "int"), field("when", "timestamptz"),
        field("amount", "decimal", type_params={"precision": 9, "scale": 3}),
        field("tags", "list", children=[el("string")]),
        field("scores", "map", children=kv("string", "list", children=[el("float")])),
        field("inner", "struct", children=[field("id", "uuid"), field("d", "date")]),
    ]
    return ns.create_table("deep", [
        column("id", "long", nullable=False),
        column("items", "list", children=[el("struct", children=item)]),
        column("byname", "map", children=kv("string", "struct",
                                            children=[field("u8", "uint8"),
                                                      field("ok", "boolean")])),
    ])


def test_deep_nesting_with_nulls_at_every_level(catalog):
    table = deep_table(catalog.create_namespace("ns"))
    utc = dt.timezone.utc
    u = uuid.UUID("12345678-1234-5678-1234-567812345678")
    full = {"n": -3, "when": dt.datetime(2026, 3, 4, 5, 6, 7, 8, tzinfo=utc),
            "amount": Decimal("123456.789"), "tags": ["a", None, "c"],
            "scores": {"x": [1.5, None], "y": None, "z": []},
            "inner": {"id": u, "d": dt.date(2000, 2, 29)}}
    empty = {"n": None, "when": None, "amount": None, "tags": None, "scores": None,
             "inner": None}
    rows = [
        {"id": 1, "items": [full, None, empty], "byname": {"a": {"u8": 255, "ok": True},
                                                           "b": None}},
        {"id": 2, "items": [], "byname": {}},
        {"id": 3, "items": None, "byname": None},
        {"id": 4, "items": [{**empty, "inner": {"id": None, "d": None}}],
         "byname": {"c": {"u8": None, "ok": None}}},
    ]
    r = table.append(rows)
    assert by_id(table.read(snapshot=r.snapshot_id)) == rows


def test_wrong_shapes_are_clear_errors(catalog):
    ns = catalog.create_namespace("ns")
    table = flat_table(ns)
    deep = deep_table(ns)
    head = catalog.refresh().head_snapshot_id
    cases = [
        ({"id": [1, 2], "tags": [[1], 5]}, "column 'tags': a int value at row 1; a list"),
        ({"id": [1], "tags": [[1, "x"]]}, "column 'tags\\[\\]': a str value at row 0; a long"),
        ({"id": [1], "pt": [[1, 2]]}, "column 'pt': a list value at row 0; a struct"),
        ({"id": [1], "pt": [{"x": 1, "y": 2}]}, "column 'pt': row 0 has a field 'y'"),
        ({"id": [1], "pt": [{"x": "5"}]}, "column 'pt.x': a str value at row 0"),
        ({"id": [1], "attrs": [{None: 1.0}]}, "column 'attrs': a None key at row 0"),
        ({"id": [1], "attrs": [[("a", 1.0, 2)]]}, "entry 0 at row 0 is a tuple, not a \\(key"),
        ({"id": [1], "attrs": ["a=1"]}, "column 'attrs': a str value at row 0; a map"),
        ({"id": [1], "attrs": [{"a": "x"}]}, "column 'attrs.value': a str value at row 0"),
        ([{"id": 1}, {"id": 2, "items": [{"scores": {"k": [1.0, "no"]}}]}],
         "column 'items\\[\\].scores.value\\[\\]': a str value at row 1; a float column"),
    ]
    for data, message in cases:
        t = deep if isinstance(data, list) else table
        with pytest.raises((hoglake.InvalidArgumentError, TypeError), match=message):
            t.append(data)
    # Shapes are InvalidArgumentError (a ValueError), scalar types TypeError.
    with pytest.raises(hoglake.InvalidArgumentError) as e:
        table.append({"id": [1], "tags": [{"a": 1}]})
    assert isinstance(e.value, ValueError) and e.value.code == "invalid_argument"
    # The library's own range check, naming the nested field.
    with pytest.raises(hoglake.HoglakeError, match="u8"):
        deep.append({"id": [1], "byname": [{"k": {"u8": 256}}]})
    assert catalog.refresh().head_snapshot_id == head
