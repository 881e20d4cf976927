/* The store of retirement (contract 7.5): the statements that reclaim a
 * dropped (or replaced) table once no readable snapshot can see it, that
 * is once its dropped_snapshot is at or below the catalog's earliest
 * retained snapshot.
 *
 * Retirement marks such a table (hog_table.retired_at, under the catalog
 * lock: one row), then reclaims it page by page outside the lock: a page's
 * transaction takes the table's row (so one worker a table), locks a page
 * of its deletion vectors, then of its data files, and once their objects
 * are gone deletes those rows (with the data files' partition values;
 * statistics live in the file row). A table with no file row left loses
 * its catalog rows: consumer offsets on its uuid and the hog_table row,
 * whose cascade takes its versions, columns, specs, stats and compaction
 * claims. Nothing passes through the removal queue.
 *
 * Functions run inside the caller's transaction: they never begin, commit
 * or roll back. */
#ifndef HL_SERVER_STORE_RETIREMENT_H
#define HL_SERVER_STORE_RETIREMENT_H

#include <libpq-fe.h>
#include <stdbool.h>
#include <stdint.h>

struct error;

/* Marks every eligible table of the catalog not marked yet; *marked how
 * many. The caller holds the catalog lock. */
int store_retirement_mark(PGconn *pg, int64_t catalog_id, int64_t *marked, struct error *err);

/* The eligible tables of the catalog still present (marked or not): the
 * backlog. */
int store_retirement_eligible(PGconn *pg, int64_t catalog_id, int64_t *tables, struct error *err);

/* Takes the marked table marked first that no other transaction holds
 * (FOR NO KEY UPDATE SKIP LOCKED), other than those of skip_ids (a
 * bigint[] literal): 1 with *table_id set, 0 when none. The transaction
 * may then stay idle up to 15 minutes (the page's object deletes). */
int store_retirement_take(PGconn *pg, int64_t catalog_id, const char *skip_ids, int64_t *table_id,
                          struct error *err);

enum store_retired_kind { STORE_RETIRED_DELETE_FILE, STORE_RETIRED_DATA_FILE };

/* Where a walk of one table's files stands: past the deletion vector
 * dv_after, then past the data file (snap, row, id) in the order of
 * hog_data_file_page. A walk that starts at the beginning
 * (store_retired_cursor_start) and goes page after page never walks the
 * entries of the rows its earlier pages deleted again: dead to the index
 * until vacuum, they cost the page that restarted from the table's first
 * entry a heap visit each (55 ms a page of 8,000 at the end of a 1.2M-file
 * table). */
struct store_retired_cursor {
    int64_t dv_after;
    int64_t snap, row, id;
};
void store_retired_cursor_start(struct store_retired_cursor *c);

/* A page of a taken table's files past cursor, row-locked (SKIP LOCKED,
 * so a concurrent purge of the same rows never waits in a cycle with it):
 * its deletion vectors first, then its data files in the order of
 * hog_data_file_page. Paths borrowed from the results. */
struct store_retired_page {
    PGresult *dvs, *data;
};
/* Up to limit (>= 1) files of table_id. */
int store_retirement_page(PGconn *pg, int64_t catalog_id, int64_t table_id, int64_t limit,
                          const struct store_retired_cursor *after, struct store_retired_page *out,
                          struct error *err);
/* Moves cursor past the page's last file of each kind. */
void store_retired_page_advance(const struct store_retired_page *p,
                                struct store_retired_cursor *cursor);
int store_retired_page_count(const struct store_retired_page *p);
enum store_retired_kind store_retired_page_kind(const struct store_retired_page *p, int i);
int64_t store_retired_page_id(const struct store_retired_page *p, int i);
const char *store_retired_page_path(const struct store_retired_page *p, int i);
void store_retired_page_free(struct store_retired_page *p);

/* Deletes the table's deletion vectors of dv_ids and data files of
 * data_ids (bigint[] literals), with the data files' partition values. */
int store_retirement_delete(PGconn *pg, int64_t catalog_id, int64_t table_id, const char *dv_ids,
                            const char *data_ids, struct error *err);

/* Deletes the table's catalog rows if no file row of it is left;
 * *purged whether it did. */
int store_retirement_purge(PGconn *pg, int64_t catalog_id, int64_t table_id, bool *purged,
                           struct error *err);

#endif
