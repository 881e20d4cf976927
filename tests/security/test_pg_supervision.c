/* Embedded PostgreSQL supervision: a hostile or unlucky kill -9 of the
 * private cluster's postmaster is healed by hoglaked itself. While the
 * database is down /healthz answers 503 and /livez keeps answering 200 (the
 * process is alive); within 10 s of the kill the API works again, with its
 * data, and hoglake_postgres_restarts_total counts the restart. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

enum { HEAL_BUDGET_MS = 10000, POLL_MS = 50 };

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The postmaster's pid and status ("starting", "ready", ...) from its
 * postmaster.pid (line 1 and line 8); pid 0 while there is none. */
static pid_t postmaster(const struct test_server *s, char *status, size_t status_size)
{
    char path[400];
    snprintf(path, sizeof path, "%s/pg/data/postmaster.pid", s->data_dir);
    char *text = test_read_text(path);
    long pid = strtol(text, NULL, 10);
    status[0] = '\0';
    const char *line = text;
    for (int i = 1; i < 8 && line; i++) {
        line = strchr(line, '\n');
        line = line ? line + 1 : NULL;
    }
    if (line)
        snprintf(status, status_size, "%.*s", (int)strcspn(line, " \n"), line);
    free(text);
    return (pid_t)pid;
}

static long get_status(const struct test_server *s, const char *path)
{
    struct http_result r;
    api_get(&r, s, "%s", path);
    long status = r.status;
    http_result_free(&r);
    return status;
}

static double restarts_total(const struct test_server *s)
{
    struct http_result r;
    api_get(&r, s, "/metrics");
    expect_status(&r, 200);
    const char *line = strstr(r.body, "\nhoglake_postgres_restarts_total ");
    double v = line ? strtod(line + strlen("\nhoglake_postgres_restarts_total "), NULL) : -1;
    http_result_free(&r);
    return v;
}

/* The counter once it reached `want` (pg_ctl reports the restart a moment
 * after the database already answers), or what it is after the budget. */
static double wait_for_restarts(const struct test_server *s, double want)
{
    double since = now_ms();
    double v;
    while ((v = restarts_total(s)) < want && now_ms() - since < HEAL_BUDGET_MS)
        sleep_ms(POLL_MS);
    return v;
}

static int count_lines_with(const char *path, const char *needle)
{
    char *text = test_read_text(path);
    int n = 0;
    for (const char *p = text; (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    free(text);
    return n;
}

/* Polls until /healthz has answered 503 and then 200 again, asserting that
 * /livez answers 200 on every round. Returns ms from `since` to the 200. */
static double wait_for_healing(const struct test_server *s, double since)
{
    bool saw_503 = false;
    for (;;) {
        assert_int_equal(get_status(s, "/livez"), 200);
        long health = get_status(s, "/healthz");
        double elapsed = now_ms() - since;
        if (health == 503)
            saw_503 = true;
        else if (health == 200 && saw_503)
            return elapsed;
        else if (health != 200)
            fail_msg("/healthz answered %ld while the database restarted", health);
        if (elapsed > HEAL_BUDGET_MS) {
            test_server_dump_log(s);
            fail_msg("not healed within %d ms of the kill (503 seen: %d)", HEAL_BUDGET_MS, saw_503);
        }
        sleep_ms(POLL_MS);
    }
}

/* Right after /healthz recovered, the API works on the first try: the
 * pool's connections that died with the old postmaster are replaced, not
 * handed to a request. The catalog made before the kills is intact. */
static void api_works_at_once(const struct test_server *s, int round)
{
    struct http_result r;
    api_get(&r, s, "/v1/catalogs/survivor");
    expect_status(&r, 200);
    http_result_free(&r);
    char ns[32];
    snprintf(ns, sizeof ns, "after_kill_%d", round);
    make_namespace(s, "survivor", ns);
    json_t *list = api_get_json(s, "/v1/catalogs/survivor/namespaces");
    assert_int_equal(json_array_size(list), (size_t)round);
    json_decref(list);
}

/* Kills the postmaster; returns when the kill was sent. */
static void kill_postmaster(const struct test_server *s, pid_t *killed)
{
    char status[32];
    *killed = postmaster(s, status, sizeof status);
    assert_true(*killed > 0);
    assert_int_equal(kill(*killed, SIGKILL), 0);
}

/* Waits for the supervisor's next postmaster (a pid other than `old`) and
 * kills it at once, mostly before it is ready: that restart attempt fails
 * and the supervisor backs off and tries again. Returns whether it was
 * caught while still starting. */
static bool kill_next_postmaster(const struct test_server *s, pid_t old)
{
    char status[32];
    double since = now_ms();
    for (;;) {
        pid_t pid = postmaster(s, status, sizeof status);
        if (pid > 0 && pid != old) {
            if (kill(pid, SIGKILL) != 0)
                fail_msg("kill %ld: %s", (long)pid, strerror(errno));
            return strcmp(status, "ready") != 0;
        }
        if (now_ms() - since > HEAL_BUDGET_MS)
            fail_msg("no new postmaster within %d ms", HEAL_BUDGET_MS);
        sleep_ms(2);
    }
}

static void killed_postmaster_is_restarted(void **state)
{
    (void)state;
    struct test_server s;
    test_server_start(&s, NULL, NULL);
    make_catalog(&s, "survivor");
    assert_true(restarts_total(&s) == 0);

    /* Rounds 1 and 2: a plain kill -9 of the postmaster. */
    for (int round = 1; round <= 2; round++) {
        pid_t killed;
        double t0 = now_ms();
        kill_postmaster(&s, &killed);
        double healed = wait_for_healing(&s, t0);
        api_works_at_once(&s, round);
        double api_ok = now_ms() - t0;
        assert_true(api_ok < HEAL_BUDGET_MS);
        printf("round %d: /healthz 200 again %.0f ms, API answered %.0f ms after the kill\n", round,
               healed, api_ok);
        char status[32];
        assert_int_not_equal(postmaster(&s, status, sizeof status), killed);
        assert_true(wait_for_restarts(&s, round) == round);
    }

    /* Round 3: the restarted postmaster is killed too, while it starts. */
    pid_t killed;
    kill_postmaster(&s, &killed);
    bool while_starting = kill_next_postmaster(&s, killed);
    double t0 = now_ms();
    double healed = wait_for_healing(&s, t0);
    api_works_at_once(&s, 3);
    double api_ok = now_ms() - t0;
    assert_true(api_ok < HEAL_BUDGET_MS);
    printf("round 3: /healthz 200 again %.0f ms, API answered %.0f ms after the second kill "
           "(caught %s)\n",
           healed, api_ok, while_starting ? "while starting" : "when ready");
    /* Killed while starting: that attempt failed and was retried after a
     * backoff. Killed when ready: it counted, and its death was a new one. */
    double want = while_starting ? 3 : 4;
    assert_true(wait_for_restarts(&s, want) == want);
    int failed_attempts = count_lines_with(s.log, "restart attempt");
    printf("round 3: %d failed attempt(s) logged\n", failed_attempts);
    if (while_starting)
        assert_true(failed_attempts >= 1);

    test_server_stop(&s); /* SIGTERM: exit status 0, nothing leaked */
    test_remove_tree(s.dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(killed_postmaster_is_restarted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
