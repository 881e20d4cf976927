/* The commit protocol (contract §4.3): one transaction under the catalog's
 * advisory lock that checks a parsed commit request against the live
 * catalog and registers its files and deletion vectors as one new
 * snapshot, or changes nothing.
 *
 * Order, as the contract fixes it: replay check first (an identical
 * replay answers with the original result before any other check), then
 * table resolution, the conflict check against read_snapshot, validation,
 * allocation (snapshot id, file ids, row ids) and the writes. */
#ifndef HL_SERVER_COMMIT_COMMIT_H
#define HL_SERVER_COMMIT_COMMIT_H

#include <jansson.h>

#include "server/commit/commit_req.h"
#include "server/http/api.h"

/* Runs the commit of `c` in the catalog named `catalog_name`. On success
 * *result is the CommitResult {snapshot_id, schema_version} (new
 * reference): the new snapshot, or the original one for a replay. */
int commit_run(struct srv_req *req, const char *catalog_name, struct commit_request *c,
               json_t **result, struct api_error *err);

/* Counts a commit request refused before commit_run (its body did not
 * parse or validate) in hoglake_commits_total, when the catalog exists. */
void commit_count_refusal(struct srv_req *req, const char *catalog_name,
                          const struct api_error *err);

#endif
