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
    PyObject *out = hlpy_snapshot(&snap);
    hl_snapshot_clear(&snap);
    return out;
}

/* The settings after a change (of nothing: a read) as CatalogOptions. */
static PyObject *change_settings(HlCatalog *self, const struct hl_catalog_settings_change *change)
{
    struct hl_catalog_settings out;
    struct hl_error err;
    hl_status st;
    HLPY_UNLOCKED(st = hl_catalog_change_settings(self->catalog, change, &out, &err));
    if (st != HL_OK)
        return hlpy_raise(&err);
    return hlpy_record_new(HLPY_REC_CATALOG_OPTIONS, &out);
}

static PyObject *catalog_options(HlCatalog *self, PyObject *unused)
{
    (void)unused;
    struct hl_catalog_settings out;
    struct hl_error err;
    hl_status st;
    HLPY_UNLOCKED(st = hl_catalog_get_settings(self->catalog, &out, &err));
    if (st != HL_OK)
        return hlpy_raise(&err);
    return hlpy_record_new(HLPY_REC_CATALOG_OPTIONS, &out);
}

static PyObject *catalog_set_retention(HlCatalog *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"seconds", "consumer_floor", NULL};
    PyObject *seconds_obj, *floor_obj = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|O", kwlist, &seconds_obj, &floor_obj))
        return NULL;
    struct hl_catalog_settings_change change;
    hl_catalog_settings_change_init(&change);
    long long seconds = 0; /* None disables retention */
    if (hlpy_optional_count(seconds_obj, "seconds", &seconds) < 0)
        return NULL;
    change.set_retention = true;
    change.retention_seconds = seconds;
    if (floor_obj != Py_None && (change.consumer_floor = PyObject_IsTrue(floor_obj)) < 0)
        return NULL;
    return change_settings(self, &change);
}

static PyObject *catalog_commit_prepared(HlCatalog *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"payload", "table", NULL};
    const char *payload;
    PyObject *table = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "s|$O", kwlist, &payload, &table))
        return NULL;
    if (table != Py_None && !PyObject_TypeCheck(table, &HlTable_Type)) {
        PyErr_SetString(PyExc_TypeError, "table= must be a hoglake Table");
        return NULL;
    }
    int64_t snapshot = -1;
    struct hl_error err;
    hl_status st;
    if (table != Py_None) /* the table's form: a re_prepare refusal drops its cache */
        HLPY_UNLOCKED(
            st = hl_table_commit_prepared(((HlTable *)table)->table, payload, &snapshot, &err));
    else
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

enum task { TASK_EXPIRE, TASK_CLEANUP, TASK_COMPACT, TASK_HYDRATE };

union task_result {
    struct hl_expire_result expire;
    struct hl_cleanup_result cleanup;
    struct hl_compact_result compact;
    struct hl_hydrate_result hydrate;
};

static hl_status run_task(hl_catalog *c, enum task task, const struct hl_maintenance_options *o,
                          union task_result *r, struct hl_error *err)
{
    switch (task) {
    case TASK_EXPIRE: return hl_catalog_expire(c, o, &r->expire, err);
    case TASK_CLEANUP: return hl_catalog_cleanup(c, o, &r->cleanup, err);
    case TASK_COMPACT: return hl_catalog_compact(c, o, &r->compact, err);
    case TASK_HYDRATE:
    default: return hl_catalog_hydrate(c, o, &r->hydrate, err);
    }
}

/* One maintenance pass run now, its result as a record. */
static PyObject *catalog_task(HlCatalog *self, PyObject *args, PyObject *kwargs, enum task task)
{
    static const enum hlpy_record_kind kinds[] = {
        [TASK_EXPIRE] = HLPY_REC_EXPIRE,
        [TASK_CLEANUP] = HLPY_REC_CLEANUP,
        [TASK_COMPACT] = HLPY_REC_COMPACT,
        [TASK_HYDRATE] = HLPY_REC_HYDRATE,
    };
    struct hl_maintenance_options o;
    if (maintenance_options(args, kwargs, &o) < 0)
        return NULL;
    union task_result r;
    struct hl_error err;
    hl_status st;
    HLPY_UNLOCKED(st = run_task(self->catalog, task, &o, &r, &err));
    if (st != HL_OK)
        return hlpy_raise(&err);
    return hlpy_record_new(kinds[task], &r);
}

static PyObject *catalog_expire(HlCatalog *self, PyObject *args, PyObject *kwargs)
{
    return catalog_task(self, args, kwargs, TASK_EXPIRE);
}

static PyObject *catalog_cleanup(HlCatalog *self, PyObject *args, PyObject *kwargs)
{
    return catalog_task(self, args, kwargs, TASK_CLEANUP);
}

static PyObject *catalog_compact(HlCatalog *self, PyObject *args, PyObject *kwargs)
{
    return catalog_task(self, args, kwargs, TASK_COMPACT);
}

static PyObject *catalog_hydrate(HlCatalog *self, PyObject *args, PyObject *kwargs)
{
    return catalog_task(self, args, kwargs, TASK_HYDRATE);
}

static PyMethodDef catalog_methods[] = {
    {"expire", (PyCFunction)(void (*)(void))catalog_expire, METH_VARARGS | METH_KEYWORDS,
     "expire(*, batch=None) -> ExpireResult\n\nExpires the snapshots below the retention window "
     "now "
     "(snapshots_expired, new_earliest_snapshot_id, ...)."},
    {"cleanup", (PyCFunction)(void (*)(void))catalog_cleanup, METH_VARARGS | METH_KEYWORDS,
     "cleanup(*, batch=None) -> CleanupResult\n\nDeletes the queued objects nothing references "
     "(removed, missing, refused, failed, ...)."},
    {"hydrate", (PyCFunction)(void (*)(void))catalog_hydrate, METH_VARARGS | METH_KEYWORDS,
     "hydrate(*, batch=None) -> HydrateResult\n\nFills the statistics of files appended with "
     "deferred_stats (hydrated, failed, still_pending, ...)."},
    {"compact", (PyCFunction)(void (*)(void))catalog_compact, METH_VARARGS | METH_KEYWORDS,
     "compact(*, batch=None) -> CompactResult\n\nRewrites groups of small files of one "
     "partition into one file now, and says why it left the files it left "
     "(left_too_few_files, left_over_budget_files, left_claimed_files)."},
    {"options", (PyCFunction)catalog_options, METH_NOARGS,
     "options() -> CatalogOptions\n\nThe catalog's retention settings and expiry floor."},
    {"commit_prepared", (PyCFunction)(void (*)(void))catalog_commit_prepared,
     METH_VARARGS | METH_KEYWORDS,
     "commit_prepared(payload, *, table=None) -> int\n\nPublishes a payload a prepare "
     "made, from any process (idempotent). Given table=, a refusal marked re_prepare also "
     "drops that table's writer cache (as Table.commit_prepared does); without it that is "
     "the caller's (Table.invalidate)."},
    {"snapshots", (PyCFunction)(void (*)(void))catalog_snapshots, METH_VARARGS | METH_KEYWORDS,
     "snapshots(*, after=0, before=None, limit=0) -> Snapshots\n\nThe snapshot log, paged as "
     "it is iterated: ascending past after, or, given before, descending below it. limit is "
     "the page size (0: the server's)."},
    {"resolve_snapshot", (PyCFunction)(void (*)(void))catalog_resolve_snapshot,
     METH_VARARGS | METH_KEYWORDS,
     "resolve_snapshot(at_timestamp) -> Snapshot\n\nThe snapshot an instant resolves to "
     "(snapshot_id, snapshot_time, schema_version); ExpiredError below the expiry floor."},
    {"set_retention", (PyCFunction)(void (*)(void))catalog_set_retention,
     METH_VARARGS | METH_KEYWORDS,
     "set_retention(seconds, consumer_floor=None) -> CatalogOptions\n\nSets the snapshot retention "
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
