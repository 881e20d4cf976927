/* Human-readable output: aligned text tables, sizes, counts. --json output
 * never goes through these: it keeps raw numbers. */
#ifndef HL_CLI_OUTPUT_H
#define HL_CLI_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Room for any text the number helpers below write, with its NUL. */
enum { OUT_NUM_MAX = 64 };

/* A byte size in binary units, one decimal above bytes: "0 B", "512 B",
 * "1.5 KiB", "1.0 MiB", "16.0 EiB". Returns buf. */
const char *out_bytes(char buf[OUT_NUM_MAX], uint64_t n);
/* A number with thousands separators: "0", "1,024", "-12,345". Returns
 * buf. */
const char *out_number(char buf[OUT_NUM_MAX], int64_t n);
/* "1 row", "1,024 rows": n with thousands separators and the noun's
 * singular or plural, into buf; returns buf. */
const char *out_count(int64_t n, const char *one, const char *many, char *buf, size_t size);

enum { OUT_MAX_COLS = 8, OUT_CELL_MAX = 96 };

/* Rows own their cells (heap strings, freed by out_table_free). */
struct out_table {
    int ncols;
    const char *headers[OUT_MAX_COLS];
    bool whole[OUT_MAX_COLS]; /* never cut (paths a reader copies) */
    char *(*cells)[OUT_MAX_COLS];
    size_t nrows, cap;
};

void out_table_init(struct out_table *t, int ncols, const char *const *headers);
/* Keeps column `col`'s cells whole instead of cutting them at
 * OUT_CELL_MAX; best as the last column, which is never padded. */
void out_table_keep_whole(struct out_table *t, int col);
/* Adds a row of ncols cells (NULL reads as ""); long cells are cut with
 * "..." unless their column is whole. */
void out_table_add(struct out_table *t, const char *const *cells);
/* The same with the ncols cells as arguments. */
void out_table_row(struct out_table *t, ...);
void out_table_print(const struct out_table *t);
void out_table_free(struct out_table *t);

#endif
