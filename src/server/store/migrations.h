/* The store of the schema's own bookkeeping: owns hog_schema_migration
 * (which migration was applied, with its SHA-256) and the instance-wide
 * lock the migration runner (db/migrate.h) holds, and creates the catalog
 * database of an embedded cluster. The runner decides what to apply; the
 * statements it applies with are here.
 *
 * Functions run on a connection of its own the caller opened. */
#ifndef HL_SERVER_STORE_MIGRATIONS_H
#define HL_SERVER_STORE_MIGRATIONS_H

#include <libpq-fe.h>
#include <stdint.h>

struct error;

/* Lifts the session's statement timeout (migrations may take long on a
 * big catalog), takes the migration lock (waiting for a replica that
 * migrates) and creates hog_schema_migration when missing. */
int store_migrations_lock(PGconn *pg, struct error *err);
/* Releases the migration lock; best effort. */
void store_migrations_unlock(PGconn *pg);

/* The applied migrations by version, over the query's result. */
struct store_migrations_rows {
    PGresult *r;
};
int store_migrations_list(PGconn *pg, struct store_migrations_rows *out, struct error *err);
int store_migrations_rows_count(const struct store_migrations_rows *v);
int64_t store_migrations_rows_version(const struct store_migrations_rows *v, int i);
const char *store_migrations_rows_name(const struct store_migrations_rows *v, int i);
const char *store_migrations_rows_sha256(const struct store_migrations_rows *v, int i);
void store_migrations_rows_free(struct store_migrations_rows *v);

/* Runs the migration script (name, version, its SHA-256 digest) and
 * records it, in the caller's transaction. On failure, err's message says
 * which migration and why. */
int store_migrations_apply(PGconn *pg, const char *name, int version, const char *script,
                           const char *digest, struct error *err);

/* The catalog database of an embedded cluster, on a connection to its
 * postgres database: created when missing. */
#define STORE_EMBEDDED_DATABASE "hoglake"
int store_migrations_ensure_database(PGconn *pg, struct error *err);

#endif
