#define _XOPEN_SOURCE 700 /* nftw: the FTW_ flags are XSI */
#include "server/privileges.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "server/config.h"
#include "util/log.h"
#include "util/strutil.h"
#include "util/datadir.h"

/* Where Debian keeps useradd (the passwd package, part of every system). */
#define USERADD "/usr/sbin/useradd"

static int lookup(const char *name, struct run_as *out)
{
    struct passwd *pw = getpwnam(name);
    if (!pw)
        return -1;
    out->uid = pw->pw_uid;
    out->gid = pw->pw_gid;
    str_copy(out->name, sizeof out->name, name);
    return 0;
}

/* Runs useradd once; its exit status, or -1. */
static int run_useradd(const char *name)
{
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        int null_fd = open("/dev/null", O_RDWR);
        if (null_fd >= 0) {
            dup2(null_fd, STDIN_FILENO);
            dup2(null_fd, STDOUT_FILENO);
        }
        execl(USERADD, USERADD, "--system", "--user-group", "--no-create-home", "--home-dir",
              "/nonexistent", "--shell", "/usr/sbin/nologin", "--comment", "hoglake catalog server",
              name, (char *)NULL);
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* useradd --system: its own group, no home, no shell. Another process
 * making users at the same moment holds /etc/passwd's lock (exit 10):
 * tried again; one that made this very user first (exit 9) is success. */
static int create_user(const char *name, struct error *err)
{
    int rc = -1;
    for (int attempt = 0; attempt < 20; attempt++) {
        rc = run_useradd(name);
        if (rc != 10)
            break;
        usleep(100 * 1000);
    }
    if (rc != 0 && rc != 9) {
        error_fail(err, ERR_IO,
                   "cannot create user %s with %s (exit %d): create it, name another with --user, "
                   "or run with --allow-root",
                   name, USERADD, rc);
        return -1;
    }
    log_info("created the system user %s to run as", name);
    return 0;
}

int privileges_resolve(const struct config *cfg, struct run_as *out, struct error *err)
{
    memset(out, 0, sizeof *out);
    if (geteuid() != 0)
        return 0;
    if (cfg->allow_root) {
        log_warn("running as root (--allow-root): every file the server opens, it opens as root");
        return 0;
    }
    if (!cfg->user[0] || strcmp(cfg->user, "root") == 0) {
        error_fail(err, ERR_INVALID,
                   "--user must name an unprivileged user (or give --allow-root)");
        return -1;
    }
    if (lookup(cfg->user, out) != 0) {
        if (create_user(cfg->user, err) != 0)
            return -1;
        if (lookup(cfg->user, out) != 0)
            return error_fail(err, ERR_INVALID, "user %s does not exist", cfg->user);
    }
    if (out->uid == 0 || out->gid == 0) {
        error_fail(err, ERR_INVALID,
                   "user %s is root or in group root: choose an unprivileged --user", cfg->user);
        return -1;
    }
    out->drop = true;
    return 0;
}

/* nftw has no context argument: the owner of the walk in progress. */
static uid_t walk_uid;
static gid_t walk_gid;

static int give(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)ftw;
    if (type != FTW_NS && st->st_uid == walk_uid && st->st_gid == walk_gid)
        return 0; /* already the user's: every start after the first */
    /* lchown: a link in the tree is handed over itself, never its target. */
    return lchown(path, walk_uid, walk_gid) == 0 || errno == ENOENT ? 0 : -1;
}

static int give_tree(const char *dir, const struct run_as *as)
{
    walk_uid = as->uid;
    walk_gid = as->gid;
    return nftw(dir, give, 32, FTW_PHYS | FTW_MOUNT);
}

/* The warehouse: the user's, group-writable and setgid, so the group
 * carries to what clients write there. */
static int share_warehouse(const char *dir, const struct run_as *as)
{
    if (datadir_make_dirs(dir, 02775) != 0 || chown(dir, as->uid, as->gid) != 0)
        return -1;
    return chmod(dir, 02775);
}

int privileges_prepare(const struct config *cfg, const struct run_as *as, struct error *err)
{
    if (!as->drop)
        return 0;
    const char *data_dir = cfg->data_dir;
    if (datadir_make_dirs(data_dir, 0755) != 0) {
        error_fail(err, ERR_IO, "cannot create data dir %s: %s", data_dir, strerror(errno));
        return -1;
    }
    /* The data dir is the server's own: its cluster (which from now on
     * runs as the user too), its token, its lock, its warehouse. */
    if (give_tree(data_dir, as) != 0) {
        error_fail(err, ERR_IO, "cannot hand data dir %s to user %s: %s", data_dir, as->name,
                   strerror(errno));
        return -1;
    }
    char warehouse[PATH_MAX];
    const char *wh = NULL;
    if (!cfg->warehouse[0] && !cfg->database_url[0]) {
        snprintf(warehouse, sizeof warehouse, "%s/warehouse", data_dir);
        wh = warehouse;
    } else if (str_starts_with(cfg->warehouse, "file://") &&
               access(cfg->warehouse + 7, F_OK) != 0) {
        wh = cfg->warehouse + 7; /* made here, so made the user's */
    }
    if (wh && share_warehouse(wh, as) != 0) {
        error_fail(err, ERR_IO, "cannot prepare warehouse %s for user %s: %s", wh, as->name,
                   strerror(errno));
        return -1;
    }
    return 0;
}

int privileges_drop(const struct run_as *as, const char *data_dir, struct error *err)
{
    if (!as->drop)
        return 0;
    if (setgroups(1, &as->gid) != 0 || setgid(as->gid) != 0 || setuid(as->uid) != 0) {
        error_fail(err, ERR_IO, "cannot become user %s: %s", as->name, strerror(errno));
        return -1;
    }
    /* Paranoia that costs nothing: root must be gone for good. */
    if (setuid(0) == 0 || geteuid() == 0 || getegid() == 0) {
        error_fail(err, ERR_IO, "still root after becoming %s: refusing to run", as->name);
        return -1;
    }
    /* A data dir below a directory closed to others (a 0700 home or
     * mktemp dir) was handed over but cannot be reached: say so now, not
     * as a failed write later. */
    if (access(data_dir, R_OK | W_OK | X_OK) != 0) {
        error_fail(err, ERR_IO,
                   "user %s cannot reach data dir %s (%s): a directory above it is closed to "
                   "other users; choose a --data-dir it can reach, or another --user",
                   as->name, data_dir, strerror(errno));
        return -1;
    }
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        log_warn("cannot set no_new_privs: %s", strerror(errno));
    log_info("running as user %s (uid %u)", as->name, (unsigned)as->uid);
    return 0;
}
