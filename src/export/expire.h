/* Snapshot expiry of an exported Iceberg table (run only by `hoglake
 * export maintain --expire-snapshots`): snapshots older than a cutoff,
 * beyond the newest `retain_last`, are removed from the metadata (never
 * the current one, nor one a ref names), committed as the next version,
 * and then the files they referenced that no retained snapshot references
 * are deleted: data files, manifests and manifest lists. Verify, then
 * delete: what the retained snapshots reference is read again from the
 * version that is current after the commit (another writer's included),
 * and only paths under the table's location are ever deleted. */
#ifndef HL_EXPORT_EXPIRE_H
#define HL_EXPORT_EXPIRE_H

#include <stdbool.h>
#include <stdint.h>

#include "hoglake/hoglake.h"

struct tracer;

struct ice_expire_options {
    const char *location;
    int64_t older_than_ms; /* expire snapshots older than now - this (0: 7 days) */
    int64_t retain_last;   /* always keep the newest N (0: 1) */
    struct tracer *tracer;
};

struct ice_expire_result {
    bool no_table; /* no metadata at the location: nothing done */
    int64_t snapshots_expired, snapshots_retained;
    int64_t data_files_deleted, manifests_deleted, manifest_lists_deleted;
    int64_t bytes_deleted;
    int64_t version; /* the metadata version written (0: none, nothing expired) */
};

hl_status ice_expire_run(hl_table *table, const struct ice_expire_options *options,
                         struct ice_expire_result *result, struct hl_error *err);

#endif
