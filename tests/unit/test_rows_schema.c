/* rows_arrow_column_type against rows_column_arrow_schema: every catalog
 * type (and decimal precisions and scales) comes back as itself from the
 * Arrow field the forward mapping gives it, with the extension names that
 * tell uuid, json and variant apart; the writer's wider input maps to the
 * same types, and Arrow types with no catalog type map to none; reads mark
 * json columns at any depth. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "rows/rows_schema.h"
#include "util/arrow.h"

/* The type the field made for column c maps back to (-1: none). */
static int back(const struct lake_column *c, int *precision, int *scale)
{
    struct ArrowSchema s;
    assert_int_equal(rows_column_arrow_schema(c, "c", &s), 0);
    /* A json column is plain utf8 on the writer's side; reads mark it (as
     * pa.json_() does). */
    assert_int_equal(rows_schema_mark_json(&s, c), 0);
    enum lake_type t;
    int r = rows_arrow_column_type(&s, &t, precision, scale);
    s.release(&s);
    return r == 0 ? (int)t : -1;
}

static void test_every_type_round_trips(void **state)
{
    (void)state;
    struct lake_column el = {.name = "element", .type = LT_LONG, .nullable = true};
    struct lake_column *kids[] = {&el};
    for (int t = 0; t < LT__COUNT; t++) {
        struct lake_column c = {.name = "c", .type = (enum lake_type)t, .nullable = true};
        if (t == LT_DECIMAL) {
            c.precision = 38;
            c.scale = 9;
        }
        if (t == LT_LIST || t == LT_STRUCT) {
            c.children = kids;
            c.nchildren = 1;
        }
        if (t == LT_MAP)
            continue; /* below, with its key and value */
        int p, s;
        if (back(&c, &p, &s) != t)
            fail_msg("%s does not map back to itself", lake_type_name((enum lake_type)t));
        assert_int_equal(p, t == LT_DECIMAL ? 38 : 0);
        assert_int_equal(s, t == LT_DECIMAL ? 9 : 0);
    }
    struct lake_column key = {.name = "key", .type = LT_STRING};
    struct lake_column value = {.name = "value", .type = LT_DOUBLE, .nullable = true, .ordinal = 1};
    struct lake_column *kv[] = {&key, &value};
    struct lake_column map = {
        .name = "c", .type = LT_MAP, .nullable = true, .children = kv, .nchildren = 2};
    int p, s;
    assert_int_equal(back(&map, &p, &s), LT_MAP);
}

/* rows_schema_mark_json finds json columns at any depth: a list's
 * element, a struct's field, a map's value; nothing else is marked. */
static void test_json_marked_at_any_depth(void **state)
{
    (void)state;
    struct lake_column j = {.name = "element", .type = LT_JSON, .nullable = true};
    struct lake_column *el[] = {&j};
    struct lake_column list = {.name = "l", .type = LT_LIST, .children = el, .nchildren = 1};
    struct lake_column plain = {.name = "s", .type = LT_STRING};
    struct lake_column doc = {.name = "d", .type = LT_JSON, .ordinal = 1};
    struct lake_column *fields[] = {&plain, &doc};
    struct lake_column st = {.name = "st", .type = LT_STRUCT, .children = fields, .nchildren = 2};
    struct lake_column key = {.name = "key", .type = LT_STRING};
    struct lake_column value = {.name = "value", .type = LT_JSON, .ordinal = 1};
    struct lake_column *kv[] = {&key, &value};
    struct lake_column map = {.name = "m", .type = LT_MAP, .children = kv, .nchildren = 2};
    struct ArrowSchema s;
    assert_int_equal(rows_column_arrow_schema(&list, "l", &s), 0);
    assert_int_equal(rows_schema_mark_json(&s, &list), 0);
    assert_false(rows_schema_is_json(&s));
    assert_true(rows_schema_is_json(s.children[0]));
    s.release(&s);
    assert_int_equal(rows_column_arrow_schema(&st, "st", &s), 0);
    assert_int_equal(rows_schema_mark_json(&s, &st), 0);
    assert_false(rows_schema_is_json(s.children[0]));
    assert_true(rows_schema_is_json(s.children[1]));
    s.release(&s);
    assert_int_equal(rows_column_arrow_schema(&map, "m", &s), 0);
    assert_int_equal(rows_schema_mark_json(&s, &map), 0);
    assert_false(rows_schema_is_json(s.children[0]->children[0]));
    assert_true(rows_schema_is_json(s.children[0]->children[1]));
    s.release(&s);
}

/* The type of a field of this format and extension name (NULL: none). */
static int type_of(const char *format, const char *extension)
{
    struct ArrowSchema s;
    assert_int_equal(arrow_schema_init(&s, format, "f", 0, 0), 0);
    if (extension) {
        const char *key = "ARROW:extension:name";
        assert_int_equal(arrow_schema_set_metadata(&s, &key, &extension, 1), 0);
    }
    enum lake_type t;
    int p, sc;
    int r = rows_arrow_column_type(&s, &t, &p, &sc);
    s.release(&s);
    return r == 0 ? (int)t : -1;
}

static void test_wider_input_and_refusals(void **state)
{
    (void)state;
    assert_int_equal(type_of("U", NULL), LT_STRING);
    assert_int_equal(type_of("U", "arrow.json"), LT_JSON);
    assert_int_equal(type_of("Z", NULL), LT_BINARY);
    assert_int_equal(type_of("+L", NULL), LT_LIST);
    assert_int_equal(type_of("tsu:Europe/Paris", NULL), LT_TIMESTAMPTZ);
    assert_int_equal(type_of("d:5,5,128", NULL), LT_DECIMAL);
    /* No catalog type: other units with a zone, other widths, fixed sizes
     * without the uuid marker, markers on the wrong storage. */
    static const char *const none[] = {"tsn:UTC",  "tss:UTC",   "ttm",  "tts", "ttn",    "tdm",
                                       "w:16",     "w:8",       "e",    "n",   "d:39,2", "d:5,6",
                                       "d:9,2,32", "d:9,2,256", "+w:2", "vu"};
    for (size_t i = 0; i < sizeof none / sizeof none[0]; i++)
        if (type_of(none[i], NULL) != -1)
            fail_msg("'%s' maps to a catalog type", none[i]);
    assert_int_equal(type_of("z", "arrow.uuid"), -1);
    assert_int_equal(type_of("z", "arrow.json"), -1);
    assert_int_equal(type_of("u", "arrow.parquet.variant"), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_type_round_trips),
        cmocka_unit_test(test_wider_input_and_refusals),
        cmocka_unit_test(test_json_marked_at_any_depth),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
