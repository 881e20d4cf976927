/* Python data into the library as an ArrowArrayStream: an Arrow
 * PyCapsule producer (__arrow_c_stream__, or __arrow_c_array__ as one
 * batch), or plain Python data (a dict of lists, a list of dicts) built
 * into one batch here. */
#include "hlpy.h"

#include <datetime.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
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

/* Moves schema and array into a stream of that one batch. */
static int one_batch_stream(struct ArrowSchema *schema, struct ArrowArray *array,
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

static void *capsule_pointer(PyObject *capsule, const char *name)
{
    if (!PyCapsule_IsValid(capsule, name)) {
        PyErr_Format(PyExc_TypeError, "expected a PyCapsule named '%s'", name);
        return NULL;
    }
    return PyCapsule_GetPointer(capsule, name);
}

static int from_stream_capsule(PyObject *data, struct ArrowArrayStream *out)
{
    PyObject *capsule = PyObject_CallMethod(data, "__arrow_c_stream__", NULL);
    if (!capsule)
        return -1;
    struct ArrowArrayStream *s = capsule_pointer(capsule, "arrow_array_stream");
    int rc = -1;
    if (s && !s->release) {
        PyErr_SetString(PyExc_ValueError, "__arrow_c_stream__ gave a released stream");
    } else if (s) {
        /* Moved out: the capsule's destructor then finds it released. */
        *out = *s;
        s->release = NULL;
        rc = 0;
    }
    Py_DECREF(capsule);
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
        struct ArrowSchema *s = capsule_pointer(PyTuple_GET_ITEM(pair, 0), "arrow_schema");
        struct ArrowArray *a = s ? capsule_pointer(PyTuple_GET_ITEM(pair, 1), "arrow_array") : NULL;
        if (a && (!s->release || !a->release)) {
            PyErr_SetString(PyExc_ValueError, "__arrow_c_array__ gave a released schema or array");
        } else if (a) {
            struct ArrowSchema schema = *s;
            struct ArrowArray array = *a;
            s->release = NULL;
            a->release = NULL;
            rc = one_batch_stream(&schema, &array, out);
        }
    }
    Py_DECREF(pair);
    return rc;
}

/* ---- plain Python data ---- */

enum kind { K_NONE, K_BOOL, K_INT, K_FLOAT, K_STR, K_BYTES, K_DATE, K_TS, K_TSZ, K_DEC };

/* The Arrow format of a kind; a decimal column's (decimal128 of precision
 * 38, at the largest scale of its values, which libhoglake then fits to the
 * table's) is made per column. */
static const char *kind_format(enum kind k)
{
    static const char *formats[] = {"n", "b", "l", "g", "u", "z", "tdD", "tsu:", "tsu:UTC", NULL};
    return formats[k];
}

static const char *kind_name(enum kind k)
{
    static const char *names[] = {"None",  "bool", "int",      "float",    "str",
                                  "bytes", "date", "datetime", "datetime", "Decimal"};
    return names[k];
}

static enum kind kind_of(PyObject *v)
{
    if (PyBool_Check(v))
        return K_BOOL;
    if (PyLong_Check(v))
        return K_INT;
    if (PyFloat_Check(v))
        return K_FLOAT;
    if (PyUnicode_Check(v))
        return K_STR;
    if (PyBytes_Check(v))
        return K_BYTES;
    if (PyDateTime_Check(v))
        return ((PyDateTime_DateTime *)v)->hastzinfo ? K_TSZ : K_TS;
    if (PyDate_Check(v))
        return K_DATE;
    if (PyObject_TypeCheck(v, (PyTypeObject *)hlpy_decimal_type()))
        return K_DEC;
    return K_NONE;
}

/* One column's kind: every non-None value's, ints widening to floats. */
static int column_kind(const char *name, PyObject *values, enum kind *out)
{
    *out = K_NONE;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(values);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *v = PySequence_Fast_GET_ITEM(values, i);
        if (v == Py_None)
            continue;
        enum kind k = kind_of(v);
        if (k == K_NONE) {
            PyErr_Format(PyExc_TypeError,
                         "column '%s': a %.100s value; plain data holds bool, int, float, str, "
                         "bytes, date, datetime and Decimal (use an Arrow object for other "
                         "types)",
                         name, Py_TYPE(v)->tp_name);
            return -1;
        }
        if (*out == K_NONE || *out == k || (*out == K_FLOAT && k == K_INT)) {
            *out = *out == K_NONE ? k : *out;
        } else if (*out == K_INT && k == K_FLOAT) {
            *out = K_FLOAT;
        } else {
            PyErr_Format(PyExc_TypeError, "column '%s' mixes %s and %.100s values", name,
                         kind_name(*out), Py_TYPE(v)->tp_name);
            return -1;
        }
    }
    return 0;
}

static int64_t days_from_civil(int64_t y, int64_t m, int64_t d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

/* A datetime as microseconds since the epoch, at UTC when it is aware. */
static int datetime_micros(PyObject *v, int64_t *out)
{
    int64_t days =
        days_from_civil(PyDateTime_GET_YEAR(v), PyDateTime_GET_MONTH(v), PyDateTime_GET_DAY(v));
    int64_t secs = days * 86400 + PyDateTime_DATE_GET_HOUR(v) * 3600 +
                   PyDateTime_DATE_GET_MINUTE(v) * 60 + PyDateTime_DATE_GET_SECOND(v);
    if (((PyDateTime_DateTime *)v)->hastzinfo) {
        PyObject *off = PyObject_CallMethod(v, "utcoffset", NULL);
        if (!off)
            return -1;
        if (off != Py_None)
            secs -=
                (int64_t)PyDateTime_DELTA_GET_DAYS(off) * 86400 + PyDateTime_DELTA_GET_SECONDS(off);
        Py_DECREF(off);
    }
    *out = secs * 1000000 + PyDateTime_DATE_GET_MICROSECOND(v);
    return 0;
}

/* A finite Decimal's digits and exponent (as_tuple()); -1 with an
 * exception otherwise. */
static int decimal_parts(const char *name, PyObject *v, PyObject **tuple, long *exponent)
{
    *tuple = PyObject_CallMethod(v, "as_tuple", NULL);
    if (!*tuple)
        return -1;
    PyObject *exp = PyTuple_GetItem(*tuple, 2);
    if (!exp || !PyLong_Check(exp)) {
        Py_CLEAR(*tuple);
        if (!PyErr_Occurred())
            PyErr_Format(PyExc_ValueError, "column '%s': a Decimal that is not finite", name);
        return -1;
    }
    *exponent = PyLong_AsLong(exp);
    return *exponent == -1 && PyErr_Occurred() ? -1 : 0;
}

/* The largest scale of a decimal column's values. */
static int decimal_scale(const char *name, PyObject *values, int *scale)
{
    *scale = 0;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(values);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *v = PySequence_Fast_GET_ITEM(values, i), *tuple;
        long exponent;
        if (v == Py_None)
            continue;
        if (decimal_parts(name, v, &tuple, &exponent) < 0)
            return -1;
        Py_DECREF(tuple);
        if (-exponent > 38) {
            PyErr_Format(PyExc_OverflowError, "column '%s': a Decimal of more than 38 digits",
                         name);
            return -1;
        }
        if (-exponent > *scale)
            *scale = (int)-exponent;
    }
    return 0;
}

/* A decimal column's precision and scale: the table's (decimals maps a
 * column name to (precision, scale)), else 38 and the largest scale of its
 * values. */
static int decimal_type_of(const char *name, PyObject *values, PyObject *decimals, int *precision,
                           int *scale)
{
    PyObject *ps = decimals ? PyDict_GetItemString(decimals, name) : NULL; /* borrowed */
    if (ps)
        return PyArg_ParseTuple(ps, "ii", precision, scale) ? 0 : -1;
    *precision = 38;
    return decimal_scale(name, values, scale);
}

/* v * 10^scale as decimal128's two little-endian words, exactly, in at
 * most precision digits. */
static int decimal_words(const char *name, PyObject *v, int precision, int scale, uint64_t out[2])
{
    PyObject *tuple;
    long exponent;
    if (decimal_parts(name, v, &tuple, &exponent) < 0)
        return -1;
    PyObject *digits = PyTuple_GET_ITEM(tuple, 1);
    int negative = PyObject_IsTrue(PyTuple_GET_ITEM(tuple, 0));
    Py_ssize_t ndigits = PyTuple_GET_SIZE(digits);
    long shift = exponent + scale;
    if (shift < 0) {
        Py_DECREF(tuple);
        PyErr_Format(PyExc_ValueError, "column '%s': %R has more than %d decimal places", name, v,
                     scale);
        return -1;
    }
    if (ndigits + shift > precision) {
        Py_DECREF(tuple);
        PyErr_Format(PyExc_OverflowError, "column '%s': %R needs more than %d digits", name, v,
                     precision);
        return -1;
    }
    /* At most 38 digits: the magnitude fits in unsigned __int128. */
    unsigned __int128 mag = 0;
    for (Py_ssize_t i = 0; i < ndigits; i++)
        mag = mag * 10 + (unsigned)PyLong_AsLong(PyTuple_GET_ITEM(digits, i));
    for (long i = 0; i < shift; i++)
        mag *= 10;
    Py_DECREF(tuple);
    if (negative)
        mag = ~mag + 1;
    out[0] = (uint64_t)mag;
    out[1] = (uint64_t)(mag >> 64);
    return 0;
}

/* A built array's memory: its buffers and, for the struct, its children. */
struct built {
    void *buffers[3];
    const void *ptrs[3];
    struct ArrowArray **children;
    int64_t nchildren;
};

static void built_release(struct ArrowArray *a)
{
    struct built *b = a->private_data;
    for (int64_t i = 0; i < b->nchildren; i++) {
        if (b->children[i]->release)
            b->children[i]->release(b->children[i]);
        free(b->children[i]);
    }
    free(b->children);
    for (int i = 0; i < 3; i++)
        free(b->buffers[i]);
    free(b);
    a->release = NULL;
}

static void built_schema_release(struct ArrowSchema *s)
{
    for (int64_t i = 0; i < s->n_children; i++) {
        if (s->children[i]->release) /* a consumer may have moved it out */
            s->children[i]->release(s->children[i]);
        free(s->children[i]);
    }
    free(s->children);
    free((void *)s->name);
    free(s->private_data); /* a decimal column's format */
    s->release = NULL;
}

/* Fills one column's buffers from values (n of them, kind k). */
static int fill_column(const char *name, PyObject *values, enum kind k, int precision, int scale,
                       struct built *b, int64_t *null_count)
{
    Py_ssize_t n = PySequence_Fast_GET_SIZE(values);
    size_t bitmap = ((size_t)n + 7) / 8 + 1;
    uint8_t *valid = calloc(bitmap, 1);
    b->buffers[0] = valid;
    size_t width = k == K_BOOL ? 0 : k == K_DATE ? 4 : k == K_DEC ? 16 : 8;
    if (k == K_STR || k == K_BYTES)
        width = 4; /* the offsets */
    b->buffers[1] = k == K_BOOL ? calloc(bitmap, 1) : calloc((size_t)n + 1, width);
    if (!valid || !b->buffers[1]) {
        PyErr_NoMemory();
        return -1;
    }
    size_t data_len = 0, data_cap = 0;
    *null_count = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *v = PySequence_Fast_GET_ITEM(values, i);
        if (v == Py_None) {
            (*null_count)++;
            if (k == K_STR || k == K_BYTES)
                ((int32_t *)b->buffers[1])[i + 1] = (int32_t)data_len;
            continue;
        }
        valid[i >> 3] |= (uint8_t)(1u << (i & 7));
        switch (k) {
        case K_BOOL:
            if (v == Py_True)
                ((uint8_t *)b->buffers[1])[i >> 3] |= (uint8_t)(1u << (i & 7));
            break;
        case K_INT: {
            long long x = PyLong_AsLongLong(v);
            if (x == -1 && PyErr_Occurred())
                goto bad;
            ((int64_t *)b->buffers[1])[i] = x;
            break;
        }
        case K_FLOAT: {
            double x = PyFloat_AsDouble(v);
            if (x == -1.0 && PyErr_Occurred())
                goto bad;
            ((double *)b->buffers[1])[i] = x;
            break;
        }
        case K_DATE:
            ((int32_t *)b->buffers[1])[i] = (int32_t)days_from_civil(
                PyDateTime_GET_YEAR(v), PyDateTime_GET_MONTH(v), PyDateTime_GET_DAY(v));
            break;
        case K_DEC:
            if (decimal_words(name, v, precision, scale, &((uint64_t *)b->buffers[1])[2 * i]) < 0)
                return -1;
            break;
        case K_TS:
        case K_TSZ:
            if (datetime_micros(v, &((int64_t *)b->buffers[1])[i]) < 0)
                goto bad;
            break;
        case K_STR:
        case K_BYTES: {
            Py_ssize_t len;
            const char *p;
            char *bp;
            if (k == K_STR) {
                p = PyUnicode_AsUTF8AndSize(v, &len);
                if (!p)
                    goto bad;
            } else {
                if (PyBytes_AsStringAndSize(v, &bp, &len) < 0)
                    goto bad;
                p = bp;
            }
            if ((size_t)len > (size_t)INT32_MAX - data_len) {
                PyErr_Format(PyExc_OverflowError,
                             "column '%s' holds more than 2 GiB of text; "
                             "use an Arrow object",
                             name);
                return -1;
            }
            if (data_len + (size_t)len > data_cap) {
                size_t cap = (data_cap ? data_cap * 2 : 256) + (size_t)len;
                void *grown = realloc(b->buffers[2], cap);
                if (!grown) {
                    PyErr_NoMemory();
                    return -1;
                }
                b->buffers[2] = grown;
                data_cap = cap;
            }
            memcpy((char *)b->buffers[2] + data_len, p, (size_t)len);
            data_len += (size_t)len;
            ((int32_t *)b->buffers[1])[i + 1] = (int32_t)data_len;
            break;
        }
        case K_NONE: break;
        }
    }
    if ((k == K_STR || k == K_BYTES) && !b->buffers[2] && !(b->buffers[2] = malloc(1))) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
bad:
    if (PyErr_ExceptionMatches(PyExc_OverflowError)) {
        PyErr_Clear();
        PyErr_Format(PyExc_OverflowError, "column '%s': a value out of the int64 range", name);
    }
    return -1;
}

/* Adds one column to the struct schema and array being built. */
static int add_column(PyObject *key, PyObject *values, Py_ssize_t nrows, PyObject *decimals,
                      struct ArrowSchema *schema, struct ArrowArray *array)
{
    const char *name = PyUnicode_Check(key) ? PyUnicode_AsUTF8(key) : NULL;
    if (!name) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "column names must be str");
        return -1;
    }
    PyObject *seq = PySequence_Fast(values, "a column's values must be a sequence");
    if (!seq)
        return -1;
    int rc = -1;
    enum kind k;
    if (PySequence_Fast_GET_SIZE(seq) != nrows) {
        PyErr_Format(PyExc_ValueError, "column '%s' has %zd values, the first column %zd", name,
                     PySequence_Fast_GET_SIZE(seq), nrows);
    } else if (column_kind(name, seq, &k) == 0 && k == K_NONE) {
        rc = 0; /* no value to type it by: left out, so the table's nulls apply */
    } else if (!PyErr_Occurred()) {
        int precision = 38, scale = 0;
        char *format = NULL;
        if (k == K_DEC && decimal_type_of(name, seq, decimals, &precision, &scale) == 0 &&
            (format = malloc(24)))
            snprintf(format, 24, "d:%d,%d", precision, scale);
        struct ArrowSchema *cs = calloc(1, sizeof *cs);
        struct ArrowArray *ca = calloc(1, sizeof *ca);
        struct built *b = calloc(1, sizeof *b);
        char *cname = strdup(name);
        if (PyErr_Occurred() || !cs || !ca || !b || !cname || (k == K_DEC && !format)) {
            free(cs), free(ca), free(b), free(cname), free(format);
            if (!PyErr_Occurred())
                PyErr_NoMemory();
        } else {
            *cs = (struct ArrowSchema){.format = format ? format : kind_format(k),
                                       .name = cname,
                                       .flags = ARROW_FLAG_NULLABLE,
                                       .release = built_schema_release,
                                       .private_data = format};
            *ca = (struct ArrowArray){.length = nrows,
                                      .n_buffers = k == K_STR || k == K_BYTES ? 3 : 2,
                                      .buffers = b->ptrs,
                                      .release = built_release,
                                      .private_data = b};
            schema->children[schema->n_children++] = cs;
            struct built *parent = array->private_data;
            parent->children[parent->nchildren++] = ca;
            array->children = parent->children;
            array->n_children = parent->nchildren;
            rc = fill_column(name, seq, k, precision, scale, b, &ca->null_count);
            for (int i = 0; i < 3; i++)
                b->ptrs[i] = b->buffers[i];
        }
    }
    Py_DECREF(seq);
    return rc;
}

/* A dict of lists (or, transposed first, a list of dicts) as one batch. */
static int from_columns(PyObject *columns, PyObject *decimals, struct ArrowArrayStream *out)
{
    Py_ssize_t ncols = PyDict_GET_SIZE(columns);
    struct ArrowSchema schema = {.format = "+s", .release = built_schema_release};
    struct ArrowArray array = {.n_buffers = 1, .release = built_release};
    struct built *b = calloc(1, sizeof *b);
    schema.children = calloc(ncols ? (size_t)ncols : 1, sizeof *schema.children);
    if (b)
        b->children = calloc(ncols ? (size_t)ncols : 1, sizeof *b->children);
    if (!b || !b->children || !schema.children) {
        if (b)
            free(b->children);
        free(b);
        free(schema.children);
        PyErr_NoMemory();
        return -1;
    }
    array.private_data = b;
    array.buffers = b->ptrs; /* no validity bitmap: every row is valid */
    Py_ssize_t pos = 0, nrows = -1;
    PyObject *key, *values;
    while (PyDict_Next(columns, &pos, &key, &values)) {
        if (nrows < 0 && (nrows = PyObject_Length(values)) < 0)
            break;
        if (add_column(key, values, nrows, decimals, &schema, &array) < 0) {
            nrows = -1;
            break;
        }
    }
    if (PyErr_Occurred()) {
        schema.release(&schema);
        array.release(&array);
        return -1;
    }
    array.length = nrows < 0 ? 0 : nrows;
    return one_batch_stream(&schema, &array, out);
}

static PyObject *rows_to_columns(PyObject *rows)
{
    PyObject *seq = PySequence_Fast(rows, "rows must be a sequence of dicts");
    if (!seq)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject *cols = PyDict_New();
    /* Every key any row has, in first-seen order; a row without it: None. */
    for (Py_ssize_t i = 0; cols && i < n; i++) {
        PyObject *row = PySequence_Fast_GET_ITEM(seq, i);
        if (!PyDict_Check(row)) {
            PyErr_Format(PyExc_TypeError, "row %zd is a %.100s, not a dict", i,
                         Py_TYPE(row)->tp_name);
            Py_CLEAR(cols);
            break;
        }
        Py_ssize_t pos = 0;
        PyObject *k, *v;
        while (PyDict_Next(row, &pos, &k, &v)) {
            PyObject *col = PyDict_GetItemWithError(cols, k);
            if (!col && !PyErr_Occurred()) {
                col = PyList_New(n);
                for (Py_ssize_t j = 0; col && j < n; j++)
                    PyList_SET_ITEM(col, j, Py_NewRef(Py_None));
                if (!col || PyDict_SetItem(cols, k, col) < 0) {
                    Py_XDECREF(col);
                    col = NULL;
                } else {
                    Py_DECREF(col); /* the dict holds it */
                }
            }
            if (!col) {
                Py_CLEAR(cols);
                break;
            }
            if (PyList_SetItem(col, i, Py_NewRef(v)) < 0) {
                Py_CLEAR(cols);
                break;
            }
        }
    }
    Py_DECREF(seq);
    return cols;
}

int hlpy_is_plain_data(PyObject *data)
{
    return !PyObject_HasAttrString(data, "__arrow_c_stream__") &&
           !PyObject_HasAttrString(data, "__arrow_c_array__") &&
           (PyDict_Check(data) || PyList_Check(data) || PyTuple_Check(data));
}

int hlpy_stream_from_object(PyObject *data, PyObject *decimals, struct ArrowArrayStream *out)
{
    if (!PyDateTimeAPI) {
        PyDateTime_IMPORT;
        if (!PyDateTimeAPI)
            return -1;
    }
    if (!hlpy_decimal_type()) /* kind_of tells Decimal values by it */
        return -1;
    if (PyObject_HasAttrString(data, "__arrow_c_stream__"))
        return from_stream_capsule(data, out);
    if (PyObject_HasAttrString(data, "__arrow_c_array__"))
        return from_array_capsules(data, out);
    if (PyDict_Check(data))
        return from_columns(data, decimals, out);
    if (PyList_Check(data) || PyTuple_Check(data)) {
        PyObject *cols = rows_to_columns(data);
        if (!cols)
            return -1;
        int rc = from_columns(cols, decimals, out);
        Py_DECREF(cols);
        return rc;
    }
    PyErr_Format(PyExc_TypeError,
                 "append takes an Arrow object (__arrow_c_stream__ or __arrow_c_array__), a dict "
                 "of lists or a list of dicts, not a %.100s",
                 Py_TYPE(data)->tp_name);
    return -1;
}
