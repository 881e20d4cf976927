#include "util/strutil.h"

#include <string.h>

bool str_parse_int64(const char *s, int64_t *out)
{
    if (!s || !*s)
        return false;
    bool neg = false;
    if (*s == '-') {
        neg = true;
        s++;
        if (!*s)
            return false;
    }
    uint64_t limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    uint64_t v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return false;
        unsigned digit = (unsigned)(*s - '0');
        if (v > (limit - digit) / 10)
            return false;
        v = v * 10 + digit;
    }
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return true;
}

bool str_parse_bool(const char *s, bool *out)
{
    if (s && strcmp(s, "true") == 0) {
        *out = true;
        return true;
    }
    if (s && strcmp(s, "false") == 0) {
        *out = false;
        return true;
    }
    return false;
}

bool str_starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

bool str_ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

bool str_copy(char *dst, size_t dst_size, const char *src)
{
    if (dst_size == 0)
        return false;
    size_t n = strlen(src);
    bool fits = n < dst_size;
    if (!fits)
        n = dst_size - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
    return fits;
}

bool str_has_control(const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c < 0x20 || c == 0x7f)
            return true;
    }
    return false;
}

bool str_has_space_or_control(const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c <= 0x20 || c == 0x7f)
            return true;
    }
    return false;
}

bool str_parse_uuid(const char *s, size_t n, uint8_t out[16])
{
    if (n != 36)
        return false;
    size_t k = 0;
    for (size_t i = 0; i < 36;) {
        if (i == 8 || i == 13 || i == 18 || i == 23) {
            if (s[i++] != '-')
                return false;
            continue;
        }
        int hi = str_hex_digit(s[i]), lo = str_hex_digit(s[i + 1]);
        if (hi < 0 || lo < 0)
            return false;
        if (out)
            out[k++] = (uint8_t)(hi << 4 | lo);
        i += 2;
    }
    return true;
}

size_t str_format_uuid(const uint8_t b[16], char out[37])
{
    static const size_t runs[] = {4, 2, 2, 2, 6}; /* bytes per group */
    char *o = out;
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
        if (r)
            *o++ = '-';
        str_hex_encode(b, runs[r], o);
        o += 2 * runs[r];
        b += runs[r];
    }
    return 36;
}

bool str_is_uuid(const char *s)
{
    return str_parse_uuid(s, strlen(s), NULL);
}

bool str_lower(char *dst, size_t dst_size, const char *src)
{
    size_t i = 0;
    for (; src[i]; i++) {
        if (i + 1 >= dst_size) {
            dst[i] = '\0';
            return false;
        }
        char c = src[i];
        dst[i] = (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
    }
    dst[i] = '\0';
    return true;
}

void str_hex_encode(const void *bytes, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";
    const unsigned char *b = bytes;
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[b[i] >> 4];
        out[2 * i + 1] = digits[b[i] & 15];
    }
    out[2 * n] = '\0';
}

int str_hex_decode(const char *text, size_t len, void *out)
{
    if (len % 2 != 0)
        return -1;
    unsigned char *b = out;
    for (size_t i = 0; i < len / 2; i++) {
        int hi = str_hex_digit(text[2 * i]), lo = str_hex_digit(text[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return -1;
        b[i] = (unsigned char)(hi << 4 | lo);
    }
    return 0;
}

int str_hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

size_t str_utf8_seq(const unsigned char *p, size_t avail)
{
    if (avail == 0)
        return 0;
    unsigned char c = p[0];
    if (c < 0x80)
        return 1;
    size_t n = c >= 0xc2 && c <= 0xdf   ? 2
               : c >= 0xe0 && c <= 0xef ? 3
               : c >= 0xf0 && c <= 0xf4 ? 4
                                        : 0;
    if (n == 0 || n > avail)
        return 0;
    uint32_t cp = c & (0xff >> (n + 1));
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (p[i] & 0x3f);
    }
    /* Overlong forms, surrogates and values past U+10FFFF are invalid. */
    bool overlong = (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000);
    if (overlong || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
}

bool str_utf8_valid(const char *s, size_t n, size_t *bad)
{
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        /* ASCII eight bytes at a time: most text is, and checking it byte by
         * byte costs convert a tenth of its time. */
        uint64_t word;
        if (n - i >= 8 && (memcpy(&word, p + i, 8), (word & 0x8080808080808080u) == 0)) {
            i += 8;
            continue;
        }
        if (p[i] < 0x80) {
            i++;
            continue;
        }
        size_t k = str_utf8_seq(p + i, n - i);
        if (k == 0) {
            if (bad)
                *bad = i;
            return false;
        }
        i += k;
    }
    return true;
}

void str_utf8_sanitize(char *s)
{
    unsigned char *p = (unsigned char *)s;
    while (*p) {
        size_t n = str_utf8_seq(p, strnlen((const char *)p, 4));
        if (n == 0) {
            *p++ = '?';
            continue;
        }
        p += n;
    }
}

size_t str_utf8_length(const char *s)
{
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        n += (*p & 0xc0) != 0x80;
    return n;
}

size_t str_utf8_encode(uint32_t cp, char out[4])
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | cp >> 6);
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | cp >> 12);
        out[1] = (char)(0x80 | (cp >> 6 & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | cp >> 18);
    out[1] = (char)(0x80 | (cp >> 12 & 0x3F));
    out[2] = (char)(0x80 | (cp >> 6 & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

uint32_t str_utf8_decode(const unsigned char *p, size_t n)
{
    if (n == 1)
        return p[0];
    uint32_t cp = p[0] & (0xFFu >> (n + 1));
    for (size_t i = 1; i < n; i++)
        cp = cp << 6 | (p[i] & 0x3Fu);
    return cp;
}

int str_hex4(const char *s)
{
    int v = 0;
    for (int i = 0; i < 4; i++) {
        int d = str_hex_digit(s[i]);
        if (d < 0)
            return -1;
        v = v << 4 | d;
    }
    return v;
}
