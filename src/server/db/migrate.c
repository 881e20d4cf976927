#include "server/db/migrate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/db/db.h"
#include "util/log.h"
#include "util/sha256.h"

/* Advisory lock key for migrations: class 4740875, instance-wide (low 32
 * bits 0), beside the catalog lock class 4740871. */
#define MIGRATION_LOCK_KEY "20361903079424000" /* 4740875 << 32 */

static int version_of(const char *name)
{
    char *end;
    long v = strtol(name, &end, 10);
    return (end != name && *end == '_' && v > 0 && v < 100000) ? (int)v : -1;
}

static int apply_one(PGconn *c, const struct embedded_file *m, int version, const char *digest,
                     char *err, size_t err_size)
{
    struct error dberr;
    if (db_run(c, "BEGIN", NULL, &dberr) != 0)
        goto db_fail;
    /* PQexec runs the whole multi-statement file in this transaction. */
    PGresult *r = PQexec(c, m->data);
    if (PQresultStatus(r) != PGRES_COMMAND_OK && PQresultStatus(r) != PGRES_TUPLES_OK) {
        snprintf(err, err_size, "migration %s failed: %s", m->name, PQerrorMessage(c));
        PQclear(r);
        db_run(c, "ROLLBACK", NULL, NULL);
        return -1;
    }
    PQclear(r);
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, version);
    db_param_str(&p, m->name);
    db_param_str(&p, digest);
    if (db_run(c, "INSERT INTO hog_schema_migration (version, name, sha256) VALUES ($1, $2, $3)",
               &p, &dberr) != 0 ||
        db_run(c, "COMMIT", NULL, &dberr) != 0)
        goto db_fail;
    log_info("applied migration %s", m->name);
    return 0;
db_fail:
    snprintf(err, err_size, "migration %s: %s", m->name, dberr.msg);
    db_run(c, "ROLLBACK", NULL, NULL);
    return -1;
}

int db_migrate(const char *conninfo, const struct embedded_file *migrations, size_t count,
               int *applied, char *err, size_t err_size)
{
    if (applied)
        *applied = 0;
    char cerr[512];
    PGconn *c = db_connect(conninfo, 30, cerr, sizeof cerr);
    if (!c) {
        snprintf(err, err_size, "cannot connect to the catalog database: %s", cerr);
        return -1;
    }
    struct error dberr;
    int rc = -1;
    /* Migrations may take long on a big catalog; lift the session's
     * statement timeout for this connection only. */
    if (db_run(c, "SET statement_timeout = 0", NULL, &dberr) != 0 ||
        db_run(c, "SELECT pg_advisory_lock(" MIGRATION_LOCK_KEY ")", NULL, &dberr) != 0 ||
        db_run(c,
               "CREATE TABLE IF NOT EXISTS hog_schema_migration ("
               " version int PRIMARY KEY, name text NOT NULL, sha256 text NOT NULL,"
               " applied_at timestamptz NOT NULL DEFAULT now())",
               NULL, &dberr) != 0) {
        snprintf(err, err_size, "migrations: %s", dberr.msg);
        goto out;
    }
    PGresult *r = db_exec(c, "SELECT version, name, sha256 FROM hog_schema_migration ORDER BY 1",
                          NULL, &dberr);
    if (!r) {
        snprintf(err, err_size, "migrations: %s", dberr.msg);
        goto out;
    }
    int known_max = 0;
    for (size_t i = 0; i < count; i++) {
        const struct embedded_file *m = &migrations[i];
        int version = version_of(m->name);
        if (version < 0) {
            snprintf(err, err_size, "migration file %s is not named NNNN_name.sql", m->name);
            PQclear(r);
            goto out;
        }
        if (version > known_max)
            known_max = version;
        char digest[SHA256_HEX_CHARS + 1];
        if (sha256_hex(m->data, m->len, digest) != 0) {
            snprintf(err, err_size, "sha256 failed");
            PQclear(r);
            goto out;
        }
        const char *stored = NULL;
        for (int row = 0; row < PQntuples(r); row++)
            if (db_i64(r, row, 0) == version)
                stored = db_str(r, row, 2);
        if (stored) {
            if (strcmp(stored, digest) != 0) {
                snprintf(err, err_size,
                         "migration %s was changed after it was applied (sha256 %s in the "
                         "database, %s in this build); schema changes must be new migrations",
                         m->name, stored, digest);
                PQclear(r);
                goto out;
            }
            continue;
        }
        if (apply_one(c, m, version, digest, err, err_size) != 0) {
            PQclear(r);
            goto out;
        }
        if (applied)
            (*applied)++;
    }
    for (int row = 0; row < PQntuples(r); row++)
        if (db_i64(r, row, 0) > known_max)
            log_warn("the catalog database has migration %s, newer than this build; running "
                     "anyway (a newer replica is rolling out)",
                     db_str(r, row, 1));
    PQclear(r);
    rc = 0;
out:
    db_run(c, "SELECT pg_advisory_unlock(" MIGRATION_LOCK_KEY ")", NULL, NULL);
    PQfinish(c);
    return rc;
}
