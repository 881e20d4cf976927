/* What the current snapshot of an exported Iceberg table holds: its live
 * data files (with the lineage their rows inherit and the _row_id bounds
 * the export records) and its live delete files (v3 deletion vectors, v2
 * position delete files), and the positions those delete. Shared by the
 * export (which locates a window's deleted rows in the data files) and its
 * compaction (which drops them). Internal. */
#ifndef HL_EXPORT_LIVE_H
#define HL_EXPORT_LIVE_H

#include "export/export_core.h"
#include "lake/dv.h"

/* Iceberg's reserved field ids of a position delete file's columns. */
#define ICE_FIELD_DELETE_FILE_PATH 2147483546
#define ICE_FIELD_DELETE_POS 2147483545

/* A live data file. */
struct xp_data_file {
    char *path;
    json_t *partition; /* the entry's partition tuple (owned; NULL: none) */
    bool null_day;     /* no day: a null partition value, or unpartitioned */
    int32_t day;
    int64_t rows, size;
    int64_t first_row_id; /* inherited or stored (-1: none, v2) */
    int64_t sequence_number;
    /* The manifest's _row_id bounds: its rows carry their hoglake row ids
     * (files exported before they did have none). */
    bool has_ids;
    int64_t id_lo, id_hi;
};

/* A live delete file: one entry (a Puffin file holds one entry per
 * vector). */
struct xp_delete_file {
    json_t *entry;          /* owned: status, snapshot id and sequence numbers explicit */
    const char *path;       /* into entry */
    const char *referenced; /* into entry; NULL: none */
    bool puffin;
    int64_t count, size;
};

struct xp_live {
    struct xp_data_file *data;
    size_t ndata, data_cap;
    struct xp_delete_file *dels;
    size_t ndels, dels_cap;
    json_t *data_manifests;   /* the manifest list's data records (content 0) */
    int64_t delete_positions; /* the live delete files' positions */
    int64_t dvs;              /* deletion vectors among the delete files */
};

/* The current snapshot's live files (m must have one). */
hl_status xp_live_load(struct exporter *x, const struct ice_meta *m, struct xp_live *live,
                       struct hl_error *err);
void xp_live_free(struct xp_live *live);
/* The positions the live delete files delete, per data file: dvs[i] (an
 * array of live->ndata, each initialized here) for live->data[i]. A delete
 * file naming a file that is not live is corrupt. */
hl_status xp_live_deleted(struct exporter *x, const struct xp_live *live, struct lake_dv *dvs,
                          struct hl_error *err);
void xp_dvs_free(struct lake_dv *dvs, size_t n);

/* A column to read by field id. */
struct xp_column {
    int64_t field_id;
    const char *name;
    enum lake_type type;
};
/* Called with each row group's batch (the columns asked for, in order;
 * first: the position of its first row in the file). */
typedef hl_status (*xp_batch_fn)(void *ctx, const struct ArrowArray *b, uint64_t first,
                                 struct hl_error *err);
/* Reads only the columns cols[0..n) of the Parquet file held in file
 * (path names it in errors), a row group at a time. */
hl_status xp_read_columns(const struct buf *file, const char *path, const struct xp_column *cols,
                          size_t n, xp_batch_fn fn, void *ctx, struct hl_error *err);

#endif
