#include "objstore/filestore.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "objstore/errors.h"
#include "objstore/fsplace.h"
#include "objstore/objstore.h"
#include "util/array.h"
#include "util/strutil.h"
#include "util/random.h"

/* errno e of `what` on path into *err: a missing path is HL_ERR_NOT_FOUND
 * when reading, a plain failure when writing (the object cannot be put
 * there, e.g. a parent is a file). */
static int fail_errno(struct hl_error *err, const char *what, const char *path, int e, bool reading)
{
    if (e == ENOMEM)
        return os_nomem(err);
    if (reading && (e == ENOENT || e == ENOTDIR || e == EISDIR))
        return os_fail(err, HL_ERR_NOT_FOUND, 0, false, "not_found", "file://%.300s: not found",
                       path);
    /* Only a transient condition deserves another try. */
    bool retry = e == EINTR || e == EAGAIN || e == EIO || e == ENOSPC || e == EMFILE || e == ENFILE;
    return os_fail(err, HL_ERR_IO, 0, retry, "io", "%s file://%.300s: %s", what, path, strerror(e));
}

static int io_fail(struct hl_error *err, const char *what, const char *path, int e)
{
    return fail_errno(err, what, path, e, true);
}

static int write_fail(struct hl_error *err, const char *what, const char *path, int e)
{
    return fail_errno(err, what, path, e, false);
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

struct file_writer {
    char *path;
    struct fs_place place;
    char tmp[sizeof FILESTORE_TEMP_PREFIX + 16]; /* the temp file's name in place.dirfd */
    int fd;                                      /* -1 once the temp file is gone */
    unsigned flags;
    uint64_t size;
    struct hl_error failure; /* after a failed write, reported again */
};

/* A new temp file beside the target: a random name, created exclusively
 * (never an existing file, never through a link). */
static int create_temp(struct file_writer *w)
{
    static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    for (int attempt = 0; attempt < 16; attempt++) {
        unsigned char rnd[12];
        if (random_bytes(rnd, sizeof rnd) != 0)
            return -1;
        int n = snprintf(w->tmp, sizeof w->tmp, "%s", FILESTORE_TEMP_PREFIX);
        for (size_t i = 0; i < sizeof rnd; i++)
            w->tmp[n++] = alphabet[rnd[i] % (sizeof alphabet - 1)];
        w->tmp[n] = '\0';
        w->fd = openat(w->place.dirfd, w->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                       0600);
        if (w->fd >= 0 || errno != EEXIST)
            return w->fd >= 0 ? 0 : -1;
    }
    errno = EEXIST;
    return -1;
}

int file_writer_open(const char *root, const char *path, unsigned flags, struct file_writer **out,
                     struct hl_error *err)
{
    *out = NULL;
    struct file_writer *w = calloc(1, sizeof *w);
    if (!w || !(w->path = strdup(path))) {
        free(w);
        return os_nomem(err);
    }
    w->fd = -1;
    if (fs_place_open(root, w->path, true, &w->place, err) != 0) {
        free(w->path);
        free(w);
        return -1;
    }
    if (create_temp(w) != 0) {
        int rc = write_fail(err, "create", path, errno);
        fs_place_close(&w->place);
        free(w->path);
        free(w);
        return rc;
    }
    w->flags = flags;
    *out = w;
    return 0;
}

/* Closes and removes the temp file, if still there. */
static void drop_temp(struct file_writer *w)
{
    if (w->fd < 0)
        return;
    close(w->fd);
    unlinkat(w->place.dirfd, w->tmp, 0);
    w->fd = -1;
}

static void writer_free(struct file_writer *w)
{
    drop_temp(w);
    fs_place_close(&w->place);
    free(w->path);
    free(w);
}

int file_writer_write(struct file_writer *w, const void *data, size_t len, struct hl_error *err)
{
    if (w->fd < 0) {
        if (err)
            *err = w->failure;
        return -1;
    }
    if (write_all(w->fd, data, len) != 0) {
        write_fail(&w->failure, "write", w->path, errno);
        drop_temp(w); /* a partial file is of no use: the space goes back now */
        if (err)
            *err = w->failure;
        return -1;
    }
    w->size += len;
    return 0;
}

int file_writer_commit(struct file_writer *w, uint64_t *size, struct hl_error *err)
{
    if (w->fd < 0) {
        if (err)
            *err = w->failure;
        writer_free(w);
        return -1;
    }
    int e = 0;
    if (fchmod(w->fd, 0644) != 0 || fsync(w->fd) != 0)
        e = errno;
    if (close(w->fd) != 0 && !e)
        e = errno;
    w->fd = -1;
    int dir = w->place.dirfd;
    if (!e) {
        if (w->flags & OBJSTORE_IF_NONE_MATCH) {
            /* link() fails when the name exists: an atomic create-if-absent. */
            if (linkat(dir, w->tmp, dir, w->place.name, 0) != 0)
                e = errno;
            unlinkat(dir, w->tmp, 0);
        } else if (renameat(dir, w->tmp, dir, w->place.name) != 0) {
            e = errno;
        }
    }
    int rc = 0;
    if (e) {
        unlinkat(dir, w->tmp, 0);
        if (e == EEXIST)
            rc = os_fail(err, HL_ERR_ALREADY_EXISTS, 0, false, "already_exists",
                         "file://%.300s: already exists", w->path);
        else
            rc = write_fail(err, "write", w->path, e);
    } else if (fsync(dir) != 0) {
        rc = write_fail(err, "fsync directory of", w->path, errno);
    }
    if (rc == 0 && size)
        *size = w->size;
    writer_free(w);
    return rc;
}

void file_writer_abort(struct file_writer *w)
{
    if (w)
        writer_free(w);
}

int file_put(const char *root, const char *path, const void *data, size_t len, unsigned flags,
             struct hl_error *err)
{
    struct file_writer *w;
    if (file_writer_open(root, path, flags, &w, err) != 0)
        return -1;
    if (file_writer_write(w, data, len, err) != 0) {
        file_writer_abort(w);
        return -1;
    }
    return file_writer_commit(w, NULL, err);
}

/* The regular file at path, opened for reading, and its size. */
static int open_object(const char *root, const char *path, uint64_t *size, struct hl_error *err)
{
    struct fs_place place;
    if (fs_place_open(root, path, false, &place, err) != 0)
        return -1;
    int fd = fs_open_regular(&place, path, size, err);
    fs_place_close(&place);
    return fd;
}

int file_head(const char *root, const char *path, uint64_t *size, struct hl_error *err)
{
    uint64_t n = 0;
    int fd = open_object(root, path, &n, err);
    if (fd < 0)
        return -1;
    close(fd);
    if (size)
        *size = n;
    return 0;
}

int file_get(const char *root, const char *path, uint64_t offset, uint64_t length, struct buf *out,
             struct hl_error *err)
{
    uint64_t size = 0;
    int fd = open_object(root, path, &size, err);
    if (fd < 0)
        return -1;
    bool whole = offset == 0 && length == UINT64_MAX;
    if (length == 0) {
        close(fd);
        return 0;
    }
    if (offset >= size && !(whole && size == 0)) {
        close(fd);
        return os_fail(err, HL_ERR_INVALID_ARGUMENT, 0, false, "InvalidRange",
                       "file://%.300s: offset %llu is past the end (%llu bytes)", path,
                       (unsigned long long)offset, (unsigned long long)size);
    }
    uint64_t n = size - offset;
    if (length < n)
        n = length;
    if (n > SIZE_MAX / 2 || buf_reserve(out, (size_t)n) != 0) {
        close(fd);
        return os_nomem(err);
    }
    size_t done = 0;
    while (done < n) {
        ssize_t r =
            pread(fd, out->data + out->len + done, (size_t)n - done, (off_t)(offset + done));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            int e = r < 0 ? errno : EIO; /* shrank under us */
            close(fd);
            out->data[out->len] = '\0';
            return io_fail(err, "read", path, e);
        }
        done += (size_t)r;
    }
    close(fd);
    out->len += done;
    out->data[out->len] = '\0';
    return 0;
}

int file_delete(const char *root, const char *path, bool *existed, struct hl_error *err)
{
    *existed = false;
    struct fs_place place;
    struct hl_error e;
    if (fs_place_open(root, path, false, &place, &e) != 0) {
        if (e.status == HL_ERR_NOT_FOUND)
            return 0; /* no directory, no object */
        if (err)
            *err = e;
        return -1;
    }
    struct stat st;
    int rc = 0;
    if (fstatat(place.dirfd, place.name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
        if (errno != ENOENT && errno != ENOTDIR)
            rc = write_fail(err, "delete", path, errno);
    } else if (root && !S_ISREG(st.st_mode)) {
        /* The server deletes files it registered: never a link, a
         * directory or a device, whatever the path was made to name. */
        rc = os_fail(err, HL_ERR_FORBIDDEN, 0, false,
                     S_ISLNK(st.st_mode) ? "symlink" : "not_regular_file",
                     "file://%.300s: %s; not deleted", path,
                     S_ISLNK(st.st_mode) ? "a symbolic link" : "not a regular file");
    } else if (S_ISDIR(st.st_mode)) {
        rc = 0; /* a directory is no object */
    } else if (unlinkat(place.dirfd, place.name, 0) == 0) {
        *existed = true;
    } else if (errno != ENOENT) {
        rc = write_fail(err, "delete", path, errno);
    }
    fs_place_close(&place);
    return rc;
}

/* ---- list ---- */

struct entry {
    char *path;
    uint64_t size;
    int64_t mtime_s;
    bool temp;
};

struct walk {
    const char *prefix;
    size_t prefix_len;
    bool with_temp;
    struct entry *e;
    size_t n, cap;
    struct hl_error *err;
};

static int add_entry(struct walk *w, const char *path, const struct stat *st, bool temp)
{
    if (ARRAY_RESERVE(w->e, w->cap, w->n + 1, 256) != 0)
        return os_nomem(w->err);
    char *copy = strdup(path);
    if (!copy)
        return os_nomem(w->err);
    w->e[w->n++] = (struct entry){copy, (uint64_t)st->st_size, (int64_t)st->st_mtime, temp};
    return 0;
}

/* A directory can hold matches when the prefix starts with "dir/" or the
 * directory's path starts with the prefix. */
static bool may_match(const struct walk *w, const char *dir, size_t len)
{
    size_t n = len < w->prefix_len ? len : w->prefix_len;
    return memcmp(dir, w->prefix, n) == 0;
}

/* Opens a directory to walk. Below the start, one that lstat saw as a
 * directory is opened without following a link (a directory swapped for a
 * link since is not entered), and so is the start when no_links. NULL with
 * errno set when it cannot be. */
static DIR *open_dir(const char *path, bool no_links)
{
    if (!no_links)
        return opendir(path);
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    DIR *d = fdopendir(fd);
    if (!d)
        close(fd);
    return d;
}

static int walk_dir(struct walk *w, char *path, size_t len, bool no_links)
{
    DIR *d = open_dir(path, no_links);
    if (!d) {
        if (errno == ENOENT || errno == ENOTDIR || errno == ELOOP)
            return 0;
        return io_fail(w->err, "list", path, errno);
    }
    int rc = 0;
    struct dirent *de;
    while (rc == 0 && (de = readdir(d)) != NULL) {
        const char *name = de->d_name;
        bool temp = str_starts_with(name, FILESTORE_TEMP_PREFIX);
        if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0 || (temp && !w->with_temp))
            continue;
        size_t nl = strlen(name);
        if (len + 1 + nl >= PATH_MAX)
            continue;
        size_t at = (len == 1) ? 1 : len + 1; /* the root is "/" */
        if (len != 1)
            path[len] = '/';
        memcpy(path + at, name, nl + 1);
        size_t plen = at + nl;
        struct stat st;
        if (lstat(path, &st) != 0) {
            if (errno != ENOENT) /* removed while we looked: not an error */
                rc = io_fail(w->err, "list", path, errno);
        } else if (S_ISDIR(st.st_mode)) {
            /* Enter it only when "dir/" and the prefix agree as far as both go. */
            path[plen] = '/';
            path[plen + 1] = '\0';
            bool go = may_match(w, path, plen + 1);
            path[plen] = '\0';
            if (go)
                rc = walk_dir(w, path, plen, true);
        } else if (S_ISREG(st.st_mode) && plen >= w->prefix_len &&
                   memcmp(path, w->prefix, w->prefix_len) == 0) {
            rc = add_entry(w, path, &st, temp);
        }
        path[len] = '\0';
    }
    closedir(d);
    return rc;
}

static int cmp_entry(const void *a, const void *b)
{
    return strcmp(((const struct entry *)a)->path, ((const struct entry *)b)->path);
}

int file_list(const char *prefix, unsigned flags,
              int (*fn)(void *ctx, const struct objstore_entry *e), void *ctx, struct hl_error *err)
{
    struct walk w = {prefix, strlen(prefix), (flags & OBJSTORE_LIST_TEMP) != 0, NULL, 0, 0, err};
    /* Start at the directory holding the prefix's last segment. */
    char path[PATH_MAX];
    const char *slash = strrchr(prefix, '/');
    size_t len = slash == prefix ? 1 : (size_t)(slash - prefix);
    memcpy(path, prefix, len);
    path[len] = '\0';
    int rc = walk_dir(&w, path, len, (flags & OBJSTORE_LIST_NO_LINKS) != 0);
    if (rc == 0) {
        if (w.n)
            qsort(w.e, w.n, sizeof *w.e, cmp_entry);
        struct buf uri = BUF_INIT;
        for (size_t i = 0; i < w.n && rc == 0; i++) {
            buf_reset(&uri);
            if (buf_printf(&uri, "file://%s", w.e[i].path) != 0) {
                rc = os_nomem(err);
                break;
            }
            struct objstore_entry e = {uri.data, w.e[i].size, w.e[i].mtime_s, w.e[i].temp};
            if (fn(ctx, &e) != 0)
                break;
        }
        buf_free(&uri);
    }
    for (size_t i = 0; i < w.n; i++)
        free(w.e[i].path);
    free(w.e);
    return rc;
}
