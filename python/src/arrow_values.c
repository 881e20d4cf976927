/* Arrow C data (one batch, a struct array) as Python values: a dict per
 * row. Primitive, string, binary, decimal128, date, time, timestamp,
 * struct, list and map columns (uuid ones as uuid.UUID), and
 * dictionary-encoded ones; any other type is NotImplementedError naming
 * its format. */
#include "hlpy.h"

#include <datetime.h>
#include <stdlib.h>
#include <string.h>

static PyObject *decimal_type, *uuid_type;

static bool is_valid(const struct ArrowArray *a, int64_t i)
{
    const uint8_t *bits = a->n_buffers > 0 ? a->buffers[0] : NULL;
    return !bits || (bits[i >> 3] >> (i & 7)) & 1;
}

static PyObject *value_at(const struct ArrowSchema *s, const struct ArrowArray *a, int64_t i);

/* Days since 1970-01-01 as a civil date (H. Hinnant's days_from_civil,
 * inverted). */
static void civil_from_days(int64_t z, int *y, int *m, int *d)
{
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    *d = (int)(doy - (153 * mp + 2) / 5 + 1);
    *m = (int)(mp < 10 ? mp + 3 : mp - 9);
    *y = (int)(yoe + era * 400 + (*m <= 2));
}

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

/* The units per second of a time or timestamp format's unit letter. */
static int64_t per_second(char unit)
{
    switch (unit) {
    case 's': return 1;
    case 'm': return 1000;
    case 'u': return 1000000;
    default: return 1000000000;
    }
}

static PyObject *timestamp_value(const char *fmt, int64_t v)
{
    int64_t ps = per_second(fmt[2]);
    int64_t secs = floor_div(v, ps);
    int64_t frac = v - secs * ps;
    int us = (int)(ps >= 1000000 ? frac / (ps / 1000000) : frac * (1000000 / ps));
    int64_t days = floor_div(secs, 86400);
    int64_t sod = secs - days * 86400;
    int y, m, d;
    civil_from_days(days, &y, &m, &d);
    if (y < 1 || y > 9999)
        return PyErr_Format(PyExc_OverflowError, "timestamp %lld is outside datetime's years",
                            (long long)v);
    /* "tsu:" is naive; any zone makes an aware datetime at UTC (Arrow
     * stores the instant in UTC whatever the zone). */
    PyObject *tz = fmt[4] ? PyDateTime_TimeZone_UTC : Py_None;
    return PyDateTimeAPI->DateTime_FromDateAndTime(y, m, d, (int)(sod / 3600), (int)(sod / 60 % 60),
                                                   (int)(sod % 60), us, tz,
                                                   PyDateTimeAPI->DateTimeType);
}

static PyObject *time_value(const char *fmt, int64_t v)
{
    int64_t ps = per_second(fmt[2]);
    int64_t secs = v / ps;
    int64_t frac = v % ps;
    int us = (int)(ps >= 1000000 ? frac / (ps / 1000000) : frac * (1000000 / ps));
    return PyTime_FromTime((int)(secs / 3600), (int)(secs / 60 % 60), (int)(secs % 60), us);
}

static PyObject *decimal_value(const char *fmt, const uint8_t *p)
{
    int precision, scale = 0;
    if (sscanf(fmt, "d:%d,%d", &precision, &scale) < 1)
        return PyErr_Format(PyExc_NotImplementedError, "decimal format %s", fmt);
    uint64_t lo, hi;
    memcpy(&lo, p, 8);
    memcpy(&hi, p + 8, 8);
    /* The 128-bit two's complement value: hi * 2^64 + lo, hi signed. */
    PyObject *h = PyLong_FromLongLong((long long)hi);
    PyObject *sixty_four = PyLong_FromLong(64);
    PyObject *shifted = h && sixty_four ? PyNumber_Lshift(h, sixty_four) : NULL;
    PyObject *l = PyLong_FromUnsignedLongLong(lo);
    PyObject *whole = shifted && l ? PyNumber_Add(shifted, l) : NULL;
    Py_XDECREF(h);
    Py_XDECREF(sixty_four);
    Py_XDECREF(shifted);
    Py_XDECREF(l);
    if (!whole)
        return NULL;
    PyObject *dec = PyObject_CallOneArg(decimal_type, whole);
    Py_DECREF(whole);
    if (!dec)
        return NULL;
    PyObject *out = PyObject_CallMethod(dec, "scaleb", "i", -scale);
    Py_DECREF(dec);
    return out;
}

static PyObject *struct_value(const struct ArrowSchema *s, const struct ArrowArray *a, int64_t i)
{
    PyObject *row = PyDict_New();
    for (int64_t k = 0; row && k < s->n_children; k++) {
        PyObject *v = value_at(s->children[k], a->children[k], i);
        if (!v || PyDict_SetItemString(row, s->children[k]->name, v) < 0)
            Py_CLEAR(row);
        Py_XDECREF(v);
    }
    return row;
}

/* Element i's range in its offsets buffer (32- or 64-bit): the child
 * elements of a list, the bytes of a string. */
static void offsets_at(const struct ArrowArray *a, int64_t i, bool large, int64_t *start,
                       int64_t *end)
{
    if (large) {
        *start = ((const int64_t *)a->buffers[1])[i];
        *end = ((const int64_t *)a->buffers[1])[i + 1];
    } else {
        *start = ((const int32_t *)a->buffers[1])[i];
        *end = ((const int32_t *)a->buffers[1])[i + 1];
    }
}

/* List, large list and map: the child range of element i. */
static PyObject *list_value(const struct ArrowSchema *s, const struct ArrowArray *a, int64_t i,
                            bool large, bool map)
{
    int64_t start, end;
    offsets_at(a, i, large, &start, &end);
    const struct ArrowSchema *cs = s->children[0];
    const struct ArrowArray *ca = a->children[0];
    if (map) {
        PyObject *d = PyDict_New();
        for (int64_t j = start; d && j < end; j++) {
            PyObject *k = value_at(cs->children[0], ca->children[0], ca->offset + j);
            PyObject *v = k ? value_at(cs->children[1], ca->children[1], ca->offset + j) : NULL;
            if (!v || PyDict_SetItem(d, k, v) < 0)
                Py_CLEAR(d);
            Py_XDECREF(k);
            Py_XDECREF(v);
        }
        return d;
    }
    PyObject *list = PyList_New(end - start);
    for (int64_t j = start; list && j < end; j++) {
        PyObject *v = value_at(cs, ca, j);
        if (!v)
            Py_CLEAR(list);
        else
            PyList_SET_ITEM(list, j - start, v);
    }
    return list;
}

static PyObject *bytes_value(const struct ArrowArray *a, int64_t i, bool large, bool text)
{
    int64_t start, end;
    offsets_at(a, i, large, &start, &end);
    const char *p = (const char *)a->buffers[2] + start;
    return text ? PyUnicode_DecodeUTF8(p, end - start, "strict")
                : PyBytes_FromStringAndSize(p, end - start);
}

/* Whether s's metadata names the extension type name
 * (ARROW:extension:name): int32 count, then int32-length keys and values. */
static bool has_extension(const struct ArrowSchema *s, const char *name)
{
    static const char key[] = "ARROW:extension:name";
    const char *m = s->metadata;
    if (!m)
        return false;
    int32_t n, klen, vlen;
    memcpy(&n, m, 4);
    m += 4;
    for (int32_t i = 0; i < n; i++) {
        memcpy(&klen, m, 4);
        const char *k = m + 4;
        memcpy(&vlen, k + klen, 4);
        const char *v = k + klen + 4;
        if ((size_t)klen == sizeof key - 1 && memcmp(k, key, (size_t)klen) == 0)
            return strlen(name) == (size_t)vlen && memcmp(v, name, (size_t)vlen) == 0;
        m = v + vlen;
    }
    return false;
}

/* A uuid column's 16 bytes as a uuid.UUID. */
static PyObject *uuid_value(const uint8_t *p)
{
    PyObject *bytes = PyBytes_FromStringAndSize((const char *)p, 16);
    PyObject *args = bytes ? PyTuple_New(0) : NULL;
    PyObject *kw = args ? Py_BuildValue("{s:O}", "bytes", bytes) : NULL;
    PyObject *out = kw ? PyObject_Call(uuid_type, args, kw) : NULL;
    Py_XDECREF(bytes);
    Py_XDECREF(args);
    Py_XDECREF(kw);
    return out;
}

static int64_t dictionary_index(const char *fmt, const struct ArrowArray *a, int64_t i)
{
    const void *b = a->buffers[1];
    switch (fmt[0]) {
    case 'c': return ((const int8_t *)b)[i];
    case 'C': return ((const uint8_t *)b)[i];
    case 's': return ((const int16_t *)b)[i];
    case 'S': return ((const uint16_t *)b)[i];
    case 'i': return ((const int32_t *)b)[i];
    case 'I': return ((const uint32_t *)b)[i];
    default: return ((const int64_t *)b)[i];
    }
}

/* Element i of a (i counts from the array's start; its offset is added
 * here). */
static PyObject *value_at(const struct ArrowSchema *s, const struct ArrowArray *a, int64_t i)
{
    const char *f = s->format;
    if (f[0] == 'n')
        Py_RETURN_NONE;
    int64_t j = a->offset + i;
    if (!is_valid(a, j))
        Py_RETURN_NONE;
    if (s->dictionary)
        return value_at(s->dictionary, a->dictionary, dictionary_index(f, a, j));
    const void *b = a->n_buffers > 1 ? a->buffers[1] : NULL;
    if (f[1] == '\0') {
        switch (f[0]) {
        case 'b': return PyBool_FromLong((((const uint8_t *)b)[j >> 3] >> (j & 7)) & 1);
        case 'c': return PyLong_FromLong(((const int8_t *)b)[j]);
        case 'C': return PyLong_FromLong(((const uint8_t *)b)[j]);
        case 's': return PyLong_FromLong(((const int16_t *)b)[j]);
        case 'S': return PyLong_FromLong(((const uint16_t *)b)[j]);
        case 'i': return PyLong_FromLong(((const int32_t *)b)[j]);
        case 'I': return PyLong_FromUnsignedLong(((const uint32_t *)b)[j]);
        case 'l': return PyLong_FromLongLong(((const int64_t *)b)[j]);
        case 'L': return PyLong_FromUnsignedLongLong(((const uint64_t *)b)[j]);
        case 'f': return PyFloat_FromDouble(((const float *)b)[j]);
        case 'g': return PyFloat_FromDouble(((const double *)b)[j]);
        case 'u': return bytes_value(a, j, false, true);
        case 'U': return bytes_value(a, j, true, true);
        case 'z': return bytes_value(a, j, false, false);
        case 'Z': return bytes_value(a, j, true, false);
        default: break;
        }
    } else if (f[0] == 'w' && f[1] == ':') {
        int width = atoi(f + 2);
        if (width == 16 && has_extension(s, "arrow.uuid"))
            return uuid_value((const uint8_t *)b + 16 * j);
        return PyBytes_FromStringAndSize((const char *)b + (int64_t)width * j, width);
    } else if (f[0] == 'd' && f[1] == ':') {
        return decimal_value(f, (const uint8_t *)b + 16 * j);
    } else if (strcmp(f, "tdD") == 0) {
        int y, m, d;
        civil_from_days(((const int32_t *)b)[j], &y, &m, &d);
        return PyDate_FromDate(y, m, d);
    } else if (strncmp(f, "ts", 2) == 0 && f[2] && f[3] == ':') {
        return timestamp_value(f, ((const int64_t *)b)[j]);
    } else if (strcmp(f, "tts") == 0 || strcmp(f, "ttm") == 0) {
        return time_value(f, ((const int32_t *)b)[j]);
    } else if (strcmp(f, "ttu") == 0 || strcmp(f, "ttn") == 0) {
        return time_value(f, ((const int64_t *)b)[j]);
    } else if (strcmp(f, "+s") == 0) {
        return struct_value(s, a, j);
    } else if (strcmp(f, "+l") == 0 || strcmp(f, "+L") == 0 || strcmp(f, "+m") == 0) {
        return list_value(s, a, j, f[1] == 'L', f[1] == 'm');
    }
    return PyErr_Format(PyExc_NotImplementedError,
                        "column '%s': Arrow format '%s' is not read "
                        "into Python values yet",
                        s->name ? s->name : "", f);
}

/* A module's attribute, imported once into *cache (borrowed). */
static PyObject *imported(PyObject **cache, const char *module, const char *attr)
{
    if (!*cache) {
        PyObject *mod = PyImport_ImportModule(module);
        if (!mod)
            return NULL;
        *cache = PyObject_GetAttrString(mod, attr);
        Py_DECREF(mod);
    }
    return *cache;
}

PyObject *hlpy_decimal_type(void)
{
    return imported(&decimal_type, "decimal", "Decimal");
}

PyObject *hlpy_uuid_type(void)
{
    return imported(&uuid_type, "uuid", "UUID");
}

static int values_init(void)
{
    if (!PyDateTimeAPI) {
        PyDateTime_IMPORT;
        if (!PyDateTimeAPI)
            return -1;
    }
    return hlpy_decimal_type() && hlpy_uuid_type() ? 0 : -1;
}

int hlpy_rows_append(PyObject *rows, const struct ArrowSchema *schema,
                     const struct ArrowArray *batch)
{
    if (values_init() < 0)
        return -1;
    if (strcmp(schema->format, "+s") != 0) {
        PyErr_Format(PyExc_ValueError, "a stream of '%s' batches, not of structs", schema->format);
        return -1;
    }
    for (int64_t i = 0; i < batch->length; i++) {
        PyObject *row = struct_value(schema, batch, batch->offset + i);
        if (!row || PyList_Append(rows, row) < 0) {
            Py_XDECREF(row);
            return -1;
        }
        Py_DECREF(row);
    }
    return 0;
}
