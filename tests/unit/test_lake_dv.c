/* Unit tests for src/lake/dv: deletion-vector-v1 blobs. Round trips of
 * sparse, dense (bitmap containers) and multi-bucket sets; blobs written
 * by hand from the portable roaring spec, with run containers and the
 * offset header the encoder never writes; and hostile blobs: every
 * truncation, a flipped byte under a good CRC, unsorted keys, declared
 * cardinalities that lie, positions past the file's rows, and random
 * mutations, none of which may crash or allocate past the row bound. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include <cmocka.h>

#include "lake/dv.h"
#include "util/buf.h"
#include "util/error.h"

static void encode(const struct lake_dv *v, struct buf *out)
{
    struct error e;
    *out = (struct buf)BUF_INIT;
    assert_int_equal(lake_dv_encode(v, out, &e), 0);
}

static void expect_roundtrip(const uint64_t *pos, size_t n, uint64_t rows)
{
    struct lake_dv v, got;
    struct error e;
    lake_dv_init(&v);
    assert_int_equal(lake_dv_add(&v, pos, n, &e), 0);
    struct buf b;
    encode(&v, &b);
    assert_int_equal(lake_dv_decode((const uint8_t *)b.data, b.len, rows, &got, &e), 0);
    assert_int_equal(got.n, v.n);
    for (size_t i = 0; i < v.n; i++)
        assert_true(got.pos[i] == v.pos[i]);
    for (size_t i = 0; i < n; i++)
        assert_true(lake_dv_contains(&got, pos[i]));
    buf_free(&b);
    lake_dv_free(&v);
    lake_dv_free(&got);
}

static void roundtrips(void **state)
{
    (void)state;
    expect_roundtrip(NULL, 0, 10); /* an empty vector is a valid blob */
    const uint64_t few[] = {7, 3, 3, 65535, 65536, 1000000};
    expect_roundtrip(few, sizeof few / sizeof few[0], 1000001);
    /* A dense container (bitmap), a sparse one beside it, and positions
     * past 2^32 (a second bucket). */
    size_t n = 0;
    uint64_t *many = malloc(sizeof *many * 20000);
    assert_non_null(many);
    for (uint64_t i = 0; i < 10000; i++)
        many[n++] = 131072 + 2 * i;
    for (uint64_t i = 0; i < 100; i++)
        many[n++] = 200000 + 97 * i;
    for (uint64_t i = 0; i < 5000; i++)
        many[n++] = ((uint64_t)3 << 32) + 5 * i;
    expect_roundtrip(many, n, ((uint64_t)4 << 32));
    free(many);
}

static void contains_and_add(void **state)
{
    (void)state;
    struct lake_dv v;
    struct error e;
    lake_dv_init(&v);
    const uint64_t a[] = {9, 1, 5}, b[] = {5, 2};
    assert_int_equal(lake_dv_add(&v, a, 3, &e), 0);
    assert_int_equal(lake_dv_add(&v, b, 2, &e), 0);
    assert_int_equal(v.n, 4);
    assert_true(lake_dv_contains(&v, 1) && lake_dv_contains(&v, 2) && lake_dv_contains(&v, 9));
    assert_false(lake_dv_contains(&v, 0) || lake_dv_contains(&v, 3) || lake_dv_contains(&v, 10));
    lake_dv_free(&v);
}

/* Batches in order (the fast path), interleaved, unsorted, repeating
 * earlier positions or themselves: the set is always sorted and distinct,
 * as a bitmap oracle says. */
static void add_batches_of_every_shape(void **state)
{
    (void)state;
    enum { SPAN = 5000 };
    unsigned seed = 17;
    for (int round = 0; round < 40; round++) {
        struct lake_dv v;
        struct error e;
        lake_dv_init(&v);
        bool *oracle = calloc(SPAN, sizeof *oracle);
        assert_non_null(oracle);
        uint64_t next = 0;
        for (int batch = 0; batch < 12; batch++) {
            uint64_t pos[64];
            size_t n = (size_t)(rand_r(&seed) % 64);
            int shape = rand_r(&seed) % 4;
            for (size_t i = 0; i < n; i++) {
                if (shape == 0) /* ascending, past what is held */
                    next += 1 + (uint64_t)(rand_r(&seed) % 7);
                else if (shape == 3) /* ascending with repeats */
                    next += (uint64_t)(rand_r(&seed) % 2);
                else /* anywhere, repeats likely */
                    next = (uint64_t)(rand_r(&seed) % (shape == 1 ? SPAN : 50));
                next %= SPAN;
                pos[i] = next;
                oracle[next] = true;
            }
            assert_int_equal(lake_dv_add(&v, pos, n, &e), 0);
            size_t k = 0;
            for (uint64_t p = 0; p < SPAN; p++)
                if (oracle[p]) {
                    assert_true(k < v.n);
                    assert_int_equal(v.pos[k++], p);
                }
            assert_int_equal(k, v.n);
        }
        free(oracle);
        lake_dv_free(&v);
    }
}

/* ---- blobs by hand ---- */

static size_t put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    return 2;
}

static size_t put32(uint8_t *p, uint32_t v)
{
    put16(p, (uint16_t)v);
    put16(p + 2, (uint16_t)(v >> 16));
    return 4;
}

/* Frames a vector as a blob: length, magic, vector, CRC-32. */
static size_t frame(const uint8_t *vec, size_t n, uint8_t *out)
{
    uint32_t inner = (uint32_t)(4 + n);
    out[0] = (uint8_t)(inner >> 24);
    out[1] = (uint8_t)(inner >> 16);
    out[2] = (uint8_t)(inner >> 8);
    out[3] = (uint8_t)inner;
    const uint8_t magic[4] = {0xD1, 0xD3, 0x39, 0x64};
    memcpy(out + 4, magic, 4);
    memcpy(out + 8, vec, n);
    uint32_t crc = (uint32_t)crc32(0L, out + 4, inner);
    out[8 + n] = (uint8_t)(crc >> 24);
    out[9 + n] = (uint8_t)(crc >> 16);
    out[10 + n] = (uint8_t)(crc >> 8);
    out[11 + n] = (uint8_t)crc;
    return n + 12;
}

/* One bucket (key 2) of a bitmap with runs: container 0 a run 10..19,
 * container 1 an array {5, 7}; two containers, so no offset header. */
static size_t runs_vector(uint8_t *v)
{
    size_t n = 0;
    n += put32(v + n, 1); /* buckets, u64 */
    n += put32(v + n, 0);
    n += put32(v + n, 2);                        /* bucket key */
    n += put32(v + n, 12347u | (2 - 1) << 16);   /* cookie with runs, 2 containers */
    v[n++] = 0x01;                               /* container 0 is a run container */
    n += put16(v + n, 0), n += put16(v + n, 9);  /* key 0, cardinality 10 */
    n += put16(v + n, 1), n += put16(v + n, 1);  /* key 1, cardinality 2 */
    n += put16(v + n, 1);                        /* one run */
    n += put16(v + n, 10), n += put16(v + n, 9); /* 10, length 10 */
    n += put16(v + n, 5), n += put16(v + n, 7);
    return n;
}

static void hand_written_runs(void **state)
{
    (void)state;
    uint8_t vec[128], blob[160];
    size_t len = frame(vec, runs_vector(vec), blob);
    struct lake_dv got;
    struct error e;
    uint64_t rows = (uint64_t)3 << 32;
    assert_int_equal(lake_dv_decode(blob, len, rows, &got, &e), 0);
    assert_int_equal(got.n, 12);
    uint64_t hi = (uint64_t)2 << 32;
    for (uint64_t i = 0; i < 10; i++)
        assert_true(got.pos[i] == hi + 10 + i);
    assert_true(got.pos[10] == hi + 65536 + 5 && got.pos[11] == hi + 65536 + 7);
    lake_dv_free(&got);
    /* Below the row count it is refused, not truncated. */
    assert_int_equal(lake_dv_decode(blob, len, hi + 15, &got, &e), -1);
    assert_int_equal(e.code, ERR_CORRUPT);
    assert_int_equal(got.n, 0);
}

/* The no-run format always has an offset header: one array container
 * {1, 2, 3} under key 4, in bucket 0. */
static void hand_written_offsets(void **state)
{
    (void)state;
    uint8_t vec[64], blob[96];
    size_t n = 0;
    n += put32(vec + n, 1), n += put32(vec + n, 0);
    n += put32(vec + n, 0);
    n += put32(vec + n, 12346), n += put32(vec + n, 1);
    n += put16(vec + n, 4), n += put16(vec + n, 2);
    n += put32(vec + n, 16); /* the container's offset from the cookie */
    n += put16(vec + n, 1), n += put16(vec + n, 2), n += put16(vec + n, 3);
    size_t len = frame(vec, n, blob);
    struct lake_dv got;
    struct error e;
    assert_int_equal(lake_dv_decode(blob, len, 1 << 20, &got, &e), 0);
    assert_int_equal(got.n, 3);
    assert_true(got.pos[0] == 4 * 65536 + 1 && got.pos[2] == 4 * 65536 + 3);
    lake_dv_free(&got);
}

/* ---- hostile blobs ---- */

static void expect_corrupt(const uint8_t *blob, size_t len, uint64_t rows, const char *needle)
{
    struct lake_dv got;
    struct error e;
    if (lake_dv_decode(blob, len, rows, &got, &e) != -1)
        fail_msg("decoded a bad blob (%s)", needle ? needle : "any reason");
    assert_int_equal(e.code, ERR_CORRUPT);
    if (needle && !strstr(e.msg, needle))
        fail_msg("want '%s' in: %s", needle, e.msg);
    assert_null(got.pos);
}

/* A vector edited by `edit`, framed with a good CRC. */
static size_t edited(size_t (*make)(uint8_t *), size_t at, uint8_t value, uint8_t *blob)
{
    uint8_t vec[128];
    size_t n = make(vec);
    vec[at] = value;
    return frame(vec, n, blob);
}

static void hostile(void **state)
{
    (void)state;
    uint8_t vec[128], blob[160];
    size_t len = frame(vec, runs_vector(vec), blob);
    uint64_t rows = (uint64_t)3 << 32;
    /* Every truncation. */
    for (size_t cut = 0; cut < len; cut++)
        expect_corrupt(blob, cut, rows, NULL);
    /* The frame. */
    uint8_t bad[160];
    memcpy(bad, blob, len);
    bad[len - 1] ^= 1;
    expect_corrupt(bad, len, rows, "CRC");
    memcpy(bad, blob, len);
    bad[5] ^= 1;
    expect_corrupt(bad, len, rows, "magic");
    memcpy(bad, blob, len);
    bad[3] += 1;
    expect_corrupt(bad, len, rows, "length prefix");
    /* The bitmap, under a good CRC: an unknown cookie, keys out of order,
     * a run past 65535, a cardinality that lies either way. */
    expect_corrupt(blob, edited(runs_vector, 12, 0x00, blob), rows, "cookie");
    expect_corrupt(blob, edited(runs_vector, 21, 0x00, blob), rows, "strictly rising");
    expect_corrupt(blob, edited(runs_vector, 29, 0xFF, blob), rows, "run");
    expect_corrupt(blob, edited(runs_vector, 19, 8, blob), rows, "cardinality");
    expect_corrupt(blob, edited(runs_vector, 19, 10, blob), rows, NULL);
    /* A bucket count no vector could hold. */
    expect_corrupt(blob, edited(runs_vector, 7, 0x7F, blob), rows, "buckets");
}

/* A declared bitmap container of 65536 values in a file of 100 rows is
 * refused before its positions are held. */
static void cardinality_bounded_by_rows(void **state)
{
    (void)state;
    uint8_t *vec = calloc(1, 8192 + 64), *blob = calloc(1, 8192 + 96);
    assert_non_null(vec);
    assert_non_null(blob);
    size_t n = 0;
    n += put32(vec + n, 1), n += put32(vec + n, 0);
    n += put32(vec + n, 0);
    n += put32(vec + n, 12346), n += put32(vec + n, 1);
    n += put16(vec + n, 0), n += put16(vec + n, 0xFFFF);
    n += put32(vec + n, 16);
    memset(vec + n, 0xFF, 8192);
    n += 8192;
    size_t len = frame(vec, n, blob);
    expect_corrupt(blob, len, 100, "more deleted positions than the data file has rows");
    struct lake_dv got;
    struct error e;
    assert_int_equal(lake_dv_decode(blob, len, 65536, &got, &e), 0);
    assert_int_equal(got.n, 65536);
    lake_dv_free(&got);
    free(vec);
    free(blob);
}

/* Random mutations of good vectors, each reframed with a good CRC: the
 * decoder either refuses (ERR_CORRUPT) or returns sorted, distinct
 * positions below the row count. */
static void random_mutations(void **state)
{
    (void)state;
    struct lake_dv v;
    struct error e;
    lake_dv_init(&v);
    uint64_t pos[300];
    for (size_t i = 0; i < 300; i++)
        pos[i] = (i % 3) * 70000 + i * 13 + ((i % 7) == 0 ? (uint64_t)1 << 32 : 0);
    assert_int_equal(lake_dv_add(&v, pos, 300, &e), 0);
    struct buf good;
    encode(&v, &good);
    lake_dv_free(&v);
    size_t vlen = good.len - 12;
    uint8_t *vec = malloc(vlen), *blob = malloc(good.len);
    assert_non_null(vec);
    assert_non_null(blob);
    srand(12345);
    for (int round = 0; round < 20000; round++) {
        memcpy(vec, good.data + 8, vlen);
        int flips = 1 + rand() % 4;
        for (int f = 0; f < flips; f++)
            vec[(size_t)rand() % vlen] = (uint8_t)rand();
        size_t keep = round % 5 == 0 ? (size_t)rand() % vlen : vlen;
        size_t len = frame(vec, keep, blob);
        struct lake_dv got;
        uint64_t rows = ((uint64_t)1 << 32) + 100000;
        if (lake_dv_decode(blob, len, rows, &got, &e) == 0) {
            for (size_t i = 0; i < got.n; i++) {
                assert_true(got.pos[i] < rows);
                assert_true(i == 0 || got.pos[i] > got.pos[i - 1]);
            }
            lake_dv_free(&got);
        } else {
            assert_int_equal(e.code, ERR_CORRUPT);
        }
    }
    free(vec);
    free(blob);
    buf_free(&good);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(roundtrips),        cmocka_unit_test(contains_and_add),
        cmocka_unit_test(hand_written_runs), cmocka_unit_test(hand_written_offsets),
        cmocka_unit_test(hostile),           cmocka_unit_test(cardinality_bounded_by_rows),
        cmocka_unit_test(random_mutations),  cmocka_unit_test(add_batches_of_every_shape),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
