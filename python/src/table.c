/* hoglake._hoglake.Table: one hl_table; metadata reads, appends and row
 * reads. */
#include "hlpy.h"

#include <string.h>

PyObject *hlpy_table_wrap(hl_table *table, PyObject *ns)
{
    HlTable *self = PyObject_New(HlTable, &HlTable_Type);
    if (!self) {
        hl_table_free(table);
        return NULL;
    }
    self->table = table;
    self->ns = Py_NewRef(ns);
    return (PyObject *)self;
}

static void table_dealloc(HlTable *self)
{
    hl_table_free(self->table);
    Py_DECREF(self->ns);
    PyObject_Free(self);
}

int hlpy_at_parse(PyObject *snapshot, PyObject *at_timestamp, struct hl_at *at, PyObject **ts_hold)
{
    at->snapshot = -1;
    at->at_timestamp = NULL;
    *ts_hold = NULL;
    if (snapshot != Py_None && at_timestamp != Py_None) {
        PyErr_SetString(PyExc_ValueError, "pass at most one of snapshot and at_timestamp");
        return -1;
    }
    long long id = -1;
    if (hlpy_optional_count(snapshot, "snapshot", &id) < 0)
        return -1;
    at->snapshot = id;
    if (at_timestamp == Py_None)
        return 0;
    if (PyUnicode_Check(at_timestamp)) {
        *ts_hold = Py_NewRef(at_timestamp);
    } else {
        /* A datetime: the instant must be unambiguous, so naive is refused. */
        PyObject *tz = PyObject_GetAttrString(at_timestamp, "tzinfo");
        if (!tz)
            return -1;
        int naive = tz == Py_None;
        Py_DECREF(tz);
        if (naive) {
            PyErr_SetString(PyExc_ValueError, "at_timestamp needs a time zone (an aware datetime)");
            return -1;
        }
        *ts_hold = PyObject_CallMethod(at_timestamp, "isoformat", NULL);
        if (!*ts_hold)
            return -1;
    }
    at->at_timestamp = PyUnicode_AsUTF8(*ts_hold);
    if (!at->at_timestamp) {
        Py_CLEAR(*ts_hold);
        return -1;
    }
    return 0;
}

static PyObject *table_get_name(HlTable *self, void *closure)
{
    (void)closure;
    return PyUnicode_FromString(hl_table_name(self->table));
}

static PyObject *table_get_uuid(HlTable *self, void *closure)
{
    (void)closure;
    return PyUnicode_FromString(hl_table_uuid(self->table));
}

static PyObject *table_get_ddl_snapshot(HlTable *self, void *closure)
{
    (void)closure;
    int64_t id = hl_table_ddl_snapshot(self->table);
    if (id < 0)
        Py_RETURN_NONE;
    return PyLong_FromLongLong(id);
}

/* The table's layout as the handle last read it (a request only when that
 * read is stale), into *out; -1 with an exception. */
static int table_definition(HlTable *self, struct hl_table_details *out)
{
    struct hl_error err;
    hl_status st;
    HLPY_UNLOCKED(st = hl_table_definition_details(self->table, out, &err));
    if (st != HL_OK) {
        hlpy_raise(&err);
        return -1;
    }
    return 0;
}

static PyObject *table_get_columns(HlTable *self, void *closure)
{
    (void)closure;
    struct hl_table_details d;
    if (table_definition(self, &d) < 0)
        return NULL;
    PyObject *out = hlpy_columns(d.columns, d.ncolumns);
    hl_table_details_clear(&d);
    return out;
}

/* snapshot= and at_timestamp= of a read, into *at; *hold keeps the
 * timestamp's text. -1 with an exception. */
static int at_args(PyObject *args, PyObject *kwargs, struct hl_at *at, PyObject **hold)
{
    static char *kwlist[] = {"snapshot", "at_timestamp", NULL};
    PyObject *snapshot = Py_None, *at_timestamp = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|$OO", kwlist, &snapshot, &at_timestamp))
        return -1;
    return hlpy_at_parse(snapshot, at_timestamp, at, hold);
}

static PyObject *table_info(HlTable *self, PyObject *args, PyObject *kwargs)
{
    struct hl_at at;
    PyObject *hold;
    if (at_args(args, kwargs, &at, &hold) < 0)
        return NULL;
    struct hl_table_details d;
    struct hl_error err;
    hl_status st;
    HLPY_UNLOCKED(st = hl_table_describe(self->table, &at, &d, &err));
    Py_XDECREF(hold);
    if (st != HL_OK)
        return hlpy_raise(&err);
    PyObject *out = hlpy_table_info(&d);
    hl_table_details_clear(&d);
    return out;
}

static PyObject *table_files(HlTable *self, PyObject *args, PyObject *kwargs)
{
    struct hl_at at;
    PyObject *hold;
    if (at_args(args, kwargs, &at, &hold) < 0)
        return NULL;
    struct hl_data_file *files = NULL;
    size_t n = 0;
    struct hl_error err;
    hl_status st;
    HLPY_UNLOCKED(st = hl_table_files_list(self->table, &at, &files, &n, &err));
    Py_XDECREF(hold);
    if (st != HL_OK)
        return hlpy_raise(&err);
    PyObject *out = hlpy_data_files(files, n);
    hl_data_files_free(files, n);
    return out;
}

static PyObject *table_scan_plan(HlTable *self, PyObject *args, PyObject *kwargs)
{
    struct hl_at at;
    PyObject *hold;
    if (at_args(args, kwargs, &at, &hold) < 0)
        return NULL;
    struct hl_scan_file *files = NULL;
    size_t n = 0;
    struct hl_error err;
    hl_status st;
    HLPY_UNLOCKED(st = hl_table_scan_plan_list(self->table, &at, &files, &n, &err));
    Py_XDECREF(hold);
    if (st != HL_OK)
        return hlpy_raise(&err);
    PyObject *out = hlpy_scan_files(files, n);
    hl_scan_files_free(files, n);
    return out;
}

static PyObject *table_changes(HlTable *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"from_snapshot", "to_snapshot", NULL};
    long long from = 0;
    PyObject *to_obj = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|LO", kwlist, &from, &to_obj))
        return NULL;
    long long to = -1;
    if (hlpy_optional_count(to_obj, "to_snapshot", &to) < 0)
        return NULL;
    struct hl_changes_plan plan;
    struct hl_error err;
    hl_status st;
    HLPY_UNLOCKED(st = hl_table_changes_plan(self->table, from, to, &plan, &err));
    if (st != HL_OK)
        return hlpy_raise(&err);
    PyObject *out = hlpy_changes_plan(&plan);
    hl_changes_plan_clear(&plan);
    return out;
}

static PyObject *table_alter(HlTable *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"ops", NULL};
    PyObject *ops;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O", kwlist, &ops))
        return NULL;
    PyObject *text = hlpy_json_dumps(ops);
    if (!text)
        return NULL;
    const char *ops_json = PyBytes_AS_STRING(text);
    struct hl_error err;
    hl_status st;
    HLPY_UNLOCKED(st = hl_table_alter(self->table, ops_json, NULL, &err));
    Py_DECREF(text);
    if (st != HL_OK)
        return hlpy_raise(&err);
    /* The handle adopted the alter's Table: this reads it, no request. */
    struct hl_table_details d;
    if (table_definition(self, &d) < 0)
        return NULL;
    PyObject *out = hlpy_table_info(&d);
    hl_table_details_clear(&d);
    return out;
}

static PyObject *table_drop(HlTable *self, PyObject *unused)
{
    (void)unused;
    int64_t snapshot = -1;
    struct hl_error err;
    hl_status st;
    HLPY_UNLOCKED(st = hl_table_drop(self->table, &snapshot, &err));
    return hlpy_snapshot_or_raise(st, snapshot, &err);
}

static PyObject *table_invalidate(HlTable *self, PyObject *unused)
{
    (void)unused;
    hl_table_invalidate(self->table);
    Py_RETURN_NONE;
}

/* append's and prepare_append's data as a stream; -1 with an exception. */
static int table_stream(HlTable *self, PyObject *data, struct ArrowArrayStream *out)
{
    if (!hlpy_is_plain_data(data))
        return hlpy_stream_from_object(data, NULL, out);
    /* Plain data is typed by the table's columns: the handle's definition
     * (a request only when it is stale). */
    struct hl_table_details d;
    if (table_definition(self, &d) < 0)
        return -1;
    int rc = hlpy_stream_from_object(data, &d, out);
    hl_table_details_clear(&d);
    return rc;
}

static PyObject *table_append(HlTable *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {
        "data",      "author",          "message", "deferred_stats", "expected_table_uuid",
        "unguarded", "idempotency_key", NULL};
    PyObject *data, *author = Py_None, *message = Py_None, *expected = Py_None, *key = Py_None;
    int deferred = 0, unguarded = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|$OOpOpO", kwlist, &data, &author, &message,
                                     &deferred, &expected, &unguarded, &key))
        return NULL;
    struct hl_append_options o;
    hl_append_options_init(&o);
    o.deferred_stats = deferred;
    if (hlpy_is_unguarded(expected)) { /* the seed's spelling of unguarded=True */
        expected = Py_None;
        unguarded = 1;
    }
    o.unguarded = unguarded;
    if (hlpy_optional_text(author, "author", &o.author) < 0 ||
        hlpy_optional_text(message, "message", &o.message) < 0 ||
        hlpy_optional_text(expected, "expected_table_uuid", &o.expected_table_uuid) < 0 ||
        hlpy_optional_text(key, "idempotency_key", &o.idempotency_key) < 0)
        return NULL;
    if (o.unguarded && o.expected_table_uuid) {
        PyErr_SetString(PyExc_ValueError, "expected_table_uuid and unguarded exclude each other");
        return NULL;
    }
    struct ArrowArrayStream stream;
    if (table_stream(self, data, &stream) < 0)
        return NULL;
    struct hl_append_result *result = NULL;
    struct hl_error err;
    hl_status st;
    HLPY_UNLOCKED(st = hl_table_append(self->table, &stream, &o, &result, &err));
    PyObject *out = st == HL_OK ? hlpy_append_result(result) : hlpy_raise(&err);
    hl_append_result_free(result);
    return out;
}

/* A prepare's answer: the payload text, or the error raised. Frees what
 * the library returned. */
static PyObject *prepared_payload(hl_status st, char *payload, struct hl_append_result *uploaded,
                                  const struct hl_error *err)
{
    hl_append_result_free(uploaded);
    PyObject *out = st == HL_OK ? PyUnicode_FromString(payload) : hlpy_raise(err);
    free(payload);
    return out;
}

/* prepare_append_files' files as the library takes them: paths, and per
 * file its partition wire strings (NULL entries for null values), all
 * borrowed from hold. */
struct file_list {
    PyObject *hold; /* a list of every object the strings are borrowed from */
    const char **paths;
    const char ***values;
    size_t n;
};

static void file_list_clear(struct file_list *f)
{
    for (size_t i = 0; f->values && i < f->n; i++)
        PyMem_Free(f->values[i]);
    PyMem_Free(f->values);
    PyMem_Free(f->paths);
    Py_XDECREF(f->hold);
}

/* A partition tuple (None: unpartitioned, or computed per row) into *out,
 * its length in *n (may be NULL). */
static int partition_strings(PyObject *tuple, PyObject *hold, const char ***out, size_t *n_out)
{
    *out = NULL;
    if (n_out)
        *n_out = 0;
    if (tuple == Py_None)
        return 0;
    PyObject *seq = PySequence_Fast(tuple, "a partition tuple must be a sequence");
    if (!seq || PyList_Append(hold, seq) < 0) {
        Py_XDECREF(seq);
        return -1;
    }
    Py_DECREF(seq); /* hold keeps it */
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    *out = PyMem_Calloc((size_t)n + 1, sizeof **out);
    if (!*out) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t k = 0; k < n; k++)
        if (hlpy_optional_text(PySequence_Fast_GET_ITEM(seq, k), "a partition value", &(*out)[k]) <
            0)
            return -1;
    if (n_out)
        *n_out = (size_t)n;
    return 0;
}

static int file_list_build(PyObject *files, struct file_list *f)
{
    memset(f, 0, sizeof *f);
    PyObject *seq = PySequence_Fast(files, "files must be a sequence");
    if (!seq)
        return -1;
    f->hold = PyList_New(0);
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    f->n = (size_t)n;
    f->paths = PyMem_Calloc(f->n + 1, sizeof *f->paths);
    f->values = PyMem_Calloc(f->n + 1, sizeof *f->values);
    int rc = f->hold && f->paths && f->values && PyList_Append(f->hold, seq) == 0 ? 0 : -1;
    if (rc < 0 && !PyErr_Occurred())
        PyErr_NoMemory();
    bool partitioned = false;
    for (Py_ssize_t i = 0; rc == 0 && i < n; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(seq, i), *path = item, *tuple = Py_None;
        if (PyTuple_Check(item) && !PyArg_ParseTuple(item, "OO", &path, &tuple))
            rc = -1;
        else if (!PyUnicode_Check(path))
            PyErr_SetString(PyExc_TypeError, "files are paths or (path, partition tuple) pairs");
        else if (!(f->paths[i] = PyUnicode_AsUTF8(path)) ||
                 partition_strings(tuple, f->hold, &f->values[i], NULL) < 0)
            rc = -1;
        rc = PyErr_Occurred() ? -1 : rc;
        partitioned = partitioned || tuple != Py_None;
    }
    Py_DECREF(seq);
    if (rc == 0 && !partitioned) { /* the library's spelling of unpartitioned */
        PyMem_Free(f->values);
        f->values = NULL;
    }
    if (rc < 0)
        file_list_clear(f);
    return rc;
}

/* A prepare's guard: expected_table_uuid= and expected_table_info=, the
 * latter's strings borrowed from hold. -1 with an exception. */
struct prepare_guard {
    struct hl_prepare_options options;
    struct hl_table_details layout;
    bool has_layout;
};

static int prepare_guard_parse(PyObject *uuid, PyObject *info, PyObject *hold,
                               struct prepare_guard *g)
{
    memset(g, 0, sizeof *g);
    if (hlpy_optional_text(uuid, "expected_table_uuid", &g->options.expected_table_uuid) < 0)
        return -1;
    if (info == Py_None)
        return 0;
    if (hlpy_layout_from_info(info, hold, &g->layout) < 0)
        return -1;
    g->has_layout = true;
    g->options.expected_table_info = &g->layout;
    return 0;
}

static void prepare_guard_clear(struct prepare_guard *g)
{
    if (g->has_layout)
        hlpy_layout_clear(&g->layout);
}

/* The groups of prepare_append_tables: (data, partition tuple or None)
 * pairs, each data as a stream. */
struct group_list {
    struct hl_prepare_group *groups;
    struct ArrowArrayStream *streams;
    const char ***values;
    size_t n, nstreams; /* nstreams: streams made, released here if never handed over */
};

static void group_list_clear(struct group_list *g)
{
    for (size_t i = 0; i < g->nstreams; i++)
        if (g->streams[i].release)
            g->streams[i].release(&g->streams[i]);
    for (size_t i = 0; g->values && i < g->n; i++)
        PyMem_Free(g->values[i]);
    PyMem_Free(g->values);
    PyMem_Free(g->streams);
    PyMem_Free(g->groups);
}

static int table_stream(HlTable *self, PyObject *data, struct ArrowArrayStream *out);

static int group_list_build(HlTable *self, PyObject *pairs, PyObject *hold, struct group_list *g)
{
    memset(g, 0, sizeof *g);
    PyObject *seq = PySequence_Fast(pairs, "groups must be a sequence of (data, partition) pairs");
    if (!seq || PyList_Append(hold, seq) < 0) {
        Py_XDECREF(seq);
        return -1;
    }
    Py_DECREF(seq); /* hold keeps it */
    g->n = (size_t)PySequence_Fast_GET_SIZE(seq);
    g->groups = PyMem_Calloc(g->n + 1, sizeof *g->groups);
    g->streams = PyMem_Calloc(g->n + 1, sizeof *g->streams);
    g->values = PyMem_Calloc(g->n + 1, sizeof *g->values);
    if (!g->groups || !g->streams || !g->values) {
        PyErr_NoMemory();
        return -1;
    }
    for (size_t i = 0; i < g->n; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(seq, (Py_ssize_t)i), *data, *tuple;
        if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) != 2) {
            PyErr_SetString(PyExc_TypeError,
                            "each group is a (data, partition tuple or None) pair");
            return -1;
        }
        data = PyTuple_GET_ITEM(item, 0);
        tuple = PyTuple_GET_ITEM(item, 1);
        struct hl_prepare_group *group = &g->groups[i];
        if (partition_strings(tuple, hold, &g->values[i], &group->npartition_values) < 0 ||
            table_stream(self, data, &g->streams[i]) < 0)
            return -1;
        g->nstreams = i + 1;
        group->stream = &g->streams[i];
        group->partition_values = g->values[i];
    }
    return 0;
}

/* prepare_append and prepare_append_tables: groups (pairs), the key and
 * the guard, into a payload. */
static PyObject *prepare_groups(HlTable *self, PyObject *pairs, const char *key, PyObject *uuid,
                                PyObject *info)
{
    PyObject *hold = PyList_New(0);
    if (!hold)
        return NULL;
    struct prepare_guard guard;
    struct group_list g;
    memset(&g, 0, sizeof g);
    PyObject *out = NULL;
    if (prepare_guard_parse(uuid, info, hold, &guard) == 0) {
        if (group_list_build(self, pairs, hold, &g) == 0) {
            char *payload = NULL;
            struct hl_append_result *uploaded = NULL;
            struct hl_error err;
            hl_status st;
            HLPY_UNLOCKED(st = hl_table_prepare_append_groups(self->table, g.groups, g.n, key,
                                                              &guard.options, &payload, &uploaded,
                                                              &err));
            g.nstreams = 0; /* the library released them */
            out = prepared_payload(st, payload, uploaded, &err);
        }
        prepare_guard_clear(&guard);
    }
    group_list_clear(&g);
    Py_DECREF(hold);
    return out;
}

static PyObject *table_prepare_append(HlTable *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"data", "idempotency_key", "expected_table_uuid",
                             "expected_table_info", NULL};
    PyObject *data, *uuid = Py_None, *info = Py_None;
    const char *key = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|$sOO", kwlist, &data, &key, &uuid, &info))
        return NULL;
    if (!key) {
        PyErr_SetString(PyExc_TypeError, "prepare_append needs idempotency_key=");
        return NULL;
    }
    PyObject *pairs = Py_BuildValue("[(OO)]", data, Py_None);
    if (!pairs)
        return NULL;
    PyObject *out = prepare_groups(self, pairs, key, uuid, info);
    Py_DECREF(pairs);
    return out;
}

static PyObject *table_prepare_append_tables(HlTable *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"groups", "idempotency_key", "expected_table_uuid",
                             "expected_table_info", NULL};
    PyObject *groups, *uuid = Py_None, *info = Py_None;
    const char *key = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|$sOO", kwlist, &groups, &key, &uuid, &info))
        return NULL;
    if (!key) {
        PyErr_SetString(PyExc_TypeError, "prepare_append_tables needs idempotency_key=");
        return NULL;
    }
    return prepare_groups(self, groups, key, uuid, info);
}

static PyObject *table_prepare_append_files(HlTable *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"files",
                             "idempotency_key",
                             "expected_table_uuid",
                             "expected_table_info",
                             "allow_optional_fields",
                             NULL};
    PyObject *files, *uuid = Py_None, *info = Py_None;
    const char *key = NULL;
    int allow_optional = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|$sOOp", kwlist, &files, &key, &uuid, &info,
                                     &allow_optional))
        return NULL;
    if (!key) {
        PyErr_SetString(PyExc_TypeError, "prepare_append_files needs idempotency_key=");
        return NULL;
    }
    PyObject *hold = PyList_New(0);
    struct prepare_guard guard;
    if (!hold || prepare_guard_parse(uuid, info, hold, &guard) < 0) {
        Py_XDECREF(hold);
        return NULL;
    }
    guard.options.allow_optional_fields = allow_optional != 0;
    struct file_list f;
    PyObject *out = NULL;
    if (file_list_build(files, &f) == 0) {
        char *payload = NULL;
        struct hl_append_result *uploaded = NULL;
        struct hl_error err;
        hl_status st;
        HLPY_UNLOCKED(st = hl_table_prepare_files(self->table, f.paths, f.n,
                                                  (const char *const *const *)f.values, key,
                                                  &guard.options, &payload, &uploaded, &err));
        file_list_clear(&f);
        out = prepared_payload(st, payload, uploaded, &err);
    }
    prepare_guard_clear(&guard);
    Py_DECREF(hold);
    return out;
}

static PyObject *table_commit_prepared(HlTable *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"payload", NULL};
    const char *payload;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "s", kwlist, &payload))
        return NULL;
    int64_t snapshot = -1;
    struct hl_error err;
    hl_status st;
    HLPY_UNLOCKED(st = hl_table_commit_prepared(self->table, payload, &snapshot, &err));
    return hlpy_snapshot_or_raise(st, snapshot, &err);
}

static PyObject *table_read_changes(HlTable *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"from_snapshot", "to_snapshot", NULL};
    long long from;
    PyObject *to_obj = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "L|O", kwlist, &from, &to_obj))
        return NULL;
    long long to = -1;
    if (hlpy_optional_count(to_obj, "to_snapshot", &to) < 0)
        return NULL;
    struct ArrowArrayStream stream;
    memset(&stream, 0, sizeof stream);
    struct hl_error err;
    hl_status st;
    HLPY_UNLOCKED(st = hl_table_scan_changes(self->table, from, to, &stream, NULL, &err));
    if (st != HL_OK)
        return hlpy_raise(&err);
    return hlpy_reader_new(&stream, (PyObject *)self);
}

/* The columns= list as C strings borrowed from the list's items. */
static int column_names(PyObject *columns, PyObject **hold, const char ***names, size_t *n)
{
    *hold = NULL;
    *names = NULL;
    *n = 0;
    if (columns == Py_None)
        return 0;
    *hold = PySequence_Fast(columns, "columns must be a sequence of str");
    if (!*hold)
        return -1;
    Py_ssize_t len = PySequence_Fast_GET_SIZE(*hold);
    *names = PyMem_Calloc(len ? (size_t)len : 1, sizeof **names);
    if (!*names) {
        Py_CLEAR(*hold);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < len; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(*hold, i);
        (*names)[i] = PyUnicode_Check(item) ? PyUnicode_AsUTF8(item) : NULL;
        if (!(*names)[i]) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_TypeError, "columns must be a sequence of str");
            PyMem_Free(*names);
            *names = NULL;
            Py_CLEAR(*hold);
            return -1;
        }
    }
    *n = (size_t)len;
    return 0;
}

static PyObject *table_read(HlTable *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"snapshot", "at_timestamp", "columns", "where", "limit", NULL};
    PyObject *snapshot = Py_None, *at_timestamp = Py_None, *columns = Py_None, *where = Py_None,
             *limit = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|$OOOOO", kwlist, &snapshot, &at_timestamp,
                                     &columns, &where, &limit))
        return NULL;
    struct hl_scan_options o;
    hl_scan_options_init(&o);
    long long max_rows = -1;
    if (hlpy_optional_count(limit, "limit", &max_rows) < 0)
        return NULL;
    o.limit = max_rows;
    if (hlpy_optional_text(where, "where", &o.predicate) < 0)
        return NULL;
    struct hl_at at;
    PyObject *ts_hold, *cols_hold;
    const char **names;
    if (hlpy_at_parse(snapshot, at_timestamp, &at, &ts_hold) < 0)
        return NULL;
    if (column_names(columns, &cols_hold, &names, &o.ncolumns) < 0) {
        Py_XDECREF(ts_hold);
        return NULL;
    }
    o.columns = names;
    struct ArrowArrayStream stream;
    memset(&stream, 0, sizeof stream);
    struct hl_error err;
    hl_status st;
    HLPY_UNLOCKED(st = hl_table_scan_with(self->table, &at, &o, &stream, &err));
    PyMem_Free(names);
    Py_XDECREF(cols_hold);
    Py_XDECREF(ts_hold);
    if (st != HL_OK)
        return hlpy_raise(&err);
    return hlpy_reader_new(&stream, (PyObject *)self);
}

#define KW_METHOD(fn) (PyCFunction)(void (*)(void))(fn), METH_VARARGS | METH_KEYWORDS

static PyMethodDef table_methods[] = {
    {"info", KW_METHOD(table_info),
     "info(*, snapshot=None, at_timestamp=None) -> TableInfo\n\nThe table (columns, specs, "
     "totals) at a snapshot or an instant; default: the DDL snapshot, else the head."},
    {"files", KW_METHOD(table_files),
     "files(*, snapshot=None, at_timestamp=None) -> list[DataFile]\n\nThe live data files "
     "(default: the DDL snapshot, else the head)."},
    {"scan_plan", KW_METHOD(table_scan_plan),
     "scan_plan(*, snapshot=None, at_timestamp=None) -> list[ScanFile]\n\nThe files a "
     "reader reads (data_file), each with the deletion vector masking its deleted rows "
     "(delete_file, or None)."},
    {"changes", KW_METHOD(table_changes),
     "changes(from_snapshot=0, to_snapshot=None) -> ChangesPlan\n\nThe change plan of the "
     "window (from_snapshot, to_snapshot]; to_snapshot None: the head (to_snapshot on the "
     "plan says which). Its files were appended in the window; its delete_files are the "
     "deletion vectors appended in it, each with its data file and the vector it replaced."},
    {"alter", KW_METHOD(table_alter),
     "alter(ops) -> TableInfo\n\nApplies alter ops (hoglake.ops builds them); the handle adopts "
     "the new DDL snapshot."},
    {"drop", (PyCFunction)table_drop, METH_NOARGS,
     "drop() -> int\n\nDrops the table; returns "
     "the drop's snapshot."},
    {"invalidate", (PyCFunction)table_invalidate, METH_NOARGS,
     "invalidate()\n\nForgets the writer cache: the next append reads the table."},
    {"append", KW_METHOD(table_append),
     "append(data, *, author=None, message=None, deferred_stats=False, "
     "expected_table_uuid=None, unguarded=False, idempotency_key=None) -> AppendResult\n\n"
     "Appends data in one commit. data: any object with __arrow_c_stream__ or "
     "__arrow_c_array__ (pyarrow, polars, DuckDB, a Reader), a dict of lists or a list of "
     "dicts. Columns match the table's by name. The commit is guarded by the handle's "
     "table_uuid (or expected_table_uuid): a table dropped and recreated meanwhile raises "
     "IncarnationChangedError; unguarded=True (or expected_table_uuid=hoglake.UNGUARDED) "
     "writes by name.\n\n"
     "Plain data (a missing key is None) is typed by the table's columns: boolean bool; "
     "int8 ... uint64 int (range-checked); float, double float or int; decimal Decimal at "
     "the column's precision and scale, never rounded; date date; time time; timestamp_s, "
     "_ms, timestamp, _ns a naive datetime; timestamptz an aware datetime (stored at UTC); "
     "string, json, variant str (JSON text for json and variant); uuid uuid.UUID; binary "
     "bytes. A list column takes a list or tuple; a struct column a dict of its fields (a "
     "missing field is None, an unknown one refused); a map column a dict or a list of "
     "(key, value) pairs (keys never None). They nest to any depth, None allowed at every "
     "level. A wrong shape raises InvalidArgumentError naming the path (tags[], pt.x, "
     "attrs.key) and the row; a scalar of the wrong type TypeError. A column holding only "
     "None is left out, so the table's nulls apply."},
    {"prepare_append", KW_METHOD(table_prepare_append),
     "prepare_append(data, *, idempotency_key, expected_table_uuid=None, "
     "expected_table_info=None) -> str\n\nEncodes and uploads data now and returns the "
     "commit payload (JSON text) to publish later with commit_prepared. Persist it durably "
     "first; on any uncertain outcome replay the same payload. idempotency_key is a UUID "
     "naming this append. expected_table_uuid pins the incarnation (default: the handle's); "
     "expected_table_info (a TableInfo from info()) is compared with a fresh read of the "
     "table, and a changed layout (columns, partition spec, sort order) raises "
     "DdlSinceReadSnapshotError before anything is uploaded."},
    {"prepare_append_tables", KW_METHOD(table_prepare_append_tables),
     "prepare_append_tables(groups, *, idempotency_key, expected_table_uuid=None, "
     "expected_table_info=None) -> str\n\nprepare_append over groups a writer partitioned "
     "itself: (data, partition_tuple) pairs, the tuple in the spec's field order as wire "
     "strings (month 672 = 2026-01; None for a null value), or None to compute it per row. "
     "Each group is encoded to Parquet in memory and uploaded; every row is checked to "
     "belong to its tuple. One payload for all groups."},
    {"prepare_append_files", KW_METHOD(table_prepare_append_files),
     "prepare_append_files(files, *, idempotency_key, expected_table_uuid=None, "
     "expected_table_info=None, allow_optional_fields=False) -> str\n\nThe same from "
     "existing local Parquet files (paths, or (path, partition tuple) pairs for a "
     "partitioned table): each footer is checked against the table (field ids, types, "
     "nullability) and the original bytes uploaded. allow_optional_fields accepts a column "
     "the table requires written OPTIONAL when the file's statistics show no nulls."},
    {"commit_prepared", KW_METHOD(table_commit_prepared),
     "commit_prepared(payload) -> int\n\nPublishes a prepared payload (idempotent: a replay "
     "answers the same snapshot) and returns its snapshot; a refusal marked re_prepare also "
     "drops the handle's writer cache."},
    {"read", KW_METHOD(table_read),
     "read(*, snapshot=None, at_timestamp=None, columns=None, where=None, limit=None) -> "
     "Reader\n\nThe table's rows at a snapshot or an instant (default: the DDL snapshot, "
     "else the head), projected to columns and filtered by a predicate (where='id > 3')."},
    {"scan", KW_METHOD(table_read), "scan(...) -> Reader\n\nThe same as read()."},
    {"read_changes", KW_METHOD(table_read_changes),
     "read_changes(from_snapshot, to_snapshot=None) -> Reader\n\nThe rows the changefeed "
     "reports in (from_snapshot, to_snapshot] (None: the head), with two trailing columns: "
     "_row_id and _change_type ('insert' or 'delete')."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef table_getset[] = {
    {"name", (getter)table_get_name, NULL, "The table's name.", NULL},
    {"table_uuid", (getter)table_get_uuid, NULL, "The incarnation the handle was resolved as.",
     NULL},
    {"columns", (getter)table_get_columns, NULL,
     "The table's columns (Column records: name, field_id, type, nullable, children, ...), as "
     "the handle last read them.",
     NULL},
    {"ddl_snapshot", (getter)table_get_ddl_snapshot, NULL,
     "The snapshot of the handle's own create or alter, or None.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject HlTable_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "hoglake._hoglake.Table",
    .tp_basicsize = sizeof(HlTable),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A table, from Namespace.create_table or Namespace.table.",
    .tp_dealloc = (destructor)table_dealloc,
    .tp_methods = table_methods,
    .tp_getset = table_getset,
};
