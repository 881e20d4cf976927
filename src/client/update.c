/* Row-level updates (hl_table_update): the rows a predicate selects at a
 * snapshot are read whole with their ids (mutate.c), given their new
 * values (expr_update_eval: every assignment reads the old row), and
 * written as new files partitioned as an append partitions (a row whose
 * partition column changed lands in its new partition), each keeping its
 * rows' ids in _hog_row_id (registered with explicit_row_ids); the old
 * rows' files get grown deletion vectors. Files and vectors are written at
 * upload claims of one owner and committed in one snapshot with POST
 * /commit/mutations/prepared (guarded by the snapshot read and the table's
 * uuid): the changefeed reports each updated row as a delete and an insert
 * of the same _row_id. Rows stream through the writer as they are found;
 * an assignment that fails (a type error, NULL for a required column,
 * overflow) fails the update before any file is finished, and an update
 * that does not commit deletes what it wrote. */
#include <stdlib.h>
#include <string.h>

#include "client/append.h"
#include "client/fanout.h"
#include "client/mutate.h"
#include "client/row_ids.h"
#include "parquet/writer.h"
#include "rows/rows_filter.h"
#include "util/arrow.h"

/* Where the rewritten rows go (no writer in a dry run). */
struct rewrite {
    struct pq_write_options wopt;
    struct claims claims;
    struct fanout *fanout;
    json_t *files; /* their FileRegistrations */
};

/* The ids of the batch's rows in its last column. */
static hl_status fill_row_ids(struct mutation *m, const json_t *df, struct ArrowArray *batch,
                              const struct client_rows_at *at, struct hl_error *err)
{
    bool explicit_ids;
    int64_t start;
    struct error e;
    if (client_row_id_source(df, &explicit_ids, &start, &e) == 0 &&
        client_row_ids_fill(batch, (int64_t)m->table.root.nchildren - 1, explicit_ids, start, at,
                            &e) == 0)
        return HL_OK;
    return e.code == ERR_NOMEM ? client_nomem(err)
                               : client_fail(err, HL_ERR_IO, "io", "%s: %s",
                                             json_string_value(json_object_get(df, "path")), e.msg);
}

/* The new values of the selected rows: every assignment computed from the
 * old row, then the columns replaced. */
static hl_status assign(struct mutation *m, struct ArrowArray *batch, const uint8_t *sel,
                        struct hl_error *err)
{
    size_t n = expr_update_count(m->update);
    struct ArrowArray *vals = calloc(n ? n : 1, sizeof *vals);
    hl_status st = vals ? HL_OK : client_nomem(err);
    for (size_t i = 0; st == HL_OK && i < n; i++) {
        struct error e;
        if (expr_update_eval(m->update, i, &m->schema, batch, sel, &vals[i], &e) == 0)
            continue;
        const char *name = m->table.root.children[expr_update_target(m->update, i)]->name;
        st = e.code == ERR_NOMEM ? client_nomem(err)
                                 : client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_set",
                                               "column '%s': %s", name, e.msg);
    }
    for (size_t i = 0; st == HL_OK && i < n; i++) {
        struct ArrowArray *col = batch->children[expr_update_target(m->update, i)];
        if (col->release)
            col->release(col);
        arrow_array_move(&vals[i], col);
    }
    for (size_t i = 0; vals && i < n; i++) {
        if (vals[i].release)
            vals[i].release(&vals[i]);
    }
    free(vals);
    return st;
}

/* mut_find's callback: the selected rows of a row group, rewritten. */
static hl_status rewrite_rows(struct mutation *m, const json_t *df, struct ArrowArray *batch,
                              const uint8_t *sel, const struct client_rows_at *at,
                              struct hl_error *err)
{
    struct rewrite *w = m->ctx;
    hl_status st = fill_row_ids(m, df, batch, at, err);
    if (st == HL_OK)
        st = assign(m, batch, sel, err);
    struct error e;
    if (st == HL_OK && rows_filter(&m->schema, batch, sel, &e) != 0)
        st = e.code == ERR_NOMEM ? client_nomem(err)
                                 : client_fail(err, HL_ERR_INTERNAL, "internal", "%s", e.msg);
    if (st == HL_OK && w->fanout)
        st = fanout_write(w->fanout, batch, err);
    return st;
}

/* The writer of the rewritten rows, at claims of owner. */
static hl_status rewrite_open(struct rewrite *w, struct mutation *m, const char *owner,
                              struct hl_append_result *uploads, struct hl_error *err)
{
    pq_write_options_default(&w->wopt);
    hl_status st =
        mut_claims(&w->claims, m->t, CLAIMS_DATA, m->table.partitioned ? 8 : 1, 0, owner, err);
    if (st == HL_OK && !(w->files = json_array()))
        st = client_nomem(err);
    struct fanout_config fc = {
        .table = &m->table,
        .schema = &m->schema,
        .wopt = &w->wopt,
        .store = m->store,
        .claims = &w->claims,
        .upload_flags = m->t->ns->catalog->client->upload_flags,
    };
    return st == HL_OK ? fanout_new(&fc, uploads, w->files, &w->fanout, err) : st;
}

/* The finished files' group: each keeps its rows' ids. */
static hl_status rewritten_group(struct rewrite *w, const struct mutation *m, json_t **group,
                                 struct hl_error *err)
{
    size_t i;
    json_t *f;
    json_array_foreach (w->files, i, f) {
        int64_t size = 0;
        client_json_int(f, "file_size_bytes", &size);
        m->stats->bytes_written += size;
        m->stats->files_written++;
        if (json_object_set_new(f, "explicit_row_ids", json_true()) != 0)
            return client_nomem(err);
    }
    *group = mut_group(m, json_incref(w->files));
    return *group ? HL_OK : client_nomem(err);
}

/* After the rows were found: the files finished, the vectors written, the
 * groups made. */
static hl_status stage_writes(struct rewrite *w, struct mutation *m,
                              struct hl_append_result *uploads, json_t **appends, json_t **deletes,
                              struct hl_error *err)
{
    hl_status st = fanout_finish(w->fanout, err);
    struct claims dvs;
    memset(&dvs, 0, sizeof dvs);
    if (st == HL_OK)
        st = mut_claims(&dvs, m->t, CLAIMS_DELETES, m->nm, m->nm, w->claims.owner, err);
    if (st == HL_OK)
        st = mut_write_vectors(m, &dvs, uploads, err);
    claims_free(&dvs);
    if (st == HL_OK)
        st = rewritten_group(w, m, appends, err);
    if (st == HL_OK && !(*deletes = mut_deletes_group(m)))
        st = client_nomem(err);
    return st;
}

hl_status client_update_stage(hl_table *t, int64_t at, const char *set_clause,
                              const char *predicate, const char *owner, bool dry_run,
                              struct hl_append_result *uploads, struct mut_stats *stats,
                              json_t **appends, json_t **deletes, struct hl_error *err)
{
    *appends = *deletes = NULL;
    struct mutation m;
    struct rewrite w;
    memset(&w, 0, sizeof w);
    hl_status st = mut_open(&m, t, at, predicate, set_clause, stats, err);
    bool writing = st == HL_OK && !dry_run;
    if (writing)
        st = rewrite_open(&w, &m, owner, uploads, err);
    m.on_rows = rewrite_rows;
    m.ctx = &w;
    m.count_only = dry_run;
    if (st == HL_OK)
        st = mut_find(&m, err);
    if (st == HL_OK && writing && m.nm > 0)
        st = stage_writes(&w, &m, uploads, appends, deletes, err);
    /* Uploads of files not finished are abandoned, leaving nothing. */
    fanout_free(w.fanout);
    if (st != HL_OK && writing) {
        json_decref(*appends);
        json_decref(*deletes);
        *appends = *deletes = NULL;
        mut_discard(t->ns->catalog, owner ? owner : w.claims.owner, uploads, true);
    }
    claims_free(&w.claims);
    json_decref(w.files);
    mut_free(&m);
    return st;
}

hl_status hl_table_update(hl_table *t, const char *set_clause, const char *predicate,
                          const struct hl_delete_options *o, struct hl_update_result *res,
                          struct hl_error *err)
{
    struct hl_update_result scratch;
    if (!res)
        res = &scratch;
    memset(res, 0, sizeof *res);
    res->snapshot_id = res->read_snapshot = -1;
    if (!t || !set_clause || !predicate)
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                           "hl_table_update needs a table, a set clause and a predicate "
                           "(\"true\" updates every row)");
    struct mut_stats s;
    hl_status st = mut_run(t, set_clause, predicate, o, &s, &res->snapshot_id, &res->attempts, err);
    res->read_snapshot = s.read_snapshot;
    res->rows_updated = s.rows;
    res->files_affected = s.files_affected;
    res->files_scanned = s.files_scanned;
    res->files_pruned = s.files_pruned;
    res->row_groups_scanned = s.row_groups_scanned;
    res->row_groups_pruned = s.row_groups_pruned;
    res->pages_scanned = s.pages_scanned;
    res->pages_pruned = s.pages_pruned;
    res->files_written = s.files_written;
    res->bytes_written = s.bytes_written;
    return st;
}
