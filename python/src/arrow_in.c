/* Python data into the library as an ArrowArrayStream: an Arrow
 * PyCapsule producer (__arrow_c_stream__, or __arrow_c_array__ as one
 * batch), or plain Python data (plain_data.c builds its one batch). */
#include "hlpy.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- one batch as a stream ---- */

struct one_batch {
    struct ArrowSchema schema;
    struct ArrowArray array; /* release NULL once handed out */
};

static void schema_release_copy(struct ArrowSchema *s)
{
    for (int64_t i = 0; i < s->n_children; i++) {
        if (s->children[i]->release) /* a consumer may have moved it out */
            s->children[i]->release(s->children[i]);
        free(s->children[i]);
    }
    free(s->children);
    if (s->dictionary) {
        if (s->dictionary->release)
            s->dictionary->release(s->dictionary);
        free(s->dictionary);
    }
    free((void *)s->format);
    free((void *)s->name);
    free((void *)s->metadata);
    s->release = NULL;
}

/* The byte length of Arrow schema metadata (int32 count, then int32-length
 * keys and values). */
static size_t metadata_size(const char *m)
{
    if (!m)
        return 0;
    int32_t n, len;
    memcpy(&n, m, 4);
    size_t at = 4;
    for (int32_t i = 0; i < 2 * n; i++) {
        memcpy(&len, m + at, 4);
        at += 4 + (size_t)len;
    }
    return at;
}

static char *dup_or_null(const char *s, bool *failed)
{
    char *d = s ? strdup(s) : NULL;
    *failed = *failed || (s && !d);
    return d;
}

/* A deep copy of src with its own release; 0, or ENOMEM. */
static int schema_copy(const struct ArrowSchema *src, struct ArrowSchema *dst)
{
    bool failed = false;
    memset(dst, 0, sizeof *dst);
    dst->release = schema_release_copy;
    dst->format = dup_or_null(src->format, &failed);
    dst->name = dup_or_null(src->name, &failed);
    dst->flags = src->flags;
    size_t msize = metadata_size(src->metadata);
    if (msize) {
        char *m = malloc(msize);
        if (m)
            memcpy(m, src->metadata, msize);
        dst->metadata = m;
        failed = failed || !m;
    }
    if (!failed && src->n_children) {
        dst->children = calloc((size_t)src->n_children, sizeof *dst->children);
        failed = !dst->children;
        for (int64_t i = 0; !failed && i < src->n_children; i++) {
            struct ArrowSchema *c = malloc(sizeof *c);
            if (!c || schema_copy(src->children[i], c) != 0) {
                free(c);
                failed = true;
                break;
            }
            dst->children[dst->n_children++] = c;
        }
    }
    if (!failed && src->dictionary) {
        dst->dictionary = malloc(sizeof *dst->dictionary);
        if (!dst->dictionary || schema_copy(src->dictionary, dst->dictionary) != 0) {
            free(dst->dictionary);
            dst->dictionary = NULL;
            failed = true;
        }
    }
    if (failed) {
        schema_release_copy(dst);
        return ENOMEM;
    }
    return 0;
}

static int one_get_schema(struct ArrowArrayStream *s, struct ArrowSchema *out)
{
    struct one_batch *b = s->private_data;
    return schema_copy(&b->schema, out);
}

static int one_get_next(struct ArrowArrayStream *s, struct ArrowArray *out)
{
    struct one_batch *b = s->private_data;
    *out = b->array; /* the end of the stream once handed out: release NULL */
    b->array.release = NULL;
    return 0;
}

static const char *one_get_last_error(struct ArrowArrayStream *s)
{
    (void)s;
    return NULL;
}

static void one_release(struct ArrowArrayStream *s)
{
    struct one_batch *b = s->private_data;
    if (b->array.release)
        b->array.release(&b->array);
    b->schema.release(&b->schema);
    free(b);
    s->release = NULL;
}

int hlpy_one_batch_stream(struct ArrowSchema *schema, struct ArrowArray *array,
                          struct ArrowArrayStream *out)
{
    struct one_batch *b = malloc(sizeof *b);
    if (!b) {
        schema->release(schema);
        array->release(array);
        PyErr_NoMemory();
        return -1;
    }
    b->schema = *schema;
    b->array = *array;
    schema->release = NULL;
    array->release = NULL;
    *out = (struct ArrowArrayStream){.get_schema = one_get_schema,
                                     .get_next = one_get_next,
                                     .get_last_error = one_get_last_error,
                                     .release = one_release,
                                     .private_data = b};
    return 0;
}

/* ---- PyCapsule producers ---- */

void *hlpy_capsule_pointer(PyObject *capsule, const char *name)
{
    if (!PyCapsule_IsValid(capsule, name)) {
        PyErr_Format(PyExc_TypeError, "expected a PyCapsule named '%s'", name);
        return NULL;
    }
    return PyCapsule_GetPointer(capsule, name);
}

void hlpy_capsules_drop(PyObject *obj)
{
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    Py_DECREF(obj);
    PyErr_Restore(type, value, traceback);
}

static int from_stream_capsule(PyObject *data, struct ArrowArrayStream *out)
{
    PyObject *capsule = PyObject_CallMethod(data, "__arrow_c_stream__", NULL);
    if (!capsule)
        return -1;
    struct ArrowArrayStream *s = hlpy_capsule_pointer(capsule, "arrow_array_stream");
    int rc = -1;
    if (s && !s->release) {
        PyErr_SetString(PyExc_ValueError, "__arrow_c_stream__ gave a released stream");
    } else if (s) {
        /* Moved out: the capsule's destructor then finds it released. */
        *out = *s;
        s->release = NULL;
        rc = 0;
    }
    hlpy_capsules_drop(capsule);
    return rc;
}

static int from_array_capsules(PyObject *data, struct ArrowArrayStream *out)
{
    PyObject *pair = PyObject_CallMethod(data, "__arrow_c_array__", NULL);
    if (!pair)
        return -1;
    int rc = -1;
    if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2) {
        PyErr_SetString(PyExc_TypeError, "__arrow_c_array__ must return (schema, array)");
    } else {
        struct ArrowSchema *s = hlpy_capsule_pointer(PyTuple_GET_ITEM(pair, 0), "arrow_schema");
        struct ArrowArray *a =
            s ? hlpy_capsule_pointer(PyTuple_GET_ITEM(pair, 1), "arrow_array") : NULL;
        if (a && (!s->release || !a->release)) {
            PyErr_SetString(PyExc_ValueError, "__arrow_c_array__ gave a released schema or array");
        } else if (a) {
            struct ArrowSchema schema = *s;
            struct ArrowArray array = *a;
            s->release = NULL;
            a->release = NULL;
            rc = hlpy_one_batch_stream(&schema, &array, out);
        }
    }
    hlpy_capsules_drop(pair);
    return rc;
}

int hlpy_stream_from_object(PyObject *data, const struct hl_table_details *def,
                            struct ArrowArrayStream *out)
{
    if (PyObject_HasAttrString(data, "__arrow_c_stream__"))
        return from_stream_capsule(data, out);
    if (PyObject_HasAttrString(data, "__arrow_c_array__"))
        return from_array_capsules(data, out);
    if (PyDict_Check(data) || PyList_Check(data) || PyTuple_Check(data))
        return hlpy_stream_from_plain(data, def, out);
    PyErr_Format(PyExc_TypeError,
                 "append takes an Arrow object (__arrow_c_stream__ or __arrow_c_array__), a dict "
                 "of lists or a list of dicts, not a %.100s",
                 Py_TYPE(data)->tp_name);
    return -1;
}
