/* Plain Python data (a dict of lists; a list of dicts, transposed first)
 * built into one Arrow batch.
 *
 * A column the table has is typed by its definition: a scalar by its
 * catalog type (the library then converts the Arrow type made here to the
 * column's exact one, as for any producer), a list, struct or map by its
 * nesting, at any depth, nulls allowed at every level. A column the table
 * lacks is typed by its values, so that the library refuses it by name. */
#include "plain_scalar.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Each catalog type's kind: the Arrow type plain data hands the library
 * for it (json and variant take JSON text; the library converts integer
 * widths and timestamp units exactly, or refuses). */
static const struct {
    const char *type;
    enum kind kind;
} by_type[] = {
    {"boolean", K_BOOL},  {"int8", K_INT},        {"int16", K_INT},       {"int", K_INT},
    {"long", K_INT},      {"uint8", K_INT},       {"uint16", K_INT},      {"uint32", K_INT},
    {"uint64", K_UINT64}, {"float", K_FLOAT32},   {"double", K_FLOAT},    {"decimal", K_DEC},
    {"date", K_DATE},     {"time", K_TIME},       {"timestamp_s", K_TS},  {"timestamp_ms", K_TS},
    {"timestamp", K_TS},  {"timestamp_ns", K_TS}, {"timestamptz", K_TSZ}, {"string", K_STR},
    {"json", K_STR},      {"variant", K_STR},     {"uuid", K_UUID},       {"binary", K_BYTES},
    {"list", K_LIST},     {"struct", K_STRUCT},   {"map", K_MAP},
};

/* Raises InvalidArgumentError (a ValueError): a value of the wrong shape
 * for its column. Returns -1. */
static int shape_error(const char *fmt, ...)
{
    struct hl_error err = {.status = HL_ERR_INVALID_ARGUMENT};
    snprintf(err.code, sizeof err.code, "invalid_argument");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err.message, sizeof err.message, fmt, ap);
    va_end(ap);
    hlpy_raise(&err);
    return -1;
}

/* ---- a column's type ---- */

/* What one column (or nested field) is written as. */
struct coltype {
    const struct hl_column *def; /* the table's definition; NULL: typed by values */
    const char *type;
    enum kind kind;
    int precision, scale;
    bool nullable;
};

static int coltype_of_def(const char *path, const struct hl_column *def, struct coltype *t)
{
    *t = (struct coltype){.def = def,
                          .type = def->type,
                          .precision = def->precision,
                          .scale = def->scale,
                          .nullable = def->nullable};
    for (size_t i = 0; i < sizeof by_type / sizeof by_type[0]; i++) {
        if (strcmp(by_type[i].type, def->type) == 0) {
            t->kind = by_type[i].kind;
            return 0;
        }
    }
    return shape_error("column '%s' is a %s column, which plain data cannot write (use an "
                       "Arrow object)",
                       path, def->type);
}

/* A column the table lacks: the kind of every non-None value, ints
 * widening to floats. K_NONE when there is none. */
static int coltype_of_values(const char *path, PyObject *values, struct coltype *t)
{
    *t = (struct coltype){.kind = K_NONE, .precision = 38, .nullable = true};
    Py_ssize_t n = PySequence_Fast_GET_SIZE(values);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *v = PySequence_Fast_GET_ITEM(values, i);
        if (v == Py_None)
            continue;
        enum kind k = plain_kind_of(v);
        if (k == K_NONE || k >= K_LIST) {
            PyErr_Format(PyExc_TypeError,
                         "column '%s': a %.100s value; plain data holds bool, int, float, str, "
                         "bytes, date, time, datetime, Decimal, UUID and, in the table's list, "
                         "struct and map columns, lists and dicts",
                         path, Py_TYPE(v)->tp_name);
            return -1;
        }
        if (t->kind == K_NONE || t->kind == k || (t->kind == K_FLOAT && k == K_INT)) {
            t->kind = t->kind == K_NONE ? k : t->kind;
        } else if (t->kind == K_INT && k == K_FLOAT) {
            t->kind = K_FLOAT;
        } else {
            PyErr_Format(PyExc_TypeError, "column '%s' mixes %s and %.100s values", path,
                         plain_kind_takes(t->kind), Py_TYPE(v)->tp_name);
            return -1;
        }
    }
    return t->kind == K_DEC ? plain_decimal_scale(path, values, &t->scale) : 0;
}

/* Whether the definition has the children its type needs (count; -1:
 * any). */
static int def_children(const char *path, const struct coltype *t, long count)
{
    if (count < 0 || t->def->nchildren == (size_t)count)
        return 0;
    return shape_error("column '%s': the table's %s has %zu children, not %ld", path, t->type,
                       t->def->nchildren, count);
}

/* ---- nodes ---- */

static int build(const struct spot *at, const struct hl_column *def, const char *name,
                 PyObject *values, struct ArrowSchema *s, struct ArrowArray *a);

/* A child's spot: path + suffix. */
static char *child_path(const char *path, const char *sep, const char *name)
{
    size_t n = strlen(path) + strlen(sep) + strlen(name) + 1;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s%s%s", path, sep, name);
    else
        PyErr_NoMemory();
    return p;
}

/* Builds a child node of (s, a) from its definition and values. */
static int build_child(const char *path, const char *sep, const Py_ssize_t *rows,
                       const struct hl_column *def, PyObject *values, struct ArrowSchema *s,
                       struct ArrowArray *a)
{
    struct ArrowSchema *cs;
    struct ArrowArray *ca;
    char *cpath = child_path(path, sep, sep[0] == '.' ? def->name : "");
    if (!cpath || plain_node_child(s, a, &cs, &ca) < 0) {
        free(cpath);
        return -1;
    }
    struct spot at = {cpath, rows};
    int rc = build(&at, def, def->name, values, cs, ca);
    free(cpath);
    return rc;
}

/* Element rows: what a list or map flattens into, and each one's row. */
struct flat {
    PyObject *values; /* a list */
    Py_ssize_t *rows;
    Py_ssize_t cap;
};

static int flat_add(struct flat *f, PyObject *v, Py_ssize_t row)
{
    Py_ssize_t n = PyList_GET_SIZE(f->values);
    if (n == f->cap) {
        Py_ssize_t cap = f->cap ? f->cap * 2 : 16;
        Py_ssize_t *grown = realloc(f->rows, (size_t)cap * sizeof *grown);
        if (!grown) {
            PyErr_NoMemory();
            return -1;
        }
        f->rows = grown;
        f->cap = cap;
    }
    f->rows[n] = row;
    return PyList_Append(f->values, v);
}

static void flat_clear(struct flat *f)
{
    Py_XDECREF(f->values);
    free(f->rows);
}

/* A list's or map's offsets, filled as values flatten. */
static int32_t *offsets_new(struct ArrowArray *a, Py_ssize_t n)
{
    struct built *b = a->private_data;
    int32_t *off = calloc((size_t)n + 1, sizeof *off);
    if (!off)
        PyErr_NoMemory();
    b->buffers[1] = off;
    b->ptrs[1] = off;
    a->n_buffers = 2;
    return off;
}

static int offset_set(const struct spot *at, int32_t *off, Py_ssize_t i, Py_ssize_t total)
{
    if (total > INT32_MAX) {
        PyErr_Format(PyExc_OverflowError,
                     "column '%s' holds more than 2^31 elements; use an Arrow object", at->path);
        return -1;
    }
    off[i + 1] = (int32_t)total;
    return 0;
}

/* The wrong-shape message: what the column takes, what row i holds. */
static int wrong_value(const struct spot *at, const struct coltype *t, PyObject *v, Py_ssize_t i)
{
    return shape_error("column '%s': a %.100s value at row %zd; a %s column takes a %s", at->path,
                       Py_TYPE(v)->tp_name, row_of(at, i), t->type, plain_kind_takes(t->kind));
}

static int build_list(const struct spot *at, const struct coltype *t, PyObject *values,
                      struct ArrowSchema *s, struct ArrowArray *a)
{
    Py_ssize_t n = PySequence_Fast_GET_SIZE(values);
    int32_t *off = def_children(at->path, t, 1) == 0 && plain_node_validity(a, values) == 0
                       ? offsets_new(a, n)
                       : NULL;
    struct flat f = {PyList_New(0), NULL, 0};
    int rc = off && f.values ? 0 : -1;
    for (Py_ssize_t i = 0; rc == 0 && i < n; i++) {
        PyObject *v = PySequence_Fast_GET_ITEM(values, i);
        if (v != Py_None && !PyList_Check(v) && !PyTuple_Check(v)) {
            rc = wrong_value(at, t, v, i);
            break;
        }
        Py_ssize_t len = v == Py_None ? 0 : PySequence_Fast_GET_SIZE(v);
        for (Py_ssize_t j = 0; rc == 0 && j < len; j++)
            rc = flat_add(&f, PySequence_Fast_GET_ITEM(v, j), row_of(at, i));
        if (rc == 0)
            rc = offset_set(at, off, i, PyList_GET_SIZE(f.values));
    }
    if (rc == 0)
        rc = build_child(at->path, "[]", f.rows, &t->def->children[0], f.values, s, a);
    flat_clear(&f);
    return rc;
}

/* A map value's entries as (key, value) pairs: a dict's items, or the
 * pairs given. NULL with an exception. */
static PyObject *map_entries(const struct spot *at, const struct coltype *t, PyObject *v,
                             Py_ssize_t i)
{
    if (PyDict_Check(v))
        return PyDict_Items(v);
    if (!PyList_Check(v) && !PyTuple_Check(v)) {
        wrong_value(at, t, v, i);
        return NULL;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(v);
    for (Py_ssize_t j = 0; j < n; j++) {
        PyObject *pair = PySequence_Fast_GET_ITEM(v, j);
        if ((!PyTuple_Check(pair) && !PyList_Check(pair)) || PySequence_Fast_GET_SIZE(pair) != 2) {
            shape_error("column '%s': entry %zd at row %zd is a %.100s, not a (key, value) pair",
                        at->path, j, row_of(at, i), Py_TYPE(pair)->tp_name);
            return NULL;
        }
    }
    return Py_NewRef(v);
}

static int build_map(const struct spot *at, const struct coltype *t, PyObject *values,
                     struct ArrowSchema *s, struct ArrowArray *a)
{
    Py_ssize_t n = PySequence_Fast_GET_SIZE(values);
    int32_t *off = def_children(at->path, t, 2) == 0 && plain_node_validity(a, values) == 0
                       ? offsets_new(a, n)
                       : NULL;
    struct flat keys = {PyList_New(0), NULL, 0}, vals = {PyList_New(0), NULL, 0};
    int rc = off && keys.values && vals.values ? 0 : -1;
    for (Py_ssize_t i = 0; rc == 0 && i < n; i++) {
        PyObject *v = PySequence_Fast_GET_ITEM(values, i);
        PyObject *entries = v == Py_None ? NULL : map_entries(at, t, v, i);
        if (v != Py_None && !entries) {
            rc = -1;
            break;
        }
        Py_ssize_t len = entries ? PySequence_Fast_GET_SIZE(entries) : 0;
        for (Py_ssize_t j = 0; rc == 0 && j < len; j++) {
            PyObject *pair = PySequence_Fast_GET_ITEM(entries, j);
            PyObject *key = PySequence_Fast_GET_ITEM(pair, 0);
            if (key == Py_None)
                rc = shape_error("column '%s': a None key at row %zd (map keys are never null)",
                                 at->path, row_of(at, i));
            else if ((rc = flat_add(&keys, key, row_of(at, i))) == 0)
                rc = flat_add(&vals, PySequence_Fast_GET_ITEM(pair, 1), row_of(at, i));
        }
        Py_XDECREF(entries);
        if (rc == 0)
            rc = offset_set(at, off, i, PyList_GET_SIZE(keys.values));
    }
    /* The entries: a struct of key and value, never null. */
    struct ArrowSchema *es;
    struct ArrowArray *ea;
    if (rc == 0 && (rc = plain_node_child(s, a, &es, &ea)) == 0)
        rc = plain_node_init(es, ea, "+s", "entries", 0, 2);
    if (rc == 0) {
        ea->length = PyList_GET_SIZE(keys.values);
        ea->n_buffers = 1;
        rc = build_child(at->path, ".", keys.rows, &t->def->children[0], keys.values, es, ea);
    }
    if (rc == 0)
        rc = build_child(at->path, ".", vals.rows, &t->def->children[1], vals.values, es, ea);
    flat_clear(&keys);
    flat_clear(&vals);
    return rc;
}

/* Whether every key of row v names a field of the struct. */
static int struct_keys_known(const struct spot *at, const struct hl_column *def, PyObject *v,
                             Py_ssize_t i)
{
    Py_ssize_t pos = 0;
    PyObject *key, *value;
    while (PyDict_Next(v, &pos, &key, &value)) {
        const char *k = PyUnicode_Check(key) ? PyUnicode_AsUTF8(key) : NULL;
        if (!k && PyErr_Occurred())
            return -1;
        bool known = false;
        for (size_t f = 0; k && !known && f < def->nchildren; f++)
            known = strcmp(def->children[f].name, k) == 0;
        if (!known)
            return shape_error("column '%s': row %zd has %s%s%s, which the struct lacks", at->path,
                               row_of(at, i), k ? "a field '" : "a key not a str", k ? k : "",
                               k ? "'" : "");
    }
    return 0;
}

static int build_struct(const struct spot *at, const struct coltype *t, PyObject *values,
                        struct ArrowSchema *s, struct ArrowArray *a)
{
    if (plain_node_validity(a, values) < 0)
        return -1;
    a->n_buffers = 1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(values);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *v = PySequence_Fast_GET_ITEM(values, i);
        if (v != Py_None && !PyDict_Check(v))
            return wrong_value(at, t, v, i);
        if (v != Py_None && struct_keys_known(at, t->def, v, i) < 0)
            return -1;
    }
    for (size_t k = 0; k < t->def->nchildren; k++) {
        const struct hl_column *kid = &t->def->children[k];
        PyObject *field = PyList_New(n);
        for (Py_ssize_t i = 0; field && i < n; i++) {
            PyObject *v = PySequence_Fast_GET_ITEM(values, i);
            PyObject *x = v == Py_None ? NULL : PyDict_GetItemString(v, kid->name);
            PyList_SET_ITEM(field, i, Py_NewRef(x ? x : Py_None));
        }
        int rc = field ? build_child(at->path, ".", at->rows, kid, field, s, a) : -1;
        Py_XDECREF(field);
        if (rc < 0)
            return -1;
    }
    return 0;
}

/* A scalar column: every value of a kind its type takes. */
static int build_scalar(const struct spot *at, const struct coltype *t, PyObject *values,
                        struct ArrowSchema *s, struct ArrowArray *a)
{
    Py_ssize_t n = PySequence_Fast_GET_SIZE(values);
    for (Py_ssize_t i = 0; t->def && i < n; i++) {
        PyObject *v = PySequence_Fast_GET_ITEM(values, i);
        if (v != Py_None && !plain_takes(t->kind, plain_kind_of(v))) {
            PyErr_Format(PyExc_TypeError,
                         "column '%s': a %.100s value at row %zd; a %s column takes %s", at->path,
                         Py_TYPE(v)->tp_name, row_of(at, i), t->type, plain_kind_takes(t->kind));
            return -1;
        }
    }
    if (t->kind == K_DEC) {
        char *format = malloc(24);
        if (!format) {
            PyErr_NoMemory();
            return -1;
        }
        snprintf(format, 24, "d:%d,%d", t->precision, t->scale);
        s->format = format;
        s->private_data = format;
    }
    return plain_fill_scalar(at, values, t->kind, t->precision, t->scale, a);
}

/* One column or field, named name, from its definition (NULL: typed by
 * its values) and values (a list or tuple). */
static int build(const struct spot *at, const struct hl_column *def, const char *name,
                 PyObject *values, struct ArrowSchema *s, struct ArrowArray *a)
{
    struct coltype t;
    if (def ? coltype_of_def(at->path, def, &t) < 0 : coltype_of_values(at->path, values, &t) < 0)
        return -1;
    size_t nkids = t.kind == K_STRUCT                    ? def->nchildren
                   : t.kind == K_LIST || t.kind == K_MAP ? 1
                                                         : 0;
    int64_t flags = t.nullable ? ARROW_FLAG_NULLABLE : 0;
    if (plain_node_init(s, a, plain_kind_format(t.kind), name, flags, nkids) < 0)
        return -1;
    switch (t.kind) {
    case K_LIST: return build_list(at, &t, values, s, a);
    case K_MAP: return build_map(at, &t, values, s, a);
    case K_STRUCT: return build_struct(at, &t, values, s, a);
    default: return build_scalar(at, &t, values, s, a);
    }
}

/* ---- the batch ---- */

/* The table's definition of the column named name (NULL: none). */
static const struct hl_column *column_def(const struct hl_table_details *def, const char *name)
{
    for (size_t i = 0; def && i < def->ncolumns; i++)
        if (strcmp(def->columns[i].name, name) == 0)
            return &def->columns[i];
    return NULL;
}

static bool all_none(PyObject *seq)
{
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); i++)
        if (PySequence_Fast_GET_ITEM(seq, i) != Py_None)
            return false;
    return true;
}

/* Adds one column to the batch. */
static int add_column(PyObject *key, PyObject *values, Py_ssize_t nrows,
                      const struct hl_table_details *def, struct ArrowSchema *schema,
                      struct ArrowArray *array)
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
    int rc = 0;
    if (PySequence_Fast_GET_SIZE(seq) != nrows) {
        PyErr_Format(PyExc_ValueError, "column '%s' has %zd values, the first column %zd", name,
                     PySequence_Fast_GET_SIZE(seq), nrows);
        rc = -1;
    } else if (!all_none(seq)) { /* else left out, so that the table's nulls apply */
        struct ArrowSchema *cs;
        struct ArrowArray *ca;
        struct spot at = {name, NULL};
        rc = plain_node_child(schema, array, &cs, &ca);
        if (rc == 0)
            rc = build(&at, column_def(def, name), name, seq, cs, ca);
    }
    Py_DECREF(seq);
    return rc;
}

/* A dict of lists as one batch. */
static int from_columns(PyObject *data, const struct hl_table_details *def,
                        struct ArrowArrayStream *out)
{
    struct ArrowSchema schema = {0};
    struct ArrowArray array = {0};
    Py_ssize_t ncols = PyDict_GET_SIZE(data);
    if (plain_node_init(&schema, &array, "+s", "", 0, ncols ? (size_t)ncols : 1) < 0) {
        if (schema.release)
            schema.release(&schema);
        if (array.release)
            array.release(&array);
        return -1;
    }
    array.n_buffers = 1; /* no validity bitmap: every row is valid */
    Py_ssize_t pos = 0, nrows = -1;
    PyObject *key, *values;
    while (PyDict_Next(data, &pos, &key, &values)) {
        if (nrows < 0 && (nrows = PyObject_Length(values)) < 0)
            break;
        if (add_column(key, values, nrows, def, &schema, &array) < 0)
            break;
    }
    if (PyErr_Occurred()) {
        schema.release(&schema);
        array.release(&array);
        return -1;
    }
    array.length = nrows < 0 ? 0 : nrows;
    return hlpy_one_batch_stream(&schema, &array, out);
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

int hlpy_stream_from_plain(PyObject *data, const struct hl_table_details *def,
                           struct ArrowArrayStream *out)
{
    if (plain_init() < 0)
        return -1;
    if (PyDict_Check(data))
        return from_columns(data, def, out);
    PyObject *cols = rows_to_columns(data);
    int rc = cols ? from_columns(cols, def, out) : -1;
    Py_XDECREF(cols);
    return rc;
}
