/* hog_view rows: the views of a namespace visible at a snapshot, one view
 * by name, and creating (its id drawn from hog_catalog.next_view_id) and
 * dropping one. The DDL statements run inside the transaction the handler
 * opened (ddl_begin). */
#ifndef HL_SERVER_STORE_VIEWS_H
#define HL_SERVER_STORE_VIEWS_H

#include <stddef.h>
#include <stdint.h>

#include "util/arena.h"
#include "util/error.h"

struct db_conn;

/* A view; strings in the arena. */
struct store_view {
    int64_t view_id; /* set by store_view_insert only */
    const char *name;
    const char *view_uuid;
    const char *dialect;
    const char *sql;
};

/* The views of the namespace visible at `snapshot`, ordered by name
 * (array in the arena). 0 or -1. */
int store_views_list(struct db_conn *db, struct arena *arena, int64_t catalog_id,
                     int64_t namespace_id, int64_t snapshot, struct store_view **out, size_t *count,
                     struct error *err);
/* The view named `name` visible at `snapshot`: 1 found, 0 none, -1. */
int store_view_get(struct db_conn *db, struct arena *arena, int64_t catalog_id,
                   int64_t namespace_id, const char *name, int64_t snapshot, struct store_view *out,
                   struct error *err);
/* Whether a live view has this name: 1, 0, or -1. */
int store_view_exists(struct db_conn *db, int64_t catalog_id, int64_t namespace_id,
                      const char *name, struct error *err);
/* The id of the live view named `name`: 1 found, 0 none, -1. */
int store_view_find_live(struct db_conn *db, int64_t catalog_id, int64_t namespace_id,
                         const char *name, int64_t *view_id, struct error *err);
/* Inserts the view created at snapshot_id under the next id of the
 * catalog; *out is the stored row. 0 or -1. */
int store_view_insert(struct db_conn *db, struct arena *arena, int64_t catalog_id,
                      int64_t namespace_id, const char *name, const char *dialect, const char *sql,
                      int64_t snapshot_id, struct store_view *out, struct error *err);
/* Ends the view's live row at snapshot_id. 0 or -1. */
int store_view_drop(struct db_conn *db, int64_t catalog_id, int64_t view_id, int64_t snapshot_id,
                    struct error *err);

#endif
