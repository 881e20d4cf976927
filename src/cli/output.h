/* Human-readable output: aligned text tables. */
#ifndef HL_CLI_OUTPUT_H
#define HL_CLI_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/* "1 row", "1,024 rows": n with thousands separators and the noun's
 * singular or plural, into buf; returns buf. */
const char *out_count(int64_t n, const char *one, const char *many, char *buf, size_t size);

#endif
