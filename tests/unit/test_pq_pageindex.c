/* The page index (ColumnIndex and OffsetIndex): bounds cut to a length
 * (bound.c), what the writer puts in the index on designed data (sorted,
 * reversed and unordered columns, all-null pages, values past the cut
 * length, nested columns whose pages start rows), the reader's checked
 * view of it, reads of row ranges compared with whole reads, and hostile
 * indexes refused as corrupt. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "parquet/bound.h"
#include "pq_testlib.h"
#include "util/arrow.h"
#include "util/strutil.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

enum { CUT = 4096 }; /* the writer's bound length (STAT_MAX_BYTES) */

/* Unsigned lexicographic order, the order of byte-array bounds. */
static int cmp_bytes(const void *a, size_t alen, const void *b, size_t blen)
{
    int r = memcmp(a, b, alen < blen ? alen : blen);
    return r ? r : (alen > blen) - (alen < blen);
}

/* ---- bound.c ---- */

static void expect_raise(const char *prefix, size_t len, bool utf8, int want_rc, const char *want,
                         size_t want_len)
{
    struct buf out = BUF_INIT;
    assert_int_equal(pq_bound_raise((const uint8_t *)prefix, len, utf8, &out), want_rc);
    if (want_rc == 0) {
        assert_int_equal(out.len, want_len);
        assert_memory_equal(out.data, want, want_len);
    } else {
        assert_int_equal(out.len, 0);
    }
    buf_free(&out);
}

static void test_bound_designed(void **state)
{
    (void)state;
    const uint8_t *ab = (const uint8_t *)"abcdef";
    assert_int_equal(pq_bound_cut_min(ab, 6, 4, false), 4);
    assert_int_equal(pq_bound_cut_min(ab, 3, 4, true), 3);
    /* "aé" is 61 c3 a9: a cut at 2 bytes would split the é */
    const uint8_t *ae = (const uint8_t *)"a\xc3\xa9z";
    assert_int_equal(pq_bound_cut_min(ae, 4, 2, true), 1);
    assert_int_equal(pq_bound_cut_min(ae, 4, 2, false), 2);
    assert_int_equal(pq_bound_cut_min(ae, 4, 3, true), 3);
    /* not UTF-8: cut by bytes */
    assert_int_equal(pq_bound_cut_min((const uint8_t *)"a\xff\xc3\xa9", 4, 3, true), 3);

    expect_raise("abc", 3, false, 0, "abd", 3);
    expect_raise("ab\xff\xff", 4, false, 0, "ac", 2);
    expect_raise("\xff\xff", 2, false, 1, NULL, 0);
    expect_raise("", 0, false, 1, NULL, 0);
    expect_raise("abc", 3, true, 0, "abd", 3);
    /* U+007F raises to U+0080, one byte longer */
    expect_raise("a\x7f", 2, true, 0, "a\xc2\x80", 3);
    /* é (U+00E9) to ê (U+00EA); a cut-off character is dropped first */
    expect_raise("a\xc3\xa9", 3, true, 0, "a\xc3\xaa", 3);
    expect_raise("a\xc3\xa9\xc3", 4, true, 0, "a\xc3\xaa", 3);
    /* U+D7FF skips the surrogates to U+E000 */
    expect_raise("\xed\x9f\xbf", 3, true, 0, "\xee\x80\x80", 3);
    /* U+FFFF to U+10000 */
    expect_raise("x\xef\xbf\xbf", 4, true, 0, "x\xf0\x90\x80\x80", 5);
    /* U+10FFFF cannot rise: the character before it does */
    expect_raise("b\xf4\x8f\xbf\xbf", 5, true, 0, "c", 1);
    expect_raise("\xf4\x8f\xbf\xbf\xf4\x8f\xbf\xbf", 8, true, 1, NULL, 0);
    /* not UTF-8: raised by bytes */
    expect_raise("a\xfe\x80", 3, true, 0, "a\xfe\x81", 3);
}

/* A random string over a small alphabet of bytes or characters that
 * crosses every UTF-8 length and the edges raising meets. */
static size_t random_text(struct rng *g, bool utf8, uint8_t *out, size_t max)
{
    static const char *const chars[] = {"a",
                                        "b",
                                        "\x7f",
                                        "\xc3\xa9",
                                        "\xdf\xbf",
                                        "\xed\x9f\xbf",
                                        "\xee\x80\x80",
                                        "\xef\xbf\xbf",
                                        "\xf0\x90\x80\x80",
                                        "\xf4\x8f\xbf\xbf"};
    static const uint8_t bytes[] = {0x00, 0x01, 0x61, 0x7f, 0x80, 0xfe, 0xff};
    size_t n = 0, want = (size_t)rng_below(g, max);
    while (n < want) {
        if (utf8) {
            const char *c = chars[rng_below(g, ARRAY_LEN(chars))];
            size_t k = strlen(c);
            if (n + k > max)
                break;
            memcpy(out + n, c, k);
            n += k;
        } else {
            out[n++] = bytes[rng_below(g, ARRAY_LEN(bytes))];
        }
    }
    return n;
}

/* Against random strings: a cut lower bound is never above its string,
 * a raised prefix is above every string it starts, and UTF-8 bounds are
 * UTF-8. */
static void test_bound_properties(void **state)
{
    (void)state;
    struct rng g = {7};
    uint8_t s[40], t[40];
    for (int iter = 0; iter < 20000; iter++) {
        bool utf8 = iter & 1;
        size_t sl = random_text(&g, utf8, s, sizeof s);
        size_t limit = 1 + (size_t)rng_below(&g, 12);
        size_t cut = pq_bound_cut_min(s, sl, limit, utf8);
        assert_true(cut <= limit && cut <= sl);
        assert_true(cmp_bytes(s, cut, s, sl) <= 0);
        if (utf8)
            assert_true(str_utf8_valid((const char *)s, cut, NULL));
        size_t plen = sl < limit ? sl : limit;
        struct buf up = BUF_INIT;
        int rc = pq_bound_raise(s, plen, utf8, &up);
        assert_true(rc == 0 || rc == 1);
        if (rc == 0) {
            assert_true(up.len <= plen + 1);
            if (utf8)
                assert_true(str_utf8_valid(up.data, up.len, NULL));
            assert_true(cmp_bytes(s, sl, up.data, up.len) < 0);
            /* any other string that starts with the prefix */
            size_t tl = random_text(&g, utf8, t, sizeof t);
            uint8_t u[80];
            memcpy(u, s, plen);
            memcpy(u + plen, t, tl);
            assert_true(cmp_bytes(u, plen + tl, up.data, up.len) < 0);
        }
        buf_free(&up);
    }
}

/* ---- files and reading ---- */

struct file {
    struct test_table tt;
    struct buf bytes;
    struct pq_write_result res;
    struct pq_source src;
    struct pq_reader *r;
    struct arena arena; /* page indexes */
};

static void file_write(struct file *f, const char *table, struct ArrowSchema *s,
                       struct ArrowArray *a, const struct pq_write_options *o)
{
    memset(f, 0, sizeof *f);
    test_table_init(&f->tt, table);
    f->bytes = (struct buf)BUF_INIT;
    write_batches(&f->tt.t, o, s, a, 1, &f->bytes, &f->res);
    s->release(s);
    a->release(a);
    arena_init(&f->arena, 0);
}

static void file_open(struct file *f)
{
    struct error err = {0};
    pq_source_memory(&f->src, f->bytes.data, f->bytes.len);
    if (pq_reader_open(&f->src, &f->r, &err) != 0)
        fail_msg("open: %s", err.msg);
}

static void file_release(struct file *f)
{
    pq_reader_free(f->r);
    pq_write_result_release(&f->res);
    buf_free(&f->bytes);
    test_table_release(&f->tt);
    arena_free(&f->arena);
}

static int leaf_of(const struct pq_reader *r, const char *path)
{
    const struct pq_schema *s = pq_reader_schema(r);
    for (int i = 0; i < s->nleaves; i++)
        if (strcmp(s->leaves[i]->path, path) == 0)
            return i;
    fail_msg("no leaf %s", path);
    return -1;
}

static void page_index_of(struct file *f, size_t g, const char *path, struct pq_page_index *pi)
{
    struct error err = {0};
    if (pq_reader_page_index(f->r, g, leaf_of(f->r, path), &f->arena, pi, &err) != 0)
        fail_msg("page index of %s: %s", path, err.msg);
    assert_true(pi->has_offsets);
}

/* Width in bytes of a fixed-width Arrow format; 0 for booleans, -1 for
 * anything else. */
static int format_width(const char *f)
{
    if (!strcmp(f, "b"))
        return 0;
    if (!strcmp(f, "c") || !strcmp(f, "C"))
        return 1;
    if (!strcmp(f, "s") || !strcmp(f, "S") || !strcmp(f, "e"))
        return 2;
    if (!strcmp(f, "i") || !strcmp(f, "I") || !strcmp(f, "f") || !strncmp(f, "td", 2) ||
        !strcmp(f, "ttm"))
        return 4;
    if (!strcmp(f, "l") || !strcmp(f, "L") || !strcmp(f, "g") || !strncmp(f, "ts", 2) ||
        !strcmp(f, "ttu") || !strcmp(f, "ttn"))
        return 8;
    if (!strncmp(f, "d:", 2))
        return 16;
    if (!strncmp(f, "w:", 2))
        return atoi(f + 2);
    return -1;
}

static bool valid_at(const struct ArrowArray *a, int64_t i)
{
    const uint8_t *v = a->n_buffers > 0 ? a->buffers[0] : NULL;
    return !v || arrow_bit(v, a->offset + i);
}

/* Whether row i of a and row j of b (arrays of the reader's output, of
 * schema s) hold the same value, nested values compared whole. */
static bool rows_equal(const struct ArrowSchema *s, const struct ArrowArray *a, int64_t i,
                       const struct ArrowArray *b, int64_t j)
{
    const char *f = s->format;
    if (!strcmp(f, "n"))
        return true;
    bool va = valid_at(a, i), vb = valid_at(b, j);
    if (va != vb)
        return false;
    if (!va)
        return true;
    i += a->offset;
    j += b->offset;
    if (!strcmp(f, "+s")) {
        for (int64_t k = 0; k < s->n_children; k++)
            if (!rows_equal(s->children[k], a->children[k], i, b->children[k], j))
                return false;
        return true;
    }
    if (!strcmp(f, "+l") || !strcmp(f, "+m") || !strcmp(f, "u") || !strcmp(f, "z")) {
        const int32_t *oa = a->buffers[1], *ob = b->buffers[1];
        int32_t n = oa[i + 1] - oa[i];
        if (n != ob[j + 1] - ob[j])
            return false;
        if (f[0] != '+')
            return memcmp((const char *)a->buffers[2] + oa[i], (const char *)b->buffers[2] + ob[j],
                          (size_t)n) == 0;
        for (int32_t k = 0; k < n; k++)
            if (!rows_equal(s->children[0], a->children[0], oa[i] + k, b->children[0], ob[j] + k))
                return false;
        return true;
    }
    int w = format_width(f);
    assert_true(w >= 0);
    if (w == 0)
        return arrow_bit(a->buffers[1], i) == arrow_bit(b->buffers[1], j);
    return memcmp((const uint8_t *)a->buffers[1] + i * w, (const uint8_t *)b->buffers[1] + j * w,
                  (size_t)w) == 0;
}

/* Reads row group g whole and in the given ranges, and checks that the
 * ranges' read holds exactly the rows of the whole read they select. */
static void expect_ranges_read(struct file *f, size_t g, const struct pq_row_range *ranges,
                               size_t n, struct pq_range_read_stats *st)
{
    struct error err = {0};
    struct ArrowSchema s;
    struct ArrowArray whole, part;
    assert_int_equal(pq_reader_arrow_schema(f->r, &s, &err), 0);
    if (pq_reader_read_row_group(f->r, g, &whole, &err) != 0)
        fail_msg("whole read: %s", err.msg);
    if (pq_reader_read_row_ranges(f->r, g, ranges, n, &part, st, &err) != 0)
        fail_msg("ranges read: %s", err.msg);
    int64_t k = 0;
    for (size_t i = 0; i < n; i++)
        for (int64_t row = ranges[i].begin; row < ranges[i].end; row++, k++)
            if (!rows_equal(&s, &whole, row, &part, k))
                fail_msg("row %lld (range %zu) differs", (long long)row, i);
    assert_int_equal(part.length, k);
    whole.release(&whole);
    part.release(&part);
    s.release(&s);
}

/* ---- what the writer writes ---- */

static const char designed_table[] =
    "[{'name':'asc','type':'long','nullable':false},{'name':'desc','type':'long'},"
    " {'name':'mixed','type':'int','nullable':false},{'name':'holes','type':'long'},"
    " {'name':'s','type':'string','nullable':false},{'name':'b','type':'boolean'}]";

enum { DROWS = 10000, DPAGE = 1000 };

/* The designed columns' values and validity, by row. */
static int64_t asc_at(int64_t i)
{
    return i * 5 - 7000;
}
static int64_t desc_at(int64_t i)
{
    return 1000000 - i * 3;
}
static bool desc_valid(int64_t i)
{
    return i % 10 != 3;
}
/* Up on even thousands, down on odd ones: pages in no order. */
static int64_t mixed_at(int64_t i)
{
    return (i / 1000) % 2 == 0 ? i : -i;
}
static int64_t holes_at(int64_t i)
{
    return i;
}
/* Rows [2000, 4000) of 'holes' are null: two whole pages. */
static bool holes_valid(int64_t i)
{
    return i < 2000 || i >= 4000;
}
static bool always(int64_t i)
{
    (void)i;
    return true;
}

static void write_designed(struct file *f, bool dictionary)
{
    int64_t *asc = malloc(DROWS * sizeof *asc), *desc = malloc(DROWS * sizeof *desc);
    int64_t *holes = malloc(DROWS * sizeof *holes);
    int32_t *mixed = malloc(DROWS * sizeof *mixed);
    bool *hvalid = malloc(DROWS * sizeof *hvalid), *dvalid = malloc(DROWS * sizeof *dvalid);
    uint8_t *bools = malloc(DROWS);
    const char **strs = malloc(DROWS * sizeof *strs);
    char(*text)[16] = malloc(DROWS * sizeof *text);
    assert_true(asc && desc && holes && mixed && hvalid && dvalid && bools && strs && text);
    for (int64_t i = 0; i < DROWS; i++) {
        asc[i] = asc_at(i);
        desc[i] = desc_at(i);
        dvalid[i] = desc_valid(i);
        mixed[i] = (int32_t)mixed_at(i);
        holes[i] = holes_at(i);
        hvalid[i] = holes_valid(i);
        bools[i] = i % 3 == 0;
        snprintf(text[i], sizeof text[i], "k%07lld", (long long)(i / 3));
        strs[i] = text[i];
    }
    struct ArrowSchema cs[6], s;
    struct ArrowArray ca[6], a;
    col_fixed(&cs[0], &ca[0], "asc", "l", asc, 8, DROWS, NULL);
    col_fixed(&cs[1], &ca[1], "desc", "l", desc, 8, DROWS, dvalid);
    col_fixed(&cs[2], &ca[2], "mixed", "i", mixed, 4, DROWS, NULL);
    col_fixed(&cs[3], &ca[3], "holes", "l", holes, 8, DROWS, hvalid);
    col_bytes(&cs[4], &ca[4], "s", "u", strs, NULL, DROWS, NULL);
    col_fixed(&cs[5], &ca[5], "b", "b", bools, 1, DROWS, dvalid);
    batch_of(&s, &a, cs, ca, 6, DROWS);
    struct pq_write_options o;
    pq_write_options_default(&o);
    o.page_rows = DPAGE;
    o.dictionary = dictionary;
    file_write(f, designed_table, &s, &a, &o);
    file_open(f);
    free(asc);
    free(desc);
    free(holes);
    free(mixed);
    free(hvalid);
    free(dvalid);
    free(bools);
    free(strs);
    free(text);
}

static int64_t load_int(const uint8_t *p, int width)
{
    if (width == 4) {
        int32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    int64_t v;
    memcpy(&v, p, 8);
    return v;
}

/* Each page's column index entry for an integer column is its rows' own
 * extremes and null count (a null page when no row holds a value). */
static void expect_int_pages(const struct pq_page_index *pi, int width, int64_t (*value)(int64_t),
                             bool (*valid)(int64_t))
{
    const struct pq_column_index *ci = &pi->bounds;
    for (size_t p = 0; p < pi->offsets.npages; p++) {
        struct pq_row_range rows;
        pq_page_index_rows(pi, p, &rows);
        int64_t lo = INT64_MAX, hi = INT64_MIN, nulls = 0;
        for (int64_t i = rows.begin; i < rows.end; i++) {
            if (!valid(i)) {
                nulls++;
                continue;
            }
            lo = value(i) < lo ? value(i) : lo;
            hi = value(i) > hi ? value(i) : hi;
        }
        assert_int_equal(ci->null_counts[p], nulls);
        assert_int_equal(ci->null_pages[p], nulls == rows.end - rows.begin);
        if (ci->null_pages[p]) {
            assert_int_equal(ci->min_lens[p] + ci->max_lens[p], 0);
            continue;
        }
        assert_int_equal(ci->min_lens[p], width);
        assert_int_equal(load_int(ci->min_values[p], width), lo);
        assert_int_equal(load_int(ci->max_values[p], width), hi);
    }
}

/* Every column of the designed file: bounds equal to each page's own
 * extremes, null pages and counts as the data has them, each column's
 * boundary order, and (without a dictionary, whose giving up closes a
 * page early) a page per DPAGE rows. */
static void test_designed_index(void **state)
{
    (void)state;
    for (int dict = 0; dict < 2; dict++) {
        struct file f;
        write_designed(&f, dict);
        struct pq_page_index asc, desc, mixed, holes, s, b;
        page_index_of(&f, 0, "asc", &asc);
        page_index_of(&f, 0, "desc", &desc);
        page_index_of(&f, 0, "mixed", &mixed);
        page_index_of(&f, 0, "holes", &holes);
        page_index_of(&f, 0, "s", &s);
        page_index_of(&f, 0, "b", &b);
        const struct pq_page_index *all[] = {&asc, &desc, &mixed, &holes, &s, &b};
        for (size_t c = 0; c < ARRAY_LEN(all); c++) {
            assert_true(all[c]->has_bounds);
            assert_int_equal(all[c]->num_rows, DROWS);
            assert_true(all[c]->offsets.npages >= DROWS / DPAGE);
            for (size_t p = 0; p < all[c]->offsets.npages; p++) {
                struct pq_row_range rows;
                pq_page_index_rows(all[c], p, &rows);
                assert_true(rows.end - rows.begin <= DPAGE);
                if (!dict)
                    assert_int_equal(rows.begin, (int64_t)p * DPAGE);
            }
        }
        assert_int_equal(asc.bounds.boundary_order, PQ_ASCENDING);
        assert_int_equal(desc.bounds.boundary_order, PQ_DESCENDING);
        assert_int_equal(mixed.bounds.boundary_order, PQ_UNORDERED);
        assert_int_equal(holes.bounds.boundary_order, PQ_ASCENDING); /* null pages skipped */
        assert_int_equal(s.bounds.boundary_order, PQ_ASCENDING);
        expect_int_pages(&asc, 8, asc_at, always);
        expect_int_pages(&desc, 8, desc_at, desc_valid);
        expect_int_pages(&mixed, 4, mixed_at, always);
        expect_int_pages(&holes, 8, holes_at, holes_valid);
        assert_true(holes.bounds.null_pages[2] && holes.bounds.null_pages[3]);
        for (size_t p = 0; p < s.offsets.npages; p++) {
            struct pq_row_range rows;
            pq_page_index_rows(&s, p, &rows);
            char lo[32], hi[32];
            snprintf(lo, sizeof lo, "k%07lld", (long long)(rows.begin / 3));
            snprintf(hi, sizeof hi, "k%07lld", (long long)((rows.end - 1) / 3));
            assert_int_equal(s.bounds.min_lens[p], 8);
            assert_memory_equal(s.bounds.min_values[p], lo, 8);
            assert_memory_equal(s.bounds.max_values[p], hi, 8);
            assert_int_equal(s.bounds.null_counts[p], 0);
        }
        for (size_t p = 0; p < b.offsets.npages; p++) {
            assert_int_equal(b.bounds.min_values[p][0], 0);
            assert_int_equal(b.bounds.max_values[p][0], 1);
        }
        /* The offset index lists data pages only: the dictionary page
         * (when there is one) lies before the first. */
        const struct pq_column_chunk *cc = &f.res.meta.row_groups[0].columns[leaf_of(f.r, "s")];
        assert_int_equal(cc->meta.has_dictionary_page_offset, dict);
        assert_int_equal(s.offsets.pages[0].offset, cc->meta.data_page_offset);
        if (dict)
            assert_true(cc->meta.dictionary_page_offset < s.offsets.pages[0].offset);
        file_release(&f);
    }
}

/* Turning the index off writes neither structure; reads of row ranges
 * then decode whole chunks. */
static void test_index_off(void **state)
{
    (void)state;
    struct test_table tt;
    test_table_init(&tt, "[{'name':'v','type':'long'}]");
    struct ArrowSchema s;
    struct ArrowArray a;
    struct rng g = {11};
    gen_batch(&tt.t, 5000, &(struct gen_options){.null_per_mille = 100}, &g, &s, &a);
    struct pq_write_options o;
    pq_write_options_default(&o);
    o.page_index = false;
    o.page_rows = 500;
    struct file f;
    file_write(&f, "[{'name':'v','type':'long'}]", &s, &a, &o);
    test_table_release(&tt);
    file_open(&f);
    const struct pq_column_chunk *cc = &f.res.meta.row_groups[0].columns[0];
    assert_false(cc->has_offset_index || cc->has_column_index);
    struct pq_page_index pi;
    struct error err = {0};
    assert_int_equal(pq_reader_page_index(f.r, 0, 0, &f.arena, &pi, &err), 0);
    assert_false(pi.has_offsets || pi.has_bounds);
    struct pq_range_read_stats st;
    const struct pq_row_range ranges[] = {{10, 20}, {4000, 4001}};
    expect_ranges_read(&f, 0, ranges, ARRAY_LEN(ranges), &st);
    assert_int_equal(st.chunks_read_whole, 1);
    assert_int_equal(st.pages_read + st.pages_skipped, 0);
    file_release(&f);
}

/* The row limit: pages of at most page_rows rows (the default 20,000), or
 * cut by bytes alone with 0; a negative limit is refused. */
static void test_page_rows_option(void **state)
{
    (void)state;
    struct test_table tt;
    test_table_init(&tt, "[{'name':'v','type':'int','nullable':false}]");
    for (int c = 0; c < 2; c++) {
        struct ArrowSchema s;
        struct ArrowArray a;
        struct rng g = {5};
        gen_batch(&tt.t, 50000, &(struct gen_options){0}, &g, &s, &a);
        struct pq_write_options o;
        pq_write_options_default(&o);
        assert_int_equal(o.page_rows, 20000);
        o.dictionary = false; /* (giving it up would close a page too) */
        if (c == 1)
            o.page_rows = 0;
        struct file f;
        file_write(&f, "[{'name':'v','type':'int','nullable':false}]", &s, &a, &o);
        file_open(&f);
        struct pq_page_index pi;
        page_index_of(&f, 0, "v", &pi);
        /* 50,000 4-byte values are 200 KB: one page by bytes alone */
        assert_int_equal(pi.offsets.npages, c == 0 ? 3 : 1);
        file_release(&f);
    }
    struct pq_write_options o;
    pq_write_options_default(&o);
    o.page_rows = -1;
    struct buf out = BUF_INIT;
    struct pq_sink sink = {test_sink_buf_write, &out};
    struct pq_writer *w;
    struct error err = {0};
    assert_int_equal(pq_writer_open(&tt.t, &o, &sink, &w, &err), -1);
    assert_int_equal(err.code, ERR_INVALID);
    assert_null(w);
    buf_free(&out);
    test_table_release(&tt);
}

/* Values longer than the cut length: a page's bounds are cut and raised
 * so they still bound every value of the page, whole characters for
 * strings; a page whose values are long runs of the highest byte or
 * character has no upper bound of bounded length, and its chunk then
 * has no column index (but an offset index). */
static void test_long_values(void **state)
{
    (void)state;
    enum { ROWS = 600, LEN = 5000 };
    static const char table[] = "[{'name':'ascii','type':'string','nullable':false},"
                                " {'name':'utf','type':'string'},"
                                " {'name':'bin','type':'binary','nullable':false},"
                                " {'name':'top','type':'binary','nullable':false}]";
    char **vals[4];
    size_t *lens[4];
    bool *valid = malloc(ROWS * sizeof *valid);
    assert_non_null(valid);
    for (int c = 0; c < 4; c++) {
        vals[c] = calloc(ROWS, sizeof *vals[c]);
        lens[c] = calloc(ROWS, sizeof *lens[c]);
        assert_true(vals[c] && lens[c]);
    }
    for (int i = 0; i < ROWS; i++) {
        valid[i] = i % 50 != 7;
        /* ascii: long on most rows, short (and lower) on some */
        size_t n = i % 4 == 0 ? 10 : LEN;
        vals[0][i] = malloc(n);
        memset(vals[0][i], 'x', n);
        vals[0][i][n - 1] = (char)(n == LEN ? 'a' + i % 26 : 'a' + i % 10);
        lens[0][i] = n;
        /* utf: "a" then é (2 bytes) past the cut, so the cut splits one */
        n = 1 + 2 * 2100 + 4 + 1;
        char *u = vals[1][i] = malloc(n);
        u[0] = 'a';
        for (int k = 0; k < 2100; k++)
            memcpy(u + 1 + 2 * k, "\xc3\xa9", 2);
        snprintf(u + 1 + 2 * 2100, 5, "%04d", i);
        lens[1][i] = n - 1; /* without the terminator */
        /* bin: 0x01 then 0xff bytes: raised to 0x02 */
        vals[2][i] = malloc(LEN);
        memset(vals[2][i], 0xff, LEN);
        vals[2][i][0] = 1;
        vals[2][i][LEN - 1] = (char)i;
        lens[2][i] = LEN;
        /* top: 0xff only: nothing of 4096 bytes is above it */
        vals[3][i] = malloc(LEN);
        memset(vals[3][i], 0xff, LEN);
        lens[3][i] = LEN - (size_t)(i % 3);
    }
    struct ArrowSchema cs[4], s;
    struct ArrowArray ca[4], a;
    col_bytes(&cs[0], &ca[0], "ascii", "u", (const char *const *)vals[0], lens[0], ROWS, NULL);
    col_bytes(&cs[1], &ca[1], "utf", "u", (const char *const *)vals[1], lens[1], ROWS, valid);
    col_bytes(&cs[2], &ca[2], "bin", "z", (const char *const *)vals[2], lens[2], ROWS, NULL);
    col_bytes(&cs[3], &ca[3], "top", "z", (const char *const *)vals[3], lens[3], ROWS, NULL);
    batch_of(&s, &a, cs, ca, 4, ROWS);
    struct pq_write_options o;
    pq_write_options_default(&o);
    o.page_rows = 100;
    o.dictionary = false;
    struct file f;
    file_write(&f, table, &s, &a, &o);
    file_open(&f);
    const char *names[] = {"ascii", "utf", "bin"};
    for (int c = 0; c < 3; c++) {
        struct pq_page_index pi;
        page_index_of(&f, 0, names[c], &pi);
        assert_true(pi.has_bounds);
        assert_int_equal(pi.offsets.npages, ROWS / 100);
        for (size_t p = 0; p < pi.offsets.npages; p++) {
            const struct pq_column_index *ci = &pi.bounds;
            assert_false(ci->null_pages[p]);
            assert_true(ci->min_lens[p] <= CUT && ci->max_lens[p] <= CUT + 1);
            if (c < 2) {
                assert_true(str_utf8_valid((const char *)ci->min_values[p], ci->min_lens[p], NULL));
                assert_true(str_utf8_valid((const char *)ci->max_values[p], ci->max_lens[p], NULL));
            }
            for (int i = (int)p * 100; i < (int)(p + 1) * 100; i++) {
                if (c == 1 && !valid[i])
                    continue;
                assert_true(cmp_bytes(ci->min_values[p], ci->min_lens[p], vals[c][i], lens[c][i]) <=
                            0);
                assert_true(cmp_bytes(vals[c][i], lens[c][i], ci->max_values[p], ci->max_lens[p]) <
                            0);
            }
        }
        /* the expected shapes: ascii's lower bound is a short value, its
         * upper one 4095 x and a y; utf's keeps whole characters */
        if (c == 0) {
            assert_int_equal(pi.bounds.min_lens[0], 10);
            assert_int_equal(pi.bounds.max_lens[0], CUT);
            assert_int_equal(pi.bounds.max_values[0][CUT - 1], 'y');
        } else if (c == 1) {
            assert_int_equal(pi.bounds.min_lens[0], CUT - 1);
            assert_int_equal(pi.bounds.max_lens[0], CUT - 1);
            assert_memory_equal(pi.bounds.max_values[0] + CUT - 3, "\xc3\xaa", 2);
        } else {
            assert_int_equal(pi.bounds.max_lens[0], 1);
            assert_int_equal(pi.bounds.max_values[0][0], 2);
        }
    }
    struct pq_page_index top;
    page_index_of(&f, 0, "top", &top);
    assert_false(top.has_bounds);
    /* Chunk statistics stay as they were: omitted past the cut length. */
    for (size_t c = 0; c < 4; c++)
        assert_false(f.res.meta.row_groups[0].columns[c].meta.statistics.has_min);
    struct pq_range_read_stats st;
    const struct pq_row_range ranges[] = {{99, 101}, {350, 420}};
    expect_ranges_read(&f, 0, ranges, ARRAY_LEN(ranges), &st);
    assert_int_equal(st.pages_read, 4 * 4); /* pages 0, 1, 3 and 4 of each column */
    assert_int_equal(st.pages_skipped, 4 * 2);
    file_release(&f);
    for (int c = 0; c < 4; c++) {
        for (int i = 0; i < ROWS; i++)
            free(vals[c][i]);
        free(vals[c]);
        free(lens[c]);
    }
    free(valid);
}

/* ---- reading row ranges ---- */

/* Random sorted, disjoint ranges inside [0, rows): up to max of them. */
static size_t random_ranges(struct rng *g, int64_t rows, struct pq_row_range *out, size_t max)
{
    size_t n = 0;
    int64_t at = (int64_t)rng_below(g, (uint64_t)rows);
    while (n < max && at < rows) {
        int64_t len = 1 + (int64_t)rng_below(g, rng_below(g, 4) == 0 ? 2000 : 30);
        int64_t end = at + len < rows ? at + len : rows;
        out[n++] = (struct pq_row_range){at, end};
        at = end + (int64_t)rng_below(g, rng_below(g, 3) == 0 ? 1 : 3000);
    }
    return n;
}

/* The nested table in small pages: every page starts a row (the reader
 * checks each against the offset index while reading it), and reads of
 * random row ranges, of single pages and of everything equal the whole
 * read's rows, dictionary on and off. */
static void test_nested_ranges(void **state)
{
    (void)state;
    for (int dict = 0; dict < 2; dict++) {
        struct test_table tt;
        test_table_init(&tt, pq_nested_table);
        struct ArrowSchema s;
        struct ArrowArray a;
        struct rng g = {21 + (uint64_t)dict};
        gen_batch(&tt.t, 6000,
                  &(struct gen_options){.null_per_mille = 150,
                                        .max_list_len = 5,
                                        .max_string_len = 12,
                                        .distinct_small = dict == 1},
                  &g, &s, &a);
        test_table_release(&tt);
        struct pq_write_options o;
        pq_write_options_default(&o);
        o.page_rows = 97;
        o.page_bytes = 8 * 1024;
        o.row_group_rows = 2500;
        o.dictionary = dict;
        struct file f;
        file_write(&f, pq_nested_table, &s, &a, &o);
        file_open(&f);
        const struct pq_file_meta *m = pq_reader_meta(f.r);
        assert_int_equal(m->nrow_groups, 3);
        int nleaves = pq_reader_schema(f.r)->nleaves;
        for (size_t rg = 0; rg < m->nrow_groups; rg++) {
            int64_t rows = m->row_groups[rg].num_rows;
            for (int l = 0; l < nleaves; l++) {
                struct pq_page_index pi;
                struct error err = {0};
                assert_int_equal(pq_reader_page_index(f.r, rg, l, &f.arena, &pi, &err), 0);
                assert_true(pi.has_offsets);
                assert_true(pi.offsets.npages >= (size_t)((rows + 96) / 97));
                for (size_t p = 0; p < pi.offsets.npages; p++) {
                    struct pq_row_range pr;
                    pq_page_index_rows(&pi, p, &pr);
                    assert_true(pr.end - pr.begin <= 97);
                }
            }
            struct pq_range_read_stats st;
            const struct pq_row_range all = {0, rows};
            expect_ranges_read(&f, rg, &all, 1, &st);
            assert_int_equal(st.pages_skipped, 0);
            assert_int_equal(st.chunks_read_whole, 0);
            for (int iter = 0; iter < 25; iter++) {
                struct pq_row_range ranges[12];
                size_t n = random_ranges(&g, rows, ranges, ARRAY_LEN(ranges));
                expect_ranges_read(&f, rg, ranges, n, &st);
            }
            /* each page of the first leaf alone */
            struct pq_page_index pi;
            page_index_of(&f, rg, pq_reader_schema(f.r)->leaves[0]->path, &pi);
            for (size_t p = 0; p < pi.offsets.npages; p++) {
                bool *keep = calloc(pi.offsets.npages, sizeof *keep);
                struct pq_row_range *ranges = calloc(pi.offsets.npages, sizeof *ranges);
                assert_true(keep && ranges);
                keep[p] = true;
                assert_int_equal(pq_page_index_ranges(&pi, keep, ranges), 1);
                expect_ranges_read(&f, rg, ranges, 1, &st);
                free(keep);
                free(ranges);
            }
            /* nothing */
            expect_ranges_read(&f, rg, NULL, 0, &st);
            assert_int_equal(st.pages_read, 0);
        }
        file_release(&f);
    }
}

/* Pages to ranges: adjacent pages merge, others stay apart. */
static void test_pages_to_ranges(void **state)
{
    (void)state;
    struct file f;
    write_designed(&f, false);
    struct pq_page_index pi;
    page_index_of(&f, 0, "asc", &pi);
    bool keep[DROWS / DPAGE] = {false, true, true, false, false, true, false, false, false, true};
    struct pq_row_range ranges[DROWS / DPAGE];
    assert_int_equal(pq_page_index_ranges(&pi, keep, ranges), 3);
    assert_int_equal(ranges[0].begin, 1000);
    assert_int_equal(ranges[0].end, 3000);
    assert_int_equal(ranges[1].begin, 5000);
    assert_int_equal(ranges[1].end, 6000);
    assert_int_equal(ranges[2].begin, 9000);
    assert_int_equal(ranges[2].end, DROWS);
    struct pq_range_read_stats st;
    expect_ranges_read(&f, 0, ranges, 3, &st);
    /* 'asc', 'desc', 'mixed', 'holes' and 'b' are cut by rows alike; 's'
     * too (its 1000 rows take 12 KB) */
    assert_int_equal(st.pages_read, 6 * 4);
    assert_int_equal(st.pages_skipped, 6 * 6);
    file_release(&f);
}

/* A point lookup on the sorted column: its bounds name one page, and the
 * read decodes that page of each column and nothing else. */
static void test_point_lookup(void **state)
{
    (void)state;
    struct file f;
    write_designed(&f, true);
    struct pq_page_index pi;
    page_index_of(&f, 0, "asc", &pi);
    int64_t want = asc_at(4321);
    bool keep[2 * DROWS / DPAGE];
    assert_true(pi.offsets.npages <= ARRAY_LEN(keep));
    size_t hits = 0;
    for (size_t p = 0; p < pi.offsets.npages; p++) {
        keep[p] = load_int(pi.bounds.min_values[p], 8) <= want &&
                  want <= load_int(pi.bounds.max_values[p], 8);
        hits += keep[p];
    }
    assert_int_equal(hits, 1);
    struct pq_row_range ranges[ARRAY_LEN(keep)];
    size_t n = pq_page_index_ranges(&pi, keep, ranges);
    struct pq_range_read_stats st;
    expect_ranges_read(&f, 0, ranges, n, &st);
    assert_int_equal(st.pages_read, 6);
    uint64_t pages = 0;
    for (int l = 0; l < 6; l++) {
        struct pq_page_index col;
        page_index_of(&f, 0, pq_reader_schema(f.r)->leaves[l]->path, &col);
        pages += col.offsets.npages;
    }
    assert_int_equal(st.pages_skipped, pages - 6);
    /* the row itself */
    const struct pq_row_range row = {4321, 4322};
    struct ArrowArray one;
    struct error err = {0};
    assert_int_equal(pq_reader_read_row_ranges(f.r, 0, &row, 1, &one, &st, &err), 0);
    assert_int_equal(one.length, 1);
    assert_int_equal(((const int64_t *)one.children[0]->buffers[1])[0], want);
    one.release(&one);
    file_release(&f);
}

/* Ranges out of order, overlapping, empty or past the rows, and row
 * groups and leaves the file does not have, are the caller's mistakes. */
static void test_invalid_requests(void **state)
{
    (void)state;
    struct file f;
    write_designed(&f, false);
    const struct pq_row_range bad[][2] = {
        {{5, 10}, {8, 12}},          /* overlap */
        {{20, 30}, {0, 5}},          /* out of order */
        {{5, 5}, {6, 7}},            /* empty */
        {{-1, 3}, {4, 5}},           /* before the rows */
        {{0, 3}, {9999, DROWS + 1}}, /* past them */
    };
    struct ArrowArray out;
    struct error err = {0};
    for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
        assert_int_equal(pq_reader_read_row_ranges(f.r, 0, bad[i], 2, &out, NULL, &err), -1);
        assert_int_equal(err.code, ERR_INVALID);
        assert_null(out.release);
    }
    const struct pq_row_range ok = {0, 1};
    assert_int_equal(pq_reader_read_row_ranges(f.r, 1, &ok, 1, &out, NULL, &err), -1);
    assert_int_equal(err.code, ERR_INVALID);
    struct pq_page_index pi;
    assert_int_equal(pq_reader_page_index(f.r, 1, 0, &f.arena, &pi, &err), -1);
    assert_int_equal(err.code, ERR_INVALID);
    assert_int_equal(pq_reader_page_index(f.r, 0, 6, &f.arena, &pi, &err), -1);
    assert_int_equal(err.code, ERR_INVALID);
    assert_int_equal(pq_reader_page_index(f.r, 0, -1, &f.arena, &pi, &err), -1);
    assert_int_equal(err.code, ERR_INVALID);
    /* adjacent ranges are fine */
    const struct pq_row_range adjacent[] = {{3, 5}, {5, 9}};
    struct pq_range_read_stats st;
    expect_ranges_read(&f, 0, adjacent, 2, &st);
    file_release(&f);
}

/* ---- hostile indexes ---- */

/* How a test damages one chunk's page index: the decoded structures are
 * edited, re-encoded and appended before a new footer that points at
 * them; then the chunk's footer entry may be edited too. */
struct damage {
    const char *name;
    void (*offsets)(struct pq_offset_index *oi, const struct pq_column_chunk *cc);
    void (*bounds)(struct pq_column_index *ci);
    void (*chunk)(struct pq_column_chunk *cc, uint64_t footer_at, uint64_t file_size);
    size_t truncate_oi, truncate_ci; /* bytes cut off the re-encoded structure */
    bool at_read;                    /* refused when read, not when the index is */
};

/* Rebuilds f's file with chunk (0, leaf) damaged as d says, into out. */
static void damage_file(const struct file *f, int leaf, const struct damage *d, struct buf *out)
{
    struct arena a;
    arena_init(&a, 0);
    struct pq_source src;
    pq_source_memory(&src, f->bytes.data, f->bytes.len);
    struct pq_file_meta m;
    uint32_t flen;
    struct error err = {0};
    assert_int_equal(pq_read_footer(&src, &a, &m, &flen, &err), 0);
    struct pq_column_chunk *cc = &m.row_groups[0].columns[leaf];
    const uint8_t *bytes = (const uint8_t *)f->bytes.data;
    struct pq_offset_index oi;
    struct pq_column_index ci;
    assert_int_equal(pq_decode_offset_index(bytes + cc->offset_index_offset,
                                            (size_t)cc->offset_index_length, &a, &oi, &err),
                     0);
    assert_int_equal(pq_decode_column_index(bytes + cc->column_index_offset,
                                            (size_t)cc->column_index_length, &a, &ci, &err),
                     0);
    if (d->offsets)
        d->offsets(&oi, cc);
    if (d->bounds)
        d->bounds(&ci);
    size_t body = f->bytes.len - 8 - flen;
    *out = (struct buf)BUF_INIT;
    assert_int_equal(buf_append(out, f->bytes.data, body), 0);
    struct buf enc = BUF_INIT;
    assert_int_equal(pq_encode_offset_index(&oi, &enc), 0);
    assert_true(d->truncate_oi < enc.len);
    cc->offset_index_offset = (int64_t)out->len;
    cc->offset_index_length = (int32_t)(enc.len - d->truncate_oi);
    assert_int_equal(buf_append(out, enc.data, enc.len - d->truncate_oi), 0);
    buf_reset(&enc);
    assert_int_equal(pq_encode_column_index(&ci, &enc), 0);
    assert_true(d->truncate_ci < enc.len);
    cc->column_index_offset = (int64_t)out->len;
    cc->column_index_length = (int32_t)(enc.len - d->truncate_ci);
    assert_int_equal(buf_append(out, enc.data, enc.len - d->truncate_ci), 0);
    buf_free(&enc);
    /* the footer's new place and size are known before it is encoded
     * only roughly: chunk edits that need them use these */
    if (d->chunk)
        d->chunk(cc, out->len, out->len + 8 + flen + 64);
    struct buf footer = BUF_INIT;
    assert_int_equal(pq_encode_file_meta(&m, &footer), 0);
    uint32_t len = (uint32_t)footer.len;
    assert_int_equal(buf_append(out, footer.data, footer.len), 0);
    assert_int_equal(buf_append(out, &len, 4), 0);
    assert_int_equal(buf_append(out, "PAR1", 4), 0);
    buf_free(&footer);
    arena_free(&a);
}

static void oi_rows_repeat(struct pq_offset_index *oi, const struct pq_column_chunk *cc)
{
    (void)cc;
    oi->pages[3].first_row_index = oi->pages[2].first_row_index;
}
static void oi_rows_from_one(struct pq_offset_index *oi, const struct pq_column_chunk *cc)
{
    (void)cc;
    oi->pages[0].first_row_index = 1;
}
static void oi_rows_past_end(struct pq_offset_index *oi, const struct pq_column_chunk *cc)
{
    (void)cc;
    oi->pages[oi->npages - 1].first_row_index = DROWS;
}
static void oi_rows_shifted(struct pq_offset_index *oi, const struct pq_column_chunk *cc)
{
    (void)cc;
    oi->pages[3].first_row_index += 1;
}
static void oi_page_outside_file(struct pq_offset_index *oi, const struct pq_column_chunk *cc)
{
    (void)cc;
    oi->pages[4].offset = 1 << 30;
}
static void oi_page_before_chunk(struct pq_offset_index *oi, const struct pq_column_chunk *cc)
{
    oi->pages[0].offset = cc->file_offset - 1;
}
static void oi_pages_overlap(struct pq_offset_index *oi, const struct pq_column_chunk *cc)
{
    (void)cc;
    oi->pages[4].offset = oi->pages[5].offset;
}
static void oi_size_short(struct pq_offset_index *oi, const struct pq_column_chunk *cc)
{
    (void)cc;
    oi->pages[2].compressed_page_size -= 1;
}
static void oi_size_zero(struct pq_offset_index *oi, const struct pq_column_chunk *cc)
{
    (void)cc;
    oi->pages[2].compressed_page_size = 0;
}
static void oi_no_pages(struct pq_offset_index *oi, const struct pq_column_chunk *cc)
{
    (void)cc;
    oi->npages = 0;
}
/* The first data page left out: it then lies where the dictionary page
 * would, unlisted. */
static void oi_first_unlisted(struct pq_offset_index *oi, const struct pq_column_chunk *cc)
{
    (void)cc;
    memmove(oi->pages, oi->pages + 1, (oi->npages - 1) * sizeof *oi->pages);
    oi->npages--;
    for (size_t p = 0; p < oi->npages; p++)
        oi->pages[p].first_row_index = (int64_t)p * DPAGE;
}
/* The dictionary page listed as the first data page. */
static void oi_lists_dictionary(struct pq_offset_index *oi, const struct pq_column_chunk *cc)
{
    assert_true(cc->meta.has_dictionary_page_offset);
    oi->pages[0].compressed_page_size =
        (int32_t)(oi->pages[0].offset - cc->meta.dictionary_page_offset);
    oi->pages[0].offset = cc->meta.dictionary_page_offset;
}
static void ci_shorter(struct pq_column_index *ci)
{
    ci->npages--;
}
/* (with oi_first_unlisted: the column index then agrees) */
static void ci_drop_first(struct pq_column_index *ci)
{
    ci->npages--;
    ci->null_pages++;
    ci->min_values++;
    ci->max_values++;
    ci->min_lens++;
    ci->max_lens++;
    ci->null_counts++;
}
static void ci_narrow_bound(struct pq_column_index *ci)
{
    ci->min_lens[2] = 7;
}
static void ci_bad_order(struct pq_column_index *ci)
{
    ci->boundary_order = (enum pq_boundary_order)5;
}
static void ci_negative_nulls(struct pq_column_index *ci)
{
    ci->null_counts[1] = -1;
}
static void chunk_oi_outside(struct pq_column_chunk *cc, uint64_t footer_at, uint64_t size)
{
    (void)footer_at;
    cc->offset_index_offset = (int64_t)size + 100;
}
static void chunk_oi_in_footer(struct pq_column_chunk *cc, uint64_t footer_at, uint64_t size)
{
    (void)size;
    cc->offset_index_offset = (int64_t)footer_at - 2;
}
static void chunk_oi_negative(struct pq_column_chunk *cc, uint64_t footer_at, uint64_t size)
{
    (void)footer_at;
    (void)size;
    cc->offset_index_offset = -8;
}
static void chunk_oi_empty(struct pq_column_chunk *cc, uint64_t footer_at, uint64_t size)
{
    (void)footer_at;
    (void)size;
    cc->offset_index_length = 0;
}
static void chunk_ci_huge(struct pq_column_chunk *cc, uint64_t footer_at, uint64_t size)
{
    (void)footer_at;
    (void)size;
    cc->column_index_length = INT32_MAX;
}
static void chunk_ci_in_magic(struct pq_column_chunk *cc, uint64_t footer_at, uint64_t size)
{
    (void)footer_at;
    (void)size;
    cc->column_index_offset = 1;
}

/* Every damage is ERR_CORRUPT, from the page index or from the read that
 * follows it, and the reader still reads the file whole (which does not
 * use the index). */
static void expect_refused(const struct file *f, const char *column, const struct damage *d)
{
    struct file bad;
    memset(&bad, 0, sizeof bad);
    damage_file(f, leaf_of(f->r, column), d, &bad.bytes);
    arena_init(&bad.arena, 0);
    file_open(&bad);
    struct pq_page_index pi;
    struct error err = {0};
    int rc = pq_reader_page_index(bad.r, 0, leaf_of(bad.r, column), &bad.arena, &pi, &err);
    if (d->at_read) {
        if (rc != 0)
            fail_msg("%s: the index was refused: %s", d->name, err.msg);
        const struct pq_row_range all = {0, DROWS};
        struct ArrowArray out;
        rc = pq_reader_read_row_ranges(bad.r, 0, &all, 1, &out, NULL, &err);
        assert_null(out.release);
    }
    if (rc != -1 || err.code != ERR_CORRUPT)
        fail_msg("%s: rc %d, code %d: %s", d->name, rc, (int)err.code, err.msg);
    struct ArrowArray whole;
    if (pq_reader_read_row_group(bad.r, 0, &whole, &err) != 0)
        fail_msg("%s: the whole read failed: %s", d->name, err.msg);
    whole.release(&whole);
    pq_reader_free(bad.r);
    buf_free(&bad.bytes);
    arena_free(&bad.arena);
}

static void test_hostile_indexes(void **state)
{
    (void)state;
    const struct damage damages[] = {
        {"first rows repeat", oi_rows_repeat, NULL, NULL, 0, 0, false},
        {"first rows start at 1", oi_rows_from_one, NULL, NULL, 0, 0, false},
        {"a page starts past the rows", oi_rows_past_end, NULL, NULL, 0, 0, false},
        {"a page outside the file", oi_page_outside_file, NULL, NULL, 0, 0, false},
        {"a page before its chunk", oi_page_before_chunk, NULL, NULL, 0, 0, false},
        {"pages overlap", oi_pages_overlap, NULL, NULL, 0, 0, false},
        {"a page of 0 bytes", oi_size_zero, NULL, NULL, 0, 0, false},
        {"no pages for rows", oi_no_pages, NULL, NULL, 0, 0, false},
        {"column index shorter", NULL, ci_shorter, NULL, 0, 0, false},
        {"a 7-byte bound of a long", NULL, ci_narrow_bound, NULL, 0, 0, false},
        {"boundary order 5", NULL, ci_bad_order, NULL, 0, 0, false},
        {"negative null count", NULL, ci_negative_nulls, NULL, 0, 0, false},
        {"offset index outside the file", NULL, NULL, chunk_oi_outside, 0, 0, false},
        {"offset index in the footer", NULL, NULL, chunk_oi_in_footer, 0, 0, false},
        {"offset index at a negative offset", NULL, NULL, chunk_oi_negative, 0, 0, false},
        {"offset index of 0 bytes", NULL, NULL, chunk_oi_empty, 0, 0, false},
        {"column index of 2 GiB", NULL, NULL, chunk_ci_huge, 0, 0, false},
        {"column index in the magic", NULL, NULL, chunk_ci_in_magic, 0, 0, false},
        {"a page's rows shifted", oi_rows_shifted, NULL, NULL, 0, 0, true},
        {"a page's size short", oi_size_short, NULL, NULL, 0, 0, true},
        {"the first data page unlisted", oi_first_unlisted, ci_drop_first, NULL, 0, 0, true},
    };
    struct file f;
    write_designed(&f, false);
    for (size_t i = 0; i < ARRAY_LEN(damages); i++)
        expect_refused(&f, "asc", &damages[i]);
    /* Every truncation of either structure. */
    const struct pq_column_chunk *cc = &f.res.meta.row_groups[0].columns[leaf_of(f.r, "desc")];
    for (size_t k = 1; k < (size_t)cc->offset_index_length; k++)
        expect_refused(&f, "desc", &(struct damage){"truncated offset index", .truncate_oi = k});
    for (size_t k = 1; k < (size_t)cc->column_index_length; k++)
        expect_refused(&f, "desc", &(struct damage){"truncated column index", .truncate_ci = k});
    file_release(&f);
    /* The dictionary page listed as a data page. */
    write_designed(&f, true);
    expect_refused(&f, "s",
                   &(struct damage){"the dictionary listed", oi_lists_dictionary, .at_read = true});
    file_release(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bound_designed),   cmocka_unit_test(test_bound_properties),
        cmocka_unit_test(test_designed_index),   cmocka_unit_test(test_index_off),
        cmocka_unit_test(test_page_rows_option), cmocka_unit_test(test_long_values),
        cmocka_unit_test(test_nested_ranges),    cmocka_unit_test(test_pages_to_ranges),
        cmocka_unit_test(test_point_lookup),     cmocka_unit_test(test_invalid_requests),
        cmocka_unit_test(test_hostile_indexes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
