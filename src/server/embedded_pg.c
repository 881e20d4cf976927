#include "server/embedded_pg.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <libpq-fe.h>
#include <limits.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "server/config.h"
#include "server/db/db.h"
#include "server/metrics.h"
#include "server/store/migrations.h"
#include "util/log.h"
#include "util/timefmt.h"
#include "util/datadir.h"

struct embedded_pg {
    char pg_ctl[600];
    char pgdata[600];
    char pg_dir[540];   /* pgdata's parent: the socket, the log */
    char log_path[600]; /* PostgreSQL's own log and its tools' output */
    /* Resolved paths that identify the cluster's processes in /proc: the
     * postgres binary and the data directory every one of them works in. */
    char postgres_exe[PATH_MAX];
    char pgdata_real[PATH_MAX];
    bool syncfs; /* recovery_init_sync_method=syncfs is known (PostgreSQL 14+) */
    bool as_other_user;
    uid_t uid;
    gid_t gid;
    int lock_fd;
    /* The supervisor (embedded_pg_supervise). */
    bool supervised;
    pthread_t supervisor;
    pthread_mutex_t mu;
    pthread_cond_t wake; /* CLOCK_MONOTONIC */
    atomic_bool stopping;
    struct metrics *metrics;
};

#define DB_NAME STORE_EMBEDDED_DATABASE
#define SOCKET_PORT "5432"

static bool is_dir_with(const char *dir, const char *file)
{
    char p[700];
    snprintf(p, sizeof p, "%s/%s", dir, file);
    return access(p, X_OK) == 0;
}

/* The newest /usr/lib/postgresql/<major>/bin that has initdb. */
static bool find_pg_bin(char *out, size_t size)
{
    DIR *d = opendir("/usr/lib/postgresql");
    if (!d)
        return false;
    long best = -1;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char *end;
        long v = strtol(e->d_name, &end, 10);
        if (*end != '\0' || end == e->d_name)
            continue;
        char bin[300];
        snprintf(bin, sizeof bin, "/usr/lib/postgresql/%s/bin", e->d_name);
        if (v > best && is_dir_with(bin, "initdb")) {
            best = v;
            snprintf(out, size, "%s", bin);
        }
    }
    closedir(d);
    return best >= 0;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* In the child between fork and exec. Other threads may have opened
 * descriptors without close-on-exec a moment before the fork; none of them
 * may live on in PostgreSQL (a client's socket held open by the postmaster
 * would never close). Async-signal-safe calls only. */
static void close_inherited_fds(int max_fd)
{
#ifdef SYS_close_range
    if (syscall(SYS_close_range, 3U, ~0U, 0U) == 0)
        return;
#endif
    for (int fd = 3; fd < max_fd; fd++)
        close(fd);
}

/* In the child between fork and exec. hoglaked blocks its stop signals in
 * every thread (main takes them with sigwait) and ignores SIGPIPE; a mask
 * and an ignored signal survive exec, so without this a tool could not be
 * stopped with SIGTERM. Async-signal-safe calls only. */
static void reset_signals(void)
{
    signal(SIGPIPE, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
}

/* Starts argv (argv[0] is a full path) as the cluster's user, with
 * stdout/stderr appended to log_path. Returns the child's pid, or -1. */
static pid_t spawn_tool(const struct embedded_pg *pg, char *const argv[], const char *log_path)
{
    int log_fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (log_fd < 0)
        return -1;
    if (pg->as_other_user && fchown(log_fd, pg->uid, pg->gid) != 0) {
        close(log_fd);
        return -1;
    }
    long open_max = sysconf(_SC_OPEN_MAX);
    int max_fd = open_max > 0 && open_max < 65536 ? (int)open_max : 65536;
    pid_t pid = fork();
    if (pid == 0) {
        /* Child: only async-signal-safe calls until exec (the parent may
         * have other threads). */
        int null_fd = open("/dev/null", O_RDONLY);
        if (null_fd >= 0)
            dup2(null_fd, STDIN_FILENO);
        dup2(log_fd, STDOUT_FILENO);
        dup2(log_fd, STDERR_FILENO);
        close_inherited_fds(max_fd);
        reset_signals();
        if (pg->as_other_user &&
            (setgroups(1, &pg->gid) != 0 || setgid(pg->gid) != 0 || setuid(pg->uid) != 0))
            _exit(126);
        execv(argv[0], argv);
        _exit(127);
    }
    close(log_fd);
    return pid;
}

/* Waits for a tool to exit and returns its exit status, or -1. When cancel
 * is given and becomes true, the tool is sent SIGTERM and the wait answers
 * -1 once it has gone: a shutdown does not wait out a restart. */
static int wait_tool(pid_t pid, const atomic_bool *cancel)
{
    bool cancelled = false;
    int status;
    for (;;) {
        pid_t got = waitpid(pid, &status, cancel ? WNOHANG : 0);
        if (got == pid)
            break;
        if (got < 0 && errno != EINTR)
            return -1;
        if (got == 0) {
            if (!cancelled && atomic_load(cancel)) {
                kill(pid, SIGTERM);
                cancelled = true;
            }
            sleep_ms(20);
        }
    }
    if (cancelled)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Runs a tool to completion (see spawn_tool and wait_tool). */
static int run_tool(const struct embedded_pg *pg, char *const argv[], const char *log_path,
                    const atomic_bool *cancel)
{
    pid_t pid = spawn_tool(pg, argv, log_path);
    return pid < 0 ? -1 : wait_tool(pid, cancel);
}

/* Whether the cluster's user can search `dir` and every parent, checked as
 * that user so group and ACL rules count. */
static bool reachable_by_owner(const struct embedded_pg *pg, const char *dir)
{
    if (!pg->as_other_user)
        return true;
    pid_t pid = fork();
    if (pid < 0)
        return false;
    if (pid == 0) {
        if (setgroups(1, &pg->gid) != 0 || setgid(pg->gid) != 0 || setuid(pg->uid) != 0)
            _exit(2);
        _exit(access(dir, X_OK) == 0 ? 0 : 1);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR)
            return false;
    }
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* A libpq key=value literal: single quotes, with ' and \ escaped. */
static void conn_quote(char *out, size_t size, const char *v)
{
    size_t j = 0;
    if (size < 3)
        return;
    out[j++] = '\'';
    for (; *v && j + 3 < size; v++) {
        if (*v == '\'' || *v == '\\')
            out[j++] = '\\';
        out[j++] = *v;
    }
    out[j++] = '\'';
    out[j] = '\0';
}

static int ensure_database(const char *socket_dir, char *conninfo, size_t conninfo_size,
                           struct error *err)
{
    char host[700];
    conn_quote(host, sizeof host, socket_dir);
    char admin[800];
    snprintf(admin, sizeof admin, "host=%s port=" SOCKET_PORT " user=postgres dbname=postgres",
             host);
    struct error cerr;
    PGconn *c = db_connect(admin, 30, &cerr);
    if (!c) {
        error_fail(err, ERR_UNAVAILABLE, "cannot connect to the embedded PostgreSQL: %s", cerr.msg);
        return -1;
    }
    int rc = 0;
    if (store_migrations_ensure_database(c, err) != 0)
        rc = error_prefix(err, "embedded PostgreSQL");
    PQfinish(c);
    snprintf(conninfo, conninfo_size, "host=%s port=" SOCKET_PORT " user=postgres dbname=" DB_NAME,
             host);
    return rc;
}

/* The cluster's major version (its PG_VERSION file), or 0. */
static long cluster_major_version(const char *pgdata)
{
    char path[700];
    snprintf(path, sizeof path, "%s/PG_VERSION", pgdata);
    FILE *f = fopen(path, "re");
    long v = 0;
    if (f) {
        if (fscanf(f, "%ld", &v) != 1)
            v = 0;
        fclose(f);
    }
    return v;
}

/* Starts the postmaster and waits until it accepts connections: the one
 * command used both at start and by every restart, so they cannot drift.
 * No TCP listener; the socket is in the private directory, owner only. */
static int start_postmaster(struct embedded_pg *pg, const atomic_bool *cancel)
{
    /* After a crash PostgreSQL first flushes the whole data directory. File
     * by file (its default) that took seconds on a busy disk; one syncfs()
     * of the file system is as durable and keeps a restart near 1 s. */
    char opts[800];
    snprintf(opts, sizeof opts,
             "-c listen_addresses='' -c unix_socket_directories='%s' -c port=" SOCKET_PORT
             " -c unix_socket_permissions=0700%s",
             pg->pg_dir, pg->syncfs ? " -c recovery_init_sync_method=syncfs" : "");
    char *const argv[] = {pg->pg_ctl, "-D",  pg->pgdata, "-l", pg->log_path, "-w",
                          "-t",       "120", "-o",       opts, "start",      NULL};
    return run_tool(pg, argv, pg->log_path, cancel);
}

int embedded_pg_claim(const char *data_dir, struct error *err)
{
    /* Refused before anything is made, so a refused start leaves no trace. */
    if (strpbrk(data_dir, "'\"\\ \t\n"))
        return error_fail(err, ERR_INVALID,
                          "data dir '%s' must not contain quotes, spaces or backslashes", data_dir);
    if (datadir_make_dirs(data_dir, 0755) != 0)
        return error_fail(err, ERR_IO, "cannot create data dir %s: %s", data_dir, strerror(errno));
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/hoglaked.lock", data_dir) >= (int)sizeof path)
        return error_fail(err, ERR_INVALID, "data dir path %s is too long", data_dir);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0)
        return error_fail(err, ERR_IO, "cannot open %s: %s", path, strerror(errno));
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        close(fd);
        return error_fail(err, ERR_IO,
                          "another hoglaked is using data dir %s (embedded mode runs one server "
                          "per data dir; share a --database-url to run several)",
                          data_dir);
    }
    return fd;
}

struct embedded_pg *embedded_pg_start(const struct config *cfg, int claim_fd, char *conninfo,
                                      size_t conninfo_size, struct error *err)
{
    struct embedded_pg *pg = calloc(1, sizeof *pg);
    if (!pg) {
        close(claim_fd);
        error_nomem(err);
        return NULL;
    }
    pg->lock_fd = claim_fd;
    const char *data_dir = cfg->data_dir;
    char bin[512];
    if (cfg->pg_bin[0])
        snprintf(bin, sizeof bin, "%s", cfg->pg_bin);
    else if (!find_pg_bin(bin, sizeof bin)) {
        error_fail(err, ERR_IO,
                   "embedded mode needs PostgreSQL's server binaries: install the postgresql "
                   "package (apt-get install postgresql), set --pg-bin, or pass --database-url");
        goto fail;
    }
    if (!is_dir_with(bin, "initdb") || !is_dir_with(bin, "pg_ctl")) {
        error_fail(err, ERR_IO, "no initdb/pg_ctl in %s", bin);
        goto fail;
    }
    if (geteuid() == 0) {
        const char *user = cfg->pg_user[0] ? cfg->pg_user : "postgres";
        struct passwd *pw = getpwnam(user);
        if (!pw || pw->pw_uid == 0) {
            error_fail(err, ERR_IO,
                       "running as root, the embedded PostgreSQL needs an unprivileged user to own "
                       "it; '%s' %s (set --pg-user)",
                       user, pw ? "is root" : "does not exist");
            goto fail;
        }
        pg->as_other_user = true;
        pg->uid = pw->pw_uid;
        pg->gid = pw->pw_gid;
    }

    char path[700];

    snprintf(pg->pg_dir, sizeof pg->pg_dir, "%s/pg", data_dir);
    struct sockaddr_un sun;
    if (strlen(pg->pg_dir) + strlen("/.s.PGSQL." SOCKET_PORT) >= sizeof sun.sun_path) {
        error_fail(err, ERR_IO,
                   "data dir path %s is too long for PostgreSQL's Unix socket; choose a shorter "
                   "--data-dir",
                   data_dir);
        goto fail;
    }
    if (datadir_make_dirs(pg->pg_dir, 0700) != 0 ||
        (pg->as_other_user && chown(pg->pg_dir, pg->uid, pg->gid) != 0)) {
        error_fail(err, ERR_IO, "cannot prepare %s: %s", pg->pg_dir, strerror(errno));
        goto fail;
    }
    if (!reachable_by_owner(pg, pg->pg_dir)) {
        error_fail(err, ERR_IO,
                   "the PostgreSQL user cannot reach %s: make every parent directory traversable "
                   "(chmod o+x) or choose another --data-dir",
                   pg->pg_dir);
        goto fail;
    }
    snprintf(pg->pgdata, sizeof pg->pgdata, "%s/data", pg->pg_dir);
    snprintf(pg->pg_ctl, sizeof pg->pg_ctl, "%s/pg_ctl", bin);
    snprintf(pg->log_path, sizeof pg->log_path, "%s/postgresql.log", pg->pg_dir);
    char initdb[600];
    snprintf(initdb, sizeof initdb, "%s/initdb", bin);

    snprintf(path, sizeof path, "%s/PG_VERSION", pg->pgdata);
    if (access(path, F_OK) != 0) {
        log_info("creating the embedded PostgreSQL cluster in %s", pg->pgdata);
        char *const argv[] = {initdb, "-D",   pg->pgdata,         "-U", "postgres", "-A", "trust",
                              "-E",   "UTF8", "--locale=C.UTF-8", NULL};
        if (run_tool(pg, argv, pg->log_path, NULL) != 0) {
            error_fail(err, ERR_IO, "initdb failed; see %s", pg->log_path);
            goto fail;
        }
    }
    pg->syncfs = cluster_major_version(pg->pgdata) >= 14;
    /* Only supervision needs these; without them it is skipped, not fatal. */
    snprintf(path, sizeof path, "%s/postgres", bin);
    if (!realpath(path, pg->postgres_exe) || !realpath(pg->pgdata, pg->pgdata_real))
        pg->postgres_exe[0] = pg->pgdata_real[0] = '\0';

    /* A cluster left running by a crashed hoglaked is adopted. */
    char *const status_argv[] = {pg->pg_ctl, "-D", pg->pgdata, "status", NULL};
    if (run_tool(pg, status_argv, pg->log_path, NULL) != 0) {
        if (start_postmaster(pg, NULL) != 0) {
            error_fail(err, ERR_IO, "the embedded PostgreSQL did not start; see %s", pg->log_path);
            goto fail;
        }
        log_info("embedded PostgreSQL started (socket in %s)", pg->pg_dir);
    } else {
        log_info("adopted the embedded PostgreSQL already running in %s", pg->pgdata);
    }
    if (ensure_database(pg->pg_dir, conninfo, conninfo_size, err) != 0) {
        embedded_pg_stop(pg);
        return NULL;
    }
    return pg;
fail:
    if (pg->lock_fd >= 0)
        close(pg->lock_fd);
    free(pg);
    return NULL;
}

/* ---- supervision ----
 *
 * The postmaster is not our child (pg_ctl daemonizes it), so its death is
 * noticed by looking: every CHECK_MS the pid in postmaster.pid must still
 * be a running postgres process. A dead one is restarted with backoff. */

enum { CHECK_MS = 500, BACKOFF_FIRST_MS = 100, BACKOFF_MAX_MS = 5000, LEFTOVER_GRACE_MS = 1000 };

/* The pid on the first line of postmaster.pid: 0 when there is no such
 * file (PostgreSQL removes it when it stops), -1 when it cannot be read. */
static pid_t postmaster_pid(const struct embedded_pg *pg)
{
    char path[700];
    snprintf(path, sizeof path, "%s/postmaster.pid", pg->pgdata);
    FILE *f = fopen(path, "re");
    if (!f)
        return errno == ENOENT ? 0 : -1;
    long pid = -1;
    if (fscanf(f, "%ld", &pid) != 1 || pid <= 0 || pid > INT_MAX)
        pid = -1;
    fclose(f);
    return (pid_t)pid;
}

/* Whether the symlink /proc/<pid>/<what> reads `want`. -1 when it cannot
 * be read for another reason than the process being gone (no permission
 * to look at another user's process), with errno set. A zombie reads as
 * gone: its executable and directory are released when it dies. */
static int proc_link_is(pid_t pid, const char *what, const char *want)
{
    char link[64], target[PATH_MAX];
    snprintf(link, sizeof link, "/proc/%ld/%s", (long)pid, what);
    ssize_t n = readlink(link, target, sizeof target - 1);
    if (n < 0)
        return errno == ENOENT || errno == ESRCH ? 0 : -1;
    target[n] = '\0';
    size_t len = strlen(want);
    /* An upgraded binary still runs, as "<path> (deleted)". */
    return strncmp(target, want, len) == 0 &&
           (target[len] == '\0' || strcmp(target + len, " (deleted)") == 0);
}

/* 1 when pid is a process of this cluster: the postgres binary, working
 * in this data directory (every PostgreSQL process changes into it), so a
 * reused pid is not mistaken for the postmaster. 0 when it is not or is
 * gone; -1 when /proc does not let us look (another user's process). */
static int cluster_process(const struct embedded_pg *pg, pid_t pid)
{
    int exe = proc_link_is(pid, "exe", pg->postgres_exe);
    return exe == 1 ? proc_link_is(pid, "cwd", pg->pgdata_real) : exe;
}

/* Whether pid is a live process of this cluster. When /proc does not let
 * us look, the kernel still says whether the pid exists. */
static bool cluster_pid_alive(const struct embedded_pg *pg, pid_t pid)
{
    int is = cluster_process(pg, pid);
    if (is >= 0)
        return is == 1;
    return kill(pid, 0) == 0 || errno == EPERM;
}

/* Whether the postmaster is up, as far as we can tell: an unreadable pid
 * file is no evidence of death, so it counts as up. */
static bool postmaster_running(const struct embedded_pg *pg)
{
    pid_t pid = postmaster_pid(pg);
    return pid < 0 || (pid > 0 && cluster_pid_alive(pg, pid));
}

/* Sends sig (0: none) to every process of the cluster; returns how many
 * there are. Called only while no postmaster runs, so every one of them is
 * a leftover of the dead one. */
static int signal_cluster(const struct embedded_pg *pg, int sig)
{
    DIR *d = opendir("/proc");
    if (!d)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (*end != '\0' || pid <= 0 || pid > INT_MAX || pid == (long)getpid())
            continue;
        if (cluster_process(pg, (pid_t)pid) != 1)
            continue;
        if (sig)
            kill((pid_t)pid, sig);
        n++;
    }
    closedir(d);
    return n;
}

static bool cluster_gone_within(const struct embedded_pg *pg, int ms)
{
    for (int waited = 0; signal_cluster(pg, 0) > 0; waited += 50) {
        if (waited >= ms)
            return false;
        sleep_ms(50);
    }
    return true;
}

/* A killed postmaster's backends live on until they next wait (an idle one
 * at once, one inside a long statement only when it ends), and while one
 * holds the old shared memory a new postmaster refuses to start. They serve
 * no one now: SIGQUIT (PostgreSQL's own "exit now"), then SIGKILL. */
static int end_leftovers(const struct embedded_pg *pg)
{
    int n = signal_cluster(pg, SIGQUIT);
    if (n == 0)
        return 0;
    log_warn("embedded PostgreSQL: ending %d process(es) the dead postmaster left behind", n);
    if (cluster_gone_within(pg, LEFTOVER_GRACE_MS))
        return 0;
    signal_cluster(pg, SIGKILL);
    return cluster_gone_within(pg, LEFTOVER_GRACE_MS) ? 0 : -1;
}

/* The dead postmaster's lock files name its pid. PostgreSQL takes them for
 * stale only when no process has that pid, but a killed postmaster is a
 * zombie until init reaps it, and the pid may be reused: the new
 * postmaster would refuse to start. It is dead and its processes are gone
 * (the shared memory interlock still stands guard): remove them. */
static void remove_stale_locks(const struct embedded_pg *pg)
{
    char path[700];
    snprintf(path, sizeof path, "%s/postmaster.pid", pg->pgdata);
    if (unlink(path) != 0 && errno != ENOENT)
        log_warn("embedded PostgreSQL: cannot remove %s: %s", path, strerror(errno));
    snprintf(path, sizeof path, "%s/.s.PGSQL." SOCKET_PORT ".lock", pg->pg_dir);
    if (unlink(path) != 0 && errno != ENOENT)
        log_warn("embedded PostgreSQL: cannot remove %s: %s", path, strerror(errno));
}

/* One restart attempt; 0 once a postmaster runs again. */
static int restart_postmaster(struct embedded_pg *pg)
{
    /* An earlier attempt whose wait timed out may have come up since. */
    if (postmaster_running(pg))
        return 0;
    if (end_leftovers(pg) != 0)
        return -1;
    remove_stale_locks(pg);
    return start_postmaster(pg, &pg->stopping) == 0 ? 0 : -1;
}

/* Sleeps ms unless a stop comes first; false when stopping. */
static bool pause_unless_stopping(struct embedded_pg *pg, int ms)
{
    struct timespec due;
    time_mono_deadline(&due, ms);
    pthread_mutex_lock(&pg->mu);
    int rc = 0;
    while (!atomic_load(&pg->stopping) && rc != ETIMEDOUT)
        rc = pthread_cond_timedwait(&pg->wake, &pg->mu, &due);
    pthread_mutex_unlock(&pg->mu);
    return !atomic_load(&pg->stopping);
}

/* Restarts the dead postmaster, retrying with exponential backoff until it
 * runs or the server stops. */
static void recover(struct embedded_pg *pg)
{
    log_warn("embedded PostgreSQL: the postmaster is gone; restarting it");
    int64_t since = time_mono_ns();
    int delay_ms = BACKOFF_FIRST_MS;
    for (int attempt = 1;; attempt++) {
        if (restart_postmaster(pg) == 0) {
            metrics_counter_add(pg->metrics, "hoglake_postgres_restarts_total", "", 1);
            log_info("embedded PostgreSQL restarted (attempt %d, %.1f s after it was found gone)",
                     attempt, (double)(time_mono_ns() - since) / 1e9);
            return;
        }
        if (atomic_load(&pg->stopping))
            return;
        log_warn("embedded PostgreSQL: restart attempt %d failed (see %s); next in %d ms", attempt,
                 pg->log_path, delay_ms);
        if (!pause_unless_stopping(pg, delay_ms))
            return;
        delay_ms = delay_ms * 2 < BACKOFF_MAX_MS ? delay_ms * 2 : BACKOFF_MAX_MS;
    }
}

static void *supervise(void *arg)
{
    struct embedded_pg *pg = arg;
    while (pause_unless_stopping(pg, CHECK_MS)) {
        if (!postmaster_running(pg))
            recover(pg);
    }
    return NULL;
}

int embedded_pg_supervise(struct embedded_pg *pg, struct metrics *metrics, struct error *err)
{
    /* Without a way to see the postmaster, a restart would fight a live
     * one: serve on unsupervised rather than guess. */
    pid_t pid = postmaster_pid(pg);
    if (!pg->postgres_exe[0] || pid <= 0 || !cluster_pid_alive(pg, pid)) {
        log_warn("embedded PostgreSQL: cannot watch the postmaster through %s/postmaster.pid "
                 "and /proc; it will not be restarted if it dies",
                 pg->pgdata);
        return 0;
    }
    pg->metrics = metrics;
    /* Exported at 0 from the start, so a dashboard sees the series. */
    metrics_counter_add(metrics, "hoglake_postgres_restarts_total", "", 0);
    atomic_store(&pg->stopping, false);
    pthread_mutex_init(&pg->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&pg->wake, &ca);
    pthread_condattr_destroy(&ca);
    int rc = pthread_create(&pg->supervisor, NULL, supervise, pg);
    if (rc != 0) {
        error_fail(err, ERR_IO, "cannot start the embedded PostgreSQL supervisor: %s",
                   strerror(rc));
        pthread_cond_destroy(&pg->wake);
        pthread_mutex_destroy(&pg->mu);
        return -1;
    }
    pg->supervised = true;
    return 0;
}

void embedded_pg_unsupervise(struct embedded_pg *pg)
{
    if (!pg || !pg->supervised)
        return;
    pthread_mutex_lock(&pg->mu);
    atomic_store(&pg->stopping, true);
    pthread_cond_broadcast(&pg->wake);
    pthread_mutex_unlock(&pg->mu);
    pthread_join(pg->supervisor, NULL);
    pthread_cond_destroy(&pg->wake);
    pthread_mutex_destroy(&pg->mu);
    pg->supervised = false;
}

void embedded_pg_stop(struct embedded_pg *pg)
{
    if (!pg)
        return;
    /* Never a restart racing the stop. */
    embedded_pg_unsupervise(pg);
    char *const argv[] = {pg->pg_ctl, "-D", pg->pgdata, "-m", "fast", "-w", "stop", NULL};
    if (run_tool(pg, argv, pg->log_path, NULL) != 0)
        log_warn("pg_ctl stop failed; see %s", pg->log_path);
    else
        log_info("embedded PostgreSQL stopped");
    if (pg->lock_fd >= 0)
        close(pg->lock_fd);
    free(pg);
}
