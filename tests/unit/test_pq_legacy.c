/* Files in the layouts older writers (parquet-mr, Spark, Hive, early
 * pyarrow) produce read back with the right values: INT96 timestamps,
 * BIT_PACKED levels, two-level lists, bare repeated fields, "<list>_tuple"
 * elements, legacy decimal annotations, PLAIN_DICTIONARY. The file is the
 * hand-assembled "legacy_v1_gzip" shape of fuzz/pq_shapes.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "parquet/reader.h"
#include "pq_shapes.h"
#include "util/arrow.h"

static void build_legacy(struct buf *out)
{
    for (size_t i = 0; i < pq_shape_count(); i++)
        if (strcmp(pq_shape_name(i), "legacy_v1_gzip") == 0) {
            pq_shape_build(i, out);
            return;
        }
    fail_msg("no legacy shape");
}

static const struct ArrowArray *column(const struct ArrowSchema *s, const struct ArrowArray *a,
                                       const char *name, const char *format)
{
    for (int64_t i = 0; i < s->n_children; i++)
        if (strcmp(s->children[i]->name, name) == 0) {
            assert_string_equal(s->children[i]->format, format);
            return a->children[i];
        }
    fail_msg("no column %s", name);
    return NULL;
}

/* Checks a list column against the shape's levels for a row group:
 * elements hold value_of(entry index). */
static void expect_list(const struct ArrowArray *list, const struct ArrowArray *values, int rows,
                        bool nullable, int16_t max_def, int64_t (*value_of)(size_t),
                        int value_width)
{
    uint16_t rep[64], def[64];
    size_t n = pq_shape_list_levels(rows, nullable, max_def, rep, def);
    const int32_t *off = list->buffers[1];
    size_t i = 0;
    for (int r = 0; r < rows; r++) {
        size_t first = i;
        size_t elems = 0;
        do {
            elems += def[i] == max_def;
            i++;
        } while (i < n && rep[i] != 0);
        bool valid = !list->buffers[0] || arrow_bit(list->buffers[0], r);
        assert_int_equal(valid, !(nullable && def[first] == 0));
        assert_int_equal(off[r + 1] - off[r], (int32_t)elems);
        for (size_t e = 0; e < elems; e++) {
            int64_t got = 0;
            const uint8_t *p = (const uint8_t *)values->buffers[1];
            if (value_width == 4) {
                int32_t v;
                memcpy(&v, p + (off[r] + (int32_t)e) * 4, 4);
                got = v;
            } else {
                memcpy(&got, p + (off[r] + (int32_t)e) * 8, 8);
            }
            assert_int_equal(got, value_of(first + e));
        }
    }
    assert_int_equal(i, n);
}

static int64_t arr_value(size_t i)
{
    return (int64_t)i * 3;
}
static int64_t bare_value(size_t i)
{
    return (int64_t)i << 40;
}
static int64_t tup_value(size_t i)
{
    return -(int64_t)i;
}

static void test_legacy_layouts(void **state)
{
    (void)state;
    struct buf file = BUF_INIT;
    build_legacy(&file);
    struct pq_source src;
    pq_source_memory(&src, file.data, file.len);
    struct pq_reader *r;
    struct error err = {0};
    if (pq_reader_open(&src, &r, &err) != 0)
        fail_msg("open: %s", err.msg);
    struct ArrowSchema s;
    assert_int_equal(pq_reader_arrow_schema(r, &s, &err), 0);
    assert_int_equal(pq_reader_meta(r)->nrow_groups, 2);
    for (size_t g = 0; g < 2; g++) {
        int rows = g ? 10 : 6, base = g ? 6 : 0;
        struct ArrowArray a;
        if (pq_reader_read_row_group(r, g, &a, &err) != 0)
            fail_msg("row group %zu: %s", g, err.msg);
        assert_int_equal(a.length, rows);

        /* INT96: nanoseconds of the day and a Julian day, as UTC nanoseconds. */
        const struct ArrowArray *ts = column(&s, &a, "ts", "tsn:");
        for (int k = 0; k < rows; k++) {
            int R = base + k;
            assert_int_equal(arrow_bit(ts->buffers[0], k), R % 3 != 1);
            if (R % 3 != 1)
                assert_int_equal(((const int64_t *)ts->buffers[1])[k],
                                 (int64_t)R * 86400000000000LL + (int64_t)R * 3600000000000LL);
        }
        /* Legacy DECIMAL converted type on INT32, the logical type on INT64. */
        const struct ArrowArray *d32 = column(&s, &a, "dec32", "d:9,2");
        const struct ArrowArray *d64 = column(&s, &a, "dec64", "d:18,4");
        for (int k = 0; k < rows; k++) {
            int R = base + k;
            int64_t lo, hi;
            memcpy(&lo, (const uint8_t *)d32->buffers[1] + k * 16, 8);
            memcpy(&hi, (const uint8_t *)d32->buffers[1] + k * 16 + 8, 8);
            assert_int_equal(lo, R * 12345 - 99999);
            assert_int_equal(hi, lo < 0 ? -1 : 0);
            if (R % 3 != 1) {
                memcpy(&lo, (const uint8_t *)d64->buffers[1] + k * 16, 8);
                assert_int_equal(lo, (int64_t)R * -987654321);
            }
        }
        /* A two-level list, a bare repeated field, a "_tuple" element. */
        const struct ArrowArray *arr = column(&s, &a, "arr", "+l");
        expect_list(arr, arr->children[0], rows, true, 2, arr_value, 4);
        const struct ArrowArray *bare = column(&s, &a, "bare", "+l");
        assert_null(bare->buffers[0]); /* never null, only empty */
        expect_list(bare, bare->children[0], rows, false, 1, bare_value, 8);
        const struct ArrowArray *tup = column(&s, &a, "tup", "+l");
        expect_list(tup, tup->children[0]->children[0], rows, true, 2, tup_value, 4);
        /* Booleans PLAIN-packed. */
        const struct ArrowArray *flag = column(&s, &a, "flag", "b");
        for (int k = 0; k < rows; k++)
            assert_int_equal(arrow_bit(flag->buffers[1], k), (base + k) % 3 == 0);
        a.release(&a);
    }
    /* A map of keys only reads as a list of key structs. */
    bool found = false;
    for (int64_t i = 0; i < s.n_children; i++)
        if (strcmp(s.children[i]->name, "keys") == 0) {
            assert_string_equal(s.children[i]->format, "+l");
            assert_string_equal(s.children[i]->children[0]->format, "+s");
            found = true;
        }
    assert_true(found);
    s.release(&s);
    pq_reader_free(r);
    buf_free(&file);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_legacy_layouts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
