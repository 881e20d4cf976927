/* Unit tests for src/parquet/dict_key.h: the writer's dictionary keys are
 * equal exactly when their bytes are, wherever a difference lies, and a
 * difference in any byte, the tail read as an overlapping word included,
 * changes the hash. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "parquet/dict_key.h"

enum { MAXLEN = 48 };

/* Keys of every length up to MAXLEN, at every alignment of a buffer,
 * equal to themselves and unequal (with another hash) to the key with any
 * one byte changed. */
static void test_every_byte_counts(void **state)
{
    (void)state;
    uint8_t a[MAXLEN + 8], b[MAXLEN + 8];
    for (size_t len = 0; len <= MAXLEN; len++)
        for (size_t align = 0; align < 8; align++) {
            for (size_t i = 0; i < len; i++)
                a[align + i] = (uint8_t)(i * 37 + len);
            memcpy(b + 7 - align, a + align, len);
            const uint8_t *x = a + align, *y = b + 7 - align;
            assert_true(pq_key_equal(x, y, len));
            assert_true(pq_key_hash(x, len) == pq_key_hash(y, len));
            for (size_t at = 0; at < len; at++) {
                b[7 - align + at] ^= 0x40;
                assert_false(pq_key_equal(x, y, len));
                assert_true(pq_key_hash(x, len) != pq_key_hash(y, len));
                b[7 - align + at] ^= 0x40;
            }
        }
}

/* A key and its prefixes hash apart: the length is part of the hash, and
 * bytes read again by the overlapping tail word do not cancel out. */
static void test_prefixes_hash_apart(void **state)
{
    (void)state;
    uint8_t k[MAXLEN];
    memset(k, 'a', sizeof k);
    for (size_t len = 1; len <= MAXLEN; len++)
        for (size_t shorter = 0; shorter < len; shorter++)
            assert_true(pq_key_hash(k, len) != pq_key_hash(k, shorter));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_byte_counts),
        cmocka_unit_test(test_prefixes_hash_apart),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
