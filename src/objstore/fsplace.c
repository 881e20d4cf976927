#include "objstore/fsplace.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "objstore/errors.h"

static _Atomic bool try_openat2 = true;

void fs_place_use_openat2(bool on)
{
    atomic_store(&try_openat2, on);
}

static int refuse(struct hl_error *err, const char *reason, const char *path, const char *what)
{
    return os_fail(err, HL_ERR_FORBIDDEN, 0, false, reason, "file://%.300s: %s", path, what);
}

/* errno e of opening a directory on the way to path. */
static int dir_fail(struct hl_error *err, const char *path, int e, bool create)
{
    if (e == ENOMEM)
        return os_nomem(err);
    if (!create && (e == ENOENT || e == ENOTDIR))
        return os_fail(err, HL_ERR_NOT_FOUND, 0, false, "not_found", "file://%.300s: not found",
                       path);
    bool retry = e == EINTR || e == EAGAIN || e == EIO || e == ENOSPC || e == EMFILE || e == ENFILE;
    return os_fail(err, HL_ERR_IO, 0, retry, "io", "open directory of file://%.300s: %s", path,
                   strerror(e));
}

/* openat2 under `resolve`; -1 with errno ENOSYS when the kernel (or a
 * seccomp filter) has no openat2, or when tests turned it off. */
static int open2(int dirfd, const char *path, int flags, unsigned long long resolve)
{
    if (!atomic_load(&try_openat2)) {
        errno = ENOSYS;
        return -1;
    }
    struct open_how how = {.flags = (unsigned long long)flags, .resolve = resolve};
    long fd = syscall(SYS_openat2, dirfd, path, &how, sizeof how);
    if (fd < 0 && (errno == ENOSYS || errno == EPERM))
        atomic_store(&try_openat2, false); /* not coming back: walk from now on */
    return (int)fd;
}

/* Why opening component `name` in dirfd (never following a link) failed:
 * a link there is a refusal, anything else the errno as it was. */
static int classify(int dirfd, const char *name, int e, const char *path, struct hl_error *err,
                    bool create)
{
    struct stat st;
    if ((e == ENOTDIR || e == ELOOP) && fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
        S_ISLNK(st.st_mode))
        return refuse(err, "symlink", path, "a path component is a symbolic link");
    if (e == ELOOP)
        return refuse(err, "symlink", path, "a path component is a symbolic link");
    return dir_fail(err, path, e, create);
}

/* Makes directory name in dirfd when missing; under a setgid directory it
 * is made group-writable and setgid too (a shared warehouse). */
static int make_dir(int dirfd, const char *name)
{
    if (mkdirat(dirfd, name, 0755) != 0)
        return errno == EEXIST ? 0 : -1;
    struct stat parent;
    if (fstat(dirfd, &parent) == 0 && (parent.st_mode & S_ISGID))
        (void)fchmodat(dirfd, name, 02775, 0); /* best effort: the dir exists either way */
    return 0;
}

/* Opens dir (components separated by '/', no leading '/') below dirfd one
 * component at a time, never following a link; with create, missing ones
 * are made. Consumes nothing: dirfd stays open. */
static int walk(int dirfd, char *dir, bool confined, bool create, const char *path,
                struct hl_error *err)
{
    int cur = dirfd;
    char *comp = dir;
    while (comp && *comp) {
        char *slash = strchr(comp, '/');
        if (slash)
            *slash = '\0';
        int flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC | (confined ? O_NOFOLLOW : 0);
        int next = create && make_dir(cur, comp) != 0 ? -1 : openat(cur, comp, flags);
        if (next < 0) {
            int e = errno;
            int rc = confined ? classify(cur, comp, e, path, err, create)
                              : dir_fail(err, path, e, create);
            if (cur != dirfd)
                close(cur);
            return rc;
        }
        if (cur != dirfd)
            close(cur);
        cur = next;
        comp = slash ? slash + 1 : NULL;
    }
    if (cur != dirfd)
        return cur;
    int fd = fcntl(dirfd, F_DUPFD_CLOEXEC, 0); /* the caller closes what it gets */
    return fd >= 0 ? fd : dir_fail(err, path, errno, create);
}

/* The directory `dir` (absolute) opened without following any link:
 * openat2 when there is one, else the walk from "/". */
static int open_root(const char *dir, const char *path, struct hl_error *err)
{
    int fd = open2(AT_FDCWD, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC, RESOLVE_NO_SYMLINKS);
    if (fd >= 0)
        return fd;
    if (errno == ELOOP)
        return refuse(err, "symlink", path, "the catalog's data path holds a symbolic link");
    if (errno != ENOSYS)
        return dir_fail(err, path, errno, false);
    int top = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (top < 0)
        return dir_fail(err, path, errno, false);
    char copy[PATH_MAX];
    size_t n = strlen(dir);
    if (n >= sizeof copy) {
        close(top);
        return dir_fail(err, path, ENAMETOOLONG, false);
    }
    memcpy(copy, dir, n + 1);
    fd = walk(top, copy + 1, true, false, path, err);
    close(top);
    return fd;
}

/* The parent directory of path beneath root, never following a link. */
static int open_confined(const char *root, const char *path, size_t parent_len, bool create,
                         struct hl_error *err)
{
    size_t rn = strlen(root);
    while (rn > 1 && root[rn - 1] == '/')
        rn--;
    if (strncmp(path, root, rn) != 0 || path[rn] != '/' || parent_len < rn)
        return refuse(err, "outside_root", path, "outside the catalog's data path");
    char rootdir[PATH_MAX], rel[PATH_MAX];
    if (rn >= sizeof rootdir || parent_len - rn >= sizeof rel)
        return dir_fail(err, path, ENAMETOOLONG, create);
    memcpy(rootdir, root, rn);
    rootdir[rn] = '\0';
    size_t reln = parent_len > rn ? parent_len - rn - 1 : 0;
    memcpy(rel, path + rn + 1, reln);
    rel[reln] = '\0';
    int rootfd = open_root(rootdir, path, err);
    if (rootfd < 0)
        return -1;
    int fd = -1;
    if (reln == 0) {
        fd = rootfd;
        rootfd = -1;
    } else if (!create) {
        fd = open2(rootfd, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC,
                   RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
        if (fd < 0 && errno == ELOOP)
            fd = refuse(err, "symlink", path, "a path component is a symbolic link");
        else if (fd < 0 && errno == EXDEV)
            fd = refuse(err, "outside_root", path, "resolves outside the catalog's data path");
        else if (fd < 0 && errno != ENOSYS)
            fd = dir_fail(err, path, errno, false);
        else if (fd < 0)
            fd = walk(rootfd, rel, true, false, path, err);
    } else {
        fd = walk(rootfd, rel, true, true, path, err);
    }
    if (rootfd >= 0)
        close(rootfd);
    return fd;
}

/* The parent directory of path as given (a client's own storage). */
static int open_plain(const char *path, size_t parent_len, bool create, struct hl_error *err)
{
    char dir[PATH_MAX];
    if (parent_len >= sizeof dir)
        return dir_fail(err, path, ENAMETOOLONG, create);
    if (!create) {
        memcpy(dir, path, parent_len ? parent_len : 1);
        dir[parent_len ? parent_len : 1] = '\0';
        int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        return fd >= 0 ? fd : dir_fail(err, path, errno, false);
    }
    int top = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (top < 0)
        return dir_fail(err, path, errno, true);
    memcpy(dir, path + 1, parent_len ? parent_len - 1 : 0);
    dir[parent_len ? parent_len - 1 : 0] = '\0';
    int fd = walk(top, dir, false, true, path, err);
    close(top);
    return fd;
}

int fs_place_open(const char *root, const char *path, bool create, struct fs_place *out,
                  struct hl_error *err)
{
    out->dirfd = -1;
    out->confined = root != NULL;
    const char *slash = strrchr(path, '/');
    if (!slash || !slash[1])
        return os_fail(err, HL_ERR_INVALID_ARGUMENT, 0, false, "invalid_uri",
                       "file://%.300s: not a file path", path);
    out->name = slash + 1;
    size_t parent_len = (size_t)(slash - path);
    int fd = root ? open_confined(root, path, parent_len, create, err)
                  : open_plain(path, parent_len, create, err);
    if (fd < 0)
        return -1;
    out->dirfd = fd;
    return 0;
}

void fs_place_close(struct fs_place *p)
{
    if (p->dirfd >= 0)
        close(p->dirfd);
    p->dirfd = -1;
}

int fs_open_regular(const struct fs_place *p, const char *path, uint64_t *size,
                    struct hl_error *err)
{
    /* O_NONBLOCK: opening a FIFO must not hang; regular files ignore it. */
    int flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | (p->confined ? O_NOFOLLOW : 0);
    int fd = openat(p->dirfd, p->name, flags);
    if (fd < 0) {
        int e = errno;
        if (p->confined && e == ELOOP)
            return refuse(err, "symlink", path, "the object is a symbolic link");
        if (e == ENOENT || e == ENOTDIR || e == EISDIR)
            return os_fail(err, HL_ERR_NOT_FOUND, 0, false, "not_found", "file://%.300s: not found",
                           path);
        if (e == ENOMEM)
            return os_nomem(err);
        bool retry = e == EINTR || e == EAGAIN || e == EIO || e == EMFILE || e == ENFILE;
        return os_fail(err, HL_ERR_IO, 0, retry, "io", "open file://%.300s: %s", path, strerror(e));
    }
    struct stat st;
    int sr = fstat(fd, &st);
    if (sr != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        if (sr == 0 && p->confined)
            return refuse(err, "not_regular_file", path, "not a regular file");
        return os_fail(err, HL_ERR_NOT_FOUND, 0, false, "not_found", "file://%.300s: not found",
                       path);
    }
    *size = (uint64_t)st.st_size;
    return fd;
}
