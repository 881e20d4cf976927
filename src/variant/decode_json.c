/* A Variant's bytes to JSON text, every length, offset and id checked
 * against the bytes at hand: see variant.h. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/base64.h"
#include "util/jsonx.h"
#include "util/numfmt.h"
#include "util/strutil.h"
#include "util/timefmt.h"
#include "variant/variant.h"
#include "variant/variant_format.h"

struct decoder {
    const uint8_t *offsets; /* the dictionary's, width ow */
    const uint8_t *bytes;   /* the dictionary's strings */
    uint32_t nkeys;
    int ow;
    struct buf *out;
    struct error *err;
};

static int corrupt(struct decoder *d, const char *what)
{
    return error_fail_reason(d->err, ERR_INVALID, "variant_encoding", "variant: %s", what);
}

static int open_metadata(struct decoder *d, const uint8_t *m, size_t len)
{
    if (len < 1 || (m[0] & 0x0F) != VARIANT_VERSION)
        return corrupt(d, "metadata of an unknown version");
    int w = (m[0] >> 6) + 1;
    if (len < 1 + (size_t)w)
        return corrupt(d, "truncated metadata");
    uint64_t n = variant_get_le(m + 1, w);
    size_t rest = len - 1 - (size_t)w; /* the offsets and the strings */
    if (n >= rest / (size_t)w)
        return corrupt(d, "a dictionary larger than its metadata");
    d->offsets = m + 1 + w;
    d->bytes = d->offsets + (n + 1) * (size_t)w;
    d->nkeys = (uint32_t)n;
    d->ow = w;
    size_t room = len - (size_t)(d->bytes - m);
    uint64_t prev = 0;
    if (variant_get_le(d->offsets, w) != 0)
        return corrupt(d, "a dictionary whose first offset is not 0");
    for (uint64_t k = 1; k <= n; k++) {
        uint64_t at = variant_get_le(d->offsets + k * (size_t)w, w);
        if (at < prev || at > room)
            return corrupt(d, "a dictionary offset out of order or past its bytes");
        if (!str_utf8_valid((const char *)d->bytes + prev, (size_t)(at - prev), NULL))
            return corrupt(d, "a dictionary string that is not UTF-8");
        prev = at;
    }
    if (prev != room)
        return corrupt(d, "bytes after the dictionary's last string");
    return 0;
}

static void key_at(const struct decoder *d, uint32_t id, const char **s, size_t *len)
{
    uint64_t a = variant_get_le(d->offsets + (size_t)id * (size_t)d->ow, d->ow);
    uint64_t b = variant_get_le(d->offsets + ((size_t)id + 1) * (size_t)d->ow, d->ow);
    *s = (const char *)d->bytes + a;
    *len = (size_t)(b - a);
}

/* Output, unless only checking (d->out NULL). */
static int put_json_string(struct decoder *d, const char *s, size_t n)
{
    if (!d->out)
        return 0;
    return jsonx_put_string(d->out, s, n) == 0 ? 0 : error_nomem(d->err);
}

static int put_char(struct decoder *d, char c)
{
    if (!d->out)
        return 0;
    return buf_putc(d->out, c) == 0 ? 0 : error_nomem(d->err);
}

static int put_text(struct decoder *d, const char *s, size_t n, bool quoted)
{
    if (!d->out)
        return 0;
    if (quoted)
        return put_json_string(d, s, n);
    return buf_append(d->out, s, n) == 0 ? 0 : error_nomem(d->err);
}

/* A decimal's unscaled value within its width's precision (9, 18, 38
 * digits). */
__extension__ typedef __int128 i128;

static bool decimal_fits(i128 v, int digits)
{
    i128 limit = 1;
    for (int k = 0; k < digits; k++)
        limit *= 10;
    return v < limit && v > -limit;
}

static i128 decimal_value(int type, const uint8_t *p)
{
    if (type == VT_DECIMAL4)
        return (int32_t)variant_get_le(p + 1, 4);
    if (type == VT_DECIMAL8)
        return (int64_t)variant_get_le(p + 1, 8);
    return (i128)((__extension__(unsigned __int128) variant_get_le(p + 9, 8) << 64) |
                  variant_get_le(p + 1, 8));
}

static bool decimal_ok(int type, const uint8_t *p)
{
    int digits = type == VT_DECIMAL4 ? 9 : type == VT_DECIMAL8 ? 18 : 38;
    return p[0] <= 38 && decimal_fits(decimal_value(type, p), digits);
}

/* The checks formatting a primitive makes, without the formatting. */
static int check_primitive(struct decoder *d, int type, const uint8_t *p, size_t need)
{
    switch (type) {
    case VT_DECIMAL4:
    case VT_DECIMAL8:
    case VT_DECIMAL16:
        return decimal_ok(type, p) ? 0 : corrupt(d, "a decimal beyond its precision or scale");
    case VT_TIME_NTZ: {
        int64_t t = (int64_t)variant_get_le(p, 8);
        return t >= 0 && t < INT64_C(86400000000) ? 0 : corrupt(d, "a time outside a day");
    }
    case VT_STRING:
        return str_utf8_valid((const char *)p + 4, need - 4, NULL)
                   ? 0
                   : corrupt(d, "a string that is not UTF-8");
    default: return 0;
    }
}

/* A primitive's value_data at p (avail bytes); *size its whole encoding. */
static int primitive(struct decoder *d, int type, const uint8_t *p, size_t avail, size_t *size)
{
    static const signed char fixed[] = {
        [VT_NULL] = 0,
        [VT_TRUE] = 0,
        [VT_FALSE] = 0,
        [VT_INT8] = 1,
        [VT_INT16] = 2,
        [VT_INT32] = 4,
        [VT_INT64] = 8,
        [VT_DOUBLE] = 8,
        [VT_DECIMAL4] = 5,
        [VT_DECIMAL8] = 9,
        [VT_DECIMAL16] = 17,
        [VT_DATE] = 4,
        [VT_TIMESTAMP] = 8,
        [VT_TIMESTAMP_NTZ] = 8,
        [VT_FLOAT] = 4,
        [VT_BINARY] = -1,
        [VT_STRING] = -1,
        [VT_TIME_NTZ] = 8,
        [VT_TIMESTAMP_NANOS] = 8,
        [VT_TIMESTAMP_NTZ_NANOS] = 8,
        [VT_UUID] = 16,
    };
    if (type > VT_UUID)
        return corrupt(d, "a primitive of an unknown type");
    size_t need = fixed[type] >= 0 ? (size_t)fixed[type] : 4;
    if (avail < need)
        return corrupt(d, "a truncated primitive");
    if (fixed[type] < 0) {
        uint64_t n = variant_get_le(p, 4);
        if (n > avail - 4)
            return corrupt(d, "a string or binary longer than its value");
        need = 4 + (size_t)n;
    }
    *size = 1 + need;
    if (!d->out) /* checking only: what formatting would refuse */
        return check_primitive(d, type, p, need);
    char text[NUMFMT_TEXT_MAX + 64];
    size_t k = 0;
    switch (type) {
    case VT_NULL: return put_text(d, "null", 4, false);
    case VT_TRUE: return put_text(d, "true", 4, false);
    case VT_FALSE: return put_text(d, "false", 5, false);
    case VT_INT8: k = (size_t)snprintf(text, sizeof text, "%d", (int8_t)p[0]); break;
    case VT_INT16:
        k = (size_t)snprintf(text, sizeof text, "%d", (int16_t)variant_get_le(p, 2));
        break;
    case VT_INT32:
        k = (size_t)snprintf(text, sizeof text, "%d", (int32_t)variant_get_le(p, 4));
        break;
    case VT_INT64:
        k = (size_t)snprintf(text, sizeof text, "%lld", (long long)(int64_t)variant_get_le(p, 8));
        break;
    case VT_FLOAT:
    case VT_DOUBLE: {
        double v;
        if (type == VT_FLOAT) {
            uint32_t bits = (uint32_t)variant_get_le(p, 4);
            float f;
            memcpy(&f, &bits, 4);
            v = f;
        } else {
            uint64_t bits = variant_get_le(p, 8);
            memcpy(&v, &bits, 8);
        }
        if (!isfinite(v))
            return put_text(d,
                            isnan(v) ? "NaN"
                            : v > 0  ? "Infinity"
                                     : "-Infinity",
                            isnan(v) ? 3
                            : v > 0  ? 8
                                     : 9,
                            true);
        k = numfmt_shortest(v, type == VT_FLOAT, text);
        break;
    }
    case VT_DECIMAL4:
    case VT_DECIMAL8:
    case VT_DECIMAL16: {
        if (!decimal_ok(type, p))
            return corrupt(d, "a decimal beyond its precision or scale");
        k = numfmt_decimal(decimal_value(type, p), p[0], text);
        break;
    }
    case VT_DATE:
        k = time_format_local_date((int32_t)variant_get_le(p, 4), text, sizeof text);
        return put_text(d, text, k, true);
    case VT_TIMESTAMP:
    case VT_TIMESTAMP_NANOS:
        k = time_format_instant((int64_t)variant_get_le(p, 8), type == VT_TIMESTAMP ? 6 : 9, text,
                                sizeof text);
        return put_text(d, text, k, true);
    case VT_TIMESTAMP_NTZ:
    case VT_TIMESTAMP_NTZ_NANOS:
        k = time_format_local_datetime((int64_t)variant_get_le(p, 8),
                                       type == VT_TIMESTAMP_NTZ ? 6 : 9, text, sizeof text);
        return put_text(d, text, k, true);
    case VT_TIME_NTZ:
        k = time_format_local_time((int64_t)variant_get_le(p, 8), 6, text, sizeof text);
        if (k == 0)
            return corrupt(d, "a time outside a day");
        return put_text(d, text, k, true);
    case VT_UUID: {
        static const char hex[] = "0123456789abcdef";
        for (int b = 0; b < 16; b++) {
            if (b == 4 || b == 6 || b == 8 || b == 10)
                text[k++] = '-';
            text[k++] = hex[p[b] >> 4];
            text[k++] = hex[p[b] & 15];
        }
        return put_text(d, text, k, true);
    }
    case VT_STRING:
        if (!str_utf8_valid((const char *)p + 4, need - 4, NULL))
            return corrupt(d, "a string that is not UTF-8");
        return put_json_string(d, (const char *)p + 4, need - 4);
    case VT_BINARY: {
        struct buf b64 = BUF_INIT;
        int rc = base64_encode(&b64, p + 4, need - 4) == 0
                     ? put_json_string(d, b64.data ? b64.data : "", b64.len)
                     : error_nomem(d->err);
        buf_free(&b64);
        return rc;
    }
    }
    return put_text(d, text, k, false);
}

static int decode(struct decoder *d, const uint8_t *p, size_t avail, int depth, size_t *size);

/* One element or field value at p, which must fill exactly len bytes. */
static int decode_exact(struct decoder *d, const uint8_t *p, size_t len, int depth)
{
    size_t size = 0;
    if (decode(d, p, len, depth, &size) != 0)
        return -1;
    return size == len ? 0 : corrupt(d, "a value that does not end where the next one begins");
}

struct slot {
    uint64_t offset;
    uint64_t len;
    uint32_t index; /* among the container's elements */
    const char *key;
    size_t key_len;
};

static int cmp_offset(const void *x, const void *y)
{
    const struct slot *a = x, *b = y;
    return (a->offset > b->offset) - (a->offset < b->offset);
}

static int cmp_key(const void *x, const void *y)
{
    const struct slot *a = x, *b = y;
    int c = memcmp(a->key, b->key, a->key_len < b->key_len ? a->key_len : b->key_len);
    return c ? c : (a->key_len > b->key_len) - (a->key_len < b->key_len);
}

static int container(struct decoder *d, int basic, int header, const uint8_t *p, size_t avail,
                     int depth, size_t *size)
{
    if (depth >= VARIANT_MAX_DEPTH)
        return error_fail_reason(d->err, ERR_INVALID, "nesting_too_deep",
                                 "variant: a value nested more than %d levels deep",
                                 VARIANT_MAX_DEPTH);
    bool object = basic == VB_OBJECT;
    int ow = (header & 3) + 1, iw = object ? ((header >> 2) & 3) + 1 : 0;
    int cw = (header >> (object ? 4 : 2)) & 1 ? 4 : 1;
    if (avail < (size_t)cw)
        return corrupt(d, "a truncated element count");
    uint64_t n = variant_get_le(p, cw);
    size_t head = (size_t)cw;
    /* Each element takes at least its id, its offset and one byte. */
    if (n > (avail - head) / ((size_t)iw + (size_t)ow + 1))
        return corrupt(d, "more elements than the value has bytes for");
    const uint8_t *ids = p + head, *offsets = ids + n * (size_t)iw;
    const uint8_t *values = offsets + (n + 1) * (size_t)ow;
    if ((size_t)(values - p) > avail)
        return corrupt(d, "truncated element offsets");
    size_t room = avail - (size_t)(values - p);
    uint64_t total = variant_get_le(offsets + n * (size_t)ow, ow);
    if (total > room)
        return corrupt(d, "elements past the end of their value");
    *size = 1 + (size_t)(values - p) + (size_t)total;
    struct slot *slots = malloc((size_t)(n + 1) * sizeof *slots);
    if (!slots)
        return error_nomem(d->err);
    int rc = 0;
    for (uint64_t i = 0; i < n && rc == 0; i++) {
        slots[i] = (struct slot){.offset = variant_get_le(offsets + i * (size_t)ow, ow),
                                 .index = (uint32_t)i};
        if (object) {
            uint64_t id = variant_get_le(ids + i * (size_t)iw, iw);
            if (id >= d->nkeys)
                rc = corrupt(d, "a field id past the dictionary");
            else
                key_at(d, (uint32_t)id, &slots[i].key, &slots[i].key_len);
        }
    }
    /* The values tile [0, total) exactly: each ends where the next one up
     * begins (arrays in order; an object's in any order). */
    if (rc == 0 && object && n > 1)
        qsort(slots, (size_t)n, sizeof *slots, cmp_offset);
    for (uint64_t i = 0; i < n && rc == 0; i++) {
        uint64_t end = i + 1 < n ? slots[i + 1].offset : total;
        if (slots[i].offset != (i ? slots[i - 1].offset + slots[i - 1].len : 0) ||
            end < slots[i].offset)
            rc = corrupt(d, "element offsets that leave bytes no value holds, or overlap");
        else
            slots[i].len = end - slots[i].offset;
    }
    if (rc == 0 && n == 0 && total != 0)
        rc = corrupt(d, "an empty container whose last offset is not 0");
    if (rc == 0 && object && n > 1) {
        qsort(slots, (size_t)n, sizeof *slots, cmp_key);
        for (uint64_t i = 1; i < n && rc == 0; i++)
            if (cmp_key(&slots[i - 1], &slots[i]) == 0)
                rc = corrupt(d, "an object that names a key twice");
    }
    if (rc == 0 && put_char(d, object ? '{' : '[') != 0)
        rc = error_nomem(d->err);
    for (uint64_t i = 0; i < n && rc == 0; i++) {
        if (i && put_char(d, ',') != 0)
            rc = error_nomem(d->err);
        if (rc == 0 && object &&
            (put_json_string(d, slots[i].key, slots[i].key_len) != 0 || put_char(d, ':') != 0))
            rc = -1;
        if (rc == 0)
            rc = decode_exact(d, values + slots[i].offset, (size_t)slots[i].len, depth + 1);
    }
    if (rc == 0 && put_char(d, object ? '}' : ']') != 0)
        rc = error_nomem(d->err);
    free(slots);
    return rc;
}

static int decode(struct decoder *d, const uint8_t *p, size_t avail, int depth, size_t *size)
{
    if (avail < 1)
        return corrupt(d, "an empty value");
    int basic = p[0] & 3, header = p[0] >> 2;
    switch (basic) {
    case VB_PRIMITIVE: return primitive(d, header, p + 1, avail - 1, size);
    case VB_SHORT_STRING:
        if ((size_t)header > avail - 1)
            return corrupt(d, "a short string longer than its value");
        if (!str_utf8_valid((const char *)p + 1, (size_t)header, NULL))
            return corrupt(d, "a string that is not UTF-8");
        *size = 1 + (size_t)header;
        return put_json_string(d, (const char *)p + 1, (size_t)header);
    default: return container(d, basic, header, p + 1, avail - 1, depth, size);
    }
}

int variant_check(const uint8_t *metadata, size_t metadata_len, const uint8_t *value,
                  size_t value_len, struct error *err)
{
    struct decoder d = {.out = NULL, .err = err};
    int rc = open_metadata(&d, metadata, metadata_len);
    return rc == 0 ? decode_exact(&d, value, value_len, 0) : rc;
}

int variant_to_json(const uint8_t *metadata, size_t metadata_len, const uint8_t *value,
                    size_t value_len, struct buf *out, struct error *err)
{
    struct decoder d = {.out = out, .err = err};
    size_t at = out->len;
    int rc = open_metadata(&d, metadata, metadata_len);
    if (rc == 0)
        rc = decode_exact(&d, value, value_len, 0);
    if (rc != 0 && out->data) {
        out->len = at;
        out->data[at] = '\0';
    }
    return rc;
}
