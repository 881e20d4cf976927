/* A commit's writes (contract §4, steps 15 and 16): what the store writes
 * (server/store/commit_writes.h) taken from the request and what the
 * commit read, queued as one batch of prepared statements. */
#include <stdint.h>
#include <string.h>

#include "server/commit/commit_internal.h"

/* Each appended table's row-id allocator and gross counters advance by the
 * commit's records and bytes; a counter that would pass int64 is
 * refused. */
static int add_row_ids(struct commit_ctx *x, struct store_commit_writes *w, struct error *err)
{
    for (size_t i = 0; i < x->c->ntables; i++) {
        const struct table_live *l = &x->live[i];
        if (!x->c->tables[i].nfiles)
            continue;
        if (l->next_row_id > INT64_MAX - l->records || l->stats_bytes > INT64_MAX - l->bytes)
            return error_fail(err, ERR_INVALID,
                              "%s: the table's row ids or byte counters would overflow",
                              commit_table_label(x, i));
        store_commit_writes_row_ids(w, l->table_id, l->records, l->bytes);
    }
    return 0;
}

/* The file's statistics as the store encodes them (in arena). */
static struct store_column_stats *file_stats(struct arena *arena, const struct commit_file *cf)
{
    struct store_column_stats *out = arena_calloc(arena, cf->nstats, sizeof *out);
    for (size_t s = 0; out && s < cf->nstats; s++) {
        const struct commit_stat *st = &cf->stats[s];
        out[s] = (struct store_column_stats){
            .field_id = st->field_id,
            .value_count = st->value_count,
            .null_count = st->null_count,
            .has_nan_count = st->has_nan_count,
            .nan_count = st->nan_count,
            .has_size_bytes = st->has_size_bytes,
            .size_bytes = st->size_bytes,
            .lower = st->lower,
            .lower_len = st->lower_len,
            .upper = st->upper,
            .upper_len = st->upper_len,
        };
    }
    return out;
}

/* Where a table's new row ids stand among writes of several commits: the
 * records the entries before this one gave new ids, and all of them. */
struct group_rows {
    int64_t table_id, before, total;
};

static struct group_rows *group_rows_of(struct group_rows *g, size_t n, int64_t table_id)
{
    for (size_t i = 0; i < n; i++)
        if (g[i].table_id == table_id)
            return &g[i];
    return NULL;
}

/* The appended files, tables in request order and files in order, with
 * their statistics and partition values; g (NULL: x's writes alone) says
 * where the table's rows stand in a group's. */
static int add_files(struct commit_ctx *x, struct store_commit_writes *w, struct arena *arena,
                     struct group_rows *g, size_t ng, struct error *err)
{
    for (size_t t = 0; t < x->c->ntables; t++) {
        const struct commit_table *ct = &x->c->tables[t];
        const struct table_live *l = &x->live[t];
        const struct group_rows *gr = g ? group_rows_of(g, ng, l->table_id) : NULL;
        int64_t rows_before = gr ? gr->before : 0;
        int64_t table_records = gr ? gr->total : l->records;
        for (size_t i = 0; i < ct->nfiles; i++) {
            const struct commit_file *cf = &ct->files[i];
            struct store_column_stats *stats = file_stats(arena, cf);
            if (!stats && cf->nstats)
                return error_nomem(err);
            store_commit_writes_file(w, &(struct store_commit_file){
                                            .table_id = l->table_id,
                                            .path = cf->path,
                                            .records = cf->record_count,
                                            .size = cf->file_size_bytes,
                                            .has_footer_size = cf->has_footer_size,
                                            .footer_size = cf->footer_size,
                                            .rows_before = rows_before,
                                            .table_records = table_records,
                                            .stats_provided = cf->has_stats,
                                            .explicit_row_ids = cf->explicit_row_ids,
                                            .row_id_start = cf->row_id_min,
                                            .has_spec = l->has_spec,
                                            .spec_id = l->spec_id,
                                            .split_offsets = cf->split_offsets,
                                            .nsplit_offsets = cf->nsplit_offsets,
                                            .stats = stats,
                                            .nstats = cf->nstats,
                                        });
            if (!cf->explicit_row_ids)
                rows_before += cf->record_count;
            for (size_t k = 0; k < cf->npartition_values; k++)
                store_commit_writes_partition_value(w, (int64_t)k, cf->partition_values[k]);
        }
    }
    return 0;
}

/* The deletion vectors, after every file; each ends the live vector of its
 * target, if there is one. */
static void add_deletes(struct commit_ctx *x, struct store_commit_writes *w,
                        struct store_commit_dv_target **targets)
{
    size_t files_before = 0; /* the files of the tables before (add_files' order) */
    for (size_t t = 0; t < x->c->ntables; t++) {
        const struct commit_table *ct = &x->c->tables[t];
        for (size_t i = 0; i < ct->ndvs; i++) {
            const struct commit_dv *d = &ct->dvs[i];
            if (targets[t][i].has_live_dv)
                store_commit_writes_superseded(w, targets[t][i].dv_id);
            if (d->removes_file)
                store_commit_writes_removed(w, d->data_file_id);
            store_commit_writes_dv(w, &(struct store_commit_dv){
                                          .table_id = x->live[t].table_id,
                                          .data_file_id = d->data_file_id,
                                          .targets_append = d->targets_append,
                                          .append_rel = (int64_t)(files_before + d->append_index),
                                          .path = d->path,
                                          .delete_count = d->delete_count,
                                          .file_size_bytes = d->file_size_bytes,
                                      });
        }
        files_before += ct->nfiles;
    }
}

/* The snapshot's change rows: each table inserted into, deleted from. */
static void add_changes(struct commit_ctx *x, struct store_commit_writes *w)
{
    for (size_t i = 0; i < x->c->ntables; i++) {
        if (x->c->tables[i].nfiles)
            store_commit_writes_change(w, "table_inserted_into", x->live[i].table_id);
        if (x->c->tables[i].ndvs)
            store_commit_writes_change(w, "table_deleted_from", x->live[i].table_id);
    }
}

/* Begins x's entry among the writes; optimistic, with what the assertion
 * under the lock holds it to. */
static void begin_entry(struct commit_ctx *x, struct store_commit_writes *w, bool optimistic)
{
    const struct commit_request *c = x->c;
    store_commit_writes_entry(w, &(struct store_commit_entry){
                                     .author = c->author,
                                     .message = c->message,
                                     .key = c->has_key ? c->key : NULL,
                                     .fingerprint = c->has_key ? c->fingerprint : NULL,
                                     .fingerprint_len = c->has_key ? COMMIT_FINGERPRINT_BYTES : 0,
                                     .upload_owner = c->has_upload_owner ? c->upload_owner : NULL,
                                     .claims_required = c->rules->claims_by_key,
                                 });
    if (!optimistic)
        return;
    store_commit_writes_expect(
        w, &(struct store_commit_expect){x->read.head, c->has_read_snapshot, c->read_snapshot});
    for (size_t t = 0; t < c->ntables; t++)
        store_commit_writes_touched(w, x->live[t].table_id);
}

/* x's entry: its change rows, row ids and files (g as add_files's). */
static int add_entry(struct commit_ctx *x, struct store_commit_writes *w, bool optimistic,
                     struct arena *arena, struct group_rows *g, size_t ng, struct error *err)
{
    begin_entry(x, w, optimistic);
    add_changes(x, w);
    int rc = 0;
    if (x->c->nfiles && (rc = add_row_ids(x, w, err)) == 0)
        rc = add_files(x, w, arena, g, ng, err);
    return rc;
}

/* Queues every write; the caller adds the COMMIT, which the server skips
 * (and the caller rolls back) when a statement before it fails. */
int commit_queue_writes(struct commit_ctx *x, struct write_batch *w,
                        struct store_commit_dv_target **targets, bool optimistic, struct error *err)
{
    struct store_commit_writes rows;
    store_commit_writes_init(&rows, x->cat.id);
    int rc = add_entry(x, &rows, optimistic, x->ctx->arena, NULL, 0, err);
    if (rc == 0 && x->c->ndvs)
        add_deletes(x, &rows, targets);
    if (rc == 0)
        rc = store_commit_queue_writes(&w->s, &rows, &w->at, err);
    store_commit_writes_free(&rows);
    return rc;
}

int commit_queue_group_writes(struct commit_ctx *const *xs, size_t n, struct arena *arena,
                              struct write_batch *w, struct error *err)
{
    /* Each appended table's new row ids over the group, entries in order. */
    size_t cap = 0, ng = 0;
    for (size_t e = 0; e < n; e++)
        cap += xs[e]->c->ntables;
    struct group_rows *g = arena_calloc(arena, cap ? cap : 1, sizeof *g);
    if (!g)
        return error_nomem(err);
    for (size_t e = 0; e < n; e++)
        for (size_t t = 0; t < xs[e]->c->ntables; t++) {
            const struct table_live *l = &xs[e]->live[t];
            struct group_rows *gr = group_rows_of(g, ng, l->table_id);
            if (!gr) {
                gr = &g[ng++];
                gr->table_id = l->table_id;
            }
            gr->total += l->records;
        }
    struct store_commit_writes rows;
    store_commit_writes_init(&rows, xs[0]->cat.id);
    int rc = 0;
    for (size_t e = 0; rc == 0 && e < n; e++) {
        struct commit_ctx *x = xs[e];
        rc = add_entry(x, &rows, true, arena, g, ng, err);
        for (size_t t = 0; rc == 0 && t < x->c->ntables; t++)
            group_rows_of(g, ng, x->live[t].table_id)->before += x->live[t].records;
    }
    if (rc == 0)
        rc = store_commit_queue_writes(&w->s, &rows, &w->at, err);
    store_commit_writes_free(&rows);
    return rc;
}

/* Sends the batch; on success the transaction has committed and the
 * allocation's answer is the result. */
int commit_run_writes(struct commit_ctx *x, struct write_batch *w, struct error *err)
{
    int failed;
    if (store_commit_batch_run(&w->s, &failed, err) != 0) {
        if (db_error_is(err, SQLSTATE_HOG_ASSERT) && failed == w->at.row_ids)
            return error_fail(err, ERR_INVALID,
                              "a table's row ids or byte counters would overflow");
        x->out->failed_step = store_commit_batch_failed(&w->s, "commit");
        return -1;
    }
    x->in_txn = false;
    store_commit_allocated(&w->s, w->at.alloc, 1, 1, &x->out->snapshot_id, &x->out->schema_version);
    return 0;
}
