#include "server/store/migrations.h"

#include "server/db/db.h"

/* Advisory lock key for migrations: class 4740875, instance-wide (low 32
 * bits 0), beside the catalog lock class 4740871. */
#define MIGRATION_LOCK_KEY "20361903079424000" /* 4740875 << 32 */

int store_migrations_lock(PGconn *pg, struct error *err)
{
    if (db_run(pg, "SET statement_timeout = 0", NULL, err) != 0 ||
        db_run(pg, "SELECT pg_advisory_lock(" MIGRATION_LOCK_KEY ")", NULL, err) != 0 ||
        db_run(pg,
               "CREATE TABLE IF NOT EXISTS hog_schema_migration ("
               " version int PRIMARY KEY, name text NOT NULL, sha256 text NOT NULL,"
               " applied_at timestamptz NOT NULL DEFAULT now())",
               NULL, err) != 0)
        return -1;
    return 0;
}

void store_migrations_unlock(PGconn *pg)
{
    db_run(pg, "SELECT pg_advisory_unlock(" MIGRATION_LOCK_KEY ")", NULL, NULL);
}

int store_migrations_list(PGconn *pg, struct store_migrations_rows *out, struct error *err)
{
    out->r =
        db_exec(pg, "SELECT version, name, sha256 FROM hog_schema_migration ORDER BY 1", NULL, err);
    return out->r ? 0 : -1;
}

int store_migrations_rows_count(const struct store_migrations_rows *v)
{
    return PQntuples(v->r);
}

int64_t store_migrations_rows_version(const struct store_migrations_rows *v, int i)
{
    return db_i64(v->r, i, 0);
}

const char *store_migrations_rows_name(const struct store_migrations_rows *v, int i)
{
    return db_str(v->r, i, 1);
}

const char *store_migrations_rows_sha256(const struct store_migrations_rows *v, int i)
{
    return db_str(v->r, i, 2);
}

void store_migrations_rows_free(struct store_migrations_rows *v)
{
    PQclear(v->r);
    v->r = NULL;
}

int store_migrations_apply(PGconn *pg, const char *name, int version, const char *script,
                           const char *digest, struct error *err)
{
    /* PQexec runs the whole multi-statement file in the caller's
     * transaction. */
    PGresult *r = PQexec(pg, script);
    if (PQresultStatus(r) != PGRES_COMMAND_OK && PQresultStatus(r) != PGRES_TUPLES_OK) {
        error_fail(err, ERR_INTERNAL, "migration %s failed: %s", name, PQerrorMessage(pg));
        PQclear(r);
        return -1;
    }
    PQclear(r);
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, version);
    db_param_str(&p, name);
    db_param_str(&p, digest);
    if (db_run(pg, "INSERT INTO hog_schema_migration (version, name, sha256) VALUES ($1, $2, $3)",
               &p, err) != 0)
        return error_prefix(err, "migration %s", name);
    return 0;
}

int store_migrations_ensure_database(PGconn *pg, struct error *err)
{
    PGresult *r = db_exec(
        pg, "SELECT 1 FROM pg_database WHERE datname = '" STORE_EMBEDDED_DATABASE "'", NULL, err);
    if (!r)
        return -1;
    int rc = 0;
    if (PQntuples(r) == 0 &&
        db_run(pg, "CREATE DATABASE " STORE_EMBEDDED_DATABASE " ENCODING 'UTF8'", NULL, err) != 0)
        rc = error_prefix(err, "cannot create the database");
    PQclear(r);
    return rc;
}
