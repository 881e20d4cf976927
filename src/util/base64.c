#include "util/base64.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int base64_encode(struct buf *out, const void *data, size_t len)
{
    const uint8_t *p = data;
    if (buf_reserve(out, (len + 2) / 3 * 4 + 1) != 0)
        return -1;
    char *o = out->data + out->len;
    size_t i = 0;
    for (; i + 3 <= len; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
        *o++ = b64[v >> 18];
        *o++ = b64[(v >> 12) & 63];
        *o++ = b64[(v >> 6) & 63];
        *o++ = b64[v & 63];
    }
    if (i < len) {
        uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < len ? (uint32_t)p[i + 1] << 8 : 0);
        *o++ = b64[v >> 18];
        *o++ = b64[(v >> 12) & 63];
        *o++ = i + 1 < len ? b64[(v >> 6) & 63] : '=';
        *o++ = '=';
    }
    out->len = (size_t)(o - out->data);
    out->data[out->len] = '\0';
    return 0;
}

static int b64_value(char c)
{
    const char *p = c ? strchr(b64, c) : NULL;
    return p ? (int)(p - b64) : -1;
}

const char *base64_decode(const char *s, size_t n, struct buf *out)
{
    static const char *const bad = "expected base64 (standard alphabet, padded)";
    if (n % 4 != 0)
        return bad;
    if (buf_reserve(out, n / 4 * 3 + 1) != 0)
        return "out of memory";
    for (size_t i = 0; i < n; i += 4) {
        bool last = i + 4 == n;
        int pad = last ? (s[i + 3] == '=') + (s[i + 2] == '=' && s[i + 3] == '=') : 0;
        uint32_t v = 0;
        for (int k = 0; k < 4; k++) {
            int d = k >= 4 - pad ? 0 : b64_value(s[i + (size_t)k]);
            if (d < 0)
                return bad;
            v = v << 6 | (uint32_t)d;
        }
        if ((pad == 1 && (v & 0xff)) || (pad == 2 && (v & 0xffff)))
            return "base64 with non-zero padding bits";
        uint8_t b[3] = {(uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
        if (buf_append(out, b, (size_t)(3 - pad)) != 0)
            return "out of memory";
    }
    return NULL;
}
