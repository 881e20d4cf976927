/* The writer path: an Arrow stream cast to the table's columns, encoded to
 * Parquet in memory (one file per partition tuple, rolled over past a size),
 * uploaded, and registered in one commit that carries the footer
 * statistics. Prepared appends stop before the commit and hand back its
 * payload instead. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "client/append.h"
#include "client/tableinfo.h"
#include "lake/partition.h"
#include "objstore/objstore.h"
#include "parquet/colstats.h"
#include "parquet/writer.h"
#include "rows/rows_adapt.h"
#include "rows/rows_schema.h"
#include "util/arena.h"
#include "util/arrow.h"
#include "util/base64.h"
#include "util/strutil.h"

#define DEFAULT_FILE_BYTES ((int64_t)512 << 20)

void client_uuid4(char out[37])
{
    uint8_t b[16];
    size_t got = 0;
    while (got < sizeof b) {
        ssize_t n = getrandom(b + got, sizeof b - got, 0);
        if (n > 0)
            got += (size_t)n;
    }
    b[6] = (uint8_t)((b[6] & 0x0f) | 0x40);
    b[8] = (uint8_t)((b[8] & 0x3f) | 0x80);
    snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
             b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
             b[14], b[15]);
}

/* ---- one output file per partition tuple ---- */

struct out_file {
    char **tuple; /* the partition values (NULL entries: null); NULL when unpartitioned */
    struct pq_writer *writer;
    struct buf data;
    int64_t rows;
};

struct job {
    hl_table *t;
    const struct hl_append_options *o;
    const char *prepared_key; /* prepared appends: the idempotency key */
    struct arena arena;
    struct lake_table table;
    struct ArrowSchema target; /* the writer's Arrow schema for the table */
    struct pq_write_options wopt;
    struct objstore *store;
    char *prefix; /* "<data_path>/data/<ns>/<table>/" (prepared: ".../<key>/") */
    size_t nfiles_written;
    struct out_file *open;
    size_t nopen, open_cap;
    size_t nfields; /* partition spec fields */
    json_t *files;  /* FileRegistration objects */
    struct hl_append_result *res;
};

static hl_status pq_status(const struct pq_error *e, struct hl_error *err, const char *what)
{
    hl_status st = e->code == PQ_ERR_NOMEM ? HL_ERR_NOMEM
                   : e->code == PQ_ERR_IO  ? HL_ERR_IO
                                           : HL_ERR_VALIDATION;
    return client_fail(err, st, st == HL_ERR_VALIDATION ? "validation" : hl_status_name(st),
                       "%s: %s", what, e->msg);
}

static void tuple_free(char **tuple, size_t n)
{
    for (size_t i = 0; tuple && i < n; i++)
        free(tuple[i]);
    free(tuple);
}

static void out_file_release(struct job *j, struct out_file *f)
{
    pq_writer_free(f->writer);
    buf_free(&f->data);
    tuple_free(f->tuple, j->nfields);
    memset(f, 0, sizeof *f);
}

static bool tuple_equal(char *const *a, char *const *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!a[i] != !b[i] || (a[i] && strcmp(a[i], b[i]) != 0))
            return false;
    }
    return true;
}

/* The open file for a tuple, opened when there is none. */
static hl_status file_for(struct job *j, char *const *tuple, struct out_file **out,
                          struct hl_error *err)
{
    for (size_t i = 0; i < j->nopen; i++) {
        if (!tuple || tuple_equal(j->open[i].tuple, tuple, j->nfields)) {
            *out = &j->open[i];
            return HL_OK;
        }
    }
    if (j->nopen == j->open_cap) {
        size_t cap = j->open_cap ? j->open_cap * 2 : 8;
        struct out_file *p = realloc(j->open, cap * sizeof *p);
        if (!p)
            return client_nomem(err);
        j->open = p;
        j->open_cap = cap;
    }
    struct out_file *f = &j->open[j->nopen];
    memset(f, 0, sizeof *f);
    if (tuple) {
        if (!(f->tuple = calloc(j->nfields, sizeof *f->tuple)))
            return client_nomem(err);
        for (size_t i = 0; i < j->nfields; i++) {
            if (tuple[i] && !(f->tuple[i] = strdup(tuple[i]))) {
                tuple_free(f->tuple, j->nfields);
                return client_nomem(err);
            }
        }
    }
    struct pq_sink sink = {pq_sink_buf_write, &f->data};
    struct pq_error pe;
    if (pq_writer_open(&j->table, &j->wopt, &sink, &f->writer, &pe) != 0) {
        tuple_free(f->tuple, j->nfields);
        buf_free(&f->data);
        return pq_status(&pe, err, "opening a Parquet writer");
    }
    j->nopen++;
    *out = f;
    return HL_OK;
}

int client_result_uploaded(struct hl_append_result *res, const char *uri)
{
    char **p = realloc(res->uploaded, (res->nuploaded + 1) * sizeof *p);
    if (!p)
        return -1;
    res->uploaded = p;
    if (!(p[res->nuploaded] = strdup(uri)))
        return -1;
    res->nuploaded++;
    return 0;
}

static int record_file(struct hl_append_result *res, const char *uri, int64_t rows, int64_t size,
                       char *const *tuple, size_t nfields)
{
    struct hl_appended_file *p = realloc(res->files, (res->nfiles + 1) * sizeof *p);
    if (!p)
        return -1;
    res->files = p;
    struct hl_appended_file *f = &p[res->nfiles];
    memset(f, 0, sizeof *f);
    res->nfiles++;
    f->record_count = rows;
    f->file_size_bytes = size;
    if (!(f->path = strdup(uri)))
        return -1;
    if (tuple) {
        if (!(f->partition_values = calloc(nfields, sizeof *f->partition_values)))
            return -1;
        f->npartition_values = nfields;
        for (size_t i = 0; i < nfields; i++) {
            if (tuple[i] && !(f->partition_values[i] = strdup(tuple[i])))
                return -1;
        }
    }
    return 0;
}

json_t *client_column_stats_json(const struct pq_file_meta *meta, const struct pq_schema *schema,
                                 const struct lake_table *table, struct arena *arena,
                                 struct hl_error *err)
{
    struct pq_col_stats *stats;
    size_t n;
    struct pq_error pe;
    if (pq_footer_column_stats(meta, schema, table, arena, &stats, &n, &pe) != 0) {
        client_fail(err, pe.code == PQ_ERR_NOMEM ? HL_ERR_NOMEM : HL_ERR_VALIDATION, "validation",
                    "the footer's statistics: %s", pe.msg);
        return NULL;
    }
    json_t *arr = json_array();
    for (size_t i = 0; arr && i < n; i++) {
        const struct pq_col_stats *s = &stats[i];
        json_t *o = json_pack("{s:I, s:I, s:I, s:I}", "field_id", (json_int_t)s->field_id,
                              "value_count", (json_int_t)s->value_count, "null_count",
                              (json_int_t)s->null_count, "size_bytes", (json_int_t)s->size_bytes);
        bool ok = o != NULL;
        const uint8_t *b[2] = {s->lower, s->upper};
        size_t len[2] = {s->lower_len, s->upper_len};
        const char *key[2] = {"lower_bound", "upper_bound"};
        for (int k = 0; ok && k < 2; k++) {
            if (!b[k])
                continue;
            struct buf enc = BUF_INIT;
            ok = base64_encode(&enc, b[k], len[k]) == 0 &&
                 json_object_set_new(o, key[k], json_stringn(enc.data, enc.len)) == 0;
            buf_free(&enc);
        }
        if (!ok)
            json_decref(o);
        if (!ok || json_array_append_new(arr, o) != 0) {
            json_decref(arr);
            arr = NULL;
        }
    }
    if (!arr)
        client_nomem(err);
    return arr;
}

/* Closes a file, uploads it and adds its registration. */
static hl_status finish_file(struct job *j, struct out_file *f, struct hl_error *err)
{
    struct pq_write_result w;
    struct pq_error pe;
    struct pq_writer *writer = f->writer;
    f->writer = NULL;
    if (pq_writer_close(writer, &w, &pe) != 0)
        return pq_status(&pe, err, "finishing a Parquet file");
    char uuid[37], uri[4096];
    client_uuid4(uuid);
    if (j->prepared_key)
        snprintf(uri, sizeof uri, "%s%s-%zu.parquet", j->prefix, uuid, j->nfiles_written);
    else
        snprintf(uri, sizeof uri, "%s%s.parquet", j->prefix, uuid);
    j->nfiles_written++;
    hl_status st = HL_OK;
    json_t *reg = json_pack("{s:s, s:I, s:I, s:I}", "path", uri, "record_count",
                            (json_int_t)f->rows, "file_size_bytes", (json_int_t)w.file_size,
                            "footer_size", (json_int_t)w.footer_size);
    if (!reg)
        st = client_nomem(err);
    if (st == HL_OK && (!j->o || !j->o->deferred_stats)) {
        json_t *stats = client_column_stats_json(&w.meta, &w.schema, &j->table, &j->arena, err);
        if (!stats || json_object_set_new(reg, "column_stats", stats) != 0)
            st = err && err->status ? err->status : client_nomem(err);
    }
    if (st == HL_OK && f->tuple) {
        json_t *pv = json_array();
        for (size_t i = 0; pv && i < j->nfields; i++) {
            if (json_array_append_new(pv, f->tuple[i] ? json_string(f->tuple[i]) : json_null()) !=
                0) {
                json_decref(pv);
                pv = NULL;
            }
        }
        if (!pv || json_object_set_new(reg, "partition_values", pv) != 0)
            st = client_nomem(err);
    }
    pq_write_result_release(&w);
    if (st == HL_OK) {
        struct hl_error se;
        if (objstore_put(j->store, uri, f->data.data, f->data.len, 0, &se) != 0) {
            if (err)
                *err = se;
            client_error_prefix(err, "uploading %s", uri);
            st = se.status;
        } else if (client_result_uploaded(j->res, uri) != 0 ||
                   record_file(j->res, uri, f->rows, (int64_t)f->data.len, f->tuple, j->nfields) !=
                       0 ||
                   json_array_append(j->files, reg) != 0) {
            st = client_nomem(err);
        }
    }
    json_decref(reg);
    buf_free(&f->data);
    f->rows = 0;
    return st;
}

/* Writes rows [start, start + len) of the batch into f, finishing the file
 * when it has grown past the size limit. */
static hl_status write_rows(struct job *j, struct out_file *f, const struct ArrowArray *batch,
                            int64_t start, int64_t len, struct hl_error *err)
{
    /* A slice: the same buffers, seen from another offset (the writer
     * honours the parent's offset). */
    struct ArrowArray slice = *batch;
    slice.offset = batch->offset + start;
    slice.length = len;
    slice.release = NULL;
    struct pq_error pe;
    if (pq_writer_write(f->writer, &j->target, &slice, &pe) != 0)
        return pq_status(&pe, err, "encoding Parquet");
    f->rows += len;
    int64_t limit = j->o && j->o->file_bytes > 0 ? j->o->file_bytes : DEFAULT_FILE_BYTES;
    if ((int64_t)f->data.len < limit)
        return HL_OK;
    hl_status st = finish_file(j, f, err);
    if (st != HL_OK)
        return st;
    struct pq_sink sink = {pq_sink_buf_write, &f->data};
    if (pq_writer_open(&j->table, &j->wopt, &sink, &f->writer, &pe) != 0)
        return pq_status(&pe, err, "opening a Parquet writer");
    return HL_OK;
}

static hl_status write_batch(struct job *j, const struct ArrowArray *batch, struct hl_error *err)
{
    if (!j->table.partitioned) {
        struct out_file *f;
        hl_status st = file_for(j, NULL, &f, err);
        return st == HL_OK ? write_rows(j, f, batch, 0, batch->length, err) : st;
    }
    if (batch->length == 0)
        return HL_OK;
    struct lake_partition_groups g;
    struct lake_err lerr;
    if (lake_partition_group_rows(&j->table, &j->target, batch, &g, &lerr) != 0)
        return client_fail(err, lerr.kind == LAKE_ERR_NOMEM ? HL_ERR_NOMEM : HL_ERR_VALIDATION,
                           "validation", "partitioning: %s", lerr.msg);
    hl_status st = HL_OK;
    struct out_file **files = calloc(g.ngroups ? g.ngroups : 1, sizeof *files);
    if (!files)
        st = client_nomem(err);
    for (size_t k = 0; st == HL_OK && k < g.ngroups; k++)
        st = file_for(j, &g.values[k * g.nfields], &files[k], err);
    /* Runs of consecutive rows of one tuple go to its file as one slice. */
    for (int64_t r = 0; st == HL_OK && r < g.nrows;) {
        uint32_t k = g.group_of_row[r];
        int64_t e = r + 1;
        while (e < g.nrows && g.group_of_row[e] == k)
            e++;
        st = write_rows(j, files[k], batch, r, e - r, err);
        r = e;
    }
    free(files);
    lake_partition_groups_free(&g);
    return st;
}

/* ---- matching the input's columns to the table's ---- */

/* Finds a field at any depth whose name starts with _hog (reserved for
 * hoglake's own columns); its dotted path goes into path. */
static bool reserved_name(const struct ArrowSchema *s, char *path, size_t cap, size_t len)
{
    const char *name = s->name ? s->name : "";
    size_t l = len;
    if (*name && l < cap)
        l += (size_t)snprintf(path + len, cap - len, "%s%s", len ? "." : "", name);
    if (l >= cap)
        l = cap - 1;
    if (strncmp(name, "_hog", 4) == 0)
        return true;
    for (int64_t i = 0; i < s->n_children; i++) {
        if (reserved_name(s->children[i], path, cap, l))
            return true;
    }
    path[len] = '\0';
    return false;
}

/* Builds the schema of the input as the table orders it: the input's
 * fields moved in by name, and for each nullable column the input lacks,
 * the writer's field (filled with nulls per batch). map[i] is the input
 * child of table column i, or -1. */
static hl_status project_schema(struct job *j, struct ArrowSchema *in, struct ArrowSchema *out,
                                int64_t *map, struct hl_error *err)
{
    if (strcmp(in->format, "+s") != 0)
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                           "the stream's schema is '%s', not a struct of columns", in->format);
    char path[512] = "";
    for (int64_t i = 0; i < in->n_children; i++) {
        if (reserved_name(in->children[i], path, sizeof path, 0))
            return client_fail(err, HL_ERR_VALIDATION, "validation",
                               "column '%s': names starting with _hog are reserved", path);
    }
    size_t n = j->table.root.nchildren;
    for (int64_t i = 0; i < in->n_children; i++) {
        const char *name = in->children[i]->name ? in->children[i]->name : "";
        bool known = false;
        for (size_t c = 0; c < n && !known; c++)
            known = strcmp(j->table.root.children[c]->name, name) == 0;
        if (!known)
            return client_fail(err, HL_ERR_VALIDATION, "validation",
                               "column '%s' is not in the table's schema", name);
        for (int64_t k = 0; k < i; k++) {
            if (in->children[k]->name && strcmp(in->children[k]->name, name) == 0)
                return client_fail(err, HL_ERR_VALIDATION, "validation",
                                   "column '%s' appears twice in the input", name);
        }
    }
    if (arrow_schema_init(out, "+s", "", 0, (int64_t)n) != 0)
        return client_nomem(err);
    for (size_t c = 0; c < n; c++) {
        const struct lake_column *col = j->table.root.children[c];
        map[c] = -1;
        for (int64_t i = 0; i < in->n_children; i++) {
            if (in->children[i]->name && strcmp(in->children[i]->name, col->name) == 0)
                map[c] = i;
        }
        if (map[c] >= 0) {
            arrow_schema_move(in->children[map[c]], out->children[c]);
            continue;
        }
        if (!col->nullable) {
            out->release(out);
            return client_fail(err, HL_ERR_VALIDATION, "validation",
                               "the input lacks column '%s', which is required", col->name);
        }
        /* Absent: the writer's own field, filled with nulls per batch. */
        struct ArrowSchema fresh;
        if (rows_table_arrow_schema(&j->table, &fresh) != 0) {
            out->release(out);
            return client_nomem(err);
        }
        arrow_schema_move(fresh.children[c], out->children[c]);
        fresh.release(&fresh);
    }
    char msg[512];
    if (rows_adapt_check(out, &j->table, msg, sizeof msg) != 0) {
        out->release(out);
        return client_fail(err, HL_ERR_VALIDATION, "validation", "%s", msg);
    }
    return HL_OK;
}

/* The batch with the table's column order, nulls for absent columns, and
 * values converted to the writer's types. Consumes in. */
static hl_status project_batch(struct job *j, const struct ArrowSchema *projected,
                               const int64_t *map, struct ArrowArray *in, struct ArrowArray *out,
                               struct hl_error *err)
{
    size_t n = j->table.root.nchildren;
    if (in->n_children < 0 || in->offset != 0) {
        in->release(in);
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                           "a batch with an offset, or without columns");
    }
    if (arrow_array_init(out, 1, (int64_t)n) != 0) {
        in->release(in);
        return client_nomem(err);
    }
    out->length = in->length;
    hl_status st = HL_OK;
    for (size_t c = 0; c < n && st == HL_OK; c++) {
        if (map[c] >= 0) {
            if (map[c] >= in->n_children || in->children[map[c]]->length < in->length)
                st = client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                                 "a batch's columns do not match its schema");
            else
                arrow_array_move(in->children[map[c]], out->children[c]);
        } else if (arrow_array_nulls(projected->children[c], in->length, out->children[c]) != 0) {
            st = client_nomem(err);
        }
    }
    /* A parent's validity would hide rows; a stream's batches have none
     * that count (top-level rows are never null). */
    in->release(in);
    char msg[512];
    if (st == HL_OK && rows_adapt_batch(projected, out, &j->table, msg, sizeof msg) != 0)
        st = client_fail(err, HL_ERR_VALIDATION, "validation", "%s", msg);
    if (st != HL_OK)
        out->release(out);
    return st;
}

/* ---- the job ---- */

static hl_status job_init(struct job *j, hl_table *t, const json_t *info,
                          const struct hl_append_options *o, const char *prepared_key,
                          struct hl_append_result *res, struct hl_error *err)
{
    memset(j, 0, sizeof *j);
    j->t = t;
    j->o = o;
    j->prepared_key = prepared_key;
    j->res = res;
    arena_init(&j->arena, 0);
    lake_table_init(&j->table, &j->arena);
    hl_status st = client_table_from_info(info, &j->table, err);
    if (st != HL_OK)
        return st;
    j->nfields = j->table.partitioned ? j->table.nspec_fields : 0;
    if (rows_table_arrow_schema(&j->table, &j->target) != 0)
        return client_nomem(err);
    pq_write_options_default(&j->wopt);
    if (o && o->row_group_bytes > 0)
        j->wopt.row_group_bytes = o->row_group_bytes;
    if (!(j->files = json_array()))
        return client_nomem(err);
    st = client_store(t->ns->catalog->client, &j->store, err);
    if (st != HL_OK)
        return st;
    struct buf p = BUF_INIT;
    const char *dp = t->ns->catalog->data_path;
    size_t dl = strlen(dp);
    int rc = buf_printf(&p, "%s%sdata/%s/%s/", dp, dl && dp[dl - 1] == '/' ? "" : "/", t->ns->name,
                        t->name);
    if (rc == 0 && prepared_key)
        rc = buf_printf(&p, "%s/", prepared_key);
    if (rc != 0) {
        buf_free(&p);
        return client_nomem(err);
    }
    j->prefix = buf_take(&p);
    return j->prefix ? HL_OK : client_nomem(err);
}

static void job_release(struct job *j)
{
    for (size_t i = 0; i < j->nopen; i++)
        out_file_release(j, &j->open[i]);
    free(j->open);
    if (j->target.release)
        j->target.release(&j->target);
    json_decref(j->files);
    free(j->prefix);
    lake_table_release(&j->table);
    arena_free(&j->arena);
}

/* Reads one stream's batches into the open files. */
static hl_status read_stream(struct job *j, struct ArrowArrayStream *stream, int64_t *rows,
                             struct hl_error *err)
{
    struct ArrowSchema in_schema, projected;
    memset(&projected, 0, sizeof projected);
    if (stream->get_schema(stream, &in_schema) != 0) {
        const char *why = stream->get_last_error ? stream->get_last_error(stream) : NULL;
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                           "the stream gave no schema: %s", why ? why : "no reason given");
    }
    size_t n = j->table.root.nchildren;
    int64_t *map = calloc(n ? n : 1, sizeof *map);
    hl_status st = map ? project_schema(j, &in_schema, &projected, map, err) : client_nomem(err);
    in_schema.release(&in_schema);
    while (st == HL_OK) {
        struct ArrowArray in, batch;
        if (stream->get_next(stream, &in) != 0) {
            const char *why = stream->get_last_error ? stream->get_last_error(stream) : NULL;
            st = client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                             "reading the input: %s", why ? why : "no reason given");
            break;
        }
        if (!in.release)
            break;
        if ((st = project_batch(j, &projected, map, &in, &batch, err)) != HL_OK)
            break;
        st = write_batch(j, &batch, err);
        *rows += batch.length;
        batch.release(&batch);
        if (st == HL_OK && j->o && j->o->progress)
            j->o->progress(j->o->progress_ctx, *rows);
    }
    free(map);
    if (projected.release)
        projected.release(&projected);
    return st;
}

/* Reads the streams into files and uploads them all. */
static hl_status job_run(struct job *j, struct ArrowArrayStream *const *streams, size_t nstreams,
                         struct hl_error *err)
{
    int64_t rows = 0;
    hl_status st = HL_OK;
    for (size_t i = 0; st == HL_OK && i < nstreams; i++)
        st = read_stream(j, streams[i], &rows, err);
    if (st == HL_OK && rows == 0 && (j->table.partitioned || j->prepared_key))
        st = client_fail(err, HL_ERR_VALIDATION, "validation",
                         "the input holds no rows (a partitioned or prepared append needs some)");
    if (st == HL_OK && j->nopen == 0) {
        struct out_file *f;
        st = file_for(j, NULL, &f, err); /* an empty, unpartitioned append: one empty file */
    }
    for (size_t i = 0; st == HL_OK && i < j->nopen; i++)
        st = finish_file(j, &j->open[i], err);
    return st;
}

/* The append entry: namespace, table, the guard and the files. */
static json_t *append_entry(struct job *j, const char *expected_uuid)
{
    json_t *e = json_pack("{s:s, s:s, s:O}", "namespace", j->t->ns->name, "table", j->t->name,
                          "files", j->files);
    if (e && expected_uuid &&
        json_object_set_new(e, "expected_table_uuid", json_string(expected_uuid)) != 0) {
        json_decref(e);
        return NULL;
    }
    return e;
}

/* {"appends": [entry], "read_snapshot"?, "idempotency_key"?}: NULL when
 * out of memory. */
static json_t *commit_body(struct job *j, const char *expected_uuid, int64_t read_snapshot,
                           const char *key)
{
    json_t *body = json_object();
    json_t *appends = json_array();
    json_t *entry = append_entry(j, expected_uuid);
    bool ok = body && appends && entry;
    if (ok) {
        ok = json_array_append_new(appends, entry) == 0;
        entry = NULL;
    }
    if (ok) {
        ok = json_object_set_new(body, "appends", appends) == 0;
        appends = NULL;
    }
    if (ok && key)
        ok = json_object_set_new(body, "idempotency_key", json_string(key)) == 0;
    if (ok && read_snapshot >= 0)
        ok = json_object_set_new(body, "read_snapshot", json_integer(read_snapshot)) == 0;
    json_decref(entry);
    json_decref(appends);
    if (!ok) {
        json_decref(body);
        return NULL;
    }
    return body;
}

struct hl_append_result *client_append_result_new(void)
{
    struct hl_append_result *r = calloc(1, sizeof *r);
    if (r) {
        r->snapshot_id = -1;
        r->schema_version = -1;
    }
    return r;
}

void hl_append_result_free(struct hl_append_result *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->nfiles; i++) {
        free(r->files[i].path);
        for (size_t k = 0; k < r->files[i].npartition_values; k++)
            free(r->files[i].partition_values[k]);
        free(r->files[i].partition_values);
    }
    free(r->files);
    for (size_t i = 0; i < r->nuploaded; i++)
        free(r->uploaded[i]);
    free(r->uploaded);
    free(r);
}

void hl_append_options_init(struct hl_append_options *o)
{
    memset(o, 0, sizeof *o);
    o->read_snapshot = -1;
}

static void release_streams(struct ArrowArrayStream *const *s, size_t n)
{
    for (size_t i = 0; s && i < n; i++) {
        if (s[i] && s[i]->release)
            s[i]->release(s[i]);
    }
}

static bool streams_ok(struct ArrowArrayStream *const *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!s || !s[i] || !s[i]->release)
            return false;
    }
    return true;
}

/* Hands the result to the caller (or frees it). */
static void give_result(struct hl_append_result *res, struct hl_append_result **out)
{
    if (out)
        *out = res;
    else
        hl_append_result_free(res);
}

hl_status hl_table_append(hl_table *t, struct ArrowArrayStream *stream,
                          const struct hl_append_options *options, struct hl_append_result **result,
                          struct hl_error *err)
{
    return hl_table_append_streams(t, &stream, 1, options, result, err);
}

hl_status hl_table_append_streams(hl_table *t, struct ArrowArrayStream *const *streams,
                                  size_t nstreams, const struct hl_append_options *options,
                                  struct hl_append_result **result, struct hl_error *err)
{
    if (result)
        *result = NULL;
    struct hl_append_options defaults;
    hl_append_options_init(&defaults);
    const struct hl_append_options *o = options ? options : &defaults;
    if (!t || nstreams == 0 || !streams_ok(streams, nstreams)) {
        release_streams(streams, nstreams);
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                           "a table and at least one stream are required");
    }
    struct hl_append_result *res = client_append_result_new();
    if (!res) {
        release_streams(streams, nstreams);
        return client_nomem(err);
    }
    const char *expected = o->unguarded             ? NULL
                           : o->expected_table_uuid ? o->expected_table_uuid
                                                    : t->uuid;
    json_t *info = NULL;
    int64_t basis = -1;
    bool from_cache = false;
    /* Unguarded appends check no incarnation: the handle's own uuid only
     * selects the cache. */
    hl_status st =
        table_cache_basis(t, expected ? expected : t->uuid, &info, &basis, &from_cache, err);
    struct job j;
    bool job_ready = false;
    if (st == HL_OK) {
        st = job_init(&j, t, info, o, NULL, res, err);
        job_ready = true;
    }
    if (st == HL_OK)
        st = job_run(&j, streams, nstreams, err);
    release_streams(streams, nstreams);
    if (st == HL_OK) {
        int64_t read_snapshot = o->read_snapshot >= 0 ? o->read_snapshot
                                : j.table.partitioned ? basis
                                                      : -1;
        json_t *body = commit_body(&j, expected, read_snapshot, NULL);
        if (!body ||
            (o->author && json_object_set_new(body, "author", json_string(o->author)) != 0) ||
            (o->message && json_object_set_new(body, "message", json_string(o->message)) != 0))
            st = client_nomem(err);
        struct buf path = BUF_INIT;
        json_t *ans = NULL;
        if (st == HL_OK &&
            (client_catalog_path(&path, t->ns->catalog) != 0 || buf_puts(&path, "/commit") != 0))
            st = client_nomem(err);
        if (st == HL_OK)
            st = client_json(t->ns->catalog->client, "POST", path.data, body, &ans, err);
        buf_free(&path);
        json_decref(body);
        if (st == HL_OK) {
            client_json_int(ans, "snapshot_id", &res->snapshot_id);
            client_json_int(ans, "schema_version", &res->schema_version);
        } else {
            if (st == HL_ERR_EXPIRED && err)
                err->re_prepare = true;
            table_cache_after_refusal(t, err, from_cache);
        }
        json_decref(ans);
    }
    if (job_ready)
        job_release(&j);
    json_decref(info);
    if (st != HL_OK) {
        /* Nothing was committed: the files listed are not the table's. */
        res->snapshot_id = -1;
    }
    give_result(res, result);
    return st;
}

bool client_is_uuid(const char *s)
{
    if (!s || strlen(s) != 36)
        return false;
    for (int i = 0; i < 36; i++) {
        bool dash = i == 8 || i == 13 || i == 18 || i == 23;
        char c = s[i];
        bool hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
        if (dash ? c != '-' : !hex)
            return false;
    }
    return true;
}

hl_status hl_table_prepare_append(hl_table *t, struct ArrowArrayStream *stream,
                                  const char *idempotency_key, char **payload,
                                  struct hl_append_result **uploaded, struct hl_error *err)
{
    *payload = NULL;
    if (uploaded)
        *uploaded = NULL;
    if (!t || !streams_ok(&stream, 1)) {
        release_streams(&stream, 1);
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                           "a table and a stream are required");
    }
    if (!client_is_uuid(idempotency_key)) {
        release_streams(&stream, 1);
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                           "the idempotency key must be a UUID");
    }
    struct hl_append_result *res = client_append_result_new();
    if (!res) {
        release_streams(&stream, 1);
        return client_nomem(err);
    }
    json_t *info = NULL;
    int64_t basis = -1;
    bool from_cache = false;
    hl_status st = table_cache_basis(t, NULL, &info, &basis, &from_cache, err);
    struct job j;
    bool job_ready = false;
    if (st == HL_OK) {
        st = job_init(&j, t, info, NULL, idempotency_key, res, err);
        job_ready = true;
    }
    if (st == HL_OK)
        st = job_run(&j, &stream, 1, err);
    release_streams(&stream, 1);
    if (st == HL_OK) {
        json_t *body = commit_body(&j, t->uuid, basis, idempotency_key);
        if (!body || !(*payload = json_dumps(body, JSON_COMPACT)))
            st = client_nomem(err);
        json_decref(body);
    }
    if (job_ready)
        job_release(&j);
    json_decref(info);
    give_result(res, uploaded);
    return st;
}
