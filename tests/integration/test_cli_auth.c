/* The hoglake command with authentication, run as a process against real
 * servers:
 *   - where the token comes from: --token, HOGLAKE_TOKEN,
 *     HOGLAKE_TOKEN_FILE, then the default local server's admin.token;
 *   - `token create/list/revoke` (the secret alone on stdout);
 *   - the suite's main flows with least-privilege tokens: an owner makes
 *     the table, a writer appends and exports, a reader reads; each
 *     refused step exits 5 naming the role it needs;
 *   - HTTPS with a test CA (and refusal with the wrong one);
 *   - the quickstart: a server on its embedded default and the command
 *     with no flags at all. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

#ifndef HOGLAKE_CLI_BIN
#error "HOGLAKE_CLI_BIN must be defined by the build"
#endif

static struct test_db db;
static struct test_server srv;
static PGconn *pg;
static char dir[256];

/* One environment setting for a run; value NULL unsets the variable. */
struct env_var {
    const char *name, *value;
};

/* The variables a run starts from: none of the caller's own. */
static const char *const cleared[] = {"HOGLAKE_TOKEN", "HOGLAKE_TOKEN_FILE", "HOGLAKE_URL",
                                      "HOGLAKE_PORT",  "HOGLAKE_DATA_DIR",   "HOGLAKE_CACERT"};

/* Runs `hoglake ARGS` in dir with exactly the given HOGLAKE_* variables
 * (secrets go through the environment, never the command line). */
static void hl(struct cli_out *o, const struct env_var *env, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void hl(struct cli_out *o, const struct env_var *env, const char *fmt, ...)
{
    char args[4096], cmd[5000];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    char *saved[sizeof cleared / sizeof cleared[0]];
    for (size_t i = 0; i < sizeof cleared / sizeof cleared[0]; i++) {
        const char *v = getenv(cleared[i]);
        saved[i] = v ? strdup(v) : NULL;
        unsetenv(cleared[i]);
    }
    for (int i = 0; env && env[i].name; i++)
        if (env[i].value)
            setenv(env[i].name, env[i].value, 1);
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' %s >.out 2>.err", dir, HOGLAKE_CLI_BIN, args);
    int status = system(cmd);
    for (size_t i = 0; i < sizeof cleared / sizeof cleared[0]; i++) {
        if (saved[i])
            setenv(cleared[i], saved[i], 1);
        else
            unsetenv(cleared[i]);
        free(saved[i]);
    }
    o->code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    char path[400];
    snprintf(path, sizeof path, "%s/.out", dir);
    o->out = test_read_text(path);
    snprintf(path, sizeof path, "%s/.err", dir);
    o->err = test_read_text(path);
    /* No message ever shows a secret (only `token create` prints one, on
     * stdout). */
    for (const char *p = o->err; (p = strstr(p, "hlk_")) != NULL; p += 4)
        if ((p[4] >= '0' && p[4] <= '9') || (p[4] >= 'a' && p[4] <= 'f'))
            fail_msg("a secret on stderr of `hoglake %s`: %s", args, o->err);
}

/* hl, then its exit status checked (naming `what`) and the output freed. */
static void hl_expect(int code, const char *what, const struct env_var *env, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void hl_expect(int code, const char *what, const struct env_var *env, const char *fmt, ...)
{
    char args[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    struct cli_out o;
    hl(&o, env, "%s", args);
    cli_out_expect(&o, code, what);
    cli_out_free(&o);
}

/* hl, expecting exit `code` and `needle` in its stderr. */
static void hl_stderr(int code, const char *needle, const char *what, const struct env_var *env,
                      const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void hl_stderr(int code, const char *needle, const char *what, const struct env_var *env,
                      const char *fmt, ...)
{
    char args[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    struct cli_out o;
    hl(&o, env, "%s", args);
    cli_out_expect(&o, code, what);
    expect_contains(o.err, needle, what);
    cli_out_free(&o);
}

/* `token create` as the admin; the secret (stdout's only line) into out. */
static void create_token(const char *args, char *out, size_t size)
{
    struct env_var env[] = {{"HOGLAKE_TOKEN", srv.token}, {NULL, NULL}};
    struct cli_out o;
    hl(&o, env, "--server %s token create %s", srv.base, args);
    cli_out_expect(&o, 0, args);
    size_t n = strlen(o.out);
    if (n != 69 || strncmp(o.out, "hlk_", 4) != 0 || o.out[68] != '\n')
        fail_msg("token create printed more than the secret: '%s'", o.out);
    snprintf(out, size, "%.68s", o.out);
    expect_contains(o.err, "shown only this once", "token create's note");
    cli_out_free(&o);
}

static int setup(void **state)
{
    (void)state;
    test_scratch_dir(dir, sizeof dir, "cliauth");
    chmod(dir, 0755); /* the embedded cluster's owner walks through it */
    test_stack_up(&db, &srv, &pg, "cliauth", NULL, NULL);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    test_stack_down(&db, &srv, &pg);
    test_remove_tree(dir);
    return 0;
}

static void credentials_in_their_order(void **state)
{
    (void)state;
    char reader[128], writer[128];
    create_token("cred-reader --role reader", reader, sizeof reader);
    create_token("cred-writer --role writer", writer, sizeof writer);
    test_write_file(dir, "reader.token", reader);
    char file[400];
    snprintf(file, sizeof file, "%s/reader.token", dir);
    struct cli_out o;

    /* Nothing: refused with the way out. */
    hl(&o, NULL, "--server %s catalog list", srv.base);
    cli_out_expect(&o, 5, "no token");
    expect_contains(o.err, "HTTP 401 unauthenticated", "no token");
    expect_contains(o.err, "HOGLAKE_TOKEN_FILE", "the hint");
    cli_out_free(&o);

    /* Each source wins over the later ones; a 403 names the token used. */
    struct env_var from_file[] = {{"HOGLAKE_TOKEN_FILE", file}, {NULL, NULL}};
    hl_expect(0, "HOGLAKE_TOKEN_FILE", from_file, "--server %s catalog list", srv.base);
    hl(&o, from_file, "--server %s catalog create nope", srv.base);
    cli_out_expect(&o, 5, "reader creates a catalog");
    expect_contains(o.err, "the token 'cred-reader' has reader", "403 names the token");
    expect_contains(o.err, "HTTP 403 forbidden", "403");
    cli_out_free(&o);
    struct env_var env_and_file[] = {
        {"HOGLAKE_TOKEN", writer}, {"HOGLAKE_TOKEN_FILE", file}, {NULL, NULL}};
    hl_stderr(5, "'cred-writer'", "HOGLAKE_TOKEN over the file", env_and_file,
              "--server %s catalog create nope", srv.base);
    test_write_file(dir, "flag.token", reader);
    hl_stderr(5, "'cred-reader'", "--token over HOGLAKE_TOKEN", env_and_file,
              "--server %s --token \"$(cat flag.token)\" catalog create nope", srv.base);

    /* A token file that cannot be used is a usage error, not silence. */
    struct env_var missing[] = {{"HOGLAKE_TOKEN_FILE", "/nonexistent/token"}, {NULL, NULL}};
    hl_stderr(2, "HOGLAKE_TOKEN_FILE '/nonexistent/token'", "missing token file", missing,
              "--server %s catalog list", srv.base);
    test_write_file(dir, "empty.token", "\n");
    char empty[400];
    snprintf(empty, sizeof empty, "%s/empty.token", dir);
    struct env_var blank[] = {{"HOGLAKE_TOKEN_FILE", empty}, {NULL, NULL}};
    hl_expect(2, "empty token file", blank, "--server %s catalog list", srv.base);

    /* The local server's own admin token: found where a server with the
     * same defaults keeps it (HOGLAKE_PORT, HOGLAKE_DATA_DIR), and only
     * for that server. */
    char port[16];
    snprintf(port, sizeof port, "%d", srv.port);
    struct env_var local[] = {
        {"HOGLAKE_PORT", port}, {"HOGLAKE_DATA_DIR", srv.data_dir}, {NULL, NULL}};
    hl_expect(0, "the default local server's admin token", local,
              "catalog create from_default_dir --data-path s3://hoglake-test/fdd");
    hl(&o, local, "--server http://localhost:%d catalog list", srv.port);
    cli_out_expect(&o, 0, "localhost is the same server");
    expect_contains(o.out, "from_default_dir", "the listing");
    cli_out_free(&o);
    struct env_var elsewhere[] = {
        {"HOGLAKE_PORT", "1"}, {"HOGLAKE_DATA_DIR", srv.data_dir}, {NULL, NULL}};
    hl_expect(5, "another server gets no admin token", elsewhere, "--server %s catalog list",
              srv.base);
}

static void token_verbs(void **state)
{
    (void)state;
    struct env_var admin[] = {{"HOGLAKE_TOKEN", srv.token}, {NULL, NULL}};
    struct cli_out o;
    hl_expect(0, "catalog create", admin,
              "--server %s catalog create tv --data-path s3://hoglake-test/tv", srv.base);
    char secret[128];
    create_token("etl-nightly --role writer --catalog tv --expires 30d", secret, sizeof secret);

    hl(&o, admin, "--server %s token list", srv.base);
    cli_out_expect(&o, 0, "token list");
    expect_contains(o.out, "etl-nightly", "list");
    expect_contains(o.out, "writer", "list");
    expect_contains(o.out, "bootstrap-admin", "list");
    assert_null(strstr(o.out, secret));
    assert_null(strstr(o.out, srv.token));
    cli_out_free(&o);
    hl(&o, admin, "--server %s --json token list", srv.base);
    cli_out_expect(&o, 0, "token list --json");
    assert_null(strstr(o.out, "hlk_"));
    json_t *list = jparse(o.out);
    cli_out_free(&o);
    const char *id = NULL;
    size_t i;
    json_t *t;
    json_array_foreach (list, i, t)
        if (strcmp(jstr(t, "name"), "etl-nightly") == 0)
            id = jstr(t, "token_id");
    assert_non_null(id);
    t = NULL;
    json_array_foreach (list, i, t)
        if (strcmp(jstr(t, "name"), "etl-nightly") == 0)
            break;
    assert_string_equal(jstr(t, "catalog"), "tv");
    /* 30 days from now, give or take the test's own run time. */
    assert_true(json_is_string(json_object_get(t, "expires_at")));

    struct env_var as_writer[] = {{"HOGLAKE_TOKEN", secret}, {NULL, NULL}};
    hl_expect(0, "the writer reads its catalog", as_writer, "--server %s snapshots tv", srv.base);
    hl(&o, admin, "--server %s token revoke %s", srv.base, id);
    cli_out_expect(&o, 0, "token revoke");
    expect_contains(o.out, "revoked token", "revoke");
    cli_out_free(&o);
    hl_stderr(5, "revoked", "a revoked token", as_writer, "--server %s snapshots tv", srv.base);
    hl_expect(3, "revoking an unknown token", admin,
              "--server %s token revoke 00000000-0000-4000-8000-000000000000", srv.base);
    json_decref(list);

    /* Refused arguments. */
    hl_expect(2, "a bad duration", admin, "--server %s token create x --role reader --expires 5y",
              srv.base);
    hl_expect(2, "no role", admin, "--server %s token create x", srv.base);
    hl_stderr(1, "role must be reader, writer, owner or admin", "an unknown role", admin,
              "--server %s token create x --role superuser", srv.base);
    /* Only an admin manages tokens. */
    char reader[128];
    create_token("lister --role reader", reader, sizeof reader);
    struct env_var as_reader[] = {{"HOGLAKE_TOKEN", reader}, {NULL, NULL}};
    hl_stderr(5, "needs the admin role", "a reader lists tokens", as_reader,
              "--server %s token list", srv.base);
}

static void least_privilege_flows(void **state)
{
    (void)state;
    struct env_var admin[] = {{"HOGLAKE_TOKEN", srv.token}, {NULL, NULL}};
    struct cli_out o;
    hl_expect(0, "catalog create", admin, "--server %s catalog create lp --data-path file://%s/lp",
              srv.base, dir);
    hl_expect(0, "catalog create", admin,
              "--server %s catalog create lp_other --data-path file://%s/lp_other", srv.base, dir);
    char owner[128], writer[128], reader[128];
    create_token("lp-owner --role owner --catalog lp", owner, sizeof owner);
    create_token("lp-writer --role writer --catalog lp", writer, sizeof writer);
    create_token("lp-reader --role reader --catalog lp", reader, sizeof reader);
    struct env_var as_owner[] = {{"HOGLAKE_TOKEN", owner}, {NULL, NULL}};
    struct env_var as_writer[] = {{"HOGLAKE_TOKEN", writer}, {NULL, NULL}};
    struct env_var as_reader[] = {{"HOGLAKE_TOKEN", reader}, {NULL, NULL}};

    /* The owner shapes the catalog. */
    hl_expect(0, "owner: namespace create", as_owner, "--server %s namespace create lp.ev",
              srv.base);
    hl(&o, as_owner,
       "--server %s table create lp.ev.clicks --columns 'id:long!, ts:timestamptz, page:string'",
       srv.base);
    cli_out_expect(&o, 0, "owner: table create");
    cli_out_free(&o);
    hl_stderr(5, "needs the owner role", "writer: table create", as_writer,
              "--server %s table create lp.ev.nope --columns 'id:long'", srv.base);

    /* The writer appends; the reader may not. */
    test_write_file(dir, "clicks.csv",
                    "id,ts,page\n1,2026-11-01T10:00:00Z,/home\n2,2026-11-01T10:05:00Z,"
                    "/pricing\n3,2026-11-02T08:00:00Z,/docs\n");
    hl_expect(0, "writer: append", as_writer, "--server %s append lp.ev.clicks clicks.csv",
              srv.base);
    int64_t files =
        sqli("SELECT count(*) FROM hog_data_file WHERE catalog_id = %lld", (long long)cat_id("lp"));
    hl_stderr(5, "needs the writer role", "reader: append", as_reader,
              "--server %s append lp.ev.clicks clicks.csv", srv.base);
    assert_int_equal(
        sqli("SELECT count(*) FROM hog_data_file WHERE catalog_id = %lld", (long long)cat_id("lp")),
        files);

    /* The reader reads, at the head and in the past. */
    hl(&o, as_reader, "--server %s read lp.ev.clicks", srv.base);
    cli_out_expect(&o, 0, "reader: read");
    expect_contains(o.out, "/pricing", "rows");
    expect_contains(o.out, "/docs", "rows");
    cli_out_free(&o);
    hl_expect(0, "reader: files", as_reader, "--server %s files lp.ev.clicks", srv.base);
    /* Another catalog does not exist for these tokens. */
    hl_stderr(3, "catalog 'lp_other'", "reader: another catalog", as_reader,
              "--server %s snapshots lp_other", srv.base);
    hl(&o, as_reader, "--server %s catalog list", srv.base);
    cli_out_expect(&o, 0, "reader: catalog list");
    assert_null(strstr(o.out, "lp_other"));
    expect_contains(o.out, "lp", "its own catalog");
    cli_out_free(&o);

    /* Schema changes are the owner's. */
    hl_expect(5, "writer: alter", as_writer,
              "--server %s table alter lp.ev.clicks --add-column referrer:string", srv.base);
    hl_expect(0, "owner: alter", as_owner,
              "--server %s table alter lp.ev.clicks --add-column referrer:string", srv.base);

    /* The export is a changefeed consumer: a writer's job. */
    hl_expect(0, "writer: export", as_writer,
              "--server %s export iceberg lp.ev.clicks --to file://%s/ice", srv.base, dir);

    /* Maintenance runs are the owner's; their status is anyone's. */
    hl_expect(5, "writer: expire", as_writer, "--server %s maintenance expire lp", srv.base);
    hl_expect(0, "owner: expire", as_owner, "--server %s maintenance expire lp", srv.base);
    hl_expect(0, "reader: status", as_reader, "--server %s maintenance status lp", srv.base);
}

/* A CA, and a server certificate for localhost/127.0.0.1 it signed. */
static void make_ca(const char *name, bool with_server_cert)
{
    char cmd[3000];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes "
             "-keyout %s.key -out %s.pem -days 2 -subj '/CN=hoglake test %s' >/dev/null 2>&1",
             dir, name, name, name);
    assert_int_equal(system(cmd), 0);
    if (!with_server_cert)
        return;
    snprintf(cmd, sizeof cmd,
             "cd '%s' && openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes "
             "-keyout server.key -out server.csr -subj '/CN=localhost' >/dev/null 2>&1 && "
             "printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\\n' > san.cnf && "
             "openssl x509 -req -in server.csr -CA %s.pem -CAkey %s.key -CAcreateserial "
             "-out server.pem -days 2 -extfile san.cnf >/dev/null 2>&1",
             dir, name, name);
    assert_int_equal(system(cmd), 0);
}

static void https_with_a_test_ca(void **state)
{
    (void)state;
    make_ca("ca1", true);
    make_ca("ca2", false);
    char cert[400], key[400], ca1[400], ca2[400];
    snprintf(cert, sizeof cert, "%s/server.pem", dir);
    snprintf(key, sizeof key, "%s/server.key", dir);
    snprintf(ca1, sizeof ca1, "%s/ca1.pem", dir);
    snprintf(ca2, sizeof ca2, "%s/ca2.pem", dir);
    const char *const extra[] = {"--tls-cert", cert, "--tls-key", key, NULL};
    struct test_server tls;
    test_server_start(&tls, &db, extra);
    char *log = test_read_text(tls.log);
    expect_contains(log, "listening on https://", "the start line");
    free(log);
    struct env_var env[] = {{"HOGLAKE_TOKEN", tls.token}, {NULL, NULL}};
    struct env_var env_ca[] = {{"HOGLAKE_TOKEN", tls.token}, {"HOGLAKE_CACERT", ca1}, {NULL, NULL}};
    hl_expect(0, "HTTPS with the right CA", env,
              "--server https://localhost:%d --cacert '%s' catalog list", tls.port, ca1);
    hl_expect(0, "HTTPS with HOGLAKE_CACERT", env_ca, "--server https://127.0.0.1:%d catalog list",
              tls.port);
    hl_stderr(1, "certificate is not trusted", "HTTPS with the wrong CA", env,
              "--server https://localhost:%d --cacert '%s' catalog list", tls.port, ca2);
    hl_stderr(1, "certificate is not trusted", "HTTPS with the system's CAs only", env,
              "--server https://localhost:%d catalog list", tls.port);
    hl_expect(1, "plain HTTP to the HTTPS port", env, "--server http://127.0.0.1:%d catalog list",
              tls.port);
    test_server_stop(&tls);

    /* A key that is not the certificate's, or no key: no start. */
    char cmd[2000];
    snprintf(cmd, sizeof cmd,
             "'%s' --database-url '%s' --data-dir '%s/tls-data' --tls-cert '%s' --tls-key "
             "'%s/ca2.key' --port 0 >/dev/null 2>&1",
             HOGLAKED_BIN, db.url, dir, cert, dir);
    int status = system(cmd);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 1);
    snprintf(cmd, sizeof cmd, "'%s' --database-url '%s' --tls-cert '%s' >/dev/null 2>&1",
             HOGLAKED_BIN, db.url, cert);
    status = system(cmd);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 2);
}

static int free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    socklen_t len = sizeof a;
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
    close(fd);
    return ntohs(a.sin_port);
}

/* The quickstart as a user runs it: `hoglaked` with no flags (its
 * embedded PostgreSQL and warehouse, authentication on), then `hoglake`
 * with no flags at all. Only the data dir and port differ from the
 * defaults, through the environment both read. */
static void quickstart_needs_no_flags(void **state)
{
    (void)state;
    char data[400], port[16], log[450];
    snprintf(data, sizeof data, "%s/embedded", dir);
    snprintf(port, sizeof port, "%d", free_port());
    snprintf(log, sizeof log, "%s/embedded.log", dir);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        FILE *out = freopen(log, "w", stderr);
        (void)out;
        dup2(STDERR_FILENO, STDOUT_FILENO);
        for (size_t i = 0; i < sizeof cleared / sizeof cleared[0]; i++)
            unsetenv(cleared[i]);
        unsetenv("HOGLAKE_DATABASE_URL");
        setenv("HOGLAKE_DATA_DIR", data, 1);
        setenv("HOGLAKE_PORT", port, 1);
        execl(HOGLAKED_BIN, HOGLAKED_BIN, (char *)NULL);
        _exit(127);
    }
    struct env_var env[] = {{"HOGLAKE_DATA_DIR", data}, {"HOGLAKE_PORT", port}, {NULL, NULL}};
    struct cli_out o = {0};
    for (int waited = 0;; waited += 200) {
        hl(&o, env, "catalog list");
        if (o.code == 0)
            break;
        int status;
        if (waitpid(pid, &status, WNOHANG) == pid)
            fail_msg("hoglaked exited during start-up; log in %s", log);
        if (waited > 90000) {
            kill(pid, SIGKILL);
            fail_msg("the embedded server never answered: %s", o.err);
        }
        cli_out_free(&o);
        sleep_ms(200);
    }
    cli_out_free(&o);
    hl_expect(0, "catalog create, no flags", env, "catalog create demo");
    hl_expect(0, "namespace create, no flags", env, "namespace create demo.analytics");
    hl_expect(0, "table create, no flags", env,
              "table create demo.analytics.events --columns 'id:long!, ts:timestamptz'");
    hl(&o, env, "catalog list");
    cli_out_expect(&o, 0, "catalog list, no flags");
    expect_contains(o.out, "demo", "the listing");
    cli_out_free(&o);
    char token_path[500];
    snprintf(token_path, sizeof token_path, "%s/admin.token", data);
    struct stat st;
    assert_int_equal(stat(token_path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    kill(pid, SIGTERM);
    int status;
    waitpid(pid, &status, 0);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(credentials_in_their_order), cmocka_unit_test(token_verbs),
        cmocka_unit_test(least_privilege_flows),      cmocka_unit_test(https_with_a_test_ca),
        cmocka_unit_test(quickstart_needs_no_flags),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
