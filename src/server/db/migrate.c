#include "server/db/migrate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/db/db.h"
#include "server/store/migrations.h"
#include "util/log.h"
#include "util/sha256.h"

static int version_of(const char *name)
{
    char *end;
    long v = strtol(name, &end, 10);
    return (end != name && *end == '_' && v > 0 && v < 100000) ? (int)v : -1;
}

static int apply_one(PGconn *c, const struct embedded_file *m, int version, const char *digest,
                     struct error *err)
{
    if (db_begin(c, err) != 0 ||
        store_migrations_apply(c, m->name, version, m->data, digest, err) != 0 ||
        db_commit(c, err) != 0) {
        db_rollback(c);
        return -1;
    }
    log_info("applied migration %s", m->name);
    return 0;
}

int db_migrate(const char *conninfo, const struct embedded_file *migrations, size_t count,
               int *applied, struct error *err)
{
    if (applied)
        *applied = 0;
    struct error cerr;
    PGconn *c = db_connect(conninfo, 30, &cerr);
    if (!c) {
        error_fail(err, ERR_UNAVAILABLE, "cannot connect to the catalog database: %s", cerr.msg);
        return -1;
    }
    int rc = -1;
    struct store_migrations_rows rows;
    if (store_migrations_lock(c, err) != 0 || store_migrations_list(c, &rows, err) != 0) {
        error_prefix(err, "migrations");
        goto out;
    }
    int known_max = 0;
    for (size_t i = 0; i < count; i++) {
        const struct embedded_file *m = &migrations[i];
        int version = version_of(m->name);
        if (version < 0) {
            error_fail(err, ERR_INTERNAL, "migration file %s is not named NNNN_name.sql", m->name);
            store_migrations_rows_free(&rows);
            goto out;
        }
        if (version > known_max)
            known_max = version;
        char digest[SHA256_HEX_CHARS + 1];
        if (sha256_hex(m->data, m->len, digest) != 0) {
            error_fail(err, ERR_INTERNAL, "sha256 failed");
            store_migrations_rows_free(&rows);
            goto out;
        }
        const char *stored = NULL;
        for (int row = 0; row < store_migrations_rows_count(&rows); row++)
            if (store_migrations_rows_version(&rows, row) == version)
                stored = store_migrations_rows_sha256(&rows, row);
        if (stored) {
            if (strcmp(stored, digest) != 0) {
                error_fail(err, ERR_INTERNAL,
                           "migration %s was changed after it was applied (sha256 %s in the "
                           "database, %s in this build); schema changes must be new migrations",
                           m->name, stored, digest);
                store_migrations_rows_free(&rows);
                goto out;
            }
            continue;
        }
        if (apply_one(c, m, version, digest, err) != 0) {
            store_migrations_rows_free(&rows);
            goto out;
        }
        if (applied)
            (*applied)++;
    }
    for (int row = 0; row < store_migrations_rows_count(&rows); row++)
        if (store_migrations_rows_version(&rows, row) > known_max)
            log_warn("the catalog database has migration %s, newer than this build; running "
                     "anyway (a newer replica is rolling out)",
                     store_migrations_rows_name(&rows, row));
    store_migrations_rows_free(&rows);
    rc = 0;
out:
    store_migrations_unlock(c);
    PQfinish(c);
    return rc;
}
