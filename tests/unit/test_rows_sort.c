/* rows_take and rows_sort: every format taken with nulls and offsets at
 * every level (checked through the JSON Lines renderer against the source
 * text), multi-batch takes, sort keys of every comparable type against a
 * reference comparator written here on random data, float and decimal
 * edge orders, stability, refused keys, and a taken batch through a real
 * Parquet file. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "pq_testlib.h"
#include "rows/rows_filter.h"
#include "rows/rows_schema.h"
#include "rows/rows_sort.h"
#include "textio/textio_parse.h"
#include "textio/textio_render.h"
#include "textio/textio_schema.h"
#include "util/arrow.h"

/* ---- batches from text, and back ---- */

/* A batch's rows as JSON Lines. */
static char *render(const struct ArrowSchema *schema, const struct ArrowArray *batch)
{
    struct error err;
    struct textio_render *r;
    if (textio_render_new(schema, TEXTIO_JSONL, &r, &err) != 0)
        fail_msg("%s", err.msg);
    struct buf text = BUF_INIT;
    for (int64_t i = 0; i < batch->length; i++)
        if (textio_render_row(r, batch, i, &text, &err) != 0)
            fail_msg("render: %s", err.msg);
    textio_render_free(r);
    char *s = buf_take(&text);
    return s ? s : strdup("");
}

/* Line i of text (without its newline), copied. */
static char *line_of(const char *text, size_t i)
{
    const char *p = text;
    for (; i > 0; i--)
        p = strchr(p, '\n') + 1;
    return strndup(p, (size_t)(strchr(p, '\n') - p));
}

static size_t count_lines(const char *text)
{
    size_t n = 0;
    for (const char *p = text; (p = strchr(p, '\n')); p++)
        n++;
    return n;
}

/* ---- the same values at non-zero offsets ---- */

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    assert_non_null(p);
    return p;
}

/* Bytes per slot of a fixed-width format; 0 for the others. */
static size_t slot_bytes(const char *f)
{
    if (strchr("uUzZb+", f[0]))
        return 0;
    if (f[0] == 'w')
        return (size_t)atoi(f + 2);
    if (f[0] == 'd')
        return 16;
    if (strcmp(f, "tdD") == 0 || f[0] == 'f' || f[0] == 'i' || f[0] == 'I')
        return 4;
    if (f[0] == 's' || f[0] == 'S')
        return 2;
    if (f[0] == 'c' || f[0] == 'C')
        return 1;
    return 8;
}

/* A deep copy of src (offset 0) whose slot i sits at physical slot
 * lead + i, where lead = parent_extra + a random own offset: the logical
 * index a parent passes down is parent_extra + i. Padding slots hold
 * garbage, and validity bits there are random. */
static void pad_copy(const struct ArrowSchema *s, const struct ArrowArray *src,
                     int64_t parent_extra, struct rng *g, struct ArrowArray *out)
{
    assert_int_equal(src->offset, 0);
    int64_t own = (int64_t)rng_below(g, 4), lead = parent_extra + own, n = src->length;
    size_t slots = (size_t)(lead + n);
    assert_int_equal(arrow_array_init(out, src->n_buffers, src->n_children), 0);
    out->offset = own;
    out->length = n + parent_extra;
    const char *f = s->format;
    const uint8_t *sv = src->null_count ? src->buffers[0] : NULL;
    if (sv || rng_below(g, 2)) {
        uint8_t *v = xmalloc(slots / 8 + 1);
        for (size_t i = 0; i < slots / 8 + 1; i++)
            v[i] = (uint8_t)rng_next(g);
        for (int64_t i = 0; i < n; i++)
            arrow_set_bit(v, lead + i, !sv || arrow_bit(sv, i));
        arrow_array_own_buffer(out, 0, v);
        out->null_count = -1; /* unknown: readers must look */
    }
    size_t w = slot_bytes(f);
    if (w) {
        uint8_t *v = xmalloc(slots * w);
        for (size_t i = 0; i < (size_t)lead * w; i++)
            v[i] = (uint8_t)rng_next(g);
        memcpy(v + (size_t)lead * w, src->buffers[1], (size_t)n * w);
        arrow_array_own_buffer(out, 1, v);
    } else if (strcmp(f, "b") == 0) {
        uint8_t *v = xmalloc(slots / 8 + 1);
        for (size_t i = 0; i < slots / 8 + 1; i++)
            v[i] = (uint8_t)rng_next(g);
        for (int64_t i = 0; i < n; i++)
            arrow_set_bit(v, lead + i, arrow_bit(src->buffers[1], i));
        arrow_array_own_buffer(out, 1, v);
    } else if (strcmp(f, "u") == 0 || strcmp(f, "z") == 0) {
        /* One garbage byte per padding slot. */
        const int32_t *so = src->buffers[1];
        int32_t *o = xmalloc((slots + 1) * sizeof *o);
        for (int64_t i = 0; i <= lead; i++)
            o[i] = (int32_t)i;
        for (int64_t i = 0; i <= n; i++)
            o[lead + i] = (int32_t)lead + so[i];
        uint8_t *d = xmalloc((size_t)o[slots]);
        memset(d, '#', (size_t)lead);
        memcpy(d + lead, src->buffers[2], (size_t)so[n]);
        arrow_array_own_buffer(out, 1, o);
        arrow_array_own_buffer(out, 2, d);
    } else if (strcmp(f, "+s") == 0) {
        for (int64_t k = 0; k < s->n_children; k++)
            pad_copy(s->children[k], src->children[k], lead, g, out->children[k]);
    } else {
        /* +l / +m: element j of the source sits at child index extra + j. */
        assert_true(strcmp(f, "+l") == 0 || strcmp(f, "+m") == 0);
        int64_t extra = (int64_t)rng_below(g, 3);
        const int32_t *so = src->buffers[1];
        int32_t *o = xmalloc((slots + 1) * sizeof *o);
        for (int64_t i = 0; i < lead; i++)
            o[i] = 0;
        for (int64_t i = 0; i <= n; i++)
            o[lead + i] = (int32_t)extra + so[i];
        arrow_array_own_buffer(out, 1, o);
        pad_copy(s->children[0], src->children[0], extra, g, out->children[0]);
    }
}

/* A batch like src with offsets at every level. */
static void pad_batch(const struct ArrowSchema *s, const struct ArrowArray *src, struct rng *g,
                      struct ArrowArray *out)
{
    pad_copy(s, src, 0, g, out);
    out->null_count = 0;
    arrow_array_own_buffer(out, 0, NULL);
}

/* Floats and doubles from edge values: zeros of both signs, infinities,
 * subnormals, NaNs of both signs and with payloads. */
static void set_floats(struct ArrowArray *col, const char *format, struct rng *g)
{
    static const double specials[] = {0.0, -0.0, 1.5, -1.5, INFINITY, -INFINITY, 1e-310, -2.0};
    for (int64_t i = 0; i < col->length; i++) {
        double d = specials[rng_below(g, 8)];
        uint64_t k = rng_below(g, 10);
        if (k == 0)
            d = NAN;
        else if (k == 1)
            d = -NAN;
        if (format[0] == 'f') {
            float fl = (float)d;
            if (k == 2) { /* a NaN with a payload */
                uint32_t bits = 0x7fc01234;
                memcpy(&fl, &bits, 4);
            }
            ((float *)col->buffers[1])[i] = fl;
        } else {
            if (k == 2) {
                uint64_t bits = 0xfff8000000abcdefULL;
                memcpy(&d, &bits, 8);
            }
            ((double *)col->buffers[1])[i] = d;
        }
    }
}

/* A table, its Arrow schema, and batches: each kept as made (plain, for
 * the expectations) and copied with offsets at every level (padded, for
 * the module under test). */
enum { FIX_MAX = 4 };
struct fix {
    struct test_table tt;
    struct ArrowSchema schema;
    struct ArrowArray plain[FIX_MAX], padded[FIX_MAX];
    const struct ArrowArray *pl[FIX_MAX], *pd[FIX_MAX];
    size_t n;
    struct rng g;
};

/* spec: a compact column spec, or ColumnDef JSON with single quotes. */
static void fix_open(struct fix *f, const char *spec, uint64_t seed)
{
    memset(f, 0, sizeof *f);
    f->g.state = seed;
    if (spec[0] == '[') {
        test_table_init(&f->tt, spec);
    } else {
        arena_init(&f->tt.arena, 0);
        lake_table_init(&f->tt.t, &f->tt.arena);
        f->tt.t.name = "t";
        struct error err;
        if (textio_table_from_spec(spec, &f->tt.t, &err) != 0)
            fail_msg("schema '%s': %s", spec, err.msg);
    }
    assert_int_equal(rows_table_arrow_schema(&f->tt.t, &f->schema), 0);
}

/* Takes over batch as the next one. */
static void fix_add(struct fix *f, struct ArrowArray *batch)
{
    assert_true(f->n < FIX_MAX);
    arrow_array_move(batch, &f->plain[f->n]);
    pad_batch(&f->schema, &f->plain[f->n], &f->g, &f->padded[f->n]);
    f->pl[f->n] = &f->plain[f->n];
    f->pd[f->n] = &f->padded[f->n];
    f->n++;
}

/* A batch of JSON Lines (each line ending in \n). */
static void fix_rows(struct fix *f, const char *text)
{
    struct error err;
    struct textio_parser *p;
    if (textio_parser_new(&f->tt.t, &p, &err) != 0)
        fail_msg("%s", err.msg);
    for (const char *line = text; *line;) {
        const char *nl = strchr(line, '\n');
        assert_non_null(nl);
        if (textio_parser_json_row(p, line, (size_t)(nl - line), &err) != 0)
            fail_msg("row: %s", err.msg);
        line = nl + 1;
    }
    struct ArrowSchema s;
    struct ArrowArray b;
    if (textio_parser_take(p, &s, &b, &err) != 0)
        fail_msg("take: %s", err.msg);
    textio_parser_free(p);
    s.release(&s);
    fix_add(f, &b);
}

/* A random batch of n rows (floats and doubles drawn from edge values). */
static void fix_gen(struct fix *f, int64_t n, const struct gen_options *o)
{
    struct ArrowSchema s;
    struct ArrowArray b;
    gen_batch(&f->tt.t, n, o, &f->g, &s, &b);
    for (int64_t k = 0; k < s.n_children; k++)
        if (strcmp(s.children[k]->format, "f") == 0 || strcmp(s.children[k]->format, "g") == 0)
            set_floats(b.children[k], s.children[k]->format, &f->g);
    s.release(&s);
    fix_add(f, &b);
}

static void fix_close(struct fix *f)
{
    for (size_t i = 0; i < f->n; i++) {
        f->plain[i].release(&f->plain[i]);
        f->padded[i].release(&f->padded[i]);
    }
    f->schema.release(&f->schema);
    test_table_release(&f->tt);
}

/* ---- take ---- */

static const char every_type[] =
    "id:long!, b:boolean, i8:int8, i16:int16, i32:int, i64:long, u8:uint8, u16:uint16, "
    "u32:uint32, u64:uint64, f:float, d:double, dec:decimal(38,10), dt:date, tm:time, "
    "tms:timestamp_ms, tus:timestamp, tns:timestamp_ns, tz:timestamptz, s:string, j:json, "
    "u:uuid, bin:binary, tags:list<string>, m:map<string,long>, st:struct<a:int,b:string>, "
    "deep:list<struct<x:map<string,list<int>>,y:boolean>>";

static const char every_rows[] =
    "{\"id\":1,\"b\":true,\"i8\":-128,\"i16\":-32768,\"i32\":-2147483648,"
    "\"i64\":-9223372036854775808,\"u8\":255,\"u16\":65535,\"u32\":4294967295,"
    "\"u64\":18446744073709551615,\"f\":1.5,\"d\":-0.0,\"dec\":\"-1.5000000000\","
    "\"dt\":\"2024-02-29\",\"tm\":\"12:00:00.000001\",\"tms\":\"2024-01-01T00:00:00.001\","
    "\"tus\":\"2024-01-01T00:00:00.000001\",\"tns\":\"2024-01-01T00:00:00.000000001\","
    "\"tz\":\"2024-01-02T03:04:05.123456Z\",\"s\":\"h\xc3\xa9llo\",\"j\":\"{\\\"a\\\":1}\","
    "\"u\":\"00112233-4455-6677-8899-aabbccddeeff\",\"bin\":\"AP8=\",\"tags\":[\"a\",null,\"c\"],"
    "\"m\":{\"k\":1,\"l\":null},\"st\":{\"a\":7,\"b\":\"x\"},"
    "\"deep\":[{\"x\":{\"p\":[1,null,3],\"q\":null},\"y\":true},null,{\"x\":null,\"y\":null}]}\n"
    "{\"id\":2,\"b\":null,\"i8\":null,\"i16\":null,\"i32\":null,\"i64\":null,\"u8\":null,"
    "\"u16\":null,\"u32\":null,\"u64\":null,\"f\":null,\"d\":null,\"dec\":null,\"dt\":null,"
    "\"tm\":null,\"tms\":null,\"tus\":null,\"tns\":null,\"tz\":null,\"s\":null,\"j\":null,"
    "\"u\":null,\"bin\":null,\"tags\":null,\"m\":null,\"st\":null,\"deep\":null}\n"
    "{\"id\":3,\"b\":false,\"i8\":127,\"i16\":32767,\"i32\":2147483647,"
    "\"i64\":9223372036854775807,\"u8\":0,\"u16\":0,\"u32\":0,\"u64\":0,\"f\":\"NaN\","
    "\"d\":\"-Infinity\",\"dec\":\"9999999999999999999999999999.9999999999\","
    "\"dt\":\"1970-01-01\",\"tm\":\"23:59:59.999999\",\"tms\":\"1969-12-31T23:59:59.999\","
    "\"tus\":\"1969-12-31T23:59:59.999999\",\"tns\":\"1969-12-31T23:59:59.999999999\","
    "\"tz\":\"1969-12-31T23:59:59.999999Z\",\"s\":\"\",\"j\":\"[]\","
    "\"u\":\"ffffffff-ffff-ffff-ffff-ffffffffffff\",\"bin\":\"\",\"tags\":[],\"m\":{},"
    "\"st\":{\"a\":null,\"b\":null},\"deep\":[]}\n"
    "{\"id\":4,\"b\":true,\"i8\":0,\"i16\":1,\"i32\":2,\"i64\":3,\"u8\":4,\"u16\":5,\"u32\":6,"
    "\"u64\":7,\"f\":-0.0,\"d\":2.5e-300,\"dec\":\"0E-10\",\"dt\":\"1900-03-01\","
    "\"tm\":\"00:00:00.000000\",\"tms\":\"2262-04-11T23:47:16.854\","
    "\"tus\":\"0001-01-01T00:00:00.000000\",\"tns\":\"2262-04-11T23:47:16.854775807\","
    "\"tz\":\"9999-12-31T23:59:59.999999Z\",\"s\":\"\xf0\x9f\x98\x80 long enough to matter\","
    "\"j\":\"null\",\"u\":\"00000000-0000-0000-0000-000000000000\",\"bin\":\"AAAA\","
    "\"tags\":[null],\"m\":{\"z\":-1},\"st\":{\"a\":-7,\"b\":\"\"},"
    "\"deep\":[{\"x\":{},\"y\":false}]}\n"
    "{\"id\":5,\"b\":false,\"i8\":1,\"i16\":null,\"i32\":3,\"i64\":null,\"u8\":5,\"u16\":null,"
    "\"u32\":7,\"u64\":null,\"f\":\"-Infinity\",\"d\":\"NaN\",\"dec\":null,\"dt\":\"2000-01-01\","
    "\"tm\":null,\"tms\":null,\"tus\":\"2000-01-01T00:00:00.000000\",\"tns\":null,\"tz\":null,"
    "\"s\":\"x\",\"j\":null,\"u\":null,\"bin\":\"/w==\",\"tags\":[\"\",\"e\"],\"m\":null,"
    "\"st\":{\"a\":null,\"b\":\"only b\"},\"deep\":null}\n";

/* Takes refs from the fixture's padded batches and checks the result
 * renders as want. */
static void expect_take(struct fix *f, const struct rows_ref *refs, size_t n, const char *want)
{
    struct error err;
    struct ArrowArray out;
    if (rows_take(&f->schema, f->pd, f->n, refs, n, &out, &err) != 0)
        fail_msg("take: %s", err.msg);
    assert_int_equal(out.length, (int64_t)n);
    assert_int_equal(out.offset, 0);
    char *got = render(&f->schema, &out);
    if (strcmp(got, want) != 0)
        fail_msg("got:\n%s\nwant:\n%s", got, want);
    free(got);
    out.release(&out);
}

/* Random refs into the fixture's batches (m of them, repeats allowed) and
 * the text they should take, from the batches' rendered lines. */
static char *random_refs(struct fix *f, char *const *texts, struct rows_ref *refs, size_t m)
{
    struct buf want = BUF_INIT;
    for (size_t i = 0; i < m; i++) {
        uint32_t b = (uint32_t)rng_below(&f->g, f->n);
        refs[i] = (struct rows_ref){b, (uint32_t)rng_below(&f->g, (uint64_t)f->plain[b].length)};
        char *l = line_of(texts[b], refs[i].row);
        assert_int_equal(buf_puts(&want, l), 0);
        assert_int_equal(buf_putc(&want, '\n'), 0);
        free(l);
    }
    char *w = buf_take(&want);
    return w ? w : strdup("");
}

static void take_every_type(void **state)
{
    (void)state;
    struct rng g = {42};
    for (int round = 0; round < 20; round++) {
        struct fix f;
        fix_open(&f, every_type, rng_next(&g));
        fix_rows(&f, every_rows);
        char *want = render(&f.schema, &f.plain[0]);
        assert_int_equal(count_lines(want), 5);
        /* The padding keeps the values. */
        char *seen = render(&f.schema, &f.padded[0]);
        assert_string_equal(seen, want);
        free(seen);
        /* All rows in order; then random rows. */
        struct rows_ref refs[12];
        for (uint32_t i = 0; i < 5; i++)
            refs[i] = (struct rows_ref){0, i};
        expect_take(&f, refs, 5, want);
        size_t m = (size_t)rng_below(&g, 13);
        char *pw = random_refs(&f, &want, refs, m);
        expect_take(&f, refs, m, pw);
        free(pw);
        free(want);
        fix_close(&f);
    }
}

static void take_many_batches(void **state)
{
    (void)state;
    struct fix f;
    fix_open(&f, every_type, 7);
    /* Three batches: rows 0-1, 2, 3-4. */
    const size_t cuts[] = {0, 2, 3, 5};
    char *texts[3];
    for (int b = 0; b < 3; b++) {
        struct buf t = BUF_INIT;
        for (size_t i = cuts[b]; i < cuts[b + 1]; i++) {
            char *l = line_of(every_rows, i);
            assert_int_equal(buf_puts(&t, l), 0);
            assert_int_equal(buf_putc(&t, '\n'), 0);
            free(l);
        }
        char *tt = buf_take(&t);
        fix_rows(&f, tt);
        free(tt);
        texts[b] = render(&f.schema, &f.plain[b]);
    }
    for (int round = 0; round < 20; round++) {
        struct rows_ref refs[16];
        size_t m = 1 + (size_t)rng_below(&f.g, 16);
        char *w = random_refs(&f, texts, refs, m);
        expect_take(&f, refs, m, w);
        free(w);
    }
    /* No rows, from no batches: an empty batch of every column. */
    struct error err;
    struct ArrowArray out;
    assert_int_equal(rows_take(&f.schema, NULL, 0, NULL, 0, &out, &err), 0);
    assert_int_equal(out.length, 0);
    assert_int_equal(out.n_children, f.schema.n_children);
    out.release(&out);
    struct rows_sort_key key = {{0}, 1, false, false};
    assert_int_equal(rows_sort(&f.schema, NULL, 0, &key, 1, NULL, 0, &err), 0);
    /* References out of range are refused. */
    struct rows_ref bad = {3, 0};
    assert_int_equal(rows_take(&f.schema, f.pd, 3, &bad, 1, &out, &err), -1);
    assert_int_equal(err.code, ERR_INVALID);
    bad = (struct rows_ref){1, 1};
    assert_int_equal(rows_take(&f.schema, f.pd, 3, &bad, 1, &out, &err), -1);
    assert_int_equal(err.code, ERR_INVALID);
    assert_non_null(strstr(err.msg, "out of range"));
    for (int b = 0; b < 3; b++)
        free(texts[b]);
    fix_close(&f);
}

/* ---- sort: a reference comparator ---- */

/* Key k's leaf in an unpadded batch (offset 0 everywhere): the array, and
 * whether row r is null through its struct parents. */
static const struct ArrowArray *leaf_of(const struct ArrowSchema *schema,
                                        const struct ArrowArray *batch,
                                        const struct rows_sort_key *k, int64_t r, bool *null,
                                        const char **format)
{
    const struct ArrowArray *a = batch;
    const struct ArrowSchema *s = schema;
    *null = false;
    for (int d = 0; d < k->depth; d++) {
        a = a->children[k->path[d]];
        s = s->children[k->path[d]];
        if (a->null_count && a->buffers[0] && !arrow_bit(a->buffers[0], r))
            *null = true;
    }
    *format = s->format;
    return a;
}

/* Floats: NaN above everything and equal to NaN; -0 below +0. */
static int ref_float(double x, double y)
{
    if (isnan(x) || isnan(y))
        return isnan(x) - isnan(y);
    if (x == 0 && y == 0)
        return (signbit(x) ? 0 : 1) - (signbit(y) ? 0 : 1);
    return (x > y) - (x < y);
}

/* Row i of array a against row j of array b (same format, offset 0). */
static int ref_value(const char *f, const struct ArrowArray *a, int64_t i,
                     const struct ArrowArray *b, int64_t j)
{
    const uint8_t *va = a->buffers[1], *vb = b->buffers[1];
    if (strcmp(f, "b") == 0)
        return (int)arrow_bit(va, i) - (int)arrow_bit(vb, j);
    if (strcmp(f, "u") == 0 || strcmp(f, "z") == 0) {
        const int32_t *oa = a->buffers[1], *ob = b->buffers[1];
        const uint8_t *da = a->buffers[2], *db = b->buffers[2];
        int32_t li = oa[i + 1] - oa[i], lj = ob[j + 1] - ob[j];
        for (int32_t k = 0; k < li && k < lj; k++)
            if (da[oa[i] + k] != db[ob[j] + k])
                return da[oa[i] + k] < db[ob[j] + k] ? -1 : 1;
        return (li > lj) - (li < lj);
    }
    if (f[0] == 'w') {
        size_t w = (size_t)atoi(f + 2);
        for (size_t k = 0; k < w; k++)
            if (va[(size_t)i * w + k] != vb[(size_t)j * w + k])
                return va[(size_t)i * w + k] < vb[(size_t)j * w + k] ? -1 : 1;
        return 0;
    }
    if (f[0] == 'd') {
        __int128 x, y;
        memcpy(&x, va + 16 * i, 16);
        memcpy(&y, vb + 16 * j, 16);
        return (x > y) - (x < y);
    }
    if (strcmp(f, "f") == 0)
        return ref_float(((const float *)va)[i], ((const float *)vb)[j]);
    if (strcmp(f, "g") == 0)
        return ref_float(((const double *)va)[i], ((const double *)vb)[j]);
    size_t w = slot_bytes(f);
    if (strchr("CSIL", f[0])) {
        uint64_t x = 0, y = 0;
        memcpy(&x, va + w * (size_t)i, w); /* little-endian */
        memcpy(&y, vb + w * (size_t)j, w);
        return (x > y) - (x < y);
    }
    int64_t x = 0, y = 0;
    memcpy(&x, va + w * (size_t)i, w);
    memcpy(&y, vb + w * (size_t)j, w);
    int shift = 64 - 8 * (int)w; /* sign-extend */
    x = (int64_t)((uint64_t)x << shift) >> shift;
    y = (int64_t)((uint64_t)y << shift) >> shift;
    return (x > y) - (x < y);
}

static int ref_compare(const struct fix *f, const struct rows_sort_key *keys, size_t nkeys,
                       struct rows_ref x, struct rows_ref y)
{
    for (size_t k = 0; k < nkeys; k++) {
        const struct rows_sort_key *key = &keys[k];
        bool nx, ny;
        const char *fmt;
        const struct ArrowArray *ax = leaf_of(&f->schema, f->pl[x.batch], key, x.row, &nx, &fmt);
        const struct ArrowArray *ay = leaf_of(&f->schema, f->pl[y.batch], key, y.row, &ny, &fmt);
        int r;
        if (nx && ny)
            r = 0;
        else if (nx || ny)
            r = nx == key->nulls_first ? -1 : 1;
        else
            r = ref_value(fmt, ax, x.row, ay, y.row) * (key->descending ? -1 : 1);
        if (r)
            return r;
    }
    return 0;
}

/* Sorts distinct refs into the padded batches and checks against the
 * reference on the plain ones: a permutation, ordered, and equal rows in
 * their input order. */
static void check_sort(const struct fix *f, const struct rows_sort_key *keys, size_t nkeys,
                       struct rows_ref *refs, size_t n)
{
    struct rows_ref *before = xmalloc(n * sizeof *before);
    memcpy(before, refs, n * sizeof *refs);
    struct error err;
    if (rows_sort(&f->schema, f->pd, f->n, keys, nkeys, refs, n, &err) != 0)
        fail_msg("sort: %s", err.msg);
    /* Each output row's input position (refs are distinct rows). */
    size_t *pos = xmalloc(n * sizeof *pos);
    bool *used = calloc(n ? n : 1, 1);
    assert_non_null(used);
    for (size_t i = 0; i < n; i++) {
        size_t k = 0;
        while (k < n && !(before[k].batch == refs[i].batch && before[k].row == refs[i].row))
            k++;
        assert_true(k < n && !used[k]);
        used[k] = true;
        pos[i] = k;
    }
    for (size_t i = 1; i < n; i++) {
        int r = ref_compare(f, keys, nkeys, refs[i - 1], refs[i]);
        if (r > 0 || (r == 0 && pos[i - 1] > pos[i]))
            fail_msg("rows %zu and %zu out of order (%d)", i - 1, i, r);
    }
    free(used);
    free(pos);
    free(before);
}

/* Every row of the fixture's batches, shuffled. */
static struct rows_ref *all_refs(struct fix *f, size_t *n)
{
    *n = 0;
    for (size_t b = 0; b < f->n; b++)
        *n += (size_t)f->plain[b].length;
    struct rows_ref *refs = xmalloc(*n * sizeof *refs);
    size_t at = 0;
    for (size_t b = 0; b < f->n; b++)
        for (int64_t r = 0; r < f->plain[b].length; r++)
            refs[at++] = (struct rows_ref){(uint32_t)b, (uint32_t)r};
    for (size_t i = *n; i > 1; i--) {
        size_t j = (size_t)rng_below(&f->g, i);
        struct rows_ref t = refs[i - 1];
        refs[i - 1] = refs[j];
        refs[j] = t;
    }
    return refs;
}

static const char sortable[] =
    "[{'name':'b','type':'boolean'},{'name':'i8','type':'int8'},"
    "{'name':'i16','type':'int16'},{'name':'i32','type':'int'},{'name':'i64','type':'long'},"
    "{'name':'u8','type':'uint8'},{'name':'u16','type':'uint16'},"
    "{'name':'u32','type':'uint32'},{'name':'u64','type':'uint64'},"
    "{'name':'f','type':'float'},{'name':'d','type':'double'},"
    "{'name':'dec','type':'decimal','type_params':{'precision':38,'scale':4}},"
    "{'name':'dt','type':'date'},{'name':'tm','type':'time'},"
    "{'name':'tms','type':'timestamp_ms'},{'name':'ts','type':'timestamp'},"
    "{'name':'tns','type':'timestamp_ns'},{'name':'tz','type':'timestamptz'},"
    "{'name':'s','type':'string'},{'name':'bin','type':'binary'},{'name':'u','type':'uuid'},"
    "{'name':'st','type':'struct','children':[{'name':'x','type':'int'},"
    "{'name':'y','type':'string'}]}]";

/* Random keys over every comparable type (the struct's fields by path),
 * on random batches with many ties. */
static void sort_property(void **state)
{
    (void)state;
    struct rng g = {2024};
    for (int round = 0; round < 60; round++) {
        struct fix f;
        fix_open(&f, sortable, rng_next(&g));
        struct gen_options o = {(int)rng_below(&g, 400), 0, 3, rng_below(&g, 3) != 0};
        for (int b = 0; b < 3; b++)
            fix_gen(&f, (int64_t)rng_below(&g, 120), &o);
        struct rows_sort_key keys[4];
        size_t nkeys = 1 + (size_t)rng_below(&g, 4);
        for (size_t k = 0; k < nkeys; k++) {
            int col = (int)rng_below(&g, 23);
            keys[k] = (struct rows_sort_key){{col < 21 ? col : 21, col - 21},
                                             col < 21 ? 1 : 2,
                                             rng_below(&g, 2) != 0,
                                             rng_below(&g, 2) != 0};
        }
        size_t n;
        struct rows_ref *refs = all_refs(&f, &n);
        check_sort(&f, keys, nkeys, refs, n);
        free(refs);
        fix_close(&f);
    }
}

/* Values whose order the first bytes or the low word do not settle:
 * strings sharing long prefixes (of one length and of many), decimals
 * past 64 bits, uuids sharing a prefix; each key alone and after
 * another, both directions, nulls both ends. */
static void sort_long_values(void **state)
{
    (void)state;
    static const char *const strs[] = {"\"shared-prefix-0001\"",  "\"shared-prefix-0002\"",
                                       "\"shared-prefix-00010\"", "\"shared-prefix-000\"",
                                       "\"shared-prefix-0001\"",  "\"shared-prefix-1\"",
                                       "\"shared-prefix-\"",      "null"};
    static const char *const same_len[] = {"\"id-000000000017\"", "\"id-000000000071\"",
                                           "\"id-000000000107\"", "\"id-000000001007\"", "null"};
    static const char *const decs[] = {"\"-99999999999999999999999999999999999999\"",
                                       "\"99999999999999999999999999999999999999\"",
                                       "\"18446744073709551616\"",
                                       "\"18446744073709551615\"",
                                       "\"-18446744073709551616\"",
                                       "\"9223372036854775808\"",
                                       "\"-9223372036854775809\"",
                                       "\"-1\"",
                                       "\"0\"",
                                       "null"};
    static const char *const uuids[] = {"\"01234567-89ab-cdef-0000-000000000001\"",
                                        "\"01234567-89ab-cdef-0000-000000000000\"",
                                        "\"01234567-89ab-cdef-0000-100000000000\"",
                                        "\"ffffffff-89ab-cdef-0000-000000000000\"", "null"};
    /* Binary with zero bytes: "", 00, 00 00, 01, 00 01, 00 00 00 00 00 00 00 00 00. */
    static const char *const bins[] = {"\"\"",     "\"AA==\"",         "\"AAA=\"", "\"AQ==\"",
                                       "\"AAE=\"", "\"AAAAAAAAAAAA\"", "null"};
    struct rng g = {31};
    for (int round = 0; round < 8; round++) {
        struct fix f;
        fix_open(&f, "s:string, e:string, dec:decimal(38,0), u:uuid, bin:binary", rng_next(&g));
        for (int b = 0; b < 2; b++) {
            struct buf text = BUF_INIT;
            for (int r = 0; r < 150; r++) {
                char line[400];
                snprintf(line, sizeof line, "{\"s\":%s,\"e\":%s,\"dec\":%s,\"u\":%s,\"bin\":%s}\n",
                         strs[rng_below(&g, 8)], same_len[rng_below(&g, 5)],
                         decs[rng_below(&g, 10)], uuids[rng_below(&g, 5)], bins[rng_below(&g, 7)]);
                assert_int_equal(buf_puts(&text, line), 0);
            }
            char *t = buf_take(&text);
            fix_rows(&f, t);
            free(t);
        }
        for (int col = 0; col < 5; col++) {
            struct rows_sort_key keys[2] = {
                {{(col + 1) % 5}, 1, rng_below(&g, 2) != 0, rng_below(&g, 2) != 0},
                {{col}, 1, rng_below(&g, 2) != 0, rng_below(&g, 2) != 0}};
            for (size_t nk = 1; nk <= 2; nk++) {
                size_t n;
                struct rows_ref *refs = all_refs(&f, &n);
                check_sort(&f, keys + 2 - nk, nk, refs, n);
                free(refs);
            }
        }
        fix_close(&f);
    }
}

/* Sorts all rows of f by one key and returns the taken rows' text. */
static char *sorted_text(struct fix *f, struct rows_sort_key key, struct rows_ref *refs, size_t n)
{
    struct error err;
    assert_int_equal(rows_sort(&f->schema, f->pd, f->n, &key, 1, refs, n, &err), 0);
    struct ArrowArray out;
    assert_int_equal(rows_take(&f->schema, f->pd, f->n, refs, n, &out, &err), 0);
    char *got = render(&f->schema, &out);
    out.release(&out);
    return got;
}

/* Rows of several batches interleave by value, ties in input order. */
static void sort_across_batches(void **state)
{
    (void)state;
    struct fix f;
    fix_open(&f, "k:string, v:long", 3);
    fix_rows(&f, "{\"k\":\"b\",\"v\":1}\n{\"k\":null,\"v\":2}\n{\"k\":\"a\",\"v\":3}\n"
                 "{\"k\":\"b\",\"v\":4}\n");
    fix_rows(&f, "{\"k\":\"ab\",\"v\":5}\n{\"k\":\"b\",\"v\":6}\n{\"k\":\"\",\"v\":7}\n");
    struct rows_ref refs[] = {{1, 0}, {0, 0}, {0, 1}, {1, 1}, {0, 2}, {0, 3}, {1, 2}};
    char *got = sorted_text(&f, (struct rows_sort_key){{0}, 1, false, false}, refs, 7);
    assert_string_equal(got, "{\"k\":\"\",\"v\":7}\n{\"k\":\"a\",\"v\":3}\n{\"k\":\"ab\",\"v\":5}\n"
                             "{\"k\":\"b\",\"v\":1}\n{\"k\":\"b\",\"v\":6}\n{\"k\":\"b\",\"v\":4}\n"
                             "{\"k\":null,\"v\":2}\n");
    free(got);
    /* Descending, nulls first: ties still in input order. */
    got = sorted_text(&f, (struct rows_sort_key){{0}, 1, true, true}, refs, 7);
    assert_string_equal(got,
                        "{\"k\":null,\"v\":2}\n{\"k\":\"b\",\"v\":1}\n{\"k\":\"b\",\"v\":6}\n"
                        "{\"k\":\"b\",\"v\":4}\n{\"k\":\"ab\",\"v\":5}\n{\"k\":\"a\",\"v\":3}\n"
                        "{\"k\":\"\",\"v\":7}\n");
    free(got);
    fix_close(&f);
}

/* The float order, value by value, both directions. */
static void sort_float_order(void **state)
{
    (void)state;
    struct fix f;
    fix_open(&f, "d:double, f:float", 11);
    fix_rows(&f, "{\"d\":\"NaN\",\"f\":\"NaN\"}\n{\"d\":0.0,\"f\":0.0}\n{\"d\":null,\"f\":null}\n"
                 "{\"d\":\"Infinity\",\"f\":\"Infinity\"}\n{\"d\":-0.0,\"f\":-0.0}\n"
                 "{\"d\":-1e300,\"f\":-3e38}\n{\"d\":\"-Infinity\",\"f\":\"-Infinity\"}\n"
                 "{\"d\":5e-324,\"f\":1e-45}\n{\"d\":1.0,\"f\":1.0}\n");
    for (int col = 0; col < 4; col++) {
        struct rows_ref refs[9];
        for (uint32_t i = 0; i < 9; i++)
            refs[i] = (struct rows_ref){0, i};
        bool desc = col >= 2;
        struct rows_sort_key key = {{col % 2}, 1, desc, false};
        struct error err;
        assert_int_equal(rows_sort(&f.schema, f.pd, 1, &key, 1, refs, 9, &err), 0);
        /* -Inf, -big, -0, +0, tiny, 1, +Inf, NaN; then null. */
        const uint32_t asc[] = {6, 5, 4, 1, 7, 8, 3, 0};
        for (int i = 0; i < 8; i++)
            assert_int_equal(refs[i].row, asc[desc ? 7 - i : i]);
        assert_int_equal(refs[8].row, 2);
    }
    fix_close(&f);
}

/* Nested keys and paths to nothing are refused, naming the column, and
 * refs stay as they were; a struct's leaf is a key. */
static void sort_refusals(void **state)
{
    (void)state;
    struct fix f;
    fix_open(&f, "id:long, st:struct<a:int,l:list<int>>, tags:list<string>, m:map<string,long>", 5);
    fix_rows(&f, "{\"id\":2,\"st\":{\"a\":1,\"l\":[1]},\"tags\":[\"x\"],\"m\":{}}\n"
                 "{\"id\":1,\"st\":null,\"tags\":null,\"m\":null}\n");
    struct rows_ref refs[] = {{0, 0}, {0, 1}};
    struct error err;
    const struct {
        struct rows_sort_key key;
        enum error_code want;
        const char *needle;
    } cases[] = {
        {{{1}, 1, false, false}, ERR_UNSUPPORTED, "'st' is a struct"},
        {{{2}, 1, false, false}, ERR_UNSUPPORTED, "'tags' is a list"},
        {{{3}, 1, false, false}, ERR_UNSUPPORTED, "'m' is a map"},
        {{{1, 1}, 2, false, false}, ERR_UNSUPPORTED, "'st.l' is a list"},
        {{{2, 0}, 2, false, false}, ERR_UNSUPPORTED, "only struct fields"},
        {{{4}, 1, false, false}, ERR_NOT_FOUND, "no field 4"},
        {{{1, 2}, 2, false, false}, ERR_NOT_FOUND, "'st' has no field 2"},
        {{{0}, 0, false, false}, ERR_NOT_FOUND, "depth 0"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        err = (struct error){0};
        assert_int_equal(rows_sort(&f.schema, f.pd, 1, &cases[i].key, 1, refs, 2, &err), -1);
        assert_int_equal(err.code, cases[i].want);
        if (!strstr(err.msg, cases[i].needle))
            fail_msg("case %zu: '%s' lacks '%s'", i, err.msg, cases[i].needle);
        assert_int_equal(refs[0].row, 0);
    }
    /* The struct's leaf sorts, a null struct making it null. */
    struct rows_sort_key leaf = {{1, 0}, 2, false, false};
    assert_int_equal(rows_sort(&f.schema, f.pd, 1, &leaf, 1, refs, 2, &err), 0);
    assert_int_equal(refs[0].row, 0);
    leaf.nulls_first = true;
    assert_int_equal(rows_sort(&f.schema, f.pd, 1, &leaf, 1, refs, 2, &err), 0);
    assert_int_equal(refs[0].row, 1);
    /* A reference past a batch. */
    struct rows_ref bad = {0, 2};
    struct rows_sort_key id = {{0}, 1, false, false};
    assert_int_equal(rows_sort(&f.schema, f.pd, 1, &id, 1, &bad, 1, &err), -1);
    assert_int_equal(err.code, ERR_INVALID);
    fix_close(&f);
}

/* A table's sort fields as keys: index paths through structs; nested
 * columns, fields inside lists and maps, and unknown ids refused. */
static void keys_from_fields(void **state)
{
    (void)state;
    struct fix f;
    fix_open(&f,
             "id:long, st:struct<a:int, b:struct<c:string>>, l:list<struct<x:int>>, "
             "m:map<string,long>, z:date",
             17);
    fix_rows(&f, "{\"id\":1,\"st\":{\"a\":1,\"b\":{\"c\":\"q\"}},\"z\":\"2024-01-02\"}\n"
                 "{\"id\":2,\"st\":{\"a\":1,\"b\":null},\"z\":\"2024-01-01\"}\n"
                 "{\"id\":3,\"st\":{\"a\":0,\"b\":{\"c\":\"p\"}},\"z\":null}\n");
    struct lake_column *const *top = f.tt.t.root.children;
    const struct {
        const struct lake_column *column;
        int depth, path[3];
        enum error_code want;
    } cases[] = {
        {top[4], 1, {4}, ERR_OK},
        {top[1]->children[1]->children[0], 3, {1, 1, 0}, ERR_OK},
        {top[1]->children[0], 2, {1, 0}, ERR_OK},
        {top[1]->children[1], 0, {0}, ERR_UNSUPPORTED},
        {top[2], 0, {0}, ERR_UNSUPPORTED},
        {top[2]->children[0]->children[0], 0, {0}, ERR_UNSUPPORTED},
        {top[3]->children[0], 0, {0}, ERR_UNSUPPORTED},
    };
    struct error err;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const struct lake_column *c = cases[i].column;
        char name[200];
        lake_column_path(c, name, sizeof name);
        struct lake_sort_field sf = {c->field_id, true, i % 2 == 0};
        struct rows_sort_key key;
        err = (struct error){0};
        assert_int_equal(rows_sort_key_for_field(&f.tt.t, &sf, &key, &err),
                         cases[i].want == ERR_OK ? 0 : -1);
        if (cases[i].want != ERR_OK) {
            assert_int_equal(err.code, cases[i].want);
            if (!strstr(err.msg, name))
                fail_msg("'%s' lacks '%s'", err.msg, name);
            continue;
        }
        assert_int_equal(key.depth, cases[i].depth);
        for (int d = 0; d < key.depth; d++)
            assert_int_equal(key.path[d], cases[i].path[d]);
        assert_true(key.descending);
        assert_int_equal(key.nulls_first, i % 2 == 0);
        size_t n;
        struct rows_ref *refs = all_refs(&f, &n);
        check_sort(&f, &key, 1, refs, n);
        free(refs);
    }
    struct lake_sort_field none = {999, false, false};
    struct rows_sort_key key;
    assert_int_equal(rows_sort_key_for_field(&f.tt.t, &none, &key, &err), -1);
    assert_int_equal(err.code, ERR_NOT_FOUND);
    assert_non_null(strstr(err.msg, "no field 999"));
    fix_close(&f);
}

/* Sorted, taken rows are a batch the Parquet writer takes, and read back
 * equal. */
static void sort_take_parquet(void **state)
{
    (void)state;
    struct fix f;
    fix_open(&f, pq_nested_table, 99);
    struct gen_options o = {150, 4, 12, false};
    fix_gen(&f, 300, &o);
    fix_gen(&f, 200, &o);
    size_t n;
    struct rows_ref *refs = all_refs(&f, &n);
    struct rows_sort_key key = {{0}, 1, true, false};
    check_sort(&f, &key, 1, refs, n);
    struct error err;
    struct ArrowArray out;
    if (rows_take(&f.schema, f.pd, f.n, refs, n, &out, &err) != 0)
        fail_msg("take: %s", err.msg);
    /* What was taken is what was referenced... */
    char *texts[] = {render(&f.schema, &f.plain[0]), render(&f.schema, &f.plain[1])};
    char *got = render(&f.schema, &out);
    for (size_t i = 0; i < n; i++) {
        char *w = line_of(texts[refs[i].batch], refs[i].row), *l = line_of(got, i);
        assert_string_equal(l, w);
        free(w);
        free(l);
    }
    /* ...and it survives the writer and the reader. */
    struct pq_write_options wo;
    pq_write_options_default(&wo);
    wo.row_group_bytes = 4096;
    struct buf file = BUF_INIT;
    struct pq_write_result res;
    write_batches(&f.tt.t, &wo, &f.schema, &out, 1, &file, &res);
    expect_file_equals(&f.tt.t, &file, &f.schema, &out, 1);
    pq_write_result_release(&res);
    buf_free(&file);
    free(texts[0]);
    free(texts[1]);
    free(got);
    free(refs);
    out.release(&out);
    fix_close(&f);
}

/* Many rows by (string, string, timestamp), as the exporter sorts: the
 * order checked, the time printed (speed is measured in Release by
 * bench/sort). */
static void sort_many_rows(void **state)
{
    (void)state;
    struct fix f;
    fix_open(&f, "a:string, b:string, t:timestamptz", 5);
    struct gen_options o = {20, 0, 6, false};
    fix_gen(&f, 50000, &o);
    struct rows_sort_key keys[] = {
        {{0}, 1, false, true}, {{1}, 1, true, false}, {{2}, 1, false, false}};
    size_t n;
    struct rows_ref *refs = all_refs(&f, &n);
    struct error err;
    clock_t t0 = clock();
    assert_int_equal(rows_sort(&f.schema, f.pd, 1, keys, 3, refs, n, &err), 0);
    print_message("sorted %zu rows in %.3f s\n", n, (double)(clock() - t0) / CLOCKS_PER_SEC);
    for (size_t i = 1; i < n; i++)
        assert_true(ref_compare(&f, keys, 3, refs[i - 1], refs[i]) <= 0);
    free(refs);
    fix_close(&f);
}

/* rows_filter and rows_drop_deleted keep exactly the rows they should,
 * in order, from a batch with offsets at every level; keeping every row
 * leaves the batch itself in place. */
static void filter_and_drop(void **state)
{
    (void)state;
    struct rng g = {7};
    for (int round = 0; round < 20; round++) {
        struct fix f;
        fix_open(&f, every_type, rng_next(&g));
        fix_rows(&f, every_rows);
        char *all = render(&f.schema, &f.plain[0]);
        uint8_t keep[5];
        struct buf want = BUF_INIT;
        struct lake_dv dv;
        lake_dv_init(&dv);
        struct error err;
        const uint64_t first = 1000 * (uint64_t)round; /* the batch's first position */
        for (size_t i = 0; i < 5; i++) {
            keep[i] = (uint8_t)rng_below(&g, 2);
            char *line = line_of(all, i);
            if (keep[i]) {
                assert_int_equal(buf_puts(&want, line), 0);
                assert_int_equal(buf_puts(&want, "\n"), 0);
            } else {
                uint64_t pos = first + i;
                assert_int_equal(lake_dv_add(&dv, &pos, 1, &err), 0);
            }
            free(line);
        }
        const char *want_text = want.data ? want.data : "";
        struct ArrowArray b;
        pad_copy(&f.schema, &f.plain[0], 0, &f.g, &b);
        const void *before = b.private_data;
        assert_int_equal(rows_filter(&f.schema, &b, keep, &err), 0);
        char *got = render(&f.schema, &b);
        assert_string_equal(got, want_text);
        assert_true((b.private_data == before) == (dv.n == 0));
        free(got);
        b.release(&b);
        /* Positions outside the batch are not its rows. */
        const uint64_t outside[2] = {first + 5, first ? first - 1 : first + 6};
        assert_int_equal(lake_dv_add(&dv, outside, 2, &err), 0);
        pad_copy(&f.schema, &f.plain[0], 0, &f.g, &b);
        uint64_t dropped = 0;
        assert_int_equal(rows_drop_deleted(&f.schema, &b, first, &dv, &dropped, &err), 0);
        got = render(&f.schema, &b);
        assert_string_equal(got, want_text);
        assert_int_equal(dropped, dv.n - 2);
        free(got);
        b.release(&b);
        lake_dv_free(&dv);
        buf_free(&want);
        free(all);
        fix_close(&f);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(take_every_type),     cmocka_unit_test(take_many_batches),
        cmocka_unit_test(sort_property),       cmocka_unit_test(sort_long_values),
        cmocka_unit_test(sort_across_batches), cmocka_unit_test(sort_float_order),
        cmocka_unit_test(sort_refusals),       cmocka_unit_test(keys_from_fields),
        cmocka_unit_test(sort_take_parquet),   cmocka_unit_test(sort_many_rows),
        cmocka_unit_test(filter_and_drop),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
