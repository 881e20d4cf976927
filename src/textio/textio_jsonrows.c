#include "textio/textio_jsonrows.h"

#include <stdarg.h>
#include <string.h>

/* Where an array's reader is: before the first element, after a comma,
 * after an element, after the closing bracket. */
enum { ARR_FIRST, ARR_NEXT, ARR_AFTER, ARR_CLOSED };

void jsonrows_init(struct jsonrows *r, FILE *f)
{
    memset(r, 0, sizeof *r);
    byte_reader_init(&r->src, f);
    r->max_row = JSONROWS_MAX_ROW_BYTES;
    r->line = 1;
}

void jsonrows_free(struct jsonrows *r)
{
    buf_free(&r->row);
}

static int fail(struct jsonrows *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct jsonrows *r, const char *fmt, ...)
{
    int n = snprintf(r->err, sizeof r->err, "line %lld: ", (long long)r->line);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err + n, sizeof r->err - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

/* c, and on a read error (-2) the message in r->err. */
static int read_result(struct jsonrows *r, int c)
{
    if (c == -2)
        fail(r, "read error: %s", r->src.why);
    return c;
}

/* The next byte, or -1 at the end (-2 on a read error, r->err set). */
static int next_byte(struct jsonrows *r)
{
    int c = read_result(r, byte_reader_next(&r->src));
    r->line += c == '\n';
    return c;
}

static int peek_byte(struct jsonrows *r)
{
    return read_result(r, byte_reader_peek(&r->src));
}

static bool is_space(int c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* Skips white space: the next byte, not consumed (or -1, -2). */
static int skip_space(struct jsonrows *r)
{
    int c;
    while ((c = peek_byte(r)) >= 0 && is_space(c))
        next_byte(r);
    return c;
}

/* Skips a UTF-8 byte order mark, then tells JSON Lines from an array. */
static int start(struct jsonrows *r)
{
    r->started = true;
    if (peek_byte(r) == 0xEF) {
        static const unsigned char bom[] = {0xEF, 0xBB, 0xBF};
        for (size_t i = 0; i < sizeof bom; i++)
            if (next_byte(r) != bom[i])
                return fail(r, "not UTF-8 text");
    }
    int c = skip_space(r);
    if (c == -2)
        return -1;
    if (c == '[' && !r->lines_only) {
        next_byte(r);
        r->array = true;
        r->state = ARR_FIRST;
    }
    return 0;
}

/* One byte of the row, within the row's bound. */
static int put_byte(struct jsonrows *r, int c)
{
    if (r->row.len >= r->max_row) {
        snprintf(r->err, sizeof r->err,
                 "line %lld: the row starting there is longer than %zu MiB, the bound on one row",
                 (long long)r->row_line, r->max_row >> 20);
        return -1;
    }
    return buf_putc(&r->row, (char)c) == 0 ? 0 : fail(r, "out of memory");
}

/* JSON Lines: the next line that is not blank. */
static int next_line(struct jsonrows *r)
{
    for (;;) {
        buf_reset(&r->row);
        r->row_line = r->line;
        bool blank = true;
        int c;
        while ((c = next_byte(r)) >= 0 && c != '\n') {
            blank &= is_space(c);
            if (put_byte(r, c) != 0)
                return -1;
        }
        if (c == -2)
            return -1;
        if (!blank)
            return 1;
        if (c == -1)
            return 0;
    }
}

/* One element's text: up to a ',' or ']' outside strings and brackets,
 * or the end of a complete object, array or string. */
static int scan_element(struct jsonrows *r)
{
    buf_reset(&r->row);
    r->row_line = r->line;
    int depth = 0, c;
    bool in_string = false, escaped = false, complete = false;
    while ((c = peek_byte(r)) >= 0) {
        if (!in_string && depth == 0 &&
            (complete || (r->row.len && (c == ',' || c == ']' || is_space(c)))))
            break;
        next_byte(r);
        if (put_byte(r, c) != 0)
            return -1;
        if (in_string) {
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                in_string = false, complete = depth == 0;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '{' || c == '[') {
            depth++;
        } else if (c == '}' || c == ']') {
            if (depth == 0)
                return fail(r, "'%c' closes nothing", c);
            complete = --depth == 0;
        }
    }
    if (c == -2)
        return -1;
    if (c == -1 && (depth || in_string))
        return fail(r, "the input ends inside the element that starts on line %lld",
                    (long long)r->row_line);
    r->state = ARR_AFTER;
    return 1;
}

/* An array: the next element, or the end after the closing bracket. */
static int next_element(struct jsonrows *r)
{
    int c = skip_space(r);
    if (c == -2)
        return -1;
    if (r->state == ARR_CLOSED)
        return c == -1 ? 0 : fail(r, "text after the array's closing ']'");
    if (c == -1)
        return fail(r, "the input ends before the array's closing ']'");
    if ((r->state == ARR_AFTER || r->state == ARR_FIRST) && c == ']') {
        next_byte(r);
        r->state = ARR_CLOSED;
        return next_element(r);
    }
    if (r->state == ARR_AFTER) {
        if (c != ',')
            return fail(r, "expected ',' or ']' after the array's element");
        next_byte(r);
        r->state = ARR_NEXT;
        if ((c = skip_space(r)) == -2)
            return -1;
        if (c == -1)
            return fail(r, "the input ends before the array's closing ']'");
    }
    if (c == ',' || c == ']')
        return fail(r, "expected an element after '%c'", r->state == ARR_NEXT ? ',' : '[');
    return scan_element(r);
}

int jsonrows_next(struct jsonrows *r, const char **text, size_t *len)
{
    if (!r->started && start(r) != 0)
        return -1;
    int rc = r->array ? next_element(r) : next_line(r);
    *text = r->row.data ? r->row.data : "";
    *len = r->row.len;
    return rc;
}
