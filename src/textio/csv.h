/* CSV as RFC 4180 defines it: records of comma-separated fields, a field
 * quoted with '"' when it holds a comma, a quote, CR or LF (a quote inside
 * doubled). The reader takes CRLF or LF line ends and a leading UTF-8 BOM,
 * keeps whether each field was quoted (so an empty quoted field can differ
 * from an empty unquoted one), and refuses what the RFC does not allow: a
 * quote inside an unquoted field, text after a closing quote, a bare CR, an
 * unterminated quoted field. The writer quotes only when it must, plus the
 * empty string, and ends records with CRLF. */
#ifndef HL_CSV_H
#define HL_CSV_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "textio/byte_reader.h"
#include "util/buf.h"

struct csv_field {
    size_t start, len; /* into csv_reader.data */
    bool quoted;
};

/* The most bytes one record's fields (each with its NUL) may hold: a file with no line end in
 * sight (a binary file, a missing closing quote) is refused instead of
 * read whole into memory. */
#define CSV_MAX_RECORD_BYTES ((size_t)64 << 20)

struct csv_reader {
    struct byte_reader src; /* src.read_error: the caller's, for a decompressed stream */
    char delim;             /* the field separator: ',' unless the caller sets another */
    size_t max_record;      /* CSV_MAX_RECORD_BYTES unless the caller sets another */
    bool started;
    int64_t line;        /* physical line the next character is on (1-based) */
    int64_t record_line; /* line the last record started on */
    struct buf data;     /* the last record's field bytes, each NUL-terminated */
    struct csv_field *fields;
    size_t nfields, cap;
    char err[256];
};

/* Reads from f (not closed by the reader), fields separated by ','. */
void csv_reader_init(struct csv_reader *r, FILE *f);
/* Whether c can separate fields: one ASCII byte that is not a quote, CR,
 * LF or NUL (those would make records ambiguous). */
bool csv_delimiter_valid(int c);
void csv_reader_free(struct csv_reader *r);
/* Reads the next record: 1 when there is one, 0 at the end of the input,
 * -1 on malformed input or a read error (r->err says what and where). */
int csv_read_record(struct csv_reader *r);
/* Field i of the last record (NUL-terminated; may hold NULs: use len). */
const char *csv_field_text(const struct csv_reader *r, size_t i, size_t *len, bool *quoted);

/* Appends a field (a separator first unless it is the record's first). */
void csv_write_field(struct buf *out, bool first, const char *s, size_t len);
/* Appends an empty unquoted field (how CSV here says null). */
void csv_write_null(struct buf *out, bool first);
void csv_end_record(struct buf *out);

#endif
