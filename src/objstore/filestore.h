/* The file:// backend: objects are regular files under absolute paths.
 * Semantics as objstore.h describes them; paths come already checked by
 * objstore_uri_parse. `root` is NULL for a client's own storage, or the
 * directory every path must lie beneath, reached without following a
 * symbolic link (fsplace.h), when the server acts on a catalog. */
#ifndef HL_OBJSTORE_FILESTORE_H
#define HL_OBJSTORE_FILESTORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hoglake/error.h"
#include "util/buf.h"

/* Temp files of puts in progress are named with this prefix in the target
 * directory; listings skip them. */
#define FILESTORE_TEMP_PREFIX ".hl-tmp."

/* Writes a temp file beside the target, fsyncs it, then renames it over
 * the target (exclusive: link()s it, failing if the target exists), and
 * fsyncs the directory. Missing parent directories are created. */
int file_put(const char *root, const char *path, const void *data, size_t len, unsigned flags,
             struct hl_error *err);

/* The same, streamed (file_put is open + write + commit): the temp file is
 * created at open, written as bytes come, and renamed (or linked) at
 * commit. A failed write removes the temp file at once and leaves the
 * writer failed: later writes and the commit report the same error. Commit
 * and abort free the writer (abort removes the temp file). */
struct file_writer;
int file_writer_open(const char *root, const char *path, unsigned flags, struct file_writer **out,
                     struct hl_error *err);
int file_writer_write(struct file_writer *w, const void *data, size_t len, struct hl_error *err);
int file_writer_commit(struct file_writer *w, uint64_t *size, struct hl_error *err);
void file_writer_abort(struct file_writer *w);
int file_get(const char *root, const char *path, uint64_t offset, uint64_t length, struct buf *out,
             struct hl_error *err);
int file_head(const char *root, const char *path, uint64_t *size, struct hl_error *err);
/* Every regular file whose path starts with `prefix`, in byte order, and
 * the temp files of puts in progress with OBJSTORE_LIST_TEMP. Links below
 * the prefix's directory are never followed, nor that directory itself
 * with OBJSTORE_LIST_NO_LINKS. */
struct objstore_entry;
int file_list(const char *prefix, unsigned flags,
              int (*fn)(void *ctx, const struct objstore_entry *e), void *ctx,
              struct hl_error *err);
/* Unlinks path; *existed says whether there was a file. Confined, only a
 * regular file is deleted: a link or anything else is refused. */
int file_delete(const char *root, const char *path, bool *existed, struct hl_error *err);

#endif
