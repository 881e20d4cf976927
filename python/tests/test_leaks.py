"""No leaks across a loop of 10,000 appends and reads: after a warm-up,
the memory tracemalloc traces (Python objects), the C heap (libhoglake and
the extension's own buffers, which tracemalloc does not see: the process's
resident set, or under ASan its count of live allocations, as its
quarantine of freed memory grows the resident set) and, on a debug
interpreter, the total reference count stay flat, each within a fixed
slack rather than one growing with the count. (The warm-up is long: the
interpreter keeps a bounded, churning set of small objects the loop's
calls make, which takes a few thousand iterations to fill.)

The loop alternates appends to one table (plain data with nested values,
or a ctypes stream) with reads of another (to_pylist, or its stream handed
to a ctypes consumer); every 50th append is preceded by two refused ones,
so the error paths run too. HOGLAKE_LEAK_ITERATIONS sets the count
(10,000 by default). Marked `leaks`: tests/python runs it as its own ctest,
python.leaks."""

import ctypes
import gc
import os
import resource
import sys
import time
import tracemalloc

import pytest

import hoglake
from hoglake import column

from arrow_ctypes import Field, Producer, consume

ITERATIONS = int(os.environ.get("HOGLAKE_LEAK_ITERATIONS", "10000"))
WARMUP = min(3000, ITERATIONS // 3)
TRACED_SLACK = 64 << 10
REFS_SLACK = 100
try:  # ASan preloaded (a sanitized build's run)
    _asan_live = ctypes.CDLL(None).__sanitizer_get_current_allocated_bytes
    _asan_live.restype = ctypes.c_size_t
    HEAP_SLACK = 1 << 20
except AttributeError:
    _asan_live = None
    HEAP_SLACK = 8 << 20

COLUMNS = [
    column("id", "long", nullable=False),
    column("s", "string"),
    column("tags", "list", children=[{"name": "element", "type": "long"}]),
    column("pt", "struct", children=[{"name": "x", "type": "double"},
                                     {"name": "label", "type": "string"}]),
]
FIELDS = [Field("id", "l", nullable=False), Field("s", "u"),
          Field("tags", "+l", [Field("element", "l")]),
          Field("pt", "+s", [Field("x", "g"), Field("label", "u")])]
ROWS = [{"id": 1, "s": "one", "tags": [1, None, 3], "pt": {"x": 1.5, "label": "a"}},
        {"id": 2, "s": None, "tags": None, "pt": None},
        {"id": 3, "s": "three", "tags": [], "pt": {"x": None, "label": None}}]


def c_heap():
    if _asan_live:
        return _asan_live()
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize()


def refs():
    return sys.gettotalrefcount() if hasattr(sys, "gettotalrefcount") else 0


def iteration(i, sink, source):
    op = i % 4
    if op == 0:
        sink.append(ROWS)
    elif op == 2:
        batch = {f.name: [r[f.name] for r in ROWS] for f in FIELDS}
        sink.append(Producer(FIELDS, [batch]))
    elif op == 1:
        assert len(source.read().to_pylist()) == len(ROWS)
    else:
        consume(source.read().__arrow_c_stream__())
    if i % 100 == 0:
        with pytest.raises(hoglake.InvalidArgumentError):
            sink.append({"id": [1], "tags": ["not a list"]})
        with pytest.raises(hoglake.ValidationError):
            sink.append({"id": [1], "nope": [1]})


def measure():
    gc.collect()
    return tracemalloc.get_traced_memory()[0], c_heap(), refs()


@pytest.mark.leaks
def test_appends_and_reads_do_not_leak(catalog):
    ns = catalog.create_namespace("ns")
    sink = ns.create_table("sink", COLUMNS)
    source = ns.create_table("source", COLUMNS)
    source.append(ROWS)
    source = ns.table("source")
    tracemalloc.start()
    try:
        for i in range(WARMUP):
            iteration(i, sink, source)
        traced0, heap0, refs0 = measure()
        start = time.monotonic()
        for i in range(WARMUP, ITERATIONS):
            iteration(i, sink, source)
        elapsed = time.monotonic() - start
        traced, heap, total_refs = measure()
    finally:
        tracemalloc.stop()
    print(f"\n{ITERATIONS - WARMUP} iterations in {elapsed:.1f} s; traced "
          f"{traced - traced0:+d} B, {'ASan live' if _asan_live else 'RSS'} "
          f"{heap - heap0:+d} B, refs {total_refs - refs0:+d}")
    assert traced - traced0 <= TRACED_SLACK
    assert heap - heap0 <= HEAP_SLACK
    assert total_refs - refs0 <= REFS_SLACK
