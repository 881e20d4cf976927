/* Bytes of a stream one at a time through a buffer, for the CSV and JSON
 * row readers. A read error stays one: every later read reports it too
 * (a peek may be the first to meet it). */
#ifndef HL_TEXTIO_BYTE_READER_H
#define HL_TEXTIO_BYTE_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct byte_reader {
    FILE *f;
    char in[65536];
    size_t len, pos;
    bool eof, failed;
    uint64_t before; /* bytes of the buffers read before this one */
    /* Why a read failed, when the stream knows better than errno (a
     * decompressing one: "gzip data is corrupt"); NULL or "": errno. */
    const char *read_error;
    char why[200]; /* the read error, once failed */
};

/* Reads from f (not closed by the reader). */
void byte_reader_init(struct byte_reader *b, FILE *f);
/* The next byte, or -1 at the end, -2 on a read error (b->why says it). */
int byte_reader_next(struct byte_reader *b);
/* The next byte without consuming it (same values). */
int byte_reader_peek(struct byte_reader *b);
/* Bytes consumed so far: the stream's position, for a pipe's progress. */
static inline uint64_t byte_reader_consumed(const struct byte_reader *b)
{
    return b->before + b->pos;
}

#endif
