/* Column stats from a Parquet footer (parquet/colstats.h), against the
 * checklist of pyhoglake's test_stats.py: counts and bounds over several
 * row groups, all-null columns and row groups, columns one side does not
 * know, narrow and unsigned widths, timestamps in every unit, bounds that
 * degrade to none, signed zeros, nested leaves, variants, missing null
 * counts, corrupt footers, and random data of every scalar type.
 *
 * Expected values are computed here from the data each test generates;
 * the few literal bytes are spec facts (pyhoglake-client.md §4.4, §8).
 * Footers of other writers are made by editing ours and re-encoding it. */
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

#include "lake/bounds.h"
#include "parquet/colstats.h"
#include "parquet/schema.h"
#include "pq_testlib.h"
#include "util/arrow.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

__extension__ typedef __int128 i128;

/* ---- helpers ---- */

/* A written file and the stats computed from its footer. */
struct fixture {
    struct buf file;
    struct pq_write_result res;
    struct arena arena; /* stats, re-parsed footers */
};

static void write_file(struct fixture *f, const struct lake_table *t, int64_t rg_rows,
                       struct ArrowSchema *s, struct ArrowArray *a)
{
    struct pq_write_options o;
    pq_write_options_default(&o);
    o.row_group_rows = rg_rows;
    f->file = (struct buf)BUF_INIT;
    write_batches(t, &o, s, a, 1, &f->file, &f->res);
    arena_init(&f->arena, 0);
    a->release(a);
    s->release(s);
}

/* A file of one column of n fixed-width values, none null. */
static void single_file(struct fixture *f, const struct lake_table *t, const char *name,
                        const char *format, const void *v, size_t width, int64_t n, int64_t rg_rows)
{
    struct ArrowSchema cs, s;
    struct ArrowArray ca, a;
    col_fixed(&cs, &ca, name, format, v, width, n, NULL);
    batch_of(&s, &a, &cs, &ca, 1, n);
    write_file(f, t, rg_rows, &s, &a);
}

static void fixture_free(struct fixture *f)
{
    pq_write_result_release(&f->res);
    buf_free(&f->file);
    arena_free(&f->arena);
}

/* Stats of meta against t; schema NULL rebuilds the footer's tree. */
static size_t stats_of(struct fixture *f, const struct pq_file_meta *meta,
                       const struct pq_schema *schema, const struct lake_table *t,
                       struct pq_col_stats **out)
{
    size_t n;
    struct error err = {0};
    if (pq_footer_column_stats(meta, schema, t, &f->arena, out, &n, &err) != 0)
        fail_msg("column stats: %s", err.msg);
    return n;
}

static size_t file_stats(struct fixture *f, const struct lake_table *t, struct pq_col_stats **out)
{
    return stats_of(f, &f->res.meta, &f->res.schema, t, out);
}

/* The footer through its Thrift bytes and back: what another writer's
 * file would give, once meta has been edited. */
static const struct pq_file_meta *reparse(struct fixture *f, const struct pq_file_meta *m)
{
    struct buf b = BUF_INIT;
    assert_int_equal(pq_encode_file_meta(m, &b), 0);
    struct pq_file_meta *out = arena_calloc(&f->arena, 1, sizeof *out);
    assert_non_null(out);
    struct error err = {0};
    if (pq_decode_file_meta(b.data, b.len, &f->arena, out, &err) != 0)
        fail_msg("decode: %s", err.msg);
    buf_free(&b);
    return out;
}

static int64_t field_id(struct lake_table *t, const char *path)
{
    struct error err = {0};
    struct lake_column *c = lake_table_find_path(t, path, &err);
    if (!c)
        fail_msg("no column %s", path);
    return c->field_id;
}

static const struct pq_col_stats *find(const struct pq_col_stats *s, size_t n, int64_t id)
{
    for (size_t i = 0; i < n; i++)
        if (s[i].field_id == id)
            return &s[i];
    return NULL;
}

static const struct pq_col_stats *must_find(const struct pq_col_stats *s, size_t n, int64_t id)
{
    const struct pq_col_stats *c = find(s, n, id);
    if (!c)
        fail_msg("no stats for field %lld", (long long)id);
    return c;
}

static void expect_bounds(const struct pq_col_stats *s, const void *lo, size_t lo_len,
                          const void *hi, size_t hi_len)
{
    assert_non_null(s->lower);
    assert_non_null(s->upper);
    assert_int_equal(s->lower_len, lo_len);
    assert_int_equal(s->upper_len, hi_len);
    if (lo_len)
        assert_memory_equal(s->lower, lo, lo_len);
    if (hi_len)
        assert_memory_equal(s->upper, hi, hi_len);
}

static void expect_no_bounds(const struct pq_col_stats *s)
{
    assert_null(s->lower);
    assert_null(s->upper);
}

static void expect_hex(const uint8_t *b, size_t n, const char *hex)
{
    char got[80] = "";
    for (size_t i = 0; i < n && 2 * i + 2 < sizeof got; i++)
        snprintf(got + 2 * i, 3, "%02x", b[i]);
    assert_string_equal(got, hex);
}

static void le(uint8_t *out, uint64_t v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = (uint8_t)(v >> (8 * i));
}

static void expect_int_bounds(const struct pq_col_stats *s, int64_t lo, int64_t hi, size_t width)
{
    uint8_t a[8], b[8];
    le(a, (uint64_t)lo, width);
    le(b, (uint64_t)hi, width);
    expect_bounds(s, a, width, b, width);
}

/* Sums of the chunk counts of the column whose path_in_schema, dotted, is
 * `path`: the stats must agree with the footer itself. */
static void expect_counts_from_chunks(const struct pq_file_meta *m, const char *path,
                                      const struct pq_col_stats *s)
{
    int64_t values = 0, nulls = 0, size = 0;
    bool found = false;
    for (size_t g = 0; g < m->nrow_groups; g++) {
        for (size_t c = 0; c < m->row_groups[g].ncolumns; c++) {
            const struct pq_column_meta *cm = &m->row_groups[g].columns[c].meta;
            char dotted[256] = "";
            for (size_t k = 0; k < cm->npath; k++) {
                strcat(dotted, k ? "." : "");
                strcat(dotted, cm->path[k]);
            }
            if (strcmp(dotted, path) != 0)
                continue;
            found = true;
            values += cm->num_values;
            nulls += cm->statistics.null_count;
            size += cm->total_compressed_size;
        }
    }
    if (!found)
        fail_msg("no chunk %s", path);
    assert_int_equal(s->value_count, values);
    assert_int_equal(s->null_count, nulls);
    assert_int_equal(s->size_bytes, size);
    assert_true(size > 0);
}

static struct pq_column_meta *chunk(struct pq_file_meta *m, size_t g, const char *top)
{
    struct pq_row_group *rg = &m->row_groups[g];
    for (size_t c = 0; c < rg->ncolumns; c++)
        if (strcmp(rg->columns[c].meta.path[0], top) == 0)
            return &rg->columns[c].meta;
    fail_msg("no chunk %s", top);
    return NULL;
}

/* Makes a chunk INT32 or INT64 with statistics lo and hi, stored in
 * buf[16] (which must outlive the footer's use). */
static void set_int_stats(struct pq_column_meta *cm, enum pq_type type, int64_t lo, int64_t hi,
                          uint8_t *buf)
{
    uint32_t w = type == PQ_INT32 ? 4 : 8;
    cm->type = type;
    le(buf, (uint64_t)lo, w);
    le(buf + 8, (uint64_t)hi, w);
    cm->statistics.min = buf;
    cm->statistics.max = buf + 8;
    cm->statistics.min_len = cm->statistics.max_len = w;
}

static struct pq_schema_element *element(struct pq_file_meta *m, const char *name)
{
    for (size_t i = 1; i < m->nschema; i++)
        if (strcmp(m->schema[i].name, name) == 0)
            return &m->schema[i];
    fail_msg("no element %s", name);
    return NULL;
}

/* ---- 100 rows, row groups of 30 ---- */

enum { ROWS = 100, RG = 30 };

static const char six_table[] =
    "[{'name':'id','type':'long','nullable':false},{'name':'name','type':'string'},"
    " {'name':'score','type':'double'},{'name':'day','type':'date'},"
    " {'name':'ts','type':'timestamp'},"
    " {'name':'amount','type':'decimal','type_params':{'precision':10,'scale':2}}]";

struct six {
    int64_t id[ROWS];
    char names[ROWS][16];
    const char *name[ROWS];
    bool name_ok[ROWS], score_ok[ROWS], day_ok[ROWS];
    double score[ROWS];
    int32_t day[ROWS];
    int64_t ts[ROWS];
    i128 amount[ROWS];
};

static void six_batch(struct six *d, struct ArrowSchema *s, struct ArrowArray *a)
{
    for (int i = 0; i < ROWS; i++) {
        d->id[i] = i;
        snprintf(d->names[i], sizeof d->names[i], "name-%04d", i);
        d->name[i] = d->names[i];
        d->name_ok[i] = i % 10 != 0;
        d->score[i] = i * 0.5;
        d->score_ok[i] = i % 7 != 0;
        d->day[i] = 17532 + (i * 37) % ROWS; /* 2018-01-01 onwards, shuffled */
        d->day_ok[i] = i % 13 != 5;
        d->ts[i] = INT64_C(1514764800000000) + (int64_t)((i * 61) % ROWS) * 3600000000;
        d->amount[i] = (i128)i * 100; /* i.00 */
    }
    struct ArrowSchema cs[6];
    struct ArrowArray ca[6];
    col_fixed(&cs[0], &ca[0], "id", "l", d->id, 8, ROWS, NULL);
    col_bytes(&cs[1], &ca[1], "name", "u", d->name, NULL, ROWS, d->name_ok);
    col_fixed(&cs[2], &ca[2], "score", "g", d->score, 8, ROWS, d->score_ok);
    col_fixed(&cs[3], &ca[3], "day", "tdD", d->day, 4, ROWS, d->day_ok);
    col_fixed(&cs[4], &ca[4], "ts", "tsu:", d->ts, 8, ROWS, NULL);
    col_fixed(&cs[5], &ca[5], "amount", "d:10,2", d->amount, 16, ROWS, NULL);
    batch_of(s, a, cs, ca, 6, ROWS);
}

/* The six-column table and its file: 100 rows in row groups of 30. */
static void six_file(struct test_table *tt, struct six *d, struct fixture *f)
{
    test_table_init(tt, six_table);
    struct ArrowSchema s;
    struct ArrowArray a;
    six_batch(d, &s, &a);
    write_file(f, &tt->t, RG, &s, &a);
}

static void test_six_columns(void **state)
{
    (void)state;
    struct test_table tt;
    static struct six d;
    struct fixture f;
    six_file(&tt, &d, &f);
    assert_int_equal(f.res.meta.nrow_groups, 4);
    assert_int_equal(f.res.meta.row_groups[3].num_rows, ROWS - 3 * RG);

    struct pq_col_stats *st;
    size_t n = file_stats(&f, &tt.t, &st);
    assert_int_equal(n, 6);
    const char *names[] = {"id", "name", "score", "day", "ts", "amount"};
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(st[i].field_id, field_id(&tt.t, names[i])); /* catalog order */
        assert_int_equal(st[i].value_count, ROWS);
        expect_counts_from_chunks(&f.res.meta, names[i], &st[i]);
    }

    /* Bounds from the data. */
    int64_t idlo = INT64_MAX, idhi = INT64_MIN, tslo = INT64_MAX, tshi = INT64_MIN;
    int32_t daylo = INT32_MAX, dayhi = INT32_MIN;
    double sclo = INFINITY, schi = -INFINITY;
    i128 amlo = 0, amhi = 0;
    const char *nlo = NULL, *nhi = NULL;
    int64_t name_nulls = 0, score_nulls = 0, day_nulls = 0;
    for (int i = 0; i < ROWS; i++) {
        idlo = d.id[i] < idlo ? d.id[i] : idlo;
        idhi = d.id[i] > idhi ? d.id[i] : idhi;
        tslo = d.ts[i] < tslo ? d.ts[i] : tslo;
        tshi = d.ts[i] > tshi ? d.ts[i] : tshi;
        amlo = i == 0 || d.amount[i] < amlo ? d.amount[i] : amlo;
        amhi = i == 0 || d.amount[i] > amhi ? d.amount[i] : amhi;
        if (d.day_ok[i]) {
            daylo = d.day[i] < daylo ? d.day[i] : daylo;
            dayhi = d.day[i] > dayhi ? d.day[i] : dayhi;
        }
        day_nulls += !d.day_ok[i];
        if (d.score_ok[i]) {
            sclo = d.score[i] < sclo ? d.score[i] : sclo;
            schi = d.score[i] > schi ? d.score[i] : schi;
        }
        score_nulls += !d.score_ok[i];
        if (d.name_ok[i]) {
            nlo = !nlo || strcmp(d.name[i], nlo) < 0 ? d.name[i] : nlo;
            nhi = !nhi || strcmp(d.name[i], nhi) > 0 ? d.name[i] : nhi;
        }
        name_nulls += !d.name_ok[i];
    }
    expect_int_bounds(&st[0], idlo, idhi, 8);
    assert_int_equal(st[0].null_count, 0);
    assert_int_equal(st[1].null_count, name_nulls);
    assert_int_equal(name_nulls, 10); /* the spec's figures */
    expect_bounds(&st[1], nlo, strlen(nlo), nhi, strlen(nhi));
    assert_string_equal(nlo, "name-0001");
    assert_string_equal(nhi, "name-0099");
    assert_int_equal(st[2].null_count, score_nulls);
    assert_int_equal(score_nulls, 15);
    expect_bounds(&st[2], &sclo, 8, &schi, 8);
    assert_true(sclo == 0.5 && schi == 49.5);
    assert_int_equal(st[3].null_count, day_nulls);
    expect_int_bounds(&st[3], daylo, dayhi, 4);
    expect_int_bounds(&st[4], tslo, tshi, 8);
    uint8_t lo[16], hi[16];
    size_t lon = bound_decimal_minimal(amlo, lo), hin = bound_decimal_minimal(amhi, hi);
    expect_bounds(&st[5], lo, lon, hi, hin);
    expect_hex(st[5].lower, st[5].lower_len, "00");
    expect_hex(st[5].upper, st[5].upper_len, "26ac");

    /* The footer's own tree gives the same as the writer's. */
    struct pq_col_stats *again;
    assert_int_equal(stats_of(&f, &f.res.meta, NULL, &tt.t, &again), n);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(again[i].field_id, st[i].field_id);
        assert_int_equal(again[i].lower_len, st[i].lower_len);
        assert_memory_equal(again[i].lower, st[i].lower, st[i].lower_len);
        assert_memory_equal(again[i].upper, st[i].upper, st[i].upper_len);
    }
    fixture_free(&f);
    test_table_release(&tt);
}

/* ---- nulls ---- */

static void test_all_null(void **state)
{
    (void)state;
    struct test_table tt;
    test_table_init(&tt, "[{'name':'a','type':'long'},{'name':'b','type':'long'}]");
    int64_t v[ROWS];
    bool none[ROWS], mid_null[ROWS];
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    struct rng g = {5};
    for (int i = 0; i < ROWS; i++) {
        v[i] = (int64_t)rng_next(&g);
        none[i] = false;
        mid_null[i] = i < RG || i >= 2 * RG; /* row group 1 is all null */
        if (mid_null[i]) {
            lo = v[i] < lo ? v[i] : lo;
            hi = v[i] > hi ? v[i] : hi;
        }
    }
    /* Row group 1 holds the extremes, which must not count. */
    v[RG] = INT64_MIN;
    v[RG + 1] = INT64_MAX;
    struct ArrowSchema cs[2], s;
    struct ArrowArray ca[2], a;
    col_fixed(&cs[0], &ca[0], "a", "l", v, 8, ROWS, none);
    col_fixed(&cs[1], &ca[1], "b", "l", v, 8, ROWS, mid_null);
    batch_of(&s, &a, cs, ca, 2, ROWS);
    struct fixture f;
    write_file(&f, &tt.t, RG, &s, &a);
    const struct pq_statistics *rg1 = &chunk(&f.res.meta, 1, "b")->statistics;
    assert_false(rg1->has_min || rg1->has_max);

    struct pq_col_stats *st;
    assert_int_equal(file_stats(&f, &tt.t, &st), 2);
    assert_int_equal(st[0].value_count, ROWS);
    assert_int_equal(st[0].null_count, ROWS);
    expect_no_bounds(&st[0]);
    assert_int_equal(st[1].value_count, ROWS);
    assert_int_equal(st[1].null_count, RG);
    expect_int_bounds(&st[1], lo, hi, 8);
    fixture_free(&f);
    test_table_release(&tt);
}

/* ---- columns one side does not know ---- */

static void test_unknown_columns(void **state)
{
    (void)state;
    struct test_table file_t, cat_t;
    test_table_init(&file_t, "[{'name':'a','type':'long'},{'name':'b','type':'string'},"
                             " {'name':'c','type':'double'},{'name':'sb','type':'int'}]");
    /* The catalog lacks b, has z the file lacks, names c before a, and
     * has a struct s.b where the file (edited below) has a top-level
     * column literally named "s.b". */
    test_table_init(&cat_t,
                    "[{'name':'z','type':'int'},{'name':'c','type':'double'},"
                    " {'name':'a','type':'long'},"
                    " {'name':'s','type':'struct','children':[{'name':'b','type':'int'}]}]");
    struct gen_options gen = {.null_per_mille = 200, .max_string_len = 5};
    struct rng g = {9};
    struct ArrowSchema s;
    struct ArrowArray a;
    gen_batch(&file_t.t, ROWS, &gen, &g, &s, &a);
    struct fixture f;
    write_file(&f, &file_t.t, RG, &s, &a);
    element(&f.res.meta, "sb")->name = "s.b";
    for (size_t rg = 0; rg < f.res.meta.nrow_groups; rg++)
        chunk(&f.res.meta, rg, "sb")->path[0] = "s.b";
    struct pq_col_stats *st;
    size_t n = stats_of(&f, reparse(&f, &f.res.meta), NULL, &cat_t.t, &st);
    assert_int_equal(n, 2);
    assert_int_equal(st[0].field_id, field_id(&cat_t.t, "c"));
    assert_int_equal(st[1].field_id, field_id(&cat_t.t, "a"));
    expect_counts_from_chunks(&f.res.meta, "c", &st[0]);
    expect_counts_from_chunks(&f.res.meta, "a", &st[1]);
    fixture_free(&f);
    test_table_release(&file_t);
    test_table_release(&cat_t);
}

/* ---- narrow and unsigned widths ---- */

static const char narrow_table[] =
    "[{'name':'i8','type':'int8'},{'name':'i16','type':'int16'},{'name':'u8','type':'uint8'},"
    " {'name':'u16','type':'uint16'},{'name':'u32','type':'uint32'},"
    " {'name':'u64','type':'uint64'},{'name':'big','type':'long'}]";

enum { NW = 6 };

struct narrow {
    int8_t i8[NW];
    int16_t i16[NW];
    uint8_t u8[NW];
    uint16_t u16[NW];
    uint32_t u32[NW];
    uint64_t u64[NW];
    int64_t big[NW];
};

/* Three row groups of two rows each. */
static const struct narrow narrow_data = {
    {5, INT8_MIN, INT8_MAX, -1, 0, 3},
    {INT16_MIN, 2, 7, INT16_MAX, -7, 0},
    {1, 200, UINT8_MAX, 0, 128, 3},
    {UINT16_MAX, 9, 0, 40000, 1, 2},
    {UINT32_MAX, 7, 1u << 31, 0, 5, 6},
    /* unsigned above 2^63: signed order would put these first */
    {UINT64_MAX, UINT64_C(1) << 63, 1, (UINT64_C(1) << 63) + 1, 5, 9},
    {INT64_C(1) << 40, 1, 2, 3, 4, 5},
};

static void narrow_file(struct fixture *f, const struct lake_table *t)
{
    struct ArrowSchema cs[7], s;
    struct ArrowArray ca[7], a;
    const struct narrow *d = &narrow_data;
    col_fixed(&cs[0], &ca[0], "i8", "c", d->i8, 1, NW, NULL);
    col_fixed(&cs[1], &ca[1], "i16", "s", d->i16, 2, NW, NULL);
    col_fixed(&cs[2], &ca[2], "u8", "C", d->u8, 1, NW, NULL);
    col_fixed(&cs[3], &ca[3], "u16", "S", d->u16, 2, NW, NULL);
    col_fixed(&cs[4], &ca[4], "u32", "I", d->u32, 4, NW, NULL);
    col_fixed(&cs[5], &ca[5], "u64", "L", d->u64, 8, NW, NULL);
    col_fixed(&cs[6], &ca[6], "big", "l", d->big, 8, NW, NULL);
    batch_of(&s, &a, cs, ca, 7, NW);
    write_file(f, t, 2, &s, &a);
    assert_int_equal(f->res.meta.nrow_groups, 3);
}

#define MIN_MAX(arr, lo, hi)                                                                       \
    do {                                                                                           \
        lo = hi = arr[0];                                                                          \
        for (int i_ = 1; i_ < NW; i_++) {                                                          \
            lo = arr[i_] < lo ? arr[i_] : lo;                                                      \
            hi = arr[i_] > hi ? arr[i_] : hi;                                                      \
        }                                                                                          \
    } while (0)

/* The same footer under a catalog whose columns (same names) have other
 * types: *got[i] is column i's stats. */
static void retyped(struct fixture *f, const char *types_json, struct test_table *tt,
                    const struct pq_col_stats **got, size_t ncols)
{
    test_table_init(tt, types_json);
    struct pq_col_stats *st;
    size_t n = file_stats(f, &tt->t, &st);
    assert_int_equal(n, ncols);
    for (size_t i = 0; i < ncols; i++)
        got[i] = must_find(st, n, tt->t.root.children[i]->field_id);
}

static void test_narrow_and_unsigned(void **state)
{
    (void)state;
    struct test_table tt;
    test_table_init(&tt, narrow_table);
    struct fixture f;
    narrow_file(&f, &tt.t);
    const struct narrow *d = &narrow_data;
    struct pq_col_stats *st;
    assert_int_equal(file_stats(&f, &tt.t, &st), 7);
    int64_t lo, hi;
    MIN_MAX(d->i8, lo, hi);
    expect_int_bounds(&st[0], lo, hi, 4);
    expect_hex(st[0].lower, 4, "80ffffff"); /* int8 -128: the spec's vector */
    MIN_MAX(d->i16, lo, hi);
    expect_int_bounds(&st[1], lo, hi, 4);
    MIN_MAX(d->u8, lo, hi);
    expect_int_bounds(&st[2], lo, hi, 4);
    expect_hex(st[2].upper, 4, "ff000000");
    MIN_MAX(d->u16, lo, hi);
    expect_int_bounds(&st[3], lo, hi, 4);
    MIN_MAX(d->u32, lo, hi);
    expect_int_bounds(&st[4], lo, hi, 8); /* uint32 is an Iceberg long */
    uint64_t ulo, uhi;
    MIN_MAX(d->u64, ulo, uhi);
    uint8_t a[16], b[16];
    size_t an = bound_decimal_minimal(ulo, a), bn = bound_decimal_minimal(uhi, b);
    expect_bounds(&st[5], a, an, b, bn);
    expect_hex(st[5].lower, st[5].lower_len, "01");
    expect_hex(st[5].upper, st[5].upper_len, "00ffffffffffffffff");

    /* The unsigned-width rule: UINT_8 (u8) and UINT_16 (u16) leaves under
     * other catalog types; INT64 UINT_64 (u64) and plain INT64 (big). */
    struct test_table t2;
    const struct pq_col_stats *got[7];
    retyped(&f,
            "[{'name':'i8','type':'int'},{'name':'i16','type':'long'},"
            " {'name':'u8','type':'int16'},{'name':'u16','type':'int'},"
            " {'name':'u32','type':'long'},{'name':'u64','type':'long'},"
            " {'name':'big','type':'int'}]",
            &t2, got, 7);
    MIN_MAX(d->i8, lo, hi);
    expect_int_bounds(got[0], lo, hi, 4);
    MIN_MAX(d->i16, lo, hi);
    expect_int_bounds(got[1], lo, hi, 8);
    MIN_MAX(d->u8, lo, hi);
    expect_int_bounds(got[2], lo, hi, 4); /* 8 <= int16's 8 */
    MIN_MAX(d->u16, lo, hi);
    expect_int_bounds(got[3], lo, hi, 4); /* 16 <= int's 16 */
    MIN_MAX(d->u32, lo, hi);
    expect_int_bounds(got[4], lo, hi, 8);
    expect_no_bounds(got[5]); /* 64 > long's 32 */
    expect_no_bounds(got[6]); /* INT64 2^40 under int */
    for (int i = 0; i < 7; i++)
        assert_int_equal(got[i]->value_count, NW);
    test_table_release(&t2);

    retyped(&f,
            "[{'name':'i8','type':'uint8'},{'name':'i16','type':'uint16'},"
            " {'name':'u8','type':'int8'},{'name':'u16','type':'uint8'},"
            " {'name':'u32','type':'int'},{'name':'u64','type':'uint32'},"
            " {'name':'big','type':'uint8'}]",
            &t2, got, 7);
    MIN_MAX(d->i8, lo, hi); /* signed INT32 under uint8: no domain enforced */
    expect_int_bounds(got[0], lo, hi, 4);
    MIN_MAX(d->i16, lo, hi);
    expect_int_bounds(got[1], lo, hi, 4);
    expect_no_bounds(got[2]); /* UINT_8 under int8 */
    expect_no_bounds(got[3]); /* UINT_16 under uint8 */
    expect_no_bounds(got[4]); /* INT64 under int */
    expect_no_bounds(got[5]); /* UINT_64 under uint32 */
    expect_no_bounds(got[6]); /* INT64 2^40 under uint8 */
    test_table_release(&t2);

    /* A plain INT64's stats are signed-ordered: not uint64 bounds. */
    retyped(&f, "[{'name':'big','type':'uint64'},{'name':'u64','type':'uint64'}]", &t2, got, 2);
    expect_no_bounds(got[0]);
    assert_non_null(got[1]->lower);
    test_table_release(&t2);

    fixture_free(&f);
    test_table_release(&tt);
}

/* A uint32 written by another writer as INT32 annotated INT(32, unsigned)
 * (as Arrow writes uint32) still bounds, unsigned. */
static void test_uint32_as_int32(void **state)
{
    (void)state;
    struct test_table tt;
    test_table_init(&tt, "[{'name':'u','type':'uint32'}]");
    const uint32_t v[4] = {7, UINT32_MAX, 1u << 31, 3};
    struct fixture f;
    single_file(&f, &tt.t, "u", "I", v, 4, 4, 2);
    struct pq_file_meta *m = &f.res.meta;
    struct pq_schema_element *e = element(m, "u");
    e->type = PQ_INT32;
    e->logical = (struct pq_logical){.kind = PQ_LT_INTEGER, .bit_width = 32, .is_signed = false};
    e->has_converted = true;
    e->converted = PQ_CT_UINT_32;
    /* Each row group's bounds as 4-byte unsigned values. */
    static uint8_t raw[2][16];
    for (size_t g = 0; g < 2; g++) {
        uint32_t x = v[2 * g], y = v[2 * g + 1];
        set_int_stats(chunk(m, g, "u"), PQ_INT32, x < y ? x : y, x < y ? y : x, raw[g]);
    }
    const struct pq_file_meta *foreign = reparse(&f, m);
    struct pq_col_stats *st;
    assert_int_equal(stats_of(&f, foreign, NULL, &tt.t, &st), 1);
    expect_int_bounds(&st[0], 3, UINT32_MAX, 8);

    struct test_table t2;
    /* long reads unsigned 32; int does not (32 > 16). */
    test_table_init(&t2, "[{'name':'u','type':'long'}]");
    assert_int_equal(stats_of(&f, foreign, NULL, &t2.t, &st), 1);
    expect_int_bounds(&st[0], 3, UINT32_MAX, 8);
    test_table_release(&t2);
    test_table_init(&t2, "[{'name':'u','type':'int'}]");
    assert_int_equal(stats_of(&f, foreign, NULL, &t2.t, &st), 1);
    expect_no_bounds(&st[0]);
    test_table_release(&t2);
    fixture_free(&f);
    test_table_release(&tt);
}

/* ---- timestamps ---- */

enum { NT = 4 };

static const char ts_table[] =
    "[{'name':'tss','type':'timestamp_s'},{'name':'tsm','type':'timestamp_ms'},"
    " {'name':'tsn','type':'timestamp_ns'},{'name':'tsu','type':'timestamp'},"
    " {'name':'tz','type':'timestamptz'},{'name':'n','type':'long'}]";

static const int64_t tss_v[NT] = {1700000000, -86400, 4102444800, 0};
static const int64_t tsm_v[NT] = {1700000000123, -1, 4102444800999, 5};
/* sub-microsecond values, negative ones included */
static const int64_t tsn_v[NT] = {INT64_C(1700000000123456789), -1, 999, INT64_C(-1000000001)};
/* year 9999: its nanos do not fit an int64 */
static const int64_t tsu_v[NT] = {INT64_C(253402300799000000), 1, -5, 0};
static const int64_t tz_v[NT] = {INT64_C(1700000000000001), 2, 3, 4};
static const int64_t n_v[NT] = {1, 2, 3, 4};

static void ts_file(struct fixture *f, const struct lake_table *t)
{
    struct ArrowSchema cs[6], s;
    struct ArrowArray ca[6], a;
    col_fixed(&cs[0], &ca[0], "tss", "tss:", tss_v, 8, NT, NULL);
    col_fixed(&cs[1], &ca[1], "tsm", "tsm:", tsm_v, 8, NT, NULL);
    col_fixed(&cs[2], &ca[2], "tsn", "tsn:", tsn_v, 8, NT, NULL);
    col_fixed(&cs[3], &ca[3], "tsu", "tsu:", tsu_v, 8, NT, NULL);
    col_fixed(&cs[4], &ca[4], "tz", "tsu:UTC", tz_v, 8, NT, NULL);
    col_fixed(&cs[5], &ca[5], "n", "l", n_v, 8, NT, NULL);
    batch_of(&s, &a, cs, ca, 6, NT);
    write_file(f, t, 2, &s, &a);
}

static void min_max(const int64_t *v, int64_t scale, int64_t *lo, int64_t *hi)
{
    *lo = INT64_MAX;
    *hi = INT64_MIN;
    for (int i = 0; i < NT; i++) {
        int64_t x;
        assert_false(__builtin_mul_overflow(v[i], scale, &x));
        *lo = x < *lo ? x : *lo;
        *hi = x > *hi ? x : *hi;
    }
}

static void expect_scaled(const struct pq_col_stats *s, const int64_t *v, int64_t scale)
{
    int64_t lo, hi;
    min_max(v, scale, &lo, &hi);
    expect_int_bounds(s, lo, hi, 8);
}

static void test_timestamps(void **state)
{
    (void)state;
    struct test_table tt;
    test_table_init(&tt, ts_table);
    struct fixture f;
    ts_file(&f, &tt.t);
    struct pq_col_stats *st;
    assert_int_equal(file_stats(&f, &tt.t, &st), 6);
    expect_scaled(&st[0], tss_v, 1000000); /* micros, whatever the declared unit */
    expect_scaled(&st[1], tsm_v, 1000);
    expect_scaled(&st[2], tsn_v, 1); /* raw nanos, sub-micro digits kept */
    expect_scaled(&st[3], tsu_v, 1);
    expect_scaled(&st[4], tz_v, 1);

    /* Other footers under timestamp_ns: s (written as ms), ms and us
     * leaves scaled to nanos; a long leaf: counts only; year-9999 micros:
     * overflow, counts only. */
    struct test_table t2;
    const struct pq_col_stats *got[6];
    retyped(&f,
            "[{'name':'tss','type':'timestamp_ns'},{'name':'tsm','type':'timestamp_ns'},"
            " {'name':'tsn','type':'timestamp'},{'name':'tsu','type':'timestamp_ns'},"
            " {'name':'tz','type':'timestamp_ns'},{'name':'n','type':'timestamp_ns'}]",
            &t2, got, 6);
    expect_scaled(got[0], tss_v, 1000000000);
    expect_scaled(got[1], tsm_v, 1000000);
    expect_no_bounds(got[2]); /* nanos under a micros type */
    expect_no_bounds(got[3]); /* overflow */
    expect_scaled(got[4], tz_v, 1000);
    expect_no_bounds(got[5]); /* not a timestamp */
    for (int i = 0; i < 6; i++) {
        assert_int_equal(got[i]->value_count, NT);
        assert_int_equal(got[i]->null_count, 0);
    }
    test_table_release(&t2);

    /* A foreign writer's nanos column annotated MILLIS or MICROS: the same
     * raw ticks, scaled by the footer's unit; and the legacy converted
     * annotation alone. */
    struct pq_schema_element *e = element(&f.res.meta, "tsn");
    e->logical.unit = PQ_MILLIS;
    struct pq_col_stats *fs;
    assert_int_equal(stats_of(&f, reparse(&f, &f.res.meta), NULL, &tt.t, &fs), 6);
    /* raw * 10^6 overflows for the first value: no bounds */
    expect_no_bounds(&fs[2]);
    e->logical.unit = PQ_MICROS;
    assert_int_equal(stats_of(&f, reparse(&f, &f.res.meta), NULL, &tt.t, &fs), 6);
    expect_no_bounds(&fs[2]); /* 1.7e18 * 1000 overflows too */
    /* The legacy converted annotation alone: TIMESTAMP_MILLIS. */
    struct pq_schema_element *z = element(&f.res.meta, "tsm");
    z->logical.kind = PQ_LT_NONE;
    z->has_converted = true;
    z->converted = PQ_CT_TIMESTAMP_MILLIS;
    const struct pq_file_meta *conv = reparse(&f, &f.res.meta);
    assert_int_equal(stats_of(&f, conv, NULL, &tt.t, &fs), 6);
    expect_scaled(&fs[1], tsm_v, 1000);
    test_table_init(&t2, "[{'name':'tsm','type':'timestamp_ns'}]");
    assert_int_equal(stats_of(&f, conv, NULL, &t2.t, &fs), 1);
    expect_scaled(&fs[0], tsm_v, 1000000);
    test_table_release(&t2);

    fixture_free(&f);
    test_table_release(&tt);
}

/* Sub-micro nanos under a micros-scaled footer: a MICROS-annotated copy of
 * small nanos values scales by 1000 exactly. */
static void test_timestamp_ns_units(void **state)
{
    (void)state;
    struct test_table tt;
    test_table_init(&tt, "[{'name':'t','type':'timestamp_ns'}]");
    const int64_t v[NT] = {123456789, -1, 999, -1000000001};
    struct fixture f;
    single_file(&f, &tt.t, "t", "tsn:", v, 8, NT, 3);
    const enum pq_time_unit units[] = {PQ_NANOS, PQ_MICROS, PQ_MILLIS};
    const int64_t scale[] = {1, 1000, 1000000};
    for (size_t u = 0; u < ARRAY_LEN(units); u++) {
        element(&f.res.meta, "t")->logical.unit = units[u];
        struct pq_col_stats *st;
        assert_int_equal(stats_of(&f, reparse(&f, &f.res.meta), NULL, &tt.t, &st), 1);
        expect_scaled(&st[0], v, scale[u]);
    }
    fixture_free(&f);
    test_table_release(&tt);
}

/* ---- other types, and bounds that degrade ---- */

static void test_json_time_uuid_bool_float(void **state)
{
    (void)state;
    struct test_table tt;
    test_table_init(&tt, "[{'name':'j','type':'json'},{'name':'t','type':'time'},"
                         " {'name':'u','type':'uuid'},{'name':'b','type':'boolean'},"
                         " {'name':'f','type':'float'},{'name':'bin','type':'binary'}]");
    const char *const docs[NT] = {"{\"b\": 1}", "[1,2]", "{\"a\":  \"\xc3\xa9\"}", "null"};
    const int64_t times[NT] = {86399999999, 0, 1, 43200000000};
    uint8_t uuids[NT][16];
    for (int i = 0; i < NT; i++)
        for (int k = 0; k < 16; k++)
            uuids[i][k] = (uint8_t)(0xf7 - 16 * i + k);
    const uint8_t bools[NT] = {0, 0, 0, 0};
    const float fl[NT] = {1.5f, -2.25f, NAN, 3e38f};
    const char *const bins[NT] = {"\xff\x00", "", "\x00", "\x7f"};
    const size_t bin_lens[NT] = {2, 0, 1, 1};
    struct ArrowSchema cs[6], s;
    struct ArrowArray ca[6], a;
    col_bytes(&cs[0], &ca[0], "j", "u", docs, NULL, NT, NULL);
    col_fixed(&cs[1], &ca[1], "t", "ttu", times, 8, NT, NULL);
    col_fixed(&cs[2], &ca[2], "u", "w:16", uuids, 16, NT, NULL);
    col_fixed(&cs[3], &ca[3], "b", "b", bools, 1, NT, NULL);
    col_fixed(&cs[4], &ca[4], "f", "f", fl, 4, NT, NULL);
    col_bytes(&cs[5], &ca[5], "bin", "z", bins, bin_lens, NT, NULL);
    batch_of(&s, &a, cs, ca, 6, NT);
    struct fixture f;
    write_file(&f, &tt.t, 2, &s, &a);
    struct pq_col_stats *st;
    assert_int_equal(file_stats(&f, &tt.t, &st), 6);
    /* json: the document bytes, verbatim */
    expect_bounds(&st[0], docs[1], strlen(docs[1]), docs[0], strlen(docs[0]));
    expect_scaled(&st[1], times, 1);
    expect_bounds(&st[2], uuids[NT - 1], 16, uuids[0], 16);
    expect_hex(st[2].upper, 1, "f7");
    expect_hex(st[3].lower, st[3].lower_len, "00");
    expect_hex(st[3].upper, st[3].upper_len, "00");
    float flo = -2.25f, fhi = 3e38f; /* NaN never bounds */
    expect_bounds(&st[4], &flo, 4, &fhi, 4);
    expect_bounds(&st[5], "", 0, "\xff\x00", 2);

    /* double reads a FLOAT leaf (widened); string reads binary's BYTE_ARRAY;
     * binary reads uuid's FLBA; long does not read BOOLEAN. */
    struct test_table t2;
    const struct pq_col_stats *got[4];
    retyped(&f,
            "[{'name':'f','type':'double'},{'name':'bin','type':'string'},"
            " {'name':'u','type':'binary'},{'name':'b','type':'long'}]",
            &t2, got, 4);
    double dlo = flo, dhi = fhi;
    expect_bounds(got[0], &dlo, 8, &dhi, 8);
    expect_bounds(got[1], "", 0, "\xff\x00", 2);
    expect_bounds(got[2], uuids[NT - 1], 16, uuids[0], 16);
    expect_no_bounds(got[3]);
    test_table_release(&t2);
    fixture_free(&f);
    test_table_release(&tt);
}

/* Other writers' physical forms: TIME(MILLIS) in INT32, a decimal in
 * INT64 (DuckDB), an unannotated FLBA(16) uuid; TIME(NANOS) is refused. */
static void test_foreign_physical(void **state)
{
    (void)state;
    struct test_table tt;
    test_table_init(&tt,
                    "[{'name':'t','type':'time'},"
                    " {'name':'dec','type':'decimal','type_params':{'precision':10,'scale':2}},"
                    " {'name':'u','type':'uuid'}]");
    struct gen_options gen = {.max_string_len = 1};
    struct rng g = {8};
    struct ArrowSchema s;
    struct ArrowArray a;
    gen_batch(&tt.t, 2, &gen, &g, &s, &a);
    struct fixture f;
    write_file(&f, &tt.t, 0, &s, &a);
    struct pq_file_meta *m = &f.res.meta;
    struct pq_schema_element *t = element(m, "t");
    t->type = PQ_INT32;
    t->logical.unit = PQ_MILLIS;
    t->converted = PQ_CT_TIME_MILLIS;
    static uint8_t traw[16], draw[16], nraw[16];
    set_int_stats(chunk(m, 0, "t"), PQ_INT32, 5, 86399999, traw);
    struct pq_schema_element *d = element(m, "dec");
    d->type = PQ_INT64;
    d->type_length = 0;
    set_int_stats(chunk(m, 0, "dec"), PQ_INT64, -129, 1234, draw);
    struct pq_schema_element *u = element(m, "u");
    u->logical.kind = PQ_LT_NONE;
    const struct pq_statistics *us = &chunk(m, 0, "u")->statistics;
    struct pq_col_stats *st;
    assert_int_equal(stats_of(&f, reparse(&f, m), NULL, &tt.t, &st), 3);
    expect_int_bounds(&st[0], 5000, INT64_C(86399999000), 8);
    expect_hex(st[1].lower, st[1].lower_len, "ff7f"); /* the spec's -129 */
    expect_hex(st[1].upper, st[1].upper_len, "04d2"); /* and 1234 */
    expect_bounds(&st[2], us->min, 16, us->max, 16);
    /* TIME(NANOS) in INT64: a time bound would truncate. */
    t->type = PQ_INT64;
    t->logical.unit = PQ_NANOS;
    t->has_converted = false;
    set_int_stats(chunk(m, 0, "t"), PQ_INT64, 1, 2, nraw);
    assert_int_equal(stats_of(&f, reparse(&f, m), NULL, &tt.t, &st), 3);
    expect_no_bounds(&st[0]);
    assert_int_equal(st[0].value_count, 2);
    fixture_free(&f);
    test_table_release(&tt);
}

static void test_degrade_to_null(void **state)
{
    (void)state;
    struct test_table tt;
    static struct six d;
    struct fixture f;
    six_file(&tt, &d, &f);

    /* decimal at another scale; a DATE leaf under int; a TIMESTAMP leaf
     * under long; a DATE leaf under date; a double under float. */
    struct test_table t2;
    const struct pq_col_stats *got[5];
    retyped(&f,
            "[{'name':'amount','type':'decimal','type_params':{'precision':10,'scale':3}},"
            " {'name':'day','type':'int'},{'name':'ts','type':'long'},"
            " {'name':'id','type':'date'},{'name':'score','type':'float'}]",
            &t2, got, 5);
    for (int i = 0; i < 5; i++) {
        expect_no_bounds(got[i]);
        assert_int_equal(got[i]->value_count, ROWS);
    }
    test_table_release(&t2);

    /* Statistics that do not decode: a 3-byte INT32, a decimal wider than
     * 16 significant bytes, one row group without a max. Counts stay. */
    struct pq_file_meta *m = &f.res.meta;
    chunk(m, 2, "day")->statistics.min_len = 3;
    static uint8_t wide[20] = {0x00, 0x01}; /* 2^144: past 16 bytes */
    chunk(m, 1, "amount")->statistics.max = wide;
    chunk(m, 1, "amount")->statistics.max_len = sizeof wide;
    chunk(m, 3, "id")->statistics.has_max = false;
    /* A decimal in 20 bytes whose value fits: sign bytes dropped. */
    static uint8_t padded[20];
    memset(padded, 0xff, sizeof padded);
    padded[19] = 0x80; /* -128 */
    struct pq_schema_element *e = element(m, "amount");
    e->type_length = 20;
    for (size_t g = 0; g < 4; g++) {
        if (g != 1) {
            chunk(m, g, "amount")->statistics.min = padded;
            chunk(m, g, "amount")->statistics.min_len = 20;
            chunk(m, g, "amount")->statistics.max = padded;
            chunk(m, g, "amount")->statistics.max_len = 20;
        }
    }
    struct pq_col_stats *st;
    assert_int_equal(stats_of(&f, reparse(&f, m), NULL, &tt.t, &st), 6);
    expect_no_bounds(&st[0]); /* id */
    expect_no_bounds(&st[3]); /* day */
    expect_no_bounds(&st[5]); /* amount: row group 1 too wide */
    for (int i = 0; i < 6; i++)
        assert_int_equal(st[i].value_count, ROWS);
    chunk(m, 1, "amount")->statistics.max = padded;
    chunk(m, 1, "amount")->statistics.max_len = 20;
    chunk(m, 1, "amount")->statistics.min = padded;
    chunk(m, 1, "amount")->statistics.min_len = 20;
    assert_int_equal(stats_of(&f, reparse(&f, m), NULL, &tt.t, &st), 6);
    expect_hex(st[5].lower, st[5].lower_len, "80");
    expect_hex(st[5].upper, st[5].upper_len, "80");
    fixture_free(&f);
    test_table_release(&tt);
}

/* A boolean statistic other than 0 or 1 does not decode. */
static void test_bad_boolean_stat(void **state)
{
    (void)state;
    struct test_table tt;
    test_table_init(&tt, "[{'name':'b','type':'boolean'}]");
    const uint8_t v[2] = {1, 0};
    struct fixture f;
    single_file(&f, &tt.t, "b", "b", v, 1, 2, 0);
    struct pq_col_stats *st;
    assert_int_equal(file_stats(&f, &tt.t, &st), 1);
    expect_hex(st[0].lower, st[0].lower_len, "00");
    expect_hex(st[0].upper, st[0].upper_len, "01");
    static const uint8_t two = 2;
    chunk(&f.res.meta, 0, "b")->statistics.max = &two;
    assert_int_equal(file_stats(&f, &tt.t, &st), 1);
    expect_no_bounds(&st[0]);
    fixture_free(&f);
    test_table_release(&tt);
}

/* Our writer's byte-array statistics are exact or absent: a 4096-byte
 * maximum is kept whole; past that the chunk has counts but no min/max,
 * and the column no bounds. */
static void test_long_byte_arrays(void **state)
{
    (void)state;
    struct test_table tt;
    test_table_init(&tt, "[{'name':'a','type':'string'},{'name':'b','type':'binary'}]");
    enum { LONG = 4096 };
    static char big_a[LONG + 1], big_b[LONG + 2];
    memset(big_a, 'z', LONG);
    memset(big_b, 0xff, LONG + 1);
    const char *const av[4] = {"m", "b", big_a, "c"};
    const char *const bv[4] = {"m", "b", big_b, "c"};
    const size_t al[4] = {1, 1, LONG, 1}, bl[4] = {1, 1, LONG + 1, 1};
    const bool valid[4] = {true, true, true, false};
    struct ArrowSchema cs[2], s;
    struct ArrowArray ca[2], a;
    col_bytes(&cs[0], &ca[0], "a", "u", av, al, 4, valid);
    col_bytes(&cs[1], &ca[1], "b", "z", bv, bl, 4, valid);
    batch_of(&s, &a, cs, ca, 2, 4);
    struct fixture f;
    write_file(&f, &tt.t, 2, &s, &a);
    const struct pq_statistics *b1 = &chunk(&f.res.meta, 1, "b")->statistics;
    assert_true(b1->has_null_count);
    assert_int_equal(b1->null_count, 1);
    assert_false(b1->has_min || b1->has_max);
    struct pq_col_stats *st;
    assert_int_equal(file_stats(&f, &tt.t, &st), 2);
    expect_bounds(&st[0], "b", 1, big_a, LONG);
    expect_no_bounds(&st[1]);
    assert_int_equal(st[1].value_count, 4);
    assert_int_equal(st[1].null_count, 1);
    fixture_free(&f);
    test_table_release(&tt);
}

/* ---- floats: signed zeros and total order ---- */

static void zero_file(struct fixture *f, const struct lake_table *t, const double *v, size_t n)
{
    float fv[8];
    for (size_t i = 0; i < n; i++)
        fv[i] = (float)v[i];
    struct ArrowSchema cs[2], s;
    struct ArrowArray ca[2], a;
    col_fixed(&cs[0], &ca[0], "d", "g", v, 8, (int64_t)n, NULL);
    col_fixed(&cs[1], &ca[1], "f", "f", fv, 4, (int64_t)n, NULL);
    batch_of(&s, &a, cs, ca, 2, (int64_t)n);
    write_file(f, t, 2, &s, &a);
}

static void test_signed_zero(void **state)
{
    (void)state;
    struct test_table tt;
    test_table_init(&tt, "[{'name':'d','type':'double'},{'name':'f','type':'float'}]");
    const double orders[2][4] = {{0.0, -0.0, -0.0, 0.0}, {-0.0, 0.0, 0.0, -0.0}};
    struct pq_col_stats got[2][2];
    for (int o = 0; o < 2; o++) {
        struct fixture f;
        zero_file(&f, &tt.t, orders[o], 4);
        assert_int_equal(f.res.meta.nrow_groups, 2);
        struct pq_col_stats *st;
        assert_int_equal(file_stats(&f, &tt.t, &st), 2);
        for (int c = 0; c < 2; c++) {
            got[o][c] = st[c];
            /* copy the bytes out of the arena freed below */
            uint8_t *b = malloc(16);
            memcpy(b, st[c].lower, st[c].lower_len);
            memcpy(b + 8, st[c].upper, st[c].upper_len);
            got[o][c].lower = b;
            got[o][c].upper = b + 8;
        }
        fixture_free(&f);
    }
    expect_hex(got[0][0].lower, 8, "0000000000000080");
    expect_hex(got[0][0].upper, 8, "0000000000000000");
    expect_hex(got[0][1].lower, 4, "00000080");
    expect_hex(got[0][1].upper, 4, "00000000");
    for (int c = 0; c < 2; c++) {
        assert_memory_equal(got[0][c].lower, got[1][c].lower, got[0][c].lower_len);
        assert_memory_equal(got[0][c].upper, got[1][c].upper, got[0][c].upper_len);
        free((void *)got[0][c].lower);
        free((void *)got[1][c].lower);
    }
    test_table_release(&tt);
}

/* Row groups whose statistics are single values: lower and upper are the
 * least and greatest under IEEE total order, in any row-group order, a
 * zero lower bound -0.0 and a zero upper +0.0. */
static void test_float_total_order(void **state)
{
    (void)state;
    struct test_table tt;
    test_table_init(&tt, "[{'name':'d','type':'double'}]");
    const double order[] = {-INFINITY, -2, -1, -0.0, 0.0, 1, 2, INFINITY};
    enum { K = ARRAY_LEN(order) };
    const double seed[2] = {1, 1};
    for (size_t i = 0; i < K; i++) {
        for (size_t j = i + 1; j < K; j++) {
            for (int rev = 0; rev < 2; rev++) {
                struct fixture f;
                single_file(&f, &tt.t, "d", "g", seed, 8, 2, 1);
                const double *first = rev ? &order[j] : &order[i];
                const double *second = rev ? &order[i] : &order[j];
                for (size_t g = 0; g < 2; g++) {
                    struct pq_statistics *ps = &chunk(&f.res.meta, g, "d")->statistics;
                    ps->min = ps->max = (const uint8_t *)(g ? second : first);
                }
                struct pq_col_stats *st;
                assert_int_equal(file_stats(&f, &tt.t, &st), 1);
                double lo = order[i] == 0 ? -0.0 : order[i];
                double hi = order[j] == 0 ? 0.0 : order[j];
                expect_bounds(&st[0], &lo, 8, &hi, 8);
                fixture_free(&f);
            }
        }
    }
    /* A NaN maximum in a footer drops that bound only. */
    struct fixture f;
    single_file(&f, &tt.t, "d", "g", seed, 8, 2, 1);
    static const double nan = NAN;
    chunk(&f.res.meta, 1, "d")->statistics.max = (const uint8_t *)&nan;
    struct pq_col_stats *st;
    assert_int_equal(file_stats(&f, &tt.t, &st), 1);
    assert_non_null(st[0].lower);
    assert_null(st[0].upper);
    fixture_free(&f);
    test_table_release(&tt);
}

/* ---- nested leaves and variants ---- */

/* Appends catalog leaves depth-first with their dotted Parquet paths; a
 * list's element and a map's key and value have fixed names there. */
static void leaves_of(const struct lake_column *c, const char *name, const char *path,
                      const struct lake_column **cols, char (*paths)[128], size_t *n)
{
    char p[128];
    snprintf(p, sizeof p, "%s%s%s", path, *path ? "." : "", name);
    switch (c->type) {
    case LT_VARIANT: return;
    case LT_STRUCT:
        for (size_t i = 0; i < c->nchildren; i++)
            leaves_of(c->children[i], c->children[i]->name, p, cols, paths, n);
        return;
    case LT_LIST: {
        char q[160];
        snprintf(q, sizeof q, "%s.list", p);
        leaves_of(c->children[0], "element", q, cols, paths, n);
        return;
    }
    case LT_MAP: {
        char q[160];
        snprintf(q, sizeof q, "%s.key_value", p);
        leaves_of(c->children[0], "key", q, cols, paths, n);
        leaves_of(c->children[1], "value", q, cols, paths, n);
        return;
    }
    default:
        cols[*n] = c;
        snprintf(paths[*n], 128, "%s", p);
        (*n)++;
    }
}

static void test_nested(void **state)
{
    (void)state;
    struct test_table tt;
    test_table_init(&tt, pq_nested_table);
    struct gen_options gen = {.null_per_mille = 150, .max_list_len = 3, .max_string_len = 4};
    struct rng g = {21};
    struct ArrowSchema s;
    struct ArrowArray a;
    gen_batch(&tt.t, ROWS, &gen, &g, &s, &a);
    /* ints: list<int not null>; its element bounds from the data. */
    const struct ArrowArray *ints = a.children[2];
    const int32_t *off = ints->buffers[1];
    const int32_t *iv = ints->children[0]->buffers[1];
    int32_t ilo = INT32_MAX, ihi = INT32_MIN;
    int64_t elems = 0, empty_or_null = 0;
    for (int64_t r = 0; r < ROWS; r++) {
        bool valid = !ints->buffers[0] || arrow_bit(ints->buffers[0], r);
        if (!valid || off[r] == off[r + 1]) {
            empty_or_null++;
            continue;
        }
        for (int32_t k = off[r]; k < off[r + 1]; k++) {
            ilo = iv[k] < ilo ? iv[k] : ilo;
            ihi = iv[k] > ihi ? iv[k] : ihi;
            elems++;
        }
    }
    /* s.a: int in a nullable struct. */
    const struct ArrowArray *sa = a.children[1]->children[0];
    int32_t alo = INT32_MAX, ahi = INT32_MIN;
    int64_t anulls = 0;
    for (int64_t r = 0; r < ROWS; r++) {
        bool valid = (!a.children[1]->buffers[0] || arrow_bit(a.children[1]->buffers[0], r)) &&
                     (!sa->buffers[0] || arrow_bit(sa->buffers[0], r));
        if (!valid) {
            anulls++;
            continue;
        }
        int32_t v = ((const int32_t *)sa->buffers[1])[r];
        alo = v < alo ? v : alo;
        ahi = v > ahi ? v : ahi;
    }
    struct fixture f;
    write_file(&f, &tt.t, RG, &s, &a);

    const struct lake_column *cols[32];
    char paths[32][128];
    size_t nl = 0;
    for (size_t i = 0; i < tt.t.root.nchildren; i++)
        leaves_of(tt.t.root.children[i], tt.t.root.children[i]->name, "", cols, paths, &nl);
    struct pq_col_stats *st;
    size_t n = file_stats(&f, &tt.t, &st);
    assert_int_equal(n, nl);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(st[i].field_id, cols[i]->field_id);
        expect_counts_from_chunks(&f.res.meta, paths[i], &st[i]);
    }
    assert_null(find(st, n, field_id(&tt.t, "ints"))); /* a container: no stats */
    const struct pq_col_stats *el = NULL;
    for (size_t i = 0; i < n; i++)
        if (strcmp(paths[i], "ints.list.element") == 0)
            el = &st[i];
    assert_non_null(el);
    assert_int_equal(el->value_count, elems + empty_or_null);
    assert_int_equal(el->null_count, empty_or_null);
    expect_int_bounds(el, ilo, ihi, 4);
    const struct pq_col_stats *as = must_find(st, n, field_id(&tt.t, "s.a"));
    assert_int_equal(as->value_count, ROWS);
    assert_int_equal(as->null_count, anulls);
    expect_int_bounds(as, alo, ahi, 4);
    fixture_free(&f);
    test_table_release(&tt);
}

/* A variant column yields nothing, however its footer group looks, and
 * its leaves are not bound to anything else. */
static void test_variant_skipped(void **state)
{
    (void)state;
    struct test_table file_t, cat_t;
    /* The file's VARIANT group as its storage struct: loaded as stored
     * columns, since a create refuses a struct of that shape. */
    test_table_init(&file_t, "[{'name':'id','type':'long'}]");
    struct error e;
    assert_int_equal(
        lake_table_load_column(&file_t.t, 2, 0, "v", LT_STRUCT, 0, 0, true, 1, NULL, &e), 0);
    assert_int_equal(
        lake_table_load_column(&file_t.t, 3, 2, "metadata", LT_BINARY, 0, 0, false, 0, NULL, &e),
        0);
    assert_int_equal(
        lake_table_load_column(&file_t.t, 4, 2, "value", LT_BINARY, 0, 0, true, 1, NULL, &e), 0);
    test_table_init(&cat_t, "[{'name':'id','type':'long'},{'name':'v','type':'variant'}]");
    struct gen_options gen = {.null_per_mille = 100, .max_string_len = 4};
    struct rng g = {4};
    struct ArrowSchema s;
    struct ArrowArray a;
    gen_batch(&file_t.t, ROWS, &gen, &g, &s, &a);
    struct fixture f;
    write_file(&f, &file_t.t, RG, &s, &a);
    struct pq_col_stats *st;
    assert_int_equal(file_stats(&f, &cat_t.t, &st), 1);
    assert_int_equal(st[0].field_id, field_id(&cat_t.t, "id"));
    fixture_free(&f);
    test_table_release(&file_t);
    test_table_release(&cat_t);
}

/* ---- missing counts, empty and corrupt footers ---- */

static void test_missing_null_count(void **state)
{
    (void)state;
    struct test_table tt;
    static struct six d;
    struct fixture f;
    six_file(&tt, &d, &f);
    struct pq_file_meta *m = &f.res.meta;
    chunk(m, 2, "name")->statistics.has_null_count = false;
    chunk(m, 3, "score")->has_statistics = false;
    struct pq_col_stats *st;
    const struct pq_file_meta *edited = reparse(&f, m);
    size_t n = stats_of(&f, edited, NULL, &tt.t, &st);
    assert_int_equal(n, 4);
    assert_null(find(st, n, field_id(&tt.t, "name")));
    assert_null(find(st, n, field_id(&tt.t, "score")));
    assert_non_null(find(st, n, field_id(&tt.t, "id")));
    /* The same through the writer's tree and unencoded meta. */
    assert_int_equal(file_stats(&f, &tt.t, &st), 4);
    fixture_free(&f);
    test_table_release(&tt);
}

static void test_empty_and_corrupt(void **state)
{
    (void)state;
    struct test_table tt;
    test_table_init(&tt, six_table);
    /* No row groups: no stats. */
    struct fixture e = {.file = BUF_INIT};
    write_batches(&tt.t, NULL, NULL, NULL, 0, &e.file, &e.res);
    arena_init(&e.arena, 0);
    assert_int_equal(e.res.meta.nrow_groups, 0);
    struct pq_col_stats *st;
    assert_int_equal(file_stats(&e, &tt.t, &st), 0);
    assert_null(st);
    fixture_free(&e);

    test_table_release(&tt);
    static struct six d;
    struct fixture f;
    six_file(&tt, &d, &f);
    struct pq_file_meta *m = &f.res.meta;
    struct error err = {0};
    size_t n;
    /* A chunk whose path is another column's. */
    const char **path = chunk(m, 1, "day")->path;
    path[0] = "ts";
    assert_int_equal(pq_footer_column_stats(m, &f.res.schema, &tt.t, &f.arena, &st, &n, &err), -1);
    assert_int_equal(err.code, ERR_CORRUPT);
    path[0] = "day";
    /* Negative counts, and more nulls than values. */
    chunk(m, 2, "id")->statistics.null_count = -1;
    assert_int_equal(pq_footer_column_stats(m, &f.res.schema, &tt.t, &f.arena, &st, &n, &err), -1);
    assert_int_equal(err.code, ERR_CORRUPT);
    chunk(m, 2, "id")->statistics.null_count = 31;
    assert_int_equal(pq_footer_column_stats(m, &f.res.schema, &tt.t, &f.arena, &st, &n, &err), -1);
    assert_int_equal(err.code, ERR_CORRUPT);
    chunk(m, 2, "id")->statistics.null_count = 0;
    /* A row group missing a column. */
    m->row_groups[3].ncolumns--;
    assert_int_equal(pq_footer_column_stats(m, &f.res.schema, &tt.t, &f.arena, &st, &n, &err), -1);
    assert_int_equal(err.code, ERR_CORRUPT);
    m->row_groups[3].ncolumns++;
    assert_int_equal(pq_footer_column_stats(m, &f.res.schema, &tt.t, &f.arena, &st, &n, &err), 0);
    assert_int_equal(n, 6);
    fixture_free(&f);
    test_table_release(&tt);
}

/* ---- property: random data of every scalar type ---- */

static const char all_scalars[] =
    "[{'name':'bo','type':'boolean'},{'name':'i8','type':'int8'},{'name':'i16','type':'int16'},"
    " {'name':'i','type':'int'},{'name':'l','type':'long'},{'name':'u8','type':'uint8'},"
    " {'name':'u16','type':'uint16'},{'name':'u32','type':'uint32'},"
    " {'name':'u64','type':'uint64'},{'name':'f','type':'float'},{'name':'d','type':'double'},"
    " {'name':'dec','type':'decimal','type_params':{'precision':18,'scale':4}},"
    " {'name':'da','type':'date'},{'name':'t','type':'time'},"
    " {'name':'ts','type':'timestamp_s'},{'name':'tm','type':'timestamp_ms'},"
    " {'name':'tu','type':'timestamp'},{'name':'tn','type':'timestamp_ns'},"
    " {'name':'tz','type':'timestamptz'},{'name':'s','type':'string'},"
    " {'name':'j','type':'json'},{'name':'u','type':'uuid'},{'name':'bi','type':'binary'}]";

/* One value in comparable form. */
struct pv {
    i128 i;
    double f;
    const uint8_t *b;
    size_t n;
    bool ok; /* representable (temporal scaling did not overflow) */
};

static struct pv value_at(const struct lake_column *c, const struct ArrowArray *col, int64_t r)
{
    struct pv v = {.ok = true};
    const void *p = col->buffers[1];
    int64_t x;
    switch (c->type) {
    case LT_BOOLEAN: v.i = arrow_bit(p, r); break;
    case LT_INT8: v.i = ((const int8_t *)p)[r]; break;
    case LT_INT16: v.i = ((const int16_t *)p)[r]; break;
    case LT_INT:
    case LT_DATE: v.i = ((const int32_t *)p)[r]; break;
    case LT_UINT8: v.i = ((const uint8_t *)p)[r]; break;
    case LT_UINT16: v.i = ((const uint16_t *)p)[r]; break;
    case LT_UINT32: v.i = ((const uint32_t *)p)[r]; break;
    case LT_UINT64: v.i = ((const uint64_t *)p)[r]; break;
    case LT_FLOAT: v.f = ((const float *)p)[r]; break;
    case LT_DOUBLE: v.f = ((const double *)p)[r]; break;
    case LT_DECIMAL: memcpy(&v.i, (const uint8_t *)p + 16 * r, 16); break;
    case LT_TIMESTAMP_S:
        v.ok = !__builtin_mul_overflow(((const int64_t *)p)[r], INT64_C(1000000), &x);
        v.i = x;
        break;
    case LT_TIMESTAMP_MS:
        v.ok = !__builtin_mul_overflow(((const int64_t *)p)[r], INT64_C(1000), &x);
        v.i = x;
        break;
    case LT_UUID:
        v.b = (const uint8_t *)p + 16 * r;
        v.n = 16;
        break;
    case LT_STRING:
    case LT_JSON:
    case LT_BINARY: {
        const int32_t *off = p;
        v.b = (const uint8_t *)col->buffers[2] + off[r];
        v.n = (size_t)(off[r + 1] - off[r]);
        break;
    }
    default: v.i = ((const int64_t *)p)[r]; break; /* long, time, us, ns, tz */
    }
    return v;
}

static int pv_cmp(const struct lake_column *c, const struct pv *a, const struct pv *b)
{
    if (c->type == LT_FLOAT || c->type == LT_DOUBLE)
        return (a->f > b->f) - (a->f < b->f);
    if (a->b || b->b) {
        size_t m = a->n < b->n ? a->n : b->n;
        int r = m ? memcmp(a->b, b->b, m) : 0;
        return r ? r : (a->n > b->n) - (a->n < b->n);
    }
    return (a->i > b->i) - (a->i < b->i);
}

/* The expected bound bytes of v. */
static size_t pv_bytes(const struct lake_column *c, const struct pv *v, bool lower, uint8_t *out)
{
    switch (c->type) {
    case LT_BOOLEAN: out[0] = (uint8_t)v->i; return 1;
    case LT_INT8:
    case LT_INT16:
    case LT_INT:
    case LT_UINT8:
    case LT_UINT16:
    case LT_DATE: le(out, (uint64_t)(int64_t)v->i, 4); return 4;
    case LT_UINT64:
    case LT_DECIMAL: return bound_decimal_minimal(v->i, out);
    case LT_FLOAT: {
        float f = v->f == 0 ? (lower ? -0.0f : 0.0f) : (float)v->f;
        memcpy(out, &f, 4);
        return 4;
    }
    case LT_DOUBLE: {
        double d = v->f == 0 ? (lower ? -0.0 : 0.0) : v->f;
        memcpy(out, &d, 8);
        return 8;
    }
    case LT_UUID:
    case LT_STRING:
    case LT_JSON:
    case LT_BINARY:
        if (v->n)
            memcpy(out, v->b, v->n);
        return v->n;
    default: le(out, (uint64_t)(int64_t)v->i, 8); return 8;
    }
}

static void expect_column(const struct lake_column *c, const struct ArrowArray *col, int64_t rows,
                          int64_t rg_rows, const struct pq_col_stats *st)
{
    int64_t nulls = 0;
    struct pv lo = {0}, hi = {0};
    bool any = false, bounds = true;
    for (int64_t g0 = 0; g0 < rows; g0 += rg_rows) {
        int64_t g1 = g0 + rg_rows < rows ? g0 + rg_rows : rows;
        bool some_value = false, some_bound = false;
        for (int64_t r = g0; r < g1; r++) {
            if (col->buffers[0] && !arrow_bit(col->buffers[0], r)) {
                nulls++;
                continue;
            }
            some_value = true;
            struct pv v = value_at(c, col, r);
            if ((c->type == LT_FLOAT || c->type == LT_DOUBLE) && isnan(v.f))
                continue;
            some_bound = true;
            bounds &= v.ok;
            if (!any || pv_cmp(c, &v, &lo) < 0)
                lo = v;
            if (!any || pv_cmp(c, &v, &hi) > 0)
                hi = v;
            any = true;
        }
        /* A row group of values that are all NaN has no min/max. */
        if (some_value && !some_bound)
            bounds = false;
    }
    assert_int_equal(st->value_count, rows);
    assert_int_equal(st->null_count, nulls);
    if (!any || !bounds) {
        expect_no_bounds(st);
        return;
    }
    uint8_t a[64], b[64];
    assert_true(lo.n < 64 && hi.n < 64);
    size_t an = pv_bytes(c, &lo, true, a), bn = pv_bytes(c, &hi, false, b);
    expect_bounds(st, a, an, b, bn);
}

static void test_property_random(void **state)
{
    (void)state;
    struct test_table tt;
    test_table_init(&tt, all_scalars);
    struct rng g = {2026};
    for (int iter = 0; iter < 40; iter++) {
        struct gen_options gen = {.null_per_mille = (int)rng_below(&g, 4) * 300,
                                  .max_string_len = 8,
                                  .distinct_small = rng_below(&g, 4) == 0};
        int64_t rows = 1 + (int64_t)rng_below(&g, 300);
        int64_t rg_rows = 1 + (int64_t)rng_below(&g, 80);
        struct ArrowSchema s;
        struct ArrowArray a;
        gen_batch(&tt.t, rows, &gen, &g, &s, &a);
        /* Half the runs keep temporal values small enough to scale. */
        if (iter % 2) {
            for (size_t i = 0; i < tt.t.root.nchildren; i++) {
                enum lake_type t = tt.t.root.children[i]->type;
                if (t != LT_TIMESTAMP_S && t != LT_TIMESTAMP_MS)
                    continue;
                int64_t *v = (int64_t *)a.children[i]->buffers[1];
                for (int64_t r = 0; r < rows; r++)
                    v[r] /= t == LT_TIMESTAMP_S ? 1000000 : 1000;
            }
        }
        struct fixture f;
        struct pq_write_options o;
        pq_write_options_default(&o);
        o.row_group_rows = rg_rows;
        o.dictionary = rng_below(&g, 2);
        f.file = (struct buf)BUF_INIT;
        write_batches(&tt.t, &o, &s, &a, 1, &f.file, &f.res);
        arena_init(&f.arena, 0);
        assert_int_equal(f.res.meta.nrow_groups, (size_t)((rows + rg_rows - 1) / rg_rows));
        for (size_t rg = 0; rg < f.res.meta.nrow_groups; rg++) {
            int64_t left = rows - (int64_t)rg * rg_rows;
            assert_int_equal(f.res.meta.row_groups[rg].num_rows, left < rg_rows ? left : rg_rows);
        }
        struct pq_col_stats *st;
        size_t n = file_stats(&f, &tt.t, &st);
        assert_int_equal(n, tt.t.root.nchildren);
        for (size_t i = 0; i < n; i++) {
            const struct lake_column *c = tt.t.root.children[i];
            assert_int_equal(st[i].field_id, c->field_id);
            expect_column(c, a.children[i], rows, rg_rows, &st[i]);
        }
        fixture_free(&f);
        a.release(&a);
        s.release(&s);
    }
    test_table_release(&tt);
}

/* ---- finding a footer's columns by name and id ---- */

/* A required int64 leaf element, or a group of n children (n >= 0). */
static struct pq_schema_element schema_el(const char *name, int n, int32_t id)
{
    struct pq_schema_element e = {.name = name, .has_repetition = true};
    if (n >= 0) {
        e.has_num_children = true;
        e.num_children = n;
    } else {
        e.has_type = true;
        e.type = PQ_INT64;
    }
    e.has_field_id = id > 0;
    e.field_id = id;
    return e;
}

/* The tree of n elements, el[0] the root (made so here), in a new arena. */
static void schema_tree(struct pq_schema_element *el, size_t n, struct arena *a,
                        struct pq_schema *s)
{
    el[0].has_repetition = false;
    struct pq_file_meta m = {.schema = el, .nschema = n};
    arena_init(a, 0);
    struct error err = {0};
    if (pq_schema_from_file(&m, a, s, &err) != 0)
        fail_msg("schema: %s", err.msg);
}

/* The first child of a name or the first top-level node of an id, in the
 * footer's order, whatever the names' and ids' order; none for others. */
static void test_child_lookup(void **state)
{
    (void)state;
    struct pq_schema_element el[] = {
        schema_el("schema", 6, 0), schema_el("b", -1, 7),  schema_el("a", -1, 3),
        schema_el("b", -1, 9),     schema_el("c", -1, 0),  schema_el("a2", -1, 3),
        schema_el("g", 2, 11),     schema_el("y", -1, 12), schema_el("x", -1, 13),
    };
    struct arena a;
    struct pq_schema s;
    schema_tree(el, ARRAY_LEN(el), &a, &s);
    assert_ptr_equal(pq_schema_find_top(&s, "b")->el, &el[1]);
    assert_ptr_equal(pq_schema_find_top(&s, "a")->el, &el[2]);
    assert_ptr_equal(pq_schema_find_top(&s, "c")->el, &el[4]);
    assert_ptr_equal(pq_schema_find_top(&s, "a2")->el, &el[5]);
    assert_null(pq_schema_find_top(&s, "zz"));
    assert_null(pq_schema_find_top(&s, ""));
    assert_null(pq_schema_find_top(&s, "x")); /* not top-level */
    assert_ptr_equal(pq_schema_find_top_by_id(&s, 3)->el, &el[2]);
    assert_ptr_equal(pq_schema_find_top_by_id(&s, 9)->el, &el[3]);
    assert_ptr_equal(pq_schema_find_top_by_id(&s, 11)->el, &el[6]);
    assert_null(pq_schema_find_top_by_id(&s, 0));
    assert_null(pq_schema_find_top_by_id(&s, 13)); /* not top-level */
    const struct pq_node *g = pq_schema_find_top(&s, "g");
    assert_ptr_equal(pq_node_child_named(g, "x")->el, &el[8]);
    assert_ptr_equal(pq_node_child_named(g, "y")->el, &el[7]);
    assert_null(pq_node_child_named(g, "b"));
    assert_null(pq_node_child_named(pq_node_child_named(g, "x"), "x")); /* a leaf */
    assert_null(pq_node_child_named(NULL, "x"));
    arena_free(&a);
}

/* CPU seconds to look up, `rounds` times, every one of n top-level
 * columns (named and numbered out of order) by name and by id. */
static double lookup_seconds(int n, int rounds)
{
    struct pq_schema_element *el = calloc((size_t)n + 1, sizeof *el);
    char(*names)[16] = calloc((size_t)n, sizeof *names);
    assert_non_null(el);
    assert_non_null(names);
    el[0] = schema_el("schema", n, 0);
    for (int i = 0; i < n; i++) {
        int k = (int)(((int64_t)i * 7919) % n); /* 7919 is prime to the sizes used */
        snprintf(names[i], sizeof names[i], "c%d", k);
        el[i + 1] = schema_el(names[i], -1, k + 1);
    }
    struct arena a;
    struct pq_schema s;
    schema_tree(el, (size_t)n + 1, &a, &s);
    clock_t t0 = clock();
    for (int r = 0; r < rounds; r++)
        for (int i = 0; i < n; i++) {
            char name[16];
            snprintf(name, sizeof name, "c%d", i);
            if (!pq_schema_find_top(&s, name) || !pq_schema_find_top_by_id(&s, i + 1))
                fail_msg("column %d not found", i);
        }
    double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    arena_free(&a);
    free(names);
    free(el);
    return secs;
}

/* Matching a wide table against a wide footer costs n log n: 4x the
 * columns may cost at most 10x the time. Measured with the sorted index
 * 4.8-5.5x (Release) and 5.9-6.3x (sanitizers: more cache misses as the
 * index grows); a scan per lookup measured 14x. */
static void test_wide_lookup_scales(void **state)
{
    (void)state;
    double small = lookup_seconds(4000, 40), large = lookup_seconds(16000, 40);
    if (large > 10 * small && large > 0.2)
        fail_msg("4x the columns took %.1fx the time (%.3f s vs %.3f s)", large / small, large,
                 small);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_six_columns),
        cmocka_unit_test(test_child_lookup),
        cmocka_unit_test(test_wide_lookup_scales),
        cmocka_unit_test(test_all_null),
        cmocka_unit_test(test_unknown_columns),
        cmocka_unit_test(test_narrow_and_unsigned),
        cmocka_unit_test(test_uint32_as_int32),
        cmocka_unit_test(test_timestamps),
        cmocka_unit_test(test_timestamp_ns_units),
        cmocka_unit_test(test_json_time_uuid_bool_float),
        cmocka_unit_test(test_foreign_physical),
        cmocka_unit_test(test_degrade_to_null),
        cmocka_unit_test(test_bad_boolean_stat),
        cmocka_unit_test(test_long_byte_arrays),
        cmocka_unit_test(test_signed_zero),
        cmocka_unit_test(test_float_total_order),
        cmocka_unit_test(test_nested),
        cmocka_unit_test(test_variant_skipped),
        cmocka_unit_test(test_missing_null_count),
        cmocka_unit_test(test_empty_and_corrupt),
        cmocka_unit_test(test_property_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
