/* Row-level deletes (hl_table_delete): the rows a predicate selects at the
 * table's head become deletion vectors (mutate.c), committed in one
 * snapshot with POST /commit/deletes/prepared: guarded by the snapshot
 * read and the table's uuid, idempotent by its key. A concurrent insert or
 * delete on the table is a 409 commit_conflict: the vectors are discarded
 * and the delete runs again from a fresh read (options.max_attempts in
 * all); a compaction never conflicts. A predicate that matches no live
 * row commits nothing. */
#include <string.h>

#include "client/mutate.h"

void hl_delete_options_init(struct hl_delete_options *o)
{
    memset(o, 0, sizeof *o);
}

hl_status client_delete_stage(hl_table *t, int64_t at, const char *predicate, const char *owner,
                              bool dry_run, struct hl_append_result *uploads,
                              struct mut_stats *stats, json_t **deletes, struct hl_error *err)
{
    *deletes = NULL;
    struct mutation m;
    hl_status st = mut_open(&m, t, at, predicate, NULL, stats, err);
    m.count_only = dry_run;
    if (st == HL_OK)
        st = mut_find(&m, err);
    if (st != HL_OK || m.nm == 0 || dry_run) {
        mut_free(&m);
        return st;
    }
    struct claims claims;
    st = mut_claims(&claims, t, CLAIMS_DELETES, m.nm, m.nm, owner, err);
    if (st == HL_OK)
        st = mut_write_vectors(&m, &claims, uploads, err);
    if (st == HL_OK && !(*deletes = mut_deletes_group(&m)))
        st = client_nomem(err);
    if (st != HL_OK)
        claims_discard(&claims, uploads, true);
    claims_free(&claims);
    mut_free(&m);
    return st;
}

hl_status hl_table_delete(hl_table *t, const char *predicate, const struct hl_delete_options *o,
                          struct hl_delete_result *res, struct hl_error *err)
{
    struct hl_delete_result scratch;
    if (!res)
        res = &scratch;
    memset(res, 0, sizeof *res);
    res->snapshot_id = res->read_snapshot = -1;
    if (!predicate)
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                           "hl_table_delete needs a predicate (\"true\" deletes every row)");
    struct mut_stats s;
    hl_status st = mut_run(t, NULL, predicate, o, &s, &res->snapshot_id, &res->attempts, err);
    res->read_snapshot = s.read_snapshot;
    res->rows_deleted = s.rows;
    res->files_affected = s.files_affected;
    res->files_scanned = s.files_scanned;
    res->row_groups_scanned = s.row_groups_scanned;
    res->files_pruned = s.files_pruned;
    res->row_groups_pruned = s.row_groups_pruned;
    res->pages_scanned = s.pages_scanned;
    res->pages_pruned = s.pages_pruned;
    res->bytes_written = s.bytes_written;
    return st;
}
