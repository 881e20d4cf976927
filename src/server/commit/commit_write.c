/* A commit's writes as one batch of prepared statements: the allocation,
 * the snapshot and change rows, the row-id allocators, the files with
 * their statistics and partition values, the deletion vectors, the
 * receipt and the COMMIT (contract §4, steps 15 and 16). */
#include <stdint.h>
#include <string.h>

#include "server/commit/commit_internal.h"

/* ---- steps 12 to 16: the writes, in one round trip ---- */

/* The allocation as the statements after it see it: the new snapshot, the
 * first of the commit's file ids ($2 is how many it took) and the schema
 * version. Every id a commit writes is derived from the allocators in SQL,
 * inside the transaction that advanced them, so the rows cannot disagree
 * with the allocators whatever the client computed. */
#define ALLOCATED                                                                                  \
    " (SELECT last_snapshot_id AS snap, next_file_id - $2 AS first_id, schema_version AS version"  \
    " FROM hog_catalog WHERE catalog_id = $1) AS a"

/* Queues `sql` with the catalog as $1, then, when it reads ALLOCATED, the
 * number of file ids the commit allocates as $2, then the text parameters
 * and the arrays. */
static int queue_rows(struct commit_ctx *x, struct write_batch *w, const char *sql, bool allocated,
                      const char *const *texts, size_t ntexts, struct pg_array *const *arrays,
                      size_t narrays, const char *context, struct api_error *err)
{
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, x->cat.id);
    if (allocated)
        db_param_i64(&p, (int64_t)(x->c->nfiles + x->c->ndvs));
    for (size_t i = 0; i < ntexts; i++)
        db_param_str(&p, texts[i]);
    for (size_t i = 0; i < narrays; i++) {
        const char *t = commit_array_text(arrays[i], err);
        if (!t)
            return -1;
        db_param_str(&p, t);
    }
    return commit_queue(&w->s, sql, &p, context, err) < 0 ? -1 : 0;
}

/* One snapshot and the file ids; a data commit does not change the schema
 * version. */
static int queue_allocation(struct commit_ctx *x, struct write_batch *w, struct api_error *err)
{
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, x->cat.id);
    db_param_i64(&p, (int64_t)(x->c->nfiles + x->c->ndvs));
    w->alloc = commit_queue(&w->s,
                            "UPDATE hog_catalog SET last_snapshot_id = last_snapshot_id + 1,"
                            " next_file_id = next_file_id + $2 WHERE catalog_id = $1"
                            " RETURNING last_snapshot_id, schema_version",
                            &p, "allocation", err);
    if (w->alloc < 0)
        return -1;
    const char *texts[] = {x->c->author, x->c->message};
    return queue_rows(x, w,
                      "INSERT INTO hog_snapshot (catalog_id, snapshot_id, snapshot_time,"
                      " schema_version, author, commit_message)"
                      " SELECT $1, a.snap, clock_timestamp(), a.version, $3, $4 FROM" ALLOCATED,
                      true, texts, 2, NULL, 0, "snapshot row", err);
}

static int queue_changes(struct commit_ctx *x, struct write_batch *w, struct api_error *err)
{
    struct pg_array kinds, ids;
    pg_array_init(&kinds);
    pg_array_init(&ids);
    for (size_t i = 0; i < x->c->ntables; i++) {
        if (x->c->tables[i].nfiles) {
            pg_array_str(&kinds, "table_inserted_into");
            pg_array_i64(&ids, x->live[i].table_id);
        }
        if (x->c->tables[i].ndvs) {
            pg_array_str(&kinds, "table_deleted_from");
            pg_array_i64(&ids, x->live[i].table_id);
        }
    }
    struct pg_array *arrays[] = {&kinds, &ids};
    int rc = queue_rows(x, w,
                        "INSERT INTO hog_snapshot_change (catalog_id, snapshot_id, kind,"
                        " object_id) SELECT $1, a.snap, u.kind, u.id FROM" ALLOCATED
                        ", unnest($3::text[], $4::bigint[]) AS u(kind, id)",
                        true, NULL, 0, arrays, 2, "change rows", err);
    pg_array_free(&kinds);
    pg_array_free(&ids);
    return rc;
}

/* Advances each appended table's row-id allocator and gross counters by
 * the commit's records and bytes; the files' ranges are derived from the
 * advanced allocator (queue_appends). A counter that would overflow int64
 * fails the assertion. */
static int queue_row_ids(struct commit_ctx *x, struct write_batch *w, struct api_error *err)
{
    struct pg_array tids, recs, bytes;
    pg_array_init(&tids);
    pg_array_init(&recs);
    pg_array_init(&bytes);
    int rc = 0;
    for (size_t i = 0; i < x->c->ntables && rc == 0; i++) {
        const struct table_live *l = &x->live[i];
        if (!x->c->tables[i].nfiles)
            continue;
        if (l->next_row_id > INT64_MAX - l->records || l->stats_bytes > INT64_MAX - l->bytes)
            rc = api_validation(err, "%s: the table's row ids or byte counters would overflow",
                                commit_table_label(x, i));
        pg_array_i64(&tids, l->table_id);
        pg_array_i64(&recs, l->records);
        pg_array_i64(&bytes, l->bytes);
    }
    struct pg_array *arrays[] = {&tids, &recs, &bytes};
    if (rc == 0) {
        w->row_ids = w->s.arena ? w->s.nrec : w->s.b.n; /* the index it is about to get */
        rc = queue_rows(x, w,
                        "WITH t AS (UPDATE hog_table_stats s"
                        " SET next_row_id = s.next_row_id + u.recs,"
                        " record_count = s.record_count + u.recs,"
                        " file_size_bytes = s.file_size_bytes + u.bytes"
                        " FROM unnest($2::bigint[], $3::bigint[], $4::bigint[])"
                        "  AS u(tid, recs, bytes)"
                        " WHERE s.catalog_id = $1 AND s.table_id = u.tid"
                        "  AND s.next_row_id <= 9223372036854775807 - u.recs"
                        "  AND s.file_size_bytes <= 9223372036854775807 - u.bytes RETURNING 1)"
                        " SELECT hog_assert(count(*) = cardinality($2::bigint[]),"
                        " 'a row-id or byte counter would overflow') FROM t",
                        false, NULL, 0, arrays, 3, "row ids", err);
    }
    pg_array_free(&tids);
    pg_array_free(&recs);
    pg_array_free(&bytes);
    return rc;
}

enum { FILE_ROWS_ARRAYS = 22 };
struct file_rows {
    struct pg_array rel, tid, path, recs, size, footer, rel_row, table_recs, state, spec, splits;
    struct pg_array s_file, s_field, s_values, s_nulls, s_nans, s_size, s_lower, s_upper;
    struct pg_array p_file, p_key, p_value;
};

/* Every array of f, for init and free. */
static size_t file_rows_arrays(struct file_rows *f, struct pg_array **all)
{
    struct pg_array *list[] = {&f->rel,    &f->tid,     &f->path,       &f->recs,     &f->size,
                               &f->footer, &f->rel_row, &f->table_recs, &f->state,    &f->spec,
                               &f->splits, &f->s_file,  &f->s_field,    &f->s_values, &f->s_nulls,
                               &f->s_nans, &f->s_size,  &f->s_lower,    &f->s_upper,  &f->p_file,
                               &f->p_key,  &f->p_value};
    memcpy(all, list, sizeof list);
    return sizeof list / sizeof list[0];
}

static void file_rows_init(struct file_rows *f)
{
    struct pg_array *all[FILE_ROWS_ARRAYS];
    size_t n = file_rows_arrays(f, all);
    for (size_t i = 0; i < n; i++)
        pg_array_init(all[i]);
}

static void file_rows_free(struct file_rows *f)
{
    struct pg_array *all[FILE_ROWS_ARRAYS];
    size_t n = file_rows_arrays(f, all);
    for (size_t i = 0; i < n; i++)
        pg_array_free(all[i]);
}

/* Writes the appended files, their statistics and partition values. File
 * k of the commit (tables in request order, files in order) gets id
 * first_id + k; a file's rows start where the table's allocator stood
 * before this commit, plus the records of the table's files before it. */
static int queue_appends(struct commit_ctx *x, struct write_batch *w, struct api_error *err)
{
    struct file_rows f;
    file_rows_init(&f);
    int64_t rel = 0;
    size_t nstats = 0, nparts = 0;
    for (size_t t = 0; t < x->c->ntables; t++) {
        const struct commit_table *ct = &x->c->tables[t];
        const struct table_live *l = &x->live[t];
        int64_t row = 0;
        for (size_t i = 0; i < ct->nfiles; i++, rel++) {
            const struct commit_file *cf = &ct->files[i];
            pg_array_i64(&f.rel, rel);
            pg_array_i64(&f.tid, l->table_id);
            pg_array_str(&f.path, cf->path);
            pg_array_i64(&f.recs, cf->record_count);
            pg_array_i64(&f.size, cf->file_size_bytes);
            if (cf->has_footer_size)
                pg_array_i64(&f.footer, cf->footer_size);
            else
                pg_array_null(&f.footer);
            pg_array_i64(&f.rel_row, row);
            row += cf->record_count;
            pg_array_i64(&f.table_recs, l->records);
            pg_array_str(&f.state, cf->has_stats ? "provided" : "pending");
            if (l->has_spec)
                pg_array_i64(&f.spec, l->spec_id);
            else
                pg_array_null(&f.spec);
            pg_array_i64_list(&f.splits, cf->split_offsets, cf->nsplit_offsets);
            for (size_t s = 0; s < cf->nstats; s++) {
                const struct commit_stat *st = &cf->stats[s];
                pg_array_i64(&f.s_file, rel);
                pg_array_i64(&f.s_field, st->field_id);
                pg_array_i64(&f.s_values, st->value_count);
                pg_array_i64(&f.s_nulls, st->null_count);
                if (st->has_nan_count)
                    pg_array_i64(&f.s_nans, st->nan_count);
                else
                    pg_array_null(&f.s_nans);
                if (st->has_size_bytes)
                    pg_array_i64(&f.s_size, st->size_bytes);
                else
                    pg_array_null(&f.s_size);
                pg_array_bytes(&f.s_lower, st->lower, st->lower_len);
                pg_array_bytes(&f.s_upper, st->upper, st->upper_len);
                nstats++;
            }
            for (size_t k = 0; k < cf->npartition_values; k++) {
                pg_array_i64(&f.p_file, rel);
                pg_array_i64(&f.p_key, (int64_t)k);
                pg_array_str(&f.p_value, cf->partition_values[k]);
                nparts++;
            }
        }
    }
    struct pg_array *files[] = {&f.rel,     &f.tid,        &f.path,  &f.recs, &f.size,  &f.footer,
                                &f.rel_row, &f.table_recs, &f.state, &f.spec, &f.splits};
    struct pg_array *stats[] = {&f.s_file, &f.s_field, &f.s_values, &f.s_nulls,
                                &f.s_nans, &f.s_size,  &f.s_lower,  &f.s_upper};
    struct pg_array *parts[] = {&f.p_file, &f.p_key, &f.p_value};
    int rc = queue_rows(
        x, w,
        "INSERT INTO hog_data_file (catalog_id, data_file_id, table_id, begin_snapshot, path,"
        " record_count, file_size_bytes, footer_size, row_id_start, stats_state, spec_id,"
        " split_offsets)"
        " SELECT $1, a.first_id + u.rel, u.tid, a.snap, u.path, u.recs, u.size, u.footer,"
        " ts.next_row_id - u.table_recs + u.rel_row, u.state, u.spec, u.splits::bigint[]"
        " FROM" ALLOCATED ", unnest($3::bigint[], $4::bigint[], $5::text[], $6::bigint[],"
        "  $7::bigint[], $8::bigint[], $9::bigint[], $10::bigint[], $11::text[], $12::bigint[],"
        "  $13::text[]) AS u(rel, tid, path, recs, size, footer, rel_row, table_recs, state,"
        "  spec, splits)"
        " JOIN hog_table_stats ts ON ts.catalog_id = $1 AND ts.table_id = u.tid",
        true, NULL, 0, files, sizeof files / sizeof files[0], "data files", err);
    if (rc == 0 && nstats)
        rc = queue_rows(x, w,
                        "INSERT INTO hog_file_column_stats (catalog_id, data_file_id, field_id,"
                        " value_count, null_count, nan_count, size_bytes, lower_bound,"
                        " upper_bound)"
                        " SELECT $1, a.first_id + u.rel, u.field, u.vals, u.nulls, u.nans,"
                        " u.size, u.lower, u.upper FROM" ALLOCATED
                        ", unnest($3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[],"
                        "  $7::bigint[], $8::bigint[], $9::bytea[], $10::bytea[])"
                        " AS u(rel, field, vals, nulls, nans, size, lower, upper)",
                        true, NULL, 0, stats, sizeof stats / sizeof stats[0], "file statistics",
                        err);
    if (rc == 0 && nparts)
        rc = queue_rows(x, w,
                        "INSERT INTO hog_file_partition_value (catalog_id, data_file_id,"
                        " key_index, value)"
                        " SELECT $1, a.first_id + u.rel, u.key, u.value FROM" ALLOCATED
                        ", unnest($3::bigint[], $4::int[], $5::text[]) AS u(rel, key, value)",
                        true, NULL, 0, parts, sizeof parts / sizeof parts[0], "partition values",
                        err);
    file_rows_free(&f);
    return rc;
}

/* Deletion vectors take the ids after the data files'. */
static int queue_deletes(struct commit_ctx *x, struct write_batch *w, struct dv_target **targets,
                         struct api_error *err)
{
    struct pg_array ended, rel, tid, target, path, count, size;
    struct pg_array *all[] = {&ended, &rel, &tid, &target, &path, &count, &size};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        pg_array_init(all[i]);
    int64_t next = (int64_t)x->c->nfiles;
    size_t nended = 0;
    for (size_t t = 0; t < x->c->ntables; t++) {
        const struct commit_table *ct = &x->c->tables[t];
        for (size_t i = 0; i < ct->ndvs; i++) {
            const struct commit_dv *d = &ct->dvs[i];
            if (targets[t][i].has_live_dv) {
                pg_array_i64(&ended, targets[t][i].dv_id);
                nended++;
            }
            pg_array_i64(&rel, next++);
            pg_array_i64(&tid, x->live[t].table_id);
            pg_array_i64(&target, d->data_file_id);
            pg_array_str(&path, d->path);
            pg_array_i64(&count, d->delete_count);
            pg_array_i64(&size, d->file_size_bytes);
        }
    }
    struct pg_array *ends[] = {&ended};
    struct pg_array *rows[] = {&rel, &tid, &target, &path, &count, &size};
    int rc = 0;
    /* The superseded vectors end first: one live DV per data file. */
    if (nended)
        rc = queue_rows(x, w,
                        "UPDATE hog_delete_file d SET end_snapshot = a.snap FROM" ALLOCATED
                        " WHERE d.catalog_id = $1 AND d.delete_file_id = ANY($3::bigint[])"
                        " AND d.end_snapshot IS NULL",
                        true, NULL, 0, ends, 1, "superseded deletion vectors", err);
    if (rc == 0)
        rc = queue_rows(x, w,
                        "INSERT INTO hog_delete_file (catalog_id, delete_file_id, table_id,"
                        " data_file_id, begin_snapshot, path, delete_count, file_size_bytes)"
                        " SELECT $1, a.first_id + u.rel, u.tid, u.target, a.snap, u.path, u.count,"
                        " u.size FROM" ALLOCATED
                        ", unnest($3::bigint[], $4::bigint[], $5::bigint[], $6::text[],"
                        "  $7::bigint[], $8::bigint[]) AS u(rel, tid, target, path, count, size)",
                        true, NULL, 0, rows, sizeof rows / sizeof rows[0], "deletion vectors", err);
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        pg_array_free(all[i]);
    return rc;
}

static int queue_receipt(struct commit_ctx *x, struct write_batch *w, struct api_error *err)
{
    /* bytea's hex input form. */
    char hex[3 + 2 * COMMIT_FINGERPRINT_BYTES];
    static const char digits[] = "0123456789abcdef";
    hex[0] = '\\';
    hex[1] = 'x';
    for (size_t i = 0; i < COMMIT_FINGERPRINT_BYTES; i++) {
        hex[2 + 2 * i] = digits[x->c->fingerprint[i] >> 4];
        hex[3 + 2 * i] = digits[x->c->fingerprint[i] & 15];
    }
    hex[2 + 2 * COMMIT_FINGERPRINT_BYTES] = '\0';
    const char *texts[] = {x->c->key, hex};
    return queue_rows(x, w,
                      "INSERT INTO hog_commit_receipt (catalog_id, idempotency_key, fingerprint,"
                      " snapshot_id, schema_version) SELECT $1, $3::uuid, $4::bytea, a.snap,"
                      " a.version FROM" ALLOCATED,
                      true, texts, 2, NULL, 0, "receipt", err);
}

/* Queues every write; the caller adds the COMMIT, which the server skips
 * (and the caller rolls back) when a statement before it fails. */
int commit_queue_writes(struct commit_ctx *x, struct write_batch *w, struct dv_target **targets,
                        struct api_error *err)
{
    if (queue_allocation(x, w, err) != 0 || queue_changes(x, w, err) != 0)
        return -1;
    if (x->c->nfiles && (queue_row_ids(x, w, err) != 0 || queue_appends(x, w, err) != 0))
        return -1;
    if (x->c->ndvs && queue_deletes(x, w, targets, err) != 0)
        return -1;
    if (x->c->has_key && queue_receipt(x, w, err) != 0)
        return -1;
    return 0;
}

/* Sends the batch; on success the transaction has committed and the
 * allocation's answer is the result. *stale is set (with -1 and no error)
 * when the optimistic path's check failed, or its row-id assertion (which
 * the locked path answers). */
int commit_run_writes(struct commit_ctx *x, struct write_batch *w, struct api_error *err)
{
    struct error dberr;
    int failed;
    if (db_batch_run(&w->s.b, &failed, &dberr) != 0) {
        if (db_error_is(&dberr, SQLSTATE_HOG_ASSERT) && failed == w->row_ids)
            return api_validation(err, "a table's row ids or byte counters would overflow");
        return api_from_error(err, &dberr,
                              failed >= 0 && failed < w->s.b.n ? w->s.context[failed] : "commit");
    }
    x->in_txn = false;
    const PGresult *a = w->s.b.results[w->alloc];
    x->snapshot_id = db_i64(a, 0, 0);
    x->schema_version = db_i64(a, 0, 1);
    return 0;
}
