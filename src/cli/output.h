/* Human-readable output: aligned text tables. */
#ifndef HL_CLI_OUTPUT_H
#define HL_CLI_OUTPUT_H

#include <stddef.h>

enum { OUT_MAX_COLS = 8, OUT_CELL_MAX = 96 };

struct out_table {
    int ncols;
    const char *headers[OUT_MAX_COLS];
    char (*cells)[OUT_MAX_COLS][OUT_CELL_MAX];
    size_t nrows, cap;
};

void out_table_init(struct out_table *t, int ncols, const char *const *headers);
/* Adds a row of ncols printf-style cells; long cells are cut with "...". */
void out_table_row(struct out_table *t, ...);
void out_table_print(const struct out_table *t);
void out_table_free(struct out_table *t);

#endif
