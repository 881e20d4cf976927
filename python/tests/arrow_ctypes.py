"""A minimal Arrow C stream producer and consumer in ctypes, to test the
PyCapsule protocol without pyarrow: int64 columns only."""

import ctypes
import errno


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


@SCHEMA_RELEASE
def _release_schema(p):
    p.contents.release = SCHEMA_RELEASE()


@ARRAY_RELEASE
def _release_array(p):
    p.contents.release = ARRAY_RELEASE()


class Int64Producer:
    """Streams batches of int64 columns: batches is a list of {name: [ints]}.
    fail_at: the index of the get_next call that fails with EIO instead.
    Counts the stream's release calls."""

    def __init__(self, batches, fail_at=None):
        self.batches = batches
        self.names = list(batches[0])
        self.fail_at = fail_at
        self.calls = 0
        self.releases = 0
        self.keep = []  # every buffer and struct handed out stays alive here
        self.error = ctypes.create_string_buffer(b"the producer broke on purpose")
        self.stream = ArrowArrayStream(GET_SCHEMA(self._get_schema), GET_NEXT(self._get_next),
                                       GET_LAST_ERROR(self._get_last_error),
                                       STREAM_RELEASE(self._release), None)

    def _get_schema(self, stream, out):
        children = []
        for name in self.names:
            child = ArrowSchema(b"l", name.encode(), None, FLAG_NULLABLE, 0, None, None,
                                _release_schema, None)
            children.append(child)
        ptrs = (ctypes.POINTER(ArrowSchema) * len(children))(
            *[ctypes.pointer(c) for c in children])
        self.keep += [children, ptrs]
        out[0] = ArrowSchema(b"+s", b"", None, 0, len(children), ptrs, None, _release_schema,
                             None)
        return 0

    def _get_next(self, stream, out):
        i = self.calls
        self.calls += 1
        if i == self.fail_at:
            return errno.EIO
        if i >= len(self.batches):
            out[0] = ArrowArray()  # release NULL: the end
            return 0
        batch = self.batches[i]
        n = len(batch[self.names[0]])
        children = []
        for name in self.names:
            data = (ctypes.c_int64 * n)(*batch[name])
            bufs = (ctypes.c_void_p * 2)(None, ctypes.addressof(data))
            children.append(ArrowArray(n, 0, 0, 2, 0, bufs, None, None, _release_array, None))
            self.keep += [data, bufs]
        ptrs = (ctypes.POINTER(ArrowArray) * len(children))(*[ctypes.pointer(c) for c in children])
        top_bufs = (ctypes.c_void_p * 1)(None)
        self.keep += [children, ptrs, top_bufs]
        out[0] = ArrowArray(n, 0, 0, 1, len(children), top_bufs, ptrs, None, _release_array,
                            None)
        return 0

    def _get_last_error(self, stream):
        return ctypes.addressof(self.error)

    def _release(self, stream):
        self.releases += 1
        stream.contents.release = STREAM_RELEASE()

    def __arrow_c_stream__(self, requested_schema=None):
        return _capsule_new(ctypes.addressof(self.stream), STREAM_NAME, None)


class Int64Array:
    """An __arrow_c_array__ producer: the first batch of Int64Producer's."""

    def __init__(self, columns):
        self.producer = Int64Producer([columns])
        self.schema = ArrowSchema()
        self.array = ArrowArray()

    def __arrow_c_array__(self, requested_schema=None):
        self.producer._get_schema(None, ctypes.pointer(self.schema))
        self.producer._get_next(None, ctypes.pointer(self.array))
        return (_capsule_new(ctypes.addressof(self.schema), b"arrow_schema", None),
                _capsule_new(ctypes.addressof(self.array), b"arrow_array", None))


def consume_int64(capsule):
    """Reads a stream capsule of int64 columns the way a consumer does:
    moves the stream out and releases it once. Returns {name: [ints]}."""
    src = ArrowArrayStream.from_address(_capsule_pointer(capsule, STREAM_NAME))
    stream = ArrowArrayStream()
    ctypes.pointer(stream)[0] = src  # move: the capsule's copy is then released
    src.release = STREAM_RELEASE()
    schema = ArrowSchema()
    assert stream.get_schema(ctypes.byref(stream), ctypes.byref(schema)) == 0
    names = [schema.children[i].contents.name.decode() for i in range(schema.n_children)]
    formats = [schema.children[i].contents.format for i in range(schema.n_children)]
    assert all(f == b"l" for f in formats), formats
    out = {n: [] for n in names}
    while True:
        batch = ArrowArray()
        assert stream.get_next(ctypes.byref(stream), ctypes.byref(batch)) == 0
        if not batch.release:
            break
        for k, name in enumerate(names):
            child = batch.children[k].contents
            data = ctypes.cast(child.buffers[1], ctypes.POINTER(ctypes.c_int64))
            out[name] += [data[child.offset + j] for j in range(batch.length)]
        batch.release(ctypes.byref(batch))
    schema.release(ctypes.byref(schema))
    stream.release(ctypes.byref(stream))
    assert not stream.release
    return out
