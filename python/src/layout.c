/* expected_table_info=: a TableInfo record (or any object with its
 * attributes) back into the library's struct hl_table_details, for the
 * prepare to compare with a fresh read. Only the layout is taken (columns,
 * partition spec, sort order), which is all the comparison reads; strings
 * are borrowed from objects kept in a hold list. */
#include "hlpy.h"

#include <string.h>

/* Deeper than any table the catalog accepts; bounds a caller's cycle. */
#define LAYOUT_MAX_DEPTH 64

/* getattr(obj, name), kept alive by hold; NULL with an exception. */
static PyObject *held_attr(PyObject *obj, const char *name, PyObject *hold)
{
    PyObject *v = PyObject_GetAttrString(obj, name);
    if (v && PyList_Append(hold, v) < 0)
        Py_CLEAR(v);
    Py_XDECREF(v); /* hold keeps it */
    return v;
}

/* An int attribute; None reads as none_value. */
static int attr_i64(PyObject *obj, const char *name, int64_t none_value, PyObject *hold,
                    int64_t *out)
{
    PyObject *v = held_attr(obj, name, hold);
    if (!v)
        return -1;
    if (v == Py_None) {
        *out = none_value;
        return 0;
    }
    long long n = PyLong_AsLongLong(v);
    if (n == -1 && PyErr_Occurred())
        return -1;
    *out = n;
    return 0;
}

static int attr_bool(PyObject *obj, const char *name, PyObject *hold, bool *out)
{
    PyObject *v = held_attr(obj, name, hold);
    int truth = v ? PyObject_IsTrue(v) : -1;
    *out = truth == 1;
    return truth < 0 ? -1 : 0;
}

/* A str attribute (None: NULL), borrowed from hold. */
static int attr_text(PyObject *obj, const char *name, PyObject *hold, char **out)
{
    PyObject *v = held_attr(obj, name, hold);
    if (!v)
        return -1;
    const char *s = NULL;
    if (hlpy_optional_text(v, name, &s) < 0)
        return -1;
    *out = (char *)s; /* borrowed: layout_clear never frees a string */
    return 0;
}

/* A sequence attribute as a fast sequence (kept by hold) and its length. */
static PyObject *attr_items(PyObject *obj, const char *name, PyObject *hold, size_t *n)
{
    PyObject *v = held_attr(obj, name, hold);
    PyObject *seq =
        v ? PySequence_Fast(v, "expected_table_info: a field list must be a list") : NULL;
    if (seq && PyList_Append(hold, seq) < 0)
        Py_CLEAR(seq);
    Py_XDECREF(seq);
    *n = seq ? (size_t)PySequence_Fast_GET_SIZE(seq) : 0;
    return seq;
}

static void columns_free(struct hl_column *columns, size_t n)
{
    for (size_t i = 0; columns && i < n; i++)
        columns_free(columns[i].children, columns[i].nchildren);
    PyMem_Free(columns);
}

static int columns_take(PyObject *owner, PyObject *hold, int depth, struct hl_column **out,
                        size_t *n)
{
    *out = NULL;
    *n = 0;
    if (depth > LAYOUT_MAX_DEPTH) {
        PyErr_SetString(PyExc_ValueError, "expected_table_info: columns nest too deep");
        return -1;
    }
    size_t count;
    PyObject *seq = attr_items(owner, depth == 0 ? "columns" : "children", hold, &count);
    if (!seq)
        return -1;
    struct hl_column *cols = PyMem_Calloc(count ? count : 1, sizeof *cols);
    if (!cols) {
        PyErr_NoMemory();
        return -1;
    }
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < count; i++) {
        PyObject *c = PySequence_Fast_GET_ITEM(seq, (Py_ssize_t)i);
        struct hl_column *col = &cols[i];
        int64_t precision = 0, scale = 0;
        rc = attr_i64(c, "field_id", -1, hold, &col->field_id) < 0 ||
                     attr_text(c, "name", hold, &col->name) < 0 ||
                     attr_text(c, "type", hold, &col->type) < 0 ||
                     attr_bool(c, "nullable", hold, &col->nullable) < 0 ||
                     attr_i64(c, "precision", 0, hold, &precision) < 0 ||
                     attr_i64(c, "scale", 0, hold, &scale) < 0 ||
                     columns_take(c, hold, depth + 1, &col->children, &col->nchildren) < 0
                 ? -1
                 : 0;
        col->precision = (int)precision;
        col->scale = (int)scale;
    }
    if (rc < 0) {
        columns_free(cols, count);
        return -1;
    }
    *out = cols;
    *n = count;
    return 0;
}

static int partition_field_take(PyObject *f, PyObject *hold, void *out)
{
    struct hl_partition_field *p = out;
    return attr_i64(f, "source_field_id", -1, hold, &p->source_field_id) < 0 ||
                   attr_text(f, "transform", hold, &p->transform) < 0 ||
                   attr_i64(f, "transform_param", 0, hold, &p->transform_param) < 0
               ? -1
               : 0;
}

static int sort_field_take(PyObject *f, PyObject *hold, void *out)
{
    struct hl_sort_field *s = out;
    return attr_i64(f, "source_field_id", -1, hold, &s->source_field_id) < 0 ||
                   attr_bool(f, "descending", hold, &s->descending) < 0 ||
                   attr_bool(f, "nulls_first", hold, &s->nulls_first) < 0
               ? -1
               : 0;
}

/* The list attribute `name` of info as an array of *n structs of `size`
 * bytes (PyMem), each filled by take. */
static int fields_take(PyObject *info, const char *name, PyObject *hold, size_t size,
                       int (*take)(PyObject *, PyObject *, void *), void **out, size_t *n)
{
    *out = NULL;
    PyObject *seq = attr_items(info, name, hold, n);
    if (!seq)
        return -1;
    char *items = PyMem_Calloc(*n ? *n : 1, size);
    if (!items) {
        PyErr_NoMemory();
        return -1;
    }
    *out = items;
    for (size_t i = 0; i < *n; i++)
        if (take(PySequence_Fast_GET_ITEM(seq, (Py_ssize_t)i), hold, items + i * size) < 0)
            return -1;
    return 0;
}

void hlpy_layout_clear(struct hl_table_details *d)
{
    columns_free(d->columns, d->ncolumns);
    PyMem_Free(d->partition_fields);
    PyMem_Free(d->sort_fields);
    memset(d, 0, sizeof *d);
}

int hlpy_layout_from_info(PyObject *info, PyObject *hold, struct hl_table_details *out)
{
    memset(out, 0, sizeof *out);
    void *partition = NULL, *sort = NULL;
    int rc = attr_text(info, "name", hold, &out->name) < 0 ||
                     attr_i64(info, "spec_id", -1, hold, &out->spec_id) < 0 ||
                     attr_i64(info, "sort_id", -1, hold, &out->sort_id) < 0 ||
                     columns_take(info, hold, 0, &out->columns, &out->ncolumns) < 0 ||
                     fields_take(info, "partition_fields", hold, sizeof *out->partition_fields,
                                 partition_field_take, &partition, &out->npartition_fields) < 0 ||
                     fields_take(info, "sort_fields", hold, sizeof *out->sort_fields,
                                 sort_field_take, &sort, &out->nsort_fields) < 0
                 ? -1
                 : 0;
    out->partition_fields = partition;
    out->sort_fields = sort;
    if (rc < 0)
        hlpy_layout_clear(out);
    return rc;
}
