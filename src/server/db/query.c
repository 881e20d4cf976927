#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/db/db.h"

#include "util/strutil.h"
#include "util/timefmt.h"

void db_params_init(struct db_params *p)
{
    p->n = 0;
}

static void push(struct db_params *p, const char *v)
{
    /* Statement parameter lists are fixed in the source; overflowing one is
     * a programming error, caught loudly in every build. */
    if (p->n >= DB_MAX_PARAMS)
        abort();
    p->values[p->n++] = v;
}

void db_param_str(struct db_params *p, const char *s)
{
    push(p, s);
}

void db_param_null(struct db_params *p)
{
    push(p, NULL);
}

void db_param_i64(struct db_params *p, int64_t v)
{
    if (p->n >= DB_MAX_PARAMS)
        abort();
    snprintf(p->numbuf[p->n], sizeof p->numbuf[p->n], "%lld", (long long)v);
    push(p, p->numbuf[p->n]);
}

void db_params_ids(struct db_params *p, size_t n, const int64_t *ids)
{
    db_params_init(p);
    for (size_t i = 0; i < n; i++)
        db_param_i64(p, ids[i]);
}

void db_param_bool(struct db_params *p, bool v)
{
    push(p, v ? "true" : "false");
}

/* The SQLSTATEs callers test (db.h), with the code each means. */
static const struct {
    const char *sqlstate;
    enum error_code code;
} typed_states[] = {
    {SQLSTATE_UNIQUE_VIOLATION, ERR_CONFLICT},
    {SQLSTATE_FOREIGN_KEY_VIOLATION, ERR_INTERNAL}, /* our SQL, not the caller, is wrong */
    {SQLSTATE_CHECK_VIOLATION, ERR_INTERNAL},
    {SQLSTATE_LOCK_NOT_AVAILABLE, ERR_UNAVAILABLE},
    {SQLSTATE_QUERY_CANCELED, ERR_UNAVAILABLE},
    {SQLSTATE_SERIALIZATION_FAILURE, ERR_UNAVAILABLE},
    {SQLSTATE_DEADLOCK_DETECTED, ERR_UNAVAILABLE},
    {SQLSTATE_HOG_ASSERT, ERR_INTERNAL},
};

void db_error_from(PGconn *pg, const PGresult *r, struct error *err)
{
    if (!err)
        return;
    const char *state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
    const char *msg = r ? PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY) : NULL;
    if (!msg)
        msg = PQerrorMessage(pg);
    size_t len = strlen(msg);
    while (len && msg[len - 1] == '\n') /* libpq ends its own messages with one */
        len--;
    for (size_t i = 0; state && i < sizeof typed_states / sizeof typed_states[0]; i++) {
        if (strcmp(state, typed_states[i].sqlstate) == 0) {
            error_fail_reason(err, typed_states[i].code, typed_states[i].sqlstate, "%.*s", (int)len,
                              msg);
            return;
        }
    }
    /* No SQLSTATE (the connection broke), connection exceptions (08) and
     * operator intervention (57P: shutdown, terminated backend). */
    bool gone = !state || !*state || strncmp(state, "08", 2) == 0 || strncmp(state, "57P", 3) == 0;
    if (state && *state)
        error_fail(err, gone ? ERR_UNAVAILABLE : ERR_INTERNAL, "[%s] %.*s", state, (int)len, msg);
    else
        error_fail(err, ERR_UNAVAILABLE, "%.*s", (int)len, msg);
}

PGresult *db_exec(PGconn *pg, const char *sql, const struct db_params *params, struct error *err)
{
    int n = params ? params->n : 0;
    PGresult *r = PQexecParams(pg, sql, n, NULL, params ? params->values : NULL, NULL, NULL, 0);
    ExecStatusType st = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
    if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK)
        return r;
    db_error_from(pg, r, err);
    PQclear(r);
    return NULL;
}

PGresult *db_exec_built(PGconn *pg, struct buf *sql, int bad, const struct db_params *params,
                        struct error *err)
{
    PGresult *r = NULL;
    if (bad || !sql->data)
        error_nomem(err);
    else
        r = db_exec(pg, sql->data, params, err);
    buf_free(sql);
    return r;
}

int db_run(PGconn *pg, const char *sql, const struct db_params *params, struct error *err)
{
    PGresult *r = db_exec(pg, sql, params, err);
    if (!r)
        return -1;
    PQclear(r);
    return 0;
}

int db_run_count(PGconn *pg, const char *sql, const struct db_params *params, int64_t *count,
                 struct error *err)
{
    PGresult *r = db_exec(pg, sql, params, err);
    if (!r)
        return -1;
    *count = atoll(PQcmdTuples(r));
    PQclear(r);
    return 0;
}

int db_exists(PGconn *pg, const char *sql, const struct db_params *params, struct error *err)
{
    PGresult *r = db_exec(pg, sql, params, err);
    if (!r)
        return -1;
    int found = PQntuples(r) > 0;
    PQclear(r);
    return found;
}

int db_scalar_i64(PGconn *pg, const char *sql, const struct db_params *params, int64_t *out,
                  struct error *err)
{
    PGresult *r = db_exec(pg, sql, params, err);
    if (!r)
        return -1;
    int found = PQntuples(r) > 0 && !db_isnull(r, 0, 0);
    if (found)
        *out = db_i64(r, 0, 0);
    PQclear(r);
    return found;
}

bool db_probe(PGconn *pg, int64_t deadline_ns)
{
    if (!PQsendQuery(pg, "SELECT 1"))
        return false;
    while (PQisBusy(pg)) {
        int64_t left_ms = (deadline_ns - time_mono_ns()) / 1000000;
        if (left_ms <= 0)
            return false;
        struct pollfd pfd = {.fd = PQsocket(pg), .events = POLLIN};
        int n = poll(&pfd, 1, (int)left_ms);
        if (n < 0 || (n > 0 && !PQconsumeInput(pg)))
            return false;
    }
    bool ok = true;
    PGresult *r;
    while ((r = PQgetResult(pg)) != NULL) {
        if (PQresultStatus(r) != PGRES_TUPLES_OK)
            ok = false;
        PQclear(r);
    }
    return ok;
}

int64_t db_i64(const PGresult *r, int row, int col)
{
    const char *s = PQgetvalue(r, row, col);
    if (!s)
        return 0;
    /* An integer column's text, parsed by hand (strtoll's locale and base
     * handling was 4% of a 54,000-table listing's CPU); anything else (a
     * numeric's fraction) as strtoll reads it. */
    int64_t v;
    return str_parse_int64(s, &v) ? v : strtoll(s, NULL, 10);
}

bool db_bool(const PGresult *r, int row, int col)
{
    const char *s = PQgetvalue(r, row, col);
    return s && s[0] == 't';
}

const char *db_str(const PGresult *r, int row, int col)
{
    return PQgetisnull(r, row, col) ? NULL : PQgetvalue(r, row, col);
}

bool db_isnull(const PGresult *r, int row, int col)
{
    return PQgetisnull(r, row, col) != 0;
}

bool db_i64_opt(const PGresult *r, int row, int col, int64_t *out)
{
    bool set = !db_isnull(r, row, col);
    *out = set ? db_i64(r, row, col) : 0;
    return set;
}

bool db_error_is(const struct error *err, const char *sqlstate)
{
    return err->reason && strcmp(err->reason, sqlstate) == 0;
}

int db_begin(PGconn *pg, struct error *err)
{
    return db_run(pg, "BEGIN", NULL, err);
}

int db_begin_read_snapshot(PGconn *pg, struct error *err)
{
    return db_run(pg, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", NULL, err);
}

int db_commit(PGconn *pg, struct error *err)
{
    return db_run(pg, "COMMIT", NULL, err);
}

void db_rollback(PGconn *pg)
{
    if (PQtransactionStatus(pg) != PQTRANS_IDLE)
        db_run(pg, "ROLLBACK", NULL, NULL);
}

int db_savepoint(PGconn *pg, struct error *err)
{
    return db_run(pg, "SAVEPOINT hl_step", NULL, err);
}

int db_rollback_to_savepoint(PGconn *pg, struct error *err)
{
    return db_run(pg, "ROLLBACK TO SAVEPOINT hl_step", NULL, err);
}

int db_set_lock_timeout(PGconn *pg, int64_t ms, struct error *err)
{
    struct db_params p;
    char text[24];
    snprintf(text, sizeof text, "%lld", (long long)ms);
    db_params_init(&p);
    db_param_str(&p, text);
    return db_run(pg, "SELECT set_config('lock_timeout', $1, true)", &p, err);
}
