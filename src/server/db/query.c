#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/db/db.h"

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

void db_param_bool(struct db_params *p, bool v)
{
    push(p, v ? "true" : "false");
}

void db_err_from(PGconn *pg, const PGresult *r, struct db_err *err)
{
    if (!err)
        return;
    const char *state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
    snprintf(err->sqlstate, sizeof err->sqlstate, "%s", state ? state : "");
    const char *msg = r ? PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY) : NULL;
    snprintf(err->message, sizeof err->message, "%s", msg ? msg : PQerrorMessage(pg));
    size_t n = strlen(err->message);
    while (n && err->message[n - 1] == '\n')
        err->message[--n] = '\0';
}

PGresult *db_exec(PGconn *pg, const char *sql, const struct db_params *params, struct db_err *err)
{
    int n = params ? params->n : 0;
    PGresult *r = PQexecParams(pg, sql, n, NULL, params ? params->values : NULL, NULL, NULL, 0);
    ExecStatusType st = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
    if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK)
        return r;
    db_err_from(pg, r, err);
    PQclear(r);
    return NULL;
}

int db_run(PGconn *pg, const char *sql, const struct db_params *params, struct db_err *err)
{
    PGresult *r = db_exec(pg, sql, params, err);
    if (!r)
        return -1;
    PQclear(r);
    return 0;
}

int64_t db_i64(const PGresult *r, int row, int col)
{
    const char *s = PQgetvalue(r, row, col);
    return s ? strtoll(s, NULL, 10) : 0;
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

bool db_err_is(const struct db_err *err, const char *sqlstate)
{
    return strcmp(err->sqlstate, sqlstate) == 0;
}
