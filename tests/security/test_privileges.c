/* Least privilege, as a user runs the quickstart: `hoglaked` started as
 * root with no flags becomes the unprivileged `hoglake` user (its embedded
 * PostgreSQL too), and the `hoglake` command, run as root, still does the
 * whole main flow against it: a catalog in the default warehouse, appends
 * of CSV files, reads, a compaction (the server reading what root wrote
 * and writing beside it), truncate, expiry and cleanup (the server
 * deleting what root wrote). --allow-root keeps root; --user root is
 * refused. Needs root (it is skipped otherwise: nothing to drop). */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pwd.h>
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

static char dir[256];
static char data[400], port[16], url[64];
static pid_t server;

static int free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    socklen_t len = sizeof a;
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
    close(fd);
    return ntohs(a.sin_port);
}

/* Runs `hoglake ARGS` as root against the server, through the defaults
 * (HOGLAKE_PORT, HOGLAKE_DATA_DIR: the admin token is found, no flags). */
static void hl(struct cli_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void hl(struct cli_out *o, const char *fmt, ...)
{
    char args[2048], cmd[5000], out[400], err[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(out, sizeof out, "%s/.out", dir);
    snprintf(err, sizeof err, "%s/.err", dir);
    snprintf(cmd, sizeof cmd,
             "cd '%s' && env -u HOGLAKE_TOKEN -u HOGLAKE_URL HOGLAKE_PORT=%s HOGLAKE_DATA_DIR='%s' "
             "'%s' %s >'%s' 2>'%s'",
             dir, port, data, HOGLAKE_CLI_BIN, args, out, err);
    int status = system(cmd);
    o->code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    o->out = test_read_text(out);
    o->err = test_read_text(err);
}

static void hl_ok(const char *what, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void hl_ok(const char *what, const char *fmt, ...)
{
    char args[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    struct cli_out o;
    hl(&o, "%s", args);
    cli_out_expect(&o, 0, what);
    cli_out_free(&o);
}

/* The uid a process runs as (the "Uid:" line's effective id). */
static long uid_of(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    char *status = test_read_text(path);
    const char *at = strstr(status, "\nUid:");
    long real = -1, effective = -1;
    if (at)
        sscanf(at + 5, "%ld %ld", &real, &effective);
    free(status);
    assert_int_equal(real, effective);
    return effective;
}

/* Starts hoglaked with the given arguments and the embedded default under
 * data, on port at; waits until the CLI gets an answer. */
static void start_on(const char *const *args, int at)
{
    snprintf(port, sizeof port, "%d", at);
    snprintf(url, sizeof url, "http://127.0.0.1:%s", port);
    char log[500];
    snprintf(log, sizeof log, "%s/hoglaked.log", dir);
    server = fork();
    assert_true(server >= 0);
    if (server == 0) {
        FILE *f = freopen(log, "a", stderr);
        (void)f;
        dup2(STDERR_FILENO, STDOUT_FILENO);
        unsetenv("HOGLAKE_DATABASE_URL");
        setenv("HOGLAKE_DATA_DIR", data, 1);
        setenv("HOGLAKE_PORT", port, 1);
        execv(HOGLAKED_BIN, (char *const *)args);
        _exit(127);
    }
    struct cli_out o = {0};
    for (int waited = 0;; waited += 200) {
        hl(&o, "catalog list");
        if (o.code == 0)
            break;
        int status;
        if (waitpid(server, &status, WNOHANG) == server) {
            char *text = test_read_text(log);
            fail_msg("hoglaked exited during start-up:\n%s", text);
        }
        if (waited > 120000) {
            kill(server, SIGKILL);
            fail_msg("the server never answered: %s", o.err);
        }
        cli_out_free(&o);
        sleep_ms(200);
    }
    cli_out_free(&o);
}

static void start(const char *const *args)
{
    start_on(args, free_port());
}

static void stop(void)
{
    kill(server, SIGTERM);
    int status;
    waitpid(server, &status, 0);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static int setup(void **state)
{
    (void)state;
    test_scratch_dir(dir, sizeof dir, "privileges");
    chmod(dir, 0755); /* the server's user walks through it to its data dir */
    snprintf(data, sizeof data, "%s/data", dir);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    test_remove_tree(dir);
    return 0;
}

static void root_becomes_hoglake_and_the_cli_still_works(void **state)
{
    (void)state;
    if (geteuid() != 0) {
        printf("not root: nothing to drop\n");
        return;
    }
    const char *const args[] = {HOGLAKED_BIN, NULL};
    start(args);
    struct passwd *pw = getpwnam("hoglake");
    assert_non_null(pw);
    assert_int_not_equal(pw->pw_uid, 0);
    assert_int_equal(uid_of(server), (long)pw->pw_uid);
    /* Its PostgreSQL runs as the same user. */
    char path[600];
    snprintf(path, sizeof path, "%s/pg/data/postmaster.pid", data);
    char *pidfile = test_read_text(path);
    pid_t postmaster = (pid_t)atol(pidfile);
    free(pidfile);
    assert_true(postmaster > 0);
    assert_int_equal(uid_of(postmaster), (long)pw->pw_uid);
    /* Its state is its own: the token 0600, the warehouse shared through
     * its group. */
    struct stat st;
    snprintf(path, sizeof path, "%s/admin.token", data);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_uid, pw->pw_uid);
    assert_int_equal(st.st_mode & 07777, 0600);
    snprintf(path, sizeof path, "%s/warehouse", data);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_uid, pw->pw_uid);
    assert_int_equal(st.st_gid, pw->pw_gid);
    assert_int_equal(st.st_mode & 07777, 02775);

    /* The main flow, the CLI as root. */
    hl_ok("catalog create", "catalog create demo");
    hl_ok("namespace create", "namespace create demo.app");
    hl_ok("table create", "table create demo.app.events --columns 'id:long!, kind:string'");
    for (int i = 0; i < 6; i++) {
        char name[64], text[200];
        snprintf(name, sizeof name, "batch%d.csv", i);
        snprintf(text, sizeof text, "id,kind\n%d,a\n%d,b\n", 2 * i, 2 * i + 1);
        test_write_file(dir, name, text);
        hl_ok("append", "append demo.app.events %s", name);
    }
    char table_dir[600];
    snprintf(table_dir, sizeof table_dir, "%s/warehouse/demo", data);
    assert_int_equal(test_count_files(table_dir, ".parquet"), 6);
    struct cli_out o;
    hl(&o, "read demo.app.events");
    cli_out_expect(&o, 0, "read");
    expect_contains(o.out, "\"id\":11", "the last row");
    cli_out_free(&o);
    /* The server reads what root wrote and writes beside it. */
    hl(&o, "--json maintenance compact demo");
    cli_out_expect(&o, 0, "compact");
    expect_contains(o.out, "\"groups_compacted\": 1", "one group compacted");
    cli_out_free(&o);
    hl(&o, "read demo.app.events");
    cli_out_expect(&o, 0, "read after compaction");
    expect_contains(o.out, "\"id\":11", "rows kept");
    cli_out_free(&o);
    /* ... and deletes it once expired. */
    hl_ok("set-retention", "catalog set-retention demo 1 --consumer-floor off");
    sleep_ms(1200);
    hl_ok("expire", "maintenance expire demo");
    hl(&o, "--json maintenance cleanup demo");
    cli_out_expect(&o, 0, "cleanup");
    expect_contains(o.out, "\"removed\": 6", "the six inputs deleted");
    expect_contains(o.out, "\"refused\": 0", "nothing refused");
    cli_out_free(&o);
    assert_int_equal(test_count_files(table_dir, ".parquet"), 1);
    stop();
}

static void allow_root_keeps_root(void **state)
{
    (void)state;
    if (geteuid() != 0)
        return;
    /* A data dir of its own: with --allow-root the cluster runs as the
     * postgres user, and the first test's cluster belongs to hoglake. */
    snprintf(data, sizeof data, "%s/data-root", dir);
    const char *const args[] = {HOGLAKED_BIN, "--allow-root", NULL};
    start(args);
    assert_int_equal(uid_of(server), 0);
    char log[500];
    snprintf(log, sizeof log, "%s/hoglaked.log", dir);
    char *text = test_read_text(log);
    expect_contains(text, "running as root (--allow-root)", "the warning");
    free(text);
    hl_ok("catalog create", "catalog create kept");
    stop();
    /* Started again without it (an upgrade from a server that ran as
     * root): the state, its cluster included, passes to hoglake. */
    const char *const plain[] = {HOGLAKED_BIN, NULL};
    start(plain);
    assert_int_not_equal(uid_of(server), 0);
    struct cli_out o;
    hl(&o, "catalog list");
    cli_out_expect(&o, 0, "catalog list");
    expect_contains(o.out, "kept", "the catalog made as root");
    cli_out_free(&o);
    stop();
}

/* A port below 1024 that nothing holds, tried from 1023 down; 0 when
 * none of the few tried is free. */
static int free_privileged_port(void)
{
    for (int p = 1023; p > 1013; p--) {
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        assert_true(fd >= 0);
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)p)};
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        int rc = bind(fd, (struct sockaddr *)&a, sizeof a);
        close(fd);
        if (rc == 0)
            return p;
    }
    return 0;
}

/* The listening socket is bound while the server is still root, so a
 * privileged port works although it serves as hoglake. */
static void root_binds_a_privileged_port_then_drops(void **state)
{
    (void)state;
    if (geteuid() != 0)
        return;
    int low = free_privileged_port();
    if (low == 0) {
        printf("no free port below 1024: skipped\n");
        return;
    }
    snprintf(data, sizeof data, "%s/data-low-port", dir);
    char flag[16];
    snprintf(flag, sizeof flag, "%d", low);
    const char *const args[] = {HOGLAKED_BIN, "--port", flag, NULL};
    start_on(args, low);
    struct passwd *pw = getpwnam("hoglake");
    assert_non_null(pw);
    assert_int_equal(uid_of(server), (long)pw->pw_uid);
    /* Served on that port, the admin token found (HOGLAKE_PORT names it). */
    struct cli_out o;
    hl(&o, "--server http://127.0.0.1:%d catalog create low", low);
    cli_out_expect(&o, 0, "catalog create");
    cli_out_free(&o);
    hl(&o, "--server http://127.0.0.1:%d catalog list", low);
    cli_out_expect(&o, 0, "catalog list");
    expect_contains(o.out, "low", "the catalog just made");
    cli_out_free(&o);
    stop();
}

static void root_is_no_user_to_become(void **state)
{
    (void)state;
    if (geteuid() != 0)
        return;
    char cmd[600];
    snprintf(cmd, sizeof cmd, "'%s' --user root --data-dir '%s/x' >/dev/null 2>&1", HOGLAKED_BIN,
             dir);
    int status = system(cmd);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 1);
}

/* A data dir below a directory closed to others is handed to the user but
 * cannot be reached by it: the server says so and stops before it starts
 * anything, instead of failing on its first write. */
static void an_unreachable_data_dir_is_refused_at_start(void **state)
{
    (void)state;
    if (geteuid() != 0)
        return;
    char closed[400];
    snprintf(closed, sizeof closed, "%s/closed", dir);
    assert_int_equal(mkdir(closed, 0700), 0);
    char cmd[1200];
    snprintf(cmd, sizeof cmd,
             "'%s' --database-url postgresql://127.0.0.1:1/none --data-dir '%s/data' --port 0 "
             ">'%s/out.log' 2>&1",
             HOGLAKED_BIN, closed, dir);
    int status = system(cmd);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 1);
    char log[500];
    snprintf(log, sizeof log, "%s/out.log", dir);
    char *text = test_read_text(log);
    expect_contains(text, "user hoglake cannot reach data dir", "the start-up error");
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(root_becomes_hoglake_and_the_cli_still_works),
        cmocka_unit_test(allow_root_keeps_root),
        cmocka_unit_test(root_binds_a_privileged_port_then_drops),
        cmocka_unit_test(root_is_no_user_to_become),
        cmocka_unit_test(an_unreachable_data_dir_is_refused_at_start),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
