/* Validating a commit against what it read: the live tables, the conflict
 * check, each file's partition values and statistics, the deletion
 * vectors and the path guard (contract §4, steps 10 to 14). Pure checks
 * over the read batch's results, apart from one lookup on a refusal. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lake/bounds.h"
#include "server/catalog/catalog.h"
#include "server/commit/commit_internal.h"
#include "server/maintenance/compaction_rewrite.h"
#include "server/server.h"
#include "util/base64.h"
#include "util/bytes.h"

/* Fills x->live from the live tables read, by ordinal. */
static int take_live_tables(struct commit_ctx *x, struct error *err)
{
    int rows = store_commit_live_count(&x->reads, x->slot.live);
    for (int row = 0; row < rows; row++) {
        struct store_commit_live_table t;
        store_commit_live_table(&x->reads, x->slot.live, row, &t);
        if (t.ordinal < 1 || (uint64_t)t.ordinal > x->c->ntables)
            continue;
        struct table_live *l = &x->live[t.ordinal - 1];
        l->found = true;
        l->table_id = t.table_id;
        l->uuid = arena_strdup(x->ctx->arena, t.uuid);
        if (!l->uuid)
            return error_nomem(err);
        l->has_spec = t.has_spec;
        l->spec_id = t.spec_id;
        l->nspec_fields = t.nspec_fields;
        if (!t.has_allocator)
            return error_fail(err, ERR_INTERNAL, "table %lld has no row-id allocator",
                              (long long)l->table_id);
        l->next_row_id = t.next_row_id;
        l->stats_bytes = t.stats_bytes;
        l->ddl_since_read = t.ddl_since_read;
        l->data_since_read = t.data_since_read;
    }
    return 0;
}

/* ---- step 7: the live tables ---- */

/* The conflict names table i and asks the writer to re-prepare. */
static void name_table(struct commit_ctx *x, size_t i)
{
    const char **tables = arena_calloc(x->ctx->arena, 1, sizeof *tables);
    if (tables && (tables[0] = commit_table_label(x, i)) != NULL) {
        x->out->tables = tables;
        x->out->ntables = 1;
    }
    x->out->re_prepare = true;
}

static int resolve_table(struct commit_ctx *x, size_t i, struct error *err)
{
    const struct commit_table *t = &x->c->tables[i];
    const struct table_live *l = &x->live[i];
    if (l->found) {
        for (size_t k = 0; k < t->nexpected; k++) {
            if (strcmp(t->expected_uuids[k], l->uuid) != 0) {
                name_table(x, i);
                return error_fail_reason(err, ERR_CONFLICT, "table_recreated",
                                         "table '%s.%s' is now incarnation %s, not the expected %s",
                                         t->namespace_name, t->name, l->uuid, t->expected_uuids[k]);
            }
        }
        return 0;
    }
    /* Dropped (a version row ended by the drop) or never there: a refusal,
     * so one more round trip costs nothing that matters. */
    int64_t at = 0;
    int dropped =
        store_commit_dropped_at(x->ctx->db, x->cat.id, t->namespace_name, t->name, &at, err);
    if (dropped < 0) {
        x->out->failed_step = "dropped table lookup";
        return -1;
    }
    if (dropped)
        return error_fail_reason(err, ERR_CONFLICT, "table_dropped",
                                 "table '%s.%s' was dropped at snapshot %lld", t->namespace_name,
                                 t->name, (long long)at);
    return error_fail(err, ERR_INVALID, "unknown table '%s.%s' in catalog '%s'", t->namespace_name,
                      t->name, x->cat.name);
}

/* ---- step 8: conflicts since read_snapshot ---- */

static int cmp_labels(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The 410 of a read_snapshot below the floor, as every time-travel path
 * words it, with the floor as the commit's reads found it. */
static int read_snapshot_expired(struct commit_ctx *x, int64_t rs, struct error *err)
{
    struct catalog_row read = {.id = x->cat.id,
                               .name = x->cat.name,
                               .data_path = x->cat.data_path,
                               .head = x->read.head,
                               .earliest = x->read.earliest,
                               .has_earliest_time = x->read.has_earliest_time,
                               .earliest_time_us = x->read.earliest_time_us};
    return snapshot_expired(err, &read, rs, "read_snapshot");
}

static int conflict_check(struct commit_ctx *x, struct error *err)
{
    int64_t rs = x->c->read_snapshot;
    if (rs > x->read.head)
        return error_fail(err, ERR_INVALID, "read_snapshot %lld is after the catalog's head %lld",
                          (long long)rs, (long long)x->read.head);
    if (rs < x->read.earliest)
        return read_snapshot_expired(x, rs, err);
    /* A guarded table's rows changed since the read: the writer's delete
     * or update was computed on rows that are no longer all there is.
     * Any such change makes the conflict a retryable one, whatever DDL
     * came with it (contract §4.3 step 8). */
    for (size_t i = 0; i < x->c->ntables; i++) {
        if (!x->live[i].data_since_read)
            continue;
        const char *label = commit_table_label(x, i);
        if (!label)
            return error_nomem(err);
        return error_fail_reason(err, ERR_CONFLICT, "commit_conflict",
                                 "%s had rows inserted or deleted after read_snapshot %lld; "
                                 "read it again and retry",
                                 label, (long long)rs);
    }
    /* Otherwise only DDL conflicts (appends never conflict with appends),
     * so every conflict here is ddl_since_read_snapshot; the data
     * conflicts of deletion vectors are checked with their targets. */
    const char **tables = arena_calloc(x->ctx->arena, x->c->ntables, sizeof *tables);
    if (!tables)
        return error_nomem(err);
    size_t n = 0;
    for (size_t i = 0; i < x->c->ntables; i++)
        if (x->live[i].ddl_since_read && !(tables[n++] = commit_table_label(x, i)))
            return error_nomem(err);
    if (n == 0)
        return 0;
    /* Sorted, so the answer does not depend on the request's order. */
    qsort(tables, n, sizeof *tables, cmp_labels);
    x->out->tables = tables;
    x->out->ntables = n;
    x->out->has_read_snapshot = true;
    x->out->read_snapshot = rs;
    x->out->re_prepare = true;
    return error_fail_reason(err, ERR_CONFLICT, "ddl_since_read_snapshot",
                             "a touched table's definition changed after read_snapshot %lld; "
                             "re-prepare against the new definition",
                             (long long)rs);
}

/* ---- step 9: validating appends ---- */

static const struct column_info *find_column(const struct table_live *l, int64_t field_id)
{
    size_t lo = 0, hi = l->ncols;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (l->cols[mid].field_id == field_id)
            return &l->cols[mid];
        if (l->cols[mid].field_id < field_id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* Takes table i's live columns from the columns read. */
static int load_columns(struct commit_ctx *x, size_t i, struct error *err)
{
    struct table_live *l = &x->live[i];
    int first, n = store_commit_columns_of(&x->reads, x->slot.columns, l->table_id, &first);
    l->cols = arena_calloc(x->ctx->arena, (size_t)(n ? n : 1), sizeof *l->cols);
    if (!l->cols)
        return error_nomem(err);
    for (int k = 0; k < n; k++) {
        struct store_commit_column col;
        store_commit_column(&x->reads, x->slot.columns, first + k, &col);
        struct column_info *c = &l->cols[k];
        c->field_id = col.field_id;
        const char *why;
        if (lake_type_lookup(col.type, &c->type, &why) != LAKE_TYPE_OK)
            return error_fail(err, ERR_INTERNAL, "stored column type '%s' is unknown", col.type);
        c->precision = col.precision;
        c->scale = col.scale;
        c->parent_field_id = col.parent_field_id;
    }
    l->ncols = (size_t)n;
    /* Parents have lower field ids, so one pass in id order settles each
     * column from its parent. */
    for (size_t k = 0; k < l->ncols; k++) {
        struct column_info *c = &l->cols[k];
        const struct column_info *parent =
            c->parent_field_id ? find_column(l, c->parent_field_id) : NULL;
        if (parent)
            c->repeated = parent->repeated || parent->type == LT_LIST || parent->type == LT_MAP;
    }
    return 0;
}

/* Decodes a base64 bound into the request arena; *out stays NULL (and
 * the repair is counted) when it is not base64 at all. */
static int decode_bound(struct commit_ctx *x, const char *b64, uint8_t **out, size_t *out_len,
                        struct error *err)
{
    *out = NULL;
    *out_len = 0;
    if (!b64)
        return 0;
    struct buf raw = BUF_INIT;
    if (base64_decode(b64, strlen(b64), &raw) != NULL) {
        buf_free(&raw);
        x->repaired++;
        return 0;
    }
    *out = arena_alloc(x->ctx->arena, raw.len ? raw.len : 1);
    if (!*out) {
        buf_free(&raw);
        return error_nomem(err);
    }
    if (raw.len)
        memcpy(*out, raw.data, raw.len);
    *out_len = raw.len;
    buf_free(&raw);
    return 0;
}

/* Sanitizes a stat's bounds as the contract asks (bounds.h): undecodable,
 * NaN and inverted bounds are dropped, zero bounds canonicalised. */
static int take_bounds(struct commit_ctx *x, const struct column_info *col, struct commit_stat *s,
                       struct error *err)
{
    uint8_t *lo, *hi;
    size_t lo_len, hi_len;
    if (decode_bound(x, s->lower_b64, &lo, &lo_len, err) != 0 ||
        decode_bound(x, s->upper_b64, &hi, &hi_len, err) != 0)
        return -1;
    struct bound_slot lower = {lo, lo_len, lo != NULL, BOUND_KEEP};
    struct bound_slot upper = {hi, hi_len, hi != NULL, BOUND_KEEP};
    x->repaired += bound_sanitize_pair(col->type, col->precision, col->scale, &lower, &upper);
    s->lower = lower.present ? lower.data : NULL;
    s->lower_len = lower.present ? lower.len : 0;
    s->upper = upper.present ? upper.data : NULL;
    s->upper_len = upper.present ? upper.len : 0;
    return 0;
}

static bool has_stat(const struct commit_file *f, int64_t field_id)
{
    for (size_t i = 0; i < f->nstats; i++)
        if (f->stats[i].field_id == field_id)
            return true;
    return false;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* ---- explicit row ids ---- */

/* The row-id column a file whose rows keep their ids carries (compaction
 * outputs' too): a long, one value per row. */
static const struct column_info row_id_column = {.field_id = LAKE_ROW_ID_FIELD_ID, .type = LT_LONG};

/* The file's _hog_row_id statistics as sent: a value for every row and no
 * null (checked before any repair, which would hide a wrong count). */
static int check_row_id_counts(const struct commit_table *t, const struct commit_file *f,
                               const struct commit_stat *s, struct error *err)
{
    if (s->value_count != f->record_count || s->null_count != 0)
        return error_fail(err, ERR_INVALID,
                          "%s.%s: file '%.300s' keeps explicit row ids, so its " LAKE_ROW_ID_COLUMN
                          " statistics (field id %lld) must count %lld values and no null, got "
                          "%lld values and %lld nulls",
                          t->namespace_name, t->name, f->path, (long long)LAKE_ROW_ID_FIELD_ID,
                          (long long)f->record_count, (long long)s->value_count,
                          (long long)s->null_count);
    return 0;
}

/* The sanitized bounds of the file's _hog_row_id: ids the table has given
 * out ([0, next_row_id)), in a range wide enough for its rows. The server
 * never opens the file, so this is what it can hold the writer to. */
static int check_row_id_bounds(const struct commit_table *t, const struct table_live *l,
                               struct commit_file *f, const struct commit_stat *s,
                               struct error *err)
{
    if (s->lower_len != 8 || s->upper_len != 8)
        return error_fail(err, ERR_INVALID,
                          "%s.%s: file '%.300s' keeps explicit row ids, so its " LAKE_ROW_ID_COLUMN
                          " statistics need lower and upper bounds (8-byte little-endian longs)",
                          t->namespace_name, t->name, f->path);
    int64_t lo = (int64_t)le_load64(s->lower), hi = (int64_t)le_load64(s->upper);
    if (lo < 0 || hi >= l->next_row_id)
        return error_fail(err, ERR_INVALID,
                          "%s.%s: file '%.300s' keeps row ids %lld to %lld, outside the ids the "
                          "table has given out [0, %lld)",
                          t->namespace_name, t->name, f->path, (long long)lo, (long long)hi,
                          (long long)l->next_row_id);
    if (f->record_count > 0 && (uint64_t)(hi - lo) < (uint64_t)(f->record_count - 1))
        return error_fail(err, ERR_INVALID,
                          "%s.%s: file '%.300s' has %lld rows but its row ids %lld to %lld "
                          "cannot all differ",
                          t->namespace_name, t->name, f->path, (long long)f->record_count,
                          (long long)lo, (long long)hi);
    f->row_id_min = lo;
    return 0;
}

static int check_stats(struct commit_ctx *x, size_t ti, size_t fi, struct error *err)
{
    const struct commit_table *t = &x->c->tables[ti];
    struct commit_file *f = &t->files[fi];
    const struct table_live *l = &x->live[ti];
    if (f->explicit_row_ids && !has_stat(f, LAKE_ROW_ID_FIELD_ID))
        return error_fail(err, ERR_INVALID,
                          "%s.%s: file '%.300s' keeps explicit row ids but has no statistics "
                          "for " LAKE_ROW_ID_COLUMN " (field id %lld), which bound them",
                          t->namespace_name, t->name, f->path, (long long)LAKE_ROW_ID_FIELD_ID);
    if (f->nstats == 0)
        return 0;
    int64_t *ids = arena_calloc(x->ctx->arena, f->nstats, sizeof *ids);
    if (!ids)
        return error_nomem(err);
    for (size_t i = 0; i < f->nstats; i++)
        ids[i] = f->stats[i].field_id;
    qsort(ids, f->nstats, sizeof *ids, cmp_i64);
    for (size_t i = 1; i < f->nstats; i++)
        if (ids[i] == ids[i - 1])
            return error_fail(err, ERR_INVALID,
                              "%s.%s: file '%.300s' has two statistics for field id %lld",
                              t->namespace_name, t->name, f->path, (long long)ids[i]);
    for (size_t i = 0; i < f->nstats; i++) {
        struct commit_stat *s = &f->stats[i];
        bool row_ids = f->explicit_row_ids && s->field_id == LAKE_ROW_ID_FIELD_ID;
        const struct column_info *col = row_ids ? &row_id_column : find_column(l, s->field_id);
        if (row_ids && check_row_id_counts(t, f, s, err) != 0)
            return -1;
        if (!col)
            return error_fail(err, ERR_INVALID,
                              "%s.%s: file '%.300s' has statistics for field id %lld, "
                              "which is not a live column",
                              t->namespace_name, t->name, f->path, (long long)s->field_id);
        if (lake_type_is_container(col->type) || col->type == LT_VARIANT)
            return error_fail(err, ERR_INVALID,
                              "%s.%s: file '%.300s' has statistics for field id %lld, a "
                              "%s column, which has none",
                              t->namespace_name, t->name, f->path, (long long)s->field_id,
                              lake_type_name(col->type));
        /* Impossible counts are clamped rather than refused: a column
         * outside any list or map has one value per row. */
        if (!col->repeated && s->value_count > f->record_count) {
            s->value_count = f->record_count;
            x->repaired++;
        }
        if (s->null_count > s->value_count) {
            s->null_count = s->value_count;
            x->repaired++;
        }
        bool floating = col->type == LT_FLOAT || col->type == LT_DOUBLE;
        if (s->has_nan_count && !floating) {
            s->has_nan_count = false;
            x->repaired++;
        } else if (s->has_nan_count && s->nan_count > s->value_count - s->null_count) {
            s->nan_count = s->value_count - s->null_count;
            x->repaired++;
        }
        if (take_bounds(x, col, s, err) != 0 ||
            (row_ids && check_row_id_bounds(t, l, f, s, err) != 0))
            return -1;
    }
    return 0;
}

static int validate_appends(struct commit_ctx *x, size_t ti, struct error *err)
{
    const struct commit_table *t = &x->c->tables[ti];
    struct table_live *l = &x->live[ti];
    if (t->nfiles == 0)
        return 0;
    bool stats = false;
    for (size_t i = 0; i < t->nfiles; i++)
        stats |= t->files[i].nstats > 0;
    if (stats && load_columns(x, ti, err) != 0)
        return -1;
    bool partitioned = l->has_spec && l->nspec_fields > 0;
    for (size_t i = 0; i < t->nfiles; i++) {
        const struct commit_file *f = &t->files[i];
        if (partitioned &&
            (!f->has_partition_values || (int64_t)f->npartition_values != l->nspec_fields))
            return error_fail(err, ERR_INVALID,
                              "%s.%s is partitioned by %lld field(s); file '%.300s' carries "
                              "%zu partition value(s)",
                              t->namespace_name, t->name, (long long)l->nspec_fields, f->path,
                              f->has_partition_values ? f->npartition_values : 0);
        if (!partitioned && f->has_partition_values)
            return error_fail(err, ERR_INVALID,
                              "%s.%s is not partitioned; file '%.300s' carries partition "
                              "values",
                              t->namespace_name, t->name, f->path);
        /* Rows that keep their ids take none from the allocator. */
        int64_t new_ids = f->explicit_row_ids ? 0 : f->record_count;
        if (__builtin_add_overflow(l->records, new_ids, &l->records) ||
            __builtin_add_overflow(l->bytes, f->file_size_bytes, &l->bytes))
            return error_fail(err, ERR_INVALID, "%s.%s: the files' record counts or sizes overflow",
                              t->namespace_name, t->name);
        if (check_stats(x, ti, i, err) != 0)
            return -1;
    }
    return 0;
}

/* ---- steps 10 and 15: deletion vectors ---- */

/* A deletion vector's target, for finding two on one file: an appended
 * file by its index, another by its id. */
struct dv_target_key {
    bool append;
    int64_t target;
    size_t i; /* the vector's index in its table */
};

static int cmp_dv_target_keys(const void *a, const void *b)
{
    const struct dv_target_key *x = a, *y = b;
    if (x->append != y->append)
        return x->append ? 1 : -1;
    if (x->target != y->target)
        return x->target < y->target ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

/* The first vector (by index) of table t whose target an earlier one
 * names, or -1: sorted by target, not a pass over the earlier vectors per
 * vector (quadratic in a body's vectors). -2 when memory ran out. */
static ptrdiff_t first_repeated_target(struct commit_ctx *x, const struct commit_table *t)
{
    if (t->ndvs < 2)
        return -1;
    struct dv_target_key *keys = arena_calloc(x->ctx->arena, t->ndvs, sizeof *keys);
    if (!keys)
        return -2;
    for (size_t i = 0; i < t->ndvs; i++) {
        const struct commit_dv *d = &t->dvs[i];
        keys[i] = (struct dv_target_key){
            d->targets_append, d->targets_append ? (int64_t)d->append_index : d->data_file_id, i};
    }
    qsort(keys, t->ndvs, sizeof *keys, cmp_dv_target_keys);
    ptrdiff_t first = -1;
    for (size_t k = 1; k < t->ndvs; k++)
        if (keys[k].append == keys[k - 1].append && keys[k].target == keys[k - 1].target &&
            (first < 0 || (size_t)first > keys[k].i))
            first = (ptrdiff_t)keys[k].i;
    return first;
}

/* A deletion vector on a file this commit appends (the transaction
 * endpoint): nothing to conflict with, no vector to supersede; it deletes
 * at most the file's rows. */
static int validate_append_dv(const struct commit_table *t, const struct commit_dv *d,
                              struct error *err)
{
    const struct commit_file *f = &t->files[d->append_index];
    if (d->delete_count > f->record_count)
        return error_fail(err, ERR_INVALID,
                          "deletion vector '%.300s' deletes %lld rows of a %lld-row file", d->path,
                          (long long)d->delete_count, (long long)f->record_count);
    return 0;
}

/* Checks a DV against its target, an existing data file (contract §4.5),
 * read into *g. */
static int validate_dv(struct commit_ctx *x, size_t ti, const struct commit_dv *d,
                       struct store_commit_dv_target *g, struct error *err)
{
    const struct commit_table *t = &x->c->tables[ti];
    int64_t rs = x->c->read_snapshot;
    if (!store_commit_dv_target(&x->reads, x->slot.dv_targets, d->data_file_id, g))
        return error_fail(err, ERR_INVALID,
                          "%s.%s: deletion vector '%.300s' targets unknown data file "
                          "%lld",
                          t->namespace_name, t->name, d->path, (long long)d->data_file_id);
    if (g->begin > rs)
        return error_fail_reason(err, ERR_CONFLICT, "commit_conflict",
                                 "data file %lld was added after read_snapshot %lld",
                                 (long long)d->data_file_id, (long long)rs);
    if (g->table_id != x->live[ti].table_id)
        return error_fail(err, ERR_INVALID, "data file %lld does not belong to %s.%s",
                          (long long)d->data_file_id, t->namespace_name, t->name);
    if (g->ended && g->end > rs)
        return error_fail_reason(err, ERR_CONFLICT, "commit_conflict",
                                 "data file %lld was retired at snapshot %lld, after "
                                 "read_snapshot %lld",
                                 (long long)d->data_file_id, (long long)g->end, (long long)rs);
    if (g->ended)
        return error_fail(err, ERR_INVALID,
                          "data file %lld was already retired at read_snapshot %lld",
                          (long long)d->data_file_id, (long long)rs);
    if (d->delete_count > g->records)
        return error_fail(err, ERR_INVALID,
                          "deletion vector '%.300s' deletes %lld rows of a %lld-row "
                          "file",
                          d->path, (long long)d->delete_count, (long long)g->records);
    if (g->has_live_dv && g->dv_begin > rs)
        return error_fail_reason(err, ERR_CONFLICT, "commit_conflict",
                                 "data file %lld got a new deletion vector after read_snapshot "
                                 "%lld",
                                 (long long)d->data_file_id, (long long)rs);
    if (d->removes_file && d->delete_count != g->records)
        return error_fail(err, ERR_INVALID,
                          "deletion vector '%.300s' removes data file %lld but deletes %lld of "
                          "its %lld rows: removes_file needs every row deleted",
                          d->path, (long long)d->data_file_id, (long long)d->delete_count,
                          (long long)g->records);
    if (g->has_live_dv && g->dv_count > d->delete_count)
        return error_fail(err, ERR_INVALID,
                          "deletion vector '%.300s' deletes %lld rows, fewer than the %lld "
                          "its predecessor deletes",
                          d->path, (long long)d->delete_count, (long long)g->dv_count);
    return 0;
}

/* Checks every DV against its target; fills targets[] parallel to the
 * table's DVs (left empty for a target this commit appends). */
static int validate_dvs(struct commit_ctx *x, size_t ti, struct store_commit_dv_target *targets,
                        struct error *err)
{
    const struct commit_table *t = &x->c->tables[ti];
    ptrdiff_t twice = first_repeated_target(x, t);
    if (twice == -2)
        return error_nomem(err);
    if (twice >= 0) {
        const struct commit_dv *d = &t->dvs[twice];
        if (d->targets_append)
            return error_fail(err, ERR_INVALID,
                              "%s.%s: two deletion vectors for appended file '%.300s' in "
                              "one commit; merge them",
                              t->namespace_name, t->name, t->files[d->append_index].path);
        return error_fail(err, ERR_INVALID,
                          "%s.%s: two deletion vectors for data file %lld in one "
                          "commit; merge them",
                          t->namespace_name, t->name, (long long)d->data_file_id);
    }
    for (size_t i = 0; i < t->ndvs; i++) {
        const struct commit_dv *d = &t->dvs[i];
        if (d->targets_append ? validate_append_dv(t, d, err) != 0
                              : validate_dv(x, ti, d, &targets[i], err) != 0)
            return -1;
    }
    return 0;
}

/* Rows that keep their ids are an update's rewrite of rows the same
 * commit deletes: the table must lose at least as many rows of its
 * existing files (new vectors' counts less the ones they supersede) as
 * it gains with kept ids, or ids could be live twice. */
static int check_explicit_rows(struct commit_ctx *x, size_t ti,
                               const struct store_commit_dv_target *targets, struct error *err)
{
    const struct commit_table *t = &x->c->tables[ti];
    int64_t kept = 0, deleted = 0;
    for (size_t i = 0; i < t->nfiles; i++)
        if (t->files[i].explicit_row_ids &&
            __builtin_add_overflow(kept, t->files[i].record_count, &kept))
            return error_fail(err, ERR_INVALID, "%s.%s: the files' record counts overflow",
                              t->namespace_name, t->name);
    if (kept == 0)
        return 0;
    for (size_t i = 0; i < t->ndvs; i++) {
        if (t->dvs[i].targets_append)
            continue;
        /* validate_dv: a vector deletes at least its predecessor's rows. */
        int64_t before = targets[i].has_live_dv ? targets[i].dv_count : 0;
        if (__builtin_add_overflow(deleted, t->dvs[i].delete_count - before, &deleted))
            deleted = INT64_MAX;
    }
    if (deleted < kept)
        return error_fail(err, ERR_INVALID,
                          "%s.%s: %lld appended rows keep explicit row ids, but the commit "
                          "deletes only %lld rows of the table's files: an update deletes the "
                          "rows it rewrites",
                          t->namespace_name, t->name, (long long)kept, (long long)deleted);
    return 0;
}

/* ---- step 11: paths queued for removal or already registered ---- */

int commit_path_guard(struct commit_ctx *x, struct error *err)
{
    const char *path = NULL;
    switch (store_commit_path_guard(&x->reads, x->slot.paths, &path)) {
    case STORE_COMMIT_PATH_FREE: return 0;
    case STORE_COMMIT_PATH_QUEUED:
        return error_fail_reason(err, ERR_CONFLICT, "commit_conflict",
                                 "path '%.300s' is queued for removal and cannot be registered "
                                 "until the queue drains",
                                 path);
    case STORE_COMMIT_PATH_CLAIMED:
        return error_fail_reason(err, ERR_CONFLICT, "upload_not_owned",
                                 "path '%.300s' is an upload claim this commit does not own (its "
                                 "upload_owner differs, or the claim was abandoned or registered)",
                                 path);
    case STORE_COMMIT_PATH_UNCLAIMED:
        return error_fail_reason(err, ERR_CONFLICT, "upload_not_owned",
                                 "path '%.300s' is not an active upload claim of this commit's "
                                 "idempotency_key (of its kind: data for a file, delete for a "
                                 "deletion vector)",
                                 path);
    case STORE_COMMIT_PATH_REGISTERED: break;
    }
    return error_fail(err, ERR_INVALID,
                      "path '%.300s' is already registered in this catalog; every object is "
                      "registered once",
                      path);
}

/* Steps 10 to 13 against what x->reads holds: the blind-append policy, the
 * live tables, the conflict check and every file and deletion vector. */
int commit_check_tables(struct commit_ctx *x, struct store_commit_dv_target ***targets_out,
                        struct error *err)
{
    struct commit_request *c = x->c;
    if (c->has_partition_values && !c->has_read_snapshot &&
        x->ctx->srv->cfg.refuse_blind_partitioned_appends)
        return error_fail(err, ERR_INVALID,
                          "partition values without a read_snapshot are refused on "
                          "this server: pin the spec you partitioned by");
    memset(x->live, 0, c->ntables * sizeof *x->live);
    if (take_live_tables(x, err) != 0)
        return -1;
    for (size_t i = 0; i < c->ntables; i++)
        if (resolve_table(x, i, err) != 0)
            return -1;
    if (c->has_read_snapshot && conflict_check(x, err) != 0)
        return -1;
    struct store_commit_dv_target **targets =
        arena_calloc(x->ctx->arena, c->ntables, sizeof *targets);
    if (!targets)
        return error_nomem(err);
    x->repaired = 0;
    for (size_t i = 0; i < c->ntables; i++) {
        targets[i] = arena_calloc(x->ctx->arena, c->tables[i].ndvs ? c->tables[i].ndvs : 1,
                                  sizeof **targets);
        if (!targets[i])
            return error_nomem(err);
        if (validate_appends(x, i, err) != 0 || validate_dvs(x, i, targets[i], err) != 0 ||
            check_explicit_rows(x, i, targets[i], err) != 0)
            return -1;
    }
    *targets_out = targets;
    return 0;
}
