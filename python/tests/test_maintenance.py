"""Maintenance through the client: expiry makes old snapshots raise
ExpiredError, cleanup deletes what expiry queued, hydrate fills deferred
statistics."""

import time

import pytest

import hoglake
from hoglake import column


def test_expire_cleanup_and_the_expired_error(catalog):
    ns = catalog.create_namespace("ns")
    table = ns.create_table("t", [column("id", "long", nullable=False)])
    first = table.append({"id": [1]})
    table.alter([hoglake.ops.add_column("s", "string")])
    last = table.append({"id": [2]})
    catalog.set_retention(1, consumer_floor=False)  # the shortest window
    time.sleep(1.5)
    done = catalog.expire()
    assert done.snapshots_expired >= 2
    assert done.new_earliest_snapshot_id > first.snapshot_id
    with pytest.raises(hoglake.ExpiredError) as e:
        table.read(snapshot=first.snapshot_id).to_pylist()
    assert e.value.http_status == 410 and not e.value.retryable
    assert isinstance(e.value, hoglake.Expired)
    swept = catalog.cleanup()
    assert swept.failed == 0 and swept.still_referenced == 0
    assert sorted(r["id"] for r in ns.table("t").read().to_pylist()) == [1, 2]
    assert last.snapshot_id >= done.new_earliest_snapshot_id
    with pytest.raises(ValueError, match="batch"):
        catalog.expire(batch=-1)


def test_hydrate_fills_deferred_statistics(catalog):
    table = catalog.create_namespace("ns").create_table("t", [column("id", "long")])
    r = table.append({"id": [1, 2]}, deferred_stats=True)
    assert [f.stats_state for f in table.files(snapshot=r.snapshot_id)] == ["pending"]
    done = catalog.hydrate()
    assert done.hydrated == 1 and done.still_pending == 0
    assert [f.stats_state for f in table.files(snapshot=r.snapshot_id)] != ["pending"]
