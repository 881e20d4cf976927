/* Server-side compaction (contract §7.3): rewrites groups of a table's
 * small live data files, per (spec, partition values), into one sorted
 * Parquet file carrying each row's id, and swaps them in one snapshot.
 *
 * A pass over one catalog:
 *  - plans (compaction_plan.h): tables in name order; candidates are live
 *    files whose live bytes (size scaled by the share of rows their
 *    deletion vector leaves) are under the target, by live bytes; a group
 *    closes at the target bytes or COMPACTION_MAX_INPUT_FILES files and is
 *    kept with at least max(2, min(COMPACTION_MIN_INPUT_FILES,
 *    target / largest)) files, or when it holds a file at least half of
 *    whose rows are deleted. A variant column's values are read from any
 *    layout and written as the table declares it.
 *    Each input's deletion vector (or none) is part of the plan. Each group
 *    is claimed in hog_compaction_claim, so replicas never rewrite the same
 *    files;
 *  - rewrites each group outside every transaction (compaction_rewrite.h)
 *    after queueing its output path as a compaction_staging removal
 *    ticket, so a crash at any point leaves only objects cleanup removes;
 *    the rows the planned deletion vectors delete are dropped, the others
 *    keep their ids; a group with no row left writes nothing;
 *  - commits under the catalog lock (compaction_commit.h): inputs
 *    re-verified (with the planned deletion vector: another one since is
 *    dv_superseded), ended with their deletion vectors, the output (if
 *    any) registered with explicit row ids and footer statistics, a
 *    table_compacted snapshot, the ticket settled. Any mismatch skips the
 *    group. Row-lineage counters do not move: rows keep their ids.
 *
 * Metrics: hoglake_compaction_groups_total,
 * hoglake_compaction_files_rewritten_total, hoglake_compaction_bytes_total,
 * hoglake_compaction_skipped_total{reason}. */
#ifndef HL_SERVER_MAINTENANCE_COMPACTION_H
#define HL_SERVER_MAINTENANCE_COMPACTION_H

#include <jansson.h>
#include <libpq-fe.h>
#include <stdbool.h>
#include <stdint.h>

#include "server/catalog/catalog.h"
#include "util/error.h"

#define COMPACTION_TARGET_BYTES ((int64_t)512 * 1024 * 1024)
#define COMPACTION_MAX_GROUP_BYTES_DEFAULT ((int64_t)1024 * 1024 * 1024)
enum {
    COMPACTION_MAX_INPUT_FILES = 64,
    COMPACTION_MIN_INPUT_FILES = 5,
    COMPACTION_CLAIM_TTL_S = 3600,
    COMPACTION_COMMITTED_TTL_S = 600,
    COMPACTION_DEFAULT_BATCH = 1,
    COMPACTION_MAX_BATCH = 1000,
};

struct compaction_options {
    int64_t batch;           /* groups per pass, >= 1 */
    int64_t target_bytes;    /* > 0 */
    int64_t max_group_bytes; /* a group with more input bytes is refused */
};

struct compaction_result {
    /* CompactionResult's required counters. */
    int64_t groups_compacted, files_in, files_out, bytes_in, bytes_out;
    int64_t skipped_conflicts, dv_superseded, unconvertible_schema, invalid_data;
    int64_t heap_budget_exceeded, failed_groups;
    int64_t storage_refused; /* groups whose object the confined store refused */
    /* Deletion vectors applied by committed groups, and the rows they
     * dropped. */
    int64_t dvs_applied, rows_dropped;
    /* Variant columns of committed groups carried through as stored, and
     * re-encoded (an input's layout not the declared one). */
    int64_t variant_columns_carried, variant_columns_reencoded;
    /* Planner counters. */
    int64_t claimed_elsewhere;
    int64_t candidates_files;   /* live files under the target (by live bytes) considered */
    int64_t candidates_dv;      /* ... with a live deletion vector */
    int64_t candidates_claimed; /* ... left out for another unexpired claim */
    /* Why candidates were not planned, in files (the answer to "why was
     * nothing compacted"): their partition held too few of them to make a
     * group (and in how many partitions), their group was over the memory
     * budget, or another pass holds a claim on them. */
    int64_t left_too_few_files, left_too_few_partitions;
    int64_t left_over_budget_files, left_claimed_files;
    bool batch_reached; /* planning stopped at the batch: more groups may wait */
    int64_t plan_ms;
};

/* One pass over `cat` on the context's connection (no transaction open),
 * claiming as `claimant`. Returns 0 with *out filled, or -1 with err
 * (database failure, out of memory); groups finished before stay done.
 * Per-group problems are counted, never errors. */
int compaction_run(struct srv_ctx *ctx, const struct catalog_row *cat, const char *claimant,
                   const struct compaction_options *opt, struct compaction_result *out,
                   struct error *err);

/* CompactionResult (new reference; NULL out of memory). */
json_t *compaction_result_json(const struct compaction_result *r);

/* The compaction task for the maintenance framework (maintenance.h). */
struct server;
struct compaction_task {
    struct server *srv;
    struct compaction_options opt;
    char claimant[160]; /* this server: instance name or host, pid, random */
};
/* Fills t for srv (options from its configuration, a fresh claimant). */
void compaction_task_init(struct compaction_task *t, struct server *srv);
int compaction_pass(void *ctx, PGconn *pg, int64_t catalog_id, json_t **result, struct error *err);
/* {small_files, target_bytes}. */
json_t *compaction_backlog(void *ctx, PGconn *pg, int64_t catalog_id);

#endif
