#include "parquet/thrift.h"

#include <string.h>

#include "util/bytes.h"

/* ---- writing ---- */

static void put_byte(struct tc_writer *w, uint8_t b)
{
    if (!w->failed && buf_putc(w->out, (char)b) != 0)
        w->failed = true;
}

static void put_varint(struct tc_writer *w, uint64_t v)
{
    uint8_t tmp[VARINT_MAX_BYTES];
    size_t n = varint_encode(v, tmp);
    if (!w->failed && buf_append(w->out, tmp, n) != 0)
        w->failed = true;
}

void tcw_init(struct tc_writer *w, struct buf *out)
{
    memset(w, 0, sizeof *w);
    w->out = out;
    w->depth = -1;
}

void tcw_struct_begin(struct tc_writer *w)
{
    if (w->depth + 1 >= TC_MAX_DEPTH) {
        w->failed = true;
        return;
    }
    w->last_id[++w->depth] = 0;
}

void tcw_struct_end(struct tc_writer *w)
{
    put_byte(w, TC_STOP);
    if (w->depth >= 0)
        w->depth--;
}

static void field_header(struct tc_writer *w, int16_t id, enum tc_type type)
{
    if (w->depth < 0) {
        w->failed = true;
        return;
    }
    int delta = id - w->last_id[w->depth];
    if (delta > 0 && delta <= 15) {
        put_byte(w, (uint8_t)(delta << 4 | type));
    } else {
        put_byte(w, (uint8_t)type);
        put_varint(w, zigzag_encode(id));
    }
    w->last_id[w->depth] = id;
}

void tcw_field_i32(struct tc_writer *w, int16_t id, int32_t v)
{
    field_header(w, id, TC_I32);
    put_varint(w, zigzag_encode(v));
}

void tcw_field_i64(struct tc_writer *w, int16_t id, int64_t v)
{
    field_header(w, id, TC_I64);
    put_varint(w, zigzag_encode(v));
}

void tcw_field_i16(struct tc_writer *w, int16_t id, int16_t v)
{
    field_header(w, id, TC_I16);
    put_varint(w, zigzag_encode(v));
}

void tcw_field_byte(struct tc_writer *w, int16_t id, int8_t v)
{
    field_header(w, id, TC_BYTE);
    put_byte(w, (uint8_t)v);
}

/* Compact doubles are 8 bytes, little-endian. */
void tcw_field_double(struct tc_writer *w, int16_t id, double v)
{
    field_header(w, id, TC_DOUBLE);
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    for (int i = 0; i < 8; i++)
        put_byte(w, (uint8_t)(bits >> (8 * i)));
}

void tcw_field_bool(struct tc_writer *w, int16_t id, bool v)
{
    field_header(w, id, v ? TC_TRUE : TC_FALSE);
}

void tcw_elem_binary(struct tc_writer *w, const void *data, size_t len)
{
    put_varint(w, len);
    if (!w->failed && len && buf_append(w->out, data, len) != 0)
        w->failed = true;
}

void tcw_field_binary(struct tc_writer *w, int16_t id, const void *data, size_t len)
{
    field_header(w, id, TC_BINARY);
    tcw_elem_binary(w, data, len);
}

void tcw_field_string(struct tc_writer *w, int16_t id, const char *s)
{
    tcw_field_binary(w, id, s, strlen(s));
}

void tcw_field_struct_begin(struct tc_writer *w, int16_t id)
{
    field_header(w, id, TC_STRUCT);
    tcw_struct_begin(w);
}

void tcw_field_list_begin(struct tc_writer *w, int16_t id, enum tc_type elem_type, size_t n)
{
    field_header(w, id, TC_LIST);
    if (n < 15) {
        put_byte(w, (uint8_t)(n << 4 | elem_type));
    } else {
        put_byte(w, (uint8_t)(0xf0 | elem_type));
        put_varint(w, n);
    }
}

void tcw_elem_i32(struct tc_writer *w, int32_t v)
{
    put_varint(w, zigzag_encode(v));
}

void tcw_elem_i64(struct tc_writer *w, int64_t v)
{
    put_varint(w, zigzag_encode(v));
}

void tcw_elem_bool(struct tc_writer *w, bool v)
{
    put_byte(w, v ? TC_TRUE : TC_FALSE);
}

/* ---- reading ---- */

void tcr_fail(struct tc_reader *r, const char *why)
{
    if (!r->failed) {
        r->failed = true;
        r->error = why;
    }
    r->p = r->end;
}

void tcr_init(struct tc_reader *r, const void *data, size_t len)
{
    memset(r, 0, sizeof *r);
    r->p = data;
    r->end = r->p + len;
    r->depth = -1;
}

static uint8_t get_byte(struct tc_reader *r)
{
    if (r->p >= r->end) {
        tcr_fail(r, "metadata ends early");
        return 0;
    }
    return *r->p++;
}

static uint64_t get_varint(struct tc_reader *r)
{
    if (r->failed)
        return 0;
    uint64_t v = 0;
    size_t left = (size_t)(r->end - r->p), n = varint_decode(r->p, left, 64, &v);
    if (n == 0) {
        tcr_fail(r, left < VARINT_MAX_BYTES ? "metadata ends early" : "varint past 64 bits");
        return 0;
    }
    r->p += n;
    return v;
}

void tcr_struct_begin(struct tc_reader *r)
{
    if (r->depth + 1 >= TC_MAX_DEPTH) {
        tcr_fail(r, "metadata nested too deeply");
        return;
    }
    r->last_id[++r->depth] = 0;
}

void tcr_struct_end(struct tc_reader *r)
{
    if (r->depth >= 0)
        r->depth--;
}

bool tcr_field(struct tc_reader *r, int16_t *id, enum tc_type *type)
{
    if (r->failed || r->depth < 0)
        return false;
    uint8_t b = get_byte(r);
    if (r->failed)
        return false;
    enum tc_type t = (enum tc_type)(b & 0x0f);
    if (t == TC_STOP)
        return false;
    int delta = b >> 4;
    int64_t fid;
    if (delta) {
        fid = r->last_id[r->depth] + delta;
    } else {
        fid = zigzag_decode(get_varint(r));
    }
    if (fid < INT16_MIN || fid > INT16_MAX) {
        tcr_fail(r, "field id out of range");
        return false;
    }
    if (t > TC_STRUCT) {
        tcr_fail(r, "unknown field type");
        return false;
    }
    r->last_id[r->depth] = (int16_t)fid;
    *id = (int16_t)fid;
    *type = t;
    if (t == TC_TRUE || t == TC_FALSE)
        r->bool_value = t == TC_TRUE;
    return true;
}

int64_t tcr_i64(struct tc_reader *r)
{
    return zigzag_decode(get_varint(r));
}

int32_t tcr_i32(struct tc_reader *r)
{
    int64_t v = tcr_i64(r);
    if (v < INT32_MIN || v > INT32_MAX) {
        tcr_fail(r, "i32 out of range");
        return 0;
    }
    return (int32_t)v;
}

int16_t tcr_i16(struct tc_reader *r)
{
    int64_t v = tcr_i64(r);
    if (v < INT16_MIN || v > INT16_MAX) {
        tcr_fail(r, "i16 out of range");
        return 0;
    }
    return (int16_t)v;
}

double tcr_double(struct tc_reader *r)
{
    uint64_t bits = 0;
    for (int i = 0; i < 8; i++)
        bits |= (uint64_t)get_byte(r) << (8 * i);
    double v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

int8_t tcr_byte(struct tc_reader *r)
{
    return (int8_t)get_byte(r);
}

bool tcr_bool_field(struct tc_reader *r)
{
    return r->bool_value;
}

bool tcr_bool_elem(struct tc_reader *r)
{
    /* Writers differ: 1/2 (Thrift's own) or 1/0. */
    return get_byte(r) == TC_TRUE;
}

const uint8_t *tcr_binary(struct tc_reader *r, size_t *len)
{
    uint64_t n = get_varint(r);
    if (r->failed || n > (uint64_t)(r->end - r->p)) {
        tcr_fail(r, "binary longer than the metadata");
        *len = 0;
        return NULL;
    }
    const uint8_t *p = r->p;
    r->p += n;
    *len = (size_t)n;
    return p;
}

size_t tcr_list(struct tc_reader *r, enum tc_type *elem_type)
{
    uint8_t b = get_byte(r);
    uint64_t n = b >> 4;
    *elem_type = (enum tc_type)(b & 0x0f);
    if (n == 15)
        n = get_varint(r);
    if (r->failed)
        return 0;
    if (*elem_type > TC_STRUCT || *elem_type == TC_STOP) {
        tcr_fail(r, "unknown list element type");
        return 0;
    }
    /* Every element occupies at least one byte, so a count beyond the
     * bytes left is a lie; refusing it bounds any allocation by it. */
    if (n > (uint64_t)(r->end - r->p)) {
        tcr_fail(r, "list longer than the metadata");
        return 0;
    }
    return (size_t)n;
}

void tcr_skip(struct tc_reader *r, enum tc_type type)
{
    switch (type) {
    case TC_TRUE:
    case TC_FALSE: return; /* the value was in the field header */
    case TC_BYTE: get_byte(r); return;
    case TC_I16:
    case TC_I32:
    case TC_I64: get_varint(r); return;
    case TC_DOUBLE:
        if (r->end - r->p < 8)
            tcr_fail(r, "metadata ends early");
        else
            r->p += 8;
        return;
    case TC_BINARY: {
        size_t len;
        tcr_binary(r, &len);
        return;
    }
    case TC_LIST:
    case TC_SET: {
        enum tc_type et;
        size_t n = tcr_list(r, &et);
        if (r->depth + 1 >= TC_MAX_DEPTH) {
            tcr_fail(r, "metadata nested too deeply");
            return;
        }
        r->depth++; /* nesting guard only: lists have no field ids */
        for (size_t i = 0; i < n && !r->failed; i++) {
            if (et == TC_TRUE || et == TC_FALSE)
                get_byte(r);
            else
                tcr_skip(r, et);
        }
        r->depth--;
        return;
    }
    case TC_MAP: {
        uint64_t n = get_varint(r);
        if (r->failed)
            return;
        if (n == 0)
            return;
        uint8_t kv = get_byte(r);
        if (n > (uint64_t)(r->end - r->p)) {
            tcr_fail(r, "map longer than the metadata");
            return;
        }
        enum tc_type kt = (enum tc_type)(kv >> 4), vt = (enum tc_type)(kv & 0x0f);
        if (r->depth + 1 >= TC_MAX_DEPTH) {
            tcr_fail(r, "metadata nested too deeply");
            return;
        }
        r->depth++;
        for (uint64_t i = 0; i < n && !r->failed; i++) {
            if (kt == TC_TRUE || kt == TC_FALSE)
                get_byte(r);
            else
                tcr_skip(r, kt);
            if (vt == TC_TRUE || vt == TC_FALSE)
                get_byte(r);
            else
                tcr_skip(r, vt);
        }
        r->depth--;
        return;
    }
    case TC_STRUCT: {
        tcr_struct_begin(r);
        int16_t id;
        enum tc_type t;
        while (tcr_field(r, &id, &t))
            tcr_skip(r, t);
        tcr_struct_end(r);
        return;
    }
    case TC_STOP: break;
    }
    tcr_fail(r, "cannot skip an unknown type");
}

bool tcr_expect(struct tc_reader *r, enum tc_type got, enum tc_type want)
{
    bool ok = got == want || (want == TC_TRUE && got == TC_FALSE);
    if (!ok)
        tcr_fail(r, "a metadata field has the wrong type");
    return ok;
}
