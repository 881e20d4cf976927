/* Unit tests for src/lake/puffin: Puffin files of deletion vectors written
 * and read back (blob positions, footer JSON as the spec lays it out), and
 * hostile files: every truncation, a compressed footer, blobs pointing
 * outside the file, a cardinality that disagrees with the vector, blobs of
 * other types skipped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "lake/puffin.h"
#include "util/buf.h"
#include "util/error.h"

/* Two vectors: {1, 5, 9} of a.parquet and 5000 positions of b.parquet. */
static void two_vectors(struct buf *out, struct lake_puffin_blob_pos pos[2])
{
    struct lake_dv a, b;
    struct error e;
    lake_dv_init(&a);
    lake_dv_init(&b);
    const uint64_t pa[] = {9, 1, 5};
    assert_int_equal(lake_dv_add(&a, pa, 3, &e), 0);
    uint64_t pb[5000];
    for (size_t i = 0; i < 5000; i++)
        pb[i] = 3 * i;
    assert_int_equal(lake_dv_add(&b, pb, 5000, &e), 0);
    const struct lake_puffin_dv_in in[2] = {{"s3://b/t/a.parquet", &a}, {"s3://b/t/b.parquet", &b}};
    *out = (struct buf)BUF_INIT;
    assert_int_equal(lake_puffin_write_dvs(in, 2, "test", out, pos, &e), 0);
    lake_dv_free(&a);
    lake_dv_free(&b);
}

static void write_and_read(void **state)
{
    (void)state;
    struct buf f;
    struct lake_puffin_blob_pos pos[2];
    two_vectors(&f, pos);
    const uint8_t *p = (const uint8_t *)f.data;
    assert_memory_equal(p, "PFA1", 4);
    assert_memory_equal(p + f.len - 4, "PFA1", 4);
    assert_int_equal(pos[0].offset, 4);
    assert_int_equal(pos[1].offset, pos[0].offset + pos[0].length);
    struct lake_puffin_footer ft;
    struct error e;
    assert_int_equal(lake_puffin_read_footer(p, f.len, &ft, &e), 0);
    assert_int_equal(ft.ndvs, 2);
    assert_int_equal(ft.nother, 0);
    assert_string_equal(ft.dvs[1].referenced_data_file, "s3://b/t/b.parquet");
    assert_int_equal(ft.dvs[1].cardinality, 5000);
    assert_int_equal(ft.dvs[1].offset, pos[1].offset);
    assert_int_equal(ft.dvs[1].length, pos[1].length);
    struct lake_dv got;
    assert_int_equal(lake_puffin_read_dv(p, f.len, &ft.dvs[0], 10, &got, &e), 0);
    assert_int_equal(got.n, 3);
    assert_true(got.pos[0] == 1 && got.pos[1] == 5 && got.pos[2] == 9);
    lake_dv_free(&got);
    assert_int_equal(lake_puffin_read_dv(p, f.len, &ft.dvs[1], 15000, &got, &e), 0);
    assert_int_equal(got.n, 5000);
    assert_true(got.pos[4999] == 14997);
    lake_dv_free(&got);
    /* The footer as the spec lays it out: -1 snapshot and sequence, the
     * row position's field id. */
    uint32_t plen = (uint32_t)p[f.len - 12] | (uint32_t)p[f.len - 11] << 8;
    json_t *doc = json_loadb(f.data + f.len - 12 - plen, plen, 0, NULL);
    assert_non_null(doc);
    json_t *b0 = json_array_get(json_object_get(doc, "blobs"), 0);
    assert_int_equal(json_integer_value(json_object_get(b0, "snapshot-id")), -1);
    assert_int_equal(json_integer_value(json_object_get(b0, "sequence-number")), -1);
    assert_int_equal(json_integer_value(json_array_get(json_object_get(b0, "fields"), 0)),
                     LAKE_PUFFIN_POS_FIELD_ID);
    json_decref(doc);
    lake_puffin_footer_free(&ft);
    buf_free(&f);
}

/* code -1: either refusal (a cut may leave bytes that read as a flag). */
static void expect_refused(const uint8_t *p, size_t len, int code)
{
    struct lake_puffin_footer ft;
    struct error e;
    if (lake_puffin_read_footer(p, len, &ft, &e) == 0) {
        /* A footer that reads must then fail on its vectors or hold none
         * that decode wrongly. */
        for (size_t i = 0; i < ft.ndvs; i++) {
            struct lake_dv got;
            if (lake_puffin_read_dv(p, len, &ft.dvs[i], 1 << 20, &got, &e) == 0)
                lake_dv_free(&got);
        }
        lake_puffin_footer_free(&ft);
        fail_msg("a bad file's footer was read");
    }
    if (code >= 0)
        assert_int_equal(e.code, code);
    else
        assert_true(e.code == ERR_CORRUPT || e.code == ERR_UNSUPPORTED);
    assert_null(ft.dvs);
}

static void hostile(void **state)
{
    (void)state;
    struct buf f;
    struct lake_puffin_blob_pos pos[2];
    two_vectors(&f, pos);
    uint8_t *p = (uint8_t *)f.data;
    for (size_t cut = 0; cut < f.len; cut++)
        expect_refused(p, cut, -1);
    /* A compressed footer. */
    p[f.len - 8] |= 1;
    expect_refused(p, f.len, ERR_UNSUPPORTED);
    p[f.len - 8] &= (uint8_t)~1;
    /* A footer size past the file. */
    p[f.len - 10] = 0x7F;
    expect_refused(p, f.len, ERR_CORRUPT);
    buf_free(&f);

    /* A cardinality the vector disagrees with (same length: "3" -> "4"). */
    two_vectors(&f, pos);
    p = (uint8_t *)f.data;
    char *card = strstr(f.data + pos[1].offset + pos[1].length, "\"cardinality\":\"3\"");
    assert_non_null(card);
    card[15] = '4';
    struct lake_puffin_footer ft;
    struct error e;
    assert_int_equal(lake_puffin_read_footer(p, f.len, &ft, &e), 0);
    struct lake_dv got;
    assert_int_equal(lake_puffin_read_dv(p, f.len, &ft.dvs[0], 10, &got, &e), -1);
    assert_int_equal(e.code, ERR_CORRUPT);
    assert_non_null(strstr(e.msg, "footer says 4"));
    lake_puffin_footer_free(&ft);
    /* An offset into the leading magic. */
    char *off = strstr(f.data + pos[1].offset + pos[1].length, "\"offset\":4,");
    assert_non_null(off);
    off[9] = '0';
    expect_refused(p, f.len, ERR_CORRUPT);
    buf_free(&f);
}

/* A blob of another type is skipped and counted. */
static void other_blob_types(void **state)
{
    (void)state;
    const char footer[] = "{\"blobs\":[{\"type\":\"apache-datasketches-theta-v1\",\"fields\":[1],"
                          "\"snapshot-id\":1,\"sequence-number\":1,\"offset\":4,\"length\":0}]}";
    size_t plen = strlen(footer);
    uint8_t file[512];
    size_t n = 0;
    memcpy(file + n, "PFA1", 4), n += 4;
    memcpy(file + n, "PFA1", 4), n += 4;
    memcpy(file + n, footer, plen), n += plen;
    file[n++] = (uint8_t)plen, file[n++] = 0, file[n++] = 0, file[n++] = 0;
    memset(file + n, 0, 4), n += 4;
    memcpy(file + n, "PFA1", 4), n += 4;
    struct lake_puffin_footer ft;
    struct error e;
    assert_int_equal(lake_puffin_read_footer(file, n, &ft, &e), 0);
    assert_int_equal(ft.ndvs, 0);
    assert_int_equal(ft.nother, 1);
    lake_puffin_footer_free(&ft);
}

/* A data file's vector, found by the path its blob names. */
static void load_by_data_file(void **state)
{
    (void)state;
    struct buf f;
    struct lake_puffin_blob_pos pos[2];
    two_vectors(&f, pos);
    const uint8_t *p = (const uint8_t *)f.data;
    struct lake_dv v;
    struct error e;
    assert_int_equal(lake_puffin_load_dv(p, f.len, "s3://b/t/a.parquet", 10, &v, &e), 0);
    assert_int_equal(v.n, 3);
    assert_int_equal(v.pos[2], 9);
    lake_dv_free(&v);
    assert_int_equal(lake_puffin_load_dv(p, f.len, "s3://b/t/b.parquet", 15000, &v, &e), 0);
    assert_int_equal(v.n, 5000);
    lake_dv_free(&v);
    /* No blob for the file, a position past its rows, a second blob. */
    assert_int_equal(lake_puffin_load_dv(p, f.len, "s3://b/t/c.parquet", 10, &v, &e), -1);
    assert_int_equal(e.code, ERR_CORRUPT);
    assert_non_null(strstr(e.msg, "no deletion vector for s3://b/t/c.parquet"));
    assert_int_equal(v.n, 0);
    assert_int_equal(lake_puffin_load_dv(p, f.len, "s3://b/t/a.parquet", 9, &v, &e), -1);
    assert_int_equal(e.code, ERR_CORRUPT);
    assert_int_equal(v.n, 0);
    buf_free(&f);
    struct lake_dv one;
    lake_dv_init(&one);
    const uint64_t p1 = 1;
    assert_int_equal(lake_dv_add(&one, &p1, 1, &e), 0);
    const struct lake_puffin_dv_in twice[2] = {{"a", &one}, {"a", &one}};
    f = (struct buf)BUF_INIT;
    assert_int_equal(lake_puffin_write_dvs(twice, 2, NULL, &f, pos, &e), 0);
    assert_int_equal(lake_puffin_load_dv((const uint8_t *)f.data, f.len, "a", 5, &v, &e), -1);
    assert_non_null(strstr(e.msg, "two deletion vectors for a"));
    buf_free(&f);
    lake_dv_free(&one);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(write_and_read),
        cmocka_unit_test(hostile),
        cmocka_unit_test(other_blob_types),
        cmocka_unit_test(load_by_data_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
