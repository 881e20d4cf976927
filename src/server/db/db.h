/* PostgreSQL access for hoglaked: a fixed-size connection pool and small,
 * parameterised query helpers over libpq.
 *
 * Thread-safety: the pool functions may be called from any thread. A
 * db_conn belongs to the thread that acquired it until it is released. */
#ifndef HL_SERVER_DB_H
#define HL_SERVER_DB_H

#include <libpq-fe.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"
#include "util/error.h"

struct db_pool;

/* Statements a connection keeps prepared (see db_batch_add). */
enum { DB_PREPARED_MAX = 64 };

/* Every connection's session bounds (db_connect): a statement runs at most
 * this long unless its user asks otherwise (db_conn_statement_timeout); a
 * transaction left idle is ended after 30 s. */
enum { DB_STATEMENT_TIMEOUT_MS = 60000 };

struct db_conn {
    PGconn *pg;
    struct db_pool *pool;
    bool in_use;
    /* The SQL texts prepared on pg, statement "hl<i>" for prepared[i];
     * compared by address, as batch SQL is static text. */
    int nprepared;
    const char *prepared[DB_PREPARED_MAX];
    int statement_timeout_ms; /* the session's statement_timeout now */
};

/* A failed statement fills a struct error (util/error.h): ERR_UNAVAILABLE
 * for a connection that broke or was shut down (no SQLSTATE, class 08,
 * 57P) and for the statements the server cancelled (lock and statement
 * timeouts, serialization failures, deadlocks), ERR_CONFLICT for a unique
 * violation, ERR_INTERNAL for the rest (other integrity violations
 * included: the catalog's own SQL broke a rule). The reason is the SQLSTATE when it is one of those
 * below (db_error_is tests it); any other SQLSTATE leads the message in brackets. */

/* SQLSTATEs the server maps to typed answers. */
#define SQLSTATE_UNIQUE_VIOLATION "23505"
#define SQLSTATE_FOREIGN_KEY_VIOLATION "23503"
#define SQLSTATE_CHECK_VIOLATION "23514"
#define SQLSTATE_LOCK_NOT_AVAILABLE "55P03"
#define SQLSTATE_QUERY_CANCELED "57014"
#define SQLSTATE_SERIALIZATION_FAILURE "40001"
#define SQLSTATE_DEADLOCK_DETECTED "40P01"
/* Raised by hog_assert (migration 0002). */
#define SQLSTATE_HOG_ASSERT "HLA01"

struct db_pool_stats {
    int active;  /* acquired connections */
    int idle;    /* open and free */
    int pending; /* threads waiting in acquire */
    int max;
};

/* conninfo is a libpq URI or key=value string. Connections open lazily; the
 * first one is opened here so a bad URL fails at start. Returns NULL and
 * writes a message on failure. */
struct db_pool *db_pool_create(const char *conninfo, int size, struct error *err);
void db_pool_destroy(struct db_pool *pool);
/* Waits up to timeout_ms for a free connection (opening one if the pool is
 * not full). An idle connection the server hung up on (db_conn_alive) is
 * replaced by a new one, so the first request after a database restart
 * does not fail. Returns NULL on timeout or when a connection cannot be
 * opened. */
struct db_conn *db_pool_acquire(struct db_pool *pool, int timeout_ms);
/* Returns a connection. A connection left inside a transaction or broken is
 * closed rather than reused. */
void db_pool_release(struct db_conn *conn);
/* The acquired pool connection whose libpq handle is pg, or NULL: lets code
 * handed a bare PGconn (maintenance passes) reuse the connection's
 * prepared-statement cache instead of colliding with it. */
struct db_conn *db_pool_owner(struct db_pool *pool, const PGconn *pg);
void db_pool_get_stats(struct db_pool *pool, struct db_pool_stats *out);
/* Sets the connection's statement_timeout (0 = none) when it differs from
 * what the session has: a round trip only when a connection changes hands
 * between readers and writers. 0 or -1. */
int db_conn_statement_timeout(struct db_conn *c, int ms, struct error *err);

/* Opens one connection outside any pool (probes, migrations). */
PGconn *db_connect(const char *conninfo, int connect_timeout_s, struct error *err);
/* Whether an idle connection is still usable: its status is OK and the
 * server has not hung up on it (a restarted database ends every session,
 * which libpq notices only on the next read). Never blocks. */
bool db_conn_alive(PGconn *pg);
/* Whether the database answers a trivial query on pg before deadline_ns
 * (time_mono_ns): libpq has no client-side timeout, so the query is sent
 * asynchronously and polled. false leaves pg unusable: the caller closes
 * it. */
bool db_probe(PGconn *pg, int64_t deadline_ns);

/* Parameter lists for db_exec: values are kept as text. */
enum { DB_MAX_PARAMS = 24 };
struct db_params {
    int n;
    const char *values[DB_MAX_PARAMS];
    char numbuf[DB_MAX_PARAMS][24];
};
void db_params_init(struct db_params *p);
void db_param_str(struct db_params *p, const char *s); /* NULL is SQL NULL */
void db_param_i64(struct db_params *p, int64_t v);
void db_param_bool(struct db_params *p, bool v);
void db_param_null(struct db_params *p);
/* Starts p as the n integers ids, $1..$n: the shape of almost every keyed
 * lookup (catalog, table, snapshot). More parameters may follow. */
void db_params_ids(struct db_params *p, size_t n, const int64_t *ids);
#define DB_PARAMS_IDS(p, ...)                                                                      \
    db_params_ids((p), sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t), (int64_t[]){__VA_ARGS__})

/* Runs one statement. Returns the result (PQclear it) for PGRES_COMMAND_OK
 * and PGRES_TUPLES_OK; otherwise NULL with err filled. */
PGresult *db_exec(PGconn *pg, const char *sql, const struct db_params *params, struct error *err);
/* db_exec for a statement built in sql (bad: building it failed, which
 * is out of memory); frees sql either way. */
PGresult *db_exec_built(PGconn *pg, struct buf *sql, int bad, const struct db_params *params,
                        struct error *err);
/* db_exec for statements whose result is not needed. Returns 0 or -1. */
int db_run(PGconn *pg, const char *sql, const struct db_params *params, struct error *err);
/* db_run for a statement whose answer is how many rows it changed (its
 * command tag: a DELETE's or UPDATE's count). Returns 0 or -1. */
int db_run_count(PGconn *pg, const char *sql, const struct db_params *params, int64_t *count,
                 struct error *err);
/* db_exec for a statement asked whether it returns any row: 1 when it
 * does, 0 when it returns none, -1 on failure. */
int db_exists(PGconn *pg, const char *sql, const struct db_params *params, struct error *err);
/* The first column of the first row as a bigint: 1 with *out set, 0 when
 * there is no row or the value is NULL (an aggregate over nothing), -1. */
int db_scalar_i64(PGconn *pg, const char *sql, const struct db_params *params, int64_t *out,
                  struct error *err);
/* One row of a binary COPY: field i is value[i], len[i] bytes (NULL and
 * -1 for SQL NULL), NUL-terminated; valid until the callback returns. */
enum { DB_COPY_MAX_FIELDS = 16 };
struct db_copy_row {
    int n;
    const char *value[DB_COPY_MAX_FIELDS];
    int32_t len[DB_COPY_MAX_FIELDS];
};
/* Takes one row; 0, or -1 with err set to stop the walk. */
typedef int db_copy_row_fn(void *ctx, const struct db_copy_row *row, struct error *err);
/* Runs sql, a `COPY (query) TO STDOUT (FORMAT binary)` of nfields columns
 * (no parameters: COPY takes none), and hands each row to fn as it
 * arrives: the caller's work on a row overlaps PostgreSQL's on the next,
 * a large result is never held whole, and a row costs one message (where
 * libpq's single-row mode built a result per row: a third of hoglaked's
 * CPU on a 54,000-table listing) in binary (no number formatting on
 * either side). When fn stops the walk, the rest is read and dropped, so
 * the connection stays usable. 0, or -1 with err (the statement's error,
 * fn's, or bytes that are not binary COPY rows of nfields). */
int db_copy_each_row(PGconn *pg, const char *sql, int nfields, db_copy_row_fn *fn, void *ctx,
                     struct error *err);
/* `COPY (select) TO STDOUT (FORMAT binary)` with select's $1..$n replaced
 * by ids: COPY takes no parameters, and integers need no quoting (select
 * holds no other `$`). malloc'd; NULL when out of memory or for a $k
 * past n (a programming error). */
char *db_copy_statement(const char *select, size_t n, const int64_t *ids);
/* Field i as a bigint (8 bytes, network order): false if it is not one. */
bool db_copy_i64(const struct db_copy_row *row, int i, int64_t *out);
/* Field i, a uuid (16 bytes), as its 36-character text: false if not one. */
bool db_copy_uuid(const struct db_copy_row *row, int i, char out[37]);

int64_t db_i64(const PGresult *r, int row, int col);
bool db_bool(const PGresult *r, int row, int col);
const char *db_str(const PGresult *r, int row, int col); /* NULL for SQL NULL */
bool db_isnull(const PGresult *r, int row, int col);
/* Transactions belong to the caller of the store: an engine or handler
 * opens one, calls store functions (which never begin, commit or roll
 * back), and ends it. */
int db_begin(PGconn *pg, struct error *err);
/* A read-only transaction that sees one snapshot of the database. */
int db_begin_read_snapshot(PGconn *pg, struct error *err);
int db_commit(PGconn *pg, struct error *err);
/* Rolls back the open transaction, if any (a failed step's cleanup: its
 * own failure leaves the connection for the pool's health check). */
void db_rollback(PGconn *pg);
/* A savepoint in the open transaction, and the way back to it: what a
 * step that may fail (or find it cannot finish) undoes while the
 * transaction goes on. One savepoint name: the latest one is the one
 * rolled back to. */
int db_savepoint(PGconn *pg, struct error *err);
int db_rollback_to_savepoint(PGconn *pg, struct error *err);
/* lock_timeout for the rest of the open transaction (0: wait forever). */
int db_set_lock_timeout(PGconn *pg, int64_t ms, struct error *err);

/* A nullable bigint: whether it is set, with its value (0 when NULL) in *out. */
bool db_i64_opt(const PGresult *r, int row, int col, int64_t *out);

bool db_error_is(const struct error *err, const char *sqlstate);
/* Fills err from a failed result, or from the connection when r is NULL. */
void db_error_from(PGconn *pg, const PGresult *r, struct error *err);

/* A batch: statements sent together in libpq's pipeline mode and answered
 * in one round trip, in order. Inside a transaction, a failed statement
 * aborts it and the server skips the rest of the batch.
 *
 *   db_batch_begin; db_batch_add ...; db_batch_run; read results[i];
 *   db_batch_free.
 *
 * Batch SQL must be static text: each statement is prepared once per
 * connection (parsed and planned once, as pgbench -M prepared does) and
 * looked up by the text's address. The parameters are copied when a
 * statement is added. A connection left in pipeline mode (a batch
 * abandoned or broken) is closed by the pool. Results are small; a batch
 * must not return more rows than the socket buffers hold before it is
 * read. */
/* Eight grouped commits of at most 13 statements and the group's four
 * (commit_group.c, commit_batch.h). */
enum { DB_BATCH_MAX = 108 };
struct db_batch {
    struct db_conn *conn;
    int n;
    bool broken;
    PGresult *results[DB_BATCH_MAX]; /* NULL for a failed or skipped statement */
    const char *sql[DB_BATCH_MAX];
    int preparing[DB_BATCH_MAX]; /* the prepared[] slot a statement creates, or -1 */
};
int db_batch_begin(struct db_batch *b, struct db_conn *conn, struct error *err);
/* Queues one statement; returns its index in results, or -1. */
int db_batch_add(struct db_batch *b, const char *sql, const struct db_params *params,
                 struct error *err);
/* Sends the batch and reads every answer. Returns 0 when all succeeded;
 * otherwise -1, with *failed the index of the first failure and err its
 * error. */
int db_batch_run(struct db_batch *b, int *failed, struct error *err);
void db_batch_free(struct db_batch *b);

/* One statement as a batch of one: static SQL (looked up by address) that
 * runs often, prepared once per connection. db_exec's contract otherwise. */
PGresult *db_exec_prepared(struct db_conn *conn, const char *sql, const struct db_params *params,
                           struct error *err);

#endif
