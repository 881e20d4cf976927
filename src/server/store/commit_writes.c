/* What a commit writes (commit_writes.h). */
#include "server/store/commit_writes.h"

#include <stdlib.h>
#include <string.h>

#include "server/db/db.h"

/* The allocation as the statements after it see it: the snapshot before
 * the first entry's (entry e, from 1, has snap0 + e; $3 is how many
 * entries), the first of the file ids ($2 is how many were taken) and the
 * schema version. */
#define ALLOCATED                                                                                  \
    " (SELECT last_snapshot_id - $3 AS snap0, next_file_id - $2 AS first_id,"                      \
    " schema_version AS version FROM hog_catalog WHERE catalog_id = $1) AS a"

/* What the optimistic path asserts under the lock, for every entry at
 * once: no touched table ($3) saw DDL after the earliest head an entry
 * read ($2; an entry that read later is held to that earlier head, which
 * can only refuse too much, and the caller then checks entry by entry),
 * the expiry floor is not above any read_snapshot ($4, their least), no
 * key has a receipt ($5), no path ($6) is queued for removal, registered
 * or claimed by another than its entry's upload owner ($7), and each path
 * of an entry that requires claims ($8) is an active data claim of that
 * entry's owner ($9). */
static const char optimistic_checks_sql[] =
    "SELECT hog_assert(count(*) = 1 AND bool_and(c.last_snapshot_id >= $2"
    "  AND ($4::bigint IS NULL OR c.earliest_snapshot_id <= $4)), 'the catalog moved')"
    " AND hog_assert(NOT EXISTS (SELECT 1 FROM hog_snapshot_change ch"
    "  WHERE ch.catalog_id = $1 AND ch.object_id = ANY($3::bigint[])"
    "  AND ch.kind IN ('table_dropped', 'table_altered') AND ch.snapshot_id > $2),"
    "  'a touched table changed')"
    " AND hog_assert(NOT EXISTS (SELECT 1 FROM hog_commit_receipt r"
    "  WHERE r.catalog_id = $1 AND r.idempotency_key = ANY($5::uuid[])), 'the key has a receipt')"
    " AND hog_assert(NOT EXISTS (SELECT 1 FROM hog_file_removal WHERE catalog_id = $1"
    "  AND drained_at IS NULL AND path = ANY($6::text[]))"
    "  AND NOT EXISTS (SELECT 1 FROM hog_data_file WHERE catalog_id = $1"
    "  AND path = ANY($6::text[]))"
    "  AND NOT EXISTS (SELECT 1 FROM hog_delete_file WHERE catalog_id = $1"
    "  AND path = ANY($6::text[]))"
    "  AND NOT EXISTS (SELECT 1 FROM hog_upload u"
    "  JOIN unnest($6::text[], $7::uuid[]) AS p(path, owner) ON u.path = p.path"
    "  WHERE u.catalog_id = $1 AND u.path = ANY($6::text[])"
    "  AND (u.state <> 'active' OR u.owner IS DISTINCT FROM p.owner)),"
    "  'a path is taken')"
    " AND hog_assert((SELECT count(*) FROM hog_upload u"
    "  JOIN unnest($8::text[], $9::uuid[]) AS p(path, owner) ON u.path = p.path"
    "  WHERE u.catalog_id = $1 AND u.path = ANY($8::text[]) AND u.state = 'active'"
    "  AND u.owner = p.owner AND u.file_kind = 'data') = cardinality($8::text[]),"
    "  'a path is not claimed')"
    " FROM hog_catalog c WHERE c.catalog_id = $1";

/* ---- building ---- */

/* Every array of w, for init and free. */
enum { WRITES_ARRAYS = 50 };
static size_t writes_arrays(struct store_commit_writes *w, struct pg_array **all)
{
    struct pg_array *list[] = {
        &w->touched,   &w->change_kinds,  &w->change_ids,    &w->row_tids,     &w->row_recs,
        &w->row_bytes, &w->f_rel,         &w->f_tid,         &w->f_path,       &w->f_recs,
        &w->f_size,    &w->f_footer,      &w->f_rows_before, &w->f_table_recs, &w->f_state,
        &w->f_spec,    &w->f_splits,      &w->f_row_start,   &w->f_stats,      &w->p_file,
        &w->p_tid,     &w->p_key,         &w->p_value,       &w->ended,        &w->d_rel,
        &w->d_tid,     &w->d_target,      &w->d_target_rel,  &w->d_path,       &w->d_count,
        &w->d_size,    &w->removed,       &w->t_tid,         &w->t_recs,       &w->t_files,
        &w->t_bytes,   &w->t_snaps,       &w->t_entry,       &w->e_author,     &w->e_message,
        &w->r_key,     &w->r_fingerprint, &w->r_entry,       &w->owners,       &w->change_entries,
        &w->f_entry,   &w->f_owner,       &w->d_owner,       &w->c_path,       &w->c_owner,
    };
    _Static_assert(sizeof list / sizeof list[0] == WRITES_ARRAYS, "every array, once");
    memcpy(all, list, sizeof list);
    return sizeof list / sizeof list[0];
}

void store_commit_writes_init(struct store_commit_writes *w, int64_t catalog_id)
{
    memset(w, 0, sizeof *w);
    w->catalog_id = catalog_id;
    struct pg_array *all[WRITES_ARRAYS];
    size_t n = writes_arrays(w, all);
    for (size_t i = 0; i < n; i++)
        pg_array_init(all[i]);
}

void store_commit_writes_free(struct store_commit_writes *w)
{
    struct pg_array *all[WRITES_ARRAYS];
    size_t n = writes_arrays(w, all);
    for (size_t i = 0; i < n; i++)
        pg_array_free(all[i]);
    buf_free(&w->stats_value);
    free(w->deltas);
}

void store_commit_writes_entry(struct store_commit_writes *w, const struct store_commit_entry *e)
{
    w->entry = *e;
    w->nentries++;
    pg_array_str(&w->e_author, e->author);
    pg_array_str(&w->e_message, e->message);
    if (e->key) {
        pg_array_str(&w->r_key, e->key);
        pg_array_bytes(&w->r_fingerprint, e->fingerprint, e->fingerprint_len);
        pg_array_i64(&w->r_entry, (int64_t)w->nentries);
    }
    if (e->upload_owner)
        pg_array_str(&w->owners, e->upload_owner);
}

void store_commit_writes_expect(struct store_commit_writes *w, const struct store_commit_expect *e)
{
    if (!w->nchecked || e->head < w->least_head)
        w->least_head = e->head;
    if (e->has_read_snapshot && (!w->has_read_snapshot || e->read_snapshot < w->least_read))
        w->least_read = e->read_snapshot;
    w->has_read_snapshot |= e->has_read_snapshot;
    w->nchecked++;
}

void store_commit_writes_touched(struct store_commit_writes *w, int64_t table_id)
{
    pg_array_i64(&w->touched, table_id);
}

/* table_id's delta, or NULL. The search starts where the last one ended
 * and goes round: a table's files come together, in the order of the
 * tables' change rows (commit_writes.h), so each lookup is a step or two,
 * not a pass over every table of the commit. */
static struct store_commit_table_delta *delta_of(struct store_commit_writes *w, int64_t table_id)
{
    for (size_t k = 0; k < w->ndeltas; k++) {
        size_t i = (w->last_delta + k) % w->ndeltas;
        if (w->deltas[i].table_id == table_id) {
            w->last_delta = i;
            return &w->deltas[i];
        }
    }
    return NULL;
}

void store_commit_writes_change(struct store_commit_writes *w, const char *kind, int64_t table_id)
{
    pg_array_str(&w->change_kinds, kind);
    pg_array_i64(&w->change_ids, table_id);
    pg_array_i64(&w->change_entries, (int64_t)w->nentries);
    /* A table's change rows come together (commit_writes.h). */
    if (w->ndeltas && w->deltas[w->ndeltas - 1].table_id == table_id &&
        w->deltas[w->ndeltas - 1].entry == (int64_t)w->nentries)
        return;
    if (w->ndeltas == w->deltas_cap) {
        size_t cap = w->deltas_cap ? 2 * w->deltas_cap : 4;
        struct store_commit_table_delta *d = realloc(w->deltas, cap * sizeof *d);
        if (!d) {
            w->failed = true;
            return;
        }
        w->deltas = d;
        w->deltas_cap = cap;
    }
    w->deltas[w->ndeltas++] = (struct store_commit_table_delta){
        .table_id = table_id, .entry = (int64_t)w->nentries, .entries = 1};
}

void store_commit_writes_row_ids(struct store_commit_writes *w, int64_t table_id, int64_t records,
                                 int64_t bytes)
{
    struct store_commit_table_delta *d = delta_of(w, table_id);
    if (!d) {
        w->unnamed_table = true;
        return;
    }
    d->advances = true;
    if (__builtin_add_overflow(d->row_records, records, &d->row_records) ||
        __builtin_add_overflow(d->row_bytes, bytes, &d->row_bytes))
        w->overflow = true;
}

static void i64_or_null(struct pg_array *a, bool present, int64_t v)
{
    if (present)
        pg_array_i64(a, v);
    else
        pg_array_null(a);
}

void store_commit_writes_file(struct store_commit_writes *w, const struct store_commit_file *f)
{
    struct store_commit_table_delta *d = delta_of(w, f->table_id);
    if (!d)
        w->unnamed_table = true;
    else if (__builtin_add_overflow(d->records, f->records, &d->records) ||
             __builtin_add_overflow(d->bytes, f->size, &d->bytes))
        w->overflow = true;
    else
        d->files++;
    pg_array_i64(&w->f_rel, (int64_t)w->nfiles++);
    pg_array_i64(&w->f_entry, (int64_t)w->nentries);
    pg_array_str(&w->f_owner, w->entry.upload_owner);
    if (w->entry.claims_required) {
        pg_array_str(&w->c_path, f->path);
        pg_array_str(&w->c_owner, w->entry.upload_owner);
    }
    pg_array_i64(&w->f_tid, f->table_id);
    w->last_file_table_id = f->table_id;
    pg_array_str(&w->f_path, f->path);
    pg_array_i64(&w->f_recs, f->records);
    pg_array_i64(&w->f_size, f->size);
    i64_or_null(&w->f_footer, f->has_footer_size, f->footer_size);
    pg_array_i64(&w->f_rows_before, f->rows_before);
    pg_array_i64(&w->f_table_recs, f->table_records);
    pg_array_str(&w->f_state, f->stats_provided ? "provided" : "pending");
    i64_or_null(&w->f_spec, f->has_spec, f->spec_id);
    pg_array_i64_list(&w->f_splits, f->split_offsets, f->nsplit_offsets);
    i64_or_null(&w->f_row_start, f->explicit_row_ids, f->row_id_start);
    buf_reset(&w->stats_value);
    if (f->nstats == 0)
        pg_array_null(&w->f_stats);
    else if (store_column_stats_encode(f->stats, f->nstats, &w->stats_value, NULL) == 0)
        pg_array_bytes(&w->f_stats, (const uint8_t *)w->stats_value.data, w->stats_value.len);
    else
        w->failed = true;
}

void store_commit_writes_partition_value(struct store_commit_writes *w, int64_t key_index,
                                         const char *value)
{
    pg_array_i64(&w->p_file, (int64_t)w->nfiles - 1);
    pg_array_i64(&w->p_tid, w->last_file_table_id);
    pg_array_i64(&w->p_key, key_index);
    pg_array_str(&w->p_value, value);
    w->nparts++;
}

void store_commit_writes_dv(struct store_commit_writes *w, const struct store_commit_dv *d)
{
    pg_array_i64(&w->d_rel, (int64_t)(w->nfiles + w->ndvs++));
    pg_array_i64(&w->d_tid, d->table_id);
    i64_or_null(&w->d_target, !d->targets_append, d->data_file_id);
    i64_or_null(&w->d_target_rel, d->targets_append, d->append_rel);
    pg_array_str(&w->d_path, d->path);
    pg_array_i64(&w->d_count, d->delete_count);
    pg_array_i64(&w->d_size, d->file_size_bytes);
    pg_array_str(&w->d_owner, w->entry.upload_owner);
}

void store_commit_writes_removed(struct store_commit_writes *w, int64_t data_file_id)
{
    pg_array_i64(&w->removed, data_file_id);
    w->nremoved++;
}

void store_commit_writes_superseded(struct store_commit_writes *w, int64_t delete_file_id)
{
    pg_array_i64(&w->ended, delete_file_id);
    w->nended++;
}

/* ---- queueing ---- */

/* Queues `sql` with the catalog as $1, then, when it reads ALLOCATED, the
 * number of file ids the writes allocate as $2 and of entries as $3, then
 * the text parameters and the arrays. Returns its index, or -1. */
static int queue_rows(struct store_commit_batch *s, const struct store_commit_writes *w,
                      const char *sql, bool allocated, const char *const *texts, size_t ntexts,
                      struct pg_array *const *arrays, size_t narrays, const char *context,
                      struct error *err)
{
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, w->catalog_id);
    if (allocated) {
        db_param_i64(&p, (int64_t)(w->nfiles + w->ndvs));
        db_param_i64(&p, (int64_t)w->nentries);
    }
    for (size_t i = 0; i < ntexts; i++)
        db_param_str(&p, texts[i]);
    for (size_t i = 0; i < narrays; i++) {
        const char *t = pg_array_text(arrays[i]);
        if (!t)
            return error_nomem(err);
        db_param_str(&p, t);
    }
    return store_commit_batch_add(s, sql, &p, context, err);
}

static int queue_checks(struct store_commit_batch *s, struct store_commit_writes *w,
                        struct error *err)
{
    const char *ids = pg_array_text(&w->touched), *keys = pg_array_text(&w->r_key),
               *paths = pg_array_text(&w->f_path), *owners = pg_array_text(&w->f_owner),
               *claimed = pg_array_text(&w->c_path), *claimers = pg_array_text(&w->c_owner);
    if (!ids || !keys || !paths || !owners || !claimed || !claimers)
        return error_nomem(err);
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, w->catalog_id);
    db_param_i64(&p, w->least_head);
    db_param_str(&p, ids);
    if (w->has_read_snapshot)
        db_param_i64(&p, w->least_read);
    else
        db_param_null(&p);
    db_param_str(&p, keys);
    db_param_str(&p, paths);
    db_param_str(&p, owners);
    db_param_str(&p, claimed);
    db_param_str(&p, claimers);
    return store_commit_batch_add(s, optimistic_checks_sql, &p, "commit checks", err);
}

/* A snapshot per entry and the file ids; a data commit does not change the
 * schema version. Returns the allocation's index, or -1. */
static int queue_snapshot(struct store_commit_batch *s, struct store_commit_writes *w,
                          struct error *err)
{
    int alloc = queue_rows(s, w,
                           "UPDATE hog_catalog SET last_snapshot_id = last_snapshot_id + $3,"
                           " next_file_id = next_file_id + $2 WHERE catalog_id = $1"
                           " RETURNING last_snapshot_id, schema_version",
                           true, NULL, 0, NULL, 0, "allocation", err);
    struct pg_array *snapshots[] = {&w->e_author, &w->e_message};
    struct pg_array *changes[] = {&w->change_kinds, &w->change_ids, &w->change_entries};
    if (alloc < 0 ||
        queue_rows(s, w,
                   "INSERT INTO hog_snapshot (catalog_id, snapshot_id, snapshot_time,"
                   " schema_version, author, commit_message)"
                   " SELECT $1, a.snap0 + e.entry, clock_timestamp(), a.version, e.author,"
                   " e.message FROM" ALLOCATED ", unnest($4::text[], $5::text[])"
                   " WITH ORDINALITY AS e(author, message, entry)",
                   true, NULL, 0, snapshots, 2, "snapshot row", err) < 0 ||
        queue_rows(s, w,
                   "INSERT INTO hog_snapshot_change (catalog_id, snapshot_id, kind,"
                   " object_id) SELECT $1, a.snap0 + u.entry, u.kind, u.id FROM" ALLOCATED
                   ", unnest($4::text[], $5::bigint[], $6::bigint[]) AS u(kind, id, entry)",
                   true, NULL, 0, changes, 3, "change rows", err) < 0)
        return -1;
    return alloc;
}

static int delta_order(const void *a, const void *b)
{
    const struct store_commit_table_delta *x = a, *y = b;
    if (x->table_id != y->table_id)
        return x->table_id < y->table_id ? -1 : 1;
    return (x->entry > y->entry) - (x->entry < y->entry);
}

/* Sums the deltas by table (a table several entries name is one row of
 * each statement: an UPDATE takes one joined row a target, an upsert
 * refuses a key twice) into the queued arrays. */
static int sum_deltas(struct store_commit_writes *w)
{
    qsort(w->deltas, w->ndeltas, sizeof *w->deltas, delta_order);
    w->last_delta = 0;
    size_t n = 0;
    for (size_t i = 0; i < w->ndeltas; i++) {
        struct store_commit_table_delta *d = &w->deltas[i];
        struct store_commit_table_delta *to = n ? &w->deltas[n - 1] : NULL;
        if (!to || to->table_id != d->table_id) {
            w->deltas[n++] = *d;
            continue;
        }
        if (__builtin_add_overflow(to->records, d->records, &to->records) ||
            __builtin_add_overflow(to->bytes, d->bytes, &to->bytes) ||
            __builtin_add_overflow(to->row_records, d->row_records, &to->row_records) ||
            __builtin_add_overflow(to->row_bytes, d->row_bytes, &to->row_bytes))
            return -1;
        to->files += d->files;
        to->advances |= d->advances;
        if (d->entry != to->entry)
            to->entries += d->entries;
        to->entry = d->entry; /* sorted by entry within the table */
    }
    w->ndeltas = n;
    for (size_t i = 0; i < n; i++) {
        const struct store_commit_table_delta *d = &w->deltas[i];
        if (d->advances) {
            pg_array_i64(&w->row_tids, d->table_id);
            pg_array_i64(&w->row_recs, d->row_records);
            pg_array_i64(&w->row_bytes, d->row_bytes);
        }
        pg_array_i64(&w->t_tid, d->table_id);
        pg_array_i64(&w->t_recs, d->records);
        pg_array_i64(&w->t_files, d->files);
        pg_array_i64(&w->t_bytes, d->bytes);
        pg_array_i64(&w->t_snaps, d->entries);
        pg_array_i64(&w->t_entry, d->entry);
    }
    return 0;
}

/* Advances each appended table's row-id allocator and gross counters (a
 * counter that would overflow int64 fails the assertion), and adds the
 * entries' deltas to each named table's live totals: its files, records
 * and bytes, a snapshot more per entry naming it, changed at the last
 * one's (the insert triggers stand aside: migration 14). Returns its
 * index, or -1. */
static int queue_table_counters(struct store_commit_batch *s, struct store_commit_writes *w,
                                struct error *err)
{
    if (sum_deltas(w) != 0)
        return error_fail(err, ERR_INVALID, "a table's record or byte total would overflow");
    struct pg_array *arrays[] = {&w->row_tids, &w->row_recs, &w->row_bytes, &w->t_tid,  &w->t_recs,
                                 &w->t_files,  &w->t_bytes,  &w->t_snaps,   &w->t_entry};
    return queue_rows(
        s, w,
        "WITH t AS (UPDATE hog_table_stats s"
        " SET next_row_id = s.next_row_id + u.recs,"
        " record_count = s.record_count + u.recs,"
        " file_size_bytes = s.file_size_bytes + u.bytes"
        " FROM unnest($4::bigint[], $5::bigint[], $6::bigint[]) AS u(tid, recs, bytes)"
        " WHERE s.catalog_id = $1 AND s.table_id = u.tid"
        "  AND s.next_row_id <= 9223372036854775807 - u.recs"
        "  AND s.file_size_bytes <= 9223372036854775807 - u.bytes RETURNING 1),"
        " l AS (INSERT INTO hog_table_live_totals AS l (catalog_id, table_id, record_count,"
        "  file_count, file_size_bytes, snapshot_count, changed_snapshot)"
        "  SELECT $1, u.tid, u.recs, u.files, u.bytes, u.snaps, a.snap0 + u.entry FROM" ALLOCATED
        "  , unnest($7::bigint[], $8::bigint[], $9::bigint[], $10::bigint[], $11::bigint[],"
        "   $12::bigint[]) AS u(tid, recs, files, bytes, snaps, entry)"
        "  ON CONFLICT (catalog_id, table_id) DO UPDATE SET"
        "  record_count = l.record_count + EXCLUDED.record_count,"
        "  file_count = l.file_count + EXCLUDED.file_count,"
        "  file_size_bytes = l.file_size_bytes + EXCLUDED.file_size_bytes,"
        "  snapshot_count = l.snapshot_count + EXCLUDED.snapshot_count,"
        "  changed_snapshot = greatest(l.changed_snapshot, EXCLUDED.changed_snapshot))"
        " SELECT hog_assert(count(*) = cardinality($4::bigint[]),"
        " 'a row-id or byte counter would overflow') FROM t",
        true, NULL, 0, arrays, sizeof arrays / sizeof arrays[0], "table counters", err);
}

/* The files, their statistics and partition values. A file's rows start
 * where its table's allocator stood before this commit (the allocator
 * advanced by row ids, less the table's records) plus the records of the
 * table's files before it; a file whose rows keep their ids starts at
 * their minimum. */
static int queue_appends(struct store_commit_batch *s, struct store_commit_writes *w,
                         struct error *err)
{
    struct pg_array *files[] = {&w->f_rel,   &w->f_tid,    &w->f_path,        &w->f_recs,
                                &w->f_size,  &w->f_footer, &w->f_rows_before, &w->f_table_recs,
                                &w->f_state, &w->f_spec,   &w->f_splits,      &w->f_row_start,
                                &w->f_stats, &w->f_entry};
    struct pg_array *parts[] = {&w->p_file, &w->p_tid, &w->p_key, &w->p_value};
    int rc = queue_rows(
        s, w,
        "INSERT INTO hog_data_file (catalog_id, data_file_id, table_id, begin_snapshot, path,"
        " record_count, file_size_bytes, footer_size, row_id_start, stats_state, spec_id,"
        " split_offsets, explicit_row_ids, column_stats)"
        " SELECT $1, a.first_id + u.rel, u.tid, a.snap0 + u.entry, u.path, u.recs, u.size,"
        " u.footer, coalesce(u.row_start, ts.next_row_id - u.table_recs + u.rel_row), u.state,"
        " u.spec, u.splits::bigint[], u.row_start IS NOT NULL, u.stats"
        " FROM" ALLOCATED ", unnest($4::bigint[], $5::bigint[], $6::text[], $7::bigint[],"
        "  $8::bigint[], $9::bigint[], $10::bigint[], $11::bigint[], $12::text[], $13::bigint[],"
        "  $14::text[], $15::bigint[], $16::bytea[], $17::bigint[]) AS u(rel, tid, path, recs,"
        "  size, footer, rel_row, table_recs, state, spec, splits, row_start, stats, entry)"
        " JOIN hog_table_stats ts ON ts.catalog_id = $1 AND ts.table_id = u.tid",
        true, NULL, 0, files, sizeof files / sizeof files[0], "data files", err);
    if (rc >= 0 && w->nparts)
        rc = queue_rows(s, w,
                        "INSERT INTO hog_file_partition_value (catalog_id, data_file_id,"
                        " table_id, key_index, value)"
                        " SELECT $1, a.first_id + u.rel, u.tid, u.key, u.value FROM" ALLOCATED
                        ", unnest($4::bigint[], $5::bigint[], $6::int[], $7::text[])"
                        " AS u(rel, tid, key, value)",
                        true, NULL, 0, parts, sizeof parts / sizeof parts[0], "partition values",
                        err);
    return rc < 0 ? -1 : 0;
}

/* The superseded vectors end first: one live DV per data file. A data
 * file whose new vector removes it ends at the same snapshot. */
static int queue_deletes(struct store_commit_batch *s, struct store_commit_writes *w,
                         struct error *err)
{
    struct pg_array *ends[] = {&w->ended};
    struct pg_array *rows[] = {&w->d_rel,  &w->d_tid,   &w->d_target, &w->d_target_rel,
                               &w->d_path, &w->d_count, &w->d_size};
    if (w->nended && queue_rows(s, w,
                                "UPDATE hog_delete_file d SET end_snapshot = a.snap0 + 1"
                                " FROM" ALLOCATED " WHERE d.catalog_id = $1"
                                " AND d.delete_file_id = ANY($4::bigint[])"
                                " AND d.end_snapshot IS NULL",
                                true, NULL, 0, ends, 1, "superseded deletion vectors", err) < 0)
        return -1;
    struct pg_array *removed[] = {&w->removed};
    if (w->nremoved && queue_rows(s, w,
                                  "UPDATE hog_data_file f SET end_snapshot = a.snap0 + 1"
                                  " FROM" ALLOCATED " WHERE f.catalog_id = $1"
                                  " AND f.data_file_id = ANY($4::bigint[])"
                                  " AND f.end_snapshot IS NULL",
                                  true, NULL, 0, removed, 1, "removed data files", err) < 0)
        return -1;
    int at = queue_rows(s, w,
                        "INSERT INTO hog_delete_file (catalog_id, delete_file_id, table_id,"
                        " data_file_id, begin_snapshot, path, delete_count, file_size_bytes)"
                        " SELECT $1, a.first_id + u.rel, u.tid,"
                        " coalesce(u.target, a.first_id + u.target_rel), a.snap0 + 1, u.path,"
                        " u.count, u.size FROM" ALLOCATED
                        ", unnest($4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[],"
                        "  $8::text[], $9::bigint[], $10::bigint[])"
                        " AS u(rel, tid, target, target_rel, path, count, size)",
                        true, NULL, 0, rows, sizeof rows / sizeof rows[0], "deletion vectors", err);
    return at < 0 ? -1 : 0;
}

/* Each entry's receipt, for the entries with a key. */
static int queue_receipts(struct store_commit_batch *s, struct store_commit_writes *w,
                          struct error *err)
{
    struct pg_array *receipts[] = {&w->r_key, &w->r_fingerprint, &w->r_entry};
    int at = queue_rows(s, w,
                        "INSERT INTO hog_commit_receipt (catalog_id, idempotency_key, fingerprint,"
                        " snapshot_id, schema_version) SELECT $1, r.key::uuid, r.fingerprint,"
                        " a.snap0 + r.entry, a.version FROM" ALLOCATED
                        ", unnest($4::text[], $5::bytea[], $6::bigint[])"
                        " AS r(key, fingerprint, entry)",
                        true, NULL, 0, receipts, 3, "receipt", err);
    return at < 0 ? -1 : 0;
}

/* Each owner's claims on its entry's paths become registered; its other
 * active claims are released: the writer wrote nothing there (an object
 * there anyway is the orphan sweep's, after its grace). Two statements,
 * each linear: the paths are joined to their claims (a probe per path, or
 * one hash of the catalog's claims, as the planner's statistics choose),
 * and what is still active after that is the rest (a `NOT path = ANY(...)`
 * filter compared every active claim with every path, the array rebuilt
 * per row: minutes, under the lock, for 100,000 of each). */
static int queue_claims(struct store_commit_batch *s, struct store_commit_writes *w,
                        struct error *err)
{
    struct pg_array *paths[] = {&w->f_path, &w->d_path, &w->f_owner, &w->d_owner};
    struct pg_array *owners[] = {&w->owners};
    if (queue_rows(s, w,
                   "UPDATE hog_upload u SET state = 'registered'"
                   " FROM unnest($2::text[] || $3::text[], $4::uuid[] || $5::uuid[])"
                   " AS p(path, owner)"
                   " WHERE u.catalog_id = $1 AND u.path = p.path AND u.owner = p.owner"
                   " AND u.state = 'active'",
                   false, NULL, 0, paths, 4, "upload claims", err) < 0 ||
        queue_rows(s, w,
                   "DELETE FROM hog_upload WHERE catalog_id = $1 AND owner = ANY($2::uuid[])"
                   " AND state = 'active'",
                   false, NULL, 0, owners, 1, "released upload claims", err) < 0)
        return -1;
    return 0;
}

int store_commit_queue_writes(struct store_commit_batch *s, struct store_commit_writes *w,
                              struct store_commit_write_slots *at, struct error *err)
{
    *at = (struct store_commit_write_slots){-1, -1, -1};
    /* The commit validated the statistics (commit_check.c): only memory can
     * fail their encoding. */
    if (w->failed)
        return error_nomem(err);
    if (w->unnamed_table)
        return error_fail(err, ERR_INTERNAL, "a file of a table the commit names no change of");
    if (w->overflow)
        return error_fail(err, ERR_INVALID, "a table's record or byte total would overflow");
    if (w->nentries < 1 || (w->nentries > 1 && (w->ndvs || w->nremoved || w->nended)) ||
        (w->nchecked && w->nchecked != w->nentries))
        return error_fail(err, ERR_INTERNAL, "writes of %zu commits (%zu checked) with deletes",
                          w->nentries, w->nchecked);
    if (w->nchecked && (at->checks = queue_checks(s, w, err)) < 0)
        return -1;
    if ((at->alloc = queue_snapshot(s, w, err)) < 0)
        return -1;
    if (w->ndeltas && (at->row_ids = queue_table_counters(s, w, err)) < 0)
        return -1;
    if (w->nfiles && queue_appends(s, w, err) != 0)
        return -1;
    if (w->ndvs && queue_deletes(s, w, err) != 0)
        return -1;
    if (w->r_key.n && queue_receipts(s, w, err) != 0)
        return -1;
    if (w->owners.n && queue_claims(s, w, err) != 0)
        return -1;
    return 0;
}

void store_commit_allocated(const struct store_commit_batch *s, int at, size_t entries,
                            size_t entry, int64_t *snapshot_id, int64_t *schema_version)
{
    const PGresult *a = s->b.results[at];
    *snapshot_id = db_i64(a, 0, 0) - (int64_t)entries + (int64_t)entry;
    *schema_version = db_i64(a, 0, 1);
}
