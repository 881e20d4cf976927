"""Appends and reads from several threads at once: the GIL is released
around library calls, and one table handle is shared, as libhoglake allows."""

import threading
import tracemalloc

from hoglake import column


def test_parallel_appends_share_one_handle(catalog):
    ns = catalog.create_namespace("ns")
    table = ns.create_table("t", [column("id", "long", nullable=False), column("s", "string")])
    errors = []

    def writer(k):
        try:
            for i in range(5):
                table.append({"id": [k * 100 + i], "s": [f"t{k}"]})
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=writer, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    ids = sorted(r["id"] for r in ns.table("t").read().to_pylist())
    assert ids == sorted(k * 100 + i for k in range(4) for i in range(5))


def test_append_read_loop_does_not_grow(catalog):
    ns = catalog.create_namespace("ns")
    table = ns.create_table("t", [column("id", "long"), column("s", "string")])
    r = table.append({"id": [1, 2, 3], "s": ["a", "b", None]})

    def once():
        table.read(snapshot=r.snapshot_id).to_pylist()
        list(catalog.snapshots())
        table.files(snapshot=r.snapshot_id)
        try:
            table.read(columns=["nope"])
        except ValueError:
            pass

    for _ in range(20):
        once()
    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    for _ in range(200):
        once()
    after = tracemalloc.take_snapshot()
    tracemalloc.stop()
    grown = sum(s.size_diff for s in after.compare_to(before, "filename"))
    assert grown < 64 * 1024, grown
