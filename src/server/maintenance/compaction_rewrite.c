/* Compaction's rewrite (compaction_rewrite.h). */
#include "server/maintenance/compaction_rewrite.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lake/puffin.h"
#include "objstore/objstore.h"
#include "parquet/colstats.h"
#include "parquet/reader.h"
#include "parquet/variant_shred.h"
#include "parquet/writer.h"
#include "rows/rows_filter.h"
#include "rows/rows_project.h"
#include "rows/rows_schema.h"
#include "rows/rows_sort.h"
#include "server/maintenance/file_stats.h"
#include "util/array.h"
#include "util/arrow.h"

/* Rows gathered into one output batch at a time. */
enum { TAKE_ROWS = 65536 };

int cpt_add_row_id_column(struct lake_table *t, char *msg, size_t msg_size)
{
    struct error le;
    if (lake_table_load_column(t, LAKE_ROW_ID_FIELD_ID, 0, LAKE_ROW_ID_COLUMN, LT_LONG, 0, 0, false,
                               (int)t->root.nchildren, NULL, &le) != 0) {
        snprintf(msg, msg_size, "%s", le.msg);
        return -1;
    }
    return 0;
}

/* Every input's batches, in the layout's shape, in input order. */
struct rows_in {
    struct ArrowArray *batches;
    size_t n, cap;
    int64_t rows;
};

static void rows_in_free(struct rows_in *in)
{
    for (size_t i = 0; i < in->n; i++)
        if (in->batches[i].release)
            in->batches[i].release(&in->batches[i]);
    free(in->batches);
    memset(in, 0, sizeof *in);
}

static int rows_in_push(struct rows_in *in, struct ArrowArray *b)
{
    if (ARRAY_RESERVE(in->batches, in->cap, in->n + 1, 16) != 0)
        return -1;
    arrow_array_move(b, &in->batches[in->n++]);
    return 0;
}

static enum cpt_rewrite_outcome fail(enum cpt_rewrite_outcome o, char *msg, size_t size,
                                     const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static enum cpt_rewrite_outcome fail(enum cpt_rewrite_outcome o, char *msg, size_t size,
                                     const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, size, fmt, ap);
    va_end(ap);
    return o;
}

/* The row-id child of a batch: checked (explicit ids: no nulls) or made
 * (implicit: start + position). *min tracks the smallest id, deleted rows'
 * too: this is before any row is dropped, while a row's position in the
 * batch is its position in the file. Returns 0, 1 when an explicit id is
 * null, -1 out of memory. */
static int row_ids(struct ArrowArray *col, bool explicit_ids, int64_t first, int64_t *min)
{
    int64_t n = col->length;
    if (explicit_ids) {
        const uint8_t *valid = col->n_buffers > 0 ? col->buffers[0] : NULL;
        const int64_t *v = col->n_buffers > 1 ? col->buffers[1] : NULL;
        if (n > 0 && !v)
            return 1;
        for (int64_t i = 0; i < n; i++) {
            int64_t p = col->offset + i;
            if (valid && !arrow_bit(valid, p))
                return 1;
            if (v[p] < *min)
                *min = v[p];
        }
        return 0;
    }
    int64_t *values = malloc((size_t)(n ? n : 1) * sizeof *values);
    if (!values)
        return -1;
    for (int64_t i = 0; i < n; i++)
        values[i] = first + i;
    if (n > 0 && first < *min)
        *min = first;
    col->release(col);
    memset(col, 0, sizeof *col);
    if (arrow_array_init(col, 2, 0) != 0) {
        free(values);
        return -1;
    }
    arrow_array_own_buffer(col, 1, values);
    col->length = n;
    return 0;
}

/* A group's inputs are fetched this many at a time: on S3 reading many
 * small files is mostly waiting for round trips (contract: 8 parallel
 * input opens). */
enum { CPT_PARALLEL_FETCHES = 8 };

/* An input's objects, fetched whole: its data file and, when it has one,
 * its deletion vector's Puffin file. */
struct fetched {
    struct buf data, dv;
    struct hl_error data_err, dv_err; /* status 0: fetched */
};

/* The objects of a group's inputs, fetched by a few threads. */
struct fetch {
    struct objstore *os;
    const struct cpt_group *g;
    struct fetched *got; /* one per input */
    pthread_mutex_t mu;
    size_t next; /* the next input to fetch (under mu) */
};

/* One object, read up to its registered size plus a byte: a larger or
 * smaller object is refused (size_mismatch) having cost no more memory
 * than its registration promised. */
static void fetch_sized(struct objstore *os, const char *path, int64_t size, struct buf *data,
                        struct hl_error *e)
{
    e->status = HL_OK;
    objstore_get_sized(os, path, size > 0 ? (uint64_t)size : 0, data, e);
}

static void fetch_one(struct objstore *os, const struct store_compaction_input *in,
                      struct fetched *got)
{
    fetch_sized(os, in->path, in->size, &got->data, &got->data_err);
    got->dv_err.status = HL_OK;
    if (in->dv.id != 0 && got->data_err.status == HL_OK)
        fetch_sized(os, in->dv.path, in->dv.size, &got->dv, &got->dv_err);
}

static void *fetch_main(void *arg)
{
    struct fetch *f = arg;
    for (;;) {
        pthread_mutex_lock(&f->mu);
        size_t i = f->next++;
        pthread_mutex_unlock(&f->mu);
        if (i >= f->g->ninputs)
            return NULL;
        fetch_one(f->os, &f->g->inputs[i], &f->got[i]);
    }
}

/* Fetches every input; a thread that cannot start leaves its share to the
 * others (at worst to this thread). */
static void fetch_all(struct fetch *f)
{
    pthread_t th[CPT_PARALLEL_FETCHES - 1];
    size_t started = 0;
    for (size_t t = 0; t + 1 < CPT_PARALLEL_FETCHES && t + 1 < f->g->ninputs; t++)
        if (pthread_create(&th[started], NULL, fetch_main, f) == 0)
            started++;
    fetch_main(f);
    for (size_t t = 0; t < started; t++)
        pthread_join(th[t], NULL);
}

/* A failed projection of input f: -1 out of memory, else 0 with *o. The
 * reader's own errors mean the file is bad; rows_adapt's (ERR_INVALID,
 * ERR_LIMIT) that a column cannot take the layout's type. */
static int project_failed(const struct error *e, const struct store_compaction_input *f,
                          enum cpt_rewrite_outcome *o, char *msg, size_t msg_size)
{
    if (e->code == ERR_NOMEM)
        return -1;
    bool unconvertible = e->code == ERR_INVALID || e->code == ERR_LIMIT;
    *o = fail(unconvertible ? CPT_UNCONVERTIBLE : CPT_INVALID_DATA, msg, msg_size, "%s: %s",
              f->path, e->msg);
    return 0;
}

/* A failed fetch of `path`: -1 out of memory, else 0 with *o (CPT_REFUSED
 * with *refusal when the confined store refused it). */
static int fetch_failed(const struct hl_error *e, const char *path, enum cpt_rewrite_outcome *o,
                        struct cpt_refusal *refusal, char *msg, size_t msg_size)
{
    if (e->status == HL_ERR_NOMEM)
        return -1;
    if (e->status == HL_ERR_FORBIDDEN)
        *refusal = (struct cpt_refusal){path, "read", *e};
    *o = fail(e->status == HL_ERR_FORBIDDEN ? CPT_REFUSED : CPT_STORAGE, msg, msg_size,
              "reading %s: %s", path, e->message);
    return 0;
}

/* The deletion vector the plan pairs with input f, decoded from its
 * fetched Puffin file into the empty *dv (left empty when f has none). A
 * vector that is not for f, holds a position past its rows or disagrees
 * with the catalog's count is invalid_data: dropping rows by it could
 * lose some or resurrect others. Returns 0 with *o, or -1 out of memory. */
static int load_dv(const struct fetched *got, const struct store_compaction_input *f,
                   struct lake_dv *dv, enum cpt_rewrite_outcome *o, struct cpt_refusal *refusal,
                   char *msg, size_t msg_size)
{
    *o = CPT_REWRITTEN;
    if (f->dv.id == 0)
        return 0;
    if (got->dv_err.status != HL_OK)
        return fetch_failed(&got->dv_err, f->dv.path, o, refusal, msg, msg_size);
    struct error e;
    if (lake_puffin_load_dv((const uint8_t *)got->dv.data, got->dv.len, f->path,
                            (uint64_t)(f->record_count > 0 ? f->record_count : 0), dv, &e) != 0) {
        *o = fail(CPT_INVALID_DATA, msg, msg_size, "%s: %s", f->dv.path, e.msg);
        return e.code == ERR_NOMEM ? -1 : 0;
    }
    if (dv->n != (uint64_t)f->dv.count)
        *o = fail(CPT_INVALID_DATA, msg, msg_size,
                  "%s: the deletion vector of %s holds %zu positions, the catalog says %lld",
                  f->dv.path, f->path, dv->n, (long long)f->dv.count);
    return 0;
}

/* Lowers *min to the smallest id of a row-id column without nulls. */
static void lower_min(const struct ArrowArray *col, int64_t *min)
{
    const int64_t *v = col->n_buffers > 1 ? col->buffers[1] : NULL;
    for (int64_t i = 0; v && i < col->length; i++)
        if (v[col->offset + i] < *min)
            *min = v[col->offset + i];
}

/* A decimal4 or decimal8 leaf: the writer takes its unscaled int32 or
 * int64 ("i", "l"), the reader gives a decimal128 ("d:p,s") of the same
 * values (narrow_decimals converts). */
static bool narrowed_decimal(const char *file_format, const char *storage_format)
{
    return strncmp(file_format, "d:", 2) == 0 &&
           (strcmp(storage_format, "i") == 0 || strcmp(storage_format, "l") == 0);
}

/* Whether a file's storage s of a variant column is the layout's (storage,
 * named after the column): field names and nullability below the top (a
 * writer's optional field group is a missing field, never in ours), and
 * formats, node for node, decimal4/8 leaves as read. */
static bool storage_is(const struct ArrowSchema *s, const struct ArrowSchema *storage, bool top)
{
    if ((!top && (strcmp(s->name ? s->name : "", storage->name ? storage->name : "") != 0 ||
                  (s->flags & ARROW_FLAG_NULLABLE) != (storage->flags & ARROW_FLAG_NULLABLE))) ||
        s->n_children != storage->n_children)
        return false;
    if (strcmp(s->format, storage->format) != 0 && !narrowed_decimal(s->format, storage->format))
        return false;
    for (int64_t i = 0; i < s->n_children; i++)
        if (!storage_is(s->children[i], storage->children[i], false))
            return false;
    return true;
}

/* Converts, in place, the decimal4/8 leaves of a as the file holds them
 * (schema file) to the unscaled ints the layout's storage takes. The
 * values fit: the file's DECIMAL(p, s) has p <= 18. Returns 0, or -1 out
 * of memory. */
static int narrow_decimals(const struct ArrowSchema *file, const struct ArrowSchema *storage,
                           struct ArrowArray *a)
{
    for (int64_t i = 0; i < file->n_children && i < a->n_children; i++)
        if (narrow_decimals(file->children[i], storage->children[i], a->children[i]) != 0)
            return -1;
    if (!narrowed_decimal(file->format, storage->format))
        return 0;
    size_t width = strcmp(storage->format, "i") == 0 ? 4 : 8;
    int64_t n = a->length;
    struct ArrowArray out;
    if (arrow_array_init(&out, 2, 0) != 0)
        return -1;
    uint8_t *values = malloc((size_t)(n ? n : 1) * width);
    uint8_t *valid = NULL;
    const uint8_t *in_valid = a->n_buffers > 0 ? a->buffers[0] : NULL;
    if (in_valid && a->null_count != 0)
        valid = calloc((size_t)(n / 8 + 1), 1);
    if (!values || (in_valid && a->null_count != 0 && !valid)) {
        free(values);
        free(valid);
        out.release(&out);
        return -1;
    }
    const uint8_t *d = a->n_buffers > 1 ? a->buffers[1] : NULL;
    int64_t nulls = 0;
    for (int64_t k = 0; k < n; k++) {
        int64_t at = a->offset + k;
        bool ok = !in_valid || arrow_bit(in_valid, at);
        if (valid && ok)
            arrow_set_bit(valid, k, true);
        nulls += !ok;
        uint64_t low = 0; /* little-endian: the low bytes of the 128-bit value */
        if (ok && d)
            memcpy(&low, d + 16 * at, 8);
        memcpy(values + (size_t)k * width, &low, width);
    }
    arrow_array_own_buffer(&out, 0, valid);
    arrow_array_own_buffer(&out, 1, values);
    out.length = n;
    out.null_count = valid ? nulls : 0;
    a->release(a);
    arrow_array_move(&out, a);
    return 0;
}

/* The variant columns every input holds in the layout the output is
 * written in: their groups are carried through as they are (neither
 * checked, which their writing did, nor unshredded and shredded again),
 * and *schema's fields for them become their storage. keep[c] says, for
 * each top-level column; *carried and *reencoded count the variant
 * columns each way. Returns 0, or -1 out of memory. */
static int carry_variants(const struct fetched *got, const struct cpt_group *g,
                          const struct lake_table *layout, struct ArrowSchema *schema, bool *keep,
                          int64_t *carried, int64_t *reencoded)
{
    for (size_t c = 0; c < layout->root.nchildren; c++) {
        const struct lake_column *col = layout->root.children[c];
        keep[c] = false;
        if (col->type != LT_VARIANT)
            continue;
        struct ArrowSchema storage;
        struct error e;
        if (pq_variant_storage_schema(col, &storage, &e) != 0) {
            if (e.code == ERR_NOMEM)
                return -1;
            ++*reencoded; /* the writer refuses it: the rewrite fails there */
            continue;
        }
        bool all = true;
        for (size_t i = 0; all && i < g->ninputs; i++) {
            struct pq_source src;
            struct pq_reader *r = NULL;
            struct rows_projection proj = {0};
            pq_source_memory(&src, got[i].data.data, got[i].data.len);
            all = got[i].data_err.status == HL_OK && pq_reader_open(&src, &r, &e) == 0 &&
                  rows_project_open(r, layout, &proj, &e) == 0 && rows_project_has(&proj, c) &&
                  storage_is(proj.projected.children[c], &storage, true);
            rows_project_free(&proj);
            pq_reader_free(r);
        }
        if (all) {
            schema->children[c]->release(schema->children[c]);
            arrow_schema_move(&storage, schema->children[c]);
            keep[c] = true;
            ++*carried;
        } else {
            storage.release(&storage);
            ++*reencoded;
        }
    }
    return 0;
}

/* One chunk b (taken) of a row group of input f, read at file position
 * *position: its row ids set from the positions, then the rows dv deletes
 * dropped; the rows left go to in, their smallest id to *min. Returns 0
 * with *o, or -1 out of memory. */
static int read_chunk(struct ArrowArray *b_in, struct rows_projection *proj,
                      const struct lake_table *layout, const struct ArrowSchema *schema,
                      const struct store_compaction_input *f, const struct lake_dv *dv,
                      int64_t *position, int64_t *file_min, struct rows_in *in, int64_t *min,
                      enum cpt_rewrite_outcome *o, char *msg, size_t msg_size)
{
    struct ArrowArray b;
    struct error pe;
    arrow_array_move(b_in, &b);
    for (size_t c = 0; proj->keep_variant_storage && c < layout->root.nchildren; c++)
        if (proj->keep_variant_storage[c] &&
            narrow_decimals(proj->projected.children[c], schema->children[c], b.children[c]) != 0) {
            b.release(&b);
            return -1;
        }
    size_t rid = layout->root.nchildren - 1;
    int64_t first = *position;
    *position += b.length;
    int rc = row_ids(b.children[rid], f->explicit_row_ids, f->row_id_start + first, file_min);
    if (rc == 1)
        *o = fail(CPT_INVALID_DATA, msg, msg_size, "%s: a null %s", f->path, LAKE_ROW_ID_COLUMN);
    uint64_t dropped = 0;
    if (rc == 0 && dv->n > 0 &&
        rows_drop_deleted(schema, &b, (uint64_t)first, dv, &dropped, &pe) != 0) {
        rc = pe.code == ERR_NOMEM ? -1 : 1;
        *o = fail(CPT_INVALID_DATA, msg, msg_size, "%s: %s", f->path, pe.msg);
    }
    if (rc == 0 && b.length > 0) {
        lower_min(b.children[rid], min);
        in->rows += b.length;
        rc = rows_in_push(in, &b);
    }
    if (b.release)
        b.release(&b);
    return rc < 0 ? -1 : 0;
}

/* One row group of input f, a chunk at a time (rows_project_chunks: a row
 * group of big documents unshreds in parts), as read_chunk reads it. */
static int read_group(struct pq_reader *r, size_t group, struct rows_projection *proj,
                      const struct lake_table *layout, const struct ArrowSchema *schema,
                      const struct store_compaction_input *f, const struct lake_dv *dv,
                      int64_t *position, int64_t *file_min, struct rows_in *in, int64_t *min,
                      enum cpt_rewrite_outcome *o, char *msg, size_t msg_size)
{
    struct rows_chunks *chunks;
    struct error pe;
    if (rows_project_chunks(r, group, proj, layout, &chunks, &pe) != 0)
        return project_failed(&pe, f, o, msg, msg_size);
    int rc = 0;
    while (rc == 0 && *o == CPT_REWRITTEN) {
        struct ArrowArray b;
        int64_t at;
        int got = rows_chunks_next(chunks, &b, &at, &pe);
        if (got <= 0) {
            rc = got < 0 ? project_failed(&pe, f, o, msg, msg_size) : 0;
            break;
        }
        rc = read_chunk(&b, proj, layout, schema, f, dv, position, file_min, in, min, o, msg,
                        msg_size);
    }
    rows_chunks_free(chunks);
    return rc;
}

/* Reads one fetched input into in, without the rows its deletion vector
 * deletes; keep: the variant columns read as stored (carry_variants).
 * Returns 0 with *o (CPT_REWRITTEN: read), or -1 out of memory. */
static int read_input(const struct fetched *got, const struct lake_table *layout,
                      const struct ArrowSchema *schema, const bool *keep,
                      const struct store_compaction_input *f, struct rows_in *in, int64_t *min,
                      enum cpt_rewrite_outcome *o, struct cpt_refusal *refusal, char *msg,
                      size_t msg_size)
{
    *o = CPT_REWRITTEN;
    if (got->data_err.status != 0)
        return fetch_failed(&got->data_err, f->path, o, refusal, msg, msg_size);
    struct lake_dv dv;
    lake_dv_init(&dv);
    struct pq_source src;
    pq_source_memory(&src, got->data.data, got->data.len);
    struct pq_reader *r = NULL;
    struct error pe;
    struct rows_projection proj = {0};
    int rc = load_dv(got, f, &dv, o, refusal, msg, msg_size);
    if (rc != 0 || *o != CPT_REWRITTEN)
        goto out;
    if (pq_reader_open(&src, &r, &pe) != 0) {
        rc = pe.code == ERR_NOMEM ? -1 : 0;
        *o = fail(CPT_INVALID_DATA, msg, msg_size, "%s: %s", f->path, pe.msg);
        goto out;
    }
    if (rows_project_open(r, layout, &proj, &pe) != 0) {
        rc = project_failed(&pe, f, o, msg, msg_size);
        goto out;
    }
    proj.keep_variant_storage = keep;
    size_t rid = layout->root.nchildren - 1;
    if ((bool)rows_project_has(&proj, rid) != f->explicit_row_ids) {
        *o = fail(CPT_INVALID_DATA, msg, msg_size, "%s: %s a %s column, but explicit_row_ids is %s",
                  f->path, f->explicit_row_ids ? "lacks" : "has", LAKE_ROW_ID_COLUMN,
                  f->explicit_row_ids ? "true" : "false");
        goto out;
    }
    int64_t position = 0, file_min = INT64_MAX;
    size_t groups = pq_reader_meta(r)->nrow_groups;
    for (size_t g = 0; g < groups && *o == CPT_REWRITTEN && rc == 0; g++)
        rc = read_group(r, g, &proj, layout, schema, f, &dv, &position, &file_min, in, min, o, msg,
                        msg_size);
    if (rc == 0 && *o == CPT_REWRITTEN && position != f->record_count)
        *o = fail(CPT_INVALID_DATA, msg, msg_size, "%s holds %lld rows, the catalog says %lld",
                  f->path, (long long)position, (long long)f->record_count);
    /* Explicit ids: row_id_start is their minimum, deleted rows' too. */
    if (rc == 0 && *o == CPT_REWRITTEN && f->explicit_row_ids && position > 0 &&
        file_min != f->row_id_start)
        *o = fail(CPT_INVALID_DATA, msg, msg_size,
                  "%s: its smallest %s is %lld, the catalog says %lld", f->path, LAKE_ROW_ID_COLUMN,
                  (long long)file_min, (long long)f->row_id_start);
out:
    lake_dv_free(&dv);
    rows_project_free(&proj);
    pq_reader_free(r);
    return rc;
}

/* The order rows are written in: the live sort order, stable, or as read. */
static int order_rows(const struct lake_table *live, const struct lake_table *layout,
                      const struct ArrowSchema *schema, const struct rows_in *in,
                      const struct ArrowArray *const *ptrs, struct rows_ref *refs, char *msg,
                      size_t msg_size)
{
    size_t k = 0;
    for (size_t b = 0; b < in->n; b++)
        for (int64_t i = 0; i < in->batches[b].length; i++)
            refs[k++] = (struct rows_ref){(uint32_t)b, (uint32_t)i};
    if (!live->sorted || live->nsort_fields == 0)
        return 0;
    struct rows_sort_key *keys = calloc(live->nsort_fields, sizeof *keys);
    if (!keys)
        return -1;
    size_t nkeys = 0;
    struct error e;
    for (size_t i = 0; i < live->nsort_fields; i++)
        if (rows_sort_key_for_field(layout, &live->sort_fields[i], &keys[nkeys], &e) == 0)
            nkeys++; /* a key on a nested field cannot order rows: left out */
    int rc = rows_sort(schema, ptrs, in->n, keys, nkeys, refs, k, &e);
    free(keys);
    if (rc == 0)
        return 0;
    snprintf(msg, msg_size, "%s", e.msg);
    return e.code == ERR_NOMEM ? -1 : 1;
}

static int sink_write(void *ctx, const void *data, size_t len, struct error *err)
{
    struct hl_error e;
    if (objstore_writer_write(ctx, data, len, &e) == 0)
        return 0;
    err->code = ERR_IO;
    snprintf(err->msg, sizeof err->msg, "%.500s", e.message);
    return -1;
}

/* Writes the rows in refs order to out_path and fills out from the footer
 * written. Returns 0 with *o, or -1 out of memory. */
static int write_output(struct objstore *os, const struct lake_table *live,
                        const struct lake_table *layout, const struct ArrowSchema *schema,
                        const struct ArrowArray *const *ptrs, size_t nbatches,
                        const struct rows_ref *refs, size_t n, const char *out_path,
                        struct arena *a, struct store_compaction_output *out,
                        enum cpt_rewrite_outcome *o, struct cpt_refusal *refusal, char *msg,
                        size_t msg_size)
{
    struct hl_error e;
    struct objstore_writer *ow = NULL;
    *o = CPT_REWRITTEN;
    if (objstore_writer_open(os, out_path, OBJSTORE_IF_NONE_MATCH, &ow, &e) != 0) {
        if (e.status == HL_ERR_FORBIDDEN)
            *refusal = (struct cpt_refusal){out_path, "write", e};
        *o = fail(e.status == HL_ERR_FORBIDDEN ? CPT_REFUSED : CPT_STORAGE, msg, msg_size,
                  "writing %s: %s", out_path, e.message);
        return e.status == HL_ERR_NOMEM ? -1 : 0;
    }
    struct pq_write_options wo;
    pq_write_options_default(&wo);
    struct pq_sink sink = {sink_write, ow};
    struct pq_writer *pw = NULL;
    struct error pe = {0};
    int rc = pq_writer_open(layout, &wo, &sink, &pw, &pe);
    for (size_t at = 0; rc == 0 && at < n; at += TAKE_ROWS) {
        size_t count = n - at < TAKE_ROWS ? n - at : TAKE_ROWS;
        struct ArrowArray batch;
        rc = rows_take(schema, ptrs, nbatches, refs + at, count, &batch, &pe);
        if (rc != 0)
            break;
        rc = pq_writer_write(pw, schema, &batch, &pe);
        batch.release(&batch);
    }
    struct pq_write_result wr = {0};
    bool closed = false;
    if (rc == 0) {
        rc = pq_writer_close(pw, &wr, &pe);
        closed = rc == 0;
    } else if (pw) {
        pq_writer_free(pw);
    }
    uint64_t size = 0;
    if (rc == 0 && objstore_writer_commit(ow, &size, &e) != 0) {
        *o = fail(CPT_STORAGE, msg, msg_size, "writing %s: %s", out_path, e.message);
        ow = NULL;
        rc = e.status == HL_ERR_NOMEM ? -1 : 0;
        goto out;
    }
    if (rc != 0) {
        objstore_writer_abort(ow);
        ow = NULL;
        bool nomem = pe.code == ERR_NOMEM;
        *o = fail(CPT_STORAGE, msg, msg_size, "writing %s: %s", out_path, pe.msg);
        rc = nomem ? -1 : 0;
        goto out;
    }
    out->path = out_path;
    out->file_size = (int64_t)size;
    out->footer_size = wr.footer_size;
    if (pq_footer_column_stats(&wr.meta, &wr.schema, live, a, &out->stats, &out->nstats, &pe) !=
            0 ||
        file_stats_splits(&wr.meta, a, &out->splits, &out->nsplits) != 0)
        rc = -1; /* the footer we just wrote is sound: only memory can fail */
    else
        file_stats_repair(live, out->records, out->stats, out->nstats);
out:
    if (closed)
        pq_write_result_release(&wr);
    return rc;
}

/* Fetches and reads every input of g into in (the rows left by their
 * deletion vectors), the smallest id left in *min. Returns 0 with *o, or
 * -1 out of memory. */
static int read_inputs(struct objstore *os, const struct cpt_group *g,
                       const struct lake_table *layout, struct ArrowSchema *schema,
                       struct rows_in *in, int64_t *min, struct store_compaction_output *out,
                       enum cpt_rewrite_outcome *o, struct cpt_refusal *refusal, char *msg,
                       size_t msg_size)
{
    struct fetch f = {.os = os, .g = g};
    f.got = calloc(g->ninputs ? g->ninputs : 1, sizeof *f.got);
    if (!f.got || pthread_mutex_init(&f.mu, NULL) != 0) {
        free(f.got);
        return -1;
    }
    fetch_all(&f);
    pthread_mutex_destroy(&f.mu);
    bool *keep = calloc(layout->root.nchildren ? layout->root.nchildren : 1, sizeof *keep);
    int rc = keep ? carry_variants(f.got, g, layout, schema, keep, &out->variant_carried,
                                   &out->variant_reencoded)
                  : -1;
    *o = CPT_REWRITTEN;
    for (size_t i = 0; i < g->ninputs; i++) {
        if (rc == 0 && *o == CPT_REWRITTEN)
            rc = read_input(&f.got[i], layout, schema, keep, &g->inputs[i], in, min, o, refusal,
                            msg, msg_size);
        buf_free(&f.got[i].data); /* decoded: the bytes can go */
        buf_free(&f.got[i].dv);
    }
    free(keep);
    free(f.got);
    return rc;
}

/* Writes in's rows, in the order the live sort order gives them, to
 * out_path. Returns 0 with *o, or -1 out of memory. */
static int sort_and_write(struct objstore *os, const struct lake_table *live,
                          const struct lake_table *layout, const struct ArrowSchema *schema,
                          const struct rows_in *in, const char *out_path, struct arena *a,
                          struct store_compaction_output *out, enum cpt_rewrite_outcome *o,
                          struct cpt_refusal *refusal, char *msg, size_t msg_size)
{
    const struct ArrowArray **ptrs = calloc(in->n ? in->n : 1, sizeof *ptrs);
    struct rows_ref *refs = calloc(in->rows ? (size_t)in->rows : 1, sizeof *refs);
    int rc = ptrs && refs ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < in->n; i++)
        ptrs[i] = &in->batches[i];
    int sorted = rc == 0 ? order_rows(live, layout, schema, in, ptrs, refs, msg, msg_size) : -1;
    if (sorted < 0)
        rc = -1;
    else if (sorted > 0)
        *o = CPT_INVALID_DATA; /* a malformed batch: msg says which */
    else
        rc = write_output(os, live, layout, schema, ptrs, in->n, refs, (size_t)in->rows, out_path,
                          a, out, o, refusal, msg, msg_size);
    free(ptrs);
    free(refs);
    return rc;
}

int cpt_rewrite(struct objstore *os, const struct lake_table *live, const struct lake_table *layout,
                const struct cpt_group *g, const char *out_path, struct arena *a,
                struct store_compaction_output *out, enum cpt_rewrite_outcome *o,
                struct cpt_refusal *refusal, char *msg, size_t msg_size)
{
    memset(out, 0, sizeof *out);
    struct rows_in in = {0};
    int64_t min = INT64_MAX;
    *o = CPT_REWRITTEN;
    struct ArrowSchema schema = {0};
    int rc = rows_table_arrow_schema(layout, &schema) == 0 ? 0 : -1;
    if (rc == 0)
        rc = read_inputs(os, g, layout, &schema, &in, &min, out, o, refusal, msg, msg_size);
    if (rc == 0 && *o == CPT_REWRITTEN && (in.n > UINT32_MAX || in.rows > UINT32_MAX))
        *o = fail(CPT_INVALID_DATA, msg, msg_size, "too many rows for one rewrite");
    /* Every row deleted: nothing to write, the inputs just end. */
    if (rc == 0 && *o == CPT_REWRITTEN && in.rows > 0) {
        out->records = in.rows;
        out->min_row_id = min;
        rc = sort_and_write(os, live, layout, &schema, &in, out_path, a, out, o, refusal, msg,
                            msg_size);
    }
    if (schema.release)
        schema.release(&schema);
    rows_in_free(&in);
    return rc;
}
