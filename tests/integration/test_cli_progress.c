/* `hoglake append`'s progress line, on a real terminal: the command runs
 * in a tmux pane (stdout to a file, so the pane shows stderr alone) with
 * the append-slow-batches failpoint, which makes each batch take 300 ms so
 * the line has time to show. The pane, captured as the append goes, shows
 * one bar over all three inputs whose percentage, rows and bytes never go
 * back and whose total is the inputs' size; the final line gives the row
 * count. Piped, the same append writes nothing on stderr; with --quiet a
 * terminal shows nothing either and stdout stays empty, while an error
 * still shows. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"

#ifndef HOGLAKE_CLI_BIN
#error "HOGLAKE_CLI_BIN must be defined by the build"
#endif

enum { FILES = 3, ROWS_PER_FILE = 150000, MAX_CAPTURES = 400 };

static struct test_db db;
static struct test_server srv;
static PGconn *pg;
static char dir[256];
static char tmux_socket[64]; /* a tmux server of this test's own */
static uint64_t input_bytes;

static bool have_tmux(void)
{
    return system("command -v tmux >/dev/null 2>&1") == 0;
}

/* Rows "id,name" into dir/name; returns its size. */
static uint64_t write_rows(const char *name, int first)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        fail_msg("%s: %s", path, strerror(errno));
    fprintf(f, "id,name\n");
    for (int i = first; i < first + ROWS_PER_FILE; i++)
        fprintf(f, "%d,name-%d\n", i, i);
    long size = ftell(f);
    assert_int_equal(fclose(f), 0);
    return (uint64_t)size;
}

static int setup(void **state)
{
    (void)state;
    if (!have_tmux())
        return 0;
    test_stack_up(&db, &srv, &pg, "cli_progress", NULL, NULL);
    /* The commands this program runs act as the server's admin; the tmux
     * server inherits the environment. */
    setenv("HOGLAKE_TOKEN", srv.token, 1);
    test_scratch_dir(dir, sizeof dir, "cli-progress");
    snprintf(tmux_socket, sizeof tmux_socket, "hl-progress-%d", (int)getpid());
    struct cli_out o;
    cli_run(&o, HOGLAKE_CLI_BIN, srv.base, dir, "catalog create local --data-path file://%s/wh",
            dir);
    cli_out_expect(&o, 0, "catalog create");
    cli_out_free(&o);
    cli_run(&o, HOGLAKE_CLI_BIN, srv.base, dir, "namespace create local.ns");
    cli_out_expect(&o, 0, "namespace create");
    cli_out_free(&o);
    cli_run(&o, HOGLAKE_CLI_BIN, srv.base, dir,
            "table create local.ns.t --columns 'id:long!, "
            "name:string'");
    cli_out_expect(&o, 0, "table create");
    cli_out_free(&o);
    for (int i = 0; i < FILES; i++) {
        char name[32];
        snprintf(name, sizeof name, "in%d.csv", i);
        input_bytes += write_rows(name, i * ROWS_PER_FILE);
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    if (!have_tmux())
        return 0;
    char cmd[200];
    snprintf(cmd, sizeof cmd, "tmux -L %s kill-server 2>/dev/null", tmux_socket);
    (void)system(cmd);
    test_stack_down(&db, &srv, &pg);
    test_remove_tree(dir);
    return 0;
}

/* Runs `hoglake <args>` in a new detached tmux session `name` (160
 * columns), stdout to dir/<name>.out; dir/<name>.done gets the exit code
 * when it ends. The pane stays open for capturing. */
static void start_in_tmux(const char *name, const char *env, const char *args)
{
    char script[600], text[2000], cmd[1000];
    snprintf(script, sizeof script, "%s/%s.sh", dir, name);
    snprintf(text, sizeof text,
             "cd '%s' || exit 1\n"
             "%s '%s' --server %s %s >%s.out\n"
             "echo $? >%s.tmp && mv %s.tmp %s.done\n"
             "exec sleep 600\n",
             dir, env, HOGLAKE_CLI_BIN, srv.base, args, name, name, name, name);
    FILE *f = fopen(script, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
    snprintf(cmd, sizeof cmd, "tmux -L %s -f /dev/null new-session -d -s %s -x 160 -y 30 'sh %s'",
             tmux_socket, name, script);
    assert_int_equal(system(cmd), 0);
}

/* The pane's text, trailing blank lines and spaces dropped. */
static void capture(const char *name, char *out, size_t size)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "tmux -L %s capture-pane -p -J -t %s", tmux_socket, name);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n = fread(out, 1, size - 1, p);
    pclose(p);
    while (n > 0 && (out[n - 1] == '\n' || out[n - 1] == ' '))
        n--;
    out[n] = '\0';
}

/* The exit code in dir/<name>.done, or -1 while the command runs. */
static int finished(const char *name)
{
    char path[400];
    snprintf(path, sizeof path, "%s/%s.done", dir, name);
    char *text = test_read_text(path);
    int code = text[0] ? atoi(text) : -1;
    free(text);
    return code;
}

/* Fails, showing the pane, unless the command in it exited 0. */
static void expect_exit_code(const char *name, int code)
{
    if (code == 0)
        return;
    char pane[2000];
    capture(name, pane, sizeof pane);
    fail_msg("the command in tmux session %s exited %d; its terminal:\n%s", name, code, pane);
}

/* A count as the line prints it ("1,234") read back. */
static long long count_at(const char *s)
{
    long long v = 0;
    for (; *s == ',' || (*s >= '0' && *s <= '9'); s++)
        if (*s != ',')
            v = v * 10 + (*s - '0');
    return v;
}

/* What a bar line says: its percentage, rows and bytes consumed (in the
 * line's own unit, compared within one unit). */
struct bar {
    int pct;
    long long rows;
    double amount;
    char unit[8];
    char total[32];
};

static bool parse_bar(const char *line, struct bar *b)
{
    const char *close = strstr(line, "] ");
    if (line[0] != '[' || !close)
        return false;
    char rows[32];
    double total;
    char unit[8];
    if (sscanf(close + 2, "%d%%  %31s rows  %lf %7s of %lf %7s", &b->pct, rows, &b->amount, b->unit,
               &total, unit) != 6)
        return false;
    b->rows = count_at(rows);
    snprintf(b->total, sizeof b->total, "%.1f %s", total, unit);
    return true;
}

static void the_bar_on_a_terminal(void **state)
{
    (void)state;
    if (!have_tmux())
        skip();
    start_in_tmux("bar", "HOGLAKE_FAILPOINTS=append-slow-batches",
                  "append local.ns.t in0.csv "
                  "in1.csv in2.csv");
    static char panes[MAX_CAPTURES][400];
    int n = 0, code = -1;
    for (int waited = 0; waited < 60000 && (code = finished("bar")) < 0; waited += 100) {
        if (n < MAX_CAPTURES)
            capture("bar", panes[n++], sizeof panes[0]);
        sleep_ms(100);
    }
    expect_exit_code("bar", code);
    /* The total: the three inputs' size, as out_bytes writes it. */
    char total[32];
    snprintf(total, sizeof total, "%.1f MiB", (double)input_bytes / (1024.0 * 1024.0));
    struct bar prev = {-1, -1, -1, "", ""};
    int bars = 0;
    for (int i = 0; i < n; i++) {
        struct bar b;
        if (!parse_bar(panes[i], &b))
            continue;
        bars++;
        if (strcmp(b.total, total) != 0)
            fail_msg("the bar's total is %s, the inputs' %s:\n%s", b.total, total, panes[i]);
        assert_non_null(strstr(panes[i], " rows/s, "));
        /* Never backwards: not across inputs either. */
        if (b.pct < prev.pct || b.rows < prev.rows ||
            (strcmp(b.unit, prev.unit) == 0 && b.amount < prev.amount))
            fail_msg("the bar went back:\n%s\nthen\n%s", panes[i - 1], panes[i]);
        prev = b;
    }
    if (bars < 2)
        fail_msg("the bar showed %d times in %d captures; the last:\n%s", bars, n,
                 n ? panes[n - 1] : "");
    /* It moved while shown, and the final line replaced it. */
    char last[400], want[200], rows[32];
    capture("bar", last, sizeof last);
    assert_null(strchr(last, '['));
    snprintf(rows, sizeof rows, "%d,%03d", FILES * ROWS_PER_FILE / 1000,
             FILES * ROWS_PER_FILE % 1000);
    snprintf(want, sizeof want, "read %s rows, %s in ", rows, total);
    if (strncmp(last, want, strlen(want)) != 0)
        fail_msg("the final line:\n%s\nwants to start\n%s", last, want);
    char path[400];
    snprintf(path, sizeof path, "%s/bar.out", dir);
    char *out = test_read_text(path);
    snprintf(want, sizeof want, ": %s rows in 1 file\n", rows);
    expect_contains(out, want, "the summary on stdout");
    free(out);
}

static void nothing_on_a_pipe(void **state)
{
    (void)state;
    if (!have_tmux())
        skip();
    setenv("HOGLAKE_FAILPOINTS", "append-slow-batches", 1);
    struct cli_out o;
    cli_run(&o, HOGLAKE_CLI_BIN, srv.base, dir, "append local.ns.t in0.csv in1.csv");
    unsetenv("HOGLAKE_FAILPOINTS");
    cli_out_expect(&o, 0, "a piped append");
    /* Over a second long, yet stderr holds nothing. */
    if (o.err[0])
        fail_msg("stderr of a piped append:\n%s", o.err);
    expect_contains(o.out, "300,000 rows in 1 file\n", "the summary");
    cli_out_free(&o);
}

static void quiet_shows_only_errors(void **state)
{
    (void)state;
    if (!have_tmux())
        skip();
    start_in_tmux("quiet", "HOGLAKE_FAILPOINTS=append-slow-batches",
                  "append local.ns.t in0.csv in1.csv --quiet");
    int code = -1;
    for (int waited = 0; waited < 60000 && (code = finished("quiet")) < 0; waited += 100) {
        char pane[400];
        capture("quiet", pane, sizeof pane);
        if (pane[0])
            fail_msg("a quiet append's terminal shows:\n%s", pane);
        sleep_ms(100);
    }
    expect_exit_code("quiet", code);
    char path[400];
    snprintf(path, sizeof path, "%s/quiet.out", dir);
    char *out = test_read_text(path);
    assert_string_equal(out, "");
    free(out);
    /* The rows did land. */
    assert_int_equal(sqli("SELECT count(*) FROM hog_data_file WHERE catalog_id = %lld",
                          (long long)cat_id("local")),
                     3);
    /* An error still shows, with its exit code. */
    struct cli_out o;
    cli_run(&o, HOGLAKE_CLI_BIN, srv.base, dir, "append local.ns.t missing.csv --quiet");
    cli_out_expect(&o, 1, "a quiet append of a missing file");
    expect_contains(o.err, "missing.csv", "the error");
    assert_string_equal(o.out, "");
    cli_out_free(&o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_bar_on_a_terminal),
        cmocka_unit_test(nothing_on_a_pipe),
        cmocka_unit_test(quiet_shows_only_errors),
    };
    if (!have_tmux())
        fprintf(stderr, "test_cli_progress: tmux is not installed (scripts/deps.sh test "
                        "installs it): skipping the terminal tests\n");
    return cmocka_run_group_tests(tests, setup, teardown);
}
