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

static void expect_unshreddable(const char *decl_text, const char *want)
{
    json_error_t je;
    json_t *decl = json_loads(decl_text, JSON_DECODE_ANY, &je);
    assert_non_null(decl);
    json_t *paths = NULL;
    struct error err;
    if (lake_shredding_unshreddable(decl, &paths, &err) != 0)
        fail_msg("%s", err.msg);
    char *got = json_dumps(paths, JSON_COMPACT);
    if (strcmp(got, want) != 0)
        fail_msg("got %s, want %s", got, want);
    free(got);
    json_decref(paths);
    json_decref(decl);
}

/* Leaves JSON text never fills, by the encoder's typing. */
static void unshreddable_paths(void **state)
{
    (void)state;
    expect_unshreddable(
        "{\"type\":\"object\",\"fields\":["
        "{\"name\":\"$browser\",\"type\":\"string\"},"
        "{\"name\":\"price\",\"type\":\"decimal8\",\"precision\":18,\"scale\":2},"
        "{\"name\":\"n\",\"type\":\"int8\"},{\"name\":\"f\",\"type\":\"float\"},"
        "{\"name\":\"d\",\"type\":\"double\"},{\"name\":\"at\",\"type\":\"timestamptz\"},"
        "{\"name\":\"big\",\"type\":\"decimal16\",\"precision\":38,\"scale\":0},"
        "{\"name\":\"small\",\"type\":\"decimal16\",\"precision\":18,\"scale\":0},"
        "{\"name\":\"frac\",\"type\":\"decimal16\",\"precision\":38,\"scale\":2},"
        "{\"name\":\"tags\",\"type\":\"array\",\"element\":{\"type\":\"uuid\"}},"
        "{\"name\":\"o\",\"type\":\"object\",\"fields\":[{\"name\":\"b\",\"type\":\"binary\"},"
        "{\"name\":\"v\",\"type\":\"variant\"},{\"name\":\"ok\",\"type\":\"boolean\"}]}]}",
        "[\"$.price\",\"$.f\",\"$.at\",\"$.small\",\"$.frac\",\"$.tags[*]\",\"$.o.b\"]");
    expect_unshreddable("{\"type\":\"variant\"}", "[]");
    expect_unshreddable("{\"type\":\"date\"}", "[\"$\"]");
    /* A declaration the grammar refuses is refused in its words. */
    json_t *bad = json_loads("{\"type\":\"array\"}", 0, NULL);
    json_t *paths = NULL;
    struct error err;
    assert_int_equal(lake_shredding_unshreddable(bad, &paths, &err), -1);
    assert_string_equal(err.msg, "$ has no element");
    assert_null(paths);
    json_decref(bad);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_vector),
        cmocka_unit_test(lowercase_as_java),
        cmocka_unit_test(quoting),
        cmocka_unit_test(unshreddable_paths),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
