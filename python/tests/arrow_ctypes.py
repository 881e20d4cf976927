"""A small Arrow C data producer and consumer in ctypes, to test the
PyCapsule protocol without pyarrow.

Field describes a column (an Arrow format, children, an extension name);
Producer streams batches of Python values as those columns, counting the
release calls of the stream and of the schemas and arrays it hands out as
capsules; consume() reads a stream capsule back into formats and values."""

import ctypes
import datetime as dt
import errno
import struct
from decimal import Decimal


class ArrowSchema(ctypes.Structure):
    pass


class ArrowArray(ctypes.Structure):
    pass


class ArrowArrayStream(ctypes.Structure):
    pass


SCHEMA_RELEASE = ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowSchema))
ARRAY_RELEASE = ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowArray))
GET_SCHEMA = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ArrowArrayStream),
                              ctypes.POINTER(ArrowSchema))
GET_NEXT = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ArrowArrayStream),
                            ctypes.POINTER(ArrowArray))
# c_void_p, not c_char_p: a callback cannot hand out a bytes object's memory.
GET_LAST_ERROR = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.POINTER(ArrowArrayStream))
STREAM_RELEASE = ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowArrayStream))
CAPSULE_DESTRUCTOR = ctypes.CFUNCTYPE(None, ctypes.c_void_p)

ArrowSchema._fields_ = [
    ("format", ctypes.c_char_p), ("name", ctypes.c_char_p), ("metadata", ctypes.c_char_p),
    ("flags", ctypes.c_int64), ("n_children", ctypes.c_int64),
    ("children", ctypes.POINTER(ctypes.POINTER(ArrowSchema))),
    ("dictionary", ctypes.POINTER(ArrowSchema)), ("release", SCHEMA_RELEASE),
    ("private_data", ctypes.c_void_p),
]
ArrowArray._fields_ = [
    ("length", ctypes.c_int64), ("null_count", ctypes.c_int64), ("offset", ctypes.c_int64),
    ("n_buffers", ctypes.c_int64), ("n_children", ctypes.c_int64),
    ("buffers", ctypes.POINTER(ctypes.c_void_p)),
    ("children", ctypes.POINTER(ctypes.POINTER(ArrowArray))),
    ("dictionary", ctypes.POINTER(ArrowArray)), ("release", ARRAY_RELEASE),
    ("private_data", ctypes.c_void_p),
]
ArrowArrayStream._fields_ = [
    ("get_schema", GET_SCHEMA), ("get_next", GET_NEXT), ("get_last_error", GET_LAST_ERROR),
    ("release", STREAM_RELEASE), ("private_data", ctypes.c_void_p),
]

_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
STREAM_NAME = b"arrow_array_stream"
FLAG_NULLABLE = 2
EPOCH = dt.datetime(1970, 1, 1)


@SCHEMA_RELEASE
def _release_schema(p):
    p.contents.release = SCHEMA_RELEASE()


@ARRAY_RELEASE
def _release_array(p):
    p.contents.release = ARRAY_RELEASE()


class Field:
    """A column: name, Arrow format, child fields, nullability and an
    extension name (arrow.uuid, arrow.json) for the schema's metadata."""

    def __init__(self, name, fmt, children=(), nullable=True, extension=None):
        self.name, self.format, self.children = name, fmt, list(children)
        self.nullable, self.extension = nullable, extension


def _metadata(extension):
    key, value = b"ARROW:extension:name", extension.encode()
    return (struct.pack("<i", 1) + struct.pack("<i", len(key)) + key
            + struct.pack("<i", len(value)) + value)


def make_schema(field, keep):
    """The ArrowSchema of field; every part it points at is kept in keep."""
    kids = [make_schema(c, keep) for c in field.children]
    ptrs = (ctypes.POINTER(ArrowSchema) * max(len(kids), 1))(
        *[ctypes.pointer(k) for k in kids])
    meta = ctypes.create_string_buffer(_metadata(field.extension)) if field.extension else None
    schema = ArrowSchema(field.format.encode(), field.name.encode(),
                         ctypes.cast(meta, ctypes.c_char_p) if meta else None,
                         FLAG_NULLABLE if field.nullable else 0, len(kids), ptrs, None,
                         _release_schema, None)
    # The struct owns its format and name bytes: a consumer's copy of it
    # points into them.
    keep += [kids, ptrs, meta, schema]
    return schema


_FIXED = {"c": ctypes.c_int8, "C": ctypes.c_uint8, "s": ctypes.c_int16, "S": ctypes.c_uint16,
          "i": ctypes.c_int32, "I": ctypes.c_uint32, "l": ctypes.c_int64, "L": ctypes.c_uint64,
          "f": ctypes.c_float, "g": ctypes.c_double, "tdD": ctypes.c_int32,
          "ttu": ctypes.c_int64}
_PER_SECOND = {"s": 1, "m": 1000, "u": 1000000, "n": 1000000000}


def _scalar(fmt, v):
    """A fixed-width value's raw number."""
    if fmt == "tdD":
        return (v - EPOCH.date()).days
    if fmt == "ttu":
        return ((v.hour * 60 + v.minute) * 60 + v.second) * 1000000 + v.microsecond
    if fmt.startswith("ts"):
        if v.tzinfo is not None:
            v = v.astimezone(dt.timezone.utc).replace(tzinfo=None)
        micros = (v - EPOCH) // dt.timedelta(microseconds=1)
        return micros * _PER_SECOND[fmt[2]] // 1000000
    return v


def _bitmap(bits, keep):
    buf = (ctypes.c_uint8 * (len(bits) // 8 + 1))()
    for i, b in enumerate(bits):
        if b:
            buf[i >> 3] |= 1 << (i & 7)
    keep.append(buf)
    return ctypes.addressof(buf)


def _offsets(lengths, keep):
    offs, at = [0], 0
    for n in lengths:
        at += n
        offs.append(at)
    buf = (ctypes.c_int32 * len(offs))(*offs)
    keep.append(buf)
    return ctypes.addressof(buf)


def make_array(field, values, keep):
    """The ArrowArray of values (Python values, None for null) as field."""
    fmt, n = field.format, len(values)
    valid = [v is not None for v in values]
    bufs, kids = [_bitmap(valid, keep)], []
    if fmt == "+s":
        kids = [make_array(c, [None if v is None else v.get(c.name) for v in values], keep)
                for c in field.children]
    elif fmt in ("+l", "+m"):
        items = [[] if v is None else (list(v.items()) if fmt == "+m" else list(v))
                 for v in values]
        bufs.append(_offsets([len(x) for x in items], keep))
        flat = [x for xs in items for x in xs]
        if fmt == "+l":
            kids = [make_array(field.children[0], flat, keep)]
        else:
            entries = field.children[0]
            key, value = entries.children
            pairs = [{key.name: k, value.name: v} for k, v in flat]
            kids = [make_array(entries, pairs, keep)]
    elif fmt == "b":
        bufs.append(_bitmap([bool(v) for v in values], keep))
    elif fmt in ("u", "z"):
        data = [b"" if v is None else (v.encode() if fmt == "u" else v) for v in values]
        bufs.append(_offsets([len(d) for d in data], keep))
        blob = ctypes.create_string_buffer(b"".join(data) or b"\0")
        keep.append(blob)
        bufs.append(ctypes.addressof(blob))
    elif fmt.startswith("d:") or fmt == "w:16":
        if fmt == "w:16":
            raw = [bytes(16) if v is None else v.bytes for v in values]
        else:
            scale = int(fmt[2:].split(",")[1])
            raw = [int((Decimal(0) if v is None else v).scaleb(scale)).to_bytes(16, "little", signed=True)
                   for v in values]
        blob = ctypes.create_string_buffer(b"".join(raw) or b"\0")
        keep.append(blob)
        bufs.append(ctypes.addressof(blob))
    else:
        ctype = _FIXED.get(fmt) or ctypes.c_int64  # the timestamps
        data = (ctype * max(n, 1))(*[0 if v is None else _scalar(fmt, v) for v in values])
        keep.append(data)
        bufs.append(ctypes.addressof(data))
    buffers = (ctypes.c_void_p * len(bufs))(*bufs)
    ptrs = (ctypes.POINTER(ArrowArray) * max(len(kids), 1))(*[ctypes.pointer(k) for k in kids])
    keep += [buffers, kids, ptrs]
    return ArrowArray(n, valid.count(False), 0, len(bufs), len(kids), buffers, ptrs, None,
                      _release_array, None)


class Producer:
    """Streams batches (each {name: [values]}) of the columns fields.
    fail_at: the index of the get_next call that fails with EIO instead.
    Counts the stream's releases (releases), and the top-level schemas
    and arrays made (schemas_made, arrays_made) and released
    (schema_releases, array_releases). A
    capsule made here releases what it holds when dropped unconsumed, as
    the protocol asks of producers."""

    def __init__(self, fields, batches, fail_at=None):
        self.fields, self.batches, self.fail_at = fields, batches, fail_at
        self.calls = self.releases = 0
        self.schemas_made = self.schema_releases = self.arrays_made = self.array_releases = 0
        self.keep = []  # every buffer and struct handed out stays alive here
        self.error = ctypes.create_string_buffer(b"the producer broke on purpose")
        self._schema_release = SCHEMA_RELEASE(self._count_schema)
        self._array_release = ARRAY_RELEASE(self._count_array)
        self.stream = ArrowArrayStream(GET_SCHEMA(self._get_schema), GET_NEXT(self._get_next),
                                       GET_LAST_ERROR(self._get_last_error),
                                       STREAM_RELEASE(self._release), None)

    def _count_schema(self, p):
        self.schema_releases += 1
        p.contents.release = SCHEMA_RELEASE()

    def _count_array(self, p):
        self.array_releases += 1
        p.contents.release = ARRAY_RELEASE()

    def schema(self):
        top = make_schema(Field("", "+s", self.fields, nullable=False), self.keep)
        top.release = self._schema_release
        self.schemas_made += 1
        return top

    def batch(self, i):
        columns = self.batches[i]
        n = len(next(iter(columns.values())))
        rows = [{f.name: columns.get(f.name, [None] * n)[r] for f in self.fields}
                for r in range(n)]
        top = make_array(Field("", "+s", self.fields, nullable=False), rows, self.keep)
        top.buffers[0] = None  # a batch's rows are never null
        top.release = self._array_release
        self.arrays_made += 1
        return top

    def _get_schema(self, stream, out):
        out[0] = self.schema()
        return 0

    def _get_next(self, stream, out):
        i = self.calls
        self.calls += 1
        if i == self.fail_at:
            return errno.EIO
        out[0] = self.batch(i) if i < len(self.batches) else ArrowArray()  # release NULL: end
        return 0

    def _get_last_error(self, stream):
        return ctypes.addressof(self.error)

    def _release(self, stream):
        self.releases += 1
        stream.contents.release = STREAM_RELEASE()

    def capsule(self, struct_, name):
        """A capsule of struct_ (kept alive here) whose destructor releases
        it unless a consumer moved it out."""

        def destroy(_):
            if struct_.release:
                struct_.release(ctypes.byref(struct_))

        destructor = CAPSULE_DESTRUCTOR(destroy)
        self.keep += [struct_, destructor]
        return _capsule_new(ctypes.addressof(struct_), name,
                            ctypes.cast(destructor, ctypes.c_void_p))

    def __arrow_c_stream__(self, requested_schema=None):
        return self.capsule(self.stream, STREAM_NAME)

    def __arrow_c_schema__(self):
        return self.capsule(self.schema(), b"arrow_schema")

    def __arrow_c_array__(self, requested_schema=None):
        return (self.capsule(self.schema(), b"arrow_schema"),
                self.capsule(self.batch(0), b"arrow_array"))


class Int64Producer(Producer):
    """Streams batches of int64 columns: batches is a list of {name: [ints]}."""

    def __init__(self, batches, fail_at=None):
        super().__init__([Field(name, "l") for name in batches[0]], batches, fail_at)


class Int64Array:
    """An __arrow_c_array__ producer: one batch of int64 columns."""

    def __init__(self, columns):
        self.producer = Int64Producer([columns])
        self.schema = ArrowSchema()
        self.array = ArrowArray()

    def __arrow_c_array__(self, requested_schema=None):
        self.schema = self.producer.schema()
        self.array = self.producer.batch(0)
        return (_capsule_new(ctypes.addressof(self.schema), b"arrow_schema", None),
                _capsule_new(ctypes.addressof(self.array), b"arrow_array", None))


def _child_formats(schema):
    """[(name, format, extension or None, [children...])] of a schema's children."""
    out = []
    for i in range(schema.n_children):
        c = schema.children[i].contents
        ext = None
        # The field's address: c_char_p would stop at the first NUL byte.
        meta = ctypes.c_void_p.from_address(ctypes.addressof(c) + ArrowSchema.metadata.offset)
        at = meta.value

        def take(n):
            nonlocal at
            at += n
            return ctypes.string_at(at - n, n)

        def int32():
            return struct.unpack("<i", take(4))[0]

        for _ in range(int32() if at else 0):
            key = take(int32())
            value = take(int32())
            if key == b"ARROW:extension:name":
                ext = value.decode()
        out.append((c.name.decode(), c.format.decode(), ext, _child_formats(c)))
    return out


def consume(capsule, read_values=None):
    """Reads a stream capsule the way a consumer does: moves the stream out
    and releases it once. Returns the schema's child formats (see
    _child_formats) and the batches read_values(schema, batch) makes."""
    src = ArrowArrayStream.from_address(_capsule_pointer(capsule, STREAM_NAME))
    stream = ArrowArrayStream()
    ctypes.pointer(stream)[0] = src  # move: the capsule's copy is then released
    src.release = STREAM_RELEASE()
    schema = ArrowSchema()
    assert stream.get_schema(ctypes.byref(stream), ctypes.byref(schema)) == 0
    formats = _child_formats(schema)
    batches = []
    while True:
        batch = ArrowArray()
        assert stream.get_next(ctypes.byref(stream), ctypes.byref(batch)) == 0
        if not batch.release:
            break
        if read_values:
            batches.append(read_values(schema, batch))
        batch.release(ctypes.byref(batch))
    schema.release(ctypes.byref(schema))
    stream.release(ctypes.byref(stream))
    assert not stream.release
    return formats, batches


def _int64_columns(schema, batch):
    out = {}
    for k in range(schema.n_children):
        child = batch.children[k].contents
        data = ctypes.cast(child.buffers[1], ctypes.POINTER(ctypes.c_int64))
        out[schema.children[k].contents.name.decode()] = [
            data[child.offset + j] for j in range(batch.length)]
    return out


def consume_int64(capsule):
    """Reads a stream capsule of int64 columns. Returns {name: [ints]}."""
    formats, batches = consume(capsule, _int64_columns)
    assert all(f[1] == "l" for f in formats), formats
    out = {name: [] for name, *_ in formats}
    for b in batches:
        for name, values in b.items():
            out[name] += values
    return out

