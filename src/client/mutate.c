/* Row-level changes: finding the rows, writing the vectors, the commit
 * (mutate.h).
 *
 *  1. The table is read at a snapshot (its definition, uuid and snapshot
 *     id), and the predicate (and an update's assignments) bound to it.
 *  2. The scan plan at that snapshot, with column statistics, page by
 *     page: a file whose partition values or statistics cannot match is
 *     pruned unread.
 *  3. Each other file is fetched and the columns needed are decoded, row
 *     group by row group (a group whose statistics cannot match is
 *     skipped, and of the others only the pages whose page index may
 *     match are decoded); the positions the predicate selects, less those the file's
 *     vector already holds, join that vector (and go to on_rows).
 *  4. Each new vector goes to a Puffin file of its own at an upload claim
 *     of kind delete, so a change that does not commit leaves nothing the
 *     server will not reclaim.
 *  5. One guarded commit: the snapshot read and the tables' uuids, and an
 *     idempotency key. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/append.h"
#include "client/mutate.h"
#include "client/object_source.h"
#include "client/prune.h"
#include "client/tableinfo.h"
#include "lake/puffin.h"
#include "objstore/objstore.h"
#include "parquet/reader.h"
#include "rows/rows_project.h"
#include "rows/rows_schema.h"
#include "util/random.h"

enum { DEFAULT_ATTEMPTS = 5 };

void mut_free(struct mutation *m)
{
    for (size_t i = 0; i < m->nm; i++) {
        json_decref(m->m[i].data_file);
        lake_dv_free(&m->m[i].dv);
    }
    free(m->m);
    free(m->wanted);
    if (m->schema.release)
        m->schema.release(&m->schema);
    lake_table_release(&m->table);
    arena_free(&m->arena);
    memset(m, 0, sizeof *m);
}

/* The Table object at `at` (-1: the head), with its uuid and snapshot. */
static hl_status read_table(struct mutation *m, int64_t at, struct hl_error *err)
{
    struct buf path = BUF_INIT;
    bool has_query = false;
    hl_status st = client_table_path(&path, m->t) == 0 &&
                           client_query_at(&path, &(struct hl_at){at, NULL}, &has_query) == 0
                       ? HL_OK
                       : client_nomem(err);
    json_t *info = NULL;
    if (st == HL_OK)
        st = client_json(m->t->ns->catalog->client, "GET", path.data, NULL, &info, err);
    buf_free(&path);
    const char *uuid = json_string_value(json_object_get(info, "table_uuid"));
    if (st == HL_OK && (!uuid || strlen(uuid) != 36 ||
                        !client_json_int(info, "read_snapshot_id", &m->read_snapshot)))
        st = client_fail(err, HL_ERR_PROTOCOL, "protocol",
                         "the Table answer lacks its uuid or read_snapshot_id");
    if (st == HL_OK) {
        memcpy(m->uuid, uuid, 37);
        st = client_table_from_info(info, &m->table, err);
    }
    json_decref(info);
    return st;
}

/* An error of a clause the caller wrote. */
static hl_status clause_error(struct hl_error *err, const struct error *e, const char *code)
{
    return e->code == ERR_NOMEM ? client_nomem(err)
                                : client_fail(err, HL_ERR_INVALID_ARGUMENT, code, "%s", e->msg);
}

/* An update reads every column, and each row's id: _hog_row_id joins the
 * table, last, after the clauses were bound without it. */
static hl_status add_row_id_column(struct mutation *m, struct hl_error *err)
{
    struct error e;
    if (lake_table_load_column(&m->table, LAKE_ROW_ID_FIELD_ID, 0, LAKE_ROW_ID_COLUMN, LT_LONG, 0,
                               0, false, (int)m->table.root.nchildren, NULL, &e) != 0)
        return e.code == ERR_NOMEM ? client_nomem(err)
                                   : client_fail(err, HL_ERR_PROTOCOL, "protocol",
                                                 "the table has a column named like the row "
                                                 "ids': %s",
                                                 e.msg);
    return HL_OK;
}

hl_status mut_open(struct mutation *m, hl_table *t, int64_t at, const char *predicate,
                   const char *set_clause, struct mut_stats *stats, struct hl_error *err)
{
    memset(m, 0, sizeof *m);
    m->t = t;
    m->stats = stats;
    m->read_snapshot = -1;
    arena_init(&m->arena, 0);
    lake_table_init(&m->table, &m->arena);
    hl_status st = read_table(m, at, err);
    stats->read_snapshot = m->read_snapshot;
    if (st != HL_OK)
        return st;
    const struct lake_column *v = client_table_variant(&m->table);
    if (v)
        return client_fail(err, HL_ERR_NOT_IMPLEMENTED, "not_implemented",
                           "column '%s' is a variant, which this client cannot read yet", v->name);
    struct error e;
    if (expr_compile_predicate(&m->arena, &m->table, predicate, strlen(predicate), &m->pred, &e) !=
        0)
        return clause_error(err, &e, "invalid_predicate");
    if (set_clause && expr_compile_assignments(&m->arena, &m->table, set_clause, strlen(set_clause),
                                               &m->update, &e) != 0)
        return clause_error(err, &e, "invalid_set");
    if (set_clause && (st = add_row_id_column(m, err)) != HL_OK)
        return st;
    size_t ncols = m->table.root.nchildren;
    m->wanted = calloc(ncols ? ncols : 1, sizeof *m->wanted);
    if (!m->wanted || rows_table_arrow_schema(&m->table, &m->schema) != 0)
        return client_nomem(err);
    const struct expr_columns *cols = expr_pred_columns(m->pred);
    for (size_t i = 0; i < ncols; i++)
        m->wanted[i] = set_clause != NULL;
    for (size_t i = 0; i < cols->ntop; i++)
        m->wanted[cols->top[i]] = true;
    return client_store(t->ns->catalog->client, &m->store, err);
}

/* Marks in sel the rows of the batch (read as `at` says) the predicate
 * selects that *old does not hold, and adds their positions to *dv;
 * *added counts them. */
static hl_status select_rows(struct mutation *m, const struct ArrowArray *batch,
                             const struct client_rows_at *at, const struct lake_dv *old,
                             uint8_t *sel, struct lake_dv *dv, int64_t *added, struct hl_error *err)
{
    uint64_t *picked = malloc(((size_t)batch->length + 1) * sizeof *picked);
    struct error e;
    hl_status st = picked ? HL_OK : client_nomem(err);
    int64_t nsel = 0;
    if (st == HL_OK && expr_pred_eval(m->pred, &m->schema, batch, sel, &nsel, &e) != 0)
        st = e.code == ERR_NOMEM
                 ? client_nomem(err)
                 : client_fail(err, HL_ERR_IO, "io", "evaluating the predicate: %s", e.msg);
    size_t n = 0, i = 0;
    for (size_t k = 0; st == HL_OK && nsel > 0 && k < at->n; k++) {
        for (int64_t row = at->ranges[k].begin; row < at->ranges[k].end; row++, i++) {
            uint64_t pos = at->first + (uint64_t)row;
            if (sel[i] && lake_dv_contains(old, pos))
                sel[i] = 0;
            else if (sel[i])
                picked[n++] = pos;
        }
    }
    if (st == HL_OK && n > 0 && lake_dv_add(dv, picked, n, &e) != 0)
        st = client_nomem(err);
    *added = (int64_t)n;
    free(picked);
    return st;
}

/* Reads the rows of row group g that may match into batch: the pages the
 * page index leaves, or the whole group; at->ranges (in scratch) say
 * which, at->n 0 when none may match (batch left released). */
static int read_group(struct mutation *m, struct pq_reader *r, size_t g,
                      struct rows_projection *proj, struct arena *scratch, struct ArrowArray *batch,
                      struct client_rows_at *at, struct error *e)
{
    batch->release = NULL;
    struct pq_row_range *ranges = NULL;
    bool by_pages = false;
    if (client_row_group_ranges(&m->table, m->pred, r, g, scratch, &ranges, &at->n, &by_pages) != 0)
        return error_nomem(e);
    at->ranges = ranges;
    if (at->n == 0)
        return 0;
    struct pq_range_read_stats read = {0};
    if ((by_pages ? rows_project_read_ranges(r, g, ranges, at->n, proj, &m->table, batch, &read, e)
                  : rows_project_read(r, g, proj, &m->table, batch, e)) != 0)
        return -1;
    m->stats->pages_scanned += (int64_t)read.pages_read;
    m->stats->pages_pruned += (int64_t)read.pages_skipped;
    return 0;
}

/* Row group g of the open file (its first row at file position first):
 * its selected live rows join dv (and go to on_rows). */
static hl_status scan_group(struct mutation *m, const json_t *df, struct pq_reader *r, size_t g,
                            struct rows_projection *proj, uint64_t first, struct arena *scratch,
                            const struct lake_dv *old, struct lake_dv *dv, int64_t *added,
                            struct hl_error *err)
{
    struct ArrowArray batch;
    struct client_rows_at at = {.first = first};
    struct error e;
    if (read_group(m, r, g, proj, scratch, &batch, &at, &e) != 0)
        return e.code == ERR_NOMEM
                   ? client_nomem(err)
                   : client_fail(err, HL_ERR_IO, "io", "%s: %s",
                                 json_string_value(json_object_get(df, "path")), e.msg);
    if (at.n == 0) {
        m->stats->row_groups_pruned++;
        return HL_OK;
    }
    m->stats->row_groups_scanned++;
    uint8_t *sel = malloc((size_t)batch.length + 1);
    int64_t n = 0;
    hl_status st = sel ? select_rows(m, &batch, &at, old, sel, dv, &n, err) : client_nomem(err);
    if (st == HL_OK && n > 0 && m->on_rows)
        st = m->on_rows(m, df, &batch, sel, &at, err);
    *added += n;
    free(sel);
    if (batch.release)
        batch.release(&batch);
    return st;
}

/* Adds a file and its grown vector (taken) to m->m. */
static hl_status add_matched(struct mutation *m, const json_t *df, struct lake_dv *dv,
                             struct hl_error *err)
{
    if (m->nm == m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 16;
        struct mut_matched *grown = realloc(m->m, cap * sizeof *grown);
        if (!grown)
            return client_nomem(err);
        m->m = grown;
        m->cap = cap;
    }
    m->m[m->nm++] = (struct mut_matched){.data_file = json_incref((json_t *)df), .dv = *dv};
    lake_dv_init(dv);
    return HL_OK;
}

/* Reads one file's needed columns and finds the rows it loses; a file
 * with some joins m->m. */
static hl_status scan_file(struct mutation *m, const json_t *scan_file, struct arena *scratch,
                           struct hl_error *err)
{
    const json_t *df = json_object_get(scan_file, "data_file");
    const char *path = json_string_value(json_object_get(df, "path"));
    int64_t size = -1, rows = -1;
    if (!path || !client_json_int(df, "file_size_bytes", &size) ||
        !client_json_int(df, "record_count", &rows) || size <= 0 || rows < 0)
        return client_fail(err, HL_ERR_PROTOCOL, "protocol",
                           "the scan plan has a file without path, size or record_count");
    struct lake_dv old, dv;
    lake_dv_init(&old);
    lake_dv_init(&dv);
    const json_t *old_json = json_object_get(scan_file, "delete_file");
    hl_status st = HL_OK;
    if (old_json && !json_is_null(old_json))
        st = client_dv_load(m->store, old_json, path, (uint64_t)rows, &old, err);
    /* Ranged reads: the footer, the page indexes and the pages decoded. */
    struct client_object_source os = {.chunk = BUF_INIT};
    struct pq_source src;
    if (st == HL_OK &&
        client_object_source_open(&os, &src, m->store, path, (uint64_t)size, err) != 0) {
        client_error_prefix(err, "fetching %s", path);
        st = err->status;
    }
    struct pq_reader *r = NULL;
    struct rows_projection proj = {0};
    struct error e;
    if (st == HL_OK) {
        if (pq_reader_open(&src, &r, &e) != 0 ||
            rows_project_open_some(r, &m->table, m->wanted, &proj, &e) != 0)
            st = e.code == ERR_NOMEM ? client_nomem(err)
                                     : client_fail(err, HL_ERR_IO, "io", "%s: %s", path, e.msg);
    }
    m->stats->files_scanned += st == HL_OK;
    const struct pq_file_meta *meta = r ? pq_reader_meta(r) : NULL;
    uint64_t first = 0;
    int64_t added = 0;
    for (size_t g = 0; st == HL_OK && g < meta->nrow_groups; g++) {
        st = scan_group(m, df, r, g, &proj, first, scratch, &old, &dv, &added, err);
        first += (uint64_t)meta->row_groups[g].num_rows;
    }
    rows_project_free(&proj);
    pq_reader_free(r);
    client_object_source_free(&os);
    /* The file's vector: what it held, and the new positions. */
    if (st == HL_OK && added > 0 && lake_dv_add(&dv, old.pos, old.n, &e) != 0)
        st = client_nomem(err);
    if (st == HL_OK && added > 0 && (st = add_matched(m, df, &dv, err)) == HL_OK) {
        m->stats->rows += added;
        m->stats->files_affected++;
    }
    lake_dv_free(&old);
    lake_dv_free(&dv);
    return st;
}

hl_status mut_find(struct mutation *m, struct hl_error *err)
{
    struct hl_at at = {m->read_snapshot, NULL};
    char *token = NULL;
    hl_status st = HL_OK;
    do {
        json_t *files = NULL;
        char *next = NULL;
        st = client_plan_page(m->t, &at, true, token, &files, &next, err);
        free(token);
        token = next;
        size_t i;
        const json_t *sf;
        json_array_foreach (files, i, sf) {
            if (st != HL_OK)
                break;
            struct arena scratch;
            arena_init(&scratch, 0);
            if (!client_file_may_match(&m->table, m->pred, json_object_get(sf, "data_file"),
                                       &scratch))
                m->stats->files_pruned++;
            else
                st = scan_file(m, sf, &scratch, err);
            arena_free(&scratch);
        }
        json_decref(files);
    } while (st == HL_OK && token);
    free(token);
    return st;
}

hl_status mut_write_vectors(struct mutation *m, struct claims *claims,
                            struct hl_append_result *uploads, struct hl_error *err)
{
    hl_status st = HL_OK;
    for (size_t i = 0; st == HL_OK && i < m->nm; i++) {
        struct mut_matched *mm = &m->m[i];
        struct lake_puffin_dv_in in = {json_string_value(json_object_get(mm->data_file, "path")),
                                       &mm->dv};
        struct lake_puffin_blob_pos pos;
        struct buf file = BUF_INIT;
        struct error e;
        if (lake_puffin_write_dvs(&in, 1, "hoglake", &file, &pos, &e) != 0)
            st = client_nomem(err);
        if (st == HL_OK)
            st = claims_take(claims, mm->uri, sizeof mm->uri, err);
        if (st == HL_OK && objstore_put(m->store, mm->uri, file.data, file.len, 0, err) != 0) {
            client_error_prefix(err, "uploading %s", mm->uri);
            st = err->status;
        }
        if (st == HL_OK && client_result_uploaded(uploads, mm->uri) != 0)
            st = client_nomem(err);
        mm->size = file.len;
        if (st == HL_OK)
            m->stats->bytes_written += (int64_t)file.len;
        buf_free(&file);
    }
    return st;
}

hl_status mut_claims(struct claims *c, hl_table *t, enum claims_kind kind, size_t first_batch,
                     size_t total, const char *owner, struct hl_error *err)
{
    struct buf prefix = BUF_INIT;
    if (client_data_prefix(&prefix, t, NULL) != 0) {
        buf_free(&prefix);
        memset(c, 0, sizeof *c);
        return client_nomem(err);
    }
    hl_status st = claims_init(c, t->ns->catalog, kind, prefix.data, first_batch, total, err);
    buf_free(&prefix);
    if (st == HL_OK && owner)
        memcpy(c->owner, owner, sizeof c->owner);
    return st;
}

json_t *mut_group(const struct mutation *m, json_t *files)
{
    return files ? json_pack("{s:s,s:s,s:s,s:o}", "namespace", m->t->ns->name, "table", m->t->name,
                             "expected_table_uuid", m->uuid, "files", files)
                 : NULL;
}

json_t *mut_deletes_group(const struct mutation *m)
{
    json_t *files = json_array();
    for (size_t i = 0; files && i < m->nm; i++) {
        int64_t rows = -1;
        client_json_int(m->m[i].data_file, "record_count", &rows);
        /* A file left with no live row leaves the table (its vector stays
         * registered, for the changefeed): docs/commits.md. */
        json_t *f =
            json_pack("{s:O,s:s,s:I,s:I,s:b}", "data_file_id",
                      json_object_get(m->m[i].data_file, "data_file_id"), "path", m->m[i].uri,
                      "delete_count", (json_int_t)m->m[i].dv.n, "file_size_bytes",
                      (json_int_t)m->m[i].size, "removes_file", (int64_t)m->m[i].dv.n == rows);
        if (!f || json_array_append_new(files, f) != 0) {
            json_decref(files);
            return NULL;
        }
    }
    return mut_group(m, files);
}

/* The commit's body; NULL when out of memory. */
static json_t *commit_body(const char *key, int64_t read_snapshot, const char *owner,
                           json_t *appends, json_t *deletes, const char *author,
                           const char *message)
{
    json_t *body = json_pack("{s:s,s:I,s:s}", "idempotency_key", key, "read_snapshot",
                             (json_int_t)read_snapshot, "upload_owner", owner);
    if (body && ((appends && json_array_size(appends) > 0 &&
                  json_object_set(body, "appends", appends) != 0) ||
                 (deletes && json_array_size(deletes) > 0 &&
                  json_object_set(body, "deletes", deletes) != 0) ||
                 (author && json_object_set_new(body, "author", json_string(author)) != 0) ||
                 (message && json_object_set_new(body, "message", json_string(message)) != 0))) {
        json_decref(body);
        return NULL;
    }
    return body;
}

hl_status mut_commit(hl_catalog *c, const char *endpoint, const char *key, int64_t read_snapshot,
                     const char *owner, json_t *appends, json_t *deletes, const char *author,
                     const char *message, int64_t *snapshot_id, bool *sent, struct hl_error *err)
{
    *sent = false;
    json_t *body = commit_body(key, read_snapshot, owner, appends, deletes, author, message);
    struct buf path = BUF_INIT;
    hl_status st = body && client_catalog_path(&path, c) == 0 && buf_puts(&path, endpoint) == 0
                       ? HL_OK
                       : client_nomem(err);
    json_t *ans = NULL;
    if (st == HL_OK) {
        *sent = true;
        st = client_json(c->client, "POST", path.data, body, &ans, err);
    }
    if (st == HL_OK && !client_json_int(ans, "snapshot_id", snapshot_id))
        st = client_fail(err, HL_ERR_PROTOCOL, "protocol", "the commit answer has no snapshot_id");
    json_decref(ans);
    json_decref(body);
    buf_free(&path);
    return st;
}

void mut_discard(hl_catalog *c, const char *owner, struct hl_append_result *uploads,
                 bool delete_objects)
{
    struct claims claims;
    struct hl_error e;
    if (claims_init(&claims, c, CLAIMS_DATA, "", 1, 0, &e) != HL_OK) {
        claims_free(&claims);
        return;
    }
    memcpy(claims.owner, owner, sizeof claims.owner);
    /* Any claim of the owner may be out there: abandon them all. */
    claims.requested = true;
    claims_discard(&claims, uploads, delete_objects);
    claims_free(&claims);
}

/* One attempt of mut_run: stage, then commit what it wrote. */
static hl_status run_once(hl_table *t, const char *set_clause, const char *predicate,
                          const struct hl_delete_options *o, struct mut_stats *stats,
                          int64_t *snapshot_id, struct hl_error *err)
{
    char owner[37], key[37];
    if (random_uuid4(owner) != 0 || random_uuid4(key) != 0)
        return client_fail(err, HL_ERR_INTERNAL, "internal", "no randomness for a commit key");
    bool dry_run = o && o->dry_run;
    struct hl_append_result *uploads = client_append_result_new();
    json_t *appends = json_array(), *deletes = json_array(), *a = NULL, *d = NULL;
    hl_status st = uploads && appends && deletes ? HL_OK : client_nomem(err);
    if (st == HL_OK && set_clause)
        st = client_update_stage(t, -1, set_clause, predicate, owner, dry_run, uploads, stats, &a,
                                 &d, err);
    else if (st == HL_OK)
        st = client_delete_stage(t, -1, predicate, owner, dry_run, uploads, stats, &d, err);
    bool staged = d != NULL;
    if ((a && json_array_append_new(appends, a) != 0) ||
        (d && json_array_append_new(deletes, d) != 0))
        st = client_nomem(err);
    bool sent = false;
    if (st == HL_OK && staged)
        st = mut_commit(t->ns->catalog,
                        set_clause ? "/commit/mutations/prepared" : "/commit/deletes/prepared", key,
                        stats->read_snapshot, owner, appends, deletes, o ? o->author : NULL,
                        o ? o->message : NULL, snapshot_id, &sent, err);
    if (st != HL_OK && staged)
        mut_discard(t->ns->catalog, owner, uploads, !sent || claims_refused(st, err));
    json_decref(appends);
    json_decref(deletes);
    hl_append_result_free(uploads);
    return st;
}

hl_status mut_run(hl_table *t, const char *set_clause, const char *predicate,
                  const struct hl_delete_options *o, struct mut_stats *stats, int64_t *snapshot_id,
                  int *attempts, struct hl_error *caller_err)
{
    /* The attempts read the error's code: it is filled even for a caller
     * that passed none. */
    struct hl_error own;
    struct hl_error *err = caller_err ? caller_err : &own;
    int max = o && o->max_attempts > 0 ? o->max_attempts : DEFAULT_ATTEMPTS;
    hl_status st = HL_OK;
    for (int attempt = 1; attempt <= max; attempt++) {
        memset(stats, 0, sizeof *stats);
        stats->read_snapshot = -1;
        *snapshot_id = -1;
        *attempts = attempt;
        st = run_once(t, set_clause, predicate, o, stats, snapshot_id, err);
        if (st != HL_OK)
            *snapshot_id = -1;
        /* Another commit moved the table since the read: read again. */
        if (!(st == HL_ERR_CONFLICT && strcmp(err->code, "commit_conflict") == 0))
            break;
    }
    return st;
}
