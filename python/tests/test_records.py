"""Typed records: what info(), files(), snapshots(), resolve_snapshot(),
options() and the maintenance passes return are named records with
attributes (the library's typed structs), checked against what the server
did."""

import datetime as dt
import os
import shutil
import subprocess

import pytest

import hoglake
from hoglake import column, ops


def nested_table(ns):
    return ns.create_table("t", [
        column("id", "long", nullable=False),
        column("amount", "decimal", type_params={"precision": 10, "scale": 2}),
        column("ts", "timestamp"),
        column("tags", "list", children=[column("element", "string")]),
        column("attrs", "map", children=[column("key", "string", nullable=False),
                                          column("value", "long")]),
        column("addr", "struct", children=[column("zip", "string"), column("city", "string")]),
    ], properties={"owner.team": "data"})


def test_table_info_is_typed(catalog):
    ns = catalog.create_namespace("ns")
    table = nested_table(ns)
    info = table.info()
    assert isinstance(info, hoglake.TableInfo)
    assert (info.name, info.namespace, info.table_uuid) == ("t", "ns", table.table_uuid)
    assert info.properties == {"owner.team": "data"}
    assert info.spec_id is None and info.partition_fields == []
    assert info.sort_id is None and info.sort_fields == []
    assert (info.record_count, info.file_count) == (0, 0)
    by_name = {c.name: c for c in info.columns}
    assert all(isinstance(c, hoglake.Column) for c in info.columns)
    assert by_name["id"].nullable is False and by_name["id"].type == "long"
    assert (by_name["amount"].type, by_name["amount"].precision, by_name["amount"].scale) == (
        "decimal", 10, 2)
    assert [c.name for c in by_name["tags"].children] == ["element"]
    assert [(c.name, c.nullable) for c in by_name["attrs"].children] == [
        ("key", False), ("value", True)]
    assert [c.name for c in by_name["addr"].children] == ["zip", "city"]
    ids = [c.field_id for c in info.columns]
    assert len(set(ids)) == len(ids)
    # The handle's own columns agree with the read.
    assert table.columns == info.columns

    fid = {c.name: c.field_id for c in table.columns}
    after = table.alter([
        ops.set_partition_spec([ops.partition_field(fid["id"], "bucket", 4),
                                ops.partition_field(fid["ts"], "day")]),
        ops.set_sort_order([ops.sort_field(fid["id"], descending=True)]),
    ])
    assert isinstance(after, hoglake.TableInfo)
    assert [(p.source_field_id, p.transform, p.transform_param) for p in after.partition_fields] \
        == [(fid["id"], "bucket", 4), (fid["ts"], "day", 0)]
    assert [(s.source_field_id, s.descending, s.nulls_first) for s in after.sort_fields] == [
        (fid["id"], True, False)]
    assert after.spec_id is not None and after.sort_id is not None

    r = table.append({"id": [1, 2, 3], "ts": [dt.datetime(2026, 1, 1)] * 3})
    now = table.info(snapshot=r.snapshot_id)
    assert now.read_snapshot_id == r.snapshot_id
    assert (now.record_count, now.file_count) == (3, len(r.files))
    assert now.file_size_bytes == sum(f.file_size_bytes for f in r.files)


def test_files_are_typed(catalog):
    table = catalog.create_namespace("ns").create_table("t", [column("id", "long")])
    fid = table.columns[0].field_id
    table.alter([ops.set_partition_spec([ops.partition_field(fid, "truncate", 10)])])
    r = table.append({"id": [1, 2, 15, None]}, author="me", message="four rows")
    files = table.files(snapshot=r.snapshot_id)
    assert all(isinstance(f, hoglake.DataFile) for f in files)
    key = repr
    assert sorted((f.partition_values for f in files), key=key) == sorted(
        (f.partition_values for f in r.files), key=key)
    assert sorted((f.partition_values for f in files), key=key) == [("0",), ("10",), (None,)]
    assert {f.path for f in files} == {f.path for f in r.files}
    assert sum(f.record_count for f in files) == 4
    for f in files:
        assert f.begin_snapshot == r.snapshot_id and f.stats_state == "provided"
        assert f.spec_id is not None and f.explicit_row_ids is False
        assert f.footer_size is None or f.footer_size > 0
    starts = sorted(f.row_id_start for f in files)
    assert len(set(starts)) == len(starts)
    assert table.files(snapshot=r.snapshot_id - 1) == []


def test_snapshots_and_resolve_are_typed(catalog):
    table = catalog.create_namespace("ns").create_table("t", [column("id", "long")])
    r = table.append({"id": [1]}, author="alice", message="the first")
    snaps = list(catalog.snapshots(after=r.snapshot_id - 1))
    assert [s.snapshot_id for s in snaps] == [r.snapshot_id]
    s = snaps[0]
    assert isinstance(s, hoglake.Snapshot)
    assert (s.author, s.message) == ("alice", "the first")
    assert dt.datetime.fromisoformat(s.snapshot_time.replace("Z", "+00:00")).tzinfo is not None
    assert isinstance(s.changes, list) and s.changes
    pin = catalog.resolve_snapshot(s.snapshot_time)
    assert isinstance(pin, hoglake.Snapshot)
    assert (pin.snapshot_id, pin.snapshot_time) == (s.snapshot_id, s.snapshot_time)


def test_options_and_maintenance_results_are_typed(catalog):
    opts = catalog.options()
    assert isinstance(opts, hoglake.CatalogOptions)
    changed = catalog.set_retention(3600, consumer_floor=False)
    assert (changed.snapshot_retention_seconds, changed.consumer_floor) == (3600, False)
    assert catalog.options() == changed
    off = catalog.set_retention(None)
    assert off.snapshot_retention_seconds is None
    with pytest.raises(hoglake.ValidationError):
        catalog.set_retention(10 ** 12)
    assert catalog.options() == off  # a refused change changes nothing
    for result, kind in ((catalog.expire(), hoglake.ExpireResult),
                         (catalog.cleanup(), hoglake.CleanupResult),
                         (catalog.hydrate(), hoglake.HydrateResult),
                         (catalog.compact(), hoglake.CompactResult)):
        assert isinstance(result, kind)


def test_compact_merges_small_files(catalog):
    table = catalog.create_namespace("ns").create_table("t", [column("id", "long"),
                                                              column("s", "string")])
    for i in range(4):
        table.append({"id": [i * 10 + k for k in range(10)], "s": [f"r{i}"] * 10})
    head = table.append({"id": [100], "s": ["last"]}).snapshot_id
    before = table.files(snapshot=head)
    assert len(before) == 5
    done = catalog.compact()
    assert done.groups_compacted == 1 and done.files_in == 5 and done.files_out == 1
    assert done.bytes_in == sum(f.file_size_bytes for f in before)
    # The handle reads its DDL snapshot by default: ask for the head.
    now = catalog.refresh().head_snapshot_id
    after = table.files(snapshot=now)
    assert len(after) == 1 and after[0].record_count == 41
    assert after[0].begin_snapshot == now > head
    rows = sorted(r["id"] for r in table.read(snapshot=now).to_pylist())
    assert rows == sorted([i * 10 + k for i in range(4) for k in range(10)] + [100])
    # Nothing left to do: the next pass compacts nothing and says why.
    again = catalog.compact()
    assert again.groups_compacted == 0 and again.left_too_few_files == 1


def cli_delete(server, catalog, table, where):
    """A deletion vector, written by the hoglake CLI (the binding writes none)."""
    binary = os.environ.get("HOGLAKE_CLI") or shutil.which("hoglake")
    assert binary, "the hoglake CLI was not found: set HOGLAKE_CLI"
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    env["HOGLAKE_TOKEN"] = server.token
    done = subprocess.run([binary, "--server", server.base, "delete",
                           f"{catalog.name}.ns.{table}", "--where", where],
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_scan_plan_and_changes_are_typed(server, catalog):
    table = catalog.create_namespace("ns").create_table("t", [column("id", "long")])
    first = table.append({"id": [1, 2, 3]})
    second = table.append({"id": [4, 5]})
    cli_delete(server, catalog, "t", "id = 2")
    one = catalog.refresh().head_snapshot_id
    cli_delete(server, catalog, "t", "id = 3")  # supersedes the first vector
    two = catalog.refresh().head_snapshot_id

    plan = table.scan_plan(snapshot=two)
    assert all(isinstance(e, hoglake.ScanFile) for e in plan)
    by_path = {e.data_file.path: e for e in plan}
    masked = by_path[first.files[0].path]
    assert isinstance(masked.data_file, hoglake.DataFile)
    assert isinstance(masked.delete_file, hoglake.DeleteFile)
    assert masked.delete_file.delete_count == 2 and masked.delete_file.begin_snapshot == two
    assert masked.delete_file.data_file_id == masked.data_file.data_file_id
    assert by_path[second.files[0].path].delete_file is None
    # Time travel: between the deletes the first vector, before them none.
    assert {e.data_file.path: e.delete_file.delete_count if e.delete_file else 0
            for e in table.scan_plan(snapshot=one)}[first.files[0].path] == 1
    assert all(e.delete_file is None for e in table.scan_plan(snapshot=second.snapshot_id))

    feed = table.changes(from_snapshot=first.snapshot_id)
    assert isinstance(feed, hoglake.ChangesPlan)
    assert (feed.table_uuid, feed.from_snapshot, feed.to_snapshot) == (
        table.table_uuid, first.snapshot_id, two)
    assert [f.path for f in feed.files] == [second.files[0].path]
    assert [(d.delete_file.delete_count, d.data_file.path) for d in feed.delete_files] == [
        (1, first.files[0].path), (2, first.files[0].path)]
    first_dv, second_dv = feed.delete_files
    assert first_dv.superseded is None
    assert second_dv.superseded == first_dv.delete_file
    # A window of the second delete alone still names the vector it replaced.
    late = table.changes(from_snapshot=one, to_snapshot=two)
    assert late.files == [] and late.delete_files[0].superseded == first_dv.delete_file
    assert table.changes(from_snapshot=two).files == []
