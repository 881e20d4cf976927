/* libhoglake's typed structs as Python records: named tuples
 * (PyStructSequence) with one attribute per field, documented.
 *
 * Each record type is described once, as a table of its fields with the
 * offset and kind of the C member each one reads; scalar fields are filled
 * from that table, and the few composite ones (lists of nested records,
 * tuples of strings) by the converter of their struct. */
#include "hlpy.h"

#include <stddef.h>
#include <string.h>

enum kind {
    K_I64,     /* int64_t */
    K_I64_OPT, /* int64_t, -1 (absent) as None */
    K_BOOL,    /* bool */
    K_INT,     /* int */
    K_STR,     /* char *, NULL as None */
    K_CHARS,   /* char[], "" as None */
    K_JSON,    /* char * JSON text, parsed; NULL as None */
    K_SET,     /* filled by the struct's converter */
};

struct field {
    const char *name;
    enum kind kind;
    size_t offset;
    const char *doc;
};

struct record {
    const char *name; /* hoglake.<name> */
    const char *doc;
    const struct field *fields;
    int nfields;
    PyTypeObject *type; /* made by hlpy_records_init */
};

#define FIELD_AS(name, s, m, k, doc)                                                               \
    {                                                                                              \
        name, k, offsetof(s, m), doc                                                               \
    }
#define FIELD(s, m, k, doc) FIELD_AS(#m, s, m, k, doc)
#define COMPOSITE(name, doc)                                                                       \
    {                                                                                              \
        name, K_SET, 0, doc                                                                        \
    }
#define RECORD(name, doc, fields)                                                                  \
    {                                                                                              \
        name, doc, fields, (int)(sizeof fields / sizeof fields[0]), NULL                           \
    }

/* ---- the record types ---- */

#define S struct hl_data_file
static const struct field data_file_fields[] = {
    FIELD(S, data_file_id, K_I64, "the file's id in the catalog"),
    FIELD(S, path, K_STR, "the object's full path, under the catalog's data_path"),
    FIELD(S, record_count, K_I64, "rows, before deletion vectors"),
    FIELD(S, file_size_bytes, K_I64, "the object's size"),
    FIELD(S, row_id_start, K_I64, "the first row's id"),
    FIELD(S, begin_snapshot, K_I64, "the snapshot that added the file"),
    COMPOSITE("stats_state", "'provided', 'pending' (deferred_stats) or 'failed'"),
    FIELD(S, explicit_row_ids, K_BOOL, "row ids stored in the file (compaction outputs)"),
    FIELD(S, footer_size, K_I64_OPT, "the Parquet footer's size, or None"),
    FIELD(S, spec_id, K_I64_OPT, "the partition spec the file was written under, or None"),
    COMPOSITE("partition_values", "the stored partition values (None for null), or ()"),
};
#undef S

#define S struct hl_delete_file
static const struct field delete_file_fields[] = {
    FIELD(S, delete_file_id, K_I64, "the vector's id in the catalog"),
    FIELD(S, data_file_id, K_I64, "the data file whose rows it masks"),
    FIELD(S, path, K_STR, "the Puffin object's full path"),
    FIELD(S, delete_count, K_I64, "rows it deletes (cumulative over the file's vectors)"),
    FIELD(S, file_size_bytes, K_I64, "the object's size"),
    FIELD(S, begin_snapshot, K_I64, "the snapshot that added it"),
};
#undef S

static const struct field scan_file_fields[] = {
    COMPOSITE("data_file", "the live data file, a DataFile"),
    COMPOSITE("delete_file", "the DeleteFile masking its deleted rows, or None"),
};

static const struct field change_delete_file_fields[] = {
    COMPOSITE("delete_file", "the vector appended in the window, a DeleteFile"),
    COMPOSITE("data_file", "the DataFile it deletes from, whatever that file's state"),
    COMPOSITE("superseded", "the DeleteFile it replaced on that file, or None (its first)"),
};

#define S struct hl_changes_plan
static const struct field changes_plan_fields[] = {
    FIELD(S, table_uuid, K_STR, "the incarnation visible at to_snapshot"),
    FIELD(S, from_snapshot, K_I64, "the window's exclusive start"),
    FIELD(S, to_snapshot, K_I64, "its inclusive end (the head when not given)"),
    COMPOSITE("files", "the DataFiles appended in the window (compaction outputs excluded)"),
    COMPOSITE("delete_files", "the deletion vectors appended in it, as ChangeDeleteFiles"),
};
#undef S

#define S struct hl_column
static const struct field column_fields[] = {
    FIELD(S, field_id, K_I64, "the column's field id"),
    FIELD(S, name, K_STR, "its name"),
    FIELD(S, type, K_STR, "the catalog type's wire name: 'long', 'decimal', 'list', ..."),
    FIELD(S, nullable, K_BOOL, "whether it may hold nulls"),
    FIELD(S, precision, K_INT, "a decimal's precision, else 0"),
    FIELD(S, scale, K_INT, "a decimal's scale, else 0"),
    FIELD(S, type_params, K_JSON, "the type's parameters (decimal, variant), or None"),
    FIELD(S, comment, K_STR, "the column's comment, or None"),
    COMPOSITE("children", "a list's element, a map's key and value, a struct's fields"),
};
#undef S

#define S struct hl_partition_field
static const struct field partition_field_fields[] = {
    FIELD(S, source_field_id, K_I64, "the source column's field id"),
    FIELD(S, transform, K_STR, "identity, bucket, truncate, year, month, day or hour"),
    FIELD(S, transform_param, K_I64, "bucket N or truncate W; 0 otherwise"),
};
#undef S

#define S struct hl_sort_field
static const struct field sort_field_fields[] = {
    FIELD(S, source_field_id, K_I64, "the source column's field id"),
    FIELD(S, descending, K_BOOL, "descending order"),
    FIELD(S, nulls_first, K_BOOL, "nulls sort first"),
};
#undef S

#define S struct hl_table_details
static const struct field table_info_fields[] = {
    FIELD(S, name, K_STR, "the table's name"),
    FIELD_AS("namespace", S, namespace_name, K_STR, "its namespace"),
    FIELD(S, table_uuid, K_STR, "the incarnation"),
    FIELD(S, comment, K_STR, "the table's comment, or None"),
    FIELD(S, primary_timestamp_column, K_STR, "the primary timestamp column, or None"),
    FIELD(S, properties, K_JSON, "the table's properties, a dict"),
    FIELD(S, read_snapshot_id, K_I64, "the snapshot this read resolved at"),
    FIELD(S, record_count, K_I64_OPT, "rows of the visible files (None under time travel)"),
    FIELD(S, file_count, K_I64_OPT, "visible data files (None under time travel)"),
    FIELD(S, file_size_bytes, K_I64_OPT, "their bytes (None under time travel)"),
    FIELD(S, totals_snapshot_id, K_I64_OPT, "the snapshot the totals were counted at"),
    COMPOSITE("columns", "the columns, as Column records"),
    FIELD(S, spec_id, K_I64_OPT, "the live partition spec's id, or None (unpartitioned)"),
    COMPOSITE("partition_fields", "the partition spec's fields, as PartitionField records"),
    FIELD(S, sort_id, K_I64_OPT, "the live sort order's id, or None (unsorted)"),
    COMPOSITE("sort_fields", "the sort order's fields, as SortField records"),
};
#undef S

#define S struct hl_snapshot
static const struct field snapshot_fields[] = {
    FIELD(S, snapshot_id, K_I64, "the snapshot's id"),
    FIELD(S, schema_version, K_I64, "the catalog's schema version at it"),
    FIELD(S, snapshot_time, K_CHARS, "when it was committed (ISO 8601)"),
    FIELD(S, author, K_STR, "the commit's author, or None"),
    FIELD(S, message, K_STR, "the commit's message, or None"),
    COMPOSITE("changes", "what it changed (records), or None when not given"),
};
#undef S

#define S struct hl_catalog_settings
static const struct field options_fields[] = {
    FIELD_AS("snapshot_retention_seconds", S, retention_seconds, K_I64_OPT,
             "snapshot retention, or None (expiry disabled)"),
    FIELD(S, consumer_floor, K_BOOL, "consumer offsets hold back expiry"),
    FIELD(S, earliest_snapshot_id, K_I64, "the expiry floor: snapshots below it are gone"),
};
#undef S

#define S struct hl_expire_result
static const struct field expire_fields[] = {
    FIELD(S, snapshots_expired, K_I64, "snapshots expired"),
    FIELD(S, data_files_queued, K_I64, "ended data files queued for removal"),
    FIELD(S, delete_files_queued, K_I64, "ended deletion vectors queued for removal"),
    FIELD(S, new_earliest_snapshot_id, K_I64, "the new expiry floor"),
    FIELD(S, floored_by_consumer, K_BOOL, "a consumer offset was the binding bound"),
    FIELD(S, offsets_released, K_I64, "offsets on replaced incarnations released"),
    FIELD(S, purge_pages, K_I64, "pages of ended rows purged"),
    FIELD(S, purge_truncated, K_BOOL, "ended rows are left for the next pass"),
};
#undef S

#define S struct hl_cleanup_result
static const struct field cleanup_fields[] = {
    FIELD(S, removed, K_I64, "objects deleted"),
    FIELD(S, missing, K_I64, "objects already gone"),
    FIELD(S, still_referenced, K_I64, "objects kept because the catalog references them"),
    FIELD(S, refused, K_I64, "paths refused (outside the data path, links, not files)"),
    FIELD(S, settled_elsewhere, K_I64, "queue rows another run settled"),
    FIELD(S, failed, K_I64, "deletes that failed (retried by the next pass)"),
    FIELD(S, ledger_purged, K_I64, "settled queue rows purged"),
    FIELD(S, receipts_purged, K_I64, "idempotency receipts purged"),
};
#undef S

#define S struct hl_compact_result
static const struct field compact_fields[] = {
    FIELD(S, groups_compacted, K_I64, "groups rewritten"),
    FIELD(S, files_in, K_I64, "files replaced"),
    FIELD(S, files_out, K_I64, "files written"),
    FIELD(S, bytes_in, K_I64, "bytes replaced"),
    FIELD(S, bytes_out, K_I64, "bytes written"),
    FIELD(S, skipped_conflicts, K_I64, "groups skipped: a concurrent commit"),
    FIELD(S, failed_groups, K_I64, "groups that failed"),
    FIELD(S, claimed_elsewhere, K_I64, "groups another run holds"),
    FIELD(S, dvs_applied, K_I64, "deletion vectors applied"),
    FIELD(S, rows_dropped, K_I64, "deleted rows dropped"),
    FIELD(S, candidates_files, K_I64, "small files the planner saw"),
    FIELD(S, left_too_few_files, K_I64, "files left: too few in their partition"),
    FIELD(S, left_over_budget_files, K_I64, "files left: over the pass's budget"),
    FIELD(S, left_claimed_files, K_I64, "files left: claimed by an upload or another run"),
    FIELD(S, batch_reached, K_BOOL, "more groups may be waiting"),
};
#undef S

#define S struct hl_hydrate_result
static const struct field hydrate_fields[] = {
    FIELD(S, hydrated, K_I64, "files whose statistics were filled"),
    FIELD(S, failed, K_I64, "files whose footer disagrees or is gone"),
    FIELD(S, transient_errors, K_I64, "files left pending after a storage error"),
    FIELD(S, still_pending, K_I64, "pending live files of the catalog after the pass"),
};
#undef S

#define S struct hl_append_result
static const struct field append_result_fields[] = {
    FIELD(S, snapshot_id, K_I64_OPT, "the commit's snapshot; None when nothing was appended"),
    FIELD(S, schema_version, K_I64, "the table's schema version the files were written at"),
    COMPOSITE("files", "the files written, as AppendedFile records"),
};
#undef S

#define S struct hl_appended_file
static const struct field appended_file_fields[] = {
    FIELD(S, path, K_STR, "the object's path"),
    FIELD(S, record_count, K_I64, "rows in the file"),
    FIELD(S, file_size_bytes, K_I64, "the file's size"),
    COMPOSITE("partition_values", "the partition tuple as wire strings (None for null), or ()"),
};
#undef S

static struct record records[] = {
    [HLPY_REC_DATA_FILE] = RECORD("DataFile", "One live data file of a table.", data_file_fields),
    [HLPY_REC_DELETE_FILE] =
        RECORD("DeleteFile", "One deletion vector (Puffin).", delete_file_fields),
    [HLPY_REC_SCAN_FILE] =
        RECORD("ScanFile", "One entry of a scan plan: a file and its vector.", scan_file_fields),
    [HLPY_REC_CHANGE_DELETE_FILE] = RECORD(
        "ChangeDeleteFile", "One deletion vector of a changes window.", change_delete_file_fields),
    [HLPY_REC_CHANGES_PLAN] =
        RECORD("ChangesPlan", "The changes of a snapshot window.", changes_plan_fields),
    [HLPY_REC_COLUMN] = RECORD("Column", "One column of a table.", column_fields),
    [HLPY_REC_PARTITION_FIELD] =
        RECORD("PartitionField", "One field of a partition spec.", partition_field_fields),
    [HLPY_REC_SORT_FIELD] = RECORD("SortField", "One key of a sort order.", sort_field_fields),
    [HLPY_REC_TABLE_INFO] =
        RECORD("TableInfo", "A table at a snapshot: columns, specs, totals.", table_info_fields),
    [HLPY_REC_SNAPSHOT] = RECORD("Snapshot", "One snapshot of the catalog.", snapshot_fields),
    [HLPY_REC_CATALOG_OPTIONS] =
        RECORD("CatalogOptions", "The catalog's retention settings.", options_fields),
    [HLPY_REC_EXPIRE] = RECORD("ExpireResult", "What one expiry pass did.", expire_fields),
    [HLPY_REC_CLEANUP] = RECORD("CleanupResult", "What one cleanup pass did.", cleanup_fields),
    [HLPY_REC_COMPACT] =
        RECORD("CompactResult", "What one compaction pass did and left.", compact_fields),
    [HLPY_REC_HYDRATE] = RECORD("HydrateResult", "What one hydrator pass did.", hydrate_fields),
    [HLPY_REC_APPEND_RESULT] =
        RECORD("AppendResult", "What one append committed.", append_result_fields),
    [HLPY_REC_APPENDED_FILE] =
        RECORD("AppendedFile", "One file an append wrote.", appended_file_fields),
};

int hlpy_records_init(PyObject *module)
{
    for (size_t r = 0; r < sizeof records / sizeof records[0]; r++) {
        struct record *rec = &records[r];
        /* The type keeps pointers into the description: it lives as long
         * as the process, as the module does. */
        PyStructSequence_Field *fields = PyMem_Calloc((size_t)rec->nfields + 1, sizeof *fields);
        PyStructSequence_Desc *desc = PyMem_Calloc(1, sizeof *desc);
        char *qualified = PyMem_Malloc(strlen("hoglake.") + strlen(rec->name) + 1);
        if (!fields || !desc || !qualified) {
            PyMem_Free(fields);
            PyMem_Free(desc);
            PyMem_Free(qualified);
            PyErr_NoMemory();
            return -1;
        }
        for (int i = 0; i < rec->nfields; i++)
            fields[i] = (PyStructSequence_Field){rec->fields[i].name, rec->fields[i].doc};
        strcpy(qualified, "hoglake.");
        strcat(qualified, rec->name);
        *desc = (PyStructSequence_Desc){qualified, rec->doc, fields, rec->nfields};
        rec->type = PyStructSequence_NewType(desc);
        if (!rec->type || PyModule_AddObjectRef(module, rec->name, (PyObject *)rec->type) < 0)
            return -1;
    }
    return 0;
}

static PyObject *optional_text(const char *s)
{
    return s ? PyUnicode_FromString(s) : Py_NewRef(Py_None);
}

static PyObject *field_value(const struct field *f, const void *src)
{
    const char *at = (const char *)src + f->offset;
    switch (f->kind) {
    case K_I64: return PyLong_FromLongLong(*(const int64_t *)at);
    case K_I64_OPT: {
        int64_t v = *(const int64_t *)at;
        return v < 0 ? Py_NewRef(Py_None) : PyLong_FromLongLong(v);
    }
    case K_BOOL: return PyBool_FromLong(*(const bool *)at);
    case K_INT: return PyLong_FromLong(*(const int *)at);
    case K_STR: return optional_text(*(const char *const *)at);
    case K_CHARS: return optional_text(*at ? at : NULL);
    case K_JSON: {
        const char *text = *(const char *const *)at;
        return text ? hlpy_json_parse(text) : Py_NewRef(Py_None);
    }
    case K_SET: break;
    }
    return Py_NewRef(Py_None);
}

PyObject *hlpy_record_new(enum hlpy_record_kind kind, const void *src)
{
    const struct record *rec = &records[kind];
    PyObject *out = PyStructSequence_New(rec->type);
    for (int i = 0; out && i < rec->nfields; i++) {
        if (rec->fields[i].kind == K_SET)
            continue;
        PyObject *v = field_value(&rec->fields[i], src);
        if (!v)
            Py_CLEAR(out);
        else
            PyStructSequence_SetItem(out, i, v);
    }
    return out;
}

int hlpy_record_put(PyObject *out, enum hlpy_record_kind kind, const char *name, PyObject *value)
{
    if (!value)
        return -1;
    const struct record *rec = &records[kind];
    for (int i = 0; i < rec->nfields; i++) {
        if (strcmp(rec->fields[i].name, name) == 0) {
            PyStructSequence_SetItem(out, i, value);
            return 0;
        }
    }
    Py_DECREF(value);
    PyErr_Format(PyExc_SystemError, "%s has no field %s", rec->name, name);
    return -1;
}

/* n records of one kind from an array of structs of `size` bytes, each
 * made by make. */
static PyObject *record_list(const void *items, size_t n, size_t size,
                             PyObject *(*make)(const void *))
{
    PyObject *list = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; list && i < n; i++) {
        PyObject *item = make((const char *)items + i * size);
        if (!item)
            Py_CLEAR(list);
        else
            PyList_SET_ITEM(list, (Py_ssize_t)i, item);
    }
    return list;
}

/* Wire strings (NULL entries: null) as a tuple. */
static PyObject *strings_tuple(char *const *values, size_t n)
{
    PyObject *t = PyTuple_New((Py_ssize_t)n);
    for (size_t i = 0; t && i < n; i++) {
        PyObject *item = optional_text(values[i]);
        if (!item)
            Py_CLEAR(t);
        else
            PyTuple_SET_ITEM(t, (Py_ssize_t)i, item);
    }
    return t;
}

/* A record of kind with one composite field filled; NULL with an error. */
static PyObject *record_with(enum hlpy_record_kind kind, const void *src, const char *name,
                             PyObject *value)
{
    PyObject *out = value ? hlpy_record_new(kind, src) : NULL;
    if (!out) {
        Py_XDECREF(value);
        return NULL;
    }
    if (hlpy_record_put(out, kind, name, value) < 0)
        Py_CLEAR(out);
    return out;
}

static PyObject *data_file_record(const void *p)
{
    const struct hl_data_file *f = p;
    static const char *const states[] = {"provided", "pending", "failed"};
    unsigned state = (unsigned)f->stats_state;
    PyObject *out = record_with(HLPY_REC_DATA_FILE, f, "partition_values",
                                strings_tuple(f->partition_values, f->npartition_values));
    if (out && hlpy_record_put(out, HLPY_REC_DATA_FILE, "stats_state",
                               PyUnicode_FromString(state < 3 ? states[state] : "unknown")) < 0)
        Py_CLEAR(out);
    return out;
}

PyObject *hlpy_data_files(const struct hl_data_file *files, size_t n)
{
    return record_list(files, n, sizeof *files, data_file_record);
}

static PyObject *column_record(const void *p)
{
    const struct hl_column *c = p;
    return record_with(HLPY_REC_COLUMN, c, "children", hlpy_columns(c->children, c->nchildren));
}

PyObject *hlpy_columns(const struct hl_column *columns, size_t n)
{
    return record_list(columns, n, sizeof *columns, column_record);
}

static PyObject *partition_field_record(const void *p)
{
    return hlpy_record_new(HLPY_REC_PARTITION_FIELD, p);
}

static PyObject *sort_field_record(const void *p)
{
    return hlpy_record_new(HLPY_REC_SORT_FIELD, p);
}

PyObject *hlpy_table_info(const struct hl_table_details *d)
{
    PyObject *out =
        record_with(HLPY_REC_TABLE_INFO, d, "columns", hlpy_columns(d->columns, d->ncolumns));
    if (out &&
        (hlpy_record_put(out, HLPY_REC_TABLE_INFO, "partition_fields",
                         record_list(d->partition_fields, d->npartition_fields,
                                     sizeof *d->partition_fields, partition_field_record)) < 0 ||
         hlpy_record_put(out, HLPY_REC_TABLE_INFO, "sort_fields",
                         record_list(d->sort_fields, d->nsort_fields, sizeof *d->sort_fields,
                                     sort_field_record)) < 0))
        Py_CLEAR(out);
    return out;
}

PyObject *hlpy_snapshot(const struct hl_snapshot *s)
{
    PyObject *changes = Py_NewRef(Py_None);
    if (s->json) {
        PyObject *whole = hlpy_json_parse(s->json);
        Py_SETREF(changes, whole ? PyMapping_GetItemString(whole, "changes") : NULL);
        if (!changes && whole && PyErr_ExceptionMatches(PyExc_KeyError)) {
            PyErr_Clear();
            changes = Py_NewRef(Py_None);
        }
        Py_XDECREF(whole);
    }
    return record_with(HLPY_REC_SNAPSHOT, s, "changes", changes);
}

static PyObject *appended_file_record(const void *p)
{
    const struct hl_appended_file *f = p;
    return record_with(HLPY_REC_APPENDED_FILE, f, "partition_values",
                       strings_tuple(f->partition_values, f->npartition_values));
}

PyObject *hlpy_append_result(const struct hl_append_result *r)
{
    return record_with(HLPY_REC_APPEND_RESULT, r, "files",
                       record_list(r->files, r->nfiles, sizeof *r->files, appended_file_record));
}

/* A vector (NULL: None) as a DeleteFile. */
static PyObject *delete_file_record(const struct hl_delete_file *d)
{
    return d ? hlpy_record_new(HLPY_REC_DELETE_FILE, d) : Py_NewRef(Py_None);
}

static PyObject *scan_file_record(const void *p)
{
    const struct hl_scan_file *f = p;
    PyObject *out =
        record_with(HLPY_REC_SCAN_FILE, f, "data_file", data_file_record(&f->data_file));
    if (out && hlpy_record_put(out, HLPY_REC_SCAN_FILE, "delete_file",
                               delete_file_record(f->delete_file)) < 0)
        Py_CLEAR(out);
    return out;
}

PyObject *hlpy_scan_files(const struct hl_scan_file *files, size_t n)
{
    return record_list(files, n, sizeof *files, scan_file_record);
}

static PyObject *change_delete_file_record(const void *p)
{
    const struct hl_change_delete_file *c = p;
    PyObject *out = record_with(HLPY_REC_CHANGE_DELETE_FILE, c, "delete_file",
                                delete_file_record(&c->delete_file));
    if (out && (hlpy_record_put(out, HLPY_REC_CHANGE_DELETE_FILE, "data_file",
                                data_file_record(&c->data_file)) < 0 ||
                hlpy_record_put(out, HLPY_REC_CHANGE_DELETE_FILE, "superseded",
                                delete_file_record(c->superseded)) < 0))
        Py_CLEAR(out);
    return out;
}

PyObject *hlpy_changes_plan(const struct hl_changes_plan *plan)
{
    PyObject *out = record_with(HLPY_REC_CHANGES_PLAN, plan, "files",
                                hlpy_data_files(plan->files, plan->nfiles));
    if (out &&
        hlpy_record_put(out, HLPY_REC_CHANGES_PLAN, "delete_files",
                        record_list(plan->delete_files, plan->ndelete_files,
                                    sizeof *plan->delete_files, change_delete_file_record)) < 0)
        Py_CLEAR(out);
    return out;
}
