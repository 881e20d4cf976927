#include "objstore/s3xml.h"

#include <stdio.h>
#include <string.h>

#include "util/strutil.h"
#include "util/timefmt.h"

const char *s3xml_find(const char *hay, size_t n, const char *needle, size_t m)
{
    if (m == 0)
        return hay;
    while (n >= m) {
        const char *p = memchr(hay, needle[0], n - m + 1);
        if (!p)
            return NULL;
        if (memcmp(p, needle, m) == 0)
            return p;
        n -= (size_t)(p + 1 - hay);
        hay = p + 1;
    }
    return NULL;
}

bool s3xml_next(const char *doc, size_t len, size_t *pos, const char *tag, const char **text,
                size_t *text_len)
{
    char open[80], close[80];
    size_t tl = strlen(tag);
    if (tl + 4 > sizeof open || *pos > len)
        return false;
    int on = snprintf(open, sizeof open, "<%s>", tag);
    int cn = snprintf(close, sizeof close, "</%s>", tag);
    const char *o = s3xml_find(doc + *pos, len - *pos, open, (size_t)on);
    if (!o)
        return false;
    const char *start = o + on;
    const char *c = s3xml_find(start, (size_t)(doc + len - start), close, (size_t)cn);
    if (!c)
        return false;
    *text = start;
    *text_len = (size_t)(c - start);
    *pos = (size_t)(c + cn - doc);
    return true;
}

/* Appends code point cp as UTF-8; false when it is not a valid XML char. */
static int put_utf8(struct buf *out, unsigned long cp)
{
    char b[4];
    size_t n;
    if (cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return S3XML_BAD;
    if (cp < 0x80) {
        b[0] = (char)cp;
        n = 1;
    } else if (cp < 0x800) {
        b[0] = (char)(0xC0 | (cp >> 6));
        b[1] = (char)(0x80 | (cp & 0x3F));
        n = 2;
    } else if (cp < 0x10000) {
        b[0] = (char)(0xE0 | (cp >> 12));
        b[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        b[2] = (char)(0x80 | (cp & 0x3F));
        n = 3;
    } else {
        b[0] = (char)(0xF0 | (cp >> 18));
        b[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        b[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        b[3] = (char)(0x80 | (cp & 0x3F));
        n = 4;
    }
    return buf_append(out, b, n) == 0 ? S3XML_OK : S3XML_NOMEM;
}

static int decode_ref(struct buf *out, const char *ref, size_t n)
{
    static const struct {
        const char *name;
        char c;
    } named[] = {{"amp", '&'}, {"lt", '<'}, {"gt", '>'}, {"quot", '"'}, {"apos", '\''}};
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
        if (strlen(named[i].name) == n && memcmp(ref, named[i].name, n) == 0)
            return buf_putc(out, named[i].c) == 0 ? S3XML_OK : S3XML_NOMEM;
    if (n < 2 || ref[0] != '#')
        return S3XML_BAD;
    bool hex = ref[1] == 'x';
    size_t i = hex ? 2 : 1;
    if (i >= n || n - i > 8)
        return S3XML_BAD;
    unsigned long cp = 0;
    for (; i < n; i++) {
        int d = hex ? str_hex_digit(ref[i]) : (ref[i] >= '0' && ref[i] <= '9' ? ref[i] - '0' : -1);
        if (d < 0)
            return S3XML_BAD;
        cp = cp * (hex ? 16u : 10u) + (unsigned long)d;
    }
    return put_utf8(out, cp);
}

int s3xml_decode(struct buf *out, const char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        const char *amp = memchr(s + i, '&', n - i);
        size_t run = amp ? (size_t)(amp - (s + i)) : n - i;
        if (memchr(s + i, '<', run))
            return S3XML_BAD;
        if (buf_append(out, s + i, run) != 0)
            return S3XML_NOMEM;
        i += run;
        if (!amp)
            break;
        const char *semi = memchr(amp, ';', n - i);
        if (!semi || semi - amp > 12)
            return S3XML_BAD;
        int rc = decode_ref(out, amp + 1, (size_t)(semi - amp - 1));
        if (rc != S3XML_OK)
            return rc;
        i = (size_t)(semi + 1 - s);
    }
    /* Keep the buffer terminated even when nothing was appended. */
    return buf_append(out, "", 0) == 0 ? S3XML_OK : S3XML_NOMEM;
}

int s3xml_first(const char *doc, size_t len, const char *tag, struct buf *out)
{
    size_t pos = 0;
    const char *t;
    size_t tl;
    if (!s3xml_next(doc, len, &pos, tag, &t, &tl))
        return S3XML_STOP;
    return s3xml_decode(out, t, tl);
}

int s3xml_escape(struct buf *out, const char *s)
{
    for (; *s; s++) {
        const char *e = NULL;
        switch (*s) {
        case '&': e = "&amp;"; break;
        case '<': e = "&lt;"; break;
        case '>': e = "&gt;"; break;
        case '"': e = "&quot;"; break;
        case '\'': e = "&apos;"; break;
        default: break;
        }
        if (e ? buf_puts(out, e) != 0 : buf_putc(out, *s) != 0)
            return S3XML_NOMEM;
    }
    return S3XML_OK;
}

static int parse_size(const char *t, size_t n, uint64_t *out)
{
    if (n == 0 || n > 19)
        return S3XML_BAD;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (t[i] < '0' || t[i] > '9')
            return S3XML_BAD;
        v = v * 10 + (uint64_t)(t[i] - '0');
    }
    *out = v;
    return S3XML_OK;
}

/* The instant in <tag> of a block in seconds, 0 when it is missing or
 * unreadable: a listing does not fail over a date it only reports. */
static int64_t instant(const char *block, size_t block_len, const char *tag)
{
    size_t p = 0;
    const char *t;
    size_t tl;
    char text[64];
    int64_t micros;
    if (!s3xml_next(block, block_len, &p, tag, &t, &tl) || tl >= sizeof text)
        return 0;
    memcpy(text, t, tl);
    text[tl] = '\0';
    return time_parse_iso8601(text, &micros) ? micros / 1000000 : 0;
}

/* The decoded text of a block's <tag> into out (reset first): S3XML_BAD
 * when it is missing or holds a NUL. */
static int leaf(const char *block, size_t block_len, const char *tag, struct buf *out)
{
    buf_reset(out);
    int rc = s3xml_first(block, block_len, tag, out);
    if (rc == S3XML_STOP || (rc == S3XML_OK && strlen(out->data) != out->len))
        return S3XML_BAD;
    return rc;
}

/* A page's <IsTruncated> into *truncated and its continuation (the n
 * elements of tags into outs, reset first; the first one required when
 * truncated). */
static int page_end(const char *doc, size_t len, bool *truncated, const char *const *tags,
                    struct buf *const *outs, size_t n)
{
    struct buf flag = BUF_INIT;
    int rc = s3xml_first(doc, len, "IsTruncated", &flag);
    *truncated = rc == S3XML_OK && strcmp(flag.data, "true") == 0;
    buf_free(&flag);
    if (rc == S3XML_NOMEM || rc == S3XML_BAD)
        return rc;
    for (size_t i = 0; i < n; i++) {
        buf_reset(outs[i]);
        rc = s3xml_first(doc, len, tags[i], outs[i]);
        if (rc == S3XML_STOP && i == 0 && *truncated)
            return S3XML_BAD; /* truncated needs a marker to go on */
        if (rc == S3XML_NOMEM || rc == S3XML_BAD)
            return rc;
    }
    return S3XML_OK;
}

int s3xml_list_page(const char *doc, size_t len, int (*fn)(void *ctx, const struct s3xml_object *o),
                    void *ctx, bool *truncated, struct buf *next_token)
{
    struct buf key = BUF_INIT;
    size_t pos = 0;
    const char *block;
    size_t block_len;
    int rc = S3XML_OK;
    while (rc == S3XML_OK && s3xml_next(doc, len, &pos, "Contents", &block, &block_len)) {
        size_t p = 0;
        const char *t;
        size_t tl;
        uint64_t size = 0;
        rc = leaf(block, block_len, "Key", &key);
        if (rc == S3XML_OK)
            rc = s3xml_next(block, block_len, &p, "Size", &t, &tl) ? parse_size(t, tl, &size)
                                                                   : S3XML_BAD;
        struct s3xml_object o = {key.data, size,
                                 rc == S3XML_OK ? instant(block, block_len, "LastModified") : 0};
        if (rc == S3XML_OK && fn(ctx, &o) != 0)
            rc = S3XML_STOP;
    }
    buf_free(&key);
    if (rc != S3XML_OK)
        return rc;
    static const char *const tags[] = {"NextContinuationToken"};
    struct buf *const outs[] = {next_token};
    return page_end(doc, len, truncated, tags, outs, 1);
}

int s3xml_uploads_page(const char *doc, size_t len,
                       int (*fn)(void *ctx, const struct s3xml_upload *u), void *ctx,
                       bool *truncated, struct buf *next_key, struct buf *next_upload_id)
{
    struct buf key = BUF_INIT, id = BUF_INIT;
    size_t pos = 0;
    const char *block;
    size_t block_len;
    int rc = S3XML_OK;
    while (rc == S3XML_OK && s3xml_next(doc, len, &pos, "Upload", &block, &block_len)) {
        rc = leaf(block, block_len, "Key", &key);
        if (rc == S3XML_OK)
            rc = leaf(block, block_len, "UploadId", &id);
        struct s3xml_upload u = {key.data, id.data,
                                 rc == S3XML_OK ? instant(block, block_len, "Initiated") : 0};
        if (rc == S3XML_OK && fn(ctx, &u) != 0)
            rc = S3XML_STOP;
    }
    buf_free(&key);
    buf_free(&id);
    if (rc != S3XML_OK)
        return rc;
    static const char *const tags[] = {"NextKeyMarker", "NextUploadIdMarker"};
    struct buf *const outs[] = {next_key, next_upload_id};
    return page_end(doc, len, truncated, tags, outs, 2);
}
