/* Catalog-level building blocks: loading a catalog row, resolving time
 * travel to a snapshot, resolving namespaces and tables at a snapshot, and
 * the DDL transaction (catalog lock, snapshot allocation, change rows).
 *
 * What engines run (the DDL transaction on a context, catalog_load_id,
 * snapshot_expired) fails with struct error. What reads a request
 * (catalog_load, timetravel_resolve, the resolvers, ddl_begin) is a
 * handler's helper and answers with the api_error it is to write. */
#ifndef HL_SERVER_CATALOG_CATALOG_H
#define HL_SERVER_CATALOG_CATALOG_H

#include <stdbool.h>
#include <stdint.h>

#include "server/http/api.h"
#include "server/store/catalogs.h"
#include "server/store/tables.h"

/* Loads the catalog by name: 404 when missing. */
int catalog_load(struct srv_req *req, const char *name, struct catalog_row *out,
                 struct api_error *err);
/* The identity of the catalog named `name` (id, name, data path), from
 * the server's cache (server/catalog/catalog_idents.h) unless `fresh`, or
 * else loaded and kept: 404 when missing. *cached says whether it came
 * from the cache unchecked. */
int catalog_ident_load(struct srv_req *req, const char *name, bool fresh, struct catalog_ident *out,
                       bool *cached, struct api_error *err);
/* The 404 of a catalog that does not exist (or that the caller may not
 * know of: server/auth/auth.h answers a token scoped elsewhere with exactly this). */
int catalog_not_found(struct api_error *err, const char *name);
/* Loads the catalog by id (background tasks): ERR_NOT_FOUND when missing. */
int catalog_load_id(struct srv_ctx *ctx, int64_t id, struct catalog_row *out, struct error *err);
/* Every catalog, ordered by name (array in the request arena). */
int catalog_load_all(struct srv_req *req, struct catalog_row **out, size_t *count,
                     struct api_error *err);
/* Renders the Catalog response object. */
json_t *catalog_to_json(const struct catalog_row *c);

/* Resolves ?snapshot= / ?at_timestamp= against the catalog. Neither ->
 * head, with *at_head set. Both -> 422; malformed -> 400; outside
 * [0, head] -> 422; below the retention floor -> 410 expired; an instant
 * before the catalog was created -> 404 before_catalog. */
int timetravel_resolve(struct srv_req *req, const struct catalog_row *cat, int64_t *snapshot,
                       bool *at_head, struct api_error *err);
/* ERR_EXPIRED for a snapshot below the floor (`what` names it: "snapshot",
 * "read_snapshot"), shared by every time-travel path. */
int snapshot_expired(struct error *err, const struct catalog_row *cat, int64_t snapshot,
                     const char *what);
/* The same as a handler's answer: 410 expired. */
int timetravel_expired(struct api_error *err, const struct catalog_row *cat, int64_t snapshot,
                       const char *what);

/* A namespace visible at `snapshot`: 404 when none (the message names the
 * snapshot when the read was a time travel). */
int namespace_resolve(struct srv_req *req, const struct catalog_row *cat, const char *name,
                      int64_t snapshot, bool time_travel, int64_t *namespace_id,
                      struct api_error *err);

/* The table named `name` in the namespace, visible at `snapshot`: 404
 * when none. */
int table_resolve(struct srv_req *req, const struct catalog_row *cat, const char *ns_name,
                  int64_t namespace_id, const char *name, int64_t snapshot, bool time_travel,
                  struct table_ref *out, struct api_error *err);

/* ---- DDL ---- */

struct ddl_txn {
    struct srv_ctx ctx;
    const struct catalog_row *cat;
    int64_t head; /* last snapshot before this DDL, read under the lock */
    int64_t earliest;
    int64_t snapshot_id;    /* allocated by ddl_allocate */
    int64_t schema_version; /* after the bump */
};

/* The lock_timeout for this request's catalog lock, in ms (0: wait
 * forever): the configured timeout less the time spent queued. */
int64_t ddl_lock_budget_ms(const struct srv_req *req);
/* The same for work that waited queued_ns before it started (0 for
 * background work). */
int64_t ddl_lock_budget_after(const struct server *srv, int64_t queued_ns);
/* Opens the transaction and takes the catalog's advisory lock under the
 * request's lock budget (503 commit_queue_timeout past it), then re-reads
 * the catalog's head under the lock (404 when the catalog is gone). */
int ddl_begin(struct srv_req *req, const struct catalog_row *cat, struct ddl_txn *t,
              struct api_error *err);
/* ddl_begin on a context (what ddl_begin runs; maintenance rewrites):
 * waits for the lock at most lock_budget_ms (0: forever). A lock timeout is
 * the database's (SQLSTATE_LOCK_NOT_AVAILABLE), a vanished catalog
 * ERR_NOT_FOUND. The steps below fail with the store's error, its step in
 * front ("catalog lock: ..."); the transaction is left for the caller to
 * roll back. */
int ddl_begin_ctx(struct srv_ctx *ctx, const struct catalog_row *cat, int64_t lock_budget_ms,
                  struct ddl_txn *t, struct error *err);
/* Allocates the next snapshot id, bumps schema_version and inserts the
 * snapshot row (stamped with clock_timestamp(), after the lock). */
int ddl_allocate(struct ddl_txn *t, struct error *err);
/* A data snapshot under the same lock (maintenance rewrites): allocates
 * the snapshot and nfile_ids file ids (the first in *first_file_id) and
 * inserts the snapshot row; schema_version stays. */
int ddl_allocate_data(struct ddl_txn *t, int64_t nfile_ids, int64_t *first_file_id,
                      struct error *err);
int ddl_change(struct ddl_txn *t, const char *kind, int64_t object_id, struct error *err);
int ddl_commit(struct ddl_txn *t, struct error *err);
/* The common DDL prologue for objects inside a namespace: loads the catalog
 * named by path parameter 0, begins the DDL transaction and resolves the
 * namespace named by path parameter 1 at the locked head. */
int ddl_begin_in_namespace(struct srv_req *req, struct catalog_row *cat, struct ddl_txn *t,
                           int64_t *namespace_id, struct api_error *err);
/* Where the DDL's store writes go (server/store/tables.h). */
struct store_ddl ddl_store(const struct ddl_txn *t);
/* CommitResult {snapshot_id, schema_version}. */
json_t *ddl_result_json(const struct ddl_txn *t);

#endif
