/* Deleting objects a maintenance task has decided to remove: cleanup
 * (the paths of the removal queue) and retirement (the files of a retired
 * table). Both delete only through a view of the server's object store
 * confined to the catalog's data path (server/storage_guard.h), and both
 * tell the same outcomes apart, count them in
 * hoglake_files_removed_total{result}, and both keep (and audit as
 * cleanup_violation) a path the catalog still names. What a task offers
 * for deletion is its own: claimed queue rows, a retired table's page. */
#ifndef HL_SERVER_MAINTENANCE_REAP_H
#define HL_SERVER_MAINTENANCE_REAP_H

#include <jansson.h>
#include <libpq-fe.h>
#include <stddef.h>
#include <stdint.h>

struct catalog_row;
struct error;
struct objstore;
struct server;

enum reap_outcome { REAP_DELETED, REAP_ABSENT, REAP_REFERENCED, REAP_REFUSED, REAP_FAILED };
enum { REAP_OUTCOMES = REAP_FAILED + 1 };

/* An object to delete: `id` names it in logs and audit lines (a removal
 * id, a file id), `path` is borrowed from the caller. */
struct reap_item {
    int64_t id;
    const char *path;
    enum reap_outcome outcome;
};

struct reaper {
    struct server *srv;
    struct objstore *store; /* confined to the catalog's data path; owned */
    int64_t catalog_id;
    const char *catalog_name;
    const char *id_name; /* what an item's id is, in audit lines ("removal_id") */
};

/* 0, or -1 with err filled when the catalog's storage cannot be viewed. */
int reaper_open(struct reaper *r, struct server *srv, const struct catalog_row *cat,
                const char *id_name, struct error *err);
void reaper_close(struct reaper *r);

/* The ledger's name of an outcome: "deleted", "absent", "registered",
 * "refused"; NULL for REAP_FAILED (nothing is settled). */
const char *reap_outcome_name(enum reap_outcome o);

/* The reference check: marks REFERENCED (never deleted; warned and
 * audited) every item whose path a data or deletion-vector row (live or
 * ended) or an active upload claim of the catalog still names, the rows
 * of except_table_id (a table being retired; 0: none) aside. One indexed
 * query on pg. 0, or -1 with err filled. */
int reap_mark_referenced(const struct reaper *r, PGconn *pg, int64_t except_table_id,
                         struct reap_item *items, size_t n, struct error *err);

/* Deletes every item not REFERENCED and sets its outcome: file:// one
 * unlink each on a few threads (a missing object is told apart), other
 * stores in DeleteObjects calls (a missing key counts as deleted). A
 * refused path is recorded (storage_refusal). Returns 0, or -1 with err
 * filled when out of memory (outcomes then stay as they were). */
int reap_objects(const struct reaper *r, struct reap_item *items, size_t n, struct error *err);

/* Adds the items' outcomes to counts (indexed by enum reap_outcome) and
 * to hoglake_files_removed_total. */
void reap_count(const struct reaper *r, const struct reap_item *items, size_t n,
                int64_t counts[REAP_OUTCOMES]);

/* Sets counts on o as the results name them: removed, missing,
 * still_referenced, refused, failed. 0, or -1 when out of memory. */
int reap_counts_json(json_t *o, const int64_t counts[REAP_OUTCOMES]);

#endif
