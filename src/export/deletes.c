/* A window's deleted rows in the Iceberg table (see deletes.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/deletes.h"
#include "lake/puffin.h"
#include "objstore/objstore.h"
#include "parquet/colstats.h"
#include "parquet/writer.h"
#include "rows/rows_filter.h"
#include "rows/rows_schema.h"
#include "util/array.h"
#include "util/arrow.h"
#include "util/random.h"
#include "util/search.h"
#include "util/timefmt.h"

void xp_deletes_free(struct xp_deletes *d)
{
    xp_dvs_free(d->before, d->live.ndata);
    xp_dvs_free(d->added, d->live.ndata);
    xp_live_free(&d->live);
    free(d->rows);
    free(d->files);
    json_decref(d->carried);
    memset(d, 0, sizeof *d);
}

hl_status xp_deletes_collect(struct exporter *x, struct xp_deletes *d, const struct ArrowArray *b,
                             struct hl_error *err)
{
    size_t n = (size_t)b->length;
    const struct ArrowArray *ids = b->children[b->n_children - 1];
    if (ids->null_count != 0)
        return xp_fail(err, HL_ERR_PROTOCOL, "protocol", "a deleted row without a row id");
    bool *null_day = malloc(n ? n : 1);
    int32_t *day = malloc((n ? n : 1) * sizeof *day);
    hl_status st = null_day && day && ARRAY_RESERVE(d->rows, d->cap, d->n + n, 256) == 0
                       ? xp_row_days(x, b, null_day, day, err)
                       : xp_nomem(err);
    const int64_t *v = ids->buffers[1];
    for (size_t r = 0; st == HL_OK && r < n; r++)
        d->rows[d->n++] = (struct xp_deleted_row){v[ids->offset + (int64_t)r], null_day[r], day[r]};
    free(null_day);
    free(day);
    return st;
}

static int cmp_rows(const void *a, const void *b)
{
    const struct xp_deleted_row *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

static int64_t id_at(const void *base, size_t i, size_t stride)
{
    int64_t id;
    memcpy(&id, (const char *)base + i * stride, sizeof id);
    return id;
}

/* The first of n elements (sorted by an int64 id, their first member,
 * stride bytes apart) whose id is >= v. */
static size_t first_id(const void *base, size_t n, size_t stride, int64_t v)
{
    return LOWER_BOUND(n, i, id_at(base, i, stride) < v);
}

static bool same_day(const struct xp_deleted_row *r, const struct xp_data_file *f)
{
    return r->null_day == f->null_day && (r->null_day || r->day == f->day);
}

/* Whether file f may hold a row deleted in its partition; *legacy when
 * it has no row ids (and a row of its partition is deleted). */
static bool candidate(const struct xp_deletes *d, const struct xp_data_file *f, bool *legacy)
{
    if (!f->has_ids) {
        for (size_t i = 0; i < d->n; i++)
            if (same_day(&d->rows[i], f))
                *legacy = true;
        return false;
    }
    for (size_t i = first_id(d->rows, d->n, sizeof *d->rows, f->id_lo);
         i < d->n && d->rows[i].id <= f->id_hi; i++)
        if (same_day(&d->rows[i], f))
            return true;
    return false;
}

/* Where a candidate file's ids are matched. */
struct search {
    struct xp_deletes *d;
    bool *found;
    size_t fi;
};

/* The rows of one row group of f's _row_id column: the deleted ones still
 * live (not in before) are found at their positions. */
static hl_status match_ids(void *ctx, const struct ArrowArray *b, uint64_t first,
                           struct hl_error *err)
{
    const struct search *s = ctx;
    struct xp_deletes *d = s->d;
    const struct xp_data_file *f = &d->live.data[s->fi];
    const struct ArrowArray *ids = b->children[0];
    const int64_t *v = ids->buffers[1];
    const uint8_t *valid = ids->buffers[0];
    for (int64_t r = 0; r < ids->length; r++) {
        int64_t p = ids->offset + r;
        if (ids->null_count && valid && !arrow_bit(valid, p))
            continue;
        uint64_t pos = first + (uint64_t)r;
        if (lake_dv_contains(&d->before[s->fi], pos))
            continue; /* an earlier version of an updated row */
        for (size_t i = first_id(d->rows, d->n, sizeof *d->rows, v[p]);
             i < d->n && d->rows[i].id == v[p]; i++) {
            if (s->found[i] || !same_day(&d->rows[i], f))
                continue;
            s->found[i] = true;
            struct error e;
            if (lake_dv_add(&d->added[s->fi], &pos, 1, &e) != 0)
                return xp_nomem(err);
            break;
        }
    }
    return HL_OK;
}

/* Reads only the _row_id column of live file fi. */
static hl_status search_file(struct exporter *x, struct xp_deletes *d, bool *found, size_t fi,
                             struct hl_error *err)
{
    static const struct xp_column ids[] = {{ICE_FIELD_ROW_ID, "_row_id", LT_LONG}};
    const struct xp_data_file *f = &d->live.data[fi];
    struct buf file = BUF_INIT;
    if (objstore_get_sized(x->store, f->path, (uint64_t)f->size, &file, err) != 0)
        return err ? err->status : HL_ERR_IO;
    struct search s = {d, found, fi};
    hl_status st = xp_read_columns(&file, f->path, ids, 1, match_ids, &s, err);
    buf_free(&file);
    return st;
}

/* The first of ids[0..n) (sorted) equal to v and not taken yet, or -1. */
static long untaken(const int64_t *ids, const bool *taken, size_t n, int64_t v)
{
    for (size_t lo = first_id(ids, n, sizeof *ids, v); lo < n && ids[lo] == v; lo++)
        if (!taken[lo])
            return (long)lo;
    return -1;
}

/* Takes a row of each of ids[0..n) (sorted) out of the run's rows, the
 * first in stream order (a bootstrap reads the rows live at the floor
 * before the changes after it); taken[i] says which were there. */
static hl_status cancel_inserted(struct exporter *x, const int64_t *ids, bool *taken, size_t n,
                                 struct hl_error *err)
{
    for (size_t b = 0; b < x->nbatches; b++) {
        struct ArrowArray *batch = &x->batches[b];
        const struct ArrowArray *col = batch->children[batch->n_children - 1];
        const int64_t *v = col->buffers[1];
        uint8_t *keep = malloc((size_t)batch->length + 1);
        if (!keep)
            return xp_nomem(err);
        int64_t dropped = 0;
        for (int64_t r = 0; r < batch->length; r++) {
            long i = untaken(ids, taken, n, v[col->offset + r]);
            keep[r] = i < 0;
            if (i >= 0) {
                taken[i] = true;
                dropped++;
            }
        }
        struct error e;
        int rc = dropped ? rows_filter(&x->schema, batch, keep, &e) : 0;
        free(keep);
        if (rc != 0)
            return xp_nomem(err);
        x->rows -= dropped;
    }
    return HL_OK;
}

hl_status xp_deletes_locate(struct exporter *x, struct xp_deletes *d, const struct ice_meta *m,
                            struct hl_error *err)
{
    d->against_snapshot = -1;
    if (d->n == 0)
        return HL_OK;
    qsort(d->rows, d->n, sizeof *d->rows, cmp_rows);
    bool *found = calloc(d->n, sizeof *found);
    hl_status st = found ? HL_OK : xp_nomem(err);
    bool legacy = false;
    if (st == HL_OK && m && m->has_current_snapshot) {
        d->against_snapshot = m->current_snapshot_id;
        st = xp_live_load(x, m, &d->live, err);
        size_t n = d->live.ndata;
        if (st == HL_OK && (!(d->before = calloc(n + 1, sizeof *d->before)) ||
                            !(d->added = calloc(n + 1, sizeof *d->added))))
            st = xp_nomem(err);
        if (st == HL_OK)
            st = xp_live_deleted(x, &d->live, d->before, err);
        for (size_t i = 0; st == HL_OK && i < n; i++) {
            if (candidate(d, &d->live.data[i], &legacy))
                st = search_file(x, d, found, i, err);
        }
    }
    /* The rest are rows this run inserts (d->rows is sorted by id). */
    int64_t *rest = st == HL_OK ? malloc(d->n * sizeof *rest) : NULL;
    bool *taken = st == HL_OK ? calloc(d->n, sizeof *taken) : NULL;
    size_t nrest = 0;
    if (st == HL_OK && (!rest || !taken))
        st = xp_nomem(err);
    for (size_t i = 0; st == HL_OK && i < d->n; i++)
        if (!found[i])
            rest[nrest++] = d->rows[i].id;
    if (st == HL_OK && nrest)
        st = cancel_inserted(x, rest, taken, nrest, err);
    int64_t missing = -1;
    for (size_t i = 0; st == HL_OK && i < nrest; i++)
        if (!taken[i])
            missing = rest[i];
    free(taken);
    if (st == HL_OK && missing >= 0 && legacy)
        st = xp_fail(err, HL_ERR_CONFLICT, "iceberg_export_lacks_row_ids",
                     "the changes delete row %lld of %s, which is in a file exported before "
                     "exported files carried their rows' ids; run the export again with "
                     "--restart to re-export the table's live rows",
                     (long long)missing, x->qualified);
    else if (st == HL_OK && missing >= 0)
        st = xp_fail(err, HL_ERR_CONFLICT, "iceberg_row_not_found",
                     "the changes delete row %lld of %s, which the Iceberg table at %s does not "
                     "hold; run the export again with --restart to re-export the table's live rows",
                     (long long)missing, x->qualified, x->loc);
    free(rest);
    free(found);
    return st;
}

/* ---- the delete files ---- */

/* A new delete file's name: <location>/data/[<field>=<day>/]<uuid>-deletes.<ext>. */
static hl_status delete_path(struct exporter *x, const struct xp_data_file *f, const char *ext,
                             char *uri, size_t size, struct hl_error *err)
{
    char uuid[37], day[16] = "null";
    if (random_uuid4(uuid) != 0)
        return xp_fail(err, HL_ERR_INTERNAL, "internal", "no randomness for a file name");
    const char *field = json_string_value(
        json_object_get(json_array_get(json_object_get(x->spec_json, "fields"), 0), "name"));
    if (f && !f->null_day) {
        char iso[48];
        time_format_iso8601((int64_t)f->day * 86400 * 1000000, iso, sizeof iso);
        snprintf(day, sizeof day, "%.10s", iso);
    }
    int n = f && field
                ? snprintf(uri, size, "%s/data/%s=%s/%s-deletes.%s", x->loc, field, day, uuid, ext)
                : snprintf(uri, size, "%s/data/%s-deletes.%s", x->loc, uuid, ext);
    return n > 0 && (size_t)n < size ? HL_OK
                                     : xp_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                                               "the location is too long");
}

static hl_status add_delete_file(struct exporter *x, struct xp_deletes *d,
                                 const struct ice_data_file *f, struct hl_error *err)
{
    if (ARRAY_RESERVE(d->files, d->files_cap, d->nfiles + 1, 16) != 0)
        return xp_nomem(err);
    d->files[d->nfiles] = *f;
    if (!(d->files[d->nfiles].path = arena_strdup(&x->arena, f->path)) ||
        (f->referenced_data_file && !(d->files[d->nfiles].referenced_data_file =
                                          arena_strdup(&x->arena, f->referenced_data_file))))
        return xp_nomem(err);
    d->nfiles++;
    d->added_positions += f->record_count;
    return HL_OK;
}

/* v3: one deletion vector per affected file (its vector before and the
 * new positions), one Puffin file for all. */
static hl_status write_vectors(struct exporter *x, struct xp_deletes *d, struct hl_error *err)
{
    size_t n = d->live.ndata, k = 0;
    struct lake_puffin_dv_in *in = calloc(n + 1, sizeof *in);
    struct lake_puffin_blob_pos *pos = calloc(n + 1, sizeof *pos);
    size_t *which = calloc(n + 1, sizeof *which);
    hl_status st = in && pos && which ? HL_OK : xp_nomem(err);
    struct error e;
    for (size_t i = 0; st == HL_OK && i < n; i++) {
        if (d->added[i].n == 0)
            continue;
        if (lake_dv_add(&d->added[i], d->before[i].pos, d->before[i].n, &e) != 0)
            st = xp_nomem(err);
        in[k] = (struct lake_puffin_dv_in){d->live.data[i].path, &d->added[i]};
        which[k++] = i;
    }
    struct buf out = BUF_INIT;
    char uri[4096];
    if (st == HL_OK && k > 0 && lake_puffin_write_dvs(in, k, "hoglake", &out, pos, &e) != 0)
        st = e.code == ERR_NOMEM ? xp_nomem(err)
                                 : xp_fail(err, HL_ERR_INTERNAL, "internal", "%s", e.msg);
    if (st == HL_OK && k > 0)
        st = delete_path(x, NULL, "puffin", uri, sizeof uri, err);
    if (st == HL_OK && k > 0)
        st = xp_put_object(x, uri, &out, err);
    for (size_t j = 0; st == HL_OK && j < k; j++) {
        const struct xp_data_file *f = &d->live.data[which[j]];
        struct ice_data_file df = {.path = uri,
                                   .record_count = (int64_t)d->added[which[j]].n,
                                   .file_size = (int64_t)out.len,
                                   .partition_null = f->null_day,
                                   .partition_day = f->day,
                                   .content = 1,
                                   .format = "PUFFIN",
                                   .referenced_data_file = f->path,
                                   .content_offset = (int64_t)pos[j].offset,
                                   .content_size = (int64_t)pos[j].length};
        st = add_delete_file(x, d, &df, err);
    }
    buf_free(&out);
    free(in);
    free(pos);
    free(which);
    return st;
}

static int sink_buf(void *ctx, const void *data, size_t len, struct error *err)
{
    return buf_append(ctx, data, len) == 0 ? 0 : error_fail(err, ERR_NOMEM, "out of memory");
}

/* A (file_path, pos) batch of the positions of files[0..n) (sorted by
 * path), in the order the spec requires: by file, then position. */
static int position_batch(const struct xp_deletes *d, const size_t *files, size_t n,
                          struct ArrowArray *out)
{
    size_t rows = 0, bytes = 0;
    for (size_t j = 0; j < n; j++) {
        rows += d->added[files[j]].n;
        bytes += d->added[files[j]].n * strlen(d->live.data[files[j]].path);
    }
    struct ArrowArray *c;
    int32_t *off = malloc((rows + 1) * sizeof *off);
    char *text = malloc(bytes + 1);
    int64_t *pos = malloc((rows + 1) * sizeof *pos);
    if (!off || !text || !pos || arrow_array_init(out, 1, 2) != 0) {
        free(off);
        free(text);
        free(pos);
        return -1;
    }
    size_t r = 0, at = 0;
    off[0] = 0;
    for (size_t j = 0; j < n; j++) {
        const char *path = d->live.data[files[j]].path;
        size_t len = strlen(path);
        const struct lake_dv *v = &d->added[files[j]];
        for (size_t i = 0; i < v->n; i++, r++) {
            memcpy(text + at, path, len);
            at += len;
            off[r + 1] = (int32_t)at;
            pos[r] = (int64_t)v->pos[i];
        }
    }
    out->length = (int64_t)rows;
    bool ok = arrow_array_init(out->children[0], 3, 0) == 0;
    if (ok) {
        c = out->children[0];
        c->length = (int64_t)rows;
        arrow_array_own_buffer(c, 1, off);
        arrow_array_own_buffer(c, 2, text);
        off = NULL;
        text = NULL;
        ok = arrow_array_init(out->children[1], 2, 0) == 0;
    }
    if (ok) {
        c = out->children[1];
        c->length = (int64_t)rows;
        arrow_array_own_buffer(c, 1, pos);
        pos = NULL;
    }
    free(off);
    free(text);
    free(pos);
    if (!ok)
        out->release(out);
    return ok ? 0 : -1;
}

/* v2: the positions of files[0..n) (one partition's, sorted by path) as
 * one Parquet position delete file. */
static hl_status write_positions(struct exporter *x, struct xp_deletes *d, const size_t *files,
                                 size_t n, struct hl_error *err)
{
    struct arena arena;
    arena_init(&arena, 0);
    struct lake_table t;
    lake_table_init(&t, &arena);
    struct error e;
    struct ArrowSchema schema = {0};
    struct ArrowArray batch = {0};
    struct buf out = BUF_INIT;
    struct pq_sink sink = {sink_buf, &out};
    struct pq_write_options wo;
    struct pq_writer *w = NULL;
    struct pq_write_result res;
    bool closed = false;
    hl_status st = HL_OK;
    pq_write_options_default(&wo);
    if (lake_table_load_column(&t, ICE_FIELD_DELETE_FILE_PATH, 0, "file_path", LT_STRING, 0, 0,
                               false, 0, NULL, &e) != 0 ||
        lake_table_load_column(&t, ICE_FIELD_DELETE_POS, 0, "pos", LT_LONG, 0, 0, false, 1, NULL,
                               &e) != 0 ||
        rows_table_arrow_schema(&t, &schema) != 0 || position_batch(d, files, n, &batch) != 0)
        st = xp_nomem(err);
    else if (pq_writer_open(&t, &wo, &sink, &w, &e) != 0 ||
             pq_writer_write(w, &schema, &batch, &e) != 0)
        st = xp_fail(err, HL_ERR_INTERNAL, "internal", "a position delete file: %s", e.msg);
    if (st == HL_OK) {
        struct pq_writer *closing = w;
        w = NULL;
        if (pq_writer_close(closing, &res, &e) != 0)
            st = xp_fail(err, HL_ERR_INTERNAL, "internal", "a position delete file: %s", e.msg);
        else
            closed = true;
    }
    struct pq_col_stats *stats = NULL;
    size_t nstats = 0;
    if (st == HL_OK &&
        pq_footer_column_stats(&res.meta, &res.schema, &t, &x->arena, &stats, &nstats, &e) != 0)
        st = xp_fail(err, HL_ERR_INTERNAL, "internal", "statistics: %s", e.msg);
    char uri[4096];
    const struct xp_data_file *f = &d->live.data[files[0]];
    if (st == HL_OK)
        st = delete_path(x, f, "parquet", uri, sizeof uri, err);
    if (st == HL_OK)
        st = xp_put_object(x, uri, &out, err);
    if (st == HL_OK) {
        struct ice_data_file df = {.path = uri,
                                   .record_count = batch.length,
                                   .file_size = (int64_t)out.len,
                                   .partition_null = f->null_day,
                                   .partition_day = f->day,
                                   .stats = stats,
                                   .nstats = nstats,
                                   .content = 1,
                                   .referenced_data_file = n == 1 ? f->path : NULL};
        st = add_delete_file(x, d, &df, err);
    }
    if (closed)
        pq_write_result_release(&res);
    pq_writer_free(w);
    if (batch.release)
        batch.release(&batch);
    if (schema.release)
        schema.release(&schema);
    buf_free(&out);
    lake_table_release(&t);
    arena_free(&arena);
    return st;
}

/* Affected files in (partition, path) order. */
static const struct xp_live *sort_live;
static int cmp_files(const void *a, const void *b)
{
    const struct xp_data_file *x = &sort_live->data[*(const size_t *)a],
                              *y = &sort_live->data[*(const size_t *)b];
    if (x->null_day != y->null_day)
        return x->null_day ? 1 : -1;
    if (x->day != y->day)
        return x->day < y->day ? -1 : 1;
    return strcmp(x->path, y->path);
}

static hl_status write_position_files(struct exporter *x, struct xp_deletes *d,
                                      struct hl_error *err)
{
    size_t n = 0;
    size_t *files = malloc((d->live.ndata + 1) * sizeof *files);
    if (!files)
        return xp_nomem(err);
    for (size_t i = 0; i < d->live.ndata; i++)
        if (d->added[i].n > 0)
            files[n++] = i;
    sort_live = &d->live;
    qsort(files, n, sizeof *files, cmp_files);
    hl_status st = HL_OK;
    for (size_t at = 0; st == HL_OK && at < n;) {
        size_t end = at + 1;
        const struct xp_data_file *f = &d->live.data[files[at]];
        while (end < n && d->live.data[files[end]].null_day == f->null_day &&
               d->live.data[files[end]].day == f->day)
            end++;
        st = write_positions(x, d, files + at, end - at, err);
        at = end;
    }
    free(files);
    return st;
}

/* The live delete entries the new delete manifest keeps: all, but on v3
 * the vectors of files that got a new one (one vector per data file). */
static hl_status carry(struct xp_deletes *d, struct hl_error *err)
{
    if (!(d->carried = json_array()))
        return xp_nomem(err);
    for (size_t k = 0; k < d->live.ndels; k++) {
        const struct xp_delete_file *del = &d->live.dels[k];
        bool replaced = false;
        for (size_t i = 0; del->puffin && del->referenced && i < d->live.ndata; i++)
            replaced = replaced ||
                       (d->added[i].n > 0 && strcmp(d->live.data[i].path, del->referenced) == 0);
        if (replaced) {
            d->removed_files++;
            d->removed_positions += del->count;
            d->removed_dvs++;
        } else if (json_array_append(d->carried, del->entry) != 0) {
            return xp_nomem(err);
        }
    }
    return HL_OK;
}

hl_status xp_deletes_write(struct exporter *x, struct xp_deletes *d, struct hl_error *err)
{
    bool any = false;
    for (size_t i = 0; i < d->live.ndata; i++)
        any = any || d->added[i].n > 0;
    if (!any)
        return HL_OK;
    hl_status st = carry(d, err);
    if (st == HL_OK)
        st = x->format_version >= 3 ? write_vectors(x, d, err) : write_position_files(x, d, err);
    return st;
}
