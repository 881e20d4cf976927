/* The append result: AppendResult(snapshot_id, schema_version, files) and
 * AppendedFile(path, record_count, file_size_bytes, partition_values),
 * named tuples with attributes. */
#include "hlpy.h"

static PyTypeObject *result_type;
static PyTypeObject *file_type;

static PyStructSequence_Field result_fields[] = {
    {"snapshot_id", "the commit's snapshot; None when there was nothing to append"},
    {"schema_version", "the table's schema version the files were written at"},
    {"files", "the files written, as AppendedFile"},
    {NULL, NULL},
};

static PyStructSequence_Field file_fields[] = {
    {"path", "the object's path"},
    {"record_count", "rows in the file"},
    {"file_size_bytes", "the file's size"},
    {"partition_values", "the partition tuple as wire strings (None for null), or ()"},
    {NULL, NULL},
};

static PyStructSequence_Desc result_desc = {"hoglake.AppendResult", "What one append committed.",
                                            result_fields, 3};
static PyStructSequence_Desc file_desc = {"hoglake.AppendedFile", "One file an append wrote.",
                                          file_fields, 4};

int hlpy_results_init(PyObject *module)
{
    result_type = PyStructSequence_NewType(&result_desc);
    file_type = PyStructSequence_NewType(&file_desc);
    if (!result_type || !file_type)
        return -1;
    if (PyModule_AddObjectRef(module, "AppendResult", (PyObject *)result_type) < 0 ||
        PyModule_AddObjectRef(module, "AppendedFile", (PyObject *)file_type) < 0)
        return -1;
    return 0;
}

static PyObject *file_record(const struct hl_appended_file *f)
{
    PyObject *values = PyTuple_New((Py_ssize_t)f->npartition_values);
    for (size_t i = 0; values && i < f->npartition_values; i++) {
        const char *v = f->partition_values[i];
        PyObject *item = v ? PyUnicode_FromString(v) : Py_NewRef(Py_None);
        if (!item)
            Py_CLEAR(values);
        else
            PyTuple_SET_ITEM(values, (Py_ssize_t)i, item);
    }
    PyObject *rec = values ? PyStructSequence_New(file_type) : NULL;
    PyObject *path = rec ? PyUnicode_FromString(f->path) : NULL;
    PyObject *count = path ? PyLong_FromLongLong(f->record_count) : NULL;
    PyObject *size = count ? PyLong_FromLongLong(f->file_size_bytes) : NULL;
    if (!size) {
        Py_XDECREF(values);
        Py_XDECREF(rec);
        Py_XDECREF(path);
        Py_XDECREF(count);
        return NULL;
    }
    PyStructSequence_SET_ITEM(rec, 0, path);
    PyStructSequence_SET_ITEM(rec, 1, count);
    PyStructSequence_SET_ITEM(rec, 2, size);
    PyStructSequence_SET_ITEM(rec, 3, values);
    return rec;
}

PyObject *hlpy_append_result(const struct hl_append_result *r)
{
    PyObject *files = PyList_New((Py_ssize_t)r->nfiles);
    for (size_t i = 0; files && i < r->nfiles; i++) {
        PyObject *f = file_record(&r->files[i]);
        if (!f)
            Py_CLEAR(files);
        else
            PyList_SET_ITEM(files, (Py_ssize_t)i, f);
    }
    PyObject *rec = files ? PyStructSequence_New(result_type) : NULL;
    PyObject *snap =
        rec ? (r->snapshot_id < 0 ? Py_NewRef(Py_None) : PyLong_FromLongLong(r->snapshot_id))
            : NULL;
    PyObject *version = snap ? PyLong_FromLongLong(r->schema_version) : NULL;
    if (!version) {
        Py_XDECREF(files);
        Py_XDECREF(rec);
        Py_XDECREF(snap);
        return NULL;
    }
    PyStructSequence_SET_ITEM(rec, 0, snap);
    PyStructSequence_SET_ITEM(rec, 1, version);
    PyStructSequence_SET_ITEM(rec, 2, files);
    return rec;
}
