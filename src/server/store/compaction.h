/* The store of compaction (maintenance/compaction.h): owns
 * hog_compaction_claim, the claims that keep replicas from rewriting the
 * same files, and compaction's statements over the tables it shares: the
 * planner's reads (live tables with hog_table, hog_table_version,
 * hog_namespace and hog_column; candidate files with hog_data_file,
 * hog_file_partition_value and their live deletion vectors in
 * hog_delete_file), the staging ticket in hog_file_removal, the commit's
 * verify query, the replace of the inputs (and the end of their deletion
 * vectors) by the output (hog_data_file, hog_delete_file,
 * hog_file_partition_value; its statistics go through store/hydration.h),
 * the settling of ticket and claim, the catalog's head (hog_catalog) and
 * the backlog.
 *
 * The commit's statements run inside the DDL transaction the caller holds
 * (catalog.h: ddl_begin_ctx ... ddl_commit); the claim runs its own. Every
 * function takes the connection first and fails with the database layer's
 * struct error (server/db/db.h).
 *
 * The planner's candidates are a row view over the query's result (struct
 * store_compaction_candidates): a table may have many thousands, of which
 * only the claimed groups are copied, so the planner walks the rows by
 * index through the accessors and the column positions stay here. A
 * planned input and the rewritten output are the structs below; the
 * engine's groups hold them as they are (compaction_internal.h), so the
 * claim and the commit take a group's inputs without a copy. */
#ifndef HL_SERVER_STORE_COMPACTION_H
#define HL_SERVER_STORE_COMPACTION_H

#include <libpq-fe.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "parquet/colstats.h"
#include "server/db/pgarray.h"
#include "util/arena.h"
#include "util/error.h"

struct db_conn;

/* A planned input's live deletion vector, as the catalog registers it. */
struct store_compaction_dv {
    int64_t id;          /* delete_file_id; 0: the file has none (ids start at 1) */
    const char *path;    /* its Puffin file (NULL when none) */
    int64_t count, size; /* delete_count, file_size_bytes */
};

/* A planned input: the identity the commit re-verifies (id, path, rows,
 * which deletion vector). */
struct store_compaction_input {
    int64_t id;
    const char *path;
    int64_t record_count, size, row_id_start;
    bool explicit_row_ids;
    struct store_compaction_dv dv;
};

/* The rewritten file, as registered. path NULL: every input row was
 * deleted, nothing was written and nothing is registered. */
struct store_compaction_output {
    const char *path;
    int64_t file_size, footer_size, records, min_row_id;
    struct pq_col_stats *stats;
    size_t nstats;
    int64_t *splits;
    size_t nsplits;
    /* Variant columns whose groups were carried through as stored, and
     * those read and shredded again (the run report's counts). */
    int64_t variant_carried, variant_reencoded;
};

/* ---- planning ---- */

/* A live table, as the planner walks them. */
struct store_compaction_table {
    int64_t id;
    const char *ns, *name; /* in the arena */
};
/* The catalog's live tables in (namespace, name) order, array in a. */
int store_compaction_tables(struct db_conn *db, int64_t catalog_id, struct arena *a,
                            struct store_compaction_table **out, size_t *n, struct error *err);

/* The candidate files of one table: live files whose live bytes (their
 * size times the share of rows their deletion vector leaves, when they
 * have one) are under target, at most limit rows, ordered by spec,
 * partition values, live bytes and id (so equal buckets are adjacent and
 * ascend by live bytes). */
struct store_compaction_candidates {
    PGresult *r;
};
int store_compaction_candidates(struct db_conn *db, int64_t catalog_id, int64_t table_id,
                                int64_t target, int64_t limit,
                                struct store_compaction_candidates *out, struct error *err);
int store_compaction_candidates_count(const struct store_compaction_candidates *v);
/* The file's bytes scaled by the share of its rows not deleted. */
int64_t store_compaction_candidates_live_bytes(const struct store_compaction_candidates *v,
                                               int row);
/* Its rows, and how many of them its live deletion vector deletes. */
int64_t store_compaction_candidates_records(const struct store_compaction_candidates *v, int row);
int64_t store_compaction_candidates_deleted(const struct store_compaction_candidates *v, int row);
/* -1: a file without a spec. */
int64_t store_compaction_candidates_spec_id(const struct store_compaction_candidates *v, int row);
/* The partition values as a JSON array ("[]" when none), borrowed. */
const char *store_compaction_candidates_partition(const struct store_compaction_candidates *v,
                                                  int row);
/* Whether another unexpired claim holds the file. */
bool store_compaction_candidates_claimed(const struct store_compaction_candidates *v, int row);
/* Fills *in from the row, its paths copied into a: 0, or -1 out of memory. */
int store_compaction_candidates_input(const struct store_compaction_candidates *v, int row,
                                      struct arena *a, struct store_compaction_input *in);
void store_compaction_candidates_free(struct store_compaction_candidates *v);

/* ---- claims ---- */

/* Deletes the catalog's expired claims. */
int store_compaction_expire_claims(struct db_conn *db, int64_t catalog_id, struct error *err);
/* Claims the group group_key of inputs[0..n) for claimant for ttl_s
 * seconds, in the caller's transaction, under the catalog's planning
 * lock (15 s lock timeout, held until that transaction ends). *claimed
 * false: another unexpired claim holds the same key or any of the files. */
int store_compaction_claim(struct db_conn *db, int64_t catalog_id, int64_t table_id,
                           const char *group_key, const struct store_compaction_input *inputs,
                           size_t n, const char *claimant, int64_t ttl_s, bool *claimed,
                           struct error *err);
/* Drops claimant's claim on the group. */
int store_compaction_release_claim(struct db_conn *db, int64_t catalog_id, int64_t table_id,
                                   const char *group_key, const char *claimant, struct error *err);

/* ---- staging and commit ---- */

/* Queues a fresh output path (compacted-<uuid>.parquet under the table's
 * data directory in data_path) as a compaction_staging removal ticket.
 * *path (in a) and *ticket get the path and its removal_id. */
int store_compaction_stage(struct db_conn *db, int64_t catalog_id, const char *data_path,
                           const char *ns, const char *table, struct arena *a, const char **path,
                           int64_t *ticket, struct error *err);

/* A group's inputs as the commit's statements take them: array literals of
 * their ids, paths, record counts and deletion vector ids (0: none), built
 * once per commit. _free after _init, whether it failed or not. */
struct store_compaction_inputs {
    struct pg_array ids, paths, recs, dvs;
    const char *ids_text, *paths_text, *recs_text, *dvs_text;
};
int store_compaction_inputs_init(struct store_compaction_inputs *x,
                                 const struct store_compaction_input *in, size_t n,
                                 struct error *err);
void store_compaction_inputs_free(struct store_compaction_inputs *x);

/* What the commit re-checks, read in one statement under the lock. */
struct store_compaction_check {
    int64_t live;          /* inputs still live with their planned path and rows */
    int64_t dvs_changed;   /* inputs whose live deletion vector is not the planned one */
    bool altered;          /* the table altered or dropped after schema_snapshot */
    bool ticket_untouched; /* undrained and unclaimed by cleanup */
    bool claim_held;       /* the group's claim still claimant's */
};
int store_compaction_verify(struct db_conn *db, int64_t catalog_id, int64_t table_id,
                            const struct store_compaction_inputs *x, int64_t schema_snapshot,
                            int64_t ticket, const char *group_key, const char *claimant,
                            struct store_compaction_check *out, struct error *err);
/* Ends the live inputs and their live deletion vectors at snapshot;
 * *ended how many inputs. */
int store_compaction_end_inputs(struct db_conn *db, int64_t catalog_id, int64_t table_id,
                                const struct store_compaction_inputs *x, int64_t snapshot,
                                int64_t *ended, struct error *err);
/* Inserts the output's file row as file_id at snapshot (spec_id -1: none;
 * stats provided, explicit row ids, its split offsets) and copies the
 * partition values of partition_from (an input: they share them by
 * construction). Its statistics: store_file_stats_insert. */
int store_compaction_insert_output(struct db_conn *db, int64_t catalog_id, int64_t table_id,
                                   int64_t file_id, int64_t snapshot, int64_t spec_id,
                                   const struct store_compaction_output *out,
                                   int64_t partition_from, struct error *err);
/* Settles the ticket 'registered' (its path is the output's) or, when
 * nothing was written there, 'absent'; keeps claimant's claim on the group
 * ttl_s more seconds. */
int store_compaction_settle(struct db_conn *db, int64_t catalog_id, int64_t table_id,
                            int64_t ticket, bool registered, const char *group_key,
                            const char *claimant, int64_t ttl_s, struct error *err);

/* ---- reads ---- */

/* The catalog's small files (live, of live tables, under target_bytes):
 * how many, how many partitions (table, spec and partition values) hold
 * them, and how many are the only small file of their partition (no
 * compaction group can take those). */
struct store_compaction_backlog {
    int64_t small_files, partitions, alone_files;
};
int store_compaction_backlog(PGconn *pg, int64_t catalog_id, int64_t target_bytes,
                             struct store_compaction_backlog *out, struct error *err);

#endif
