"""Every alter op hoglake.ops builds, applied by the real server and read
back through info(); add_column from an Arrow type (__arrow_c_schema__)."""

import ctypes

import pytest

import hoglake
from hoglake import column, ops
from arrow_ctypes import FLAG_NULLABLE, ArrowSchema, _capsule_new, _release_schema


class ArrowType:
    """A bare Arrow type (no children) as pyarrow's DataType exports it."""

    def __init__(self, fmt, metadata=None):
        self.schema = ArrowSchema(format=fmt, name=b"", metadata=metadata, flags=FLAG_NULLABLE,
                                  release=_release_schema)

    def __arrow_c_schema__(self):
        return _capsule_new(ctypes.addressof(self.schema), b"arrow_schema", None)


def by_name(info):
    return {c.name: c for c in info.columns}


def test_every_op(catalog):
    ns = catalog.create_namespace("ns")
    table = ns.create_table("t", [
        column("id", "int", nullable=False),
        column("ts", "timestamptz"),
        column("old", "string"),
        column("addr", "struct", children=[column("zip", "string")]),
    ])
    info = table.alter([
        ops.add_column("score", ArrowType(b"g")),            # pa.float64()
        ops.add_column("price", ArrowType(b"d:10,2"), nullable=False, comment="in EUR"),
        ops.add_column("seen", ArrowType(b"tsu:UTC")),       # pa.timestamp("us", tz="UTC")
        ops.add_column("city", "string", parent="addr"),
        ops.add_column("note", "string", comment="free text"),
    ])
    cols = by_name(info)
    assert (cols["score"].type, cols["score"].nullable) == ("double", True)
    assert (cols["price"].type, cols["price"].precision, cols["price"].scale) == ("decimal", 10, 2)
    assert cols["price"].nullable is False and cols["price"].comment == "in EUR"
    assert cols["seen"].type == "timestamptz"
    assert [c.name for c in cols["addr"].children] == ["zip", "city"]
    assert cols["note"].comment == "free text"

    info = table.alter([
        ops.drop_column("old"),
        ops.rename_column("addr.zip", "code"),
        ops.promote_column("id", "long"),
        ops.drop_not_null("price"),
        ops.set_column_comment("score", "0..1"),
        ops.set_table_comment("the events"),
        ops.set_properties({"owner.team": "data"}),
        ops.set_primary_timestamp_column("ts"),
        ops.rename_table("events"),
    ])
    cols = by_name(info)
    assert "old" not in cols
    assert [c.name for c in cols["addr"].children] == ["code", "city"]
    assert cols["id"].type == "long" and cols["price"].nullable is True
    assert cols["score"].comment == "0..1"
    assert (info.name, info.comment, info.primary_timestamp_column) == ("events", "the events",
                                                                         "ts")
    assert info.properties == {"owner.team": "data"}
    assert ns.table("events").table_uuid == table.table_uuid

    info = table.alter([ops.set_properties({}), ops.set_table_comment(None),
                        ops.set_primary_timestamp_column(None)])
    assert (info.properties, info.comment, info.primary_timestamp_column) == ({}, None, None)
    # The data path follows: a row with the new columns reads back.
    r = table.append([{"id": 7, "score": 0.5, "addr": None}])
    assert table.read(snapshot=r.snapshot_id, columns=["id", "score"]).to_pylist() == [
        {"id": 7, "score": 0.5}]


def test_refused_ops_change_nothing(catalog):
    table = catalog.create_namespace("ns").create_table("t", [column("id", "long")])
    before = table.info()
    with pytest.raises(hoglake.InvalidArgumentError, match="'x'.*format 'e'"):
        ops.add_column("x", ArrowType(b"e"))  # float16 maps to no catalog type
    with pytest.raises(hoglake.ValidationError, match="last column"):
        table.alter([ops.add_column("y", "string"), ops.drop_column("id"), ops.drop_column("y")])
    with pytest.raises(hoglake.ValidationError):
        table.alter([ops.promote_column("id", "int")])
    with pytest.raises(hoglake.BadRequestError):
        table.alter([])
    after = table.info()
    assert (after.columns, after.read_snapshot_id) == (before.columns, before.read_snapshot_id)
