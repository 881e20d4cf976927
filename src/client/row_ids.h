/* Each row's id (Iceberg v3 row lineage, contract invariant 2): a data file
 * registered with explicit_row_ids carries its rows' ids in a required
 * long column _hog_row_id (field id LAKE_ROW_ID_FIELD_ID); any other
 * file's rows have row_id_start + their position in the file. Updates read
 * them to keep them; the changefeed reports them. Not installed. */
#ifndef HL_CLIENT_ROW_IDS_H
#define HL_CLIENT_ROW_IDS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "client/prune.h"
#include "hoglake/arrow_abi.h"
#include "util/error.h"

/* Where a DataFile's (a scan or changes plan's) row ids come from:
 * *explicit_ids, else *row_id_start. 0, or -1 (ERR_MALFORMED) when a file
 * without explicit ids has no row_id_start. */
int client_row_id_source(const json_t *data_file, bool *explicit_ids, int64_t *row_id_start,
                         struct error *err);

/* Makes column c of batch (an int64 column read through the file's
 * projection, its rows where `at` says) hold the rows' ids:
 * a file with explicit ids must have them all (a null is ERR_CORRUPT),
 * any other's column is replaced by row_id_start + position. 0, or -1 with
 * err (the batch unchanged). */
int client_row_ids_fill(struct ArrowArray *batch, int64_t c, bool explicit_ids,
                        int64_t row_id_start, const struct client_rows_at *at, struct error *err);

#endif
