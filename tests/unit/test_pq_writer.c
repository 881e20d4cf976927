/* The Parquet writer's promises beyond round-tripping values: statistics
 * under each type's ordering, extremes, the page index, dictionary
 * fallback, sizing of row groups and pages, key-value metadata, the
 * footer handed back in parsed form, and refusal of bad batches. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "parquet/encoding.h"
#include "pq_testlib.h"
#include "util/arrow.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

enum { N = 6 };
static const bool last_null[N] = {true, true, true, true, true, false};

static const char extremes_table[] =
    "[{'name':'i64','type':'long'},{'name':'i32','type':'int'},{'name':'i8','type':'int8'},"
    " {'name':'i16','type':'int16'},{'name':'u8','type':'uint8'},{'name':'u16','type':'uint16'},"
    " {'name':'u32','type':'uint32'},{'name':'u64','type':'uint64'},"
    " {'name':'f32','type':'float'},{'name':'f64','type':'double'},"
    " {'name':'zeros','type':'double'},{'name':'nans','type':'double'},"
    " {'name':'dec','type':'decimal','type_params':{'precision':38,'scale':0}},"
    " {'name':'dec9','type':'decimal','type_params':{'precision':9,'scale':2}},"
    " {'name':'s','type':'string'},{'name':'bin','type':'binary'},"
    " {'name':'tss','type':'timestamp_s'},{'name':'b','type':'boolean'}]";

static __int128 dec38_max(void)
{
    __int128 v = 1;
    for (int i = 0; i < 38; i++)
        v *= 10;
    return v - 1;
}

struct extremes {
    struct ArrowSchema schema;
    struct ArrowArray batch;
};

static void build_extremes(struct extremes *x)
{
    struct ArrowSchema s[18];
    struct ArrowArray a[18];
    int k = 0;
    const int64_t i64[N] = {INT64_MIN, INT64_MAX, 0, -1, 1, 0};
    col_fixed(&s[k], &a[k], "i64", "l", i64, 8, N, last_null), k++;
    const int32_t i32[N] = {INT32_MIN, INT32_MAX, 0, -1, 1, 0};
    col_fixed(&s[k], &a[k], "i32", "i", i32, 4, N, last_null), k++;
    const int8_t i8[N] = {INT8_MIN, INT8_MAX, 0, -1, 1, 0};
    col_fixed(&s[k], &a[k], "i8", "c", i8, 1, N, last_null), k++;
    const int16_t i16[N] = {INT16_MIN, INT16_MAX, 0, -1, 1, 0};
    col_fixed(&s[k], &a[k], "i16", "s", i16, 2, N, last_null), k++;
    const uint8_t u8[N] = {0, UINT8_MAX, 1, 128, 127, 0};
    col_fixed(&s[k], &a[k], "u8", "C", u8, 1, N, last_null), k++;
    const uint16_t u16[N] = {0, UINT16_MAX, 1, 32768, 32767, 0};
    col_fixed(&s[k], &a[k], "u16", "S", u16, 2, N, last_null), k++;
    const uint32_t u32[N] = {0, UINT32_MAX, 1, 1u << 31, (1u << 31) - 1, 0};
    col_fixed(&s[k], &a[k], "u32", "I", u32, 4, N, last_null), k++;
    const uint64_t u64[N] = {0, UINT64_MAX, 1, 1ull << 63, (1ull << 63) - 1, 0};
    col_fixed(&s[k], &a[k], "u64", "L", u64, 8, N, last_null), k++;
    const float f32[N] = {-INFINITY, INFINITY, NAN, -0.0f, 1.5f, 0};
    col_fixed(&s[k], &a[k], "f32", "f", f32, 4, N, last_null), k++;
    const double f64[N] = {-INFINITY, INFINITY, NAN, -0.0, 1.5, 0};
    col_fixed(&s[k], &a[k], "f64", "g", f64, 8, N, last_null), k++;
    const double zeros[N] = {0.0, -0.0, NAN, 0.0, -0.0, 0};
    col_fixed(&s[k], &a[k], "zeros", "g", zeros, 8, N, last_null), k++;
    const double nans[N] = {NAN, -NAN, NAN, NAN, NAN, 0};
    col_fixed(&s[k], &a[k], "nans", "g", nans, 8, N, last_null), k++;
    const __int128 dec[N] = {-dec38_max(), dec38_max(), 0, -1, 1, 0};
    col_fixed(&s[k], &a[k], "dec", "d:38,0", dec, 16, N, last_null), k++;
    const __int128 dec9[N] = {-999999999, 999999999, 0, -1, 1, 0};
    col_fixed(&s[k], &a[k], "dec9", "d:9,2", dec9, 16, N, last_null), k++;
    const char *const str[N] = {
        "", "\xe6\x97\xa5\xe6\x9c\xac", "\xc3\xa9", "\xf0\x9f\x98\x80", "abc", ""};
    col_bytes(&s[k], &a[k], "s", "u", str, NULL, N, last_null), k++;
    const char *const bin[N] = {"\0", "\xff", "", "\0\1", "\x7f", ""};
    const size_t bin_len[N] = {1, 1, 0, 2, 1, 0};
    col_bytes(&s[k], &a[k], "bin", "z", bin, bin_len, N, last_null), k++;
    const int64_t tss[N] = {INT64_MIN / 1000, INT64_MAX / 1000, 0, -1, 1, 0};
    col_fixed(&s[k], &a[k], "tss", "tss:", tss, 8, N, last_null), k++;
    const uint8_t b[N] = {1, 0, 1, 1, 1, 0};
    col_fixed(&s[k], &a[k], "b", "b", b, 1, N, last_null), k++;
    batch_of(&x->schema, &x->batch, s, a, k, N);
}

static const struct pq_statistics *stats_of(const struct pq_file_meta *m, const char *name)
{
    const struct pq_row_group *rg = &m->row_groups[0];
    for (size_t c = 0; c < rg->ncolumns; c++) {
        const struct pq_column_meta *cm = &rg->columns[c].meta;
        if (cm->npath == 1 && strcmp(cm->path[0], name) == 0) {
            assert_true(cm->has_statistics);
            return &cm->statistics;
        }
    }
    fail_msg("no column %s", name);
    return NULL;
}

static void expect_bound(const struct pq_statistics *st, bool is_min, const void *want, size_t len)
{
    bool has = is_min ? st->has_min : st->has_max;
    const uint8_t *v = is_min ? st->min : st->max;
    uint32_t vlen = is_min ? st->min_len : st->max_len;
    assert_true(has);
    assert_int_equal(vlen, len);
    assert_memory_equal(v, want, len);
}

#define EXPECT_MIN_MAX(m, name, type, lo, hi)                                                      \
    do {                                                                                           \
        const struct pq_statistics *st_ = stats_of(m, name);                                       \
        type lo_ = (lo), hi_ = (hi);                                                               \
        assert_true(st_->has_null_count);                                                          \
        assert_int_equal(st_->null_count, 1);                                                      \
        expect_bound(st_, true, &lo_, sizeof lo_);                                                 \
        expect_bound(st_, false, &hi_, sizeof hi_);                                                \
    } while (0)

/* A decimal's big-endian bytes, as its FIXED_LEN_BYTE_ARRAY holds it. */
static void be_bytes(__int128 v, uint8_t *out, int width)
{
    for (int i = width - 1; i >= 0; i--) {
        out[i] = (uint8_t)(v & 0xff);
        v >>= 8;
    }
}

static void test_extremes_and_statistics(void **state)
{
    (void)state;
    struct test_table tt;
    test_table_init(&tt, extremes_table);
    struct extremes x;
    build_extremes(&x);
    struct pq_write_options o;
    pq_write_options_default(&o);
    for (int dict = 0; dict < 2; dict++) {
        o.dictionary = dict;
        struct buf file = BUF_INIT;
        struct pq_write_result res;
        write_batches(&tt.t, &o, &x.schema, &x.batch, 1, &file, &res);
        expect_file_equals(&tt.t, &file, &x.schema, &x.batch, 1);

        const struct pq_file_meta *m = &res.meta;
        EXPECT_MIN_MAX(m, "i64", int64_t, INT64_MIN, INT64_MAX);
        EXPECT_MIN_MAX(m, "i32", int32_t, INT32_MIN, INT32_MAX);
        EXPECT_MIN_MAX(m, "i8", int32_t, INT8_MIN, INT8_MAX);
        EXPECT_MIN_MAX(m, "i16", int32_t, INT16_MIN, INT16_MAX);
        EXPECT_MIN_MAX(m, "u8", int32_t, 0, UINT8_MAX);
        EXPECT_MIN_MAX(m, "u16", int32_t, 0, UINT16_MAX);
        EXPECT_MIN_MAX(m, "u32", int64_t, 0, UINT32_MAX);
        /* Unsigned order: UINT64_MAX (all ones) is the maximum. */
        EXPECT_MIN_MAX(m, "u64", uint64_t, 0, UINT64_MAX);
        /* NaN never bounds; infinities do. */
        EXPECT_MIN_MAX(m, "f32", float, -INFINITY, INFINITY);
        EXPECT_MIN_MAX(m, "f64", double, -INFINITY, INFINITY);
        /* Zero bounds: -0.0 as the minimum, +0.0 as the maximum. */
        const struct pq_statistics *z = stats_of(m, "zeros");
        double zmin, zmax;
        memcpy(&zmin, z->min, 8);
        memcpy(&zmax, z->max, 8);
        assert_true(zmin == 0.0 && signbit(zmin));
        assert_true(zmax == 0.0 && !signbit(zmax));
        /* All NaN: no bounds at all. */
        const struct pq_statistics *nan = stats_of(m, "nans");
        assert_false(nan->has_min || nan->has_max);
        assert_int_equal(nan->null_count, 1);
        /* Decimals by value, big-endian in the column's width. */
        uint8_t lo[16], hi[16];
        be_bytes(-dec38_max(), lo, 16);
        be_bytes(dec38_max(), hi, 16);
        expect_bound(stats_of(m, "dec"), true, lo, 16);
        expect_bound(stats_of(m, "dec"), false, hi, 16);
        be_bytes(-999999999, lo, 4);
        be_bytes(999999999, hi, 4);
        expect_bound(stats_of(m, "dec9"), true, lo, 4);
        expect_bound(stats_of(m, "dec9"), false, hi, 4);
        /* Byte arrays compare as unsigned bytes: "" < "abc" < é < 日本 < 😀. */
        expect_bound(stats_of(m, "s"), true, "", 0);
        expect_bound(stats_of(m, "s"), false, "\xf0\x9f\x98\x80", 4);
        expect_bound(stats_of(m, "bin"), true, "", 0);
        expect_bound(stats_of(m, "bin"), false, "\xff", 1);
        /* Seconds are stored (and bounded) as milliseconds. */
        EXPECT_MIN_MAX(m, "tss", int64_t, INT64_MIN / 1000 * 1000, INT64_MAX / 1000 * 1000);
        EXPECT_MIN_MAX(m, "b", uint8_t, 0, 1);

        pq_write_result_release(&res);
        buf_free(&file);
    }
    x.batch.release(&x.batch);
    x.schema.release(&x.schema);
    test_table_release(&tt);
}

/* Chunk statistics over random data equal the bounds computed here, with
 * and without dictionaries, over enough rows that the dictionaries of
 * distinct values give up (and their columns go PLAIN), and with several
 * rows that are NaN. */
static void statistics_match_data(bool dictionary)
{
    struct test_table tt;
    test_table_init(&tt, "[{'name':'l','type':'long'},{'name':'d','type':'double'},"
                         "{'name':'s','type':'string'},{'name':'u','type':'uint64'}]");
    struct gen_options gen = {.null_per_mille = 100, .max_string_len = 6};
    struct rng g = {77};
    struct ArrowSchema s;
    struct ArrowArray a;
    gen_batch(&tt.t, 30000, &gen, &g, &s, &a);
    double *dv = (double *)a.children[1]->buffers[1];
    for (int i = 0; i < 30000; i += 97)
        dv[i] = NAN;
    struct pq_write_options o;
    pq_write_options_default(&o);
    o.dictionary = dictionary;
    o.page_bytes = 16 * 1024;
    struct buf file = BUF_INIT;
    struct pq_write_result res;
    write_batches(&tt.t, &o, &s, &a, 1, &file, &res);
    assert_int_equal(res.meta.nrow_groups, 1);

    int64_t lmin = INT64_MAX, lmax = INT64_MIN, nulls[4] = {0};
    double dmin = INFINITY, dmax = -INFINITY;
    uint64_t umin = UINT64_MAX, umax = 0;
    const uint8_t *smin = NULL, *smax = NULL;
    int32_t sminl = 0, smaxl = 0;
    for (int64_t i = 0; i < a.length; i++) {
        for (int c = 0; c < 4; c++) {
            const struct ArrowArray *col = a.children[c];
            if (col->buffers[0] && !arrow_bit(col->buffers[0], i)) {
                nulls[c]++;
                continue;
            }
            if (c == 0) {
                int64_t v = ((const int64_t *)col->buffers[1])[i];
                lmin = v < lmin ? v : lmin;
                lmax = v > lmax ? v : lmax;
            } else if (c == 1) {
                double v = ((const double *)col->buffers[1])[i];
                if (!isnan(v)) {
                    dmin = v < dmin ? v : dmin;
                    dmax = v > dmax ? v : dmax;
                }
            } else if (c == 2) {
                const int32_t *off = col->buffers[1];
                const uint8_t *p = (const uint8_t *)col->buffers[2] + off[i];
                int32_t len = off[i + 1] - off[i];
                struct {
                    const uint8_t **v;
                    int32_t *l;
                    int sign;
                } bounds[2] = {{&smin, &sminl, -1}, {&smax, &smaxl, 1}};
                for (int b = 0; b < 2; b++) {
                    if (!*bounds[b].v) {
                        *bounds[b].v = p;
                        *bounds[b].l = len;
                        continue;
                    }
                    int32_t n = len < *bounds[b].l ? len : *bounds[b].l;
                    int r = memcmp(p, *bounds[b].v, (size_t)n);
                    if (r == 0)
                        r = (len > *bounds[b].l) - (len < *bounds[b].l);
                    if (r * bounds[b].sign > 0) {
                        *bounds[b].v = p;
                        *bounds[b].l = len;
                    }
                }
            } else {
                uint64_t v = ((const uint64_t *)col->buffers[1])[i];
                umin = v < umin ? v : umin;
                umax = v > umax ? v : umax;
            }
        }
    }
    const char *names[] = {"l", "d", "s", "u"};
    for (int c = 0; c < 4; c++)
        assert_int_equal(stats_of(&res.meta, names[c])->null_count, nulls[c]);
    expect_bound(stats_of(&res.meta, "l"), true, &lmin, 8);
    expect_bound(stats_of(&res.meta, "l"), false, &lmax, 8);
    expect_bound(stats_of(&res.meta, "d"), true, &dmin, 8);
    expect_bound(stats_of(&res.meta, "d"), false, &dmax, 8);
    expect_bound(stats_of(&res.meta, "s"), true, smin, (size_t)sminl);
    expect_bound(stats_of(&res.meta, "s"), false, smax, (size_t)smaxl);
    expect_bound(stats_of(&res.meta, "u"), true, &umin, 8);
    expect_bound(stats_of(&res.meta, "u"), false, &umax, 8);

    pq_write_result_release(&res);
    buf_free(&file);
    a.release(&a);
    s.release(&s);
    test_table_release(&tt);
}

static void test_statistics_match_data(void **state)
{
    (void)state;
    statistics_match_data(true);
    statistics_match_data(false);
}

/* The footer handed back is the footer written: re-encoding it gives the
 * file's footer bytes, and the footer-only readers decode the same. */
static void test_footer_in_parsed_form(void **state)
{
    (void)state;
    struct test_table tt;
    test_table_init(&tt, extremes_table);
    struct extremes x;
    build_extremes(&x);
    struct pq_key_value kv[] = {{"hoglake.test", "yes"}, {"empty", NULL}};
    struct pq_write_options o;
    pq_write_options_default(&o);
    o.kv = kv;
    o.nkv = ARRAY_LEN(kv);
    struct buf file = BUF_INIT;
    struct pq_write_result res;
    write_batches(&tt.t, &o, &x.schema, &x.batch, 1, &file, &res);

    const uint8_t *bytes = (const uint8_t *)file.data;
    uint32_t flen;
    memcpy(&flen, bytes + file.len - 8, 4);
    assert_int_equal(flen, res.footer_size);
    assert_memory_equal(bytes + file.len - 4, "PAR1", 4);
    struct buf enc = BUF_INIT;
    assert_int_equal(pq_encode_file_meta(&res.meta, &enc), 0);
    assert_int_equal(enc.len, flen);
    assert_memory_equal(enc.data, bytes + file.len - 8 - flen, flen);

    struct arena a;
    arena_init(&a, 0);
    struct pq_source src;
    pq_source_memory(&src, file.data, file.len);
    struct pq_file_meta m;
    uint32_t got_len;
    struct error err = {0};
    assert_int_equal(pq_read_footer(&src, &a, &m, &got_len, &err), 0);
    assert_int_equal(got_len, flen);
    buf_reset(&enc);
    assert_int_equal(pq_encode_file_meta(&m, &enc), 0);
    assert_memory_equal(enc.data, bytes + file.len - 8 - flen, flen);
    assert_int_equal(m.nkv, 2);
    assert_string_equal(m.kv[0].key, "hoglake.test");
    assert_string_equal(m.kv[0].value, "yes");
    assert_null(m.kv[1].value);
    assert_non_null(m.created_by);
    assert_int_equal(m.ncolumn_orders, 18);

    struct pq_file_meta m2;
    assert_int_equal(
        pq_parse_footer_tail(bytes + file.len - 8 - flen, flen + 8, &a, &m2, &got_len, &err), 0);
    assert_int_equal(m2.num_rows, N);
    /* Every element carries its column's field id. */
    for (size_t i = 1; i < m2.nschema; i++) {
        assert_true(m2.schema[i].has_field_id);
        assert_int_equal(m2.schema[i].field_id, (int32_t)i);
    }

    arena_free(&a);
    buf_free(&enc);
    pq_write_result_release(&res);
    buf_free(&file);
    x.batch.release(&x.batch);
    x.schema.release(&x.schema);
    test_table_release(&tt);
}

static const struct pq_column_chunk *chunk_of(const struct pq_file_meta *m, size_t g,
                                              const char *name)
{
    const struct pq_row_group *rg = &m->row_groups[g];
    for (size_t c = 0; c < rg->ncolumns; c++)
        if (strcmp(rg->columns[c].meta.path[0], name) == 0)
            return &rg->columns[c];
    fail_msg("no column %s", name);
    return NULL;
}

/* A sorted column cut into many pages: the offset index locates each page
 * (its header decodes there, sizes add up, first rows follow the page
 * value counts) and the column index bounds each page exactly. */
static void test_page_index(void **state)
{
    (void)state;
    struct test_table tt;
    test_table_init(&tt, "[{'name':'seq','type':'long','nullable':false},"
                         "{'name':'s','type':'string'}]");
    enum { ROWS = 20000 };
    int64_t *seq = malloc(ROWS * sizeof *seq);
    const char **strs = malloc(ROWS * sizeof *strs);
    char(*text)[16] = malloc(ROWS * sizeof *text);
    assert_true(seq && strs && text);
    for (int i = 0; i < ROWS; i++) {
        seq[i] = (int64_t)i * 3 - 1000;
        snprintf(text[i], sizeof text[i], "k%07d", i);
        strs[i] = text[i];
    }
    struct ArrowSchema cs[2], s;
    struct ArrowArray ca[2], a;
    col_fixed(&cs[0], &ca[0], "seq", "l", seq, 8, ROWS, NULL);
    col_bytes(&cs[1], &ca[1], "s", "u", strs, NULL, ROWS, NULL);
    batch_of(&s, &a, cs, ca, 2, ROWS);
    struct pq_write_options o;
    pq_write_options_default(&o);
    o.page_bytes = 4096;
    o.dictionary = false;
    struct buf file = BUF_INIT;
    struct pq_write_result res;
    write_batches(&tt.t, &o, &s, &a, 1, &file, &res);

    const uint8_t *bytes = (const uint8_t *)file.data;
    const struct pq_column_chunk *cc = chunk_of(&res.meta, 0, "seq");
    assert_true(cc->has_offset_index && cc->has_column_index);
    struct arena ar;
    arena_init(&ar, 0);
    struct pq_offset_index oi;
    struct pq_column_index ci;
    struct error err = {0};
    assert_int_equal(pq_decode_offset_index(bytes + cc->offset_index_offset,
                                            (size_t)cc->offset_index_length, &ar, &oi, &err),
                     0);
    assert_int_equal(pq_decode_column_index(bytes + cc->column_index_offset,
                                            (size_t)cc->column_index_length, &ar, &ci, &err),
                     0);
    /* 20000 8-byte values in 4 KiB pages: about 40 pages. */
    assert_true(oi.npages >= 30 && oi.npages <= 60);
    assert_int_equal(ci.npages, oi.npages);
    assert_int_equal(ci.boundary_order, PQ_ASCENDING);
    assert_int_equal(oi.pages[0].offset, cc->meta.data_page_offset);
    int64_t row = 0, total = 0;
    for (size_t p = 0; p < oi.npages; p++) {
        const struct pq_page_location *loc = &oi.pages[p];
        assert_int_equal(loc->first_row_index, row);
        struct pq_page_header h;
        size_t hl;
        assert_int_equal(pq_decode_page_header(bytes + loc->offset, file.len - (size_t)loc->offset,
                                               NULL, &h, &hl, &err),
                         0);
        assert_int_equal(h.type, PQ_DATA_PAGE);
        assert_int_equal((int64_t)hl + h.compressed_size, loc->compressed_page_size);
        if (p + 1 < oi.npages)
            assert_int_equal(loc->offset + loc->compressed_page_size, oi.pages[p + 1].offset);
        int64_t first = seq[row], last = seq[row + h.num_values - 1];
        assert_false(ci.null_pages[p]);
        assert_int_equal(ci.min_lens[p], 8);
        assert_memory_equal(ci.min_values[p], &first, 8);
        assert_memory_equal(ci.max_values[p], &last, 8);
        row += h.num_values;
        total += loc->compressed_page_size;
    }
    assert_int_equal(row, ROWS);
    assert_int_equal(total, cc->meta.total_compressed_size);

    arena_free(&ar);
    pq_write_result_release(&res);
    buf_free(&file);
    a.release(&a);
    s.release(&s);
    free(seq);
    free(strs);
    free(text);
    test_table_release(&tt);
}

static bool has_encoding(const struct pq_column_meta *m, int e)
{
    for (size_t i = 0; i < m->nencodings; i++)
        if (m->encodings[i] == e)
            return true;
    return false;
}

/* Low-cardinality data is dictionary-encoded; a dictionary outgrowing its
 * limit falls back to PLAIN in the same chunk, and both read back. */
static void test_dictionary_and_fallback(void **state)
{
    (void)state;
    struct test_table tt;
    test_table_init(&tt, "[{'name':'few','type':'string'},{'name':'many','type':'string'}]");
    enum { ROWS = 30000 };
    const char **few = malloc(ROWS * sizeof *few), **many = malloc(ROWS * sizeof *many);
    char(*text)[24] = malloc(ROWS * sizeof *text);
    static const char *const words[] = {"alpha", "beta", "gamma", "delta"};
    for (int i = 0; i < ROWS; i++) {
        few[i] = words[i % 4];
        snprintf(text[i], sizeof text[i], "unique-%d", i * 7919);
        many[i] = text[i];
    }
    struct ArrowSchema cs[2], s;
    struct ArrowArray ca[2], a;
    col_bytes(&cs[0], &ca[0], "few", "u", few, NULL, ROWS, NULL);
    col_bytes(&cs[1], &ca[1], "many", "u", many, NULL, ROWS, NULL);
    batch_of(&s, &a, cs, ca, 2, ROWS);
    struct pq_write_options o;
    pq_write_options_default(&o);
    o.dictionary_bytes = 16 * 1024;
    o.page_bytes = 8 * 1024;
    struct buf file = BUF_INIT;
    struct pq_write_result res;
    write_batches(&tt.t, &o, &s, &a, 1, &file, &res);
    const struct pq_column_meta *mf = &chunk_of(&res.meta, 0, "few")->meta;
    const struct pq_column_meta *mm = &chunk_of(&res.meta, 0, "many")->meta;
    assert_true(mf->has_dictionary_page_offset);
    assert_true(has_encoding(mf, PQ_ENC_RLE_DICTIONARY));
    assert_false(has_encoding(mf, PQ_ENC_PLAIN_DICTIONARY));
    assert_true(mm->has_dictionary_page_offset);
    assert_true(has_encoding(mm, PQ_ENC_RLE_DICTIONARY));
    assert_true(has_encoding(mm, PQ_ENC_PLAIN)); /* the fallback */
    /* The dictionary-encoded chunk is far smaller. */
    assert_true(mf->total_uncompressed_size * 10 < mm->total_uncompressed_size);
    struct ArrowArray batch = a;
    expect_file_equals(&tt.t, &file, &s, &batch, 1);

    pq_write_result_release(&res);
    buf_free(&file);
    a.release(&a);
    s.release(&s);
    free(few);
    free(many);
    free(text);
    test_table_release(&tt);
}

/* Counts a chunk's data pages by encoding. */
static void count_pages(const struct buf *file, const struct pq_column_meta *m, int *dict_pages,
                        int *plain_pages)
{
    *dict_pages = *plain_pages = 0;
    int64_t pos = m->has_dictionary_page_offset ? m->dictionary_page_offset : m->data_page_offset;
    int64_t end = pos + m->total_compressed_size;
    while (pos < end) {
        struct pq_page_header h;
        size_t hl;
        struct error err = {0};
        assert_int_equal(
            pq_decode_page_header(file->data + pos, (size_t)(end - pos), NULL, &h, &hl, &err), 0);
        if (h.type == PQ_DATA_PAGE) {
            *dict_pages += h.encoding == PQ_ENC_RLE_DICTIONARY;
            *plain_pages += h.encoding == PQ_ENC_PLAIN;
        }
        pos += (int64_t)hl + h.compressed_size;
    }
}

/* Every data page of the chunk is dictionary-encoded. */
static void expect_dictionary_only(const struct buf *file, const struct pq_column_meta *m)
{
    int dict_pages, plain_pages;
    count_pages(file, m, &dict_pages, &plain_pages);
    assert_true(dict_pages >= 1);
    assert_int_equal(plain_pages, 0);
}

/* The entries of a chunk's dictionary page. */
static int32_t dictionary_entries(const struct buf *file, const struct pq_column_meta *m)
{
    assert_true(m->has_dictionary_page_offset);
    struct pq_page_header h;
    size_t hl;
    struct error err = {0};
    int64_t pos = m->dictionary_page_offset;
    assert_int_equal(
        pq_decode_page_header(file->data + pos, file->len - (size_t)pos, NULL, &h, &hl, &err), 0);
    assert_int_equal(h.type, PQ_DICTIONARY_PAGE);
    return h.num_values;
}

/* Strings that differ from one another in a single byte, at every
 * position of every length from 0 to 40 (in the first word, a middle
 * one, the tail read as an overlapping word), each repeated in a shuffled
 * order between nulls: the dictionary holds each exactly once, and every
 * row reads back as written. */
static void test_dictionary_near_keys(void **state)
{
    (void)state;
    struct test_table tt;
    test_table_init(&tt, "[{'name':'s','type':'string'}]");
    enum { MAXLEN = 40, DISTINCT = (MAXLEN + 1) * (MAXLEN + 2) / 2, COPIES = 3 };
    enum { ROWS = DISTINCT * COPIES * 8 / 7 + 1 };
    static char keys[DISTINCT][MAXLEN];
    static size_t key_len[DISTINCT];
    size_t nkeys = 0;
    for (size_t len = 0; len <= MAXLEN; len++)
        for (size_t at = 0; at <= len; at++, nkeys++) {
            memset(keys[nkeys], 'k', len);
            if (at < len)
                keys[nkeys][at] = 'x'; /* at == len: the unchanged key */
            key_len[nkeys] = len;
        }
    assert_int_equal(nkeys, DISTINCT);
    size_t order[DISTINCT * COPIES];
    for (size_t i = 0; i < DISTINCT * COPIES; i++)
        order[i] = i % DISTINCT;
    struct rng g = {.state = 21};
    for (size_t i = DISTINCT * COPIES - 1; i > 0; i--) {
        size_t j = (size_t)rng_below(&g, i + 1), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    static const char *strings[ROWS];
    static size_t lens[ROWS];
    static bool valid[ROWS];
    size_t next = 0;
    for (int i = 0; i < ROWS; i++) {
        valid[i] = i % 8 != 7 && next < DISTINCT * COPIES;
        strings[i] = valid[i] ? keys[order[next]] : "";
        lens[i] = valid[i] ? key_len[order[next++]] : 0;
    }
    assert_int_equal(next, DISTINCT * COPIES);
    struct ArrowSchema cs, s;
    struct ArrowArray ca, a;
    col_bytes(&cs, &ca, "s", "u", strings, lens, ROWS, valid);
    batch_of(&s, &a, &cs, &ca, 1, ROWS);
    struct pq_write_options o;
    pq_write_options_default(&o);
    struct buf file = BUF_INIT;
    struct pq_write_result res;
    write_batches(&tt.t, &o, &s, &a, 1, &file, &res);
    const struct pq_column_meta *m = &chunk_of(&res.meta, 0, "s")->meta;
    assert_int_equal(dictionary_entries(&file, m), DISTINCT);
    expect_dictionary_only(&file, m);
    expect_file_equals(&tt.t, &file, &s, &a, 1);
    pq_write_result_release(&res);
    buf_free(&file);
    a.release(&a);
    s.release(&s);
    test_table_release(&tt);
}

/* Mostly distinct values stop dictionary encoding after a probe, however
 * large the dictionary budget; repeated values keep it. */
static void test_unique_values_skip_dictionary(void **state)
{
    (void)state;
    struct test_table tt;
    test_table_init(&tt, "[{'name':'id','type':'long'},{'name':'k','type':'long'}]");
    enum { ROWS = 200000 };
    int64_t *id = malloc(ROWS * sizeof *id), *k = malloc(ROWS * sizeof *k);
    for (int i = 0; i < ROWS; i++) {
        id[i] = (int64_t)i * 7 + 3;
        k[i] = i % 100;
    }
    struct ArrowSchema cs[2], s;
    struct ArrowArray ca[2], a;
    col_fixed(&cs[0], &ca[0], "id", "l", id, 8, ROWS, NULL);
    col_fixed(&cs[1], &ca[1], "k", "l", k, 8, ROWS, NULL);
    batch_of(&s, &a, cs, ca, 2, ROWS);
    struct pq_write_options o;
    pq_write_options_default(&o);
    o.dictionary_bytes = 64 * 1024 * 1024;
    struct buf file = BUF_INIT;
    struct pq_write_result res;
    write_batches(&tt.t, &o, &s, &a, 1, &file, &res);
    int dict_pages, plain_pages;
    count_pages(&file, &chunk_of(&res.meta, 0, "id")->meta, &dict_pages, &plain_pages);
    assert_int_equal(dict_pages, 1); /* the probe */
    assert_true(plain_pages >= 1);
    expect_dictionary_only(&file, &chunk_of(&res.meta, 0, "k")->meta);
    expect_file_equals(&tt.t, &file, &s, &a, 1);
    pq_write_result_release(&res);
    buf_free(&file);
    a.release(&a);
    s.release(&s);
    free(id);
    free(k);
    test_table_release(&tt);
}

/* A column asked for DELTA_BINARY_PACKED (by field id) is written so,
 * every page, with no dictionary; nulls and a shuffled permutation read
 * back; an INT64 column not asked for keeps its dictionary. */
static void test_delta_columns(void **state)
{
    (void)state;
    struct test_table tt;
    test_table_init(&tt, "[{'name':'row_id','type':'long'},{'name':'k','type':'long'}]");
    enum { ROWS = 50000 };
    int64_t *id = malloc(ROWS * sizeof *id), *k = malloc(ROWS * sizeof *k);
    bool *valid = malloc(ROWS * sizeof *valid);
    uint64_t rng = 42;
    for (int i = 0; i < ROWS; i++) {
        id[i] = i;
        k[i] = i % 10;
        valid[i] = i % 97 != 0;
    }
    for (int i = ROWS - 1; i > 0; i--) { /* a permutation, as row ids after a sort */
        rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
        int j = (int)((rng >> 33) % (uint64_t)(i + 1));
        int64_t t = id[i];
        id[i] = id[j];
        id[j] = t;
    }
    struct ArrowSchema cs[2], s;
    struct ArrowArray ca[2], a;
    col_fixed(&cs[0], &ca[0], "row_id", "l", id, 8, ROWS, valid);
    col_fixed(&cs[1], &ca[1], "k", "l", k, 8, ROWS, NULL);
    batch_of(&s, &a, cs, ca, 2, ROWS);
    struct pq_write_options o;
    pq_write_options_default(&o);
    o.page_bytes = 64 * 1024;
    const int32_t delta[] = {(int32_t)tt.t.root.children[0]->field_id};
    o.delta_field_ids = delta;
    o.ndelta = 1;
    struct buf file = BUF_INIT;
    struct pq_write_result res;
    write_batches(&tt.t, &o, &s, &a, 1, &file, &res);
    const struct pq_column_meta *m = &chunk_of(&res.meta, 0, "row_id")->meta;
    assert_true(has_encoding(m, PQ_ENC_DELTA_BINARY_PACKED));
    assert_false(has_encoding(m, PQ_ENC_PLAIN));
    assert_false(m->has_dictionary_page_offset);
    int dict_pages, plain_pages;
    count_pages(&file, m, &dict_pages, &plain_pages);
    assert_int_equal(dict_pages + plain_pages, 0);
    /* 16-bit deltas: well under the 8 bytes a PLAIN value takes. */
    assert_true(m->total_uncompressed_size < ROWS * 4);
    assert_true(chunk_of(&res.meta, 0, "k")->meta.has_dictionary_page_offset);
    expect_file_equals(&tt.t, &file, &s, &a, 1);
    pq_write_result_release(&res);
    buf_free(&file);
    a.release(&a);
    s.release(&s);
    free(id);
    free(k);
    free(valid);
    test_table_release(&tt);
}

/* A chunk with no values has no dictionary page and PLAIN-labelled
 * pages of levels only. */
static void test_all_null_chunk(void **state)
{
    (void)state;
    struct test_table tt;
    test_table_init(&tt, "[{'name':'s','type':'string'}]");
    enum { ROWS = 100 };
    const char *vals[ROWS];
    bool valid[ROWS];
    for (int i = 0; i < ROWS; i++) {
        vals[i] = "";
        valid[i] = false;
    }
    struct ArrowSchema cs, s;
    struct ArrowArray ca, a;
    col_bytes(&cs, &ca, "s", "u", vals, NULL, ROWS, valid);
    batch_of(&s, &a, &cs, &ca, 1, ROWS);
    struct buf file = BUF_INIT;
    struct pq_write_result res;
    write_batches(&tt.t, NULL, &s, &a, 1, &file, &res);
    const struct pq_column_meta *m = &chunk_of(&res.meta, 0, "s")->meta;
    assert_false(m->has_dictionary_page_offset);
    assert_false(has_encoding(m, PQ_ENC_RLE_DICTIONARY));
    assert_int_equal(m->statistics.null_count, ROWS);
    assert_false(m->statistics.has_min || m->statistics.has_max);
    expect_file_equals(&tt.t, &file, &s, &a, 1);
    pq_write_result_release(&res);
    buf_free(&file);
    a.release(&a);
    s.release(&s);
    test_table_release(&tt);
}

/* Booleans are RLE-encoded: long runs take a few bytes. */
static void test_boolean_rle(void **state)
{
    (void)state;
    struct test_table tt;
    test_table_init(&tt, "[{'name':'flag','type':'boolean'}]");
    enum { ROWS = 10000 };
    uint8_t *v = malloc(ROWS);
    bool *valid = malloc(ROWS);
    for (int i = 0; i < ROWS; i++) {
        v[i] = (uint8_t)(i / 1000 % 2);
        valid[i] = i % 3000 != 7;
    }
    struct ArrowSchema cs, s;
    struct ArrowArray ca, a;
    col_fixed(&cs, &ca, "flag", "b", v, 1, ROWS, valid);
    batch_of(&s, &a, &cs, &ca, 1, ROWS);
    struct pq_write_options o;
    pq_write_options_default(&o);
    o.codec = PQ_UNCOMPRESSED;
    struct buf file = BUF_INIT;
    struct pq_write_result res;
    write_batches(&tt.t, &o, &s, &a, 1, &file, &res);
    const struct pq_column_meta *m = &chunk_of(&res.meta, 0, "flag")->meta;
    assert_int_equal(m->nencodings, 1);
    assert_int_equal(m->encodings[0], PQ_ENC_RLE);
    struct pq_page_header h;
    size_t hl;
    struct error err = {0};
    assert_int_equal(pq_decode_page_header(file.data + m->data_page_offset,
                                           file.len - (size_t)m->data_page_offset, NULL, &h, &hl,
                                           &err),
                     0);
    assert_int_equal(h.encoding, PQ_ENC_RLE);
    /* 10 runs of values and a few of levels, not 10000 bits. */
    assert_true(h.uncompressed_size < 200);
    expect_file_equals(&tt.t, &file, &s, &a, 1);
    pq_write_result_release(&res);
    buf_free(&file);
    a.release(&a);
    s.release(&s);
    free(v);
    free(valid);
    test_table_release(&tt);
}

/* Row groups are cut by size: many small batches into a small row-group
 * limit make several row groups, each near the limit. */
static void test_row_group_sizing(void **state)
{
    (void)state;
    struct test_table tt;
    test_table_init(&tt, "[{'name':'v','type':'long'},{'name':'s','type':'string'}]");
    struct gen_options gen = {.null_per_mille = 0, .max_string_len = 20};
    struct rng g = {3};
    enum { BATCHES = 20 };
    struct ArrowSchema s[BATCHES];
    struct ArrowArray a[BATCHES];
    for (int b = 0; b < BATCHES; b++)
        gen_batch(&tt.t, 2000, &gen, &g, &s[b], &a[b]);
    struct pq_write_options o;
    pq_write_options_default(&o);
    o.row_group_bytes = 100 * 1024;
    o.codec = PQ_UNCOMPRESSED;
    o.dictionary = false;
    struct buf file = BUF_INIT;
    struct pq_write_result res;
    write_batches(&tt.t, &o, &s[0], a, BATCHES, &file, &res);
    /* 40000 rows of ~8 + ~4 + ~30 bytes: about 1.6 MB, so 12 to 20 groups. */
    assert_true(res.meta.nrow_groups >= 10 && res.meta.nrow_groups <= 24);
    int64_t rows = 0;
    for (size_t i = 0; i < res.meta.nrow_groups; i++) {
        const struct pq_row_group *rg = &res.meta.row_groups[i];
        rows += rg->num_rows;
        if (i + 1 < res.meta.nrow_groups)
            assert_true(rg->total_byte_size >= 80 * 1024 && rg->total_byte_size <= 160 * 1024);
    }
    assert_int_equal(rows, 40000);
    expect_file_equals(&tt.t, &file, &s[0], a, BATCHES);
    pq_write_result_release(&res);
    buf_free(&file);
    for (int b = 0; b < BATCHES; b++) {
        a[b].release(&a[b]);
        s[b].release(&s[b]);
    }
    test_table_release(&tt);
}

/* Wide rows do not overshoot: 200 KB values with 64 KB pages make one
 * value per page, and a 1 MB row group limit holds about 5 of them. */
static void test_wide_rows(void **state)
{
    (void)state;
    struct test_table tt;
    test_table_init(&tt, "[{'name':'blob','type':'binary'}]");
    enum { ROWS = 60, WIDTH = 200 * 1024 };
    char *big = malloc(WIDTH);
    assert_non_null(big);
    const char *vals[ROWS];
    size_t lens[ROWS];
    for (int i = 0; i < ROWS; i++) {
        vals[i] = big;
        lens[i] = WIDTH;
    }
    for (int i = 0; i < WIDTH; i++)
        big[i] = (char)(i * 131 % 251);
    struct ArrowSchema cs, s;
    struct ArrowArray ca, a;
    col_bytes(&cs, &ca, "blob", "z", vals, lens, ROWS, NULL);
    batch_of(&s, &a, &cs, &ca, 1, ROWS);
    struct pq_write_options o;
    pq_write_options_default(&o);
    o.page_bytes = 64 * 1024;
    o.row_group_bytes = 1024 * 1024;
    o.dictionary = false;
    struct buf file = BUF_INIT;
    struct pq_write_result res;
    write_batches(&tt.t, &o, &s, &a, 1, &file, &res);
    assert_true(res.meta.nrow_groups >= 10);
    for (size_t g = 0; g < res.meta.nrow_groups; g++) {
        assert_true(res.meta.row_groups[g].num_rows <= 6);
        assert_true(res.meta.row_groups[g].total_byte_size <= 6 * (WIDTH + 64));
    }
    expect_file_equals(&tt.t, &file, &s, &a, 1);
    pq_write_result_release(&res);
    buf_free(&file);
    a.release(&a);
    s.release(&s);
    free(big);
    test_table_release(&tt);
}

/* A struct column over given children (taken over) with a validity. */
static void struct_of(struct ArrowSchema *s, struct ArrowArray *a, const char *name,
                      struct ArrowSchema *kid_s, struct ArrowArray *kid_a, int64_t n,
                      const bool *valid)
{
    assert_int_equal(arrow_schema_init(s, "+s", name, ARROW_FLAG_NULLABLE, 1), 0);
    assert_int_equal(arrow_array_init(a, 1, 1), 0);
    a->length = n;
    uint8_t *bits = calloc(1, 1);
    for (int64_t i = 0; i < n; i++) {
        arrow_set_bit(bits, i, valid[i]);
        a->null_count += !valid[i];
    }
    arrow_array_own_buffer(a, 0, bits);
    arrow_schema_move(kid_s, s->children[0]);
    arrow_array_move(kid_a, a->children[0]);
}

/* A null under a null parent is not a value: a required field may hold one
 * there, but not where its parent is valid. */
static void test_required_under_null_parent(void **state)
{
    (void)state;
    struct test_table tt;
    test_table_init(&tt, "[{'name':'s','type':'struct','children':["
                         "  {'name':'k','type':'int','nullable':false}]}]");
    const int32_t k[3] = {1, 0, 3};
    const bool k_valid[3] = {true, false, true};
    const bool s_valid_ok[3] = {true, false, true}, s_valid_bad[3] = {true, true, true};
    struct buf file = BUF_INIT;
    struct pq_sink sink = {test_sink_buf_write, &file};
    struct pq_writer *w;
    struct error err = {0};
    assert_int_equal(pq_writer_open(&tt.t, NULL, &sink, &w, &err), 0);
    for (int round = 0; round < 2; round++) {
        struct ArrowSchema ks, ss, bs;
        struct ArrowArray ka, sa, ba;
        col_fixed(&ks, &ka, "k", "i", k, 4, 3, k_valid);
        struct_of(&ss, &sa, "s", &ks, &ka, 3, round == 0 ? s_valid_bad : s_valid_ok);
        batch_of(&bs, &ba, &ss, &sa, 1, 3);
        int rc = pq_writer_write(w, &bs, &ba, &err);
        if (round == 0) {
            assert_int_equal(rc, -1);
            assert_string_equal(err.msg, "column 's.k' is not nullable but has a null");
        } else {
            assert_int_equal(rc, 0);
            struct pq_write_result res;
            assert_int_equal(pq_writer_close(w, &res, &err), 0);
            expect_file_equals(&tt.t, &file, &bs, &ba, 1);
            pq_write_result_release(&res);
        }
        ba.release(&ba);
        bs.release(&bs);
    }
    buf_free(&file);
    test_table_release(&tt);
}

static int write_one(struct pq_writer *w, struct ArrowSchema *s, struct ArrowArray *a,
                     struct error *err)
{
    int rc = pq_writer_write(w, s, a, err);
    a->release(a);
    s->release(s);
    return rc;
}

/* Batches that do not fit the table are refused with ERR_INVALID and
 * leave the writer usable; values the table cannot hold fail the writer. */
static void test_refusals(void **state)
{
    (void)state;
    struct test_table tt;
    test_table_init(&tt, "[{'name':'id','type':'long','nullable':false},"
                         "{'name':'d','type':'decimal','type_params':{'precision':4,'scale':1}}]");
    struct buf file = BUF_INIT;
    struct pq_sink sink = {test_sink_buf_write, &file};
    struct pq_writer *w;
    struct error err = {0};
    assert_int_equal(pq_writer_open(&tt.t, NULL, &sink, &w, &err), 0);

    const int64_t ids[3] = {1, 2, 3};
    const __int128 decs[3] = {9999, -9999, 0};
    const bool one_null[3] = {true, false, true};
    struct ArrowSchema cs[2], s;
    struct ArrowArray ca[2], a;

    /* A null in a required column. */
    col_fixed(&cs[0], &ca[0], "id", "l", ids, 8, 3, one_null);
    col_fixed(&cs[1], &ca[1], "d", "d:4,1", decs, 16, 3, NULL);
    batch_of(&s, &a, cs, ca, 2, 3);
    assert_int_equal(write_one(w, &s, &a, &err), -1);
    assert_int_equal(err.code, ERR_INVALID);
    assert_non_null(strstr(err.msg, "not nullable"));
    /* The wrong Arrow type. */
    col_fixed(&cs[0], &ca[0], "id", "i", ids, 4, 3, NULL);
    col_fixed(&cs[1], &ca[1], "d", "d:4,1", decs, 16, 3, NULL);
    batch_of(&s, &a, cs, ca, 2, 3);
    assert_int_equal(write_one(w, &s, &a, &err), -1);
    assert_non_null(strstr(err.msg, "takes Arrow format 'l'"));
    /* A decimal of another scale. */
    col_fixed(&cs[0], &ca[0], "id", "l", ids, 8, 3, NULL);
    col_fixed(&cs[1], &ca[1], "d", "d:4,2", decs, 16, 3, NULL);
    batch_of(&s, &a, cs, ca, 2, 3);
    assert_int_equal(write_one(w, &s, &a, &err), -1);
    /* Columns out of order. */
    col_fixed(&cs[1], &ca[1], "id", "l", ids, 8, 3, NULL);
    col_fixed(&cs[0], &ca[0], "d", "d:4,1", decs, 16, 3, NULL);
    batch_of(&s, &a, cs, ca, 2, 3);
    assert_int_equal(write_one(w, &s, &a, &err), -1);
    assert_non_null(strstr(err.msg, "batch column 0 is 'd'"));
    /* A good batch still goes in after all of those. */
    col_fixed(&cs[0], &ca[0], "id", "l", ids, 8, 3, NULL);
    col_fixed(&cs[1], &ca[1], "d", "d:4,1", decs, 16, 3, NULL);
    batch_of(&s, &a, cs, ca, 2, 3);
    assert_int_equal(write_one(w, &s, &a, &err), 0);
    /* A value past the declared precision fails the writer for good. */
    const __int128 too_big[3] = {1, 99999, 2};
    col_fixed(&cs[0], &ca[0], "id", "l", ids, 8, 3, NULL);
    col_fixed(&cs[1], &ca[1], "d", "d:4,1", too_big, 16, 3, NULL);
    batch_of(&s, &a, cs, ca, 2, 3);
    assert_int_equal(write_one(w, &s, &a, &err), -1);
    assert_non_null(strstr(err.msg, "exceeds the column's precision"));
    col_fixed(&cs[0], &ca[0], "id", "l", ids, 8, 3, NULL);
    col_fixed(&cs[1], &ca[1], "d", "d:4,1", decs, 16, 3, NULL);
    batch_of(&s, &a, cs, ca, 2, 3);
    assert_int_equal(write_one(w, &s, &a, &err), -1);
    assert_non_null(strstr(err.msg, "failed earlier"));
    struct pq_write_result res;
    assert_int_equal(pq_writer_close(w, &res, &err), -1);

    /* Options the writer cannot honour. */
    struct pq_write_options o;
    pq_write_options_default(&o);
    o.page_bytes = 0;
    assert_int_equal(pq_writer_open(&tt.t, &o, &sink, &w, &err), -1);
    assert_int_equal(err.code, ERR_INVALID);
    pq_write_options_default(&o);
    o.codec = PQ_LZO;
    assert_int_equal(pq_writer_open(&tt.t, &o, &sink, &w, &err), -1);
    assert_int_equal(err.code, ERR_UNSUPPORTED);
    pq_write_options_default(&o);
    o.level = 99;
    assert_int_equal(pq_writer_open(&tt.t, &o, &sink, &w, &err), -1);

    buf_free(&file);
    test_table_release(&tt);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_extremes_and_statistics),
        cmocka_unit_test(test_statistics_match_data),
        cmocka_unit_test(test_footer_in_parsed_form),
        cmocka_unit_test(test_page_index),
        cmocka_unit_test(test_dictionary_and_fallback),
        cmocka_unit_test(test_unique_values_skip_dictionary),
        cmocka_unit_test(test_dictionary_near_keys),
        cmocka_unit_test(test_boolean_rle),
        cmocka_unit_test(test_all_null_chunk),
        cmocka_unit_test(test_delta_columns),
        cmocka_unit_test(test_row_group_sizing),
        cmocka_unit_test(test_wide_rows),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_required_under_null_parent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
