/* POST /commit and its guarded variants (/commit/prepared,
 * /commit/deletes/prepared, /commit/mutations/prepared, /commit/uploads,
 * /commit/transaction: each sets its rules, commit_req.h) and GET
 * /commit/receipts/{operation}: the HTTP side of the commit protocol
 * (commit.c does the work). The answers, their counts in
 * hoglake_commits_total and the audit detail are written here. */
#include <stdio.h>
#include <string.h>

#include "server/auth/audit.h"
#include "server/catalog/catalog.h"
#include "server/commit/commit.h"
#include "server/commit/commit_req.h"
#include "server/http/handlers.h"
#include "server/metrics.h"
#include "server/server.h"
#include "server/store/commit_reads.h"
#include "util/strutil.h"

/* hoglake_commits_total{catalog,result} with the contract's result values
 * (shared with the audit outcome); a replay is a commit that already
 * happened. */
static void count_result(struct srv_req *req, const char *catalog, int rc,
                         const struct api_error *err)
{
    char labels[300], esc[200];
    metrics_label_escape(catalog, esc, sizeof esc);
    snprintf(labels, sizeof labels, "catalog=\"%s\",result=\"%s\"", esc,
             audit_outcome(rc != 0 ? err->status : 200, err->code, "committed"));
    metrics_counter_add(req->srv->metrics, "hoglake_commits_total", labels, 1);
}

/* Counts a commit request refused before the commit ran (its body did not
 * parse or validate), when the catalog exists. */
static void count_refusal(struct srv_req *req, const char *catalog_name,
                          const struct api_error *err)
{
    struct catalog_row cat;
    struct api_error ignored = {0};
    /* Only catalogs that exist get a series: a path is not a label. */
    if (catalog_load(req, catalog_name, &cat, &ignored) == 0)
        count_result(req, cat.name, -1, err);
    json_decref(ignored.extra);
}

/* The engine's failure as the answer: its code and message, and the
 * members a conflict adds. */
static int commit_failed(struct api_error *err, const struct error *e,
                         const struct commit_outcome *out)
{
    api_from_error(err, e, out->failed_step ? out->failed_step : "commit");
    if (out->ntables) {
        json_t *tables = json_array();
        for (size_t i = 0; tables && i < out->ntables; i++)
            json_array_append_new(tables, json_string(out->tables[i]));
        api_error_set_extra(err, "tables", tables);
    }
    if (out->has_read_snapshot)
        api_error_set_extra(err, "read_snapshot", json_integer(out->read_snapshot));
    if (out->re_prepare)
        api_error_set_extra(err, "retry", json_string("re-prepare"));
    return -1;
}

static bool same_catalog(const struct catalog_ident *a, const struct catalog_ident *b)
{
    return a->id == b->id && strcmp(a->name, b->name) == 0 &&
           strcmp(a->data_path, b->data_path) == 0;
}

/* Runs the commit in the catalog named by the path; *result is the
 * CommitResult {snapshot_id, schema_version}. */
static int commit(struct srv_req *req, struct commit_request *c, json_t **result,
                  struct api_error *err)
{
    struct catalog_ident cat;
    bool cached;
    struct srv_ctx ctx;
    if (catalog_ident_load(req, req->params[0], false, &cat, &cached, err) != 0 ||
        req_ctx(req, &ctx, err) != 0)
        return -1; /* no catalog, so no per-catalog count */
    struct commit_outcome out;
    struct error e;
    int rc = commit_run(&ctx, &cat, ddl_lock_budget_ms(req), c, &out, &e);
    if (rc != 0 && cached) {
        /* The identity was the cache's: a failure may be its being stale
         * (the row deleted or changed by hand; the reads found no such
         * catalog, or a path was checked against the old data path). The
         * catalog looked up again decides: gone is a 404, another identity
         * runs the commit again (a failed commit wrote nothing). */
        struct catalog_ident now;
        bool unused;
        if (catalog_ident_load(req, req->params[0], true, &now, &unused, err) != 0)
            return -1;
        if (!same_catalog(&cat, &now)) {
            cat = now;
            rc = commit_run(&ctx, &cat, ddl_lock_budget_ms(req), c, &out, &e);
        }
    }
    if (rc != 0)
        commit_failed(err, &e, &out);
    else if (!(*result = json_pack("{s:I,s:I}", "snapshot_id", (json_int_t)out.snapshot_id,
                                   "schema_version", (json_int_t)out.schema_version)))
        rc = api_nomem(err);
    count_result(req, cat.name, rc, err);
    if (rc == 0) {
        json_decref(req->audit.detail);
        req->audit.detail =
            json_pack("{s:I,s:I,s:I,s:b,s:s?}", "snapshot_id", (json_int_t)out.snapshot_id, "files",
                      (json_int_t)c->nfiles, "deletes", (json_int_t)c->ndvs, "replayed",
                      out.replayed, "idempotency_key", c->has_key ? c->key : NULL);
    }
    return rc;
}

static int commit_common(struct srv_req *req, struct srv_res *res, const struct commit_rules *rules,
                         struct api_error *err)
{
    json_t *body = req_json_body(req, err);
    if (!body) {
        count_refusal(req, req->params[0], err);
        return -1;
    }
    struct commit_request c;
    json_t *result = NULL;
    int rc = commit_request_parse(body, rules, &req->arena, &c, err);
    if (rc == 0)
        rc = commit(req, &c, &result, err);
    else
        count_refusal(req, req->params[0], err);
    json_decref(body);
    if (rc != 0)
        return -1;
    return api_json(res, 200, result);
}

int h_commit(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    return commit_common(req, res, &commit_rules_plain, err);
}

int h_commit_prepared(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    return commit_common(req, res, &commit_rules_prepared, err);
}

int h_commit_deletes(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    return commit_common(req, res, &commit_rules_deletes, err);
}

int h_commit_mutations(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    return commit_common(req, res, &commit_rules_mutations, err);
}

int h_commit_uploads(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    return commit_common(req, res, &commit_rules_uploads, err);
}

int h_commit_transaction(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    return commit_common(req, res, &commit_rules_transaction, err);
}

int h_commit_receipt(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    const char *key = req->params[1];
    if (!str_is_uuid(key))
        return api_bad_request(err, "the receipt's operation id must be a UUID, got '%.40s'", key);
    struct catalog_row cat;
    struct db_conn *db;
    if (catalog_load(req, req->params[0], &cat, err) != 0 || !(db = req_db(req, err)))
        return -1;
    char lower[37];
    str_lower(lower, sizeof lower, key);
    int64_t snapshot_id, schema_version;
    struct error e;
    int found = store_commit_receipt_get(db, cat.id, lower, &snapshot_id, &schema_version, &e);
    if (found < 0)
        return api_from_error(err, &e, "receipt");
    /* A missing receipt does not prove a request is not still running. */
    if (!found)
        return api_fail(err, 404, "no_receipt", "no receipt for operation %s in catalog '%s'",
                        lower, cat.name);
    json_t *body = json_pack("{s:s,s:I,s:I}", "operation_id", lower, "snapshot_id",
                             (json_int_t)snapshot_id, "schema_version", (json_int_t)schema_version);
    if (!body)
        return api_nomem(err);
    return api_json(res, 200, body);
}
