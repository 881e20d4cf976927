/* hoglake._hoglake.Catalog: one hl_catalog, its namespaces, snapshots and
 * consumer offsets. */
#include "hlpy.h"

PyObject *hlpy_catalog_wrap(hl_catalog *catalog, PyObject *client)
{
    HlCatalog *self = PyObject_New(HlCatalog, &HlCatalog_Type);
    if (!self) {
        hl_catalog_free(catalog);
        return NULL;
    }
    self->catalog = catalog;
    self->client = Py_NewRef(client);
    return (PyObject *)self;
}

static void catalog_dealloc(HlCatalog *self)
{
    hl_catalog_free(self->catalog);
    Py_DECREF(self->client);
    PyObject_Free(self);
}

static PyObject *catalog_get_name(HlCatalog *self, void *closure)
{
    (void)closure;
    return PyUnicode_FromString(hl_catalog_name(self->catalog));
}

static PyObject *catalog_get_data_path(HlCatalog *self, void *closure)
{
    (void)closure;
    return PyUnicode_FromString(hl_catalog_data_path(self->catalog));
}

/* create_namespace and namespace: one handle call, the same wrapping. */
static PyObject *catalog_ns_call(HlCatalog *self, PyObject *args, PyObject *kwargs,
                                 hl_status (*call)(hl_catalog *, const char *, hl_namespace **,
                                                   struct hl_error *))
{
    static char *kwlist[] = {"name", NULL};
    PyObject *name;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "U", kwlist, &name))
        return NULL;
    const char *s = PyUnicode_AsUTF8(name);
    if (!s)
        return NULL;
    hl_namespace *ns = NULL;
    struct hl_error err;
    hl_status st;
    HLPY_UNLOCKED(st = call(self->catalog, s, &ns, &err));
    if (st != HL_OK)
        return hlpy_raise(&err);
    return hlpy_namespace_wrap(ns, name, (PyObject *)self);
}

static PyObject *catalog_create_namespace(HlCatalog *self, PyObject *args, PyObject *kwargs)
{
    return catalog_ns_call(self, args, kwargs, hl_namespace_create);
}

static PyObject *catalog_namespace(HlCatalog *self, PyObject *args, PyObject *kwargs)
{
    return catalog_ns_call(self, args, kwargs, hl_namespace_open);
}

static PyObject *catalog_refresh(HlCatalog *self, PyObject *unused)
{
    (void)unused;
    char *json = NULL;
    struct hl_error err;
    hl_status st;
    HLPY_UNLOCKED(st = hl_catalog_info(self->catalog, &json, &err));
    if (st != HL_OK)
        return hlpy_raise(&err);
    return hlpy_json_take(json);
}

static PyObject *catalog_commit_offset(HlCatalog *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"consumer_id", "table_uuid", "snapshot_id", NULL};
    const char *consumer, *table_uuid;
    long long snapshot;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "ssL", kwlist, &consumer, &table_uuid,
                                     &snapshot))
        return NULL;
    struct hl_error err;
    hl_status st;
    HLPY_UNLOCKED(
        st = hl_catalog_commit_offset(self->catalog, consumer, table_uuid, snapshot, &err));
    if (st != HL_OK)
        return hlpy_raise(&err);
    Py_RETURN_NONE;
}

static PyObject *catalog_offset(HlCatalog *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"consumer_id", "table_uuid", NULL};
    const char *consumer, *table_uuid;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "ss", kwlist, &consumer, &table_uuid))
        return NULL;
    int64_t snapshot = -1;
    struct hl_error err;
    hl_status st;
    HLPY_UNLOCKED(st = hl_catalog_offset(self->catalog, consumer, table_uuid, &snapshot, &err));
    if (st != HL_OK)
        return hlpy_raise(&err);
    if (snapshot < 0)
        Py_RETURN_NONE;
    return PyLong_FromLongLong(snapshot);
}

static PyObject *catalog_snapshots(HlCatalog *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"after", "before", "limit", NULL};
    long long after = 0;
    PyObject *before_obj = Py_None;
    int limit = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|$LOi", kwlist, &after, &before_obj, &limit))
        return NULL;
    long long before = -1;
    if (hlpy_optional_count(before_obj, "before", &before) < 0)
        return NULL;
    if (before >= 0 && after != 0) {
        PyErr_SetString(PyExc_ValueError, "before excludes a non-zero after");
        return NULL;
    }
    if (after < 0 || limit < 0) {
        PyErr_SetString(PyExc_ValueError, "after and limit must be >= 0");
        return NULL;
    }
    hl_snapshot_iter *it = NULL;
    struct hl_error err;
    hl_status st;
    HLPY_UNLOCKED(st = hl_snapshot_iter_new(self->catalog, after, before, limit, &it, &err));
    if (st != HL_OK)
        return hlpy_raise(&err);
    return hlpy_snapshots_new(it, (PyObject *)self);
}

static PyObject *catalog_resolve_snapshot(HlCatalog *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"at_timestamp", NULL};
    PyObject *ts;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O", kwlist, &ts))
        return NULL;
    struct hl_at at;
    PyObject *hold;
    if (ts == Py_None) {
        PyErr_SetString(PyExc_TypeError, "resolve_snapshot needs an instant");
        return NULL;
    }
    if (hlpy_at_parse(Py_None, ts, &at, &hold) < 0)
        return NULL;
    struct hl_snapshot snap = {0};
    struct hl_error err;
    hl_status st;
    HLPY_UNLOCKED(st = hl_catalog_resolve_snapshot(self->catalog, at.at_timestamp, &snap, &err));
    Py_DECREF(hold);
    if (st != HL_OK)
        return hlpy_raise(&err);
    PyObject *d =
        Py_BuildValue("{s:L,s:L,s:s}", "snapshot_id", (long long)snap.snapshot_id, "schema_version",
                      (long long)snap.schema_version, "snapshot_time", snap.snapshot_time);
    hl_snapshot_clear(&snap);
    if (!d)
        return NULL;
    PyObject *rec = hlpy_record(d);
    Py_DECREF(d);
    return rec;
}

static PyObject *catalog_set_retention(HlCatalog *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"seconds", "consumer_floor", NULL};
    PyObject *seconds_obj, *floor_obj = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|O", kwlist, &seconds_obj, &floor_obj))
        return NULL;
    long long seconds = -1; /* None disables retention */
    if (hlpy_optional_count(seconds_obj, "seconds", &seconds) < 0)
        return NULL;
    int floor = -1;
    if (floor_obj != Py_None && (floor = PyObject_IsTrue(floor_obj)) < 0)
        return NULL;
    char *json = NULL;
    struct hl_error err;
    hl_status st;
    HLPY_UNLOCKED(st = hl_catalog_set_retention(self->catalog, seconds, floor, &json, &err));
    if (st != HL_OK)
        return hlpy_raise(&err);
    return hlpy_json_take(json);
}

static PyObject *catalog_commit_prepared(HlCatalog *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"payload", NULL};
    const char *payload;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "s", kwlist, &payload))
        return NULL;
    int64_t snapshot = -1;
    struct hl_error err;
    hl_status st;
    HLPY_UNLOCKED(st = hl_catalog_commit_prepared(self->catalog, payload, &snapshot, &err));
    return hlpy_snapshot_or_raise(st, snapshot, &err);
}

/* The maintenance calls' batch= argument; -1 with an exception. */
static int maintenance_options(PyObject *args, PyObject *kwargs, struct hl_maintenance_options *o)
{
    static char *kwlist[] = {"batch", NULL};
    PyObject *batch = Py_None;
    hl_maintenance_options_init(o);
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|$O", kwlist, &batch))
        return -1;
    long long n = 0;
    if (hlpy_optional_count(batch, "batch", &n) < 0)
        return -1;
    o->batch = n;
    return 0;
}

/* A result dict as a record, or NULL. */
static PyObject *record_of(PyObject *dict)
{
    if (!dict)
        return NULL;
    PyObject *rec = hlpy_record(dict);
    Py_DECREF(dict);
    return rec;
}

static PyObject *catalog_expire(HlCatalog *self, PyObject *args, PyObject *kwargs)
{
    struct hl_maintenance_options o;
    if (maintenance_options(args, kwargs, &o) < 0)
        return NULL;
    struct hl_expire_result r = {0};
    struct hl_error err;
    hl_status st;
    HLPY_UNLOCKED(st = hl_catalog_expire(self->catalog, &o, &r, &err));
    if (st != HL_OK)
        return hlpy_raise(&err);
    return record_of(Py_BuildValue(
        "{s:L,s:L,s:L,s:L,s:O,s:L,s:O}", "snapshots_expired", (long long)r.snapshots_expired,
        "data_files_queued", (long long)r.data_files_queued, "delete_files_queued",
        (long long)r.delete_files_queued, "new_earliest_snapshot_id",
        (long long)r.new_earliest_snapshot_id, "floored_by_consumer",
        r.floored_by_consumer ? Py_True : Py_False, "offsets_released",
        (long long)r.offsets_released, "purge_truncated", r.purge_truncated ? Py_True : Py_False));
}

static PyObject *catalog_cleanup(HlCatalog *self, PyObject *args, PyObject *kwargs)
{
    struct hl_maintenance_options o;
    if (maintenance_options(args, kwargs, &o) < 0)
        return NULL;
    struct hl_cleanup_result r = {0};
    struct hl_error err;
    hl_status st;
    HLPY_UNLOCKED(st = hl_catalog_cleanup(self->catalog, &o, &r, &err));
    if (st != HL_OK)
        return hlpy_raise(&err);
    return record_of(Py_BuildValue("{s:L,s:L,s:L,s:L,s:L}", "removed", (long long)r.removed,
                                   "missing", (long long)r.missing, "still_referenced",
                                   (long long)r.still_referenced, "refused", (long long)r.refused,
                                   "failed", (long long)r.failed));
}

static PyObject *catalog_hydrate(HlCatalog *self, PyObject *args, PyObject *kwargs)
{
    struct hl_maintenance_options o;
    if (maintenance_options(args, kwargs, &o) < 0)
        return NULL;
    struct hl_hydrate_result r = {0};
    struct hl_error err;
    hl_status st;
    HLPY_UNLOCKED(st = hl_catalog_hydrate(self->catalog, &o, &r, &err));
    if (st != HL_OK)
        return hlpy_raise(&err);
    return record_of(Py_BuildValue("{s:L,s:L,s:L,s:L}", "hydrated", (long long)r.hydrated, "failed",
                                   (long long)r.failed, "transient_errors",
                                   (long long)r.transient_errors, "still_pending",
                                   (long long)r.still_pending));
}

static PyMethodDef catalog_methods[] = {
    {"expire", (PyCFunction)(void (*)(void))catalog_expire, METH_VARARGS | METH_KEYWORDS,
     "expire(*, batch=None) -> Record\n\nExpires the snapshots below the retention window now "
     "(snapshots_expired, new_earliest_snapshot_id, ...)."},
    {"cleanup", (PyCFunction)(void (*)(void))catalog_cleanup, METH_VARARGS | METH_KEYWORDS,
     "cleanup(*, batch=None) -> Record\n\nDeletes the queued objects nothing references "
     "(removed, missing, refused, failed, ...)."},
    {"hydrate", (PyCFunction)(void (*)(void))catalog_hydrate, METH_VARARGS | METH_KEYWORDS,
     "hydrate(*, batch=None) -> Record\n\nFills the statistics of files appended with "
     "deferred_stats (hydrated, failed, still_pending, ...)."},
    {"commit_prepared", (PyCFunction)(void (*)(void))catalog_commit_prepared,
     METH_VARARGS | METH_KEYWORDS,
     "commit_prepared(payload) -> int\n\nPublishes a payload Table.prepare_append made, from "
     "any process (idempotent). Prefer Table.commit_prepared, which also drops the table's "
     "writer cache on a re_prepare refusal; here that is the caller's (Table.invalidate)."},
    {"snapshots", (PyCFunction)(void (*)(void))catalog_snapshots, METH_VARARGS | METH_KEYWORDS,
     "snapshots(*, after=0, before=None, limit=0) -> Snapshots\n\nThe snapshot log, paged as "
     "it is iterated: ascending past after, or, given before, descending below it. limit is "
     "the page size (0: the server's)."},
    {"resolve_snapshot", (PyCFunction)(void (*)(void))catalog_resolve_snapshot,
     METH_VARARGS | METH_KEYWORDS,
     "resolve_snapshot(at_timestamp) -> Record\n\nThe snapshot an instant resolves to "
     "(snapshot_id, snapshot_time, schema_version); ExpiredError below the expiry floor."},
    {"set_retention", (PyCFunction)(void (*)(void))catalog_set_retention,
     METH_VARARGS | METH_KEYWORDS,
     "set_retention(seconds, consumer_floor=None) -> Record\n\nSets the snapshot retention "
     "(None disables it) and whether consumer offsets hold the expiry floor (None: unchanged). "
     "Returns the catalog's options."},
    {"create_namespace", (PyCFunction)(void (*)(void))catalog_create_namespace,
     METH_VARARGS | METH_KEYWORDS, "create_namespace(name) -> Namespace"},
    {"namespace", (PyCFunction)(void (*)(void))catalog_namespace, METH_VARARGS | METH_KEYWORDS,
     "namespace(name) -> Namespace\n\nOpens an existing namespace (NotFoundError when missing)."},
    {"refresh", (PyCFunction)catalog_refresh, METH_NOARGS,
     "refresh() -> Record\n\nThe catalog as the server has it now (head_snapshot_id, ...)."},
    {"commit_offset", (PyCFunction)(void (*)(void))catalog_commit_offset,
     METH_VARARGS | METH_KEYWORDS,
     "commit_offset(consumer_id, table_uuid, snapshot_id)\n\nRecords a consumer's offset; a "
     "regression raises CommitConflictError, a snapshot below the expiry floor ExpiredError."},
    {"offset", (PyCFunction)(void (*)(void))catalog_offset, METH_VARARGS | METH_KEYWORDS,
     "offset(consumer_id, table_uuid) -> int | None\n\nThe consumer's offset; None if unset."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef catalog_getset[] = {
    {"name", (getter)catalog_get_name, NULL, "The catalog's name.", NULL},
    {"data_path", (getter)catalog_get_data_path, NULL, "Where the catalog's data goes.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject HlCatalog_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "hoglake._hoglake.Catalog",
    .tp_basicsize = sizeof(HlCatalog),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A catalog, from Client.create_catalog or Client.catalog.",
    .tp_dealloc = (destructor)catalog_dealloc,
    .tp_methods = catalog_methods,
    .tp_getset = catalog_getset,
};
