/* Pipelined, prepared statements (libpq pipeline mode): a commit's reads,
 * and then its writes, each cost one round trip and no parsing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/db/db.h"

int db_batch_begin(struct db_batch *b, struct db_conn *conn, struct error *err)
{
    memset(b, 0, sizeof *b);
    b->conn = conn;
    if (PQenterPipelineMode(conn->pg) != 1) {
        db_error_from(conn->pg, NULL, err);
        b->broken = true;
        return -1;
    }
    return 0;
}

static void statement_name(int slot, char *out, size_t size)
{
    snprintf(out, size, "hl%d", slot);
}

/* The prepared[] slot holding sql on this connection, or -1. */
static int find_prepared(const struct db_conn *c, const char *sql)
{
    for (int i = 0; i < c->nprepared; i++)
        if (c->prepared[i] == sql)
            return i;
    return -1;
}

int db_batch_add(struct db_batch *b, const char *sql, const struct db_params *params,
                 struct error *err)
{
    /* The statements of a batch are fixed in the source: overflowing one
     * is a programming error. */
    if (b->n >= DB_BATCH_MAX)
        abort();
    struct db_conn *c = b->conn;
    int n = params ? params->n : 0;
    const char *const *values = params ? params->values : NULL;
    int slot = find_prepared(c, sql);
    b->preparing[b->n] = -1;
    b->sql[b->n] = sql;
    /* A slot is claimed only once the server confirms the statement (see
     * db_batch_run): a Parse skipped by an earlier failure creates
     * nothing. Two adds of a new text in one batch prepare it twice under
     * different names; harmless. */
    int next = c->nprepared;
    for (int i = 0; i < b->n; i++)
        if (b->preparing[i] >= next)
            next = b->preparing[i] + 1;
    if (slot < 0 && next < DB_PREPARED_MAX) {
        char name[16];
        statement_name(next, name, sizeof name);
        if (PQsendPrepare(c->pg, name, sql, n, NULL) != 1)
            goto broken;
        b->preparing[b->n] = next;
        slot = next;
    }
    int ok;
    if (slot >= 0) {
        char name[16];
        statement_name(slot, name, sizeof name);
        ok = PQsendQueryPrepared(c->pg, name, n, values, NULL, NULL, 0);
    } else {
        ok = PQsendQueryParams(c->pg, sql, n, NULL, values, NULL, NULL, 0);
    }
    if (ok != 1)
        goto broken;
    return b->n++;
broken:
    db_error_from(c->pg, NULL, err);
    b->broken = true;
    return -1;
}

/* Reads one statement's answer: one PGresult, then the NULL that ends
 * it. */
static PGresult *take_result(PGconn *pg)
{
    PGresult *r = PQgetResult(pg);
    if (!r)
        return NULL;
    PGresult *extra;
    while ((extra = PQgetResult(pg)) != NULL)
        PQclear(extra);
    return r;
}

static bool succeeded(const PGresult *r)
{
    ExecStatusType st = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
    return st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK;
}

int db_batch_run(struct db_batch *b, int *failed, struct error *err)
{
    struct db_conn *c = b->conn;
    *failed = -1;
    if (b->broken || PQpipelineSync(c->pg) != 1) {
        db_error_from(c->pg, NULL, err);
        b->broken = true;
        *failed = 0;
        return -1;
    }
    for (int i = 0; i < b->n; i++) {
        if (b->preparing[i] >= 0) {
            PGresult *prep = take_result(c->pg);
            bool ok = succeeded(prep);
            /* Successes form a prefix of the batch, so slots stay dense. */
            if (ok && b->preparing[i] == c->nprepared)
                c->prepared[c->nprepared++] = b->sql[i];
            if (!ok && *failed < 0) {
                *failed = i;
                db_error_from(c->pg, prep, err);
            }
            PQclear(prep);
            if (!prep) {
                b->broken = true;
                return -1;
            }
        }
        PGresult *r = take_result(c->pg);
        if (succeeded(r)) {
            b->results[i] = r;
            continue;
        }
        /* The first failure names the error; the statements after it were
         * skipped by the server (PGRES_PIPELINE_ABORTED). */
        if (*failed < 0) {
            *failed = i;
            db_error_from(c->pg, r, err);
        }
        PQclear(r);
        if (!r) {
            b->broken = true;
            return -1;
        }
    }
    /* The sync point's own result, then leave pipeline mode. */
    PGresult *sync = PQgetResult(c->pg);
    bool synced = sync && PQresultStatus(sync) == PGRES_PIPELINE_SYNC;
    PQclear(sync);
    if (!synced || PQexitPipelineMode(c->pg) != 1) {
        if (*failed < 0) {
            *failed = b->n ? b->n - 1 : 0;
            db_error_from(c->pg, NULL, err);
        }
        b->broken = true;
        return -1;
    }
    return *failed < 0 ? 0 : -1;
}

void db_batch_free(struct db_batch *b)
{
    for (int i = 0; i < b->n; i++) {
        PQclear(b->results[i]);
        b->results[i] = NULL;
    }
}

PGresult *db_exec_prepared(struct db_conn *conn, const char *sql, const struct db_params *params,
                           struct error *err)
{
    struct db_batch b;
    int failed;
    if (db_batch_begin(&b, conn, err) != 0 || db_batch_add(&b, sql, params, err) < 0 ||
        db_batch_run(&b, &failed, err) != 0) {
        db_batch_free(&b);
        return NULL;
    }
    PGresult *r = b.results[0];
    b.results[0] = NULL; /* the caller's now */
    db_batch_free(&b);
    return r;
}
