/* Compaction's planner (contract §7.3): which live files of a catalog are
 * rewritten together, and the claims that keep replicas apart. */
#ifndef HL_SERVER_MAINTENANCE_COMPACTION_PLAN_H
#define HL_SERVER_MAINTENANCE_COMPACTION_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "server/catalog/catalog.h"
#include "server/maintenance/compaction.h"
#include "server/maintenance/compaction_internal.h"
#include "util/error.h"

/* A kept group: files [start, start + count) of a bucket. */
struct cpt_span {
    size_t start, count;
};

/* The grouping rule over one bucket's files, by planning size ascending
 * (a file's live bytes: its size scaled by the share of its rows no
 * deletion vector deletes): files join the open group in order; it closes
 * once it holds target bytes or max_files files; a group (the last one
 * too, closed or not) is kept when it has at least
 * max(2, min(min_files, target / its largest size)) files, or when it
 * holds a file marked in reclaim (a file most of whose rows are deleted:
 * rewriting it frees more than it writes, so it is worth a group of its
 * own). reclaim may be NULL (none marked). Fills out (room for n spans)
 * and returns how many were kept. */
size_t cpt_plan_bucket(const int64_t *sizes, const bool *reclaim, size_t n, int64_t target,
                       size_t max_files, size_t min_files, struct cpt_span *out);

/* Whether a file of `records` rows, `deleted` of them deleted, is marked
 * for reclaim: at least half its rows are deleted. */
bool cpt_worth_reclaiming(int64_t records, int64_t deleted);

/* Plans and claims up to opt->batch groups of cat for `claimant`, tables in
 * name order, into *groups (in a). Counts the planner's counters and the
 * groups it refused (claimed elsewhere, over the memory budget) in res.
 * Returns 0, or -1 with err. */
int cpt_plan(struct srv_ctx *ctx, const struct catalog_row *cat, const char *claimant,
             const struct compaction_options *opt, struct arena *a, struct cpt_group **groups,
             size_t *ngroups, struct compaction_result *res, struct error *err);

/* Drops the claim of a group that was not committed, so the next pass may
 * plan its files again. Best effort: a failure is logged (the claim then
 * expires). */
void cpt_release_claim(struct srv_ctx *ctx, const struct catalog_row *cat, const char *claimant,
                       const struct cpt_group *g);

#endif
