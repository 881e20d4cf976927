/* The stored form of a file's column statistics (column_stats.h). */
#include "server/store/column_stats.h"

#include <stdlib.h>

enum {
    FLAG_NAN = 1,
    FLAG_SIZE = 2,
    FLAG_LOWER = 4,
    FLAG_UPPER = 8,
    FLAGS_KNOWN = FLAG_NAN | FLAG_SIZE | FLAG_LOWER | FLAG_UPPER,
    VARINT_MAX = 10, /* 64 bits in 7-bit groups */
};

static int varint_put(struct buf *out, uint64_t v)
{
    uint8_t b[VARINT_MAX];
    size_t n = 0;
    do {
        b[n] = (uint8_t)(v & 127);
        v >>= 7;
        b[n] |= v ? 128 : 0;
        n++;
    } while (v);
    return buf_append(out, b, n);
}

static int cmp_field(const void *a, const void *b)
{
    int64_t x = ((const struct store_column_stats *)a)->field_id;
    int64_t y = ((const struct store_column_stats *)b)->field_id;
    return (x > y) - (x < y);
}

static bool column_valid(const struct store_column_stats *c)
{
    return c->field_id >= 0 && c->value_count >= 0 && c->null_count >= 0 &&
           (!c->has_nan_count || c->nan_count >= 0) && (!c->has_size_bytes || c->size_bytes >= 0);
}

static int column_put(struct buf *out, const struct store_column_stats *c)
{
    uint8_t flags =
        (uint8_t)((c->has_nan_count ? FLAG_NAN : 0) | (c->has_size_bytes ? FLAG_SIZE : 0) |
                  (c->lower ? FLAG_LOWER : 0) | (c->upper ? FLAG_UPPER : 0));
    int bad = buf_append(out, &flags, 1);
    bad |= varint_put(out, (uint64_t)c->field_id);
    bad |= varint_put(out, (uint64_t)c->value_count);
    bad |= varint_put(out, (uint64_t)c->null_count);
    if (c->has_nan_count)
        bad |= varint_put(out, (uint64_t)c->nan_count);
    if (c->has_size_bytes)
        bad |= varint_put(out, (uint64_t)c->size_bytes);
    if (c->lower)
        bad |= varint_put(out, c->lower_len) | buf_append(out, c->lower, c->lower_len);
    if (c->upper)
        bad |= varint_put(out, c->upper_len) | buf_append(out, c->upper, c->upper_len);
    return bad ? -1 : 0;
}

int store_column_stats_encode(struct store_column_stats *cols, size_t n, struct buf *out,
                              struct error *err)
{
    if (n > 1)
        qsort(cols, n, sizeof *cols, cmp_field);
    for (size_t i = 0; i < n; i++) {
        if (!column_valid(&cols[i]))
            return error_fail(err, ERR_INVALID,
                              "column statistics of field %lld: negative id or count",
                              (long long)cols[i].field_id);
        if (i > 0 && cols[i].field_id == cols[i - 1].field_id)
            return error_fail(err, ERR_INVALID, "column statistics name field %lld twice",
                              (long long)cols[i].field_id);
    }
    uint8_t version = STORE_COLUMN_STATS_VERSION;
    if (buf_append(out, &version, 1) != 0)
        return error_nomem(err);
    for (size_t i = 0; i < n; i++)
        if (column_put(out, &cols[i]) != 0)
            return error_nomem(err);
    return 0;
}

int store_column_stats_open(struct store_column_stats_reader *r, const uint8_t *data, size_t n,
                            struct error *err)
{
    r->at = data;
    r->end = data + n;
    if (n == 0)
        return 0;
    if (data[0] != STORE_COLUMN_STATS_VERSION)
        return error_fail(err, ERR_CORRUPT, "column statistics: unknown version %u",
                          (unsigned)data[0]);
    r->at++;
    return 0;
}

/* A varint that fits int64: false when it runs past the end or over. */
static bool varint_get(struct store_column_stats_reader *r, int64_t *v)
{
    uint64_t acc = 0;
    for (unsigned shift = 0; shift < 64 && r->at < r->end; shift += 7) {
        uint8_t b = *r->at++;
        uint64_t group = b & 127;
        if (shift == 63 && group > 0)
            return false; /* past INT64_MAX */
        acc |= group << shift;
        if (!(b & 128)) {
            *v = (int64_t)acc;
            return true;
        }
    }
    return false;
}

static bool bound_get(struct store_column_stats_reader *r, const uint8_t **b, size_t *len)
{
    int64_t n;
    if (!varint_get(r, &n) || n > r->end - r->at)
        return false;
    *b = r->at;
    *len = (size_t)n;
    r->at += n;
    return true;
}

int store_column_stats_next(struct store_column_stats_reader *r, struct store_column_stats *out,
                            struct error *err)
{
    if (r->at >= r->end)
        return 0;
    uint8_t flags = *r->at++;
    *out = (struct store_column_stats){
        .has_nan_count = flags & FLAG_NAN,
        .has_size_bytes = flags & FLAG_SIZE,
    };
    bool ok = !(flags & ~FLAGS_KNOWN) && varint_get(r, &out->field_id) &&
              varint_get(r, &out->value_count) && varint_get(r, &out->null_count) &&
              (!out->has_nan_count || varint_get(r, &out->nan_count)) &&
              (!out->has_size_bytes || varint_get(r, &out->size_bytes)) &&
              (!(flags & FLAG_LOWER) || bound_get(r, &out->lower, &out->lower_len)) &&
              (!(flags & FLAG_UPPER) || bound_get(r, &out->upper, &out->upper_len));
    if (!ok) {
        r->at = r->end;
        return error_fail(err, ERR_CORRUPT, "column statistics: a truncated or unreadable column");
    }
    return 1;
}
