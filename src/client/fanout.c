/* One append's open Parquet files, by partition tuple, streamed to storage
 * as they are encoded (see fanout.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/append.h"
#include "client/fanout.h"
#include "client/variant_report.h"
#include "lake/partition.h"
#include "objstore/objstore.h"
#include "parquet/colstats.h"
#include "util/arena.h"
#include "util/array.h"
#include "util/base64.h"
#include "util/error.h"

#define DEFAULT_FILE_BYTES ((int64_t)512 << 20)
#define DEFAULT_MEMORY_BYTES ((int64_t)1 << 30)

struct out_file {
    char **tuple; /* partition values (NULL entries: null); NULL when unpartitioned */
    struct pq_writer *writer;
    struct objstore_writer *upload;
    char uri[4096];
    uint64_t bytes; /* Parquet bytes handed to the upload */
    int64_t rows;
    /* The upload's own error, kept because the writer sees only "the sink
     * failed". */
    bool upload_failed;
    struct hl_error upload_err;
};

struct fanout {
    struct fanout_config cfg;
    size_t nfields; /* partition spec fields */
    struct out_file **open;
    size_t nopen, open_cap;
    struct hl_append_result *res;
    json_t *files;
    struct arena arena; /* footer statistics while they become JSON */
};

/* The writer's sink: bytes go straight to the file's upload. */
static int sink_upload(void *ctx, const void *data, size_t len, struct error *err)
{
    struct out_file *f = ctx;
    if (objstore_writer_write(f->upload, data, len, &f->upload_err) != 0) {
        f->upload_failed = true;
        return error_fail(err, ERR_IO, "uploading %s: %s", f->uri, f->upload_err.message);
    }
    f->bytes += len;
    return 0;
}

/* A failure of the writer: the upload's own error when it caused it. */
static hl_status writer_failure(const struct out_file *f, const struct error *pe, const char *what,
                                struct hl_error *err)
{
    if (!f->upload_failed)
        return error_publish(err, HL_ERR_VALIDATION, pe, "%s", what);
    if (err) {
        *err = f->upload_err;
        client_error_prefix(err, "uploading %s", f->uri);
    }
    return f->upload_err.status;
}

static void tuple_free(char **tuple, size_t n)
{
    for (size_t i = 0; tuple && i < n; i++)
        free(tuple[i]);
    free(tuple);
}

static void file_free(struct fanout *fo, struct out_file *f)
{
    if (!f)
        return;
    pq_writer_free(f->writer);
    objstore_writer_abort(f->upload);
    tuple_free(f->tuple, fo->nfields);
    free(f);
}

/* Starts the file's next object: a claimed path, its upload and its
 * writer. */
static hl_status file_start(struct fanout *fo, struct out_file *f, struct hl_error *err)
{
    hl_status st = claims_take(fo->cfg.claims, f->uri, sizeof f->uri, err);
    if (st != HL_OK)
        return st;
    f->bytes = 0;
    f->rows = 0;
    f->upload_failed = false;
    if (objstore_writer_open(fo->cfg.store, f->uri, fo->cfg.upload_flags, &f->upload, err) != 0)
        return err ? err->status : HL_ERR_IO;
    struct pq_sink sink = {sink_upload, f};
    struct error pe;
    if (pq_writer_open(fo->cfg.table, fo->cfg.wopt, &sink, &f->writer, &pe) != 0)
        return writer_failure(f, &pe, "opening a Parquet writer", err);
    return HL_OK;
}

static bool tuple_equal(const char *const *a, const char *const *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!a[i] != !b[i] || (a[i] && strcmp(a[i], b[i]) != 0))
            return false;
    }
    return true;
}

/* The index of the open file for a tuple (NULL: unpartitioned), opened
 * when there is none. */
static hl_status file_for(struct fanout *fo, char *const *tuple, size_t *index,
                          struct hl_error *err)
{
    for (size_t i = 0; i < fo->nopen; i++) {
        if (!tuple || tuple_equal((const char *const *)fo->open[i]->tuple,
                                  (const char *const *)tuple, fo->nfields)) {
            *index = i;
            return HL_OK;
        }
    }
    if (ARRAY_RESERVE(fo->open, fo->open_cap, fo->nopen + 1, 8) != 0)
        return client_nomem(err);
    struct out_file *f = calloc(1, sizeof *f);
    if (!f)
        return client_nomem(err);
    if (tuple && !(f->tuple = calloc(fo->nfields, sizeof *f->tuple))) {
        free(f);
        return client_nomem(err);
    }
    for (size_t i = 0; tuple && i < fo->nfields; i++) {
        if (tuple[i] && !(f->tuple[i] = strdup(tuple[i]))) {
            file_free(fo, f);
            return client_nomem(err);
        }
    }
    fo->open[fo->nopen] = f;
    *index = fo->nopen++;
    return HL_OK;
}

static int record_file(struct hl_append_result *res, const struct out_file *f, size_t nfields)
{
    struct hl_appended_file *p = realloc(res->files, (res->nfiles + 1) * sizeof *p);
    if (!p)
        return -1;
    res->files = p;
    struct hl_appended_file *a = &p[res->nfiles];
    memset(a, 0, sizeof *a);
    res->nfiles++;
    a->record_count = f->rows;
    a->file_size_bytes = (int64_t)f->bytes;
    if (!(a->path = strdup(f->uri)))
        return -1;
    if (f->tuple) {
        if (!(a->partition_values = calloc(nfields, sizeof *a->partition_values)))
            return -1;
        a->npartition_values = nfields;
        for (size_t i = 0; i < nfields; i++) {
            if (f->tuple[i] && !(a->partition_values[i] = strdup(f->tuple[i])))
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
    struct error pe;
    if (pq_footer_column_stats(meta, schema, table, arena, &stats, &n, &pe) != 0) {
        error_publish(err, HL_ERR_VALIDATION, &pe, "the footer's statistics");
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

/* The FileRegistration of a finished file; NULL with err filled. */
static json_t *registration(struct fanout *fo, const struct out_file *f,
                            const struct pq_write_result *w, struct hl_error *err)
{
    json_t *reg = json_pack("{s:s, s:I, s:I, s:I}", "path", f->uri, "record_count",
                            (json_int_t)f->rows, "file_size_bytes", (json_int_t)w->file_size,
                            "footer_size", (json_int_t)w->footer_size);
    if (!reg) {
        client_nomem(err);
        return NULL;
    }
    if (!fo->cfg.deferred_stats) {
        json_t *stats =
            client_column_stats_json(&w->meta, &w->schema, fo->cfg.table, &fo->arena, err);
        arena_free(&fo->arena);
        arena_init(&fo->arena, 0);
        if (!stats || json_object_set_new(reg, "column_stats", stats) != 0) {
            if (stats)
                client_nomem(err);
            json_decref(reg);
            return NULL;
        }
    }
    if (f->tuple) {
        json_t *pv = json_array();
        for (size_t i = 0; pv && i < fo->nfields; i++) {
            json_t *v = f->tuple[i] ? json_string(f->tuple[i]) : json_null();
            if (json_array_append_new(pv, v) != 0) {
                json_decref(pv);
                pv = NULL;
            }
        }
        if (!pv || json_object_set_new(reg, "partition_values", pv) != 0) {
            json_decref(reg);
            client_nomem(err);
            return NULL;
        }
    }
    return reg;
}

/* Finishes the file's current object: the footer, the upload's commit, the
 * registration. */
static hl_status file_finish(struct fanout *fo, struct out_file *f, struct hl_error *err)
{
    struct pq_write_result w;
    struct error pe;
    struct pq_writer *writer = f->writer;
    f->writer = NULL;
    if (pq_writer_close(writer, &w, &pe) != 0)
        return writer_failure(f, &pe, "finishing a Parquet file", err);
    json_t *reg = registration(fo, f, &w, err);
    client_variant_report_file(fo->res, &w);
    pq_write_result_release(&w);
    if (!reg)
        return err ? err->status : HL_ERR_NOMEM;
    struct objstore_writer *upload = f->upload;
    f->upload = NULL;
    hl_status st = HL_OK;
    if (objstore_writer_commit(upload, NULL, err) != 0) {
        client_error_prefix(err, "uploading %s", f->uri);
        st = err ? err->status : HL_ERR_IO;
    } else if (client_result_uploaded(fo->res, f->uri) != 0 ||
               record_file(fo->res, f, fo->nfields) != 0 ||
               json_array_append(fo->files, reg) != 0) {
        st = client_nomem(err);
    }
    json_decref(reg);
    return st;
}

/* Finishes open file i and closes it. */
static hl_status file_close(struct fanout *fo, size_t i, struct hl_error *err)
{
    struct out_file *f = fo->open[i];
    hl_status st = f->writer ? file_finish(fo, f, err) : HL_OK;
    file_free(fo, f);
    /* Open files stay in order of first occurrence: so do the results. */
    memmove(&fo->open[i], &fo->open[i + 1], (fo->nopen - i - 1) * sizeof *fo->open);
    fo->nopen--;
    return st;
}

/* Writes rows [start, start + len) of the batch into open file i, rolling
 * over to a new object past the size limit. */
static hl_status write_rows(struct fanout *fo, size_t i, const struct ArrowArray *batch,
                            int64_t start, int64_t len, struct hl_error *err)
{
    struct out_file *f = fo->open[i];
    /* An object starts with its first rows (after a rollover, only if more
     * come). */
    if (!f->writer) {
        hl_status st = file_start(fo, f, err);
        if (st != HL_OK)
            return st;
    }
    /* A slice: the same buffers seen from another offset (the writer
     * honours the parent's offset). */
    struct ArrowArray slice = *batch;
    slice.offset = batch->offset + start;
    slice.length = len;
    slice.release = NULL;
    struct error pe;
    if (pq_writer_write(f->writer, fo->cfg.schema, &slice, &pe) != 0)
        return writer_failure(f, &pe, "encoding Parquet", err);
    f->rows += len;
    return (int64_t)f->bytes < fo->cfg.file_bytes ? HL_OK : file_finish(fo, f, err);
}

/* Keeps the row groups being built within the memory budget by finishing
 * the largest open file while they hold too much. */
static hl_status within_budget(struct fanout *fo, struct hl_error *err)
{
    for (;;) {
        size_t total = 0, largest = 0, at = 0;
        for (size_t i = 0; i < fo->nopen; i++) {
            const struct pq_writer *w = fo->open[i]->writer;
            size_t b = w ? pq_writer_buffered_bytes(w) : 0;
            total += b;
            if (b > largest) {
                largest = b;
                at = i;
            }
        }
        if (fo->nopen < 2 || (int64_t)total <= fo->cfg.memory_bytes)
            return HL_OK;
        hl_status st = file_close(fo, at, err);
        if (st != HL_OK)
            return st;
    }
}

/* Each row's partition tuple (to be freed with lake_partition_groups_free
 * on success). */
static hl_status group_rows(struct fanout *fo, const struct ArrowArray *batch,
                            struct lake_partition_groups *g, struct hl_error *err)
{
    struct error lerr;
    if (lake_partition_group_rows(fo->cfg.table, fo->cfg.schema, batch, g, &lerr) != 0)
        return client_fail(err, lerr.code == ERR_NOMEM ? HL_ERR_NOMEM : HL_ERR_VALIDATION,
                           "validation", "partitioning: %s", lerr.msg);
    return HL_OK;
}

hl_status fanout_write(struct fanout *fo, const struct ArrowArray *batch, struct hl_error *err)
{
    const struct lake_table *t = fo->cfg.table;
    size_t i = 0;
    /* No file is begun for no rows: an input that holds none writes nothing. */
    if (batch->length == 0)
        return HL_OK;
    if (!t->partitioned) {
        hl_status st = file_for(fo, NULL, &i, err);
        return st == HL_OK ? write_rows(fo, i, batch, 0, batch->length, err) : st;
    }
    struct lake_partition_groups g;
    hl_status st = group_rows(fo, batch, &g, err);
    if (st != HL_OK)
        return st;
    /* Runs of consecutive rows of one tuple go to its file as one slice. */
    for (int64_t r = 0; st == HL_OK && r < g.nrows;) {
        uint32_t k = g.group_of_row[r];
        int64_t e = r + 1;
        while (e < g.nrows && g.group_of_row[e] == k)
            e++;
        st = file_for(fo, &g.values[k * g.nfields], &i, err);
        if (st == HL_OK)
            st = write_rows(fo, i, batch, r, e - r, err);
        r = e;
    }
    lake_partition_groups_free(&g);
    return st == HL_OK ? within_budget(fo, err) : st;
}

/* A tuple as the server spells it, for messages: (a, null, c). */
static void tuple_text(char *out, size_t cap, const char *const *tuple, size_t n)
{
    size_t len = (size_t)snprintf(out, cap, "(");
    for (size_t i = 0; i < n && len < cap; i++)
        len += (size_t)snprintf(out + len, cap - len, "%s%s", i ? ", " : "",
                                tuple[i] ? tuple[i] : "null");
    if (len < cap)
        snprintf(out + len, cap - len, ")");
}

hl_status fanout_write_as(struct fanout *fo, const struct ArrowArray *batch,
                          const char *const *tuple, size_t nfields, struct hl_error *err)
{
    const struct lake_table *t = fo->cfg.table;
    if (nfields != fo->nfields)
        return client_fail(err, HL_ERR_VALIDATION, "validation",
                           "prepared group partition arity differs from destination (the group "
                           "has %zu values, the table %zu partition fields)",
                           nfields, fo->nfields);
    if (!t->partitioned || batch->length == 0)
        return fanout_write(fo, batch, err);
    struct lake_partition_groups g;
    hl_status st = group_rows(fo, batch, &g, err);
    if (st != HL_OK)
        return st;
    for (int64_t r = 0; r < g.nrows; r++) {
        const char *const *row = (const char *const *)&g.values[g.group_of_row[r] * g.nfields];
        if (!tuple_equal(row, tuple, nfields)) {
            char want[256], got[256];
            tuple_text(want, sizeof want, tuple, nfields);
            tuple_text(got, sizeof got, row, nfields);
            st = client_fail(err, HL_ERR_VALIDATION, "validation",
                             "a row of the group for partition %s is in partition %s", want, got);
            break;
        }
    }
    size_t i = 0;
    /* Every row is in the caller's tuple: one slice, to that tuple's file. */
    if (st == HL_OK && g.nrows > 0)
        st = file_for(fo, &g.values[g.group_of_row[0] * g.nfields], &i, err);
    if (st == HL_OK && g.nrows > 0)
        st = write_rows(fo, i, batch, 0, batch->length, err);
    lake_partition_groups_free(&g);
    return st == HL_OK ? within_budget(fo, err) : st;
}

hl_status fanout_finish(struct fanout *fo, struct hl_error *err)
{
    hl_status st = HL_OK;
    while (st == HL_OK && fo->nopen > 0)
        st = file_close(fo, 0, err);
    return st;
}

hl_status fanout_new(const struct fanout_config *cfg, struct hl_append_result *res, json_t *files,
                     struct fanout **out, struct hl_error *err)
{
    *out = NULL;
    struct fanout *fo = calloc(1, sizeof *fo);
    if (!fo)
        return client_nomem(err);
    fo->cfg = *cfg;
    if (fo->cfg.file_bytes <= 0)
        fo->cfg.file_bytes = DEFAULT_FILE_BYTES;
    if (fo->cfg.memory_bytes <= 0)
        fo->cfg.memory_bytes = DEFAULT_MEMORY_BYTES;
    fo->nfields = cfg->table->partitioned ? cfg->table->nspec_fields : 0;
    fo->res = res;
    fo->files = files;
    arena_init(&fo->arena, 0);
    *out = fo;
    return HL_OK;
}

void fanout_free(struct fanout *fo)
{
    if (!fo)
        return;
    for (size_t i = 0; i < fo->nopen; i++)
        file_free(fo, fo->open[i]);
    free(fo->open);
    arena_free(&fo->arena);
    free(fo);
}
