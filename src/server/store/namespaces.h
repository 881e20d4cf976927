/* hog_namespace rows: the namespaces visible at a snapshot, creating one
 * (its id drawn from hog_catalog.next_namespace_id) and dropping one, with
 * the count of live tables and views that keeps a namespace from being
 * dropped. Resolving one namespace by name stays with
 * server/catalog/catalog.h (namespace_resolve).
 *
 * The DDL statements run inside the transaction the handler opened
 * (ddl_begin); the connection is that transaction's. */
#ifndef HL_SERVER_STORE_NAMESPACES_H
#define HL_SERVER_STORE_NAMESPACES_H

#include <stddef.h>
#include <stdint.h>

#include "util/arena.h"
#include "util/error.h"

struct db_conn;

struct store_namespace {
    const char *name; /* arena */
    int64_t namespace_id;
};
/* The namespaces visible at `snapshot`, ordered by name (array in the
 * arena). 0 or -1. */
int store_namespaces_list(struct db_conn *db, struct arena *arena, int64_t catalog_id,
                          int64_t snapshot, struct store_namespace **out, size_t *count,
                          struct error *err);
/* Whether a live (not dropped) namespace has this name: 1, 0, or -1. */
/* The id of the namespace named `name` visible at `snapshot`: 1 with
 * *namespace_id set, 0 when there is none, -1. */
int store_namespace_find(struct db_conn *db, int64_t catalog_id, const char *name, int64_t snapshot,
                         int64_t *namespace_id, struct error *err);
int store_namespace_exists(struct db_conn *db, int64_t catalog_id, const char *name,
                           struct error *err);
/* Inserts the namespace created at snapshot_id under the next id of the
 * catalog, returned in *namespace_id. 0 or -1. */
int store_namespace_insert(struct db_conn *db, int64_t catalog_id, const char *name,
                           int64_t snapshot_id, int64_t *namespace_id, struct error *err);
/* The live tables and views in the namespace. 0 or -1. */
int store_namespace_count_contents(struct db_conn *db, int64_t catalog_id, int64_t namespace_id,
                                   int64_t *tables, int64_t *views, struct error *err);
/* Marks the namespace dropped at snapshot_id. 0 or -1. */
int store_namespace_drop(struct db_conn *db, int64_t catalog_id, int64_t namespace_id,
                         int64_t snapshot_id, struct error *err);

#endif
