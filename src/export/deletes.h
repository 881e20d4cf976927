/* The rows an export window deletes, in the Iceberg table (see
 * docs/iceberg-export.md, "Deletes"): each deleted row is found by its
 * hoglake row id, which every exported data file carries in _row_id, in
 * the live data files of its day whose _row_id bounds hold it; rows the
 * window itself inserted (a bootstrap's, or a compaction's rewrite inside
 * the window) are taken out of what it exports instead. The positions
 * found become, on v3, one deletion vector per data file (merged with the
 * file's vector before, which it replaces), all in one Puffin file; on v2,
 * one Parquet position delete file per partition. Internal. */
#ifndef HL_EXPORT_DELETES_H
#define HL_EXPORT_DELETES_H

#include "export/export_core.h"
#include "export/live.h"

struct xp_deleted_row {
    int64_t id;
    bool null_day;
    int32_t day;
};

struct xp_deletes {
    struct xp_deleted_row *rows;
    size_t n, cap;
    /* The Iceberg table the rows were located in (against_snapshot: its
     * current snapshot, -1: an empty table or a bootstrap's overwrite). */
    int64_t against_snapshot;
    struct xp_live live;
    struct lake_dv *before; /* per live data file: deleted before this run */
    struct lake_dv *added;  /* per live data file: deleted by this run */
    /* The delete files written, and what the delete manifest carries. */
    struct ice_data_file *files;
    size_t nfiles, files_cap;
    json_t *carried; /* live delete entries kept */
    int64_t added_positions;
    int64_t removed_files, removed_positions, removed_dvs;
};

void xp_deletes_free(struct xp_deletes *d);
/* Takes the ids and days of a changefeed batch of deleted rows (the
 * table's columns, then _row_id). */
hl_status xp_deletes_collect(struct exporter *x, struct xp_deletes *d, const struct ArrowArray *b,
                             struct hl_error *err);
/* Locates the deleted rows: in the live data files of m's current snapshot
 * (m NULL: the run replaces the table, nothing of it is searched), else
 * among the rows the run exports (x->batches: the first such row of the
 * id leaves them). A row found in neither is an error, which says to
 * re-export with --restart when the table has files exported before rows
 * carried their ids. */
hl_status xp_deletes_locate(struct exporter *x, struct xp_deletes *d, const struct ice_meta *m,
                            struct hl_error *err);
/* Writes the delete files of what was located (none when nothing was). */
hl_status xp_deletes_write(struct exporter *x, struct xp_deletes *d, struct hl_error *err);

#endif
