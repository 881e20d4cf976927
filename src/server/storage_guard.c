#include "server/storage_guard.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "objstore/objstore.h"
#include "server/auth/audit.h"
#include "server/metrics.h"
#include "server/server.h"
#include "util/datadir.h"
#include "util/log.h"
#include "util/strutil.h"

static int add_root(struct server *srv, const char *dir, struct error *err)
{
    char resolved[PATH_MAX];
    if (dir[0] != '/') {
        error_fail(err, ERR_INVALID, "file root '%s' is not an absolute directory", dir);
        return -1;
    }
    if (datadir_make_dirs(dir, 0755) != 0 || !realpath(dir, resolved)) {
        error_fail(err, ERR_IO, "file root '%s': %s", dir, strerror(errno));
        return -1;
    }
    char **grown = realloc(srv->file_roots, (srv->nfile_roots + 1) * sizeof *grown);
    if (!grown || !(grown[srv->nfile_roots] = strdup(resolved))) {
        if (grown)
            srv->file_roots = grown;
        error_nomem(err);
        return -1;
    }
    srv->file_roots = grown;
    srv->nfile_roots++;
    return 0;
}

int storage_roots_init(struct server *srv, struct error *err)
{
    const char *given = srv->cfg.file_roots;
    if (!given[0]) {
        /* The warehouse is where new catalogs go by default: its directory
         * is the one place file:// catalogs may be, unless told more. */
        if (str_starts_with(srv->cfg.warehouse, "file://"))
            return add_root(srv, srv->cfg.warehouse + 7, err);
        return 0;
    }
    char copy[sizeof srv->cfg.file_roots];
    str_copy(copy, sizeof copy, given);
    for (char *dir = copy, *next; dir; dir = next) {
        next = strchr(dir, ':');
        if (next)
            *next++ = '\0';
        if (*dir && add_root(srv, dir, err) != 0)
            return -1;
    }
    return 0;
}

void storage_roots_free(struct server *srv)
{
    for (size_t i = 0; i < srv->nfile_roots; i++)
        free(srv->file_roots[i]);
    free(srv->file_roots);
    srv->file_roots = NULL;
    srv->nfile_roots = 0;
}

/* Whether path is dir or lies beneath it. */
static bool beneath(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    if (n == 1) /* "/" */
        return true;
    return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

static int not_allowed(struct api_error *err, const char *data_path, const char *why)
{
    return api_fail(err, 422, "data_path_not_allowed", "data_path '%.300s' %s", data_path, why);
}

/* The first component of path (absolute) that exists as a symbolic link
 * or as something other than a directory; stops at the first missing one. */
static int check_components(const char *data_path, const char *path, struct api_error *err)
{
    char prefix[PATH_MAX];
    size_t n = strlen(path);
    if (n >= sizeof prefix)
        return not_allowed(err, data_path, "is too long");
    for (size_t i = 1; i <= n; i++) {
        if (path[i] != '/' && path[i] != '\0')
            continue;
        memcpy(prefix, path, i);
        prefix[i] = '\0';
        struct stat st;
        if (lstat(prefix, &st) != 0) {
            if (errno == ENOENT)
                return 0; /* the rest is made by the writers, beneath this */
            return not_allowed(err, data_path, "cannot be checked");
        }
        if (S_ISLNK(st.st_mode)) {
            char why[PATH_MAX + 64];
            snprintf(why, sizeof why, "holds a symbolic link (%.300s)", prefix);
            return not_allowed(err, data_path, why);
        }
        if (!S_ISDIR(st.st_mode))
            return not_allowed(err, data_path, "is not a directory");
    }
    return 0;
}

int storage_check_file_data_path(const struct server *srv, const char *data_path,
                                 struct api_error *err)
{
    const char *path = data_path + strlen("file://");
    bool allowed = false;
    for (size_t i = 0; i < srv->nfile_roots && !allowed; i++)
        allowed = beneath(path, srv->file_roots[i]);
    if (!allowed)
        return not_allowed(err, data_path,
                           srv->nfile_roots ? "is not beneath any of the server's file roots "
                                              "(--file-roots)"
                                            : "is not allowed: this server has no file roots "
                                              "(--file-roots)");
    /* The server's own state (its PostgreSQL cluster, its admin token)
     * is never a catalog's, whatever the roots say. */
    char data_dir[PATH_MAX], warehouse[PATH_MAX + 16];
    if (realpath(srv->cfg.data_dir, data_dir)) {
        snprintf(warehouse, sizeof warehouse, "%s/warehouse", data_dir);
        if ((beneath(path, data_dir) && !beneath(path, warehouse)) || beneath(data_dir, path))
            return not_allowed(err, data_path, "overlaps the server's data directory");
    }
    return check_components(data_path, path, err);
}

struct objstore *storage_view(struct server *srv, const char *data_path, struct hl_error *e)
{
    struct objstore *view = NULL;
    if (objstore_confine(srv->objstore, data_path, &view, e) != 0)
        return NULL;
    return view;
}

bool storage_refusal(const struct hl_error *e)
{
    return e && e->status == HL_ERR_FORBIDDEN;
}

void storage_record_refusal(struct server *srv, const char *catalog, const char *operation,
                            const char *uri, const char *reason, const struct hl_error *e)
{
    const char *why = reason ? reason : e && e->code[0] ? e->code : "refused";
    char labels[96], esc[64];
    metrics_label_escape(why, esc, sizeof esc);
    snprintf(labels, sizeof labels, "reason=\"%s\"", esc);
    metrics_counter_add(srv->metrics, "hoglake_storage_refusals_total", labels, 1);
    log_warn("storage: refused to %s %s in catalog %s (%s)%s%s", operation, uri,
             catalog ? catalog : "?", why, e ? ": " : "", e ? e->message : "");
    json_t *detail = json_pack("{s:s,s:s,s:s}", "operation", operation, "reason", why, "message",
                               e ? e->message : "");
    struct audit_event ev = {.action = "storage_refused",
                             .outcome = "refused",
                             .catalog = catalog,
                             .object = uri,
                             .detail = detail};
    audit_emit(srv->audit, &ev);
    json_decref(detail);
}
