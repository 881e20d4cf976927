/* Pruning by partition values and statistics: see prune.h. */
#include "client/prune.h"

#include <stdlib.h>
#include <string.h>

#include "client/internal.h"
#include "expr/expr.h"
#include "lake/dv.h"
#include "lake/partition.h"
#include "parquet/reader.h"
#include "rows/rows_project.h"
#include "util/error.h"

static bool partition_may_match(const struct lake_table *t, const struct expr_pred *pred,
                                const json_t *df)
{
    int64_t spec_id = -1;
    const json_t *pv = json_object_get(df, "partition_values");
    if (!t->partitioned || !client_json_int(df, "spec_id", &spec_id) || spec_id != t->spec_id ||
        !json_is_array(pv) || json_array_size(pv) != t->nspec_fields)
        return true;
    const char *values[LAKE_MAX_SPEC_FIELDS];
    for (size_t i = 0; i < t->nspec_fields; i++)
        values[i] = json_string_value(json_array_get(pv, i)); /* NULL: a null value */
    return expr_pred_may_match_partition(pred, t->spec_fields, t->nspec_fields, values,
                                         t->nspec_fields);
}

bool client_file_may_match(const struct lake_table *t, const struct expr_pred *pred,
                           const json_t *df, struct arena *scratch)
{
    if (!partition_may_match(t, pred, df))
        return false;
    const json_t *stats = json_object_get(df, "column_stats");
    struct expr_field_stats *fs = NULL;
    size_t n = 0;
    struct error e;
    if (!json_is_array(stats) || expr_stats_from_json(t, stats, scratch, &fs, &n, &e) != 0)
        return true;
    return expr_pred_may_match(pred, fs, n);
}

bool client_row_group_may_match(const struct lake_table *t, const struct expr_pred *pred,
                                struct pq_reader *r, size_t g, struct arena *scratch)
{
    struct expr_field_stats *fs = NULL, *vs = NULL;
    size_t n = 0, nv = 0;
    struct error e;
    if (expr_stats_from_row_group(t, pq_reader_meta(r), pq_reader_schema(r), g, scratch, &fs, &n,
                                  &e) != 0 ||
        expr_stats_variant_leaves(pred, pq_reader_meta(r), pq_reader_schema(r), g, scratch, &vs,
                                  &nv, &e) != 0)
        return true;
    if (nv == 0)
        return expr_pred_may_match(pred, fs, n);
    struct expr_field_stats *all = arena_calloc(scratch, n + nv, sizeof *all);
    if (!all)
        return true;
    if (n)
        memcpy(all, fs, n * sizeof *all);
    memcpy(all + n, vs, nv * sizeof *all);
    return expr_pred_may_match(pred, all, n + nv);
}

/* One predicate column's page index in a row group, and each page's
 * statistics. */
struct column_pages {
    struct pq_page_index pi;
    struct expr_field_stats *stats;
    bool *known; /* stats[p] says something */
    size_t next; /* the page of the segment being judged */
};

static int leaf_of(const struct pq_schema *schema, int64_t field_id)
{
    for (int l = 0; l < schema->nleaves; l++) {
        const struct pq_schema_element *el = schema->leaves[l]->el;
        if (el->has_field_id && el->field_id == field_id)
            return l;
    }
    return -1;
}

/* The page index of leaf `leaf`'s chunk in row group g with its pages'
 * statistics, as a table column's (t) or, given vl, as a variant path's;
 * false when there is none to use. */
static bool read_column_pages(const struct lake_table *t, const struct expr_variant_leaf *vl,
                              struct pq_reader *r, size_t g, int leaf, struct arena *a,
                              struct column_pages *out)
{
    const struct pq_schema *schema = pq_reader_schema(r);
    struct error e;
    memset(out, 0, sizeof *out);
    if (leaf < 0 || pq_reader_page_index(r, g, leaf, a, &out->pi, &e) != 0 ||
        !out->pi.has_offsets || !out->pi.has_bounds)
        return false;
    size_t np = out->pi.offsets.npages;
    out->stats = arena_calloc(a, np ? np : 1, sizeof *out->stats);
    out->known = arena_calloc(a, np ? np : 1, sizeof *out->known);
    if (!out->stats || !out->known)
        return false;
    bool any = false;
    for (size_t p = 0; p < np; p++) {
        int rc = vl ? expr_stats_variant_page(vl, schema, &out->pi, p, a, &out->stats[p], &e)
                    : expr_stats_from_page(t, schema, leaf, &out->pi, p, a, &out->stats[p], &e);
        if (rc < 0)
            return false;
        out->known[p] = rc == 0;
        any = any || rc == 0;
    }
    return any;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Every page start of the columns and the row group's end, sorted and
 * distinct: the segments' bounds. */
static int64_t *segment_bounds(const struct column_pages *cols, size_t ncols, int64_t num_rows,
                               struct arena *a, size_t *nbounds)
{
    size_t cap = 1;
    for (size_t k = 0; k < ncols; k++)
        cap += cols[k].pi.offsets.npages;
    int64_t *b = arena_calloc(a, cap, sizeof *b);
    if (!b)
        return NULL;
    size_t n = 0;
    for (size_t k = 0; k < ncols; k++)
        for (size_t p = 0; p < cols[k].pi.offsets.npages; p++)
            b[n++] = cols[k].pi.offsets.pages[p].first_row_index;
    b[n++] = num_rows;
    qsort(b, n, sizeof *b, cmp_i64);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (m == 0 || b[i] != b[m - 1])
            b[m++] = b[i];
    *nbounds = m;
    return b;
}

/* Whether the rows from `begin` may match: each column's page holding
 * begin judged together. */
static bool segment_may_match(const struct expr_pred *pred, struct column_pages *cols, size_t ncols,
                              int64_t begin, struct expr_field_stats *stats)
{
    size_t m = 0;
    for (size_t k = 0; k < ncols; k++) {
        struct column_pages *c = &cols[k];
        while (c->next + 1 < c->pi.offsets.npages &&
               c->pi.offsets.pages[c->next + 1].first_row_index <= begin)
            c->next++;
        if (c->known[c->next])
            stats[m++] = c->stats[c->next];
    }
    return expr_pred_may_match(pred, stats, m);
}

int client_row_group_pages(const struct lake_table *t, const struct expr_pred *pred,
                           struct pq_reader *r, size_t g, struct arena *scratch,
                           struct pq_row_range **ranges, size_t *n)
{
    *ranges = NULL;
    *n = 0;
    const struct expr_columns *want = expr_pred_columns(pred);
    const struct pq_file_meta *meta = pq_reader_meta(r);
    if (g >= meta->nrow_groups)
        return 1;
    int64_t num_rows = meta->row_groups[g].num_rows;
    /* The table's columns, and the shredded leaves of variant paths. */
    struct expr_variant_leaf *vls = NULL;
    size_t nvl = 0;
    struct error e;
    if (expr_variant_page_leaves(pred, meta, pq_reader_schema(r), g, scratch, &vls, &nvl, &e) != 0)
        return 1;
    size_t cap = want->nfield_ids + nvl;
    struct column_pages *cols = arena_calloc(scratch, cap, sizeof *cols);
    struct expr_field_stats *stats = arena_calloc(scratch, cap, sizeof *stats);
    if (!cols || !stats)
        return 1;
    size_t ncols = 0;
    for (size_t i = 0; i < want->nfield_ids; i++)
        ncols += read_column_pages(t, NULL, r, g, leaf_of(pq_reader_schema(r), want->field_ids[i]),
                                   scratch, &cols[ncols]);
    for (size_t i = 0; i < nvl; i++)
        ncols += read_column_pages(t, &vls[i], r, g, vls[i].leaf, scratch, &cols[ncols]);
    size_t nbounds = 0;
    int64_t *bounds = ncols ? segment_bounds(cols, ncols, num_rows, scratch, &nbounds) : NULL;
    struct pq_row_range *out = bounds ? arena_calloc(scratch, nbounds, sizeof *out) : NULL;
    if (!out)
        return 1;
    for (size_t i = 0; i + 1 < nbounds; i++) {
        if (!segment_may_match(pred, cols, ncols, bounds[i], stats))
            continue;
        if (*n > 0 && out[*n - 1].end == bounds[i])
            out[*n - 1].end = bounds[i + 1];
        else
            out[(*n)++] = (struct pq_row_range){bounds[i], bounds[i + 1]};
    }
    *ranges = out;
    return 0;
}

void client_mask_positions(const struct lake_dv *dv, const struct client_rows_at *at, uint8_t *keep)
{
    /* The rows come in position order: one cursor walks the vector, and
     * rows already dropped cost nothing. */
    size_t i = 0, held = lake_dv_lower_bound(dv, at->first);
    for (size_t k = 0; k < at->n; k++) {
        for (int64_t row = at->ranges[k].begin; row < at->ranges[k].end; row++, i++) {
            if (!keep[i])
                continue;
            uint64_t pos = at->first + (uint64_t)row;
            while (held < dv->n && dv->pos[held] < pos)
                held++;
            if (held < dv->n && dv->pos[held] == pos)
                keep[i] = 0;
        }
    }
}

int client_row_group_ranges(const struct lake_table *t, const struct expr_pred *pred,
                            struct pq_reader *r, size_t g, struct arena *scratch,
                            struct pq_row_range **ranges, size_t *n, bool *by_pages)
{
    *by_pages = false;
    *n = 0;
    if (pred && !client_row_group_may_match(t, pred, r, g, scratch))
        return 0;
    if (pred && client_row_group_pages(t, pred, r, g, scratch, ranges, n) == 0) {
        *by_pages = true;
        return 0;
    }
    *ranges = arena_calloc(scratch, 1, sizeof **ranges);
    if (!*ranges)
        return -1;
    **ranges = (struct pq_row_range){0, pq_reader_meta(r)->row_groups[g].num_rows};
    *n = 1;
    return 0;
}

int client_row_group_chunks(const struct lake_table *t, const struct expr_pred *pred,
                            struct pq_reader *r, size_t g, uint64_t first,
                            struct rows_projection *proj, struct arena *scratch,
                            struct rows_chunks **chunks, struct client_group_read *got,
                            struct error *e)
{
    *chunks = NULL;
    *got = (struct client_group_read){.at.first = first};
    struct pq_row_range *ranges = NULL;
    bool by_pages = false;
    if (client_row_group_ranges(t, pred, r, g, scratch, &ranges, &got->at.n, &by_pages) != 0)
        return error_nomem(e);
    got->at.ranges = ranges;
    if (got->at.n == 0)
        return 0;
    if (!by_pages)
        return rows_project_chunks(r, g, proj, t, chunks, e);
    struct pq_range_read_stats read = {0};
    if (rows_project_chunks_ranges(r, g, ranges, got->at.n, proj, t, chunks, &read, e) != 0)
        return -1;
    got->pages_read = (int64_t)read.pages_read;
    got->pages_skipped = (int64_t)read.pages_skipped;
    return 0;
}

int client_rows_at_part(const struct client_rows_at *at, int64_t first_row, int64_t n,
                        struct arena *a, struct client_rows_at *out)
{
    struct pq_row_range *r = arena_calloc(a, at->n ? at->n : 1, sizeof *r);
    if (!r)
        return -1;
    size_t m = 0;
    int64_t skip = first_row, left = n;
    for (size_t k = 0; k < at->n && left > 0; k++) {
        int64_t len = at->ranges[k].end - at->ranges[k].begin;
        if (skip >= len) {
            skip -= len;
            continue;
        }
        int64_t begin = at->ranges[k].begin + skip;
        int64_t take = len - skip < left ? len - skip : left;
        r[m++] = (struct pq_row_range){begin, begin + take};
        left -= take;
        skip = 0;
    }
    *out = (struct client_rows_at){at->first, r, m};
    return 0;
}
