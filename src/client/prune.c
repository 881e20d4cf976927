/* Pruning by partition values and statistics: see prune.h. */
#include "client/prune.h"

#include "client/internal.h"
#include "expr/expr.h"
#include "lake/partition.h"
#include "parquet/reader.h"
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
    struct expr_field_stats *fs = NULL;
    size_t n = 0;
    struct error e;
    if (expr_stats_from_row_group(t, pq_reader_meta(r), pq_reader_schema(r), g, scratch, &fs, &n,
                                  &e) != 0)
        return true;
    return expr_pred_may_match(pred, fs, n);
}
