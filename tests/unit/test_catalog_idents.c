/* The commit path's cache of catalog identities (server/catalog/catalog_idents.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "server/catalog/catalog_idents.h"

static struct catalog_ident ident(int64_t id, const char *name, const char *path)
{
    return (struct catalog_ident){.id = id, .name = name, .data_path = path};
}

/* Each test gets a fresh cache and an arena for what it reads back. */
struct fixture {
    struct catalog_idents *c;
    struct arena a;
};

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    f->c = catalog_idents_new();
    assert_non_null(f->c);
    arena_init(&f->a, 0);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    arena_free(&f->a);
    catalog_idents_free(f->c);
    free(f);
    return 0;
}

/* A kept identity comes back copied into the caller's arena; a name never
 * put, or forgotten, is a miss. */
static void put_get_forget(void **state)
{
    struct fixture *fx = *state;
    struct catalog_idents *c = fx->c;
    struct arena *a = &fx->a;
    struct catalog_ident got;
    assert_int_equal(catalog_idents_get(c, "sales", a, &got), 0);
    char name[] = "sales", path[] = "s3://bucket/sales";
    catalog_idents_put(c, &(struct catalog_ident){.id = 7, .name = name, .data_path = path});
    /* The cache holds its own copy. */
    memset(name, 'x', 5);
    memset(path, 'x', 5);
    assert_int_equal(catalog_idents_get(c, "sales", a, &got), 1);
    assert_int_equal(got.id, 7);
    assert_string_equal(got.name, "sales");
    assert_string_equal(got.data_path, "s3://bucket/sales");
    assert_int_equal(catalog_idents_get(c, "sale", a, &got), 0);
    assert_int_equal(catalog_idents_get(c, "salesx", a, &got), 0);
    catalog_idents_forget(c, "other"); /* not kept: nothing happens */
    assert_int_equal(catalog_idents_get(c, "sales", a, &got), 1);
    catalog_idents_forget(c, "sales");
    assert_int_equal(catalog_idents_get(c, "sales", a, &got), 0);
    /* Put again, with another id: the newest wins. */
    struct catalog_ident first = ident(7, "sales", "s3://a/sales");
    struct catalog_ident again = ident(9, "sales", "s3://b/sales");
    catalog_idents_put(c, &first);
    catalog_idents_put(c, &again);
    assert_int_equal(catalog_idents_get(c, "sales", a, &got), 1);
    assert_int_equal(got.id, 9);
    assert_string_equal(got.data_path, "s3://b/sales");
}

/* Many more names than slots: memory stays bounded (a name's slot is
 * overwritten), and whatever is found is the identity put under that
 * name, never another's. */
static void collisions_evict_and_never_mix(void **state)
{
    struct fixture *fx = *state;
    struct catalog_idents *c = fx->c;
    struct arena *a = &fx->a;
    enum { N = 5000 };
    char name[32], path[64];
    for (int i = 0; i < N; i++) {
        snprintf(name, sizeof name, "cat%d", i);
        snprintf(path, sizeof path, "file:///w/cat%d", i);
        catalog_idents_put(c, &(struct catalog_ident){.id = i, .name = name, .data_path = path});
    }
    int found = 0;
    for (int i = 0; i < N; i++) {
        snprintf(name, sizeof name, "cat%d", i);
        snprintf(path, sizeof path, "file:///w/cat%d", i);
        struct catalog_ident got;
        int rc = catalog_idents_get(c, name, a, &got);
        assert_true(rc == 0 || rc == 1);
        if (rc == 1) {
            found++;
            assert_int_equal(got.id, i);
            assert_string_equal(got.name, name);
            assert_string_equal(got.data_path, path);
        }
    }
    assert_true(found > 0 && found <= 512);
}

/* A name or path past the limit is not kept (its commits look it up). */
static void overlong_text_is_not_kept(void **state)
{
    struct fixture *fx = *state;
    struct catalog_idents *c = fx->c;
    struct arena *a = &fx->a;
    static char path[5000];
    memset(path, 'p', sizeof path - 1);
    catalog_idents_put(c, &(struct catalog_ident){.id = 1, .name = "long", .data_path = path});
    struct catalog_ident got;
    assert_int_equal(catalog_idents_get(c, "long", a, &got), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(put_get_forget, setup, teardown),
        cmocka_unit_test_setup_teardown(collisions_evict_and_never_mix, setup, teardown),
        cmocka_unit_test_setup_teardown(overlong_text_is_not_kept, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
