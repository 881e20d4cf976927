#include "textio/csv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"

void csv_reader_init(struct csv_reader *r, FILE *f)
{
    memset(r, 0, sizeof *r);
    byte_reader_init(&r->src, f);
    r->delim = ',';
    r->max_record = CSV_MAX_RECORD_BYTES;
    r->line = 1;
}

bool csv_delimiter_valid(int c)
{
    return c > 0 && c < 0x80 && c != '"' && c != '\r' && c != '\n';
}

void csv_reader_free(struct csv_reader *r)
{
    buf_free(&r->data);
    free(r->fields);
    r->fields = NULL;
}

/* c, and on a read error (-2) the message in r->err. */
static int read_result(struct csv_reader *r, int c)
{
    if (c == -2)
        snprintf(r->err, sizeof r->err, "line %lld: read error: %s", (long long)r->line,
                 r->src.why);
    return c;
}

/* The next byte, or -1 at the end (-2 on a read error, r->err set). */
static int next_byte(struct csv_reader *r)
{
    return read_result(r, byte_reader_next(&r->src));
}

static int peek_byte(struct csv_reader *r)
{
    return read_result(r, byte_reader_peek(&r->src));
}

static int bad(struct csv_reader *r, const char *what)
{
    snprintf(r->err, sizeof r->err, "line %lld: %s", (long long)r->line, what);
    return -1;
}

static int end_field(struct csv_reader *r, size_t start, bool quoted)
{
    if (ARRAY_RESERVE(r->fields, r->cap, r->nfields + 1, 16) != 0)
        return bad(r, "out of memory");
    r->fields[r->nfields++] = (struct csv_field){start, r->data.len - start, quoted};
    if (buf_putc(&r->data, '\0') != 0)
        return bad(r, "out of memory");
    return 0;
}

/* One byte of the record's fields, within the record's bound. */
static int put_byte(struct csv_reader *r, int c)
{
    if (r->data.len >= r->max_record) {
        snprintf(r->err, sizeof r->err,
                 "line %lld: the record starting there is longer than %zu MiB, the bound on "
                 "one record (is a closing quote missing, or is this not CSV?)",
                 (long long)r->record_line, r->max_record >> 20);
        return -1;
    }
    return buf_putc(&r->data, (char)c) == 0 ? 0 : bad(r, "out of memory");
}

/* After a CR: a line end when LF follows, else an error. */
static int line_end_after_cr(struct csv_reader *r)
{
    if (peek_byte(r) != '\n')
        return bad(r, "a carriage return not followed by a line feed outside quotes");
    next_byte(r);
    return 0;
}

int csv_read_record(struct csv_reader *r)
{
    buf_reset(&r->data);
    r->nfields = 0;
    if (!r->started) {
        r->started = true;
        if (peek_byte(r) == 0xef) {
            /* A UTF-8 byte order mark: skip it when all three bytes are. */
            next_byte(r);
            if (next_byte(r) != 0xbb || next_byte(r) != 0xbf)
                return bad(r, "invalid UTF-8 at the start of the file");
        }
    }
    int c = next_byte(r);
    if (c == -2)
        return -1;
    if (c == -1)
        return 0;
    r->record_line = r->line;
    size_t start = r->data.len;
    bool quoted = false, closed = false;
    for (;; c = next_byte(r)) {
        if (c == -2)
            return -1;
        if (quoted && !closed) {
            if (c == -1)
                return bad(r, "a quoted field is not closed before the end of the file");
            if (c == '"') {
                if (peek_byte(r) == '"') {
                    next_byte(r);
                    if (put_byte(r, '"') != 0)
                        return -1;
                } else {
                    closed = true;
                }
                continue;
            }
            if (c == '\n')
                r->line++;
            if (put_byte(r, c) != 0)
                return -1;
            continue;
        }
        if (c == r->delim || c == '\n' || c == '\r' || c == -1) {
            if (end_field(r, start, quoted) != 0)
                return -1;
            if (c == '\r' && line_end_after_cr(r) != 0)
                return -1;
            if (c != r->delim) {
                if (c != -1)
                    r->line++;
                return 1;
            }
            start = r->data.len;
            quoted = closed = false;
            continue;
        }
        if (closed)
            return bad(r, "text after the closing quote of a field");
        if (c == '"') {
            if (r->data.len != start)
                return bad(r, "a quote inside an unquoted field (quote the whole field)");
            quoted = true;
            continue;
        }
        if (put_byte(r, c) != 0)
            return -1;
    }
}

const char *csv_field_text(const struct csv_reader *r, size_t i, size_t *len, bool *quoted)
{
    const struct csv_field *f = &r->fields[i];
    *len = f->len;
    if (quoted)
        *quoted = f->quoted;
    return r->data.data ? r->data.data + f->start : "";
}

/* Whether a field must be quoted: it is empty, or holds a comma, a quote,
 * CR or LF. */
static bool needs_quotes(const char *s, size_t len)
{
    if (len == 0)
        return true;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (c == ',' || c == '"' || c == '\r' || c == '\n')
            return true;
    }
    return false;
}

void csv_write_field(struct buf *out, bool first, const char *s, size_t len)
{
    /* Room for the worst case (a separator, quotes, every byte a doubled
     * quote), then the field is copied with no further checks. */
    if (len > (SIZE_MAX - 3) / 2 || buf_reserve(out, 2 * len + 3) != 0)
        return;
    char *o = out->data + out->len;
    if (!first)
        *o++ = ',';
    if (!needs_quotes(s, len)) {
        memcpy(o, s, len);
        o += len;
    } else {
        *o++ = '"';
        /* Without a branch per byte (JSON text, the common quoted field,
         * holds a quote every few bytes): each byte is written followed by
         * a quote that stays only when the byte was one. The reservation
         * has room for the extra byte. */
        for (size_t i = 0; i < len; i++) {
            o[0] = s[i];
            o[1] = '"';
            o += 1 + (s[i] == '"');
        }
        *o++ = '"';
    }
    *o = '\0';
    out->len = (size_t)(o - out->data);
}

void csv_write_null(struct buf *out, bool first)
{
    if (!first)
        buf_putc(out, ',');
}

void csv_end_record(struct buf *out)
{
    buf_puts(out, "\r\n");
}
