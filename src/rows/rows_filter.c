#include "rows/rows_filter.h"

#include <stdbool.h>
#include <stdlib.h>

#include "rows/rows_sort.h"
#include "util/arrow.h"

/* Replaces *batch by rows refs[0..n) of it. */
static int keep_refs(const struct ArrowSchema *schema, struct ArrowArray *batch,
                     const struct rows_ref *refs, size_t n, struct error *err)
{
    const struct ArrowArray *one[1] = {batch};
    struct ArrowArray kept;
    if (rows_take(schema, one, 1, refs, n, &kept, err) != 0)
        return -1;
    batch->release(batch);
    arrow_array_move(&kept, batch);
    return 0;
}

static struct rows_ref *refs_for(const struct ArrowArray *batch, struct error *err)
{
    if (batch->length > (int64_t)UINT32_MAX) {
        error_fail(err, ERR_LIMIT, "a batch of %lld rows is too long to filter",
                   (long long)batch->length);
        return NULL;
    }
    struct rows_ref *refs = malloc(((size_t)batch->length + 1) * sizeof *refs);
    if (!refs)
        error_nomem(err);
    return refs;
}

int rows_filter(const struct ArrowSchema *schema, struct ArrowArray *batch, const uint8_t *keep,
                struct error *err)
{
    struct rows_ref *refs = refs_for(batch, err);
    if (!refs)
        return -1;
    size_t n = 0;
    for (int64_t i = 0; i < batch->length; i++)
        if (keep[i])
            refs[n++] = (struct rows_ref){0, (uint32_t)i};
    int rc = (int64_t)n == batch->length ? 0 : keep_refs(schema, batch, refs, n, err);
    free(refs);
    return rc;
}

/* Keeps the rows of *batch whose file positions dv lists (listed) or does
 * not list (!listed); *moved gets how many it left out (!listed) or kept. */
static int by_positions(const struct ArrowSchema *schema, struct ArrowArray *batch,
                        uint64_t first_pos, const struct lake_dv *dv, bool listed, uint64_t *moved,
                        struct error *err)
{
    uint64_t end = first_pos + (uint64_t)batch->length;
    size_t d = lake_dv_lower_bound(dv, first_pos);
    if (!listed && (d == dv->n || dv->pos[d] >= end))
        return 0; /* nothing deleted here */
    struct rows_ref *refs = refs_for(batch, err);
    if (!refs)
        return -1;
    size_t n = 0;
    uint64_t hits = 0;
    for (uint64_t p = first_pos; p < end; p++) {
        bool in = d < dv->n && dv->pos[d] == p;
        d += in;
        hits += in;
        if (in == listed)
            refs[n++] = (struct rows_ref){0, (uint32_t)(p - first_pos)};
    }
    int rc = keep_refs(schema, batch, refs, n, err);
    free(refs);
    if (rc == 0)
        *moved += hits;
    return rc;
}

int rows_drop_deleted(const struct ArrowSchema *schema, struct ArrowArray *batch,
                      uint64_t first_pos, const struct lake_dv *dv, uint64_t *dropped,
                      struct error *err)
{
    return by_positions(schema, batch, first_pos, dv, false, dropped, err);
}

int rows_keep_listed(const struct ArrowSchema *schema, struct ArrowArray *batch, uint64_t first_pos,
                     const struct lake_dv *dv, struct error *err)
{
    uint64_t kept = 0;
    return by_positions(schema, batch, first_pos, dv, true, &kept, err);
}
