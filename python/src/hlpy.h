/* The hoglake CPython extension (module hoglake._hoglake): shared types and
 * the helpers its modules call one another through.
 *
 * Ownership mirrors libhoglake's: a Python catalog object holds a reference
 * to its client object, a namespace to its catalog, a table to its
 * namespace, a reader to its table; so a handle is freed only after every
 * handle that borrows it. Every library call that may touch the network or
 * encode data runs with the GIL released. */
#ifndef HLPY_H
#define HLPY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <hoglake/hoglake.h>

typedef struct {
    PyObject_HEAD hl_client *client;
} HlClient;

typedef struct {
    PyObject_HEAD hl_catalog *catalog;
    PyObject *client;
} HlCatalog;

typedef struct {
    PyObject_HEAD hl_namespace *ns;
    PyObject *name;
    PyObject *catalog;
} HlNamespace;

typedef struct {
    PyObject_HEAD hl_table *table;
    PyObject *ns;
} HlTable;

/* Runs stmt (a library call) with the GIL released. */
#define HLPY_UNLOCKED(stmt)                                                                        \
    do {                                                                                           \
        Py_BEGIN_ALLOW_THREADS stmt;                                                               \
        Py_END_ALLOW_THREADS                                                                       \
    } while (0)

extern PyTypeObject HlClient_Type;
extern PyTypeObject HlCatalog_Type;
extern PyTypeObject HlNamespace_Type;
extern PyTypeObject HlTable_Type;
extern PyTypeObject HlReader_Type;
extern PyTypeObject HlSnapshots_Type;

/* errors.c: the exception classes and record type hoglake/__init__.py
 * defines, handed over once by _register. */
PyObject *hlpy_register(PyObject *module, PyObject *args, PyObject *kwargs);
/* Whether obj is hoglake.UNGUARDED (expected_table_uuid=UNGUARDED). */
bool hlpy_is_unguarded(PyObject *obj);
/* Raises the exception class mapped from err->status; returns NULL. */
PyObject *hlpy_raise(const struct hl_error *err);
/* A call's snapshot id, or its error raised. */
PyObject *hlpy_snapshot_or_raise(hl_status st, int64_t snapshot, const struct hl_error *err);
/* Parses JSON text into Python values, objects becoming records (attribute
 * access). NULL with an exception. _take also frees the text (the
 * library's, returned to the caller). */
PyObject *hlpy_json_parse(const char *text);
PyObject *hlpy_json_take(char *text);
/* A dict as a record. */
PyObject *hlpy_record(PyObject *dict);
/* json.dumps(obj) as a new bytes object, or a str passed through as UTF-8. */
PyObject *hlpy_json_dumps(PyObject *obj);

/* args.c: None leaves *out as it is (a count) or NULL (text); else a
 * count must be an int >= 0, text a str. -1 with an exception. */
int hlpy_optional_count(PyObject *obj, const char *what, long long *out);
int hlpy_optional_text(PyObject *obj, const char *what, const char **out);

/* catalog.c, namespace.c, table.c: wrapping library handles in Python
 * objects (the wrapper owns the handle; on failure the handle is freed). */
PyObject *hlpy_catalog_wrap(hl_catalog *catalog, PyObject *client);
PyObject *hlpy_namespace_wrap(hl_namespace *ns, PyObject *name, PyObject *catalog);
PyObject *hlpy_table_wrap(hl_table *table, PyObject *ns);
/* table.c: fills *at from snapshot= and at_timestamp= (None, int; None, str or an
 * aware datetime). *ts_hold keeps the timestamp's text alive. -1 on error. */
int hlpy_at_parse(PyObject *snapshot, PyObject *at_timestamp, struct hl_at *at, PyObject **ts_hold);

/* namespace.c: _arrow_column_def(type, name, nullable): an Arrow type
 * (__arrow_c_schema__) as a ColumnDef dict, for ops.add_column. */
PyObject *hlpy_arrow_column_def(PyObject *module, PyObject *args, PyObject *kwargs);

/* snapshots.c: an iterator over the snapshot log (owns it). */
PyObject *hlpy_snapshots_new(hl_snapshot_iter *it, PyObject *catalog);

/* arrow_in.c: any object with __arrow_c_stream__ or __arrow_c_array__, a
 * dict of lists or a list of dicts, as a stream the caller owns. def (may
 * be NULL): the table's definition, which plain data is typed by. */
/* The pointer a producer's capsule holds, or NULL with a TypeError when
 * it is not a capsule of that name. */
void *hlpy_capsule_pointer(PyObject *capsule, const char *name);
/* Drops a producer's capsule (or tuple of them) keeping any exception
 * raised: its destructor, which releases what was not moved out, may run
 * Python code (a ctypes or cffi producer) that must not find one set. */
void hlpy_capsules_drop(PyObject *obj);
int hlpy_stream_from_object(PyObject *data, const struct hl_table_details *def,
                            struct ArrowArrayStream *out);
/* Moves schema and array (one batch) into a stream of it; -1 with an
 * exception (both released). */
int hlpy_one_batch_stream(struct ArrowSchema *schema, struct ArrowArray *array,
                          struct ArrowArrayStream *out);

/* plain_data.c: whether data is plain Python data (no Arrow producer), and
 * it built into one batch typed by the table's columns (def; NULL: every
 * column typed by its values). */
int hlpy_is_plain_data(PyObject *data);
int hlpy_stream_from_plain(PyObject *data, const struct hl_table_details *def,
                           struct ArrowArrayStream *out);

/* arrow_values.c: a batch's rows as dicts appended to rows; decimal.Decimal
 * (borrowed; NULL with an exception). */
PyObject *hlpy_decimal_type(void);
/* uuid.UUID (borrowed; NULL with an exception). */
PyObject *hlpy_uuid_type(void);
int hlpy_rows_append(PyObject *rows, const struct ArrowSchema *schema,
                     const struct ArrowArray *batch);

/* reader.c: a reader over a library stream (moved in) that keeps owner
 * alive while any part of the stream lives. */
PyObject *hlpy_reader_new(struct ArrowArrayStream *stream, PyObject *owner);

/* layout.c: expected_table_info= (a TableInfo) as the library's struct,
 * its strings borrowed from objects appended to hold (a list). Release
 * with hlpy_layout_clear, never hl_table_details_clear. -1 with an
 * exception. */
int hlpy_layout_from_info(PyObject *info, PyObject *hold, struct hl_table_details *out);
void hlpy_layout_clear(struct hl_table_details *details);

/* records.c: libhoglake's structs as records (named tuples), one type
 * per kind, added to the module by hlpy_records_init. */
enum hlpy_record_kind {
    HLPY_REC_DATA_FILE,
    HLPY_REC_DELETE_FILE,
    HLPY_REC_SCAN_FILE,
    HLPY_REC_CHANGE_DELETE_FILE,
    HLPY_REC_CHANGES_PLAN,
    HLPY_REC_COLUMN,
    HLPY_REC_PARTITION_FIELD,
    HLPY_REC_SORT_FIELD,
    HLPY_REC_TABLE_INFO,
    HLPY_REC_SNAPSHOT,
    HLPY_REC_CATALOG_OPTIONS,
    HLPY_REC_EXPIRE,
    HLPY_REC_CLEANUP,
    HLPY_REC_COMPACT,
    HLPY_REC_HYDRATE,
    HLPY_REC_APPEND_RESULT,
    HLPY_REC_APPENDED_FILE,
};
int hlpy_records_init(PyObject *module);
/* A record of kind from its struct (src): every scalar field filled, the
 * composite ones left for hlpy_record_put (which steals value; -1 when
 * value is NULL). NULL with an exception. */
PyObject *hlpy_record_new(enum hlpy_record_kind kind, const void *src);
int hlpy_record_put(PyObject *record, enum hlpy_record_kind kind, const char *name,
                    PyObject *value);
/* The composite records: a list of DataFile, of ScanFile, a ChangesPlan,
 * a list of Column, a TableInfo, a Snapshot, an AppendResult. */
PyObject *hlpy_data_files(const struct hl_data_file *files, size_t n);
PyObject *hlpy_scan_files(const struct hl_scan_file *files, size_t n);
PyObject *hlpy_changes_plan(const struct hl_changes_plan *plan);
PyObject *hlpy_columns(const struct hl_column *columns, size_t n);
PyObject *hlpy_table_info(const struct hl_table_details *details);
PyObject *hlpy_snapshot(const struct hl_snapshot *snapshot);
PyObject *hlpy_append_result(const struct hl_append_result *r);

#endif
