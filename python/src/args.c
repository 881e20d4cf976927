/* Optional arguments shared by the methods: None or a value. */
#include "hlpy.h"

int hlpy_optional_count(PyObject *obj, const char *what, long long *out)
{
    if (obj == Py_None)
        return 0;
    long long v = PyLong_AsLongLong(obj);
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (v < 0) {
        PyErr_Format(PyExc_ValueError, "%s must be >= 0 or None", what);
        return -1;
    }
    *out = v;
    return 0;
}

int hlpy_optional_text(PyObject *obj, const char *what, const char **out)
{
    *out = NULL;
    if (obj == Py_None)
        return 0;
    if (!PyUnicode_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s must be a str or None", what);
        return -1;
    }
    *out = PyUnicode_AsUTF8(obj);
    return *out ? 0 : -1;
}
