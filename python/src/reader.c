/* hoglake._hoglake.Reader: rows coming out of the library as an Arrow
 * stream, handed on through the PyCapsule protocol (__arrow_c_stream__) or
 * turned into Python values (to_pylist).
 *
 * The library's stream borrows its table, so the stream the reader holds
 * wraps it with a reference to the table object: whoever ends up owning the
 * stream (this reader, or a consumer that took the capsule) keeps the table
 * alive until it releases the stream, exactly once. */
#include "hlpy.h"

#include <string.h>

struct owned_stream {
    struct ArrowArrayStream inner;
    PyObject *owner;
};

static struct ArrowArrayStream *inner_of(struct ArrowArrayStream *s)
{
    return &((struct owned_stream *)s->private_data)->inner;
}

static int owned_get_schema(struct ArrowArrayStream *s, struct ArrowSchema *out)
{
    struct ArrowArrayStream *in = inner_of(s);
    return in->get_schema(in, out);
}

static int owned_get_next(struct ArrowArrayStream *s, struct ArrowArray *out)
{
    struct ArrowArrayStream *in = inner_of(s);
    return in->get_next(in, out);
}

static const char *owned_get_last_error(struct ArrowArrayStream *s)
{
    struct ArrowArrayStream *in = inner_of(s);
    return in->get_last_error(in);
}

/* May run on any thread, with or without the GIL. */
static void owned_release(struct ArrowArrayStream *s)
{
    struct owned_stream *o = s->private_data;
    o->inner.release(&o->inner);
    PyGILState_STATE gil = PyGILState_Ensure();
    Py_DECREF(o->owner);
    PyGILState_Release(gil);
    free(o);
    s->release = NULL;
}

typedef struct {
    PyObject_HEAD struct ArrowArrayStream stream; /* release NULL once handed on */
} HlReader;

PyObject *hlpy_reader_new(struct ArrowArrayStream *stream, PyObject *owner)
{
    struct owned_stream *o = malloc(sizeof *o);
    HlReader *self = o ? PyObject_New(HlReader, &HlReader_Type) : NULL;
    if (!self) {
        free(o);
        stream->release(stream);
        return PyErr_NoMemory();
    }
    o->inner = *stream;
    stream->release = NULL;
    o->owner = Py_NewRef(owner);
    self->stream = (struct ArrowArrayStream){
        .get_schema = owned_get_schema,
        .get_next = owned_get_next,
        .get_last_error = owned_get_last_error,
        .release = owned_release,
        .private_data = o,
    };
    return (PyObject *)self;
}

static void reader_dealloc(HlReader *self)
{
    if (self->stream.release)
        self->stream.release(&self->stream);
    PyObject_Free(self);
}

static int reader_check_open(HlReader *self)
{
    if (self->stream.release)
        return 0;
    PyErr_SetString(PyExc_ValueError, "the reader was consumed (a stream is read once)");
    return -1;
}

static void capsule_release(PyObject *capsule)
{
    struct ArrowArrayStream *s = PyCapsule_GetPointer(capsule, "arrow_array_stream");
    if (!s)
        return;
    if (s->release)
        s->release(s);
    free(s);
}

static PyObject *reader_arrow_c_stream(HlReader *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"requested_schema", NULL};
    PyObject *requested = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O", kwlist, &requested))
        return NULL;
    /* requested_schema is a hint the protocol lets a producer ignore; the
     * stream's schema is the table's (or the projection's). */
    if (reader_check_open(self) < 0)
        return NULL;
    struct ArrowArrayStream *moved = malloc(sizeof *moved);
    if (!moved)
        return PyErr_NoMemory();
    *moved = self->stream;
    PyObject *capsule = PyCapsule_New(moved, "arrow_array_stream", capsule_release);
    if (!capsule) {
        free(moved);
        return NULL;
    }
    self->stream.release = NULL;
    return capsule;
}

static void schema_capsule_release(PyObject *capsule)
{
    struct ArrowSchema *s = PyCapsule_GetPointer(capsule, "arrow_schema");
    if (!s)
        return;
    if (s->release)
        s->release(s);
    free(s);
}

static int stream_failed(struct ArrowArrayStream *s, int rc);

/* The rows' schema, the reader left unread: a Reader is a schema source
 * too (create_table(name, reader), pyarrow.schema(reader)). */
static PyObject *reader_arrow_c_schema(HlReader *self, PyObject *unused)
{
    (void)unused;
    if (reader_check_open(self) < 0)
        return NULL;
    struct ArrowSchema *schema = calloc(1, sizeof *schema);
    if (!schema)
        return PyErr_NoMemory();
    int rc = self->stream.get_schema(&self->stream, schema);
    if (rc != 0) {
        free(schema);
        stream_failed(&self->stream, rc);
        return NULL;
    }
    PyObject *capsule = PyCapsule_New(schema, "arrow_schema", schema_capsule_release);
    if (!capsule) {
        schema->release(schema);
        free(schema);
    }
    return capsule;
}

/* The stream's message for status rc, as an exception; returns -1. */
static int stream_failed(struct ArrowArrayStream *s, int rc)
{
    const char *msg = s->get_last_error(s);
    PyErr_Format(PyExc_OSError, "reading the stream failed: %s (%s)", msg ? msg : "no detail",
                 strerror(rc));
    return -1;
}

static int read_rows(struct ArrowArrayStream *s, PyObject *rows)
{
    struct ArrowSchema schema;
    int rc;
    HLPY_UNLOCKED(rc = s->get_schema(s, &schema));
    if (rc != 0)
        return stream_failed(s, rc);
    int out = 0;
    for (;;) {
        struct ArrowArray batch;
        HLPY_UNLOCKED(rc = s->get_next(s, &batch));
        if (rc != 0) {
            out = stream_failed(s, rc);
            break;
        }
        if (!batch.release)
            break;
        out = hlpy_rows_append(rows, &schema, &batch);
        batch.release(&batch);
        if (out < 0)
            break;
    }
    schema.release(&schema);
    return out;
}

static PyObject *reader_to_pylist(HlReader *self, PyObject *unused)
{
    (void)unused;
    if (reader_check_open(self) < 0)
        return NULL;
    PyObject *rows = PyList_New(0);
    if (!rows)
        return NULL;
    /* Moved out first: another thread finds the reader consumed while this
     * one reads with the GIL released. */
    struct ArrowArrayStream stream = self->stream;
    self->stream.release = NULL;
    int rc = read_rows(&stream, rows);
    stream.release(&stream);
    if (rc < 0) {
        Py_DECREF(rows);
        return NULL;
    }
    return rows;
}

static PyMethodDef reader_methods[] = {
    {"__arrow_c_stream__", (PyCFunction)(void (*)(void))reader_arrow_c_stream,
     METH_VARARGS | METH_KEYWORDS,
     "__arrow_c_stream__(requested_schema=None) -> PyCapsule\n\nHands the rows on as an "
     "ArrowArrayStream capsule (the Arrow PyCapsule interface); the reader is then consumed."},
    {"__arrow_c_schema__", (PyCFunction)reader_arrow_c_schema, METH_NOARGS,
     "__arrow_c_schema__() -> PyCapsule\n\nThe rows' schema as an ArrowSchema capsule; the "
     "reader stays unread."},
    {"to_pylist", (PyCFunction)reader_to_pylist, METH_NOARGS,
     "to_pylist() -> list[dict]\n\nReads every row as a dict; the reader is then consumed."},
    {NULL, NULL, 0, NULL},
};

PyTypeObject HlReader_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "hoglake._hoglake.Reader",
    .tp_basicsize = sizeof(HlReader),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Rows read from a table: hand them to any Arrow consumer (__arrow_c_stream__) "
              "or call to_pylist(). Read once.",
    .tp_dealloc = (destructor)reader_dealloc,
    .tp_methods = reader_methods,
};
