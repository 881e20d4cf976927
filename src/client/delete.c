/* Row-level deletes (hl_table_delete): the rows a predicate selects at the
 * table's head become deletion vectors, committed in one snapshot.
 *
 *  1. The table is read at its head (its definition, uuid and snapshot),
 *     and the predicate bound to it (src/expr).
 *  2. The scan plan at that snapshot, with column statistics, page by
 *     page: a file whose partition values or statistics cannot match is
 *     pruned unread.
 *  3. Each other file is fetched and only the columns the predicate reads
 *     are decoded, row group by row group (a group whose statistics cannot
 *     match is skipped); the positions it selects, less those the file's
 *     vector already holds, join that vector.
 *  4. Each new vector goes to a Puffin file of its own (the commit takes
 *     one vector per delete-file path), at an upload claim of kind delete,
 *     so a delete that does not commit leaves nothing the server will not
 *     reclaim.
 *  5. POST /commit/deletes/prepared: guarded by the snapshot read and the
 *     table's uuid, idempotent by its key. A concurrent insert or delete on
 *     the table is a 409 commit_conflict: the vectors are discarded and the
 *     delete runs again from step 1 (options.max_attempts in all); a
 *     compaction never conflicts.
 * A predicate that matches no live row commits nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/append.h"
#include "client/claims.h"
#include "client/internal.h"
#include "client/prune.h"
#include "client/tableinfo.h"
#include "expr/expr.h"
#include "lake/dv.h"
#include "lake/puffin.h"
#include "objstore/objstore.h"
#include "parquet/reader.h"
#include "rows/rows_project.h"
#include "rows/rows_schema.h"
#include "util/arena.h"
#include "util/random.h"

enum { DEFAULT_ATTEMPTS = 5 };

/* The commit endpoint: idempotent by its key, guarded by read_snapshot
 * (any insert or delete on the table since the read is a 409
 * commit_conflict: the rows found may be stale) and expected_table_uuid. */
#define DELETE_COMMIT_PATH "/commit/deletes/prepared"

/* A data file the delete takes rows from. */
struct matched {
    json_t *data_file; /* its DataFile (a reference) */
    struct lake_dv dv; /* its deleted positions: the vector's before, and the new */
    char uri[2048];    /* its new vector's Puffin file, once written */
    uint64_t size;
};

/* One attempt's state. */
struct del {
    hl_table *t;
    const struct hl_delete_options *o;
    struct hl_delete_result *res;
    struct arena arena;
    struct lake_table table;
    struct ArrowSchema schema;
    struct expr_pred *pred;
    bool *wanted; /* the top-level columns the predicate reads */
    int64_t read_snapshot;
    char uuid[37];
    struct objstore *store;
    struct matched *m;
    size_t nm, cap;
};

void hl_delete_options_init(struct hl_delete_options *o)
{
    memset(o, 0, sizeof *o);
}

static void del_free(struct del *d)
{
    for (size_t i = 0; i < d->nm; i++) {
        json_decref(d->m[i].data_file);
        lake_dv_free(&d->m[i].dv);
    }
    free(d->m);
    free(d->wanted);
    if (d->schema.release)
        d->schema.release(&d->schema);
    lake_table_release(&d->table);
    arena_free(&d->arena);
}

/* The table at its head, and the predicate bound to it. */
static hl_status del_open(struct del *d, const char *predicate, struct hl_error *err)
{
    arena_init(&d->arena, 0);
    lake_table_init(&d->table, &d->arena);
    struct buf path = BUF_INIT;
    json_t *info = NULL;
    hl_status st = client_table_path(&path, d->t) == 0 ? HL_OK : client_nomem(err);
    if (st == HL_OK)
        st = client_json(d->t->ns->catalog->client, "GET", path.data, NULL, &info, err);
    buf_free(&path);
    const char *uuid = json_string_value(json_object_get(info, "table_uuid"));
    if (st == HL_OK && (!uuid || strlen(uuid) != 36 ||
                        !client_json_int(info, "read_snapshot_id", &d->read_snapshot)))
        st = client_fail(err, HL_ERR_PROTOCOL, "protocol",
                         "the Table answer lacks its uuid or read_snapshot_id");
    if (st == HL_OK) {
        memcpy(d->uuid, uuid, 37);
        st = client_table_from_info(info, &d->table, err);
    }
    json_decref(info);
    if (st != HL_OK)
        return st;
    const struct lake_column *v = client_table_variant(&d->table);
    if (v)
        return client_fail(err, HL_ERR_NOT_IMPLEMENTED, "not_implemented",
                           "column '%s' is a variant, which this client cannot read yet", v->name);
    struct error e;
    if (expr_compile_predicate(&d->arena, &d->table, predicate, strlen(predicate), &d->pred, &e) !=
        0)
        return e.code == ERR_NOMEM
                   ? client_nomem(err)
                   : client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_predicate", "%s", e.msg);
    size_t ncols = d->table.root.nchildren;
    d->wanted = calloc(ncols ? ncols : 1, sizeof *d->wanted);
    if (!d->wanted || rows_table_arrow_schema(&d->table, &d->schema) != 0)
        return client_nomem(err);
    const struct expr_columns *cols = expr_pred_columns(d->pred);
    for (size_t i = 0; i < cols->ntop; i++)
        d->wanted[cols->top[i]] = true;
    return client_store(d->t->ns->catalog->client, &d->store, err);
}

/* Adds to *dv the positions of the batch (its row 0 at file position
 * first) the predicate selects that *old does not hold; counts them. */
static hl_status select_rows(struct del *d, const struct ArrowArray *batch, uint64_t first,
                             const struct lake_dv *old, struct lake_dv *dv, int64_t *added,
                             struct hl_error *err)
{
    uint8_t *sel = malloc((size_t)batch->length + 1);
    uint64_t *pos = malloc(((size_t)batch->length + 1) * sizeof *pos);
    struct error e;
    hl_status st = sel && pos ? HL_OK : client_nomem(err);
    int64_t nsel = 0;
    if (st == HL_OK && expr_pred_eval(d->pred, &d->schema, batch, sel, &nsel, &e) != 0)
        st = e.code == ERR_NOMEM
                 ? client_nomem(err)
                 : client_fail(err, HL_ERR_IO, "io", "evaluating the predicate: %s", e.msg);
    size_t n = 0;
    for (int64_t i = 0; st == HL_OK && nsel > 0 && i < batch->length; i++)
        if (sel[i] && !lake_dv_contains(old, first + (uint64_t)i))
            pos[n++] = first + (uint64_t)i;
    if (st == HL_OK && n > 0 && lake_dv_add(dv, pos, n, &e) != 0)
        st = client_nomem(err);
    *added += (int64_t)n;
    free(sel);
    free(pos);
    return st;
}

/* Reads one file's needed columns and finds the rows to delete; a file
 * with some joins d->m. */
static hl_status scan_file(struct del *d, const json_t *scan_file, struct arena *scratch,
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
        st = client_dv_load(d->store, old_json, path, (uint64_t)rows, &old, err);
    struct buf data = BUF_INIT;
    if (st == HL_OK && objstore_get_sized(d->store, path, (uint64_t)size, &data, err) != 0) {
        client_error_prefix(err, "fetching %s", path);
        st = err->status;
    }
    struct pq_reader *r = NULL;
    struct rows_projection proj = {0};
    struct error e;
    if (st == HL_OK) {
        struct pq_source src;
        pq_source_memory(&src, data.data, data.len);
        if (pq_reader_open(&src, &r, &e) != 0 ||
            rows_project_open_some(r, &d->table, d->wanted, &proj, &e) != 0)
            st = e.code == ERR_NOMEM ? client_nomem(err)
                                     : client_fail(err, HL_ERR_IO, "io", "%s: %s", path, e.msg);
    }
    d->res->files_scanned += st == HL_OK;
    const struct pq_file_meta *meta = r ? pq_reader_meta(r) : NULL;
    uint64_t first = 0;
    int64_t added = 0;
    for (size_t g = 0; st == HL_OK && g < meta->nrow_groups; g++) {
        int64_t group_rows = meta->row_groups[g].num_rows;
        if (!client_row_group_may_match(&d->table, d->pred, r, g, scratch)) {
            d->res->row_groups_pruned++;
            first += (uint64_t)group_rows;
            continue;
        }
        struct ArrowArray batch;
        if (rows_project_read(r, g, &proj, &d->table, &batch, &e) != 0) {
            st = e.code == ERR_NOMEM ? client_nomem(err)
                                     : client_fail(err, HL_ERR_IO, "io", "%s: %s", path, e.msg);
            break;
        }
        d->res->row_groups_scanned++;
        st = select_rows(d, &batch, first, &old, &dv, &added, err);
        first += (uint64_t)batch.length;
        batch.release(&batch);
    }
    rows_project_free(&proj);
    pq_reader_free(r);
    buf_free(&data);
    if (st == HL_OK && added > 0) {
        /* The file's vector: what it held, and the new positions. */
        if (lake_dv_add(&dv, old.pos, old.n, &e) != 0)
            st = client_nomem(err);
        if (st == HL_OK && d->nm == d->cap) {
            size_t cap = d->cap ? 2 * d->cap : 16;
            struct matched *m = realloc(d->m, cap * sizeof *m);
            if (!m)
                st = client_nomem(err);
            else
                d->m = m, d->cap = cap;
        }
        if (st == HL_OK) {
            d->m[d->nm++] = (struct matched){.data_file = json_incref((json_t *)df), .dv = dv};
            lake_dv_init(&dv);
            d->res->rows_deleted += added;
        }
    }
    lake_dv_free(&old);
    lake_dv_free(&dv);
    return st;
}

/* Steps 2 and 3: every page of the plan at the snapshot read. */
static hl_status find_rows(struct del *d, struct hl_error *err)
{
    struct hl_at at = {d->read_snapshot, NULL};
    char *token = NULL;
    hl_status st = HL_OK;
    do {
        json_t *files = NULL;
        char *next = NULL;
        st = client_plan_page(d->t, &at, true, token, &files, &next, err);
        free(token);
        token = next;
        size_t i;
        const json_t *sf;
        json_array_foreach (files, i, sf) {
            if (st != HL_OK)
                break;
            struct arena scratch;
            arena_init(&scratch, 0);
            if (!client_file_may_match(&d->table, d->pred, json_object_get(sf, "data_file"),
                                       &scratch))
                d->res->files_pruned++;
            else
                st = scan_file(d, sf, &scratch, err);
            arena_free(&scratch);
        }
        json_decref(files);
    } while (st == HL_OK && token);
    free(token);
    return st;
}

/* Step 4: a Puffin file of each new vector, at a claimed path (the
 * server takes one vector per delete-file path), recorded in uploads. */
static hl_status write_vectors(struct del *d, struct claims *claims,
                               struct hl_append_result *uploads, struct hl_error *err)
{
    hl_status st = HL_OK;
    for (size_t i = 0; st == HL_OK && i < d->nm; i++) {
        struct matched *m = &d->m[i];
        struct lake_puffin_dv_in in = {json_string_value(json_object_get(m->data_file, "path")),
                                       &m->dv};
        struct lake_puffin_blob_pos pos;
        struct buf file = BUF_INIT;
        struct error e;
        if (lake_puffin_write_dvs(&in, 1, "hoglake", &file, &pos, &e) != 0)
            st = client_nomem(err);
        if (st == HL_OK)
            st = claims_take(claims, m->uri, sizeof m->uri, err);
        if (st == HL_OK && objstore_put(d->store, m->uri, file.data, file.len, 0, err) != 0) {
            client_error_prefix(err, "uploading %s", m->uri);
            st = err->status;
        }
        if (st == HL_OK && client_result_uploaded(uploads, m->uri) != 0)
            st = client_nomem(err);
        m->size = file.len;
        d->res->bytes_written += (int64_t)file.len;
        buf_free(&file);
    }
    return st;
}

/* The commit body: one delete group, a vector per affected file. */
static json_t *commit_body(struct del *d, const struct claims *claims, const char *key)
{
    json_t *files = json_array();
    for (size_t i = 0; files && i < d->nm; i++) {
        json_t *f = json_pack("{s:O,s:s,s:I,s:I}", "data_file_id",
                              json_object_get(d->m[i].data_file, "data_file_id"), "path",
                              d->m[i].uri, "delete_count", (json_int_t)d->m[i].dv.n,
                              "file_size_bytes", (json_int_t)d->m[i].size);
        if (!f || json_array_append_new(files, f) != 0) {
            json_decref(files);
            return NULL;
        }
    }
    json_t *body = files ? json_pack("{s:s,s:I,s:[{s:s,s:s,s:s,s:o}]}", "idempotency_key", key,
                                     "read_snapshot", (json_int_t)d->read_snapshot, "deletes",
                                     "namespace", d->t->ns->name, "table", d->t->name,
                                     "expected_table_uuid", d->uuid, "files", files)
                         : NULL;
    const struct hl_delete_options *o = d->o;
    if (body &&
        (claims_name_owner(claims, body) != 0 ||
         (o && o->author && json_object_set_new(body, "author", json_string(o->author))) ||
         (o && o->message && json_object_set_new(body, "message", json_string(o->message))))) {
        json_decref(body);
        return NULL;
    }
    return body;
}

/* Steps 4 and 5. */
static hl_status commit_vectors(struct del *d, struct hl_error *err)
{
    struct buf prefix = BUF_INIT;
    if (client_data_prefix(&prefix, d->t, NULL) != 0) {
        buf_free(&prefix);
        return client_nomem(err);
    }
    struct claims claims;
    hl_status st =
        claims_init(&claims, d->t->ns->catalog, CLAIMS_DELETES, prefix.data, d->nm, d->nm, err);
    buf_free(&prefix);
    struct hl_append_result *uploads = client_append_result_new();
    char key[37];
    if (st == HL_OK && !uploads)
        st = client_nomem(err);
    if (st == HL_OK)
        st = write_vectors(d, &claims, uploads, err);
    if (st == HL_OK && random_uuid4(key) != 0)
        st = client_fail(err, HL_ERR_INTERNAL, "internal", "no randomness for a commit key");
    json_t *body = st == HL_OK ? commit_body(d, &claims, key) : NULL;
    if (st == HL_OK && !body)
        st = client_nomem(err);
    bool sent = false;
    struct buf path = BUF_INIT;
    if (st == HL_OK && (client_catalog_path(&path, d->t->ns->catalog) != 0 ||
                        buf_puts(&path, DELETE_COMMIT_PATH) != 0))
        st = client_nomem(err);
    json_t *ans = NULL;
    if (st == HL_OK) {
        sent = true;
        st = client_json(d->t->ns->catalog->client, "POST", path.data, body, &ans, err);
    }
    if (st == HL_OK)
        client_json_int(ans, "snapshot_id", &d->res->snapshot_id);
    else if (uploads)
        claims_discard(&claims, uploads, !sent || claims_refused(st, err));
    json_decref(ans);
    json_decref(body);
    buf_free(&path);
    hl_append_result_free(uploads);
    claims_free(&claims);
    return st;
}

hl_status hl_table_delete(hl_table *t, const char *predicate, const struct hl_delete_options *o,
                          struct hl_delete_result *res, struct hl_error *caller_err)
{
    struct hl_delete_result scratch;
    if (!res)
        res = &scratch;
    /* The attempts read the error's code: it is filled even for a caller
     * that passed none. */
    struct hl_error own;
    struct hl_error *err = caller_err ? caller_err : &own;
    if (!predicate)
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                           "hl_table_delete needs a predicate (\"true\" deletes every row)");
    int attempts = o && o->max_attempts > 0 ? o->max_attempts : DEFAULT_ATTEMPTS;
    hl_status st = HL_OK;
    for (int attempt = 1; attempt <= attempts; attempt++) {
        memset(res, 0, sizeof *res);
        res->snapshot_id = -1;
        res->attempts = attempt;
        struct del d = {.t = t, .o = o, .res = res};
        st = del_open(&d, predicate, err);
        res->read_snapshot = d.read_snapshot;
        if (st == HL_OK)
            st = find_rows(&d, err);
        res->files_affected = (int64_t)d.nm;
        if (st == HL_OK && d.nm > 0 && !(o && o->dry_run))
            st = commit_vectors(&d, err);
        del_free(&d);
        /* Another commit moved the table since the read: read again. */
        bool again = st == HL_ERR_CONFLICT && strcmp(err->code, "commit_conflict") == 0;
        if (!again)
            break;
    }
    return st;
}
