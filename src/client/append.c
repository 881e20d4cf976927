/* The writer path: Arrow streams cast to the table's columns, encoded to
 * Parquet and streamed to storage (fanout.c: one file per partition tuple),
 * and registered in one commit that carries the footer statistics. Prepared
 * appends stop before the commit and hand back its payload instead. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/append.h"
#include "client/claims.h"
#include "client/fanout.h"
#include "client/tableinfo.h"
#include "parquet/writer.h"
#include "client/variant_report.h"
#include "rows/rows_adapt.h"
#include "rows/rows_schema.h"
#include "util/arena.h"
#include "util/arrow.h"
#include "util/failpoint.h"
#include "util/strutil.h"

int client_result_uploaded(struct hl_append_result *res, const char *uri)
{
    char **p = realloc(res->uploaded, (res->nuploaded + 1) * sizeof *p);
    if (!p)
        return -1;
    res->uploaded = p;
    if (!(p[res->nuploaded] = strdup(uri)))
        return -1;
    res->nuploaded++;
    return 0;
}

struct job {
    hl_table *t;
    const struct hl_append_options *o;
    const char *prepared_key; /* prepared appends: the idempotency key */
    /* The caller's group being read (prepared appends), or NULL. */
    const struct hl_prepare_group *group;
    struct arena arena;
    struct lake_table table;
    struct ArrowSchema target; /* the writer's Arrow schema for the table */
    struct pq_write_options wopt;
    struct claims claims; /* where the files go */
    struct fanout *fanout;
    json_t *files; /* FileRegistration objects */
    struct hl_append_result *res;
};

/* ---- matching the input's columns to the table's ---- */

/* Finds a field at any depth whose name starts with _hog (reserved for
 * hoglake's own columns); its dotted path goes into path. */
static bool reserved_name(const struct ArrowSchema *s, char *path, size_t cap, size_t len)
{
    const char *name = s->name ? s->name : "";
    size_t l = len;
    if (*name && l < cap)
        l += (size_t)snprintf(path + len, cap - len, "%s%s", len ? "." : "", name);
    if (l >= cap)
        l = cap - 1;
    if (strncmp(name, "_hog", 4) == 0)
        return true;
    for (int64_t i = 0; i < s->n_children; i++) {
        if (reserved_name(s->children[i], path, cap, l))
            return true;
    }
    path[len] = '\0';
    return false;
}

/* Builds the schema of the input as the table orders it: the input's
 * fields moved in by name, and for each nullable column the input lacks,
 * the writer's field (filled with nulls per batch). map[i] is the input
 * child of table column i, or -1. */
static hl_status project_schema(struct job *j, struct ArrowSchema *in, struct ArrowSchema *out,
                                int64_t *map, struct hl_error *err)
{
    if (strcmp(in->format, "+s") != 0)
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                           "the stream's schema is '%s', not a struct of columns", in->format);
    char path[512] = "";
    for (int64_t i = 0; i < in->n_children; i++) {
        if (reserved_name(in->children[i], path, sizeof path, 0))
            return client_fail(err, HL_ERR_VALIDATION, "validation",
                               "column '%s': names starting with _hog are reserved", path);
    }
    size_t n = j->table.root.nchildren;
    for (int64_t i = 0; i < in->n_children; i++) {
        const char *name = in->children[i]->name ? in->children[i]->name : "";
        bool known = false;
        for (size_t c = 0; c < n && !known; c++)
            known = strcmp(j->table.root.children[c]->name, name) == 0;
        if (!known)
            return client_fail(err, HL_ERR_VALIDATION, "validation",
                               "column '%s' is not in the table's schema", name);
        for (int64_t k = 0; k < i; k++) {
            if (in->children[k]->name && strcmp(in->children[k]->name, name) == 0)
                return client_fail(err, HL_ERR_VALIDATION, "validation",
                                   "column '%s' appears twice in the input", name);
        }
    }
    if (arrow_schema_init(out, "+s", "", 0, (int64_t)n) != 0)
        return client_nomem(err);
    for (size_t c = 0; c < n; c++) {
        const struct lake_column *col = j->table.root.children[c];
        map[c] = -1;
        for (int64_t i = 0; i < in->n_children; i++) {
            if (in->children[i]->name && strcmp(in->children[i]->name, col->name) == 0)
                map[c] = i;
        }
        if (map[c] >= 0) {
            arrow_schema_move(in->children[map[c]], out->children[c]);
            continue;
        }
        if (!col->nullable) {
            out->release(out);
            return client_fail(err, HL_ERR_VALIDATION, "validation",
                               "the input lacks column '%s', which is required", col->name);
        }
        /* Absent: the writer's own field, filled with nulls per batch. */
        struct ArrowSchema fresh;
        if (rows_table_arrow_schema(&j->table, &fresh) != 0) {
            out->release(out);
            return client_nomem(err);
        }
        arrow_schema_move(fresh.children[c], out->children[c]);
        fresh.release(&fresh);
    }
    struct error e;
    if (rows_adapt_check(out, &j->table, &e) != 0) {
        out->release(out);
        return error_publish(err, HL_ERR_VALIDATION, &e, NULL);
    }
    return HL_OK;
}

/* The batch with the table's column order, nulls for absent columns.
 * Consumes in. */
static hl_status project_batch(struct job *j, const struct ArrowSchema *projected,
                               const int64_t *map, struct ArrowArray *in, struct ArrowArray *out,
                               struct hl_error *err)
{
    size_t n = j->table.root.nchildren;
    if (in->n_children < 0 || in->offset != 0) {
        in->release(in);
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                           "a batch with an offset, or without columns");
    }
    if (arrow_array_init(out, 1, (int64_t)n) != 0) {
        in->release(in);
        return client_nomem(err);
    }
    out->length = in->length;
    hl_status st = HL_OK;
    for (size_t c = 0; c < n && st == HL_OK; c++) {
        if (map[c] >= 0) {
            if (map[c] >= in->n_children || in->children[map[c]]->length < in->length)
                st = client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                                 "a batch's columns do not match its schema");
            else
                arrow_array_move(in->children[map[c]], out->children[c]);
        } else if (arrow_array_nulls(projected->children[c], in->length, out->children[c]) != 0) {
            st = client_nomem(err);
        }
    }
    /* A parent's validity would hide rows; a stream's batches have none
     * that count (top-level rows are never null). */
    in->release(in);
    if (st != HL_OK)
        out->release(out);
    return st;
}

/* Where the chunks of one batch go (rows_adapt_chunks' sink). */
struct chunk_sink {
    struct job *j;
    struct rows_variant_invalid *invalid; /* per column, this chunk's; NULL: no variant */
    int64_t *rows;
    hl_status st;
    struct hl_error *err;
};

/* One converted chunk: counted, reported and written to its files. */
static int write_chunk(void *ctx, const struct ArrowArray *chunk, struct error *e)
{
    struct chunk_sink *k = ctx;
    struct job *j = k->j;
    client_variant_report_batch(j->res, &j->table, chunk, k->invalid);
    if (k->invalid)
        memset(k->invalid, 0, j->table.root.nchildren * sizeof *k->invalid);
    const struct hl_prepare_group *g = j->group;
    k->st = g && g->partition_values ? fanout_write_as(j->fanout, chunk, g->partition_values,
                                                       g->npartition_values, k->err)
                                     : fanout_write(j->fanout, chunk, k->err);
    if (k->st != HL_OK)
        return error_fail(e, ERR_IO, "%s", k->err->message);
    *k->rows += chunk->length;
    if (j->o && j->o->progress)
        j->o->progress(j->o->progress_ctx, *k->rows);
    return 0;
}

/* The batch's values converted to the writer's types, a chunk at a time
 * (rows_adapt_chunks), into the open files. Consumes in. */
static hl_status write_batch(struct job *j, const struct ArrowSchema *projected, const int64_t *map,
                             struct ArrowArray *in, int64_t *rows, struct hl_error *err)
{
    struct ArrowArray batch;
    hl_status st = project_batch(j, projected, map, in, &batch, err);
    if (st != HL_OK)
        return st;
    size_t n = j->table.root.nchildren;
    struct chunk_sink sink = {.j = j, .rows = rows, .err = err};
    if (j->res->nvariant && !(sink.invalid = calloc(n ? n : 1, sizeof *sink.invalid))) {
        batch.release(&batch);
        return client_nomem(err);
    }
    struct rows_adapt_options ao = {.variant_on_invalid =
                                        j->o && j->o->variant_on_invalid == HL_VARIANT_INVALID_NULL
                                            ? ROWS_VARIANT_INVALID_NULL
                                            : ROWS_VARIANT_INVALID_ERROR,
                                    .variant_invalid_by_column = sink.invalid};
    struct error e;
    if (rows_adapt_chunks(projected, &batch, &j->table, &ao, write_chunk, &sink, &e) != 0)
        st = sink.st != HL_OK ? sink.st : error_publish(err, HL_ERR_VALIDATION, &e, NULL);
    j->res->variant_invalid_rows += ao.variant_invalid;
    free(sink.invalid);
    return st;
}

/* ---- the job ---- */

int client_data_prefix(struct buf *out, const hl_table *t, const char *key)
{
    const char *dp = t->ns->catalog->data_path;
    size_t dl = strlen(dp);
    while (dl > 0 && dp[dl - 1] == '/')
        dl--;
    int rc = buf_printf(out, "%.*s/data/%s/%s/", (int)dl, dp, t->ns->name, t->name);
    return rc == 0 && key ? buf_printf(out, "%s/", key) : rc;
}

static hl_status job_init(struct job *j, hl_table *t, const json_t *info,
                          const struct hl_append_options *o, const char *prepared_key,
                          struct hl_append_result *res, struct hl_error *err)
{
    memset(j, 0, sizeof *j);
    j->t = t;
    j->o = o;
    j->prepared_key = prepared_key;
    j->res = res;
    arena_init(&j->arena, 0);
    lake_table_init(&j->table, &j->arena);
    hl_status st = client_table_from_info(info, &j->table, err);
    if (st != HL_OK)
        return st;
    if (rows_table_arrow_schema(&j->table, &j->target) != 0)
        return client_nomem(err);
    if ((st = client_variant_report_init(res, &j->table, err)) != HL_OK)
        return st;
    pq_write_options_default(&j->wopt);
    if (o && o->row_group_bytes > 0)
        j->wopt.row_group_bytes = o->row_group_bytes;
    if (o)
        j->wopt.threads = o->encode_threads;
    if (!(j->files = json_array()))
        return client_nomem(err);
    struct objstore *store;
    st = client_store(t->ns->catalog->client, &store, err);
    if (st != HL_OK)
        return st;
    struct buf p = BUF_INIT;
    const char *key = prepared_key ? prepared_key : o ? o->idempotency_key : NULL;
    if (client_data_prefix(&p, t, key) != 0) {
        buf_free(&p);
        return client_nomem(err);
    }
    /* One claim request covers the usual append: its one file, or the
     * first tuples of a partitioned one. */
    st = claims_init(&j->claims, t->ns->catalog, CLAIMS_DATA, p.data, j->table.partitioned ? 8 : 1,
                     0, err);
    buf_free(&p);
    if (st != HL_OK)
        return st;
    struct fanout_config fc = {
        .table = &j->table,
        .schema = &j->target,
        .wopt = &j->wopt,
        .store = store,
        .claims = &j->claims,
        .upload_flags = t->ns->catalog->client->upload_flags,
        .deferred_stats = o && o->deferred_stats,
        .file_bytes = o ? o->file_bytes : 0,
        .memory_bytes = o ? o->memory_bytes : 0,
    };
    return fanout_new(&fc, res, j->files, &j->fanout, err);
}

/* Frees the job. One that did not commit (st) first aborts the uploads
 * still open, deletes its finished objects when the outcome is known
 * (nothing was sent, or the server refused the commit) and abandons its
 * claims. */
static void job_release(struct job *j, hl_status st, bool commit_sent, const struct hl_error *err)
{
    fanout_free(j->fanout);
    if (st != HL_OK)
        claims_discard(&j->claims, j->res, !commit_sent || claims_refused(st, err));
    claims_free(&j->claims);
    if (j->target.release)
        j->target.release(&j->target);
    json_decref(j->files);
    lake_table_release(&j->table);
    arena_free(&j->arena);
}

/* Between batches and before the commit: stops a cancelled append, and
 * keeps a long one's claims alive. */
static hl_status job_poll(struct job *j, struct hl_error *err)
{
    if (j->o && j->o->cancelled && j->o->cancelled(j->o->cancel_ctx))
        return client_fail(err, HL_ERR_CANCELLED, "cancelled",
                           "the append was cancelled before its commit was sent");
    claims_keep_alive(&j->claims);
    return HL_OK;
}

/* Reads one stream's batches into the open files. */
static hl_status read_stream(struct job *j, struct ArrowArrayStream *stream, int64_t *rows,
                             struct hl_error *err)
{
    struct ArrowSchema in_schema, projected;
    memset(&projected, 0, sizeof projected);
    if (stream->get_schema(stream, &in_schema) != 0) {
        const char *why = stream->get_last_error ? stream->get_last_error(stream) : NULL;
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                           "the stream gave no schema: %s", why ? why : "no reason given");
    }
    size_t n = j->table.root.nchildren;
    int64_t *map = calloc(n ? n : 1, sizeof *map);
    hl_status st = map ? project_schema(j, &in_schema, &projected, map, err) : client_nomem(err);
    in_schema.release(&in_schema);
    while (st == HL_OK) {
        struct ArrowArray in;
        if (stream->get_next(stream, &in) != 0) {
            const char *why = stream->get_last_error ? stream->get_last_error(stream) : NULL;
            st = client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                             "reading the input: %s", why ? why : "no reason given");
            break;
        }
        if (!in.release)
            break;
        if ((st = write_batch(j, &projected, map, &in, rows, err)) == HL_OK)
            st = job_poll(j, err);
    }
    free(map);
    if (projected.release)
        projected.release(&projected);
    return st;
}

/* Finishes the files the streams read went into and uploads them all;
 * rows is how many rows they held (none: nothing was written). */
static hl_status job_finish(struct job *j, int64_t rows, hl_status st, struct hl_error *err)
{
    /* A prepared payload with no files would commit nothing anyone could
     * tell from a lost one. */
    if (st == HL_OK && rows == 0 && j->prepared_key)
        st = client_fail(err, HL_ERR_VALIDATION, "validation",
                         "the input holds no rows (a prepared append needs some)");
    return st == HL_OK ? fanout_finish(j->fanout, err) : st;
}

/* Reads the streams into files and uploads them all; *rows gets how many
 * rows they held. */
static hl_status job_run(struct job *j, struct ArrowArrayStream *const *streams, size_t nstreams,
                         int64_t *rows, struct hl_error *err)
{
    *rows = 0;
    hl_status st = HL_OK;
    for (size_t i = 0; st == HL_OK && i < nstreams; i++)
        st = read_stream(j, streams[i], rows, err);
    return job_finish(j, *rows, st, err);
}

/* The append entry: namespace, table, the guard and the files. */
static json_t *append_entry(struct job *j, const char *expected_uuid)
{
    json_t *e = json_pack("{s:s, s:s, s:O}", "namespace", j->t->ns->name, "table", j->t->name,
                          "files", j->files);
    if (e && expected_uuid &&
        json_object_set_new(e, "expected_table_uuid", json_string(expected_uuid)) != 0) {
        json_decref(e);
        return NULL;
    }
    return e;
}

/* {"appends": [entry], "read_snapshot"?, "idempotency_key"?}: NULL when
 * out of memory. */
static json_t *commit_body(struct job *j, const char *expected_uuid, int64_t read_snapshot,
                           const char *key)
{
    json_t *body = json_object();
    json_t *appends = json_array();
    json_t *entry = append_entry(j, expected_uuid);
    bool ok = body && appends && entry;
    if (ok) {
        ok = json_array_append_new(appends, entry) == 0;
        entry = NULL;
    }
    if (ok) {
        ok = json_object_set_new(body, "appends", appends) == 0;
        appends = NULL;
    }
    if (ok && key)
        ok = json_object_set_new(body, "idempotency_key", json_string(key)) == 0;
    if (ok)
        ok = claims_name_owner(&j->claims, body) == 0;
    if (ok && read_snapshot >= 0)
        ok = json_object_set_new(body, "read_snapshot", json_integer(read_snapshot)) == 0;
    json_decref(entry);
    json_decref(appends);
    if (!ok) {
        json_decref(body);
        return NULL;
    }
    return body;
}

/* Sends the commit of the job's files; *sent tells whether it went out
 * (its outcome is then the server's, maybe unknown). */
static hl_status job_commit(struct job *j, const char *expected, int64_t read_snapshot, bool *sent,
                            struct hl_error *err)
{
    const struct hl_append_options *o = j->o;
    json_t *body = commit_body(j, expected, read_snapshot, o->idempotency_key);
    struct buf path = BUF_INIT;
    hl_status st = HL_OK;
    if (!body || (o->author && json_object_set_new(body, "author", json_string(o->author)) != 0) ||
        (o->message && json_object_set_new(body, "message", json_string(o->message)) != 0) ||
        client_catalog_path(&path, j->t->ns->catalog) != 0 || buf_puts(&path, "/commit") != 0)
        st = client_nomem(err);
    json_t *ans = NULL;
    if (st == HL_OK) {
        *sent = true;
        st = client_json(j->t->ns->catalog->client, "POST", path.data, body, &ans, err);
    }
    if (st == HL_OK) {
        client_json_int(ans, "snapshot_id", &j->res->snapshot_id);
        client_json_int(ans, "schema_version", &j->res->schema_version);
    }
    /* Tests of retries after an unknown outcome: the commit landed, the
     * answer did not. */
    if (st == HL_OK && failpoint_on("append-commit-answer-lost"))
        st = client_fail(err, HL_ERR_TIMEOUT, "timeout",
                         "the commit's answer was lost (failpoint): its outcome is unknown");
    buf_free(&path);
    json_decref(body);
    json_decref(ans);
    return st;
}

struct hl_append_result *client_append_result_new(void)
{
    struct hl_append_result *r = calloc(1, sizeof *r);
    if (r) {
        r->snapshot_id = -1;
        r->schema_version = -1;
    }
    return r;
}

void hl_append_result_free(struct hl_append_result *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->nfiles; i++) {
        free(r->files[i].path);
        for (size_t k = 0; k < r->files[i].npartition_values; k++)
            free(r->files[i].partition_values[k]);
        free(r->files[i].partition_values);
    }
    free(r->files);
    for (size_t i = 0; i < r->nuploaded; i++)
        free(r->uploaded[i]);
    free(r->uploaded);
    client_variant_report_free(r);
    free(r);
}

void hl_append_options_init(struct hl_append_options *o)
{
    memset(o, 0, sizeof *o);
    o->read_snapshot = -1;
}

static void release_streams(struct ArrowArrayStream *const *s, size_t n)
{
    for (size_t i = 0; s && i < n; i++) {
        if (s[i] && s[i]->release)
            s[i]->release(s[i]);
    }
}

static bool streams_ok(struct ArrowArrayStream *const *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!s || !s[i] || !s[i]->release)
            return false;
    }
    return true;
}

/* Hands the result to the caller (or frees it). */
static void give_result(struct hl_append_result *res, struct hl_append_result **out)
{
    if (out)
        *out = res;
    else
        hl_append_result_free(res);
}

hl_status hl_table_append(hl_table *t, struct ArrowArrayStream *stream,
                          const struct hl_append_options *options, struct hl_append_result **result,
                          struct hl_error *err)
{
    return hl_table_append_streams(t, &stream, 1, options, result, err);
}

hl_status hl_table_append_streams(hl_table *t, struct ArrowArrayStream *const *streams,
                                  size_t nstreams, const struct hl_append_options *options,
                                  struct hl_append_result **result, struct hl_error *err)
{
    if (result)
        *result = NULL;
    struct hl_append_options defaults;
    hl_append_options_init(&defaults);
    const struct hl_append_options *o = options ? options : &defaults;
    if (!t || nstreams == 0 || !streams_ok(streams, nstreams)) {
        release_streams(streams, nstreams);
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                           "a table and at least one stream are required");
    }
    if (o->idempotency_key && !client_is_uuid(o->idempotency_key)) {
        release_streams(streams, nstreams);
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                           "the idempotency key must be a UUID");
    }
    struct hl_append_result *res = client_append_result_new();
    if (!res) {
        release_streams(streams, nstreams);
        return client_nomem(err);
    }
    /* What the clean-up after a failure decides on is read from the error. */
    struct hl_error local;
    if (!err)
        err = &local;
    const char *expected = o->unguarded             ? NULL
                           : o->expected_table_uuid ? o->expected_table_uuid
                                                    : t->uuid;
    json_t *info = NULL;
    int64_t basis = -1;
    bool from_cache = false, commit_sent = false;
    /* Unguarded appends check no incarnation: they write by name. */
    hl_status st = table_cache_basis(t, expected, &info, &basis, &from_cache, err);
    struct job j;
    bool job_ready = false;
    if (st == HL_OK) {
        st = job_init(&j, t, info, o, NULL, res, err);
        job_ready = true;
    }
    int64_t rows = 0;
    if (st == HL_OK)
        st = job_run(&j, streams, nstreams, &rows, err);
    release_streams(streams, nstreams);
    /* An input that holds no rows commits nothing: no snapshot, no file. */
    if (st == HL_OK && rows > 0)
        st = job_poll(&j, err);
    if (st == HL_OK && rows > 0) {
        int64_t read_snapshot = o->read_snapshot >= 0 ? o->read_snapshot
                                : j.table.partitioned ? basis
                                                      : -1;
        st = job_commit(&j, expected, read_snapshot, &commit_sent, err);
        if (commit_sent && st != HL_OK) {
            if (st == HL_ERR_EXPIRED)
                err->re_prepare = true;
            table_cache_after_refusal(t, err, from_cache);
        }
    }
    if (job_ready)
        job_release(&j, st, commit_sent, err);
    json_decref(info);
    if (st != HL_OK) {
        /* Nothing was committed: the files listed are not the table's. */
        res->snapshot_id = -1;
    }
    give_result(res, result);
    return st;
}

bool client_is_uuid(const char *s)
{
    if (!s || strlen(s) != 36)
        return false;
    for (int i = 0; i < 36; i++) {
        bool dash = i == 8 || i == 13 || i == 18 || i == 23;
        char c = s[i];
        bool hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
        if (dash ? c != '-' : !hex)
            return false;
    }
    return true;
}

hl_status client_append_stage(hl_table *t, const json_t *info, struct ArrowArrayStream *stream,
                              const char *owner, struct hl_append_result *res, json_t **files,
                              int64_t *rows, struct hl_error *err)
{
    *files = NULL;
    *rows = 0;
    struct job j;
    hl_status st = job_init(&j, t, info, NULL, NULL, res, err);
    /* No claim was asked for yet: the owner's claims are the caller's. */
    if (st == HL_OK)
        memcpy(j.claims.owner, owner, sizeof j.claims.owner);
    if (st == HL_OK)
        st = job_run(&j, &stream, 1, rows, err);
    release_streams(&stream, 1);
    if (st == HL_OK)
        *files = json_incref(j.files);
    job_release(&j, st, false, err);
    return st;
}

static void release_groups(const struct hl_prepare_group *groups, size_t n)
{
    for (size_t i = 0; groups && i < n; i++)
        release_streams(&groups[i].stream, 1);
}

static bool groups_ok(const struct hl_prepare_group *groups, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!groups[i].stream || !groups[i].stream->release)
            return false;
    }
    return groups && n > 0;
}

hl_status client_prepare_basis(hl_table *t, const struct hl_prepare_options *o,
                               const char **expected, json_t **info, int64_t *basis,
                               struct hl_error *err)
{
    *info = NULL;
    *expected = o && o->expected_table_uuid ? o->expected_table_uuid : t->uuid;
    if (!client_is_uuid(*expected))
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                           "the expected table uuid must be a UUID");
    bool from_cache;
    bool pinned_other = strcmp(*expected, t->uuid) != 0;
    if (!pinned_other && (!o || !o->expected_table_info))
        return table_cache_basis(t, *expected, info, basis, &from_cache, err);
    hl_status st = table_fresh_basis(t, *expected, info, basis, err);
    if (st == HL_OK && o->expected_table_info)
        st = client_layout_check(*info, o->expected_table_info, err);
    return st;
}

/* The groups read into files and uploaded; *payload the commit for them. */
static hl_status prepare_groups(struct job *j, const struct hl_prepare_group *groups,
                                size_t ngroups, const char *expected, int64_t basis, char **payload,
                                struct hl_error *err)
{
    int64_t rows = 0;
    hl_status st = HL_OK;
    for (size_t i = 0; st == HL_OK && i < ngroups; i++) {
        j->group = &groups[i];
        st = read_stream(j, groups[i].stream, &rows, err);
    }
    j->group = NULL;
    if ((st = job_finish(j, rows, st, err)) != HL_OK)
        return st;
    json_t *body = commit_body(j, expected, basis, j->prepared_key);
    if (!body || !(*payload = json_dumps(body, JSON_COMPACT)))
        st = client_nomem(err);
    json_decref(body);
    return st;
}

hl_status hl_table_prepare_append_groups(hl_table *t, const struct hl_prepare_group *groups,
                                         size_t ngroups, const char *idempotency_key,
                                         const struct hl_prepare_options *options, char **payload,
                                         struct hl_append_result **uploaded, struct hl_error *err)
{
    *payload = NULL;
    if (uploaded)
        *uploaded = NULL;
    if (!t || !groups_ok(groups, ngroups)) {
        release_groups(groups, ngroups);
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                           "a table and at least one group with a stream are required");
    }
    if (!client_is_uuid(idempotency_key)) {
        release_groups(groups, ngroups);
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                           "the idempotency key must be a UUID");
    }
    struct hl_append_result *res = client_append_result_new();
    if (!res) {
        release_groups(groups, ngroups);
        return client_nomem(err);
    }
    json_t *info = NULL;
    int64_t basis = -1;
    const char *expected;
    hl_status st = client_prepare_basis(t, options, &expected, &info, &basis, err);
    struct job j;
    bool job_ready = false;
    if (st == HL_OK) {
        st = job_init(&j, t, info, NULL, idempotency_key, res, err);
        job_ready = true;
    }
    if (st == HL_OK)
        st = prepare_groups(&j, groups, ngroups, expected, basis, payload, err);
    release_groups(groups, ngroups);
    if (job_ready)
        job_release(&j, st, false, err);
    json_decref(info);
    give_result(res, uploaded);
    return st;
}

hl_status hl_table_prepare_append(hl_table *t, struct ArrowArrayStream *stream,
                                  const char *idempotency_key, char **payload,
                                  struct hl_append_result **uploaded, struct hl_error *err)
{
    struct hl_prepare_group one = {.stream = stream};
    return hl_table_prepare_append_groups(t, &one, 1, idempotency_key, NULL, payload, uploaded,
                                          err);
}
