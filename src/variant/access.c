/* Reading a Variant in place: see access.h. */
#include "variant/access.h"

#include <string.h>

#include "variant/variant_format.h"

bool variant_container_open(const uint8_t *p, size_t avail, struct variant_container *c)
{
    if (avail < 1)
        return false;
    int basic = p[0] & 3, header = p[0] >> 2;
    if (basic != VB_OBJECT && basic != VB_ARRAY)
        return false;
    c->object = basic == VB_OBJECT;
    c->offset_size = (header & 3) + 1;
    c->id_size = c->object ? ((header >> 2) & 3) + 1 : 0;
    size_t count_size = (header >> (c->object ? 4 : 2)) & 1 ? 4 : 1;
    p++, avail--;
    if (avail < count_size)
        return false;
    c->n = variant_get_le(p, (int)count_size);
    size_t room = avail - count_size;
    /* Each element takes at least its id and its offset; one more offset. */
    size_t per = (size_t)c->id_size + (size_t)c->offset_size;
    if (c->n > (room - (size_t)c->offset_size) / per || room < (size_t)c->offset_size)
        return false;
    c->ids = p + count_size;
    c->offsets = c->ids + c->n * (size_t)c->id_size;
    c->values = c->offsets + (c->n + 1) * (size_t)c->offset_size;
    size_t head = (size_t)(c->values - p);
    c->values_len = variant_get_le(c->offsets + c->n * (size_t)c->offset_size, c->offset_size);
    return c->values_len <= avail - head;
}

bool variant_container_element(const struct variant_container *c, uint64_t i, const uint8_t **v,
                               size_t *avail)
{
    if (i >= c->n)
        return false;
    uint64_t at = variant_get_le(c->offsets + i * (size_t)c->offset_size, c->offset_size);
    if (at >= c->values_len)
        return false;
    *v = c->values + at;
    *avail = (size_t)(c->values_len - at);
    return true;
}

int variant_object_field(const struct variant_dict *d, const uint8_t *p, size_t avail,
                         const char *key, size_t key_len, const uint8_t **v, size_t *avail_out)
{
    struct variant_container c;
    if (avail < 1 || (p[0] & 3) != VB_OBJECT)
        return 0;
    if (!variant_container_open(p, avail, &c))
        return -1;
    /* By name, field by field: dictionaries flagged sorted are not always
     * sorted (DuckDB 1.5's), so neither the ids nor the keys are searched. */
    for (uint64_t i = 0; i < c.n; i++) {
        const char *name;
        size_t name_len;
        uint64_t id = variant_get_le(c.ids + i * (size_t)c.id_size, c.id_size);
        if (!variant_dict_key(d, id, &name, &name_len))
            return -1;
        if (name_len == key_len && memcmp(name, key, key_len) == 0)
            return variant_container_element(&c, i, v, avail_out) ? 1 : -1;
    }
    return 0;
}

static bool fixed_scalar(int type, const uint8_t *p, size_t avail, struct variant_scalar *out)
{
    static const unsigned char width[] = {
        [VT_INT8] = 1,     [VT_INT16] = 2,    [VT_INT32] = 4,      [VT_INT64] = 8, [VT_DOUBLE] = 8,
        [VT_DECIMAL4] = 5, [VT_DECIMAL8] = 9, [VT_DECIMAL16] = 17, [VT_FLOAT] = 4};
    size_t w = width[type];
    if (avail < w)
        return false;
    switch (type) {
    case VT_INT8:
    case VT_INT16:
    case VT_INT32:
    case VT_INT64: {
        uint64_t u = variant_get_le(p, (int)w);
        int shift = 64 - 8 * (int)w; /* sign-extend from the value's width */
        out->kind = VS_INT;
        out->i = (int64_t)(u << shift) >> shift;
        return true;
    }
    case VT_FLOAT: {
        uint32_t bits = (uint32_t)variant_get_le(p, 4);
        float f;
        memcpy(&f, &bits, 4);
        out->kind = VS_DOUBLE;
        out->d = f;
        return true;
    }
    case VT_DOUBLE: {
        uint64_t bits = variant_get_le(p, 8);
        memcpy(&out->d, &bits, 8);
        out->kind = VS_DOUBLE;
        return true;
    }
    default: /* decimals: a scale byte, then the unscaled value */
        out->kind = VS_DECIMAL;
        out->scale = p[0];
        if (type == VT_DECIMAL4)
            out->unscaled = (int32_t)variant_get_le(p + 1, 4);
        else if (type == VT_DECIMAL8)
            out->unscaled = (int64_t)variant_get_le(p + 1, 8);
        else
            out->unscaled =
                (variant_i128)((__extension__(unsigned __int128) variant_get_le(p + 9, 8) << 64) |
                               variant_get_le(p + 1, 8));
        return out->scale <= 38;
    }
}

bool variant_scalar_read(const uint8_t *p, size_t avail, struct variant_scalar *out)
{
    memset(out, 0, sizeof *out);
    if (avail < 1)
        return false;
    int basic = p[0] & 3, header = p[0] >> 2;
    p++, avail--;
    if (basic == VB_SHORT_STRING) {
        if ((size_t)header > avail)
            return false;
        out->kind = VS_STRING;
        out->s = (const char *)p;
        out->len = (size_t)header;
        return true;
    }
    if (basic != VB_PRIMITIVE) {
        out->kind = VS_OTHER;
        return true;
    }
    switch (header) {
    case VT_NULL: out->kind = VS_NULL; return true;
    case VT_TRUE:
    case VT_FALSE:
        out->kind = VS_BOOL;
        out->b = header == VT_TRUE;
        return true;
    case VT_INT8:
    case VT_INT16:
    case VT_INT32:
    case VT_INT64:
    case VT_FLOAT:
    case VT_DOUBLE:
    case VT_DECIMAL4:
    case VT_DECIMAL8:
    case VT_DECIMAL16: return fixed_scalar(header, p, avail, out);
    case VT_STRING: {
        if (avail < 4 || variant_get_le(p, 4) > avail - 4)
            return false;
        out->kind = VS_STRING;
        out->s = (const char *)p + 4;
        out->len = (size_t)variant_get_le(p, 4);
        return true;
    }
    default: out->kind = VS_OTHER; return header <= VT_UUID;
    }
}

size_t variant_scalar_size(const struct variant_scalar *s)
{
    switch (s->kind) {
    case VS_INT:
    case VS_DOUBLE: return 9;
    case VS_DECIMAL: return 18;
    case VS_STRING: return 5 + s->len;
    default: return 1;
    }
}

void variant_scalar_write(const struct variant_scalar *s, uint8_t *out)
{
    switch (s->kind) {
    case VS_INT:
        out[0] = VARIANT_PRIMITIVE(VT_INT64);
        variant_put_le(out + 1, (uint64_t)s->i, 8);
        return;
    case VS_DOUBLE: {
        uint64_t bits;
        memcpy(&bits, &s->d, 8);
        out[0] = VARIANT_PRIMITIVE(VT_DOUBLE);
        variant_put_le(out + 1, bits, 8);
        return;
    }
    case VS_DECIMAL: {
        __extension__ typedef unsigned __int128 u128;
        u128 u = (u128)s->unscaled;
        out[0] = VARIANT_PRIMITIVE(VT_DECIMAL16);
        out[1] = (uint8_t)s->scale;
        variant_put_le(out + 2, (uint64_t)u, 8);
        variant_put_le(out + 10, (uint64_t)(u >> 64), 8);
        return;
    }
    case VS_STRING:
        out[0] = VARIANT_PRIMITIVE(VT_STRING);
        variant_put_le(out + 1, s->len, 4);
        if (s->len)
            memcpy(out + 5, s->s, s->len);
        return;
    case VS_BOOL: out[0] = VARIANT_PRIMITIVE(s->b ? VT_TRUE : VT_FALSE); return;
    default: out[0] = VARIANT_PRIMITIVE(VT_NULL); return;
    }
}
