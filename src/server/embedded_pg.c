#include "server/embedded_pg.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <libpq-fe.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "server/config.h"
#include "server/db/db.h"
#include "util/log.h"

struct embedded_pg {
    char pg_ctl[600];
    char pgdata[600];
    bool as_other_user;
    uid_t uid;
    gid_t gid;
    int lock_fd;
};

#define DB_NAME "hoglake"
#define SOCKET_PORT "5432"

static void set_err(char *err, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set_err(char *err, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, size, fmt, ap);
    va_end(ap);
}

static int mkdir_p(const char *path, mode_t mode)
{
    char tmp[600];
    if (snprintf(tmp, sizeof tmp, "%s", path) >= (int)sizeof tmp)
        return -1;
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    if (mkdir(tmp, mode) != 0 && errno != EEXIST)
        return -1;
    return 0;
}

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

/* Runs argv (argv[0] is a full path) to completion, as the cluster's user,
 * with stdout/stderr appended to log_path. Returns the exit status, or -1
 * when it could not be run. */
static int run_tool(const struct embedded_pg *pg, char *const argv[], const char *log_path)
{
    int log_fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (log_fd < 0)
        return -1;
    if (pg->as_other_user && fchown(log_fd, pg->uid, pg->gid) != 0) {
        close(log_fd);
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        close(log_fd);
        return -1;
    }
    if (pid == 0) {
        /* Child: only async-signal-safe calls until exec. */
        int null_fd = open("/dev/null", O_RDONLY);
        if (null_fd >= 0)
            dup2(null_fd, STDIN_FILENO);
        dup2(log_fd, STDOUT_FILENO);
        dup2(log_fd, STDERR_FILENO);
        if (pg->as_other_user &&
            (setgroups(1, &pg->gid) != 0 || setgid(pg->gid) != 0 || setuid(pg->uid) != 0))
            _exit(126);
        execv(argv[0], argv);
        _exit(127);
    }
    close(log_fd);
    int status;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR)
            return -1;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
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

static int ensure_database(const char *socket_dir, char *conninfo, size_t conninfo_size, char *err,
                           size_t err_size)
{
    char host[700];
    conn_quote(host, sizeof host, socket_dir);
    char admin[800];
    snprintf(admin, sizeof admin, "host=%s port=" SOCKET_PORT " user=postgres dbname=postgres",
             host);
    char cerr[512];
    PGconn *c = db_connect(admin, 30, cerr, sizeof cerr);
    if (!c) {
        set_err(err, err_size, "cannot connect to the embedded PostgreSQL: %s", cerr);
        return -1;
    }
    struct db_err dberr;
    PGresult *r =
        db_exec(c, "SELECT 1 FROM pg_database WHERE datname = '" DB_NAME "'", NULL, &dberr);
    int rc = 0;
    if (!r) {
        set_err(err, err_size, "embedded PostgreSQL: %s", dberr.message);
        rc = -1;
    } else if (PQntuples(r) == 0 &&
               db_run(c, "CREATE DATABASE " DB_NAME " ENCODING 'UTF8'", NULL, &dberr) != 0) {
        set_err(err, err_size, "embedded PostgreSQL: cannot create the database: %s",
                dberr.message);
        rc = -1;
    }
    PQclear(r);
    PQfinish(c);
    snprintf(conninfo, conninfo_size, "host=%s port=" SOCKET_PORT " user=postgres dbname=" DB_NAME,
             host);
    return rc;
}

struct embedded_pg *embedded_pg_start(const struct config *cfg, char *conninfo,
                                      size_t conninfo_size, char *err, size_t err_size)
{
    struct embedded_pg *pg = calloc(1, sizeof *pg);
    if (!pg) {
        set_err(err, err_size, "out of memory");
        return NULL;
    }
    pg->lock_fd = -1;
    const char *data_dir = cfg->data_dir;
    if (strpbrk(data_dir, "'\"\\ \t\n")) {
        set_err(err, err_size, "data dir '%s' must not contain quotes, spaces or backslashes",
                data_dir);
        goto fail;
    }
    char bin[512];
    if (cfg->pg_bin[0])
        snprintf(bin, sizeof bin, "%s", cfg->pg_bin);
    else if (!find_pg_bin(bin, sizeof bin)) {
        set_err(err, err_size,
                "embedded mode needs PostgreSQL's server binaries: install the postgresql "
                "package (apt-get install postgresql), set --pg-bin, or pass --database-url");
        goto fail;
    }
    if (!is_dir_with(bin, "initdb") || !is_dir_with(bin, "pg_ctl")) {
        set_err(err, err_size, "no initdb/pg_ctl in %s", bin);
        goto fail;
    }
    if (geteuid() == 0) {
        const char *user = cfg->pg_user[0] ? cfg->pg_user : "postgres";
        struct passwd *pw = getpwnam(user);
        if (!pw || pw->pw_uid == 0) {
            set_err(err, err_size,
                    "running as root, the embedded PostgreSQL needs an unprivileged user to own "
                    "it; '%s' %s (set --pg-user)",
                    user, pw ? "is root" : "does not exist");
            goto fail;
        }
        pg->as_other_user = true;
        pg->uid = pw->pw_uid;
        pg->gid = pw->pw_gid;
    }

    if (mkdir_p(data_dir, 0755) != 0) {
        set_err(err, err_size, "cannot create data dir %s: %s", data_dir, strerror(errno));
        goto fail;
    }
    char path[700];
    snprintf(path, sizeof path, "%s/hoglaked.lock", data_dir);
    pg->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (pg->lock_fd < 0 || flock(pg->lock_fd, LOCK_EX | LOCK_NB) != 0) {
        set_err(err, err_size,
                "another hoglaked is using data dir %s (embedded mode runs one server per data "
                "dir; share a --database-url to run several)",
                data_dir);
        goto fail;
    }

    char pg_dir[540];
    snprintf(pg_dir, sizeof pg_dir, "%s/pg", data_dir);
    struct sockaddr_un sun;
    if (strlen(pg_dir) + strlen("/.s.PGSQL." SOCKET_PORT) >= sizeof sun.sun_path) {
        set_err(err, err_size,
                "data dir path %s is too long for PostgreSQL's Unix socket; choose a shorter "
                "--data-dir",
                data_dir);
        goto fail;
    }
    if (mkdir_p(pg_dir, 0700) != 0 || (pg->as_other_user && chown(pg_dir, pg->uid, pg->gid) != 0)) {
        set_err(err, err_size, "cannot prepare %s: %s", pg_dir, strerror(errno));
        goto fail;
    }
    if (!reachable_by_owner(pg, pg_dir)) {
        set_err(err, err_size,
                "the PostgreSQL user cannot reach %s: make every parent directory traversable "
                "(chmod o+x) or choose another --data-dir",
                pg_dir);
        goto fail;
    }
    snprintf(pg->pgdata, sizeof pg->pgdata, "%s/data", pg_dir);
    snprintf(pg->pg_ctl, sizeof pg->pg_ctl, "%s/pg_ctl", bin);
    char log_path[600], initdb[600];
    snprintf(log_path, sizeof log_path, "%s/postgresql.log", pg_dir);
    snprintf(initdb, sizeof initdb, "%s/initdb", bin);

    snprintf(path, sizeof path, "%s/PG_VERSION", pg->pgdata);
    if (access(path, F_OK) != 0) {
        log_info("creating the embedded PostgreSQL cluster in %s", pg->pgdata);
        char *const argv[] = {initdb, "-D",   pg->pgdata,         "-U", "postgres", "-A", "trust",
                              "-E",   "UTF8", "--locale=C.UTF-8", NULL};
        if (run_tool(pg, argv, log_path) != 0) {
            set_err(err, err_size, "initdb failed; see %s", log_path);
            goto fail;
        }
    }

    /* A cluster left running by a crashed hoglaked is adopted. */
    char *const status_argv[] = {pg->pg_ctl, "-D", pg->pgdata, "status", NULL};
    if (run_tool(pg, status_argv, log_path) != 0) {
        char opts[800];
        snprintf(opts, sizeof opts,
                 "-c listen_addresses='' -c unix_socket_directories='%s' -c port=" SOCKET_PORT
                 " -c unix_socket_permissions=0700",
                 pg_dir);
        char *const start_argv[] = {pg->pg_ctl, "-D",  pg->pgdata, "-l", log_path, "-w",
                                    "-t",       "120", "-o",       opts, "start",  NULL};
        if (run_tool(pg, start_argv, log_path) != 0) {
            set_err(err, err_size, "the embedded PostgreSQL did not start; see %s", log_path);
            goto fail;
        }
        log_info("embedded PostgreSQL started (socket in %s)", pg_dir);
    } else {
        log_info("adopted the embedded PostgreSQL already running in %s", pg->pgdata);
    }
    if (ensure_database(pg_dir, conninfo, conninfo_size, err, err_size) != 0) {
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

void embedded_pg_stop(struct embedded_pg *pg)
{
    if (!pg)
        return;
    char log_path[700];
    snprintf(log_path, sizeof log_path, "%s/../postgresql.log", pg->pgdata);
    char *const argv[] = {pg->pg_ctl, "-D", pg->pgdata, "-m", "fast", "-w", "stop", NULL};
    if (run_tool(pg, argv, log_path) != 0)
        log_warn("pg_ctl stop failed; see %s", log_path);
    else
        log_info("embedded PostgreSQL stopped");
    if (pg->lock_fd >= 0)
        close(pg->lock_fd);
    free(pg);
}
