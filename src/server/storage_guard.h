/* What the server may touch in storage, and the record of what it refused.
 *
 * The server itself reads (hydrator, compaction), writes (compaction) and
 * deletes (cleanup) objects that clients registered. It does so only
 * through a view of its object store confined to the catalog's data path
 * (objstore_confine): nothing outside it, never through a symbolic link,
 * only regular files. A refusal is counted in
 * hoglake_storage_refusals_total{reason} and written to the audit log
 * (action storage_refused), never retried.
 *
 * file:// catalogs may only be created beneath the server's file roots
 * (--file-roots, default the warehouse directory), on a path without a
 * symbolic link, not overlapping the server's own state.
 *
 * Thread-safety: every function may be called from any thread once
 * storage_roots_init has run. */
#ifndef HL_SERVER_STORAGE_GUARD_H
#define HL_SERVER_STORAGE_GUARD_H

#include <stdbool.h>
#include <stdint.h>

#include "hoglake/error.h"
#include "server/http/api.h"
#include "util/error.h"

struct server;
struct objstore;

/* Resolves the allowed roots at start: cfg.file_roots (':'-separated
 * directories, each created when missing and resolved with realpath), or
 * the warehouse directory when that is file://. 0, or -1 with a message. */
int storage_roots_init(struct server *srv, struct error *err);
void storage_roots_free(struct server *srv);

/* Checks a normalised file:// data path for a new catalog: beneath a root,
 * no symbolic link on the part of it that exists, clear of the server's
 * data directory (the warehouse excepted). 422 data_path_not_allowed. */
int storage_check_file_data_path(const struct server *srv, const char *data_path,
                                 struct api_error *err);

/* A view of the server's object store confined to data_path (caller frees
 * with objstore_free before the server's store goes). NULL with e filled. */
struct objstore *storage_view(struct server *srv, const char *data_path, struct hl_error *e);

/* Whether e is a confinement refusal (HL_ERR_FORBIDDEN from the store). */
bool storage_refusal(const struct hl_error *e);

/* Counts and audits a refusal of `operation` ("read", "delete", "write")
 * on uri in catalog (names may be NULL). `reason` overrides e's code
 * (e.g. "size_mismatch", where there is no store error: e may be NULL). */
void storage_record_refusal(struct server *srv, const char *catalog, const char *operation,
                            const char *uri, const char *reason, const struct hl_error *e);

#endif
