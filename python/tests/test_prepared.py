"""Prepared appends: encode and upload now, publish later (from the payload
alone, in another client), replay safely."""

import json
import uuid

import pytest

import hoglake
from hoglake import column, ops


def test_prepare_persist_commit_replay(server, catalog):
    ns = catalog.create_namespace("ns")
    table = ns.create_table("t", [column("id", "long", nullable=False)])
    key = str(uuid.uuid4())
    payload = table.prepare_append({"id": [1, 2, 3]}, idempotency_key=key)
    assert json.loads(payload)["idempotency_key"] == key
    assert ns.table("t").read().to_pylist() == []  # nothing visible before the commit

    # Published by another client from the persisted payload, then replayed.
    other = server.client().catalog(catalog.name)
    snapshot = other.commit_prepared(payload)
    assert other.commit_prepared(payload) == snapshot
    assert table.commit_prepared(payload) == snapshot
    rows = ns.table("t").read().to_pylist()
    assert sorted(r["id"] for r in rows) == [1, 2, 3]


def test_prepared_payload_refused_after_recreate(catalog):
    ns = catalog.create_namespace("ns")
    table = ns.create_table("t", [column("id", "long", nullable=False)])
    payload = table.prepare_append([{"id": 1}], idempotency_key=str(uuid.uuid4()))
    table.drop()
    ns.create_table("t", [column("id", "long", nullable=False)])
    with pytest.raises(hoglake.IncarnationChangedError) as e:
        table.commit_prepared(payload)
    assert e.value.re_prepare and e.value.code == "table_recreated"
    assert ns.table("t").read().to_pylist() == []
    with pytest.raises(hoglake.InvalidArgumentError):
        table.prepare_append([{"id": 1}], idempotency_key="not-a-uuid")


def test_prepare_append_files_from_another_tables_parquet(catalog):
    ns = catalog.create_namespace("ns")
    cols = [column("id", "long", nullable=False), column("s", "string")]
    src = ns.create_table("src", cols)
    dst = ns.create_table("dst", cols)
    r = src.append({"id": [1, 2], "s": ["a", None]})
    paths = [f.path.removeprefix("file://") for f in src.files(snapshot=r.snapshot_id)]
    payload = dst.prepare_append_files(paths, idempotency_key=str(uuid.uuid4()))
    snapshot = dst.commit_prepared(payload)
    rows = dst.read(snapshot=snapshot).to_pylist()
    assert sorted(rows, key=lambda x: x["id"]) == [{"id": 1, "s": "a"}, {"id": 2, "s": None}]
    with pytest.raises(TypeError, match="pairs"):
        dst.prepare_append_files([42], idempotency_key=str(uuid.uuid4()))
    with pytest.raises(hoglake.HoglakeError):
        dst.prepare_append_files(["/no/such/file.parquet"], idempotency_key=str(uuid.uuid4()))


def test_prepare_append_files_partitioned(catalog):
    ns = catalog.create_namespace("ns")
    cols = [column("team", "long", nullable=False), column("v", "long")]
    tables = [ns.create_table(name, cols) for name in ("src", "dst")]
    for t in tables:
        t.alter([ops.set_partition_spec([ops.partition_field(t.columns[0].field_id, "identity")])])
    src, dst = tables
    r = src.append({"team": [1, 1, 2], "v": [10, 11, 20]})
    files = [(f.path, tuple(f.partition_values)) for f in r.files]
    assert sorted(v for _, v in files) == [("1",), ("2",)]
    payload = dst.prepare_append_files([(p.removeprefix("file://"), v) for p, v in files],
                                       idempotency_key=str(uuid.uuid4()))
    snapshot = dst.commit_prepared(payload)
    got = dst.read(snapshot=snapshot, where="team = 1").to_pylist()
    assert sorted(x["v"] for x in got) == [10, 11]
    assert sorted(tuple(f.partition_values) for f in dst.files(snapshot=snapshot)) == [
        ("1",), ("2",)]


def test_ddl_between_prepare_and_commit_is_refused(catalog):
    ns = catalog.create_namespace("ns")
    table = ns.create_table("t", [column("id", "long", nullable=False)])
    payload = table.prepare_append({"id": [1]}, idempotency_key=str(uuid.uuid4()))
    ns.table("t").alter([ops.add_column("extra", "string")])
    with pytest.raises(hoglake.DdlSinceReadSnapshotError) as e:
        table.commit_prepared(payload)
    assert e.value.re_prepare and e.value.http_status == 409
    assert isinstance(e.value, hoglake.DdlSinceReadSnapshot)
    assert ns.table("t").read().to_pylist() == []
