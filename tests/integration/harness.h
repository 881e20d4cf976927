/* Integration-test harness: a fresh PostgreSQL database per test program,
 * real hoglaked processes against it, and an HTTP client.
 *
 * Needs HOGLAKE_TEST_PG_URL: a postgresql:// URI of a server where the
 * test may create and drop databases (scripts/test.sh starts one). Every
 * helper fails the current cmocka test loudly rather than skipping. */
#ifndef HL_TEST_HARNESS_H
#define HL_TEST_HARNESS_H

#include <jansson.h>
#include <libpq-fe.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <sys/types.h>
#include <cmocka.h>

/* ---- databases ---- */

struct test_db {
    char name[64];
    char url[512];
};

/* Creates an empty database named after the test program. */
void test_db_create(struct test_db *db, const char *label);
void test_db_drop(struct test_db *db);
/* A libpq connection to the test database, for SQL-level checks. */
PGconn *test_db_connect(const struct test_db *db);
/* Runs a query expected to return one integer. */
int64_t test_db_scalar(PGconn *c, const char *sql);

/* SQL checks against the test database. Each test program picks its
 * connection once with test_sql_use(); the helpers below run on it and
 * fail the test on any error. Statements are printf-formatted. */
void test_sql_use(PGconn *c);
void sql_exec(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* One integer (-1 for NULL). */
int64_t sqli(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* One text value ("<null>" for NULL) compared with `expected`. */
void expect_sql(const char *expected, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Catalog facts by name. */
int64_t cat_id(const char *catalog);
int64_t head_of(const char *catalog);
/* The live table id of catalog.ns.table (fails when there is none). */
int64_t table_id_of(const char *catalog, const char *ns, const char *table);

/* Change rows of a catalog at a snapshot: all of them when kind is NULL,
 * else those of that kind naming object_id. */
int64_t change_rows(const char *catalog, int64_t snapshot, const char *kind, int64_t object_id);

/* A malloc'd copy of s with every ' turned into ", so JSON bodies can be
 * written readably in C strings. */
char *dq(const char *s);
void sleep_ms(int ms);

/* ---- servers ---- */

struct test_server {
    pid_t pid;
    int port;
    char base[64]; /* "http://127.0.0.1:PORT" */
    char dir[256]; /* scratch dir: port file, log */
    char log[300];
    char data_dir[300];
    /* The admin token: the secret the server bootstrapped into its data
     * dir, or the one an earlier server on the same database did ("" with
     * --auth off). Every request the helpers below send to this server
     * carries it, unless the caller sends its own Authorization header. */
    char token[128];
};

/* Starts hoglaked against db (NULL: embedded mode, data dir under dir) with
 * extra arguments (NULL-terminated list, may be NULL). Waits for it to
 * listen; authentication is on unless extra says --auth off. */
void test_server_start(struct test_server *s, const struct test_db *db, const char *const *extra);
/* The admin token of the started server whose base URL starts `url`
 * (the newest such), or NULL. */
const char *test_token_for(const char *url);
/* SIGTERM, then waits; fails the test if the exit status is not 0 (under
 * sanitizers this also catches leaks and errors at exit). */
void test_server_stop(struct test_server *s);
/* Prints the server log (for failures). */
void test_server_dump_log(const struct test_server *s);

/* ---- HTTP ---- */

struct http_result {
    long status;
    char *body;
    size_t body_len;
    json_t *json; /* parsed body when it is JSON, else NULL */
    char content_type[128];
    char retry_after[32];
    char request_id[160];
    char allow[64];
    char www_authenticate[160];
    char cache_control[64];
};

/* Sends a request. `content_type` NULL sends none; `body` NULL sends no
 * body. `headers` is a NULL-terminated list of extra "Name: value" lines.
 * Unless they hold an Authorization line, a request to a server the
 * harness started carries its admin token ("Authorization:" alone sends
 * none). */
void http_call(struct http_result *r, const char *method, const char *url, const char *content_type,
               const char *body, size_t body_len, const char *const *headers);
void http_result_free(struct http_result *r);

/* Conveniences over the server's base URL; path is printf-formatted. The
 * JSON body variants take ownership of `body` (json_decref'd). */
void api_get(struct http_result *r, const struct test_server *s, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void api_delete(struct http_result *r, const struct test_server *s, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void api_send(struct http_result *r, const struct test_server *s, const char *method, json_t *body,
              const char *fmt, ...) __attribute__((format(printf, 5, 6)));
void api_send_text(struct http_result *r, const struct test_server *s, const char *method,
                   const char *body, const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Requests the server has answered on `route` (its router pattern, e.g.
 * "/v1/catalogs/{catalog}") with `method`, summed over statuses, from its
 * hoglake_http_requests_total counter. */
int64_t test_route_requests(const struct test_server *s, const char *method, const char *route);
/* A `method` request without a body expecting 200; returns the parsed
 * body (caller json_decref's). */
json_t *api_call_json(const struct test_server *s, const char *method, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* GET; and POST without a body (a manual maintenance run). */
#define api_get_json(s, ...) api_call_json((s), "GET", __VA_ARGS__)
#define api_post_json(s, ...) api_call_json((s), "POST", __VA_ARGS__)

/* head_snapshot_id and schema_version as GET /v1/catalogs/{c} reports them,
 * and the assertion that they are exactly the given values. */
void api_head(const struct test_server *s, const char *catalog, int64_t *head, int64_t *sv);
void expect_api_head(const struct test_server *s, const char *catalog, int64_t head, int64_t sv);

/* Assertions that print the response on failure. */
#define expect_status(r, code) expect_status_at((r), (code), __FILE__, __LINE__)
#define expect_error(r, code, errcode) expect_error_at((r), (code), (errcode), __FILE__, __LINE__)
void expect_status_at(const struct http_result *r, long code, const char *file, int line);
/* Status, envelope shape {error, detail} and the error code. */
void expect_error_at(const struct http_result *r, long code, const char *errcode, const char *file,
                     int line);
/* The detail string of an error envelope contains `needle`. */
void expect_detail_contains(const struct http_result *r, const char *needle);

/* JSON field access that fails the test when the member is missing. */
json_int_t jint(const json_t *o, const char *key);
const char *jstr(const json_t *o, const char *key);

/* Builds a JSON value from a jansson pack format; fails the test on error. */
json_t *jpack(const char *fmt, ...);
/* Parses JSON text; fails the test on error. */
json_t *jparse(const char *text);

/* Creates catalog, namespace and optionally a table through the API,
 * asserting success. */
void make_catalog(const struct test_server *s, const char *name);
/* The same at a data path of the caller's. */
void make_catalog_at(const struct test_server *s, const char *name, const char *data_path);
void make_namespace(const struct test_server *s, const char *catalog, const char *ns);

/* The fixture most test files share: a fresh database labelled `label`,
 * one hoglaked on it, a SQL connection (*pg) made the sql helpers' own,
 * and, when catalog is not NULL, that catalog with namespace ns in it
 * (when ns is not NULL). test_stack_down undoes all of it. */
void test_stack_up(struct test_db *db, struct test_server *srv, PGconn **pg, const char *label,
                   const char *catalog, const char *ns);
void test_stack_down(struct test_db *db, struct test_server *srv, PGconn **pg);

/* SQL counting the advisory-lock requests still waiting in the current
 * database (pg_locks is cluster-wide; other test programs run beside). */
#define WAITING_FOR_ADVISORY_LOCK                                                                  \
    "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND database ="     \
    " (SELECT oid FROM pg_database WHERE datname = current_database())"
/* ---- DuckDB, the independent reader ---- */

/* Runs one SQL statement in DuckDB through node (interop_dir's
 * duckdb_query.mjs; the query goes through a file in scratch_dir) and
 * returns its rows, a line each, values tab-separated (malloc'd). Fails
 * the test when DuckDB does. */
char *test_duckdb(const char *node, const char *interop_dir, const char *scratch_dir,
                  const char *sql);

/* ---- the hoglake command ---- */

struct cli_out {
    int code;  /* exit status; -1 when killed */
    char *out; /* stdout, NUL-terminated (malloc'd) */
    char *err; /* stderr likewise */
};

/* Runs `BIN --server SERVER <args>` in directory cwd; args is
 * printf-formatted and already shell-quoted. The command gets the
 * server's admin token in HOGLAKE_TOKEN (test_token_for) unless the
 * test's own environment sets one; --token in args wins over both. */
void cli_run(struct cli_out *o, const char *bin, const char *server, const char *cwd,
             const char *fmt, ...) __attribute__((format(printf, 5, 6)));
void cli_out_free(struct cli_out *o);

/* A test's runs of the command, against one server from one directory
 * (set once, in setup; the strings must outlive the runs), each given
 * printf-formatted, already shell-quoted arguments: cli_do runs them;
 * cli_ok fails the test unless they exit 0; cli_refused unless they exit
 * `code` with `needle` in stderr. */
void cli_session(const char *bin, const char *server, const char *cwd);
void cli_do(struct cli_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cli_ok(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_refused(int code, const char *needle, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ---- environment ---- */

/* The value of an environment variable the suite's runner sets (the
 * database, moto and s3rver endpoints, the S3 keys): fails the test when
 * it is unset or empty, so a test needing it never skips silently. */
const char *test_need_env(const char *name);

/* ---- files and text ---- */

/* A new directory $TMPDIR/hl-<label>-XXXXXX into out (fails the test when
 * it cannot be made), and its removal with everything in it. */
void test_scratch_dir(char *out, size_t size, const char *label);
void test_remove_tree(const char *dir);
/* Regular files below dir whose names end with suffix ("" for any),
 * links not followed; 0 when dir does not exist. */
int64_t test_count_files(const char *dir, const char *suffix);

/* A whole file as a string (malloc'd); an empty string when it cannot be
 * read. */
char *test_read_text(const char *path);
/* Writes text to dir/name (replacing it); fails the test on error. */
void test_write_file(const char *dir, const char *name, const char *text);
/* Fails the test, naming `what` and showing text, unless text holds needle. */
void expect_contains(const char *text, const char *needle, const char *what);
/* Fails the test (naming `what`, with both outputs) unless it exited `code`. */
void cli_out_expect(const struct cli_out *o, int code, const char *what);

/* POSTs a commit body (single-quoted JSON, see dq) to the catalog's
 * /commit: the new snapshot id on 200, else minus the HTTP status.
 * api_commit fails the test (with the answer) unless it is 200. */
int64_t api_commit_status(const struct test_server *s, const char *catalog, const char *body_sq);
int64_t api_commit(const struct test_server *s, const char *catalog, const char *body_sq);

/* `columns_json` is the JSON array text of ColumnDefs. Returns the Table
 * response (caller json_decref's). */
json_t *make_table(const struct test_server *s, const char *catalog, const char *ns,
                   const char *table, const char *columns_json);

#endif
