/* What a commit needs of its catalog and what never changes for a
 * catalog id: the id, the name, the data path. The commit path asks this
 * process-wide cache instead of the database, which saves every commit a
 * round trip (bench/commit: 1.077x the 8-writer rate).
 *
 * An entry can only go stale if a hog_catalog row is deleted or changed by
 * hand (no endpoint drops, renames or moves a catalog): the commit's reads
 * check the id, name and data path they were given, and a commit that
 * fails with a cached identity looks the catalog up again (see
 * server/commit/commits.c). The cache is direct-mapped with a fixed number
 * of slots, so its memory is bounded whatever names callers send; only
 * catalogs that exist are kept.
 *
 * Thread-safety: every function may be called from any thread. */
#ifndef HL_SERVER_CATALOG_CATALOG_IDENTS_H
#define HL_SERVER_CATALOG_CATALOG_IDENTS_H

#include "server/store/catalogs.h"
#include "util/arena.h"

struct catalog_idents;

/* NULL when memory runs out. */
struct catalog_idents *catalog_idents_new(void);
void catalog_idents_free(struct catalog_idents *c);

/* 1 with *out (its strings copied into arena) when `name` is kept, 0 when
 * it is not, -1 when the arena is out of memory. */
int catalog_idents_get(struct catalog_idents *c, const char *name, struct arena *arena,
                       struct catalog_ident *out);
/* Keeps `ident` (copied), replacing what its slot held; a name or path too
 * long to keep, or no memory for the copy, keeps nothing. */
void catalog_idents_put(struct catalog_idents *c, const struct catalog_ident *ident);
/* Drops `name`, if kept. */
void catalog_idents_forget(struct catalog_idents *c, const char *name);

#endif
