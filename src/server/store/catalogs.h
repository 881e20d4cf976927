/* hog_catalog rows as the catalog endpoints write them: creating a catalog
 * (with its snapshot 0) under the instance-wide creation lock, and its
 * options (snapshot retention, the consumer floor). Loading catalog rows
 * stays with server/catalog/catalog.h.
 *
 * Every function takes the connection first and fails with a struct error
 * from the database layer (server/db/db.h); the handler turns it into an
 * answer with api_from_error. */
#ifndef HL_SERVER_STORE_CATALOGS_H
#define HL_SERVER_STORE_CATALOGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/arena.h"
#include "util/error.h"

struct db_conn;

/* Opens the creation transaction and takes the lock that serialises
 * catalog creation instance-wide (10 s lock timeout), so the
 * name and prefix-disjointness checks cannot race. 0 or -1. */
int store_catalog_create_begin(struct db_conn *db, struct error *err);

/* A catalog's name and data path. */
struct store_catalog_path {
    const char *name;      /* arena */
    const char *data_path; /* arena */
};
/* Every catalog's name and data path (array in the arena), for the
 * creation checks. 0 or -1. */
int store_catalogs_list_paths(struct db_conn *db, struct arena *arena,
                              struct store_catalog_path **out, size_t *count, struct error *err);

/* Inserts the catalog with its snapshot 0 and commits the creation
 * transaction. 0 or -1 (a unique violation when a racing create won). */
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

#endif
