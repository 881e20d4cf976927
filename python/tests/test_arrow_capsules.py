"""The Arrow PyCapsule protocol both ways: a Reader's stream into another
table, ctypes producers (release runs once; a failure mid-stream commits
nothing), and a ctypes consumer of a Reader."""

import gc

import pytest

import hoglake
from hoglake import column

from arrow_ctypes import Int64Array, Int64Producer, consume_int64


def two_tables(catalog):
    ns = catalog.create_namespace("ns")
    cols = [column("id", "long", nullable=False), column("v", "long"), column("s", "string")]
    return ns, ns.create_table("src", cols), ns.create_table("dst", cols)


def test_read_stream_appends_into_another_table(catalog):
    ns, src, dst = two_tables(catalog)
    src.append({"id": list(range(100)), "v": [i * i for i in range(100)],
                "s": [None if i % 7 == 0 else f"row {i}" for i in range(100)]})
    reader = ns.table("src").read()
    result = dst.append(reader, message="copied")
    assert sum(f.record_count for f in result.files) == 100
    with pytest.raises(ValueError, match="consumed"):
        reader.to_pylist()

    def rows(t):
        return sorted(ns.table(t).read().to_pylist(), key=lambda r: r["id"])

    assert rows("dst") == rows("src")
    assert len(rows("dst")) == 100


def test_stream_outlives_its_table_handle(catalog):
    ns, src, _ = two_tables(catalog)
    src.append({"id": [1, 2]})
    capsule = ns.table("src").read(columns=["id"]).__arrow_c_stream__()
    gc.collect()  # the capsule alone keeps the table handle alive
    assert consume_int64(capsule) == {"id": [1, 2]}
    del capsule  # its copy was moved out: nothing released twice


def test_capsule_dropped_unread_releases_once(catalog):
    ns, src, _ = two_tables(catalog)
    src.append({"id": [1]})
    capsule = ns.table("src").read().__arrow_c_stream__()
    del capsule
    gc.collect()


def test_producer_released_exactly_once(catalog):
    ns, _, dst = two_tables(catalog)
    producer = Int64Producer([{"id": [1, 2, 3], "v": [10, 20, 30]}, {"id": [4], "v": [40]}])
    result = dst.append(producer)
    assert producer.releases == 1
    assert result.snapshot_id is not None
    got = sorted(ns.table("dst").read(columns=["id", "v"]).to_pylist(), key=lambda r: r["id"])
    assert got == [{"id": 1, "v": 10}, {"id": 2, "v": 20}, {"id": 3, "v": 30},
                   {"id": 4, "v": 40}]


def test_producer_failing_mid_stream_commits_nothing(catalog):
    ns, _, dst = two_tables(catalog)
    head = catalog.refresh().head_snapshot_id
    producer = Int64Producer([{"id": [1, 2]}, {"id": [3]}], fail_at=1)
    with pytest.raises(hoglake.HoglakeError, match="broke on purpose"):
        dst.append(producer)
    assert producer.releases == 1
    assert catalog.refresh().head_snapshot_id == head
    assert ns.table("dst").read().to_pylist() == []
    assert ns.table("dst").files() == []


def test_array_capsules_are_one_batch(catalog):
    ns, _, dst = two_tables(catalog)
    data = Int64Array({"id": [5, 6], "v": [50, 60]})
    result = dst.append(data)
    assert sum(f.record_count for f in result.files) == 2
    assert not data.schema.release and not data.array.release  # moved in, then released
    got = sorted(ns.table("dst").read(columns=["id", "v"]).to_pylist(), key=lambda r: r["id"])
    assert got == [{"id": 5, "v": 50}, {"id": 6, "v": 60}]

    class NotAPair:
        def __arrow_c_array__(self, requested_schema=None):
            return "nope"

    with pytest.raises(TypeError, match="schema, array"):
        dst.append(NotAPair())


def test_create_table_from_an_arrow_schema(catalog):
    ns = catalog.create_namespace("ns")

    class Schema:
        """An __arrow_c_schema__ producer: a struct of int64 fields."""

        def __init__(self, names):
            self.array = Int64Array({n: [0] for n in names})

        def __arrow_c_schema__(self):
            return self.array.__arrow_c_array__()[0]

    table = ns.create_table("fromarrow", Schema(["id", "v"]), properties={"owner": "me"})
    assert [(c.name, c.type, c.field_id) for c in table.columns] == [
        ("id", "long", 1), ("v", "long", 2)]
    r = table.append(Int64Producer([{"id": [1], "v": [2]}]))
    assert table.read(snapshot=r.snapshot_id).to_pylist() == [{"id": 1, "v": 2}]
