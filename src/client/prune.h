/* What a predicate's bounds rule out before any data is read: a data file
 * by its partition values and its scan-plan statistics, a row group by its
 * footer statistics, its pages by their index; and the read of what is
 * left. Shared by the scan, deletes and updates so they prune and read
 * alike. Not installed. */
#ifndef HL_CLIENT_PRUNE_H
#define HL_CLIENT_PRUNE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct arena;
struct expr_pred;
struct lake_dv;
struct lake_table;
struct pq_row_range;
struct pq_reader;
struct rows_chunks;
struct rows_projection;
struct ArrowArray;
struct error;

/* Whether the DataFile df (a scan plan's, with column_stats when the plan
 * was read with them) may hold a row the predicate selects: false when its
 * partition values (files of the table's live spec) or its statistics rule
 * it out. A file without usable statistics may match. */
bool client_file_may_match(const struct lake_table *t, const struct expr_pred *pred,
                           const json_t *df, struct arena *scratch);

/* Whether row group g of r may hold a selected row, by its footer
 * statistics (none: it may). */
bool client_row_group_may_match(const struct lake_table *t, const struct expr_pred *pred,
                                struct pq_reader *r, size_t g, struct arena *scratch);

/* The rows of row group g that may hold a selected row by the page index
 * of the predicate's columns (the pages of every column meet in segments,
 * each with one page of each column, judged by those pages' statistics
 * with expr_pred_may_match, so AND, OR and NOT need no special case), as
 * sorted, disjoint ranges in the scratch arena, adjacent ones merged.
 * Returns 0 with the ranges (*n 0: no row may match), or 1 when no column
 * of the predicate has a page index with bounds (read the row group
 * whole). A column whose index is missing or does not read constrains
 * nothing. Out of memory is also 1: pruning only ever saves work. */
int client_row_group_pages(const struct lake_table *t, const struct expr_pred *pred,
                           struct pq_reader *r, size_t g, struct arena *scratch,
                           struct pq_row_range **ranges, size_t *n);

/* The rows of row group g that may hold a row pred selects (NULL: every
 * row): none (*n 0) when its statistics rule it out, the pages the page
 * index leaves (*by_pages: read them with rows_project_chunks_ranges), or
 * else the whole group; as ranges in the scratch arena. -1 when out of
 * memory. */
int client_row_group_ranges(const struct lake_table *t, const struct expr_pred *pred,
                            struct pq_reader *r, size_t g, struct arena *scratch,
                            struct pq_row_range **ranges, size_t *n, bool *by_pages);

/* Where the rows of a read of a row group sit in their file: row i of the
 * read is the i-th row of ranges[0..n) of the group, whose first row is at
 * file position first. */
struct client_rows_at {
    uint64_t first;
    const struct pq_row_range *ranges;
    size_t n;
};

/* What client_row_group_read read: where its rows sit in the file (at.n
 * 0: the group was pruned, nothing read) and the pages read and skipped. */
struct client_group_read {
    struct client_rows_at at;
    int64_t pages_read;
    int64_t pages_skipped;
};

/* Reads through proj the rows of row group g of r (its first row at file
 * position first) that may hold a row pred selects, as
 * client_row_group_ranges finds them (the ranges in scratch), into
 * *chunks (rows_project_chunks: the read's rows a chunk at a time). A
 * pruned group leaves *chunks NULL and got->at.n 0. -1 with e when out of
 * memory or the read fails. */
int client_row_group_chunks(const struct lake_table *t, const struct expr_pred *pred,
                            struct pq_reader *r, size_t g, uint64_t first,
                            struct rows_projection *proj, struct arena *scratch,
                            struct rows_chunks **chunks, struct client_group_read *got,
                            struct error *e);
/* Where rows [first_row, first_row + n) of a read `at` sit: *out, its
 * ranges in a. -1 when out of memory. */
int client_rows_at_part(const struct client_rows_at *at, int64_t first_row, int64_t n,
                        struct arena *a, struct client_rows_at *out);

/* Clears keep[i] for each row i of the read `at` whose position dv holds
 * (rows whose keep[i] is already 0 are skipped). */
void client_mask_positions(const struct lake_dv *dv, const struct client_rows_at *at,
                           uint8_t *keep);

#endif
