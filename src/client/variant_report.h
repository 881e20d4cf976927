/* The encoding report of an append (hl_append_result's variant): per
 * top-level variant column, its rows, SQL NULLs and text made NULL by
 * reason (counted as batches are adapted), and where each declared node's
 * values went (the writer's shredding counts of every file). */
#ifndef HL_CLIENT_VARIANT_REPORT_H
#define HL_CLIENT_VARIANT_REPORT_H

#include "hoglake/hoglake.h"
#include "lake/schema.h"
#include "parquet/writer.h"
#include "rows/rows_variant.h"

/* One entry per variant column of t (a declared one with its nodes'
 * paths), unless res has them already. HL_OK or HL_ERR_NOMEM. */
hl_status client_variant_report_init(struct hl_append_result *res, const struct lake_table *t,
                                     struct hl_error *err);
/* A batch in the table's form, adapted: its variant columns' rows and
 * nulls, and invalid (t's top-level columns' entries; may be NULL). */
void client_variant_report_batch(struct hl_append_result *res, const struct lake_table *t,
                                 const struct ArrowArray *batch,
                                 const struct rows_variant_invalid *invalid);
/* A finished file's shredding counts. */
void client_variant_report_file(struct hl_append_result *res, const struct pq_write_result *w);
void client_variant_report_free(struct hl_append_result *res);

#endif
