/* JSON rows from a stream, one at a time: JSON Lines (a value per line,
 * blank lines skipped) or one JSON array of values ("[{...}, {...}]"),
 * told apart by the first byte that is not white space ('[' opens an
 * array; a JSON Lines row is an object) unless the caller says the input
 * is JSON Lines. An array is split into its
 * top-level elements by a scanner that knows strings, escapes and nesting
 * (but not the rest of JSON's grammar, which the row parser checks), so a
 * file of any size is read in constant memory, one element at a time. */
#ifndef HL_TEXTIO_JSONROWS_H
#define HL_TEXTIO_JSONROWS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "textio/byte_reader.h"
#include "util/buf.h"

/* The longest row (a line of JSON Lines, an element of an array) read:
 * input with no row end in sight is refused instead of read whole. */
#define JSONROWS_MAX_ROW_BYTES ((size_t)64 << 20)

struct jsonrows {
    struct byte_reader src; /* src.read_error: the caller's, for a decompressed stream */
    size_t max_row;         /* JSONROWS_MAX_ROW_BYTES unless the caller sets another */
    bool started;
    bool lines_only;  /* JSON Lines, even when it starts with '[' (the caller's) */
    bool array;       /* the input is one JSON array */
    int state;        /* where in the array */
    int64_t line;     /* the line the next byte is on (1-based) */
    int64_t row_line; /* the line the last row started on */
    struct buf row;   /* the last row's text */
    char err[256];
};

/* Reads from f (not closed by the reader). */
void jsonrows_init(struct jsonrows *r, FILE *f);
void jsonrows_free(struct jsonrows *r);

/* The next row's text (valid until the next call): 1, or 0 at the end,
 * or -1 on a read error or an array that is not well formed (r->err says
 * what, starting "line N:"). */
int jsonrows_next(struct jsonrows *r, const char **text, size_t *len);

#endif
