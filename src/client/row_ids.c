/* Each row's id (row_ids.h). */
#include "client/row_ids.h"

#include <stdlib.h>

#include "lake/schema.h"
#include "parquet/reader.h"
#include "util/arrow.h"

int client_row_id_source(const json_t *data_file, bool *explicit_ids, int64_t *row_id_start,
                         struct error *err)
{
    *explicit_ids = json_is_true(json_object_get(data_file, "explicit_row_ids"));
    const json_t *start = json_object_get(data_file, "row_id_start");
    *row_id_start = json_is_integer(start) ? json_integer_value(start) : -1;
    if (!*explicit_ids && *row_id_start < 0)
        return error_fail(err, ERR_MALFORMED, "the plan gives %s no row_id_start",
                          json_string_value(json_object_get(data_file, "path")));
    return 0;
}

/* Whether any of the column's rows is null. */
static bool has_null(const struct ArrowArray *col)
{
    const uint8_t *valid = col->n_buffers > 0 ? col->buffers[0] : NULL;
    if (col->null_count == 0 || !valid)
        return false;
    for (int64_t i = 0; i < col->length; i++) {
        if (!arrow_bit(valid, col->offset + i))
            return true;
    }
    return false;
}

int client_row_ids_fill(struct ArrowArray *batch, int64_t c, bool explicit_ids,
                        int64_t row_id_start, const struct client_rows_at *at, struct error *err)
{
    struct ArrowArray *col = batch->children[c];
    if (explicit_ids)
        return has_null(col)
                   ? error_fail(err, ERR_CORRUPT,
                                "a file with explicit row ids lacks " LAKE_ROW_ID_COLUMN " values")
                   : 0;
    int64_t n = batch->length, ranged = 0;
    for (size_t k = 0; k < at->n; k++)
        ranged += at->ranges[k].end - at->ranges[k].begin;
    if (ranged != n)
        return error_fail(err, ERR_INTERNAL, "a read of %lld rows has ranges of %lld", (long long)n,
                          (long long)ranged);
    struct ArrowArray ids = {0};
    int64_t *v = malloc((size_t)n * sizeof *v + 1);
    if (!v || arrow_array_init(&ids, 2, 0) != 0) {
        free(v);
        return error_nomem(err);
    }
    int64_t i = 0;
    for (size_t k = 0; k < at->n; k++)
        for (int64_t row = at->ranges[k].begin; row < at->ranges[k].end; row++)
            v[i++] = row_id_start + (int64_t)at->first + row;
    ids.length = n;
    arrow_array_own_buffer(&ids, 1, v);
    if (col->release)
        col->release(col);
    arrow_array_move(&ids, col);
    return 0;
}
