/* The shredding declaration's grammar (lake/shredding) and the name rules
 * under it (lake/namecase), against every vector of
 * tests/vectors/variant_shredding_vectors.json, read as the server reads a
 * request (jsonx_loadb_lenient: lone surrogates and integers past int64
 * included). The server is the authority, so a refusal marked "client":
 * "may_accept" is a refusal here too. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lake/namecase.h"
#include "lake/shredding.h"
#include "util/buf.h"
#include "util/jsonx.h"
#include "vectors_testlib.h"

static json_t *load_vectors(void)
{
    return vectors_load_lenient(HL_SHARED_VECTORS "/variant_shredding_vectors.json");
}

static void every_vector(void **state)
{
    (void)state;
    json_t *doc = load_vectors();
    const json_t *vectors = json_object_get(doc, "vectors");
    assert_int_equal(json_array_size(vectors), 205);
    size_t i, accepted = 0, refused = 0, failures = 0;
    const json_t *v;
    json_array_foreach ((json_t *)vectors, i, v) {
        const char *id = json_string_value(json_object_get(v, "id"));
        const json_t *decl = json_object_get(v, "declaration");
        bool accept = strcmp(json_string_value(json_object_get(v, "expect")), "accept") == 0;
        struct error e = {0};
        int rc = json_is_null(decl) ? 0 : lake_shredding_check(decl, &e);
        if (accept) {
            accepted++;
            if (rc != 0) {
                printf("%s: refused: %s\n", id, e.msg);
                failures++;
            }
            continue;
        }
        refused++;
        char want[ERROR_MESSAGE_MAX];
        snprintf(want, sizeof want, "%s %s", json_string_value(json_object_get(v, "path")),
                 json_string_value(json_object_get(v, "problem")));
        if (rc == 0)
            printf("%s: accepted, want: %s\n", id, want);
        else if (e.code != ERR_INVALID || strcmp(e.msg, want) != 0)
            printf("%s:\n  got:  %s\n  want: %s\n", id, e.msg, want);
        failures += rc == 0 || e.code != ERR_INVALID || strcmp(e.msg, want) != 0;
    }
    json_decref(doc);
    assert_int_equal(accepted, 64);
    assert_int_equal(refused, 141);
    assert_int_equal(failures, 0);
}

static const char *lower(const char *s, struct buf *b)
{
    assert_int_equal(lake_name_lower(s, strlen(s), b), 0);
    return b->data ? b->data : "";
}

/* Java's lowercase, case by case: the final sigma by word, U+0130, and a
 * name that is already lowercase. */
static void lowercase_as_java(void **state)
{
    (void)state;
    struct buf b = BUF_INIT;
    assert_string_equal(lower("ABC_def", &b), "abc_def");
    assert_string_equal(lower("\xce\x9f\xce\x94\xce\x9f\xce\xa3", &b), /* ΟΔΟΣ */
                        "\xce\xbf\xce\xb4\xce\xbf\xcf\x82");           /* οδος, final */
    assert_string_equal(lower("\xce\xa3", &b), "\xcf\x83");            /* Σ alone: σ */
    assert_string_equal(lower("A^\xce\xa3", &b), "a^\xcf\x83");        /* ^ ends a word */
    assert_string_equal(lower("a-\xce\xa3", &b), "a-\xcf\x82");        /* - joins */
    assert_string_equal(lower("\xce\xa3x", &b), "\xcf\x83x");          /* cased after */
    assert_string_equal(lower("\xc4\xb0", &b), "i\xcc\x87");           /* İ: i + U+0307 */
    assert_string_equal(lower("\xe2\x84\xaa", &b), "k");               /* Kelvin */
    assert_string_equal(lower("\xea\x9f\x8b", &b), "\xc9\xa4");        /* U+A7CB (16.0) */
    buf_free(&b);
}

/* A quoted name keeps 64 UTF-16 units, else 61 and "...". */
static void quoting(void **state)
{
    (void)state;
    char name[200];
    memset(name, 'z', 64);
    name[64] = '\0';
    struct buf b = BUF_INIT;
    assert_int_equal(lake_name_quote(name, 64, &b), 0);
    assert_int_equal(b.len, 64);
    buf_reset(&b);
    name[64] = 'z';
    assert_int_equal(lake_name_quote(name, 65, &b), 0);
    assert_int_equal(b.len, 64);
    assert_memory_equal(b.data + 61, "...", 3);
    buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_vector),
        cmocka_unit_test(lowercase_as_java),
        cmocka_unit_test(quoting),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
