#include "server/db/pgarray.h"

#include <stdio.h>
#include <string.h>

void pg_array_init(struct pg_array *a)
{
    memset(a, 0, sizeof *a);
}

void pg_array_free(struct pg_array *a)
{
    buf_free(&a->text);
}

/* Starts an element: the separator after the first. */
static void element(struct pg_array *a)
{
    if (a->finished || (a->n++ && buf_putc(&a->text, ',') != 0))
        a->failed = true;
}

void pg_array_i64(struct pg_array *a, int64_t v)
{
    element(a);
    if (buf_printf(&a->text, "%lld", (long long)v) != 0)
        a->failed = true;
}

void pg_array_null(struct pg_array *a)
{
    element(a);
    if (buf_puts(&a->text, "NULL") != 0)
        a->failed = true;
}

/* A double-quoted element: backslashes and quotes escaped, everything else
 * verbatim (so commas, braces and the word NULL stay data). */
static void quoted(struct pg_array *a, const char *s, size_t n)
{
    if (buf_reserve(&a->text, n * 2 + 2) != 0) {
        a->failed = true;
        return;
    }
    char *out = a->text.data + a->text.len;
    *out++ = '"';
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"' || s[i] == '\\')
            *out++ = '\\';
        *out++ = s[i];
    }
    *out++ = '"';
    a->text.len = (size_t)(out - a->text.data);
    a->text.data[a->text.len] = '\0';
}

void pg_array_str(struct pg_array *a, const char *s)
{
    if (!s) {
        pg_array_null(a);
        return;
    }
    element(a);
    quoted(a, s, strlen(s));
}

void pg_array_bytes(struct pg_array *a, const uint8_t *b, size_t n)
{
    if (!b) {
        pg_array_null(a);
        return;
    }
    element(a);
    /* "\\x0a1b...": the array literal unescapes \\ to \, leaving bytea's
     * hex input form. */
    static const char hex[] = "0123456789abcdef";
    if (buf_reserve(&a->text, n * 2 + 5) != 0) {
        a->failed = true;
        return;
    }
    char *out = a->text.data + a->text.len;
    memcpy(out, "\"\\\\x", 4);
    out += 4;
    for (size_t i = 0; i < n; i++) {
        *out++ = hex[b[i] >> 4];
        *out++ = hex[b[i] & 15];
    }
    *out++ = '"';
    a->text.len = (size_t)(out - a->text.data);
    a->text.data[a->text.len] = '\0';
}

void pg_array_i64_list(struct pg_array *a, const int64_t *v, size_t n)
{
    if (!v) {
        pg_array_null(a);
        return;
    }
    struct buf inner = BUF_INIT;
    bool ok = buf_putc(&inner, '{') == 0;
    for (size_t i = 0; ok && i < n; i++)
        ok = buf_printf(&inner, i ? ",%lld" : "%lld", (long long)v[i]) == 0;
    ok = ok && buf_putc(&inner, '}') == 0;
    if (!ok) {
        a->failed = true;
    } else {
        element(a);
        quoted(a, inner.data, inner.len);
    }
    buf_free(&inner);
}

const char *pg_array_text(struct pg_array *a)
{
    if (a->failed)
        return NULL;
    if (a->finished)
        return a->text.data;
    /* Wrap what was built: "{" + elements + "}". */
    struct buf out = BUF_INIT;
    if (buf_putc(&out, '{') != 0 || (a->text.len && buf_append(&out, a->text.data, a->text.len)) ||
        buf_putc(&out, '}') != 0) {
        buf_free(&out);
        a->failed = true;
        return NULL;
    }
    buf_free(&a->text);
    a->text = out;
    a->finished = true;
    return a->text.data;
}
