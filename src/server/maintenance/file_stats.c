/* Footer-derived statistics of a data file (file_stats.h). */
#include "server/maintenance/file_stats.h"

#include "lake/bounds.h"

int file_stats_repair(const struct lake_table *t, int64_t record_count, struct pq_col_stats *stats,
                      size_t n)
{
    int repaired = 0;
    for (size_t i = 0; i < n; i++) {
        struct pq_col_stats *s = &stats[i];
        const struct lake_column *col = lake_table_find_field(t, s->field_id);
        bool repeated = false;
        for (const struct lake_column *p = col ? col->parent : NULL; p; p = p->parent)
            repeated = repeated || p->type == LT_LIST || p->type == LT_MAP;
        if (!repeated && s->value_count > record_count) {
            s->value_count = record_count;
            repaired++;
        }
        if (s->null_count > s->value_count) {
            s->null_count = s->value_count;
            repaired++;
        }
        if (!col)
            continue;
        /* The arena's bounds are ours to rewrite in place. */
        struct bound_slot lower = {(uint8_t *)s->lower, s->lower_len, s->lower != NULL, BOUND_KEEP};
        struct bound_slot upper = {(uint8_t *)s->upper, s->upper_len, s->upper != NULL, BOUND_KEEP};
        repaired += bound_sanitize_pair(col->type, col->precision, col->scale, &lower, &upper);
        s->lower = lower.present ? lower.data : NULL;
        s->lower_len = lower.present ? lower.len : 0;
        s->upper = upper.present ? upper.data : NULL;
        s->upper_len = upper.present ? upper.len : 0;
    }
    return repaired;
}

int file_stats_splits(const struct pq_file_meta *m, struct arena *a, int64_t **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    if (m->nrow_groups == 0)
        return 0;
    for (size_t i = 0; i < m->nrow_groups; i++)
        if (!m->row_groups[i].has_file_offset || m->row_groups[i].file_offset < 0)
            return 0;
    int64_t *splits = arena_calloc(a, m->nrow_groups, sizeof *splits);
    if (!splits)
        return -1;
    for (size_t i = 0; i < m->nrow_groups; i++)
        splits[i] = m->row_groups[i].file_offset;
    *out = splits;
    *n = m->nrow_groups;
    return 0;
}
