/* A Parquet file read in a table's shape (rows_project.h). */
#include "rows/rows_project.h"

#include <stdio.h>
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
}

static enum rows_project_status nomem(char *err, size_t err_size)
{
    snprintf(err, err_size, "out of memory");
    return ROWS_PROJECT_NOMEM;
}

enum rows_project_status rows_project_open(struct pq_reader *r, const struct lake_table *t,
                                           struct rows_projection *p, char *err, size_t err_size)
{
    memset(p, 0, sizeof *p);
    size_t n = t->root.nchildren;
    int32_t *ids = calloc(n ? n : 1, sizeof *ids);
    p->map = calloc(n ? n : 1, sizeof *p->map);
    p->ncols = n;
    if (!ids || !p->map) {
        free(ids);
        rows_project_free(p);
        return nomem(err, err_size);
    }
    size_t nids = 0;
    const struct pq_schema *ps = pq_reader_schema(r);
    for (size_t c = 0; c < n; c++) {
        int32_t id = (int32_t)t->root.children[c]->field_id;
        p->map[c] = pq_schema_find_top_by_id(ps, id) ? (int64_t)nids : -1;
        if (p->map[c] >= 0)
            ids[nids++] = id;
    }
    struct error pe;
    struct ArrowSchema file_schema, fresh;
    int rc = nids ? pq_reader_select_field_ids(r, ids, nids, &pe) : 0;
    free(ids);
    if (rc != 0 || pq_reader_arrow_schema(r, &file_schema, &pe) != 0) {
        rows_project_free(p);
        snprintf(err, err_size, "%s", pe.msg);
        return pe.code == ERR_NOMEM ? ROWS_PROJECT_NOMEM : ROWS_PROJECT_READ;
    }
    if (rows_table_arrow_schema(t, &fresh) != 0 ||
        arrow_schema_init(&p->projected, "+s", "", 0, (int64_t)n) != 0) {
        file_schema.release(&file_schema);
        if (fresh.release)
            fresh.release(&fresh);
        rows_project_free(p);
        return nomem(err, err_size);
    }
    for (size_t c = 0; c < n; c++) {
        struct ArrowSchema *from =
            p->map[c] >= 0 ? file_schema.children[p->map[c]] : fresh.children[c];
        arrow_schema_move(from, p->projected.children[c]);
    }
    file_schema.release(&file_schema);
    fresh.release(&fresh);
    if (rows_adapt_check(&p->projected, t, err, err_size) != 0) {
        rows_project_free(p);
        return ROWS_PROJECT_UNCONVERTIBLE;
    }
    return ROWS_PROJECT_OK;
}

enum rows_project_status rows_project_read(struct pq_reader *r, size_t g,
                                           const struct rows_projection *p,
                                           const struct lake_table *t, struct ArrowArray *out,
                                           char *err, size_t err_size)
{
    struct ArrowArray in;
    struct error pe;
    memset(out, 0, sizeof *out);
    if (pq_reader_read_row_group(r, g, &in, &pe) != 0) {
        snprintf(err, err_size, "%s", pe.msg);
        return pe.code == ERR_NOMEM ? ROWS_PROJECT_NOMEM : ROWS_PROJECT_READ;
    }
    if (arrow_array_init(out, 1, (int64_t)p->ncols) != 0) {
        in.release(&in);
        return nomem(err, err_size);
    }
    out->length = in.length;
    int rc = 0;
    for (size_t c = 0; c < p->ncols && rc == 0; c++) {
        if (p->map[c] >= 0)
            arrow_array_move(in.children[p->map[c]], out->children[c]);
        else
            rc = arrow_array_nulls(p->projected.children[c], in.length, out->children[c]);
    }
    in.release(&in);
    enum rows_project_status st = ROWS_PROJECT_OK;
    if (rc != 0)
        st = nomem(err, err_size);
    else if (rows_adapt_batch(&p->projected, out, t, err, err_size) != 0)
        st = ROWS_PROJECT_UNCONVERTIBLE;
    if (st != ROWS_PROJECT_OK)
        out->release(out);
    return st;
}
