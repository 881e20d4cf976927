"""The seed's partitioned write: identity(team_id) x month(ts), one file per
partition tuple in one commit, the tuples on the result (month 672 is
2026-01)."""

import datetime as dt

from hoglake import column, ops


def test_fanout_append_months_per_team(catalog):
    ns = catalog.create_namespace("ns")
    table = ns.create_table("events", [
        column("team_id", "long", nullable=False),
        column("ts", "timestamp"),
        column("payload", "string"),
    ])
    fid = {c.name: c.field_id for c in table.columns}
    table.alter([ops.set_partition_spec([
        ops.partition_field(fid["team_id"], "identity"),
        ops.partition_field(fid["ts"], "month"),
    ])])
    rows = [{"team_id": team, "ts": dt.datetime(2026, month, 15, 12), "payload": f"{team}/{month}"}
            for team in (101, 202) for month in (1, 2, 3)]
    res = table.append(rows)
    assert len(res.files) == 6
    assert sorted(f.partition_values for f in res.files) == [
        ("101", "672"), ("101", "673"), ("101", "674"),
        ("202", "672"), ("202", "673"), ("202", "674"),
    ]
    assert all(f.record_count == 1 for f in res.files)
    got = table.read(snapshot=res.snapshot_id, where="team_id = 101").to_pylist()
    assert sorted(r["payload"] for r in got) == ["101/1", "101/2", "101/3"]
