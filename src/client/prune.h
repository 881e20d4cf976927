/* What a predicate's bounds rule out before any data is read: a data file
 * by its partition values and its scan-plan statistics, a row group by its
 * footer statistics. Shared by the scan, deletes and updates so they prune
 * alike. Not installed. */
#ifndef HL_CLIENT_PRUNE_H
#define HL_CLIENT_PRUNE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

struct arena;
struct expr_pred;
struct lake_table;
struct pq_reader;

/* Whether the DataFile df (a scan plan's, with column_stats when the plan
 * was read with them) may hold a row the predicate selects: false when its
 * partition values (files of the table's live spec) or its statistics rule
 * it out. A file without usable statistics may match. */
bool client_file_may_match(const struct lake_table *t, const struct expr_pred *pred,
                           const json_t *df, struct arena *scratch);

/* Whether row group g of r may hold a selected row, by its footer
 * statistics (none: it may). */
bool client_row_group_may_match(const struct lake_table *t, const struct expr_pred *pred,
                                struct pq_reader *r, size_t g, struct arena *scratch);

#endif
