"""The client's objects against a real server: catalogs, namespaces,
tables, appends of plain Python data, reads, time travel, errors."""

import datetime as dt
from decimal import Decimal

import pytest

import hoglake
from hoglake import column


def events(ns, name="events"):
    return ns.create_table(name, [
        column("id", "long", nullable=False),
        column("name", "string"),
        column("score", "double"),
    ])


def test_catalogs(client, catalog):
    assert catalog.name in [c.name for c in client.list_catalogs()]
    again = client.catalog(catalog.name)
    assert again.data_path == catalog.data_path
    with pytest.raises(hoglake.NotFoundError) as e:
        client.catalog("no-such-catalog")
    assert e.value.code == "not_found" and e.value.http_status == 404
    assert isinstance(e.value, hoglake.HoglakeError) and not e.value.retryable


def test_append_and_read_plain_data(catalog):
    ns = catalog.create_namespace("analytics")
    table = events(ns)
    assert table.name == "events" and len(table.table_uuid) == 36
    assert table.ddl_snapshot is not None
    r1 = table.append({"id": [1, 2, 3], "name": ["a", None, "c"], "score": [0.5, 2, None]},
                      author="me", message="first batch")
    assert r1.snapshot_id > table.ddl_snapshot
    assert sum(f.record_count for f in r1.files) == 3
    assert r1.files[0].path.endswith(".parquet")
    r2 = table.append([{"id": 4, "name": "d"}, {"id": 5, "score": 1.25}])
    rows = table.read(snapshot=r2.snapshot_id).to_pylist()
    assert sorted(rows, key=lambda r: r["id"]) == [
        {"id": 1, "name": "a", "score": 0.5},
        {"id": 2, "name": None, "score": 2.0},
        {"id": 3, "name": "c", "score": None},
        {"id": 4, "name": "d", "score": None},
        {"id": 5, "name": None, "score": 1.25},
    ]
    # Time travel: the first append's snapshot holds its three rows only.
    assert len(table.read(snapshot=r1.snapshot_id).to_pylist()) == 3
    # A new handle reads the head; projection and a predicate.
    fresh = ns.table("events")
    assert fresh.ddl_snapshot is None
    got = fresh.read(columns=["name", "id"], where="id >= 4").to_pylist()
    assert sorted(got, key=lambda r: r["id"]) == [{"name": "d", "id": 4}, {"name": None, "id": 5}]
    assert list(got[0]) == ["name", "id"]
    assert len(fresh.read(limit=2).to_pylist()) == 2
    with pytest.raises(ValueError, match="limit must be"):
        fresh.read(limit=-1)
    # Metadata reads are records with attributes.
    files = fresh.files()
    assert sum(f.record_count for f in files) == 5
    assert fresh.info().table_uuid == table.table_uuid
    assert catalog.refresh().head_snapshot_id == r2.snapshot_id


def test_at_timestamp(catalog):
    table = events(catalog.create_namespace("ns"))
    table.append({"id": [1]})
    mid = dt.datetime.now(dt.timezone.utc)
    r = table.append({"id": [2]})
    assert len(table.read(snapshot=r.snapshot_id).to_pylist()) == 2
    assert [x["id"] for x in table.read(at_timestamp=mid).to_pylist()] == [1]
    assert [x["id"] for x in table.read(at_timestamp=mid.isoformat()).to_pylist()] == [1]
    with pytest.raises(ValueError, match="time zone"):
        table.read(at_timestamp=dt.datetime.now())


def test_types_round_trip(catalog):
    ns = catalog.create_namespace("ns")
    table = ns.create_table("t", [
        column("b", "boolean"), column("i", "long"), column("f", "double"),
        column("s", "string"), column("bin", "binary"), column("d", "date"),
        column("ts", "timestamp"), column("tz", "timestamptz"),
    ])
    utc = dt.timezone.utc
    row = {"b": True, "i": -(2**62), "f": 1.5, "s": "héllo", "bin": b"\x00\xff",
           "d": dt.date(1969, 12, 31), "ts": dt.datetime(2026, 1, 2, 3, 4, 5, 678901),
           "tz": dt.datetime(2026, 1, 2, 3, 4, 5, 6, tzinfo=dt.timezone(dt.timedelta(hours=2)))}
    r = table.append([row, {"i": 7}])
    got = table.read(snapshot=r.snapshot_id).to_pylist()
    assert got[0] == {**row, "tz": dt.datetime(2026, 1, 2, 1, 4, 5, 6, tzinfo=utc)}
    assert got[1] == {"b": None, "i": 7, "f": None, "s": None, "bin": None, "d": None,
                      "ts": None, "tz": None}


def test_decimal_read(catalog):
    table = catalog.create_namespace("ns").create_table(
        "t", [column("id", "long"), column("amount", "decimal", type_params={"precision": 10, "scale": 2})])
    table.append({"id": [1]})
    r = table.append({"id": [2, 3, 4], "amount": [Decimal("-12.34"), Decimal("5"), None]})
    got = sorted(table.read(snapshot=r.snapshot_id).to_pylist(), key=lambda x: x["id"])
    assert got == [{"id": 1, "amount": None}, {"id": 2, "amount": Decimal("-12.34")},
                   {"id": 3, "amount": Decimal("5")}, {"id": 4, "amount": None}]
    assert [str(x["amount"]) for x in got[1:3]] == ["-12.34", "5.00"]
    big = Decimal("12345678.99")
    assert table.append({"id": [5], "amount": [big]}).snapshot_id
    with pytest.raises(ValueError, match="more than 2 decimal places"):
        table.append({"id": [6], "amount": [Decimal("1.234")]})
    with pytest.raises(OverflowError, match="more than 10 digits"):
        table.append({"id": [6], "amount": [Decimal("123456789")]})
    with pytest.raises(ValueError, match="not finite"):
        table.append({"id": [6], "amount": [Decimal("NaN")]})


def test_bad_input_is_a_clear_error(catalog):
    table = events(catalog.create_namespace("ns"))
    with pytest.raises(TypeError, match="column 'id': a str value at row 1; a long"):
        table.append({"id": [1, "x"]})
    with pytest.raises(TypeError, match="column 'score': a complex value"):
        table.append({"id": [1], "score": [1j]})
    with pytest.raises(ValueError, match="has 1 values"):
        table.append({"id": [1, 2], "name": ["a"]})
    with pytest.raises(TypeError, match="not a int"):
        table.append(42)
    with pytest.raises(OverflowError, match="int64"):
        table.append({"id": [2**70]})
    # The library's own checks: an unknown column, a missing required one.
    with pytest.raises(hoglake.HoglakeError, match="nope"):
        table.append({"id": [1], "nope": [1]})
    with pytest.raises(hoglake.HoglakeError, match="id"):
        table.append({"name": ["a"]})
    with pytest.raises(hoglake.InvalidArgumentError) as e:
        table.read(where="id >>> 1")
    assert e.value.code == "invalid_predicate"
    with pytest.raises(hoglake.InvalidArgumentError):
        table.read(columns=["nope"])
    assert table.read().to_pylist() == []


def test_errors_from_the_server(client, catalog):
    ns = catalog.create_namespace("ns")
    events(ns)
    with pytest.raises(hoglake.AlreadyExistsError):
        events(ns)
    with pytest.raises(hoglake.NotFound):
        ns.table("missing")
    with pytest.raises(hoglake.ValidationError) as e:
        ns.create_table("bad name!", [column("id", "long")])
    assert e.value.http_status == 422
    with pytest.raises(hoglake.AuthenticationError):
        hoglake.HoglakeClient(client.server_url, "wrong-token").list_catalogs()


def test_incarnation_guard(catalog):
    ns = catalog.create_namespace("ns")
    old = events(ns)
    old.append({"id": [1]})
    old.drop()
    new = events(ns)
    with pytest.raises(hoglake.IncarnationChangedError) as e:
        old.append({"id": [2]})
    assert e.value.re_prepare and e.value.code == "table_recreated"
    assert isinstance(e.value, hoglake.IncarnationChanged)
    assert new.read().to_pylist() == []
    with pytest.raises(ValueError, match="exclude"):
        old.append({"id": [2]}, expected_table_uuid=new.table_uuid, unguarded=True)
    # Pinned to the live incarnation, the old handle writes.
    r = old.append({"id": [3]}, expected_table_uuid=new.table_uuid)
    assert new.read(snapshot=r.snapshot_id).to_pylist() == [{"id": 3, "name": None, "score": None}]


def test_unguarded_spellings(catalog):
    ns = catalog.create_namespace("ns")
    table = events(ns)
    table.append({"id": [1]}, unguarded=True)
    table.append({"id": [2]}, expected_table_uuid=hoglake.UNGUARDED)
    assert sorted(r["id"] for r in ns.table("events").read().to_pylist()) == [1, 2]
    with pytest.raises(TypeError, match="expected_table_uuid"):
        table.append({"id": [3]}, expected_table_uuid=42)


def test_unguarded_append_writes_by_name_after_recreate(catalog):
    ns = catalog.create_namespace("ns")
    old = events(ns)
    old.drop()
    events(ns)
    old.append({"id": [10]}, expected_table_uuid=hoglake.UNGUARDED)
    assert [r["id"] for r in ns.table("events").read().to_pylist()] == [10]


def test_offsets_and_changes(catalog):
    table = events(catalog.create_namespace("ns"))
    r = table.append({"id": [1, 2]})
    plan = table.changes(from_snapshot=0)
    assert plan.to_snapshot >= r.snapshot_id
    assert catalog.offset("consumer", table.table_uuid) is None
    catalog.commit_offset("consumer", table.table_uuid, plan.to_snapshot)
    assert catalog.offset("consumer", table.table_uuid) == plan.to_snapshot
    with pytest.raises(hoglake.CommitConflictError):
        catalog.commit_offset("consumer", table.table_uuid, 0)
    r2 = table.append({"id": [3]})
    rows = table.read_changes(r.snapshot_id, r2.snapshot_id).to_pylist()
    assert [(x["id"], x["_change_type"]) for x in rows] == [(3, "insert")]
    assert isinstance(rows[0]["_row_id"], int)
    assert len(table.read_changes(0).to_pylist()) == 3


def test_reader_is_read_once(catalog):
    table = events(catalog.create_namespace("ns"))
    r = table.append({"id": [1]})
    reader = table.read(snapshot=r.snapshot_id)
    assert len(reader.to_pylist()) == 1
    with pytest.raises(ValueError, match="consumed"):
        reader.to_pylist()
    with pytest.raises(ValueError, match="consumed"):
        reader.__arrow_c_stream__()


def test_snapshot_log_and_retention(catalog):
    table = events(catalog.create_namespace("ns"))
    ids = [table.append({"id": [i]}).snapshot_id for i in range(5)]
    log = [s.snapshot_id for s in catalog.snapshots(limit=2)]  # three pages and more
    assert log == sorted(log) and set(ids) <= set(log)
    assert [s.snapshot_id for s in catalog.snapshots(after=ids[2])] == ids[3:]
    down = [s.snapshot_id for s in catalog.snapshots(before=ids[4] + 1, limit=2)]
    assert down[:5] == ids[::-1]
    with pytest.raises(ValueError, match="excludes"):
        catalog.snapshots(after=1, before=5)
    last = list(catalog.snapshots(after=ids[3]))[0]
    pin = catalog.resolve_snapshot(last.snapshot_time)
    assert pin.snapshot_id == ids[4]
    with pytest.raises(hoglake.NotFoundError):
        catalog.resolve_snapshot("1999-01-01T00:00:00Z")
    opts = catalog.set_retention(7 * 86400, consumer_floor=True)
    assert opts.snapshot_retention_seconds == 7 * 86400 and opts.consumer_floor is True
