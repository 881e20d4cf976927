#include "vectors_testlib.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/buf.h"
#include "util/jsonx.h"

/* jansson cannot load 18446744073709551615 or a 38-digit integer, and would
 * turn 0.1 into a double. Every number token outside a string is rewritten
 * as {"$num":"<token>"} before parsing, so the tests see the exact text. */
static char *wrap_numbers(const char *s, size_t n)
{
    struct buf out = BUF_INIT;
    bool in_str = false;
    for (size_t i = 0; i < n;) {
        char c = s[i];
        if (in_str) {
            if (c == '\\' && i + 1 < n) {
                buf_append(&out, s + i, 2);
                i += 2;
                continue;
            }
            if (c == '"')
                in_str = false;
            buf_putc(&out, c);
            i++;
            continue;
        }
        if (c == '"') {
            in_str = true;
            buf_putc(&out, c);
            i++;
            continue;
        }
        if (c == '-' || (c >= '0' && c <= '9')) {
            size_t j = i;
            while (j < n && strchr("0123456789+-.eE", s[j]) && s[j] != '\0')
                j++;
            buf_puts(&out, "{\"$num\":\"");
            buf_append(&out, s + i, j - i);
            buf_puts(&out, "\"}");
            i = j;
            continue;
        }
        buf_putc(&out, c);
        i++;
    }
    return buf_take(&out);
}

static void read_whole(const char *path, struct buf *text)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s", path);
    char chunk[65536];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0)
        if (buf_append(text, chunk, got) != 0)
            fail_msg("out of memory reading %s", path);
    fclose(f);
}

json_t *vectors_load_exact(const char *path)
{
    struct buf text = BUF_INIT;
    read_whole(path, &text);
    char *wrapped = wrap_numbers(text.data, text.len);
    buf_free(&text);
    json_error_t e;
    json_t *root = json_loads(wrapped, JSON_ALLOW_NUL, &e);
    free(wrapped);
    if (!root)
        fail_msg("cannot load %s: %s (line %d)", path, e.text, e.line);
    return root;
}

const char *vectors_num_token(const json_t *v)
{
    if (!json_is_object(v) || json_object_size(v) != 1)
        return NULL;
    return json_string_value(json_object_get(v, "$num"));
}

json_t *vectors_load_lenient(const char *path)
{
    struct buf text = BUF_INIT;
    read_whole(path, &text);
    json_error_t e;
    json_t *root = jsonx_loadb_lenient(text.data, text.len, JSON_ALLOW_NUL, &e, NULL);
    buf_free(&text);
    if (!root)
        fail_msg("cannot load %s: %s (line %d)", path, e.text, e.line);
    return root;
}
