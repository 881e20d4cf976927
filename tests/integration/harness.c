#define _XOPEN_SOURCE 700 /* nftw: the FTW_ flags are XSI */
#include "harness.h"

#include <curl/curl.h>
#include <errno.h>
#include <ftw.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef HOGLAKED_BIN
#error "HOGLAKED_BIN must be defined by the build"
#endif

void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* ---- databases ---- */

static const char *admin_url(void)
{
    const char *u = getenv("HOGLAKE_TEST_PG_URL");
    if (!u || !*u)
        fail_msg("HOGLAKE_TEST_PG_URL is not set: run the suite through scripts/test.sh, which "
                 "starts PostgreSQL");
    return u;
}

static PGconn *connect_or_fail(const char *url)
{
    PGconn *c = PQconnectdb(url);
    if (PQstatus(c) != CONNECTION_OK) {
        char msg[512];
        snprintf(msg, sizeof msg, "%s", PQerrorMessage(c));
        PQfinish(c);
        fail_msg("cannot connect to %s: %s", url, msg);
    }
    return c;
}

static void exec_or_fail(PGconn *c, const char *sql)
{
    PGresult *r = PQexec(c, sql);
    if (PQresultStatus(r) != PGRES_COMMAND_OK && PQresultStatus(r) != PGRES_TUPLES_OK) {
        char msg[512];
        snprintf(msg, sizeof msg, "%s", PQerrorMessage(c));
        PQclear(r);
        fail_msg("SQL failed: %s: %s", sql, msg);
    }
    PQclear(r);
}

void test_db_create(struct test_db *db, const char *label)
{
    static int counter;
    snprintf(db->name, sizeof db->name, "hlt_%s_%d_%d", label, (int)getpid(), counter++);
    const char *admin = admin_url();
    PGconn *c = connect_or_fail(admin);
    char sql[160];
    snprintf(sql, sizeof sql, "CREATE DATABASE %s", db->name);
    exec_or_fail(c, sql);
    PQfinish(c);
    /* Replace the URI's database (the path after the authority). */
    const char *auth = strstr(admin, "://");
    const char *slash = auth ? strchr(auth + 3, '/') : NULL;
    const char *query = strchr(admin, '?');
    size_t prefix =
        slash ? (size_t)(slash - admin) : (query ? (size_t)(query - admin) : strlen(admin));
    snprintf(db->url, sizeof db->url, "%.*s/%s%s", (int)prefix, admin, db->name,
             query ? query : "");
}

/* Exits: cmocka ignores a failure inside a group teardown, where most
 * tests drop their database, and this one must fail the test. */
static void totals_broken(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void totals_broken(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("ERROR: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

/* A connection to db when the server migrated it as far as `relation`
 * (a database it never migrated has nothing to check), else NULL. */
static PGconn *connect_if_migrated(const struct test_db *db, const char *relation)
{
    PGconn *c = connect_or_fail(db->url);
    const char *params[] = {relation};
    PGresult *r =
        PQexecParams(c, "SELECT to_regclass($1) IS NOT NULL", 1, NULL, params, NULL, NULL, 0);
    bool migrated = PQresultStatus(r) == PGRES_TUPLES_OK && strcmp(PQgetvalue(r, 0, 0), "t") == 0;
    PQclear(r);
    if (!migrated) {
        PQfinish(c);
        return NULL;
    }
    return c;
}

/* Every table's maintained totals (migration 10) equal the totals its rows
 * give at its catalog's head, and every table has them: checked on every
 * test database before it goes, so each test's commits, deletes, truncates,
 * compactions, expiries and retirements prove the triggers keep them. */
static void check_live_totals(const struct test_db *db)
{
    PGconn *c = connect_if_migrated(db, "hog_table_live_totals");
    if (!c)
        return;
    PGresult *r = PQexec(
        c, "SELECT l.catalog_id, l.table_id, l.record_count, l.file_count, l.file_size_bytes,"
           " l.snapshot_count,"
           " hog_table_totals_at(l.catalog_id, l.table_id, k.last_snapshot_id)::text"
           " FROM hog_table_live_totals l JOIN hog_catalog k USING (catalog_id)"
           " WHERE ROW(l.record_count, l.file_count, l.file_size_bytes, l.snapshot_count)"
           "  ::hog_table_totals IS DISTINCT FROM"
           "  hog_table_totals_at(l.catalog_id, l.table_id, k.last_snapshot_id)"
           " OR l.changed_snapshot > k.last_snapshot_id"
           " UNION ALL SELECT t.catalog_id, t.table_id, NULL, NULL, NULL, NULL, 'no row'"
           " FROM hog_table t WHERE NOT EXISTS (SELECT 1 FROM hog_table_live_totals l"
           "  WHERE l.catalog_id = t.catalog_id AND l.table_id = t.table_id) LIMIT 1");
    if (PQresultStatus(r) != PGRES_TUPLES_OK) {
        char msg[512];
        snprintf(msg, sizeof msg, "%s", PQerrorMessage(c));
        PQclear(r);
        PQfinish(c);
        totals_broken("checking the maintained totals: %s", msg);
    }
    if (PQntuples(r) > 0) {
        char msg[512];
        snprintf(msg, sizeof msg,
                 "catalog %s table %s: maintained totals (records %s, files %s, bytes %s,"
                 " snapshots %s) but its rows give %s",
                 PQgetvalue(r, 0, 0), PQgetvalue(r, 0, 1), PQgetvalue(r, 0, 2), PQgetvalue(r, 0, 3),
                 PQgetvalue(r, 0, 4), PQgetvalue(r, 0, 5), PQgetvalue(r, 0, 6));
        PQclear(r);
        PQfinish(c);
        totals_broken("%s", msg);
    }
    PQclear(r);
    PQfinish(c);
}

/* Fails the run with the first row sql finds in db, if the server
 * migrated it as far as `relation`. */
static void check_no_row(const struct test_db *db, const char *relation, const char *what,
                         const char *sql)
{
    PGconn *c = connect_if_migrated(db, relation);
    if (!c)
        return;
    PGresult *r = PQexec(c, sql);
    char msg[512] = "";
    if (PQresultStatus(r) != PGRES_TUPLES_OK) {
        snprintf(msg, sizeof msg, "checking for %s: %s", what, PQerrorMessage(c));
    } else if (PQntuples(r) > 0) {
        size_t len = (size_t)snprintf(msg, sizeof msg, "%s:", what);
        for (int k = 0; k < PQnfields(r) && len < sizeof msg; k++)
            len += (size_t)snprintf(msg + len, sizeof msg - len, " %s", PQgetvalue(r, 0, k));
    }
    PQclear(r);
    PQfinish(c);
    if (msg[0])
        totals_broken("%s", msg);
}

/* Every table's listing copy (migration 12) is its live version's, and a
 * dropped table has none: checked with the totals. */
static void check_live_listing(const struct test_db *db)
{
    check_no_row(db, "hog_table_version_ended_by_namespace",
                 "a listing copy that is not its live version (catalog, table)",
                 "SELECT l.catalog_id, l.table_id FROM hog_table_live_totals l"
                 " JOIN hog_table t USING (catalog_id, table_id)"
                 " LEFT JOIN hog_table_version v ON v.catalog_id = l.catalog_id"
                 "  AND v.table_id = l.table_id AND v.end_snapshot IS NULL"
                 " WHERE ROW(l.namespace_id, l.name, l.comment, l.listed_snapshot)"
                 "  IS DISTINCT FROM ROW(v.namespace_id, v.name, v.comment, v.begin_snapshot)"
                 " OR (v.table_id IS NOT NULL AND l.table_uuid IS DISTINCT FROM t.table_uuid)"
                 " LIMIT 1");
}

/* Nothing names a deleted data file: its partition values and deletion
 * vectors go in the statement that deletes it (migration 17 dropped the
 * cascades), and a partition value carries its file's table. Checked with
 * the totals, so every test's expiries and retirements prove it. */
static void check_file_references(const struct test_db *db)
{
    check_no_row(db, "hog_file_partition_value",
                 "a row naming a deleted data file or catalog (what, catalog, id)",
                 "SELECT 'a partition value', p.catalog_id, p.data_file_id"
                 " FROM hog_file_partition_value p LEFT JOIN hog_data_file d"
                 "  ON d.catalog_id = p.catalog_id AND d.data_file_id = p.data_file_id"
                 " WHERE d.table_id IS DISTINCT FROM p.table_id"
                 " UNION ALL SELECT 'a deletion vector', v.catalog_id, v.data_file_id"
                 " FROM hog_delete_file v WHERE NOT EXISTS (SELECT 1 FROM hog_data_file d"
                 "  WHERE d.catalog_id = v.catalog_id AND d.data_file_id = v.data_file_id)"
                 " UNION ALL SELECT 'a queued removal', q.catalog_id, q.removal_id"
                 " FROM hog_file_removal q WHERE NOT EXISTS (SELECT 1 FROM hog_catalog k"
                 "  WHERE k.catalog_id = q.catalog_id) LIMIT 1");
}

void test_db_drop(struct test_db *db)
{
    check_live_totals(db);
    check_live_listing(db);
    check_file_references(db);
    PGconn *c = connect_or_fail(admin_url());
    char sql[160];
    snprintf(sql, sizeof sql, "DROP DATABASE IF EXISTS %s WITH (FORCE)", db->name);
    exec_or_fail(c, sql);
    PQfinish(c);
}

PGconn *test_db_connect(const struct test_db *db)
{
    return connect_or_fail(db->url);
}

int64_t test_db_scalar(PGconn *c, const char *sql)
{
    PGresult *r = PQexec(c, sql);
    if (PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != 1) {
        char msg[512];
        snprintf(msg, sizeof msg, "%s", PQerrorMessage(c));
        PQclear(r);
        fail_msg("scalar query failed: %s: %s", sql, msg);
    }
    int64_t v = PQgetisnull(r, 0, 0) ? -1 : strtoll(PQgetvalue(r, 0, 0), NULL, 10);
    PQclear(r);
    return v;
}

static PGconn *sql_conn;

void test_sql_use(PGconn *c)
{
    sql_conn = c;
}

static void vformat(char *out, size_t size, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
static void vformat(char *out, size_t size, const char *fmt, va_list ap)
{
    int n = vsnprintf(out, size, fmt, ap);
    if (n < 0 || (size_t)n >= size)
        fail_msg("formatted SQL too long: %s", fmt);
    if (!sql_conn)
        fail_msg("test_sql_use() was not called");
}

void sql_exec(const char *fmt, ...)
{
    char sql[8192];
    va_list ap;
    va_start(ap, fmt);
    vformat(sql, sizeof sql, fmt, ap);
    va_end(ap);
    exec_or_fail(sql_conn, sql);
}

int64_t sqli(const char *fmt, ...)
{
    char sql[8192];
    va_list ap;
    va_start(ap, fmt);
    vformat(sql, sizeof sql, fmt, ap);
    va_end(ap);
    return test_db_scalar(sql_conn, sql);
}

void expect_sql(const char *expected, const char *fmt, ...)
{
    char sql[8192];
    va_list ap;
    va_start(ap, fmt);
    vformat(sql, sizeof sql, fmt, ap);
    va_end(ap);
    PGresult *r = PQexec(sql_conn, sql);
    if (PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != 1) {
        char msg[512];
        snprintf(msg, sizeof msg, "%s", PQerrorMessage(sql_conn));
        PQclear(r);
        fail_msg("text query failed: %s: %s", sql, msg);
    }
    char got[8192];
    snprintf(got, sizeof got, "%s", PQgetisnull(r, 0, 0) ? "<null>" : PQgetvalue(r, 0, 0));
    PQclear(r);
    if (strcmp(got, expected) != 0)
        fail_msg("SQL %s\n  expected: %s\n  got:      %s", sql, expected, got);
}

int64_t cat_id(const char *catalog)
{
    return sqli("SELECT catalog_id FROM hog_catalog WHERE name = '%s'", catalog);
}

int64_t head_of(const char *catalog)
{
    return sqli("SELECT last_snapshot_id FROM hog_catalog WHERE name = '%s'", catalog);
}

int64_t table_id_of(const char *catalog, const char *ns, const char *table)
{
    int64_t id = sqli("SELECT max(v.table_id) FROM hog_table_version v"
                      " JOIN hog_namespace n USING (catalog_id, namespace_id)"
                      " JOIN hog_catalog c USING (catalog_id)"
                      " WHERE c.name = '%s' AND n.name = '%s' AND n.dropped_snapshot IS NULL"
                      " AND v.name = '%s' AND v.end_snapshot IS NULL",
                      catalog, ns, table);
    if (id < 0)
        fail_msg("no live table %s.%s.%s", catalog, ns, table);
    return id;
}

int64_t change_rows(const char *catalog, int64_t snapshot, const char *kind, int64_t object_id)
{
    if (!kind)
        return sqli("SELECT count(*) FROM hog_snapshot_change s JOIN hog_catalog c USING"
                    " (catalog_id) WHERE c.name = '%s' AND s.snapshot_id = %lld",
                    catalog, (long long)snapshot);
    return sqli("SELECT count(*) FROM hog_snapshot_change s JOIN hog_catalog c USING (catalog_id)"
                " WHERE c.name = '%s' AND s.snapshot_id = %lld AND s.kind = '%s' AND"
                " s.object_id = %lld",
                catalog, (long long)snapshot, kind, (long long)object_id);
}

char *dq(const char *s)
{
    char *out = strdup(s);
    if (!out)
        fail_msg("out of memory");
    for (char *p = out; *p; p++)
        if (*p == '\'')
            *p = '"';
    return out;
}

/* ---- servers ---- */

void test_server_dump_log(const struct test_server *s)
{
    FILE *f = fopen(s->log, "r");
    if (!f)
        return;
    fprintf(stderr, "---- hoglaked log (%s) ----\n", s->log);
    char line[1024];
    while (fgets(line, sizeof line, f))
        fputs(line, stderr);
    fprintf(stderr, "---- end of log ----\n");
    fclose(f);
}

/* Every server started, newest last, for test_token_for. Servers on the
 * same database share its one admin token: only the first writes it. */
enum { MAX_STARTED = 256 };
static struct {
    char base[64];
    char db[64];
    char token[128];
} started[MAX_STARTED];
static int nstarted;

const char *test_token_for(const char *url)
{
    for (int i = nstarted - 1; i >= 0; i--) {
        size_t n = strlen(started[i].base);
        if (strncmp(url, started[i].base, n) == 0 && (url[n] == '\0' || url[n] == '/'))
            return started[i].token[0] ? started[i].token : NULL;
    }
    return NULL;
}

/* The admin token a server bootstrapped, or the one of its database. */
static void find_admin_token(struct test_server *s, const struct test_db *db)
{
    char path[400];
    snprintf(path, sizeof path, "%s/admin.token", s->data_dir);
    FILE *f = fopen(path, "r");
    if (f) {
        if (!fgets(s->token, sizeof s->token, f))
            s->token[0] = '\0';
        s->token[strcspn(s->token, "\r\n")] = '\0';
        fclose(f);
    }
    for (int i = nstarted - 1; !s->token[0] && db && i >= 0; i--)
        if (strcmp(started[i].db, db->name) == 0)
            snprintf(s->token, sizeof s->token, "%s", started[i].token);
    if (nstarted == MAX_STARTED)
        fail_msg("more than %d servers started in one test program", MAX_STARTED);
    snprintf(started[nstarted].base, sizeof started[nstarted].base, "%s", s->base);
    snprintf(started[nstarted].db, sizeof started[nstarted].db, "%s", db ? db->name : "");
    snprintf(started[nstarted].token, sizeof started[nstarted].token, "%s", s->token);
    nstarted++;
}

void test_server_start(struct test_server *s, const struct test_db *db, const char *const *extra)
{
    memset(s, 0, sizeof *s);
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(s->dir, sizeof s->dir, "%s/hltest.XXXXXX", tmp);
    if (!mkdtemp(s->dir))
        fail_msg("mkdtemp: %s", strerror(errno));
    /* The embedded cluster's owner must be able to reach the data dir. */
    chmod(s->dir, 0755);
    char port_file[300];
    snprintf(port_file, sizeof port_file, "%s/port", s->dir);
    snprintf(s->log, sizeof s->log, "%s/hoglaked.log", s->dir);
    snprintf(s->data_dir, sizeof s->data_dir, "%s/data", s->dir);
    /* A test may name the data dir (a restart on the same one). */
    for (int i = 0; extra && extra[i] && extra[i + 1]; i++)
        if (strcmp(extra[i], "--data-dir") == 0)
            snprintf(s->data_dir, sizeof s->data_dir, "%s", extra[i + 1]);

    const char *argv[48];
    int n = 0;
    argv[n++] = HOGLAKED_BIN;
    argv[n++] = "--port";
    argv[n++] = "0";
    argv[n++] = "--port-file";
    argv[n++] = port_file;
    argv[n++] = "--data-dir";
    argv[n++] = s->data_dir;
    if (db) {
        argv[n++] = "--database-url";
        argv[n++] = db->url;
    }
    /* Tests make file:// catalogs in their scratch directories: all of
     * $TMPDIR is a file root, unless the test says otherwise. */
    bool roots_given = false;
    for (int i = 0; extra && extra[i]; i++)
        roots_given = roots_given || strcmp(extra[i], "--file-roots") == 0;
    if (!roots_given) {
        argv[n++] = "--file-roots";
        argv[n++] = tmp;
    }
    /* Tests plant files anywhere as root and check them as root: the
     * server stays root too, unless a test names the user it becomes
     * (tests/security/test_privileges.c). */
    bool user_given = false;
    for (int i = 0; extra && extra[i]; i++)
        user_given = user_given || strcmp(extra[i], "--user") == 0;
    if (!user_given && geteuid() == 0)
        argv[n++] = "--allow-root";
    for (int i = 0; extra && extra[i] && n < 46; i++)
        argv[n++] = extra[i];
    argv[n] = NULL;

    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0)
        fail_msg("fork: %s", strerror(errno));
    if (pid == 0) {
        /* The server goes with the test process: one that ends without
         * its teardown (a helper's exit(1), a crash) would leave it
         * running, holding its database and port. */
        if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || getppid() != parent)
            _exit(127);
        int fd = open(s->log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            dup2(fd, STDOUT_FILENO);
            dup2(fd, STDERR_FILENO);
        }
        /* Keep the test's own environment from configuring the server. */
        unsetenv("HOGLAKE_DATABASE_URL");
        unsetenv("HOGLAKE_PORT");
        unsetenv("HOGLAKE_DATA_DIR");
        unsetenv("HOGLAKE_AUTH");
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    s->pid = pid;
    for (int waited = 0; waited < 60000; waited += 20) {
        FILE *f = fopen(port_file, "r");
        if (f) {
            int port = 0;
            if (fscanf(f, "%d", &port) == 1 && port > 0) {
                fclose(f);
                s->port = port;
                snprintf(s->base, sizeof s->base, "http://127.0.0.1:%d", port);
                find_admin_token(s, db);
                return;
            }
            fclose(f);
        }
        int status;
        if (waitpid(pid, &status, WNOHANG) == pid) {
            s->pid = 0;
            test_server_dump_log(s);
            fail_msg("hoglaked exited during start-up (status %d)", status);
        }
        sleep_ms(20);
    }
    test_server_dump_log(s);
    fail_msg("hoglaked did not start listening within 60 s");
}

void test_server_stop(struct test_server *s)
{
    if (s->pid <= 0)
        return;
    kill(s->pid, SIGTERM);
    int status = 0;
    for (int waited = 0;; waited += 20) {
        pid_t w = waitpid(s->pid, &status, WNOHANG);
        if (w == s->pid)
            break;
        if (waited > 60000) {
            kill(s->pid, SIGKILL);
            waitpid(s->pid, &status, 0);
            test_server_dump_log(s);
            s->pid = 0;
            fail_msg("hoglaked did not stop within 60 s of SIGTERM");
        }
        sleep_ms(20);
    }
    s->pid = 0;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        test_server_dump_log(s);
        fail_msg("hoglaked exited with status %d after SIGTERM",
                 WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
    }
}

/* ---- HTTP ---- */

struct body_sink {
    char *data;
    size_t len;
};

static size_t on_body(char *ptr, size_t size, size_t nmemb, void *ud)
{
    struct body_sink *b = ud;
    size_t n = size * nmemb;
    char *grown = realloc(b->data, b->len + n + 1);
    if (!grown)
        return 0;
    memcpy(grown + b->len, ptr, n);
    b->data = grown;
    b->len += n;
    b->data[b->len] = '\0';
    return n;
}

static void header_value(const char *line, size_t n, const char *name, char *out, size_t out_size)
{
    size_t k = strlen(name);
    if (n <= k + 1 || strncasecmp(line, name, k) != 0 || line[k] != ':')
        return;
    const char *v = line + k + 1;
    size_t len = n - k - 1;
    while (len && (*v == ' ' || *v == '\t')) {
        v++;
        len--;
    }
    while (len && (v[len - 1] == '\r' || v[len - 1] == '\n' || v[len - 1] == ' '))
        len--;
    snprintf(out, out_size, "%.*s", (int)len, v);
}

static size_t on_header(char *line, size_t size, size_t nmemb, void *ud)
{
    struct http_result *r = ud;
    size_t n = size * nmemb;
    header_value(line, n, "Content-Type", r->content_type, sizeof r->content_type);
    header_value(line, n, "Retry-After", r->retry_after, sizeof r->retry_after);
    header_value(line, n, "X-Request-Id", r->request_id, sizeof r->request_id);
    header_value(line, n, "Allow", r->allow, sizeof r->allow);
    header_value(line, n, "WWW-Authenticate", r->www_authenticate, sizeof r->www_authenticate);
    header_value(line, n, "Cache-Control", r->cache_control, sizeof r->cache_control);
    return n;
}

void http_call(struct http_result *r, const char *method, const char *url, const char *content_type,
               const char *body, size_t body_len, const char *const *headers)
{
    memset(r, 0, sizeof *r);
    CURL *c = curl_easy_init();
    if (!c)
        fail_msg("curl_easy_init failed");
    struct body_sink sink = {NULL, 0};
    struct curl_slist *hdrs = NULL;
    char ct[160];
    if (content_type) {
        snprintf(ct, sizeof ct, "Content-Type: %s", content_type);
        hdrs = curl_slist_append(hdrs, ct);
    }
    /* Never let curl add "Expect: 100-continue": it only slows tests. */
    hdrs = curl_slist_append(hdrs, "Expect:");
    bool own_auth = false;
    for (int i = 0; headers && headers[i]; i++) {
        hdrs = curl_slist_append(hdrs, headers[i]);
        own_auth = own_auth || strncasecmp(headers[i], "Authorization:", 14) == 0;
    }
    const char *token = own_auth ? NULL : test_token_for(url);
    char authz[200];
    if (token) {
        snprintf(authz, sizeof authz, "Authorization: Bearer %s", token);
        hdrs = curl_slist_append(hdrs, authz);
    }
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    if (strcmp(method, "HEAD") == 0)
        curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
    if (body) {
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)body_len);
    }
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &sink);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, r);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 120L);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    CURLcode rc = curl_easy_perform(c);
    curl_slist_free_all(hdrs);
    if (rc != CURLE_OK) {
        free(sink.data);
        curl_easy_cleanup(c);
        fail_msg("%s %s: %s", method, url, curl_easy_strerror(rc));
    }
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->status);
    curl_easy_cleanup(c);
    r->body = sink.data ? sink.data : calloc(1, 1);
    r->body_len = sink.len;
    if (strncmp(r->content_type, "application/json", 16) == 0 && r->body_len)
        r->json = json_loadb(r->body, r->body_len, 0, NULL);
}

void http_result_free(struct http_result *r)
{
    free(r->body);
    json_decref(r->json);
    memset(r, 0, sizeof *r);
}

static void vurl(char *out, size_t size, const struct test_server *s, const char *fmt, va_list ap)
{
    int n = snprintf(out, size, "%s", s->base);
    vsnprintf(out + n, size - (size_t)n, fmt, ap);
}

void api_get(struct http_result *r, const struct test_server *s, const char *fmt, ...)
{
    char url[2048];
    va_list ap;
    va_start(ap, fmt);
    vurl(url, sizeof url, s, fmt, ap);
    va_end(ap);
    http_call(r, "GET", url, NULL, NULL, 0, NULL);
}

int64_t test_route_requests(const struct test_server *s, const char *method, const char *route)
{
    struct http_result r;
    /* A request of its own first: the one before it has been counted by
     * the time this one is answered. */
    api_get(&r, s, "/livez");
    http_result_free(&r);
    api_get(&r, s, "/metrics");
    expect_status(&r, 200);
    char want_route[600], want_method[40];
    snprintf(want_route, sizeof want_route, "route=\"%s\"", route);
    snprintf(want_method, sizeof want_method, "method=\"%s\"", method);
    int64_t total = 0;
    char *save = NULL;
    for (char *line = strtok_r(r.body, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
        if (strncmp(line, "hoglake_http_requests_total{", 28) == 0 && strstr(line, want_route) &&
            strstr(line, want_method))
            total += strtoll(strrchr(line, ' ') + 1, NULL, 10);
    http_result_free(&r);
    return total;
}

void api_delete(struct http_result *r, const struct test_server *s, const char *fmt, ...)
{
    char url[2048];
    va_list ap;
    va_start(ap, fmt);
    vurl(url, sizeof url, s, fmt, ap);
    va_end(ap);
    http_call(r, "DELETE", url, NULL, NULL, 0, NULL);
}

void api_send(struct http_result *r, const struct test_server *s, const char *method, json_t *body,
              const char *fmt, ...)
{
    char url[2048];
    va_list ap;
    va_start(ap, fmt);
    vurl(url, sizeof url, s, fmt, ap);
    va_end(ap);
    char *text = json_dumps(body, JSON_COMPACT);
    json_decref(body);
    if (!text)
        fail_msg("json_dumps failed");
    http_call(r, method, url, "application/json", text, strlen(text), NULL);
    free(text);
}

void api_send_text(struct http_result *r, const struct test_server *s, const char *method,
                   const char *body, const char *fmt, ...)
{
    char url[2048];
    va_list ap;
    va_start(ap, fmt);
    vurl(url, sizeof url, s, fmt, ap);
    va_end(ap);
    http_call(r, method, url, "application/json", body, strlen(body), NULL);
}

json_t *api_call_json(const struct test_server *s, const char *method, const char *fmt, ...)
{
    char url[2048];
    va_list ap;
    va_start(ap, fmt);
    vurl(url, sizeof url, s, fmt, ap);
    va_end(ap);
    struct http_result r;
    http_call(&r, method, url, NULL, NULL, 0, NULL);
    expect_status(&r, 200);
    json_t *out = json_incref(r.json);
    http_result_free(&r);
    if (!out)
        fail_msg("%s %s: the body is not JSON", method, url);
    return out;
}

void api_head(const struct test_server *s, const char *catalog, int64_t *head, int64_t *sv)
{
    json_t *c = api_get_json(s, "/v1/catalogs/%s", catalog);
    *head = jint(c, "head_snapshot_id");
    *sv = jint(c, "schema_version");
    json_decref(c);
}

void expect_api_head(const struct test_server *s, const char *catalog, int64_t head, int64_t sv)
{
    int64_t h, v;
    api_head(s, catalog, &h, &v);
    if (h != head || v != sv)
        fail_msg("catalog '%s': expected head %lld / schema_version %lld, got %lld / %lld", catalog,
                 (long long)head, (long long)sv, (long long)h, (long long)v);
}

void expect_status_at(const struct http_result *r, long code, const char *file, int line)
{
    if (r->status != code)
        fail_msg("%s:%d: expected HTTP %ld, got %ld: %s", file, line, code, r->status,
                 r->body ? r->body : "");
}

void expect_error_at(const struct http_result *r, long code, const char *errcode, const char *file,
                     int line)
{
    expect_status_at(r, code, file, line);
    if (!r->json || !json_is_object(r->json))
        fail_msg("%s:%d: error body is not a JSON object: %s", file, line, r->body);
    const char *e = json_string_value(json_object_get(r->json, "error"));
    const char *d = json_string_value(json_object_get(r->json, "detail"));
    if (!e || !d)
        fail_msg("%s:%d: error envelope lacks error/detail: %s", file, line, r->body);
    if (strcmp(e, errcode) != 0)
        fail_msg("%s:%d: expected error code %s, got %s: %s", file, line, errcode, e, r->body);
}

void expect_detail_contains(const struct http_result *r, const char *needle)
{
    const char *d = r->json ? json_string_value(json_object_get(r->json, "detail")) : NULL;
    if (!d || !strstr(d, needle))
        fail_msg("expected detail containing \"%s\", got: %s", needle, r->body);
}

json_int_t jint(const json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    if (!json_is_integer(v)) {
        char *dump = json_dumps(o, JSON_COMPACT);
        fail_msg("missing integer member '%s' in %s", key, dump ? dump : "?");
    }
    return json_integer_value(v);
}

const char *jstr(const json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    if (!json_is_string(v)) {
        char *dump = json_dumps(o, JSON_COMPACT);
        fail_msg("missing string member '%s' in %s", key, dump ? dump : "?");
    }
    return json_string_value(v);
}

json_t *jpack(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    json_error_t e;
    json_t *v = json_vpack_ex(&e, 0, fmt, ap);
    va_end(ap);
    if (!v)
        fail_msg("json_pack(%s): %s", fmt, e.text);
    return v;
}

json_t *jparse(const char *text)
{
    json_error_t e;
    json_t *v = json_loads(text, 0, &e);
    if (!v)
        fail_msg("bad test JSON (%s): %s", e.text, text);
    return v;
}

void make_catalog(const struct test_server *s, const char *name)
{
    char path[200];
    snprintf(path, sizeof path, "s3://hoglake-test/%s", name);
    make_catalog_at(s, name, path);
}

void make_catalog_at(const struct test_server *s, const char *name, const char *data_path)
{
    struct http_result r;
    api_send(&r, s, "POST", jpack("{s:s,s:s}", "name", name, "data_path", data_path),
             "/v1/catalogs");
    expect_status(&r, 201);
    http_result_free(&r);
}

static int64_t commit_body(const struct test_server *s, const char *catalog, const char *body_sq,
                           bool must_succeed)
{
    char *b = dq(body_sq);
    struct http_result r;
    api_send_text(&r, s, "POST", b, "/v1/catalogs/%s/commit", catalog);
    free(b);
    if (must_succeed)
        expect_status(&r, 200);
    int64_t snap = r.status == 200 ? jint(r.json, "snapshot_id") : -r.status;
    http_result_free(&r);
    return snap;
}

int64_t api_commit_status(const struct test_server *s, const char *catalog, const char *body_sq)
{
    return commit_body(s, catalog, body_sq, false);
}

int64_t api_commit(const struct test_server *s, const char *catalog, const char *body_sq)
{
    return commit_body(s, catalog, body_sq, true);
}

void make_namespace(const struct test_server *s, const char *catalog, const char *ns)
{
    struct http_result r;
    api_send(&r, s, "POST", jpack("{s:s}", "name", ns), "/v1/catalogs/%s/namespaces", catalog);
    expect_status(&r, 201);
    http_result_free(&r);
}

json_t *make_table(const struct test_server *s, const char *catalog, const char *ns,
                   const char *table, const char *columns_json)
{
    struct http_result r;
    api_send(&r, s, "POST", jpack("{s:s,s:o}", "name", table, "columns", jparse(columns_json)),
             "/v1/catalogs/%s/namespaces/%s/tables", catalog, ns);
    expect_status(&r, 201);
    json_t *t = json_incref(r.json);
    http_result_free(&r);
    return t;
}

void test_stack_up(struct test_db *db, struct test_server *srv, PGconn **pg, const char *label,
                   const char *catalog, const char *ns)
{
    test_db_create(db, label);
    test_server_start(srv, db, NULL);
    *pg = test_db_connect(db);
    test_sql_use(*pg);
    if (catalog)
        make_catalog(srv, catalog);
    if (catalog && ns)
        make_namespace(srv, catalog, ns);
}

void test_stack_down(struct test_db *db, struct test_server *srv, PGconn **pg)
{
    if (*pg)
        PQfinish(*pg);
    *pg = NULL;
    test_server_stop(srv);
    test_db_drop(db);
}

char *test_read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    size_t cap = 4096, n = 0;
    char *p = malloc(cap);
    assert_non_null(p);
    size_t k;
    while (f && (k = fread(p + n, 1, cap - n - 1, f)) > 0) {
        n += k;
        if (cap - n - 1 == 0) {
            cap *= 2;
            p = realloc(p, cap);
            assert_non_null(p);
        }
    }
    if (f)
        fclose(f);
    p[n] = '\0';
    return p;
}

void cli_run(struct cli_out *o, const char *bin, const char *server, const char *cwd,
             const char *fmt, ...)
{
    char args[8192], cmd[10000], outf[600], errf[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(outf, sizeof outf, "%s/.cli.out", cwd);
    snprintf(errf, sizeof errf, "%s/.cli.err", cwd);
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' --server %s %s >'%s' 2>'%s'", cwd, bin, server, args,
             outf, errf);
    /* Through the environment, not the command line: a secret in argv is
     * visible to every process on the machine. */
    const char *own = getenv("HOGLAKE_TOKEN");
    const char *token = own ? NULL : test_token_for(server);
    if (token)
        setenv("HOGLAKE_TOKEN", token, 1);
    int status = system(cmd);
    if (token)
        unsetenv("HOGLAKE_TOKEN");
    o->code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    o->out = test_read_text(outf);
    o->err = test_read_text(errf);
}

const char *test_need_env(const char *name)
{
    const char *v = getenv(name);
    if (!v || !*v)
        fail_msg("%s is not set: run the suite through scripts/test.sh, which starts PostgreSQL, "
                 "moto and s3rver (or: eval \"$(scripts/s3.sh start DIR)\")",
                 name);
    return v;
}

void test_scratch_dir(char *out, size_t size, const char *label)
{
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    if (snprintf(out, size, "%s/hl-%s-XXXXXX", tmp, label) >= (int)size || !mkdtemp(out))
        fail_msg("cannot make a scratch directory for %s: %s", label, strerror(errno));
}

void test_remove_tree(const char *dir)
{
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    (void)system(cmd);
}

/* nftw has no context argument: the walk in progress. */
static const char *count_suffix;
static int64_t counted;

static int count_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)ftw;
    size_t n = strlen(path), k = strlen(count_suffix);
    if (type == FTW_F && S_ISREG(st->st_mode) && n >= k && strcmp(path + n - k, count_suffix) == 0)
        counted++;
    return 0;
}

int64_t test_count_files(const char *dir, const char *suffix)
{
    count_suffix = suffix;
    counted = 0;
    if (nftw(dir, count_one, 16, FTW_PHYS) != 0 && errno != ENOENT)
        fail_msg("cannot walk %s: %s", dir, strerror(errno));
    return counted;
}

void test_write_file(const char *dir, const char *name, const char *text)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        fail_msg("cannot write %s: %s", path, strerror(errno));
    fputs(text, f);
    if (fclose(f) != 0)
        fail_msg("cannot write %s: %s", path, strerror(errno));
}

void expect_contains(const char *text, const char *needle, const char *what)
{
    if (!strstr(text, needle))
        fail_msg("%s: '%s' not in:\n%s", what, needle, text);
}

void cli_out_free(struct cli_out *o)
{
    free(o->out);
    free(o->err);
    o->out = o->err = NULL;
}

static struct {
    const char *bin, *server, *cwd;
} session;

void cli_session(const char *bin, const char *server, const char *cwd)
{
    session.bin = bin;
    session.server = server;
    session.cwd = cwd;
}

/* Runs args (already formatted) in the session. */
static void session_run(struct cli_out *o, const char *args)
{
    if (!session.bin)
        fail_msg("a CLI run before cli_session");
    cli_run(o, session.bin, session.server, session.cwd, "%s", args);
}

void cli_do(struct cli_out *o, const char *fmt, ...)
{
    char args[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    session_run(o, args);
}

void cli_ok(const char *fmt, ...)
{
    char args[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    struct cli_out o;
    session_run(&o, args);
    cli_out_expect(&o, 0, args);
    cli_out_free(&o);
}

void cli_refused(int code, const char *needle, const char *fmt, ...)
{
    char args[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    struct cli_out o;
    session_run(&o, args);
    cli_out_expect(&o, code, args);
    expect_contains(o.err, needle, args);
    cli_out_free(&o);
}

void cli_out_expect(const struct cli_out *o, int code, const char *what)
{
    if (o->code != code)
        fail_msg("%s: exit %d, expected %d\nstdout: %s\nstderr: %s", what, o->code, code, o->out,
                 o->err);
}

char *test_duckdb(const char *node, const char *interop_dir, const char *scratch_dir,
                  const char *sql)
{
    char qfile[600], cmd[1500];
    snprintf(qfile, sizeof qfile, "%s/query.sql", scratch_dir);
    FILE *q = fopen(qfile, "w");
    assert_non_null(q);
    fputs(sql, q);
    fclose(q);
    snprintf(cmd, sizeof cmd, "'%s' '%s/duckdb_query.mjs' \"$(cat '%s')\"", node, interop_dir,
             qfile);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t len = 0, cap = 4096;
    char *out = malloc(cap);
    assert_non_null(out);
    size_t k;
    while ((k = fread(out + len, 1, cap - len - 1, p)) > 0) {
        len += k;
        if (cap - len < 1024) {
            cap *= 2;
            out = realloc(out, cap);
            assert_non_null(out);
        }
    }
    out[len] = '\0';
    assert_int_equal(pclose(p), 0);
    return out;
}
