/* The commit protocol (contract §4.3): one transaction under the catalog's
 * advisory lock that checks a parsed commit request against the live
 * catalog and registers its files and deletion vectors as one new
 * snapshot, or changes nothing.
 *
 * Order, as the contract fixes it: replay check first (an identical
 * replay answers with the original result before any other check), then
 * table resolution, the conflict check against read_snapshot, validation,
 * allocation (snapshot id, file ids, row ids) and the writes.
 *
 * The engine runs on a context (server/ctx.h) and fails with a struct
 * error: a refusal is ERR_INVALID (the request does not fit the catalog),
 * ERR_CONFLICT with the contract's code as its reason
 * ("table_recreated", "table_dropped", "ddl_since_read_snapshot",
 * "commit_conflict"), ERR_EXPIRED (read_snapshot below the expiry floor)
 * or ERR_NOT_FOUND (the catalog went away); anything else is the
 * database's (db.h) or ERR_NOMEM / ERR_INTERNAL. What an answer carries
 * besides its code and message is in the outcome. */
#ifndef HL_SERVER_COMMIT_COMMIT_H
#define HL_SERVER_COMMIT_COMMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "server/commit/commit_req.h"
#include "server/ctx.h"
#include "server/store/catalogs.h"
#include "util/error.h"

struct commit_outcome {
    /* Committed: the new snapshot, or the original one for a replay. */
    int64_t snapshot_id, schema_version;
    bool replayed;
    /* Failed: what failed, for the database's errors ("receipt", "commit
     * group", ...; NULL: the commit as a whole), and what a conflict
     * answer adds: the tables it names (sorted, in the context's arena),
     * the read_snapshot it was checked against, and whether the writer
     * must re-prepare. */
    const char *failed_step;
    const char **tables;
    size_t ntables;
    bool has_read_snapshot;
    int64_t read_snapshot;
    bool re_prepare;
};

/* Runs the commit of `c` in catalog `cat`, waiting at most lock_budget_ms
 * for the catalog's lock (0: forever). 0 with out's result, or -1 with err
 * and out's failure. */
int commit_run(struct srv_ctx *ctx, const struct catalog_ident *cat, int64_t lock_budget_ms,
               struct commit_request *c, struct commit_outcome *out, struct error *err);

#endif
