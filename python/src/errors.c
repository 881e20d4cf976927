/* Library errors as Python exceptions, and JSON text as Python values. */
#include "hlpy.h"

/* Set once by _register (hoglake/__init__.py): status name -> class. */
static PyObject *error_classes;
static PyObject *base_error;
static PyObject *record_type;
static PyObject *json_loads;
static PyObject *json_dumps;
static PyObject *unguarded;

PyObject *hlpy_register(PyObject *module, PyObject *args, PyObject *kwargs)
{
    (void)module;
    static char *kwlist[] = {"errors", "base", "record", "unguarded", NULL};
    PyObject *errors, *base, *record, *sentinel;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O!OOO", kwlist, &PyDict_Type, &errors, &base,
                                     &record, &sentinel))
        return NULL;
    PyObject *json = PyImport_ImportModule("json");
    if (!json)
        return NULL;
    PyObject *loads = PyObject_GetAttrString(json, "loads");
    PyObject *dumps = PyObject_GetAttrString(json, "dumps");
    Py_DECREF(json);
    if (!loads || !dumps) {
        Py_XDECREF(loads);
        Py_XDECREF(dumps);
        return NULL;
    }
    Py_XSETREF(json_loads, loads);
    Py_XSETREF(json_dumps, dumps);
    Py_XSETREF(error_classes, Py_NewRef(errors));
    Py_XSETREF(base_error, Py_NewRef(base));
    Py_XSETREF(record_type, Py_NewRef(record));
    Py_XSETREF(unguarded, Py_NewRef(sentinel));
    Py_RETURN_NONE;
}

bool hlpy_is_unguarded(PyObject *obj)
{
    return unguarded && obj == unguarded;
}

PyObject *hlpy_raise(const struct hl_error *err)
{
    if (!base_error) {
        PyErr_Format(PyExc_RuntimeError, "%s: %s", err->code, err->message);
        return NULL;
    }
    const char *name = hl_status_name(err->status);
    PyObject *cls = PyDict_GetItemString(error_classes, name); /* borrowed */
    if (!cls)
        cls = base_error;
    const char *detail = err->message[0] ? err->message : name;
    PyObject *args = Py_BuildValue("(s)", detail);
    PyObject *kw = Py_BuildValue("{s:s,s:s,s:i,s:O,s:O}", "status", name, "code",
                                 err->code[0] ? err->code : name, "http_status", err->http_status,
                                 "retryable", err->retryable ? Py_True : Py_False, "re_prepare",
                                 err->re_prepare ? Py_True : Py_False);
    if (args && kw) {
        PyObject *exc = PyObject_Call(cls, args, kw);
        if (exc) {
            PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
            Py_DECREF(exc);
        }
    }
    Py_XDECREF(args);
    Py_XDECREF(kw);
    return NULL;
}

PyObject *hlpy_snapshot_or_raise(hl_status st, int64_t snapshot, const struct hl_error *err)
{
    return st == HL_OK ? PyLong_FromLongLong(snapshot) : hlpy_raise(err);
}

PyObject *hlpy_json_parse(const char *text)
{
    if (!json_loads) {
        PyErr_SetString(PyExc_RuntimeError, "hoglake._hoglake is not initialised");
        return NULL;
    }
    PyObject *s = PyUnicode_FromString(text ? text : "null");
    if (!s)
        return NULL;
    PyObject *args = PyTuple_Pack(1, s);
    Py_DECREF(s);
    PyObject *kw = Py_BuildValue("{s:O}", "object_hook", record_type);
    PyObject *out = args && kw ? PyObject_Call(json_loads, args, kw) : NULL;
    Py_XDECREF(args);
    Py_XDECREF(kw);
    return out;
}

PyObject *hlpy_record(PyObject *dict)
{
    if (!record_type) {
        PyErr_SetString(PyExc_RuntimeError, "hoglake._hoglake is not initialised");
        return NULL;
    }
    return PyObject_CallOneArg(record_type, dict);
}

PyObject *hlpy_json_take(char *text)
{
    PyObject *out = hlpy_json_parse(text);
    free(text);
    return out;
}

PyObject *hlpy_json_dumps(PyObject *obj)
{
    if (PyUnicode_Check(obj))
        return PyUnicode_AsUTF8String(obj);
    if (!json_dumps) {
        PyErr_SetString(PyExc_RuntimeError, "hoglake._hoglake is not initialised");
        return NULL;
    }
    PyObject *s = PyObject_CallOneArg(json_dumps, obj);
    if (!s)
        return NULL;
    PyObject *b = PyUnicode_AsUTF8String(s);
    Py_DECREF(s);
    return b;
}
