#include "parquet/bound.h"

#include "util/strutil.h"

/* The bytes a UTF-8 lead byte announces, or 0 when it cannot lead. */
static size_t utf8_announced(uint8_t lead)
{
    return lead < 0x80                    ? 1
           : lead >= 0xc2 && lead <= 0xdf ? 2
           : lead >= 0xe0 && lead <= 0xef ? 3
           : lead >= 0xf0 && lead <= 0xf4 ? 4
                                          : 0;
}

/* The length of the longest prefix of s[0..len) made of whole characters,
 * where a character cut off by the end is left out; false when s holds a
 * byte sequence that is not UTF-8 before that. */
static bool utf8_whole_prefix(const uint8_t *s, size_t len, size_t *whole)
{
    size_t i = 0;
    while (i < len) {
        size_t k = str_utf8_seq(s + i, len - i);
        if (k == 0) {
            size_t want = utf8_announced(s[i]);
            if (want == 0 || want <= len - i)
                return false; /* not UTF-8 */
            break;            /* a character cut off by the end */
        }
        i += k;
    }
    *whole = i;
    return true;
}

size_t pq_bound_cut_min(const uint8_t *v, size_t len, size_t limit, bool utf8)
{
    size_t n = len < limit ? len : limit;
    size_t whole;
    if (utf8 && utf8_whole_prefix(v, n, &whole))
        return whole;
    return n;
}

static int raise_bytes(const uint8_t *p, size_t len, struct buf *out)
{
    while (len > 0 && p[len - 1] == 0xff)
        len--;
    if (len == 0)
        return 1;
    uint8_t last = (uint8_t)(p[len - 1] + 1);
    if (buf_append(out, p, len - 1) != 0 || buf_append(out, &last, 1) != 0)
        return -1;
    return 0;
}

int pq_bound_raise(const uint8_t *prefix, size_t len, bool utf8, struct buf *out)
{
    size_t n;
    if (!utf8 || !utf8_whole_prefix(prefix, len, &n))
        return raise_bytes(prefix, len, out);
    /* UTF-8 orders as its code points do, and a raised character sorts
     * after every string that continues the unraised one. */
    while (n > 0) {
        size_t start = n - 1;
        while (start > 0 && (prefix[start] & 0xc0) == 0x80)
            start--;
        uint32_t cp = str_utf8_decode(prefix + start, n - start);
        if (cp < 0x10ffff) {
            cp = cp + 1 == 0xd800 ? 0xe000 : cp + 1; /* surrogates are not characters */
            char enc[4];
            size_t k = str_utf8_encode(cp, enc);
            if (buf_append(out, prefix, start) != 0 || buf_append(out, enc, k) != 0)
                return -1;
            return 0;
        }
        n = start;
    }
    return 1;
}
