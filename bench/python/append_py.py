#!/usr/bin/env python3
"""The Python side of bench/python: Table.append through the hoglake extension.

    append_py.py --server URL --data-path URI --events FILE [--catalog NAME]
                 [--namespace NAME] [--table NAME] [--repeat N] [--verify-rows]
                 [--perf-control CTL,ACK]

FILE is what events_dump wrote: the standard event table's rows as raw
Arrow buffers, batch by batch, exactly as append_bench generates them. All
of it is loaded and every ArrowArray is built BEFORE timing; the timed part
is one `table.append(producer)` per repetition (a fresh table each time),
end to end: reading the table, casting, Parquet encoding, the upload and the
commit. Time spent inside the producer's get_next (handing out a prebuilt
batch) is measured and subtracted, as append_bench subtracts its generator.

After each append the rows are counted back from the server (files() at the
new snapshot). --verify-rows also reads every row back and compares it with
the input, value by value (the smoke run). --perf-control names the control
and acknowledgement FIFOs of a `perf record -D -1 --control fifo:CTL,ACK`
running this script: events are enabled only around the appends, so the
profile shows the timed part alone.

The server's token comes from HOGLAKE_TOKEN (the client reads it). Prints
one JSON object on stdout; exits 1 when an append fails or a check fails.
"""

import argparse
import ctypes
import datetime
import json
import os
import resource
import struct
import sys
import time

_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# The Arrow C structures in ctypes, shared with the extension's tests.
sys.path.insert(0, os.path.join(_root, "python", "tests"))
from arrow_ctypes import (  # noqa: E402
    ARRAY_RELEASE, FLAG_NULLABLE, GET_LAST_ERROR, GET_NEXT, GET_SCHEMA, SCHEMA_RELEASE,
    STREAM_NAME, STREAM_RELEASE, ArrowArray, ArrowArrayStream, ArrowSchema, _capsule_new)

import hoglake  # noqa: E402

MAGIC = b"HLEVTS1\n"


class Failed(Exception):
    """A check failed: exit 1 with the message."""


# ---- the events file ----

class Column:
    """One column of one batch: its null count and buffers (None: NULL)."""

    def __init__(self, null_count, buffers):
        self.null_count = null_count
        self.buffers = buffers


class Events:
    """The whole events file in memory: the batch size asked for, the
    table's ColumnDef list, the columns' (format, name) and the batches,
    each a (rows, [Column])."""

    def __init__(self, path):
        with open(path, "rb") as f:
            self._f = f
            if f.read(len(MAGIC)) != MAGIC:
                raise Failed(f"{path} is not an events_dump file")
            self.batch_rows = self._i64()
            self.columns_json = json.loads(self._text())
            ncols = self._i64()
            self.fields = [(self._text(), self._text()) for _ in range(ncols)]
            self.batches = []
            while (rows := self._i64()) > 0:
                cols = []
                for _ in range(ncols):
                    null_count, nbuf = self._i64(), self._i64()
                    cols.append(Column(null_count, [self._buffer() for _ in range(nbuf)]))
                self.batches.append((rows, cols))
        del self._f
        self.rows = sum(rows for rows, _ in self.batches)

    def _exact(self, n):
        b = self._f.read(n)
        if len(b) != n:
            raise Failed("the events file is truncated")
        return b

    def _i64(self):
        return struct.unpack("=q", self._exact(8))[0]

    def _text(self):
        return self._exact(struct.unpack("=I", self._exact(4))[0]).decode()

    def _buffer(self):
        n = self._i64()
        if n == 0:
            return None
        buf = bytearray(n)
        if self._f.readinto(buf) != n:
            raise Failed("the events file is truncated")
        return buf


# ---- the producer: prebuilt batches behind an ArrowArrayStream ----

class Producer:
    """An __arrow_c_stream__ object handing out the events' batches. Every
    ArrowArray is built here, once; get_next only copies the next batch's
    struct out. Like append_bench's stream, it counts the arrays the
    consumer still holds, and measures the time spent in get_next."""

    def __init__(self, events):
        self.events = events
        self.keep = []  # every ctypes object the arrays point into
        self.batches = [self._build(rows, cols) for rows, cols in events.batches]
        self._child_release = ARRAY_RELEASE(self._release_child)
        self._batch_release = ARRAY_RELEASE(self._release_batch)
        self._schema_release = SCHEMA_RELEASE(self._release_schema)
        self._callbacks = (GET_SCHEMA(self._get_schema), GET_NEXT(self._get_next),
                           GET_LAST_ERROR(self._get_last_error), STREAM_RELEASE(self._release))
        self.rewind()

    def _address(self, buf):
        if buf is None:
            return None
        view = (ctypes.c_char * len(buf)).from_buffer(buf)
        self.keep.append(view)
        return ctypes.addressof(view)

    def _build(self, rows, cols):
        kids = []
        for col in cols:
            bufs = (ctypes.c_void_p * len(col.buffers))(*map(self._address, col.buffers))
            self.keep.append(bufs)
            kids.append(ArrowArray(rows, col.null_count, 0, len(col.buffers), 0, bufs, None,
                                   None, ARRAY_RELEASE(), None))
        ptrs = (ctypes.POINTER(ArrowArray) * len(kids))(*map(ctypes.pointer, kids))
        top_bufs = (ctypes.c_void_p * 1)(None)
        self.keep += [kids, ptrs, top_bufs]
        top = ArrowArray(rows, 0, 0, 1, len(kids), top_bufs, ptrs, None, ARRAY_RELEASE(), None)
        return top, kids

    def rewind(self):
        """Ready for one more append: the stream from the first batch."""
        self.next = 0
        self.held = 0
        self.get_next_s = 0.0
        self.get_next_cpu_s = 0.0
        get_schema, get_next, get_last_error, release = self._callbacks
        self.stream = ArrowArrayStream(get_schema, get_next, get_last_error, release, None)

    def _get_schema(self, stream, out):
        kids = [ArrowSchema(fmt.encode(), name.encode(), None, FLAG_NULLABLE, 0, None, None,
                            self._schema_release, None) for fmt, name in self.events.fields]
        ptrs = (ctypes.POINTER(ArrowSchema) * len(kids))(*map(ctypes.pointer, kids))
        self.keep += [kids, ptrs]
        out[0] = ArrowSchema(b"+s", b"", None, 0, len(kids), ptrs, None, self._schema_release,
                             None)
        return 0

    def _get_next(self, stream, out):
        t0, c0 = time.perf_counter(), time.process_time()
        if self.next < len(self.batches):
            top, kids = self.batches[self.next]
            self.next += 1
            for kid in kids:
                kid.release = self._child_release
            top.release = self._batch_release
            out[0] = top
            top.release = ARRAY_RELEASE()  # the consumer's copy owns the batch now
            self.held += 1 + len(kids)
        else:
            out[0] = ArrowArray()  # release NULL: the end of the stream
        self.get_next_s += time.perf_counter() - t0
        self.get_next_cpu_s += time.process_time() - c0
        return 0

    def _release_child(self, array):
        self.held -= 1
        array.contents.release = ARRAY_RELEASE()

    def _release_batch(self, array):
        batch = array.contents
        for i in range(batch.n_children):
            kid = batch.children[i]
            if kid.contents.release:
                kid.contents.release(kid)
        self.held -= 1
        batch.release = ARRAY_RELEASE()

    def _release_schema(self, schema):
        top = schema.contents
        for i in range(top.n_children):
            top.children[i].contents.release = SCHEMA_RELEASE()
        top.release = SCHEMA_RELEASE()

    def _get_last_error(self, stream):
        return None  # get_next never fails

    def _release(self, stream):
        stream.contents.release = STREAM_RELEASE()

    def __arrow_c_stream__(self, requested_schema=None):
        return _capsule_new(ctypes.addressof(self.stream), STREAM_NAME, None)


class PerfControl:
    """perf record's control FIFOs: enable() and disable() return once perf
    has acknowledged."""

    def __init__(self, spec):
        ctl, ack = spec.split(",")
        self.ctl = open(ctl, "w", encoding="ascii")
        self.ack = open(ack, encoding="ascii")

    def _send(self, command):
        self.ctl.write(command + "\n")
        self.ctl.flush()
        # perf writes "ack\n" with its terminating NUL, which then leads the next line.
        if self.ack.readline().strip("\0\n") != "ack":
            raise Failed(f"perf did not acknowledge '{command}'")

    def enable(self):
        self._send("enable")

    def disable(self):
        self._send("disable")


class NoPerf:
    def enable(self):
        pass

    def disable(self):
        pass


# ---- the checks ----

def expected_rows(events):
    """The events as rows of Python values, the way to_pylist reads them."""
    epoch = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
    decode = {
        "u": lambda bufs, i: _string(bufs, i),
        "l": lambda bufs, i: struct.unpack_from("=q", bufs[1], 8 * i)[0],
        "g": lambda bufs, i: struct.unpack_from("=d", bufs[1], 8 * i)[0],
    }
    out = []
    for rows, cols in events.batches:
        for i in range(rows):
            row = {}
            for (fmt, name), col in zip(events.fields, cols):
                valid = col.buffers[0] is None or col.buffers[0][i // 8] >> (i % 8) & 1
                if not valid:
                    row[name] = None
                elif fmt.startswith("tsu:"):
                    us = struct.unpack_from("=q", col.buffers[1], 8 * i)[0]
                    row[name] = epoch + datetime.timedelta(microseconds=us)
                else:
                    row[name] = decode[fmt](col.buffers, i)
            out.append(row)
    return out


def _string(bufs, i):
    start, end = struct.unpack_from("=2i", bufs[1], 4 * i)
    return bufs[2][start:end].decode()


def verify_rows(table, snapshot_id, events):
    got = sorted(table.read(snapshot=snapshot_id).to_pylist(), key=lambda r: r["event_id"])
    want = expected_rows(events)
    if len(got) != len(want):
        raise Failed(f"read back {len(got)} rows, appended {len(want)}")
    for g, w in zip(got, want):
        if g != w:
            raise Failed(f"row event_id={w['event_id']} reads back as {g}, appended {w}")


def counted_rows(table, snapshot_id):
    return sum(f.record_count for f in table.files(snapshot=snapshot_id))


# ---- the run ----

def catalog_get(client, name, data_path):
    try:
        cat = client.catalog(name)
    except hoglake.NotFoundError:
        return client.create_catalog(name, data_path)
    if cat.data_path != data_path:
        raise Failed(f"catalog {name} exists with data path {cat.data_path}, not {data_path}")
    return cat


def namespace_get(cat, name):
    try:
        return cat.namespace(name)
    except hoglake.NotFoundError:
        return cat.create_namespace(name)


def usage():
    """The process's CPU seconds (user + sys), page faults and context switches."""
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime, ru.ru_minflt + ru.ru_majflt, ru.ru_nvcsw, ru.ru_nivcsw


def append_once(ns, producer, name, args, perf):
    table = ns.create_table(name, producer.events.columns_json)
    producer.rewind()
    perf.enable()
    t0, u0 = time.perf_counter(), usage()
    result = table.append(producer, author="append_py")
    t1, u1 = time.perf_counter(), usage()
    perf.disable()
    if producer.held:
        raise Failed(f"the extension kept {producer.held} arrays of the last batch")
    rows = counted_rows(table, result.snapshot_id)
    if rows != producer.events.rows:
        raise Failed(f"the table holds {rows} rows at snapshot {result.snapshot_id}, "
                     f"appended {producer.events.rows}")
    if args.verify_rows:
        verify_rows(table, result.snapshot_id, producer.events)
    return {
        "table": name,
        "append_s": t1 - t0 - producer.get_next_s,
        "append_cpu_s": u1[0] - u0[0] - producer.get_next_cpu_s,
        # Where a slow repetition's time went: faults, waits, preemptions.
        "page_faults": u1[1] - u0[1],
        "voluntary_switches": u1[2] - u0[2],
        "involuntary_switches": u1[3] - u0[3],
        "get_next_s": producer.get_next_s,
        "snapshot_id": result.snapshot_id,
        "file_bytes": sum(f.file_size_bytes for f in result.files),
        "rows_counted": rows,
    }


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--server", default=os.environ.get("HOGLAKE_URL"))
    p.add_argument("--data-path", required=True)
    p.add_argument("--events", required=True, help="the file events_dump wrote")
    p.add_argument("--catalog", default="bench_python")
    p.add_argument("--namespace", default="bench")
    p.add_argument("--table", default="events")
    p.add_argument("--repeat", type=int, default=1)
    p.add_argument("--verify-rows", action="store_true")
    p.add_argument("--perf-control", metavar="CTL,ACK")
    args = p.parse_args()
    if not args.server:
        p.error("no server: pass --server URL or set HOGLAKE_URL")

    perf = PerfControl(args.perf_control) if args.perf_control else NoPerf()
    events = Events(args.events)
    producer = Producer(events)
    client = hoglake.HoglakeClient(args.server)
    ns = namespace_get(catalog_get(client, args.catalog, args.data_path), args.namespace)
    runs = []
    for rep in range(max(args.repeat, 1)):
        name = f"{args.table}_{int(time.time())}_{os.getpid()}_r{rep}"
        run = append_once(ns, producer, name, args, perf)
        print(f"append_py: {name}: {run['append_s']:.3f} s "
              f"({events.rows / run['append_s']:.0f} rows/s)", file=sys.stderr)
        runs.append(run)
    print(json.dumps({
        "engine": "python",
        "rows": events.rows,
        "batch_rows": events.batch_rows,
        "batches": len(events.batches),
        "python": sys.version.split()[0],
        "peak_rss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
        "runs": runs,
    }))


if __name__ == "__main__":
    try:
        main()
    except (Failed, OSError, hoglake.HoglakeError) as e:
        print(f"append_py: {e}", file=sys.stderr)
        sys.exit(1)
