"""The PyCapsule protocol's ownership rules, counted: every schema, array
and stream a producer hands over is released exactly once, whether the
extension consumes it, refuses it before consuming it, or fails halfway;
a capsule the extension makes and nobody consumes releases its stream when
dropped; and a producer that fails mid-stream commits nothing and leaves
no object behind in the warehouse."""

import gc
import os
import sys

import pytest

import hoglake
from hoglake import column

from arrow_ctypes import Field, Int64Producer, Producer

FIELDS = [Field("id", "l", nullable=False), Field("s", "u"),
          Field("tags", "+l", [Field("element", "l")])]


def producer(batches=1, fail_at=None):
    batch = {"id": [1, 2, 3], "s": ["a", None, "c"], "tags": [[1], None, []]}
    return Producer(FIELDS, [batch] * batches, fail_at)


def released_once(p, stream):
    """Whether the stream was released once if it was handed out (stream:
    0 or 1), and every schema and array made was released once."""
    gc.collect()
    return ((p.releases, p.schema_releases, p.array_releases)
            == (stream, p.schemas_made, p.arrays_made))


class ArrayOnly:
    """A producer's __arrow_c_array__ alone."""

    def __init__(self, p):
        self.p = p

    def __arrow_c_array__(self, requested_schema=None):
        return self.p.__arrow_c_array__(requested_schema)


def table(catalog, name="t"):
    ns = catalog.create_namespace("ns")
    return ns, ns.create_table(name, producer())


def test_schema_capsule_released_once(catalog):
    p = producer()
    catalog.create_namespace("ns").create_table("t", p)
    assert released_once(p, stream=0) and p.schemas_made == 1
    # Refused (a type no catalog type maps to): released all the same.
    bad = Producer([Field("id", "l"), Field("t", "tsn:UTC")], [])
    with pytest.raises(hoglake.HoglakeError, match="tsn:UTC"):
        catalog.namespace("ns").create_table("bad", bad)
    assert released_once(bad, stream=0) and bad.schemas_made == 1


def test_array_capsules_released_once(catalog):
    ns, t = table(catalog)
    p = producer()
    t.append(ArrayOnly(p))
    assert released_once(p, stream=0) and (p.schemas_made, p.arrays_made) == (1, 1)
    assert len(ns.table("t").read().to_pylist()) == 3


def test_capsules_never_consumed_are_released_once(catalog):
    _, t = table(catalog)

    class Misnamed:
        """Hands out capsules under the wrong names: refused unconsumed."""

        def __init__(self):
            self.p = producer()

    class MisnamedStream(Misnamed):
        def __arrow_c_stream__(self, requested_schema=None):
            return self.p.capsule(self.p.stream, b"not_a_stream")

    class MisnamedArray(Misnamed):
        def __arrow_c_array__(self, requested_schema=None):
            return (self.p.capsule(self.p.schema(), b"arrow_schema"),
                    self.p.capsule(self.p.batch(0), b"not_an_array"))

    data = MisnamedStream()
    with pytest.raises(TypeError, match="arrow_array_stream"):
        t.append(data)
    assert released_once(data.p, stream=1)
    data = MisnamedArray()
    with pytest.raises(TypeError, match="arrow_array"):
        t.append(data)
    assert released_once(data.p, stream=0) and data.p.arrays_made == 1


def test_stream_refused_before_reading_is_released_once(catalog):
    _, t = table(catalog)
    p = Producer([Field("id", "l"), Field("nope", "l")], [{"id": [1], "nope": [2]}])
    with pytest.raises(hoglake.ValidationError, match="nope"):
        t.append(p)
    assert released_once(p, stream=1)


def test_reader_capsule_dropped_unread_releases_its_stream(catalog):
    ns, t = table(catalog)
    t.append(producer())
    handle = ns.table("t")
    base = sys.getrefcount(handle)
    capsule = handle.read().__arrow_c_stream__()
    assert sys.getrefcount(handle) == base + 1  # the stream holds the handle
    del capsule  # unconsumed: its destructor releases the stream, once
    gc.collect()
    assert sys.getrefcount(handle) == base
    reader = handle.read()
    del reader  # a reader never handed on releases its stream too
    assert sys.getrefcount(handle) == base


def files_under(catalog):
    root = catalog.data_path.removeprefix("file://")
    return sorted(os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs)


@pytest.mark.parametrize("fail_at", [0, 1, 3])
def test_failing_producer_commits_nothing_and_leaves_no_object(catalog, fail_at):
    ns, t = table(catalog)
    head = catalog.refresh().head_snapshot_id
    before = files_under(catalog)
    p = producer(batches=4, fail_at=fail_at)
    with pytest.raises(hoglake.HoglakeError, match="broke on purpose"):
        t.append(p)
    assert released_once(p, stream=1)
    assert catalog.refresh().head_snapshot_id == head
    assert ns.table("t").files() == []
    assert files_under(catalog) == before
    # The table takes the next append as if nothing happened.
    assert t.append(Int64Producer([{"id": [7]}])).snapshot_id > head


def test_misnamed_schema_capsule_is_released_once(catalog):
    """create_table and ops.add_column refuse a schema capsule under another
    name without consuming it; its (Python) destructor still runs once."""

    class MisnamedSchema:
        def __init__(self):
            self.p = producer()

        def __arrow_c_schema__(self):
            return self.p.capsule(self.p.schema(), b"not_a_schema")

    ns = catalog.create_namespace("ns")
    data = MisnamedSchema()
    with pytest.raises(TypeError, match="arrow_schema"):
        ns.create_table("t", data)
    assert released_once(data.p, stream=0) and data.p.schemas_made == 1
    data = MisnamedSchema()
    with pytest.raises(TypeError, match="arrow_schema"):
        hoglake.ops.add_column("x", data)
    assert released_once(data.p, stream=0) and data.p.schemas_made == 1
