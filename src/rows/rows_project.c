/* A Parquet file read in a table's shape (rows_project.h). */
#include "rows/rows_project.h"

#include <stdlib.h>
#include <string.h>

#include "rows/rows_adapt.h"
#include "rows/rows_schema.h"
#include "util/arrow.h"

void rows_project_free(struct rows_projection *p)
{
    if (p->projected.release)
        p->projected.release(&p->projected);
    memset(&p->projected, 0, sizeof p->projected);
    free(p->map);
    p->map = NULL;
    p->ncols = 0;
    arrow_zeros_unref(p->zeros);
    p->zeros = NULL;
}

int rows_project_open(struct pq_reader *r, const struct lake_table *t, struct rows_projection *p,
                      struct error *err)
{
    return rows_project_open_some(r, t, NULL, p, err);
}

int rows_project_open_some(struct pq_reader *r, const struct lake_table *t, const bool *wanted,
                           struct rows_projection *p, struct error *err)
{
    memset(p, 0, sizeof *p);
    size_t n = t->root.nchildren;
    int32_t *ids = calloc(n ? n : 1, sizeof *ids);
    p->map = calloc(n ? n : 1, sizeof *p->map);
    p->ncols = n;
    if (!ids || !p->map) {
        free(ids);
        rows_project_free(p);
        return error_nomem(err);
    }
    size_t nids = 0;
    const struct pq_schema *ps = pq_reader_schema(r);
    for (size_t c = 0; c < n; c++) {
        int32_t id = (int32_t)t->root.children[c]->field_id;
        bool read = !wanted || wanted[c];
        p->map[c] = read && pq_schema_find_top_by_id(ps, id) ? (int64_t)nids : -1;
        if (p->map[c] >= 0)
            ids[nids++] = id;
    }
    struct ArrowSchema file_schema, fresh;
    int rc = nids ? pq_reader_select_field_ids(r, ids, nids, err) : 0;
    free(ids);
    if (rc != 0 || pq_reader_arrow_schema(r, &file_schema, err) != 0) {
        rows_project_free(p);
        return -1;
    }
    if (rows_table_arrow_schema(t, &fresh) != 0 ||
        arrow_schema_init(&p->projected, "+s", "", 0, (int64_t)n) != 0) {
        file_schema.release(&file_schema);
        if (fresh.release)
            fresh.release(&fresh);
        rows_project_free(p);
        return error_nomem(err);
    }
    for (size_t c = 0; c < n; c++) {
        struct ArrowSchema *from =
            p->map[c] >= 0 ? file_schema.children[p->map[c]] : fresh.children[c];
        arrow_schema_move(from, p->projected.children[c]);
    }
    file_schema.release(&file_schema);
    fresh.release(&fresh);
    if (rows_adapt_check(&p->projected, t, err) != 0) {
        rows_project_free(p);
        return -1;
    }
    return 0;
}

/* The reader's batch in (taken) through the projection into *out: the
 * file's columns in table order, nulls for the absent, not yet converted. */
static int project_columns(struct ArrowArray *in, struct rows_projection *p, struct ArrowArray *out,
                           struct error *err)
{
    /* The absent columns share one zeroed block, kept for the next batch:
     * no buffers to zero per column and per batch. */
    size_t zeros = 0;
    for (size_t c = 0; c < p->ncols; c++) {
        size_t need = p->map[c] < 0 ? arrow_nulls_size(p->projected.children[c], in->length) : 0;
        zeros = need > zeros ? need : zeros;
    }
    if ((zeros > 0 && arrow_zeros_reserve(&p->zeros, zeros) != 0) ||
        arrow_array_init(out, 1, (int64_t)p->ncols) != 0) {
        in->release(in);
        return error_nomem(err);
    }
    out->length = in->length;
    int rc = 0;
    for (size_t c = 0; c < p->ncols && rc == 0; c++) {
        if (p->map[c] >= 0)
            arrow_array_move(in->children[p->map[c]], out->children[c]);
        else
            rc = arrow_array_nulls_in(p->projected.children[c], in->length, p->zeros,
                                      out->children[c]);
    }
    in->release(in);
    if (rc != 0) {
        out->release(out);
        return error_nomem(err);
    }
    return 0;
}

/* The reader's batch in (taken) through the projection into *out. */
static int project_batch(struct ArrowArray *in, struct rows_projection *p,
                         const struct lake_table *t, struct ArrowArray *out, struct error *err)
{
    if (project_columns(in, p, out, err) != 0)
        return -1;
    int rc = rows_adapt_batch_with(
        &p->projected, out, t,
        &(struct rows_adapt_options){.variant_keep_storage = p->keep_variant_storage}, err);
    if (rc != 0)
        out->release(out);
    return rc;
}

/* The reader's batch in (taken) through the projection, in chunks. */
static int project_chunks(struct ArrowArray *in, struct rows_projection *p,
                          const struct lake_table *t, struct rows_chunks **out, struct error *err)
{
    struct ArrowArray b;
    if (project_columns(in, p, &b, err) != 0)
        return -1;
    /* A row group is read whole unless its variant values would near the
     * byte bound: rows alone never cut it. */
    p->chunk_opt = (struct rows_adapt_options){.variant_keep_storage = p->keep_variant_storage,
                                               .chunk_rows = INT64_MAX};
    return rows_chunks_open(&p->projected, &b, t, &p->chunk_opt, out, err);
}

int rows_project_chunks(struct pq_reader *r, size_t g, struct rows_projection *p,
                        const struct lake_table *t, struct rows_chunks **out, struct error *err)
{
    struct ArrowArray in;
    *out = NULL;
    if (pq_reader_read_row_group(r, g, &in, err) != 0)
        return -1;
    return project_chunks(&in, p, t, out, err);
}

int rows_project_chunks_ranges(struct pq_reader *r, size_t g, const struct pq_row_range *ranges,
                               size_t n, struct rows_projection *p, const struct lake_table *t,
                               struct rows_chunks **out, struct pq_range_read_stats *stats,
                               struct error *err)
{
    struct ArrowArray in;
    *out = NULL;
    if (pq_reader_read_row_ranges(r, g, ranges, n, &in, stats, err) != 0)
        return -1;
    return project_chunks(&in, p, t, out, err);
}

int rows_project_read(struct pq_reader *r, size_t g, struct rows_projection *p,
                      const struct lake_table *t, struct ArrowArray *out, struct error *err)
{
    struct ArrowArray in;
    memset(out, 0, sizeof *out);
    if (pq_reader_read_row_group(r, g, &in, err) != 0)
        return -1;
    return project_batch(&in, p, t, out, err);
}
