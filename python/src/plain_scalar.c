/* Plain data's building blocks: the kinds of Python values, the Arrow
 * nodes' memory, and scalar columns filled from Python values. */
#include "plain_scalar.h"

#include <datetime.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *format; /* a decimal's is made per column */
    const char *takes;  /* the Python values a column of the kind takes */
} kinds[] = {
    [K_NONE] = {"n", "None"},
    [K_BOOL] = {"b", "bool"},
    [K_INT] = {"l", "int"},
    [K_UINT64] = {"L", "int"},
    [K_FLOAT] = {"g", "float or int"},
    [K_FLOAT32] = {"f", "float or int"},
    [K_STR] = {"u", "str"},
    [K_BYTES] = {"z", "bytes"},
    [K_DATE] = {"tdD", "date"},
    [K_TIME] = {"ttu", "time"},
    [K_TS] = {"tsu:", "naive datetime"},
    [K_TSZ] = {"tsu:UTC", "aware datetime"},
    [K_DEC] = {NULL, "Decimal"},
    [K_UUID] = {"w:16", "uuid.UUID"},
    [K_LIST] = {"+l", "list or tuple"},
    [K_STRUCT] = {"+s", "dict"},
    [K_MAP] = {"+m", "dict or list of (key, value) pairs"},
};

const char *plain_kind_format(enum kind k)
{
    return kinds[k].format;
}

const char *plain_kind_takes(enum kind k)
{
    return kinds[k].takes;
}

enum kind plain_kind_of(PyObject *v)
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
    if (PyTime_Check(v))
        return K_TIME;
    if (PyObject_TypeCheck(v, (PyTypeObject *)hlpy_decimal_type()))
        return K_DEC;
    if (PyObject_TypeCheck(v, (PyTypeObject *)hlpy_uuid_type()))
        return K_UUID;
    if (PyList_Check(v) || PyTuple_Check(v))
        return K_LIST;
    if (PyDict_Check(v))
        return K_STRUCT;
    return K_NONE;
}

bool plain_takes(enum kind want, enum kind got)
{
    if (want == got)
        return true;
    switch (want) {
    case K_FLOAT32: return got == K_FLOAT || got == K_INT;
    case K_FLOAT:
    case K_UINT64: return got == K_INT;
    case K_MAP: return got == K_STRUCT || got == K_LIST;
    default: return false;
    }
}

/* ---- the batch's memory ---- */

static void array_release(struct ArrowArray *a)
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

static void schema_release(struct ArrowSchema *s)
{
    for (int64_t i = 0; i < s->n_children; i++) {
        if (s->children[i]->release) /* a consumer may have moved it out */
            s->children[i]->release(s->children[i]);
        free(s->children[i]);
    }
    free(s->children);
    free((void *)s->name);
    free(s->private_data); /* a decimal's format */
    s->release = NULL;
}

int plain_node_init(struct ArrowSchema *s, struct ArrowArray *a, const char *format,
                    const char *name, int64_t flags, size_t capacity)
{
    struct built *b = calloc(1, sizeof *b);
    char *n = strdup(name);
    if (!b || !n) {
        free(b);
        free(n);
        PyErr_NoMemory();
        return -1;
    }
    *s = (struct ArrowSchema){
        .format = format, .name = n, .flags = flags, .release = schema_release};
    *a = (struct ArrowArray){.buffers = b->ptrs, .release = array_release, .private_data = b};
    if (capacity) {
        s->children = calloc(capacity, sizeof *s->children);
        b->children = calloc(capacity, sizeof *b->children);
        a->children = b->children;
        if (!s->children || !b->children) {
            PyErr_NoMemory();
            return -1;
        }
    }
    return 0;
}

int plain_node_child(struct ArrowSchema *s, struct ArrowArray *a, struct ArrowSchema **cs,
                     struct ArrowArray **ca)
{
    struct built *b = a->private_data;
    *cs = calloc(1, sizeof **cs);
    *ca = calloc(1, sizeof **ca);
    if (!*cs || !*ca) {
        free(*cs);
        free(*ca);
        PyErr_NoMemory();
        return -1;
    }
    s->children[s->n_children++] = *cs;
    b->children[b->nchildren++] = *ca;
    a->n_children = b->nchildren;
    return 0;
}

int plain_node_validity(struct ArrowArray *a, PyObject *values)
{
    struct built *b = a->private_data;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(values);
    uint8_t *valid = calloc(((size_t)n + 7) / 8 + 1, 1);
    if (!valid) {
        PyErr_NoMemory();
        return -1;
    }
    b->buffers[0] = valid;
    b->ptrs[0] = valid;
    a->length = n;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (PySequence_Fast_GET_ITEM(values, i) == Py_None)
            a->null_count++;
        else
            valid[i >> 3] |= (uint8_t)(1u << (i & 7));
    }
    return 0;
}

/* ---- scalars ---- */

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
static int decimal_parts(const char *path, PyObject *v, PyObject **tuple, long *exponent)
{
    *tuple = PyObject_CallMethod(v, "as_tuple", NULL);
    if (!*tuple)
        return -1;
    PyObject *exp = PyTuple_GetItem(*tuple, 2);
    if (!exp || !PyLong_Check(exp)) {
        Py_CLEAR(*tuple);
        if (!PyErr_Occurred())
            PyErr_Format(PyExc_ValueError, "column '%s': a Decimal that is not finite", path);
        return -1;
    }
    *exponent = PyLong_AsLong(exp);
    return *exponent == -1 && PyErr_Occurred() ? -1 : 0;
}

int plain_decimal_scale(const char *path, PyObject *values, int *scale)
{
    *scale = 0;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(values);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *v = PySequence_Fast_GET_ITEM(values, i), *tuple;
        long exponent;
        if (v == Py_None)
            continue;
        if (decimal_parts(path, v, &tuple, &exponent) < 0)
            return -1;
        Py_DECREF(tuple);
        if (-exponent > 38) {
            PyErr_Format(PyExc_OverflowError, "column '%s': a Decimal of more than 38 digits",
                         path);
            return -1;
        }
        if (-exponent > *scale)
            *scale = (int)-exponent;
    }
    return 0;
}

/* v * 10^scale as decimal128's two little-endian words, exactly, in at
 * most precision digits. */
static int decimal_words(const char *path, PyObject *v, int precision, int scale, uint64_t out[2])
{
    PyObject *tuple;
    long exponent;
    if (decimal_parts(path, v, &tuple, &exponent) < 0)
        return -1;
    PyObject *digits = PyTuple_GET_ITEM(tuple, 1);
    int negative = PyObject_IsTrue(PyTuple_GET_ITEM(tuple, 0));
    Py_ssize_t ndigits = PyTuple_GET_SIZE(digits);
    long shift = exponent + scale;
    if (shift < 0) {
        Py_DECREF(tuple);
        PyErr_Format(PyExc_ValueError, "column '%s': %R has more than %d decimal places", path, v,
                     scale);
        return -1;
    }
    if (ndigits + shift > precision) {
        Py_DECREF(tuple);
        PyErr_Format(PyExc_OverflowError, "column '%s': %R needs more than %d digits", path, v,
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

/* Appends len bytes at p to a string column's data buffer. */
static int text_append(const char *path, struct built *b, size_t *len_io, size_t *cap_io,
                       const char *p, size_t len)
{
    if (len > (size_t)INT32_MAX - *len_io) {
        PyErr_Format(PyExc_OverflowError,
                     "column '%s' holds more than 2 GiB of text; use an Arrow object", path);
        return -1;
    }
    if (*len_io + len > *cap_io) {
        size_t cap = (*cap_io ? *cap_io * 2 : 256) + len;
        void *grown = realloc(b->buffers[2], cap);
        if (!grown) {
            PyErr_NoMemory();
            return -1;
        }
        b->buffers[2] = grown;
        *cap_io = cap;
    }
    memcpy((char *)b->buffers[2] + *len_io, p, len);
    *len_io += len;
    return 0;
}

/* One value of a scalar column into slot i of its buffers. */
static int scalar_value(const char *path, PyObject *v, Py_ssize_t i, enum kind k, int precision,
                        int scale, struct built *b, size_t *text_len, size_t *text_cap)
{
    void *data = b->buffers[1];
    switch (k) {
    case K_BOOL:
        if (v == Py_True)
            ((uint8_t *)data)[i >> 3] |= (uint8_t)(1u << (i & 7));
        return 0;
    case K_INT: {
        long long x = PyLong_AsLongLong(v);
        if (x == -1 && PyErr_Occurred())
            return -1;
        ((int64_t *)data)[i] = x;
        return 0;
    }
    case K_UINT64: {
        unsigned long long x = PyLong_AsUnsignedLongLong(v);
        if (x == (unsigned long long)-1 && PyErr_Occurred())
            return -1;
        ((uint64_t *)data)[i] = x;
        return 0;
    }
    case K_FLOAT:
    case K_FLOAT32: {
        double x = PyFloat_AsDouble(v);
        if (x == -1.0 && PyErr_Occurred())
            return -1;
        if (k == K_FLOAT)
            ((double *)data)[i] = x;
        else
            ((float *)data)[i] = (float)x;
        return 0;
    }
    case K_DATE:
        ((int32_t *)data)[i] = (int32_t)days_from_civil(
            PyDateTime_GET_YEAR(v), PyDateTime_GET_MONTH(v), PyDateTime_GET_DAY(v));
        return 0;
    case K_TIME:
        ((int64_t *)data)[i] =
            ((int64_t)PyDateTime_TIME_GET_HOUR(v) * 3600 + PyDateTime_TIME_GET_MINUTE(v) * 60 +
             PyDateTime_TIME_GET_SECOND(v)) *
                1000000 +
            PyDateTime_TIME_GET_MICROSECOND(v);
        return 0;
    case K_TS:
    case K_TSZ: return datetime_micros(v, &((int64_t *)data)[i]);
    case K_DEC: return decimal_words(path, v, precision, scale, &((uint64_t *)data)[2 * i]);
    case K_UUID: {
        PyObject *bytes = PyObject_GetAttrString(v, "bytes");
        if (!bytes)
            return -1;
        int rc = PyBytes_Check(bytes) && PyBytes_GET_SIZE(bytes) == 16 ? 0 : -1;
        if (rc == 0)
            memcpy((uint8_t *)data + 16 * i, PyBytes_AS_STRING(bytes), 16);
        else
            PyErr_Format(PyExc_TypeError, "column '%s': a UUID whose bytes are not 16", path);
        Py_DECREF(bytes);
        return rc;
    }
    case K_STR:
    case K_BYTES: {
        Py_ssize_t len;
        const char *p;
        char *bp;
        if (k == K_STR) {
            if (!(p = PyUnicode_AsUTF8AndSize(v, &len)))
                return -1;
        } else {
            if (PyBytes_AsStringAndSize(v, &bp, &len) < 0)
                return -1;
            p = bp;
        }
        if (text_append(path, b, text_len, text_cap, p, (size_t)len) < 0)
            return -1;
        ((int32_t *)data)[i + 1] = (int32_t)*text_len;
        return 0;
    }
    default: return 0;
    }
}

static size_t scalar_width(enum kind k)
{
    switch (k) {
    case K_BOOL: return 0; /* a bitmap */
    case K_FLOAT32:
    case K_DATE:
    case K_STR: /* the offsets */
    case K_BYTES: return 4;
    case K_DEC:
    case K_UUID: return 16;
    default: return 8;
    }
}

int plain_fill_scalar(const struct spot *at, PyObject *values, enum kind k, int precision,
                      int scale, struct ArrowArray *a)
{
    struct built *b = a->private_data;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(values);
    if (plain_node_validity(a, values) < 0)
        return -1;
    size_t width = scalar_width(k);
    b->buffers[1] = width ? calloc((size_t)n + 1, width) : calloc(((size_t)n + 7) / 8 + 1, 1);
    bool text = k == K_STR || k == K_BYTES;
    if (text)
        b->buffers[2] = malloc(1); /* grown as text comes; never NULL, even empty */
    if (!b->buffers[1] || (text && !b->buffers[2])) {
        PyErr_NoMemory();
        return -1;
    }
    size_t text_len = 0, text_cap = text ? 1 : 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *v = PySequence_Fast_GET_ITEM(values, i);
        if (v == Py_None) {
            if (text)
                ((int32_t *)b->buffers[1])[i + 1] = (int32_t)text_len;
            continue;
        }
        if (scalar_value(at->path, v, i, k, precision, scale, b, &text_len, &text_cap) < 0) {
            if (PyErr_ExceptionMatches(PyExc_OverflowError) && (k == K_INT || k == K_UINT64)) {
                PyErr_Clear();
                PyErr_Format(PyExc_OverflowError,
                             "column '%s': a value out of the %s range at row %zd", at->path,
                             k == K_INT ? "int64" : "uint64", row_of(at, i));
            }
            return -1;
        }
    }
    a->n_buffers = text ? 3 : 2;
    for (int i = 0; i < 3; i++)
        b->ptrs[i] = b->buffers[i];
    return 0;
}

int plain_init(void)
{
    if (!PyDateTimeAPI) {
        PyDateTime_IMPORT;
        if (!PyDateTimeAPI)
            return -1;
    }
    /* kind_of tells Decimal and UUID values by their types */
    return hlpy_decimal_type() && hlpy_uuid_type() ? 0 : -1;
}
