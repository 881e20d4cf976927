/* The hoglake._hoglake module: its types and the registration hook
 * hoglake/__init__.py calls with the exception classes it defines. */
#include "hlpy.h"

static PyMethodDef module_methods[] = {
    {"_register", (PyCFunction)(void (*)(void))hlpy_register, METH_VARARGS | METH_KEYWORDS,
     "_register(errors, base, record): the exception class of each status name, the base "
     "class, and the type JSON objects become. Called once by hoglake/__init__.py."},
    {"_arrow_column_def", (PyCFunction)(void (*)(void))hlpy_arrow_column_def,
     METH_VARARGS | METH_KEYWORDS,
     "_arrow_column_def(type, name, nullable) -> dict: the ColumnDef of an Arrow type "
     "(an object with __arrow_c_schema__), as ops.add_column sends it."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "hoglake._hoglake",
    .m_doc = "The C core of the hoglake client: libhoglake's handles as Python objects.",
    .m_size = -1,
    .m_methods = module_methods,
};

PyMODINIT_FUNC PyInit__hoglake(void)
{
    PyTypeObject *types[] = {&HlClient_Type, &HlCatalog_Type, &HlNamespace_Type,
                             &HlTable_Type,  &HlReader_Type,  &HlSnapshots_Type};
    const char *names[] = {"Client", "Catalog", "Namespace", "Table", "Reader", "Snapshots"};
    PyObject *m = PyModule_Create(&module_def);
    if (!m)
        return NULL;
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        if (PyType_Ready(types[i]) < 0 ||
            PyModule_AddObjectRef(m, names[i], (PyObject *)types[i]) < 0) {
            Py_DECREF(m);
            return NULL;
        }
    }
    if (hlpy_records_init(m) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
