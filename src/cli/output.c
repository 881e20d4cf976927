#include "cli/output.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"

void out_table_init(struct out_table *t, int ncols, const char *const *headers)
{
    memset(t, 0, sizeof *t);
    t->ncols = ncols;
    for (int i = 0; i < ncols; i++)
        t->headers[i] = headers[i];
}

void out_table_keep_whole(struct out_table *t, int col)
{
    if (col >= 0 && col < t->ncols)
        t->whole[col] = true;
}

/* A copy of v, cut with "..." unless the column is whole, on one line. */
static char *cell_copy(const char *v, bool whole)
{
    size_t n = strlen(v ? v : "");
    bool cut = !whole && n >= OUT_CELL_MAX;
    char *cell = malloc(cut ? OUT_CELL_MAX : n + 1);
    if (!cell)
        return NULL;
    if (cut) {
        memcpy(cell, v, OUT_CELL_MAX - 4);
        memcpy(cell + OUT_CELL_MAX - 4, "...", 4);
    } else {
        memcpy(cell, v ? v : "", n + 1);
    }
    /* Keep one row per line. */
    for (char *c = cell; *c; c++)
        if (*c == '\n' || *c == '\r' || *c == '\t')
            *c = ' ';
    return cell;
}

void out_table_add(struct out_table *t, const char *const *cells)
{
    if (ARRAY_RESERVE(t->cells, t->cap, t->nrows + 1, 16) != 0)
        return; /* the row is dropped; output is best effort */
    char **row = t->cells[t->nrows];
    bool ok = true;
    for (int i = 0; i < t->ncols; i++) {
        row[i] = cell_copy(cells[i], t->whole[i]);
        ok = ok && row[i];
    }
    if (!ok) {
        for (int i = 0; i < t->ncols; i++)
            free(row[i]);
        return;
    }
    t->nrows++;
}

void out_table_row(struct out_table *t, ...)
{
    const char *cells[OUT_MAX_COLS];
    va_list ap;
    va_start(ap, t);
    for (int i = 0; i < t->ncols; i++)
        cells[i] = va_arg(ap, const char *);
    va_end(ap);
    out_table_add(t, cells);
}

void out_table_print(const struct out_table *t)
{
    size_t width[OUT_MAX_COLS];
    for (int c = 0; c < t->ncols; c++) {
        width[c] = strlen(t->headers[c]);
        for (size_t r = 0; r < t->nrows; r++)
            if (strlen(t->cells[r][c]) > width[c])
                width[c] = strlen(t->cells[r][c]);
    }
    for (int c = 0; c < t->ncols; c++)
        printf("%-*s%s", c == t->ncols - 1 ? 0 : (int)width[c], t->headers[c],
               c == t->ncols - 1 ? "\n" : "  ");
    for (size_t r = 0; r < t->nrows; r++)
        for (int c = 0; c < t->ncols; c++)
            printf("%-*s%s", c == t->ncols - 1 ? 0 : (int)width[c], t->cells[r][c],
                   c == t->ncols - 1 ? "\n" : "  ");
}

void out_table_free(struct out_table *t)
{
    for (size_t r = 0; r < t->nrows; r++)
        for (int c = 0; c < t->ncols; c++)
            free(t->cells[r][c]);
    free(t->cells);
    t->cells = NULL;
    t->nrows = t->cap = 0;
}

const char *out_bytes(char buf[OUT_NUM_MAX], uint64_t n)
{
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    if (n < 1024) {
        snprintf(buf, OUT_NUM_MAX, "%" PRIu64 " B", n);
        return buf;
    }
    double v = (double)n / 1024.0;
    size_t u = 0;
    /* 1023.95 KiB would print as "1024.0 KiB": that is 1.0 MiB. */
    while (v >= 1023.95 && u + 1 < sizeof units / sizeof *units) {
        v /= 1024.0;
        u++;
    }
    snprintf(buf, OUT_NUM_MAX, "%.1f %s", v, units[u]);
    return buf;
}

const char *out_number(char buf[OUT_NUM_MAX], int64_t n)
{
    char digits[24];
    /* The magnitude as unsigned, so INT64_MIN has one too. */
    uint64_t mag = n < 0 ? (uint64_t)0 - (uint64_t)n : (uint64_t)n;
    int len = snprintf(digits, sizeof digits, "%" PRIu64, mag);
    char *w = buf;
    if (n < 0)
        *w++ = '-';
    for (int i = 0; i < len; i++) {
        if (i > 0 && (len - i) % 3 == 0)
            *w++ = ',';
        *w++ = digits[i];
    }
    *w = '\0';
    return buf;
}

const char *out_count(int64_t n, const char *one, const char *many, char *buf, size_t size)
{
    char number[OUT_NUM_MAX];
    snprintf(buf, size, "%s %s", out_number(number, n), n == 1 ? one : many);
    return buf;
}
