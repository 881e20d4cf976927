/* The store of upload claims (contract 2.7): owns hog_upload, the paths
 * handed to writers before they upload there, and queues the abandoned
 * ones into hog_file_removal (reason upload_abandoned). Commits consume
 * claims in their own statements (store/commit_writes.h); cleanup's
 * reference check counts active claims (store/removals.h).
 *
 * No catalog lock: a claim's state moves by row locks alone, and cleanup
 * re-checks every queued path before deleting it. Every statement
 * autocommits. Id and path lists travel as PostgreSQL array literals
 * (db/pgarray.h). */
#ifndef HL_SERVER_STORE_UPLOADS_H
#define HL_SERVER_STORE_UPLOADS_H

#include <libpq-fe.h>
#include <stdint.h>

struct error;

/* Claim rows over a query's result: upload_id, owner, prefix, path,
 * file_kind, state and expires_at (Unix microseconds). */
struct store_uploads_rows {
    PGresult *r;
};
int store_uploads_count(const struct store_uploads_rows *v);
const char *store_uploads_id(const struct store_uploads_rows *v, int i);
const char *store_uploads_owner(const struct store_uploads_rows *v, int i);
const char *store_uploads_prefix(const struct store_uploads_rows *v, int i);
const char *store_uploads_path(const struct store_uploads_rows *v, int i);
const char *store_uploads_kind(const struct store_uploads_rows *v, int i);
const char *store_uploads_state(const struct store_uploads_rows *v, int i);
int64_t store_uploads_expires_us(const struct store_uploads_rows *v, int i);
void store_uploads_rows_free(struct store_uploads_rows *v);

/* Claims ids_array's upload ids at paths_array's paths (same order) for
 * owner, prefix and kind, leased lease_s seconds; an id already claimed is
 * left as it is. *out gets every claim of those ids as it now stands (an
 * id a concurrent claim is still inserting may be missing). */
int store_uploads_claim(PGconn *pg, int64_t catalog_id, const char *owner, const char *prefix,
                        const char *kind, const char *ids_array, const char *paths_array,
                        int64_t lease_s, struct store_uploads_rows *out, struct error *err);

/* Extends owner's active claims to now + lease_s; *renewed how many. */
int store_uploads_renew(PGconn *pg, int64_t catalog_id, const char *owner, int64_t lease_s,
                        int64_t *renewed, struct error *err);

/* Abandons owner's active claims (those of paths_array, or all of them
 * when it is NULL) and queues their paths; *abandoned how many. */
int store_uploads_abandon(PGconn *pg, int64_t catalog_id, const char *owner,
                          const char *paths_array, int64_t *abandoned, struct error *err);

/* Abandons up to limit active claims past their lease and queues up to
 * limit abandoned claims not queued yet; *scheduled how many were
 * queued. */
int store_uploads_schedule_expired(PGconn *pg, int64_t catalog_id, int64_t limit,
                                   int64_t *scheduled, struct error *err);

#endif
