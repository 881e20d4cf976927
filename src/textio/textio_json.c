#include "textio/textio_json.h"

#include <string.h>

#include "textio/textio_text.h"
#include "util/strutil.h"

void jw_escape(struct buf *out, const char *s, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    buf_putc(out, '"');
    const unsigned char *p = (const unsigned char *)s;
    size_t run = 0;
    for (size_t i = 0; i < len;) {
        unsigned char c = p[i];
        if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
            i++;
            continue;
        }
        size_t k = c >= 0x80 ? str_utf8_seq(p + i, len - i) : 0;
        if (k > 0) {
            i += k;
            continue;
        }
        buf_append(out, s + run, i - run);
        switch (c) {
        case '"': buf_puts(out, "\\\""); break;
        case '\\': buf_puts(out, "\\\\"); break;
        case '\n': buf_puts(out, "\\n"); break;
        case '\r': buf_puts(out, "\\r"); break;
        case '\t': buf_puts(out, "\\t"); break;
        case '\b': buf_puts(out, "\\b"); break;
        case '\f': buf_puts(out, "\\f"); break;
        default:
            if (c < 0x20) {
                char u[7] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15], 0};
                buf_puts(out, u);
            } else {
                buf_puts(out, "\xef\xbf\xbd"); /* U+FFFD for a byte that is not UTF-8 */
            }
        }
        run = ++i;
    }
    buf_append(out, s + run, len - run);
    buf_putc(out, '"');
}

void jw_init(struct jw *w, struct buf *out, bool pretty)
{
    memset(w, 0, sizeof *w);
    w->out = out;
    w->pretty = pretty;
}

static void newline(struct jw *w)
{
    if (!w->pretty)
        return;
    buf_putc(w->out, '\n');
    for (int i = 0; i < w->depth; i++)
        buf_puts(w->out, "  ");
}

/* Separators before a value. */
static void before_value(struct jw *w)
{
    if (w->after_key) {
        w->after_key = false;
        return;
    }
    if (w->depth > 0) {
        if (w->need_comma[w->depth])
            buf_putc(w->out, ',');
        w->need_comma[w->depth] = true;
        newline(w);
    }
}

static void open_scope(struct jw *w, char c)
{
    before_value(w);
    buf_putc(w->out, c);
    if (w->depth + 1 < RJ_MAX_DEPTH)
        w->depth++;
    w->need_comma[w->depth] = false;
}

static void close_scope(struct jw *w, char c)
{
    bool any = w->need_comma[w->depth];
    w->depth--;
    if (any)
        newline(w);
    buf_putc(w->out, c);
}

void jw_begin_object(struct jw *w)
{
    open_scope(w, '{');
}

void jw_end_object(struct jw *w)
{
    close_scope(w, '}');
}

void jw_begin_array(struct jw *w)
{
    open_scope(w, '[');
}

void jw_end_array(struct jw *w)
{
    close_scope(w, ']');
}

void jw_key(struct jw *w, const char *key)
{
    jw_keyn(w, key, strlen(key));
}

void jw_keyn(struct jw *w, const char *key, size_t len)
{
    before_value(w);
    jw_escape(w->out, key, len);
    buf_puts(w->out, w->pretty ? ": " : ":");
    w->after_key = true;
}

void jw_string(struct jw *w, const char *s, size_t len)
{
    before_value(w);
    jw_escape(w->out, s, len);
}

void jw_cstring(struct jw *w, const char *s)
{
    if (s)
        jw_string(w, s, strlen(s));
    else
        jw_null(w);
}

void jw_raw(struct jw *w, const char *text, size_t len)
{
    before_value(w);
    buf_append(w->out, text, len);
}

void jw_int(struct jw *w, int64_t v)
{
    char t[RT_TEXT_MAX];
    jw_raw(w, t, rt_format_i64(v, t));
}

void jw_float(struct jw *w, double v, bool single)
{
    char t[RT_TEXT_MAX];
    size_t n = single ? rt_format_float((float)v, t) : rt_format_double(v, t);
    if (rt_float_is_special(v))
        jw_string(w, t, n);
    else
        jw_raw(w, t, n);
}

void jw_bool(struct jw *w, bool v)
{
    jw_raw(w, v ? "true" : "false", v ? 4 : 5);
}

void jw_null(struct jw *w)
{
    jw_raw(w, "null", 4);
}

void jw_value(struct jw *w, const struct rj_value *v)
{
    switch (v->type) {
    case RJ_NULL: jw_null(w); return;
    case RJ_FALSE: jw_bool(w, false); return;
    case RJ_TRUE: jw_bool(w, true); return;
    case RJ_NUMBER: jw_raw(w, v->str, v->len); return;
    case RJ_STRING: jw_string(w, v->str, v->len); return;
    case RJ_ARRAY:
        jw_begin_array(w);
        for (size_t i = 0; i < v->n; i++)
            jw_value(w, &v->items[i]);
        jw_end_array(w);
        return;
    case RJ_OBJECT:
        jw_begin_object(w);
        for (size_t i = 0; i < v->n; i++) {
            jw_keyn(w, v->keys[i], v->key_lens[i]);
            jw_value(w, &v->items[i]);
        }
        jw_end_object(w);
        return;
    }
}
