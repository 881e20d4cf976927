/* Row-level changes: reading the table, writing the vectors, the commit
 * (mutate.h).
 *
 *  1. The table is read at a snapshot (its definition, uuid and snapshot
 *     id), and the predicate (and an update's assignments) bound to it.
 *  2. The rows are found (mutate_find.c): files and row groups pruned,
 *     the others read, the positions selected joining each file's vector
 *     (and going to on_rows).
 *  3. Each new vector goes to a Puffin file of its own at an upload claim
 *     of kind delete, so a change that does not commit leaves nothing the
 *     server will not reclaim.
 *  4. One guarded commit: the snapshot read and the tables' uuids, and an
 *     idempotency key. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/append.h"
#include "client/mutate.h"
#include "client/tableinfo.h"
#include "lake/puffin.h"
#include "objstore/objstore.h"
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
