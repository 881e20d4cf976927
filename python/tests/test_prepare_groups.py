"""The seed's prepared appends over caller-partitioned groups
(prepare_append_tables), the expected_table_info guard, and the writer
cache's zero-GET steady state, counted from the server's /metrics."""

import datetime as dt
import glob
import os
import re
import urllib.request
import uuid

import pytest

import hoglake
from hoglake import column, ops


def partitioned(ns, name="events"):
    table = ns.create_table(name, [
        column("team_id", "long", nullable=False),
        column("ts", "timestamp"),
        column("payload", "string"),
    ])
    fid = {c.name: c.field_id for c in table.columns}
    table.alter([ops.set_partition_spec([ops.partition_field(fid["team_id"], "identity"),
                                         ops.partition_field(fid["ts"], "month")])])
    return table


def rows(team, month, n=3):
    return {"team_id": [team] * n, "ts": [dt.datetime(2026, month, d + 1, 9) for d in range(n)],
            "payload": [f"{team}/{month}/{d}" for d in range(n)]}


def parquet_objects(catalog):
    root = catalog.data_path.removeprefix("file://")
    return set(glob.glob(os.path.join(root, "**", "*.parquet"), recursive=True))


def test_prepare_append_tables_with_caller_tuples(server, catalog):
    table = partitioned(catalog.create_namespace("ns"))
    key = str(uuid.uuid4())
    payload = table.prepare_append_tables(
        [(rows(101, 1), ("101", "672")), (rows(202, 2), ("202", "673")), (rows(303, 3), None)],
        idempotency_key=key, expected_table_uuid=table.table_uuid)
    # Published elsewhere from the persisted payload, then replayed.
    other = server.client().catalog(catalog.name)
    snapshot = other.commit_prepared(payload)
    assert other.commit_prepared(payload) == snapshot
    files = table.files(snapshot=snapshot)
    assert sorted(f.partition_values for f in files) == [("101", "672"), ("202", "673"),
                                                         ("303", "674")]
    assert sum(f.record_count for f in files) == 9
    got = table.read(snapshot=snapshot, where="team_id = 202").to_pylist()
    assert sorted(r["payload"] for r in got) == ["202/2/0", "202/2/1", "202/2/2"]


def test_a_row_outside_its_tuple_uploads_nothing(catalog):
    table = partitioned(catalog.create_namespace("ns"))
    before = parquet_objects(catalog)
    with pytest.raises(hoglake.ValidationError, match="672"):
        table.prepare_append_tables([(rows(101, 2), ("101", "672"))],
                                    idempotency_key=str(uuid.uuid4()))
    with pytest.raises(hoglake.HoglakeError):
        table.prepare_append_tables([(rows(101, 1), ("101",))], idempotency_key=str(uuid.uuid4()))
    with pytest.raises(TypeError, match="pair"):
        table.prepare_append_tables([rows(101, 1)], idempotency_key=str(uuid.uuid4()))
    assert parquet_objects(catalog) == before


def test_expected_table_info_refuses_a_changed_layout_before_upload(server, catalog):
    ns = catalog.create_namespace("ns")
    table = ns.create_table("t", [column("id", "long", nullable=False)])
    info = table.info()
    payload = table.prepare_append({"id": [1]}, idempotency_key=str(uuid.uuid4()),
                                   expected_table_info=info)
    table.commit_prepared(payload)
    # Another writer changes the layout.
    server.client().catalog(catalog.name).namespace("ns").table("t").alter(
        [ops.add_column("extra", "string")])
    before = parquet_objects(catalog)
    with pytest.raises(hoglake.DdlSinceReadSnapshotError, match="columns") as e:
        table.prepare_append({"id": [2]}, idempotency_key=str(uuid.uuid4()),
                             expected_table_info=info)
    assert e.value.re_prepare and e.value.code == "ddl_since_read_snapshot"
    assert parquet_objects(catalog) == before
    fresh = table.info(snapshot=None)
    table.prepare_append({"id": [2]}, idempotency_key=str(uuid.uuid4()),
                         expected_table_info=table.info(snapshot=fresh.read_snapshot_id))
    with pytest.raises(hoglake.IncarnationChangedError):
        table.prepare_append({"id": [3]}, idempotency_key=str(uuid.uuid4()),
                             expected_table_uuid=str(uuid.uuid4()))
    with pytest.raises(AttributeError):
        table.prepare_append({"id": [3]}, idempotency_key=str(uuid.uuid4()),
                             expected_table_info=object())


def get_requests(server):
    """GETs the server has answered (any route but /metrics itself)."""
    req = urllib.request.Request(server.base + "/metrics",
                                 headers={"Authorization": "Bearer " + server.token})
    with urllib.request.urlopen(req, timeout=30) as r:
        text = r.read().decode()
    total = 0
    for line in text.splitlines():
        m = re.match(r'hoglake_http_requests_total\{(.*)\} (\d+)$', line)
        if m and 'method="GET"' in m.group(1) and 'route="/metrics"' not in m.group(1):
            total += int(m.group(2))
    return total


def test_writer_cache_zero_get_steady_state(server, catalog):
    partitioned(catalog.create_namespace("ns"))
    table = catalog.namespace("ns").table("events")  # one read: the cache is warm
    start = get_requests(server)
    snapshots = []
    for month in range(1, 6):
        payload = table.prepare_append_tables([(rows(7, month), ("7", str(671 + month)))],
                                              idempotency_key=str(uuid.uuid4()))
        snapshots.append(table.commit_prepared(payload))
    assert get_requests(server) == start  # five flushes, not one GET
    assert snapshots == sorted(snapshots) and len(set(snapshots)) == 5

    # An alter elsewhere: the next flush is refused once (re_prepare), and
    # the one after it reads the table once, then the steady state resumes.
    server.client().catalog(catalog.name).namespace("ns").table("events").alter(
        [ops.add_column("extra", "string")])
    stale = table.prepare_append_tables([(rows(7, 6), ("7", "677"))],
                                        idempotency_key=str(uuid.uuid4()))
    with pytest.raises(hoglake.DdlSinceReadSnapshotError) as e:
        table.commit_prepared(stale)
    assert e.value.re_prepare
    mark = get_requests(server)
    table.commit_prepared(table.prepare_append_tables([(rows(7, 6), ("7", "677"))],
                                                      idempotency_key=str(uuid.uuid4())))
    reread = get_requests(server) - mark
    assert 1 <= reread <= 2
    mark = get_requests(server)
    table.commit_prepared(table.prepare_append_tables([(rows(7, 7), ("7", "678"))],
                                                      idempotency_key=str(uuid.uuid4())))
    assert get_requests(server) == mark


def test_catalog_commit_prepared_with_table_drops_the_cache(server, catalog):
    partitioned(catalog.create_namespace("ns"))
    table = catalog.namespace("ns").table("events")
    server.client().catalog(catalog.name).namespace("ns").table("events").alter(
        [ops.add_column("extra", "string")])
    stale = table.prepare_append_tables([(rows(9, 1), ("9", "672"))],
                                        idempotency_key=str(uuid.uuid4()))
    with pytest.raises(hoglake.DdlSinceReadSnapshotError):
        catalog.commit_prepared(stale, table=table)
    mark = get_requests(server)
    snapshot = catalog.commit_prepared(
        table.prepare_append_tables([(rows(9, 1), ("9", "672"))],
                                    idempotency_key=str(uuid.uuid4())), table=table)
    assert get_requests(server) > mark  # the dropped cache was read again
    assert len(table.read(snapshot=snapshot).to_pylist()) == 3
    with pytest.raises(TypeError, match="Table"):
        catalog.commit_prepared(stale, table="events")
