/* hoglake._hoglake.Client: one hl_client (server URL, token, object store). */
#include "hlpy.h"

static int client_init(HlClient *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"server_url",        "token",
                             "s3_endpoint",       "s3_region",
                             "s3_access_key",     "s3_secret_key",
                             "s3_session_token",  "ca_file",
                             "timeout_ms",        "connect_timeout_ms",
                             "streaming_uploads", NULL};
    struct hl_client_options o = {0};
    int streaming = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "s|zzzzzzzllp", kwlist, &o.server_url, &o.token,
                                     &o.s3_endpoint, &o.s3_region, &o.s3_access_key,
                                     &o.s3_secret_key, &o.s3_session_token, &o.ca_file,
                                     &o.timeout_ms, &o.connect_timeout_ms, &streaming))
        return -1;
    o.streaming_uploads = streaming != 0;
    if (self->client) {
        PyErr_SetString(PyExc_RuntimeError, "Client is already initialised");
        return -1;
    }
    struct hl_error err;
    if (hl_client_new(&o, &self->client, &err) != HL_OK) {
        hlpy_raise(&err);
        return -1;
    }
    return 0;
}

static void client_dealloc(HlClient *self)
{
    hl_client_free(self->client);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* The client, or NULL with an exception when __init__ never ran. */
static hl_client *client_of(HlClient *self)
{
    if (!self->client)
        PyErr_SetString(PyExc_RuntimeError, "Client.__init__ was not called");
    return self->client;
}

static PyObject *client_create_catalog(HlClient *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"name", "data_path", NULL};
    const char *name, *data_path;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "ss", kwlist, &name, &data_path))
        return NULL;
    hl_client *c = client_of(self);
    if (!c)
        return NULL;
    hl_catalog *cat = NULL;
    struct hl_error err;
    hl_status st;
    HLPY_UNLOCKED(st = hl_catalog_create(c, name, data_path, &cat, &err));
    if (st != HL_OK)
        return hlpy_raise(&err);
    return hlpy_catalog_wrap(cat, (PyObject *)self);
}

static PyObject *client_catalog(HlClient *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"name", NULL};
    const char *name;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "s", kwlist, &name))
        return NULL;
    hl_client *c = client_of(self);
    if (!c)
        return NULL;
    hl_catalog *cat = NULL;
    struct hl_error err;
    hl_status st;
    HLPY_UNLOCKED(st = hl_catalog_open(c, name, &cat, &err));
    if (st != HL_OK)
        return hlpy_raise(&err);
    return hlpy_catalog_wrap(cat, (PyObject *)self);
}

static PyObject *client_list_catalogs(HlClient *self, PyObject *unused)
{
    (void)unused;
    hl_client *c = client_of(self);
    if (!c)
        return NULL;
    char *json = NULL;
    struct hl_error err;
    hl_status st;
    HLPY_UNLOCKED(st = hl_catalogs_list(c, &json, &err));
    if (st != HL_OK)
        return hlpy_raise(&err);
    return hlpy_json_take(json);
}

static PyMethodDef client_methods[] = {
    {"create_catalog", (PyCFunction)(void (*)(void))client_create_catalog,
     METH_VARARGS | METH_KEYWORDS,
     "create_catalog(name, data_path) -> Catalog\n\nCreates a catalog whose data goes under "
     "data_path (s3://bucket/prefix or file:///dir)."},
    {"catalog", (PyCFunction)(void (*)(void))client_catalog, METH_VARARGS | METH_KEYWORDS,
     "catalog(name) -> Catalog\n\nOpens an existing catalog (NotFoundError when missing)."},
    {"list_catalogs", (PyCFunction)client_list_catalogs, METH_NOARGS,
     "list_catalogs() -> list[Record]\n\nEvery catalog the server holds."},
    {NULL, NULL, 0, NULL},
};

PyTypeObject HlClient_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "hoglake._hoglake.Client",
    .tp_basicsize = sizeof(HlClient),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "Client(server_url, token=None, s3_endpoint=None, s3_region=None, "
              "s3_access_key=None, s3_secret_key=None, s3_session_token=None, ca_file=None, "
              "timeout_ms=0, connect_timeout_ms=0)\n\nA connection to one hoglake server.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)client_init,
    .tp_dealloc = (destructor)client_dealloc,
    .tp_methods = client_methods,
};
