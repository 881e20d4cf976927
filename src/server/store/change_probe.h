/* Probes of one table's change rows (hog_snapshot_change), for the
 * store's statements only: SQL text fragments that take SQL expressions
 * for the catalog, the table (object) and the snapshot after which to
 * look, and one literal kind.
 *
 * One probe per kind, never `kind IN (...)`: with a list, a generic plan
 * keeps the kinds as a filter over the (catalog, object, kind, snapshot)
 * index and walks every change row the table ever took, a row per commit
 * into it (3.5 ms a commit after 60,000 commits: bench/scale). A probe of
 * one kind goes down the index to its first key. */
#ifndef HL_SERVER_STORE_CHANGE_PROBE_H
#define HL_SERVER_STORE_CHANGE_PROBE_H

#define STORE_CHANGES_AFTER_(catalog, object, kind, after)                                         \
    " FROM hog_snapshot_change c WHERE c.catalog_id = " catalog " AND c.object_id = " object       \
    " AND c.kind = '" kind "' AND c.snapshot_id > " after

/* A boolean: the table has a change of `kind` after `after`. */
#define STORE_CHANGED_AFTER(catalog, object, kind, after)                                          \
    " EXISTS (SELECT 1" STORE_CHANGES_AFTER_(catalog, object, kind, after) ")"

/* The first snapshot after `after` with a change of `kind`, or NULL. */
#define STORE_FIRST_CHANGE_AFTER(catalog, object, kind, after)                                     \
    " (SELECT min(c.snapshot_id)" STORE_CHANGES_AFTER_(catalog, object, kind, after) ")"

#endif
