/* What a commit writes (server/commit/), queued into its batch
 * (commit_batch.h): the allocation of its snapshot and file ids
 * (hog_catalog), the snapshot and its change rows (hog_snapshot,
 * hog_snapshot_change), the appended tables' row-id allocators and gross
 * counters (hog_table_stats), the files with their statistics and
 * partition values (hog_data_file with its column_stats,
 * hog_file_partition_value), the deletion vectors, ending the ones they
 * supersede (hog_delete_file), and the receipt (hog_commit_receipt). On
 * the optimistic path, one assertion first: nothing the commit validated
 * before the lock has moved.
 *
 * Every id a commit writes is derived from the allocators in SQL, inside
 * the transaction that advanced them, so the rows cannot disagree with the
 * allocators whatever the engine computed: file k of the commit (in the
 * order the files were added) gets the first allocated file id plus k, the
 * deletion vectors the ids after the files', and a file's rows start where
 * its table's allocator stood before the commit, plus the records of the
 * table's files before it.
 *
 * One set of writes may carry several commits (a group's, server/commit/
 * commit_group.c): each is an entry, begun with store_commit_writes_entry,
 * and gets its own snapshot, the allocation's in entry order; the
 * statements stay one each, their rows tagged with their entry. Entries
 * are appends only: deletion vectors need writes of one entry. */
#ifndef HL_SERVER_STORE_COMMIT_WRITES_H
#define HL_SERVER_STORE_COMMIT_WRITES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "server/db/pgarray.h"
#include "server/store/commit_batch.h"
#include "server/store/column_stats.h"
#include "util/buf.h"
#include "util/error.h"

/* An appended data file. */
struct store_commit_file {
    int64_t table_id;
    const char *path;
    int64_t records, size;
    bool has_footer_size;
    int64_t footer_size;
    /* The records given new ids in its table by the files added before it
     * (an earlier entry's too), and by all the writes' files. */
    int64_t rows_before;
    int64_t table_records;
    bool stats_provided; /* it came with column_stats (else they are pending) */
    /* Its rows keep their ids (in its _hog_row_id column): row_id_start is
     * their minimum, and the table's allocator does not advance for it
     * (rows_before and table_records count only the other files). */
    bool explicit_row_ids;
    int64_t row_id_start;
    bool has_spec;
    int64_t spec_id;
    const int64_t *split_offsets; /* NULL: none */
    size_t nsplit_offsets;
    /* Its column statistics, sorted in place by field id as they are
     * encoded (column_stats.h). */
    struct store_column_stats *stats;
    size_t nstats;
};

/* A deletion vector. */
struct store_commit_dv {
    int64_t table_id;
    int64_t data_file_id; /* its target */
    /* Or a file of the same commit: the append_rel-th file added (from
     * 0), whose id is allocated with it. */
    bool targets_append;
    int64_t append_rel;
    const char *path;
    int64_t delete_count, file_size_bytes;
};

/* One table's share of an entry: its appended files (all live) and their
 * records and bytes, and what its row-id allocator and gross counters
 * advance by. Queued summed by table. */
struct store_commit_table_delta {
    int64_t table_id, records, files, bytes;
    bool advances;
    int64_t row_records, row_bytes;
    int64_t entry;   /* the entry that named it (from 1); the last, once summed */
    int64_t entries; /* the entries naming it, once summed */
};

/* One commit among the writes. */
struct store_commit_entry {
    const char *author, *message; /* NULL: none */
    const char *key;              /* NULL: no receipt */
    const uint8_t *fingerprint;   /* with key: the request's digest */
    size_t fingerprint_len;
    const char *upload_owner; /* NULL: no upload claims to consume */
    bool claims_required;     /* every file path is an active claim of upload_owner */
};

/* Everything one commit (or a group's entries) writes, filled with the
 * functions below. */
struct store_commit_writes {
    int64_t catalog_id;
    size_t nentries;                 /* begun so far */
    struct store_commit_entry entry; /* the last begun */
    /* The optimistic checks' expectations, over the entries */
    size_t nchecked;
    bool has_read_snapshot;
    int64_t least_head, least_read;
    struct pg_array c_path, c_owner; /* the paths whose entries require claims */
    size_t nfiles, nparts;           /* appended so far */
    size_t ndvs, nended, nremoved;
    struct pg_array touched;
    struct pg_array e_author, e_message;           /* one per entry */
    struct pg_array r_key, r_fingerprint, r_entry; /* the receipts */
    struct pg_array owners;                        /* the entries' upload owners */
    struct pg_array change_kinds, change_ids, change_entries;
    struct pg_array row_tids, row_recs, row_bytes;
    /* What each entry adds to each table its change rows name, in the
     * order they were named (the live totals: migration 14). */
    struct store_commit_table_delta *deltas;
    size_t ndeltas, deltas_cap;
    size_t last_delta; /* where the last delta lookup ended */
    struct pg_array t_tid, t_recs, t_files, t_bytes, t_snaps, t_entry; /* summed, as queued */
    bool unnamed_table; /* a file of a table with no change row: a caller's bug */
    bool overflow;      /* a delta's records or bytes passed int64 */
    struct pg_array f_rel, f_tid, f_path, f_recs, f_size, f_footer, f_rows_before, f_table_recs,
        f_state, f_spec, f_splits, f_row_start, f_stats, f_entry, f_owner;
    struct buf stats_value; /* scratch: one file's encoded statistics */
    bool failed; /* statistics could not be encoded, or memory ran out: nothing is queued */
    int64_t last_file_table_id; /* the table of the file added last */
    struct pg_array p_file, p_tid, p_key, p_value;
    struct pg_array ended;
    struct pg_array d_rel, d_tid, d_target, d_target_rel, d_path, d_count, d_size, d_owner;
    struct pg_array removed;
};

void store_commit_writes_init(struct store_commit_writes *w, int64_t catalog_id);
void store_commit_writes_free(struct store_commit_writes *w);
/* Begins the next commit's rows (the first, or a group's next); its
 * strings are borrowed until the writes are queued. */
void store_commit_writes_entry(struct store_commit_writes *w, const struct store_commit_entry *e);
/* What the optimistic assertion holds the catalog to, for one entry. */
struct store_commit_expect {
    int64_t head;           /* the head the commit read; no DDL on a touched table since */
    bool has_read_snapshot; /* then the expiry floor is not above read_snapshot */
    int64_t read_snapshot;
};

/* The entry's writes are asserted under the lock first (the optimistic
 * path): every entry's, or none. */
void store_commit_writes_expect(struct store_commit_writes *w, const struct store_commit_expect *e);
/* A table the entry touches (the optimistic assertion's DDL check). */
void store_commit_writes_touched(struct store_commit_writes *w, int64_t table_id);
/* A change row of the new snapshot ("table_inserted_into", ...). A table's
 * change rows come together, and its files after them (its totals delta,
 * found in O(1) when the tables' files come in the order of their change
 * rows). */
void store_commit_writes_change(struct store_commit_writes *w, const char *kind, int64_t table_id);
/* Advances table_id's row-id allocator and gross counters (summed with the
 * other entries' advances of the table). */
void store_commit_writes_row_ids(struct store_commit_writes *w, int64_t table_id, int64_t records,
                                 int64_t bytes);
void store_commit_writes_file(struct store_commit_writes *w, const struct store_commit_file *f);
/* Partition values belong to the file added last. */
void store_commit_writes_partition_value(struct store_commit_writes *w, int64_t key_index,
                                         const char *value);
/* Deletion vectors come after every file. */
void store_commit_writes_dv(struct store_commit_writes *w, const struct store_commit_dv *d);
/* A data file a vector of every row removes: it ends at the new
 * snapshot. */
void store_commit_writes_removed(struct store_commit_writes *w, int64_t data_file_id);
/* A live deletion vector that a new one supersedes: it ends at the new
 * snapshot. */
void store_commit_writes_superseded(struct store_commit_writes *w, int64_t delete_file_id);

/* The statements whose answers or failures mean something (-1: none). */
struct store_commit_write_slots {
    int checks;  /* the optimistic assertion: fails (SQLSTATE_HOG_ASSERT) when stale */
    int alloc;   /* the allocation: store_commit_allocated reads the result */
    int row_ids; /* fails (SQLSTATE_HOG_ASSERT) when a counter would overflow */
};

/* Queues w's writes (not the COMMIT), after the optimistic assertion when
 * the entries were given expectations: it also holds that no key has a
 * receipt, no path of a file is queued for removal, registered or another
 * than its entry's owner's claim, and, where an entry requires claims,
 * every one of its paths is an active data claim of its owner. One
 * assertion for every entry: a failure does not say whose. Entries after
 * the first are appends whose paths, keys and upload owners are their own
 * (the caller's to ensure: no statement here tells them apart). 0 or -1. */
int store_commit_queue_writes(struct store_commit_batch *s, struct store_commit_writes *w,
                              struct store_commit_write_slots *at, struct error *err);

/* The allocation's answer for entry `entry` (from 1) of `entries`: its
 * snapshot, and the schema version. */
void store_commit_allocated(const struct store_commit_batch *s, int at, size_t entries,
                            size_t entry, int64_t *snapshot_id, int64_t *schema_version);

#endif
