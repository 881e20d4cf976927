/* hog_catalog rows as the catalog endpoints write them: creating a catalog
 * (with its snapshot 0) under the instance-wide creation lock, and its
 * options (snapshot retention, the consumer floor); loading catalog rows;
 * and the DDL transaction's hold on a catalog (its advisory lock and head).
 *
 * Every function takes the connection first and fails with a struct error
 * from the database layer (server/db/db.h); the handler turns it into an
 * answer with api_from_error. */
#ifndef HL_SERVER_STORE_CATALOGS_H
#define HL_SERVER_STORE_CATALOGS_H

#include <libpq-fe.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/arena.h"
#include "util/error.h"

struct db_conn;

/* What never changes for a catalog id (no endpoint renames or moves a
 * catalog): all a commit needs of its catalog (strings borrowed). */
struct catalog_ident {
    int64_t id;
    const char *name;
    const char *data_path;
};

/* A hog_catalog row. */
struct catalog_row {
    int64_t id;
    const char *name;      /* arena */
    const char *data_path; /* arena */
    int64_t head;
    int64_t schema_version;
    int64_t earliest;
    bool has_earliest_time;
    int64_t earliest_time_us;
    bool has_retention;
    int64_t retention_s;
    bool consumer_floor;
};

/* The catalog named `name` (by id: store_catalog_get_by_id), strings in
 * the arena: 1 with *out filled, 0 when there is none, -1. */
int store_catalog_get(struct db_conn *db, struct arena *arena, const char *name,
                      struct catalog_row *out, struct error *err);
int store_catalog_get_by_id(struct db_conn *db, struct arena *arena, int64_t id,
                            struct catalog_row *out, struct error *err);
/* Every catalog, ordered by name (array in the arena). 0 or -1. */
int store_catalogs_all(struct db_conn *db, struct arena *arena, struct catalog_row **out,
                       size_t *count, struct error *err);

/* In the caller's open transaction, takes the catalog's advisory lock
 * (waiting at most lock_budget_ms, 0: forever; *lock_wait_ns the time
 * that took), then reads its head and floor under the lock. 1 with both
 * read, 0 when the catalog is gone, -1 (a lock timeout is
 * SQLSTATE_LOCK_NOT_AVAILABLE). */
int store_catalog_lock(struct db_conn *db, int64_t catalog_id, int64_t lock_budget_ms,
                       int64_t *lock_wait_ns, int64_t *head, int64_t *earliest, struct error *err);
/* The catalog advisory-lock key: one bigint, identical in every DDL and
 * commit path. */
int64_t store_catalog_lock_key(int64_t catalog_id);

/* In the caller's open transaction, takes the lock that serialises
 * catalog creation instance-wide (10 s lock timeout), so the name and
 * prefix-disjointness checks cannot race. 0 or -1. */
int store_catalog_create_lock(struct db_conn *db, struct error *err);

/* A catalog's name and data path. */
struct store_catalog_path {
    const char *name;      /* arena */
    const char *data_path; /* arena */
};
/* Every catalog's name and data path (array in the arena), for the
 * creation checks. 0 or -1. */
int store_catalogs_list_paths(struct db_conn *db, struct arena *arena,
                              struct store_catalog_path **out, size_t *count, struct error *err);

/* Inserts the catalog with its snapshot 0. 0 or -1 (a unique violation
 * when a racing create won). */
int store_catalog_insert(struct db_conn *db, const char *name, const char *data_path,
                         struct error *err);

/* The options a PATCH changes; a member left unset keeps its value. */
struct store_catalog_options {
    bool set_retention;
    bool has_retention; /* with set_retention: false clears it (no expiry) */
    int64_t retention_s;
    bool set_consumer_floor;
    bool consumer_floor;
};
/* Updates the catalog's options in one statement. 0 or -1. */
int store_catalog_update_options(struct db_conn *db, int64_t catalog_id,
                                 const struct store_catalog_options *o, struct error *err);

/* Every catalog id, ascending (a sweep's order), over the query's result. */
struct store_catalog_ids {
    PGresult *r;
};
int store_catalog_ids_list(PGconn *pg, struct store_catalog_ids *out, struct error *err);
int store_catalog_ids_count(const struct store_catalog_ids *v);
int64_t store_catalog_ids_at(const struct store_catalog_ids *v, int i);
void store_catalog_ids_free(struct store_catalog_ids *v);

/* The catalog's last snapshot id: ERR_NOT_FOUND when it is gone. */
int store_catalog_head(struct db_conn *db, int64_t catalog_id, int64_t *head, struct error *err);
/* The catalog's current expiry floor (0 when none or gone). */
int store_catalog_earliest(PGconn *pg, int64_t catalog_id, int64_t *floor, struct error *err);

#endif
