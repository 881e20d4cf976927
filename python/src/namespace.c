/* hoglake._hoglake.Namespace: one hl_namespace, its tables and views. */
#include "hlpy.h"

#include <structmember.h>

PyObject *hlpy_namespace_wrap(hl_namespace *ns, PyObject *name, PyObject *catalog)
{
    HlNamespace *self = PyObject_New(HlNamespace, &HlNamespace_Type);
    if (!self) {
        hl_namespace_free(ns);
        return NULL;
    }
    self->ns = ns;
    self->name = Py_NewRef(name);
    self->catalog = Py_NewRef(catalog);
    return (PyObject *)self;
}

static void namespace_dealloc(HlNamespace *self)
{
    hl_namespace_free(self->ns);
    Py_DECREF(self->name);
    Py_DECREF(self->catalog);
    PyObject_Free(self);
}

/* source.__arrow_c_schema__(): the capsule (returned) and its schema,
 * borrowed while the capsule lives; its destructor releases it. */
static PyObject *schema_capsule(PyObject *source, const struct ArrowSchema **schema)
{
    PyObject *capsule = PyObject_CallMethod(source, "__arrow_c_schema__", NULL);
    *schema = capsule ? hlpy_capsule_pointer(capsule, "arrow_schema") : NULL;
    if (capsule && !*schema) {
        hlpy_capsules_drop(capsule);
        capsule = NULL;
    }
    return capsule;
}

PyObject *hlpy_arrow_column_def(PyObject *module, PyObject *args, PyObject *kwargs)
{
    (void)module;
    static char *kwlist[] = {"type", "name", "nullable", NULL};
    PyObject *type;
    const char *name;
    int nullable;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "Osp", kwlist, &type, &name, &nullable))
        return NULL;
    const struct ArrowSchema *schema;
    PyObject *capsule = schema_capsule(type, &schema);
    if (!capsule)
        return NULL;
    char *json = NULL;
    struct hl_error err;
    hl_status st = hl_arrow_column_def(schema, name, nullable, &json, &err);
    Py_DECREF(capsule);
    if (st != HL_OK)
        return hlpy_raise(&err);
    return hlpy_json_take(json);
}

/* create_table from an Arrow schema (__arrow_c_schema__). */
static PyObject *create_table_arrow(HlNamespace *self, const char *name, PyObject *source,
                                    const char *props_text)
{
    const struct ArrowSchema *schema;
    PyObject *capsule = schema_capsule(source, &schema);
    if (!capsule)
        return NULL;
    struct hl_table_create_options o;
    hl_table_create_options_init(&o);
    o.properties_json = props_text;
    hl_table *table = NULL;
    struct hl_error err;
    hl_status st;
    HLPY_UNLOCKED(st = hl_namespace_create_table_arrow(self->ns, name, schema, &o, &table, &err));
    Py_DECREF(capsule);
    if (st != HL_OK)
        return hlpy_raise(&err);
    return hlpy_table_wrap(table, (PyObject *)self);
}

static PyObject *namespace_create_table(HlNamespace *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"name", "columns", "properties", NULL};
    const char *name;
    PyObject *columns, *properties = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "sO|O", kwlist, &name, &columns, &properties))
        return NULL;
    PyObject *props = properties == Py_None ? NULL : hlpy_json_dumps(properties);
    if (properties != Py_None && !props)
        return NULL;
    const char *props_text = props ? PyBytes_AS_STRING(props) : NULL;
    PyObject *out;
    if (PyObject_HasAttrString(columns, "__arrow_c_schema__")) {
        out = create_table_arrow(self, name, columns, props_text);
    } else {
        PyObject *cols = hlpy_json_dumps(columns);
        const char *cols_text = cols ? PyBytes_AS_STRING(cols) : NULL;
        hl_table *table = NULL;
        struct hl_error err;
        hl_status st = HL_OK;
        if (cols)
            HLPY_UNLOCKED(st =
                              hl_table_create(self->ns, name, cols_text, props_text, &table, &err));
        Py_XDECREF(cols);
        out = !cols         ? NULL
              : st != HL_OK ? hlpy_raise(&err)
                            : hlpy_table_wrap(table, (PyObject *)self);
    }
    Py_XDECREF(props);
    return out;
}

static PyObject *namespace_table(HlNamespace *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"name", NULL};
    const char *name;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "s", kwlist, &name))
        return NULL;
    hl_table *table = NULL;
    struct hl_error err;
    hl_status st;
    HLPY_UNLOCKED(st = hl_table_open(self->ns, name, &table, &err));
    if (st != HL_OK)
        return hlpy_raise(&err);
    return hlpy_table_wrap(table, (PyObject *)self);
}

static PyObject *namespace_create_view(HlNamespace *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"name", "sql", "dialect", NULL};
    const char *name, *sql, *dialect = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "ss|z", kwlist, &name, &sql, &dialect))
        return NULL;
    char *json = NULL;
    struct hl_error err;
    hl_status st;
    HLPY_UNLOCKED(st = hl_view_create(self->ns, name, sql, dialect, &json, &err));
    if (st != HL_OK)
        return hlpy_raise(&err);
    return hlpy_json_take(json);
}

static PyMethodDef namespace_methods[] = {
    {"create_table", (PyCFunction)(void (*)(void))namespace_create_table,
     METH_VARARGS | METH_KEYWORDS,
     "create_table(name, columns, properties=None) -> Table\n\ncolumns: an Arrow schema "
     "(any object with __arrow_c_schema__: a pyarrow schema, ...), or column definitions, a "
     "list of {'name', 'type', 'nullable'} dicts (hoglake.column builds one) or their JSON "
     "text. The table keeps the creation's snapshot as its DDL snapshot."},
    {"table", (PyCFunction)(void (*)(void))namespace_table, METH_VARARGS | METH_KEYWORDS,
     "table(name) -> Table\n\nOpens an existing table at the head (NotFoundError when "
     "missing)."},
    {"create_view", (PyCFunction)(void (*)(void))namespace_create_view,
     METH_VARARGS | METH_KEYWORDS, "create_view(name, sql, dialect=None) -> Record"},
    {NULL, NULL, 0, NULL},
};

static PyMemberDef namespace_members[] = {
    {"name", T_OBJECT_EX, offsetof(HlNamespace, name), READONLY, "The namespace's name."},
    {"catalog", T_OBJECT_EX, offsetof(HlNamespace, catalog), READONLY, "Its catalog."},
    {NULL, 0, 0, 0, NULL},
};

PyTypeObject HlNamespace_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "hoglake._hoglake.Namespace",
    .tp_basicsize = sizeof(HlNamespace),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A namespace, from Catalog.create_namespace or Catalog.namespace.",
    .tp_dealloc = (destructor)namespace_dealloc,
    .tp_methods = namespace_methods,
    .tp_members = namespace_members,
};
