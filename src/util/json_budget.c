#include "util/json_budget.h"

#include <stdio.h>
#include <string.h>

enum lex_state {
    LEX_BETWEEN, /* between tokens */
    LEX_STRING,  /* inside a string */
    LEX_ESCAPE,  /* inside a string, right after a backslash */
    LEX_SCALAR,  /* inside a number or literal (or garbage jansson will refuse) */
};

enum { BYTES_PER_VALUE = 8, VALUE_ALLOWANCE = 1024 };

int64_t json_budget_values_for(size_t len, int64_t cap)
{
    int64_t by_size = (int64_t)(len / BYTES_PER_VALUE) + VALUE_ALLOWANCE;
    return by_size < cap ? by_size : cap;
}

void json_budget_begin(struct json_budget_scan *s, int max_depth, int64_t max_values)
{
    memset(s, 0, sizeof *s);
    s->max_depth = max_depth;
    s->max_values = max_values;
    s->lex = LEX_BETWEEN;
}

static bool add_value(struct json_budget_scan *s)
{
    s->values++;
    if (s->values > s->max_values) {
        s->verdict = JSON_BUDGET_TOO_MANY_VALUES;
        return false;
    }
    return true;
}

static bool open_container(struct json_budget_scan *s)
{
    s->depth++;
    if (s->depth > s->deepest)
        s->deepest = s->depth;
    if (s->depth > s->max_depth) {
        s->verdict = JSON_BUDGET_TOO_DEEP;
        return false;
    }
    return add_value(s);
}

/* Byte classes outside strings. The table keeps the per-byte work of the
 * hot loop to one lookup: bodies are scanned as they arrive, at network
 * speed, in every build. Scalars, spaces and separators come first, so
 * scan_plain tells them from the rest with one comparison. */
enum byte_class { B_SCALAR = 0, B_SPACE, B_SEPARATOR, B_QUOTE, B_OPEN, B_CLOSE };

static const unsigned char byte_class[256] = {
    [' '] = B_SPACE, ['\t'] = B_SPACE,    ['\n'] = B_SPACE,    ['\r'] = B_SPACE,
    ['"'] = B_QUOTE, ['['] = B_OPEN,      ['{'] = B_OPEN,      [']'] = B_CLOSE,
    ['}'] = B_CLOSE, [','] = B_SEPARATOR, [':'] = B_SEPARATOR,
};

static enum byte_class class_of(char c)
{
    return (enum byte_class)byte_class[(unsigned char)c];
}

/* Skips string content from text[i]; returns where the scan goes on (past
 * the closing quote, or len when the string runs on into the next chunk). */
static size_t skip_string(struct json_budget_scan *s, const char *text, size_t len, size_t i)
{
    size_t start = i;
    if (s->lex == LEX_ESCAPE && i < len) {
        s->lex = LEX_STRING; /* the escaped byte, whatever it is */
        i++;
    }
    while (i < len) {
        const char *quote = memchr(text + i, '"', len - i);
        size_t end = quote ? (size_t)(quote - text) : len;
        const char *esc = memchr(text + i, '\\', end - i);
        if (esc) {
            i = (size_t)(esc - text) + 2; /* the backslash and the byte it escapes */
            if (i > len) {
                i = len;
                s->lex = LEX_ESCAPE;
            }
            continue;
        }
        if (!quote) {
            i = len;
            break;
        }
        s->string_bytes += (int64_t)(end - start);
        s->lex = LEX_BETWEEN;
        s->pending_string = true;
        return end + 1;
    }
    s->string_bytes += (int64_t)(i - start);
    return i;
}

/* One structural byte (or the first byte of a scalar) between tokens. */
static bool between_tokens(struct json_budget_scan *s, char c)
{
    enum byte_class k = class_of(c);
    s->lex = LEX_BETWEEN; /* whatever ran up to c (a scalar, a string) has ended */
    if (s->pending_string) {
        /* Only now is it known whether the string was a key. */
        s->pending_string = false;
        if (c != ':' && !add_value(s))
            return false;
    }
    switch (k) {
    case B_QUOTE: s->lex = LEX_STRING; return true;
    case B_OPEN: return open_container(s);
    case B_CLOSE:
        if (s->depth > 0)
            s->depth--;
        return true;
    case B_SEPARATOR:
    case B_SPACE: return true;
    case B_SCALAR: s->lex = LEX_SCALAR; return add_value(s);
    }
    return true;
}

/* Skips a run of scalars, spaces and separators from text[i] -- the bulk
 * of a big body, one value every few bytes -- counting each scalar's first
 * byte. Stops at a quote or a container byte, or past the value limit. */
static size_t scan_plain(struct json_budget_scan *s, const char *text, size_t len, size_t i)
{
    /* Counted in locals: this loop is the one a hostile body spins. */
    const unsigned char *u = (const unsigned char *)text;
    bool in_scalar = s->lex == LEX_SCALAR;
    uint64_t values = (uint64_t)s->values, max = (uint64_t)s->max_values;
    for (; i < len; i++) {
        unsigned char k = byte_class[u[i]];
        if (k == B_SCALAR) {
            if (!in_scalar) {
                in_scalar = true;
                if (++values > max) {
                    s->verdict = JSON_BUDGET_TOO_MANY_VALUES;
                    break;
                }
            }
        } else if (k <= B_SEPARATOR) {
            in_scalar = false;
        } else {
            break;
        }
    }
    s->values = (int64_t)values;
    s->lex = in_scalar ? LEX_SCALAR : LEX_BETWEEN;
    return i;
}

enum json_budget_verdict json_budget_feed(struct json_budget_scan *s, const char *text, size_t len)
{
    size_t i = 0;
    while (s->verdict == JSON_BUDGET_OK && i < len) {
        if (s->lex == LEX_STRING || s->lex == LEX_ESCAPE) {
            i = skip_string(s, text, len, i);
        } else if (!s->pending_string) {
            i = scan_plain(s, text, len, i);
            if (i < len && s->verdict == JSON_BUDGET_OK && between_tokens(s, text[i]))
                i++;
        } else if (class_of(text[i]) == B_SPACE) {
            i++; /* a string's fate waits for the next token */
        } else if (between_tokens(s, text[i])) {
            i++;
        }
    }
    s->offset += i;
    return s->verdict;
}

enum json_budget_verdict json_budget_end(struct json_budget_scan *s)
{
    if (s->verdict == JSON_BUDGET_OK && s->pending_string) {
        s->pending_string = false;
        add_value(s);
    }
    return s->verdict;
}

enum json_budget_verdict json_budget_check(const char *text, size_t len, int max_depth,
                                           int64_t max_values, struct json_budget_scan *s)
{
    json_budget_begin(s, max_depth, max_values);
    json_budget_feed(s, text, len);
    return json_budget_end(s);
}

void json_budget_describe(const struct json_budget_scan *s, char *out, size_t size)
{
    switch (s->verdict) {
    case JSON_BUDGET_TOO_DEEP:
        snprintf(out, size, "the JSON body nests deeper than %d levels (at byte %zu)", s->max_depth,
                 s->offset);
        return;
    case JSON_BUDGET_TOO_MANY_VALUES:
        snprintf(out, size,
                 "the JSON body holds more than %lld values (by byte %zu): a body may hold one "
                 "value per %d bytes of itself plus %d, and no more than the server's JSON value "
                 "limit",
                 (long long)s->max_values, s->offset, BYTES_PER_VALUE, VALUE_ALLOWANCE);
        return;
    case JSON_BUDGET_OK: break;
    }
    snprintf(out, size, "the JSON body is within its budget");
}
