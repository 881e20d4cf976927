/* Iceberg metadata versions in object storage (src/iceberg/table_io.c) on
 * file:// and on moto: loading the current version through the hint and
 * past a stale or broken one, and commits that never overwrite another
 * writer's version. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness.h"
#include "iceberg/table_io.h"
#include "objstore/objstore.h"
#include "util/buf.h"

static char tmp_root[256];

static struct objstore *open_store(const char *endpoint)
{
    struct objstore_config cfg = {.s3_endpoint = endpoint,
                                  .s3_region = getenv("HOGLAKE_TEST_S3_REGION"),
                                  .s3_access_key = getenv("HOGLAKE_TEST_S3_ACCESS_KEY"),
                                  .s3_secret_key = getenv("HOGLAKE_TEST_S3_SECRET_KEY")};
    struct objstore *s;
    struct hl_error err;
    if (objstore_open(&cfg, &s, &err) != 0)
        fail_msg("objstore_open: %s", err.message);
    return s;
}

static void put(struct objstore *s, const char *loc, const char *name, const char *text)
{
    char uri[1024];
    size_t n = strlen(loc);
    while (n > 0 && loc[n - 1] == '/')
        n--;
    snprintf(uri, sizeof uri, "%.*s/metadata/%s", (int)n, loc, name);
    struct hl_error err;
    if (objstore_put(s, uri, text, strlen(text), 0, &err) != 0)
        fail_msg("put %s: %s", uri, err.message);
}

static void expect_current(struct objstore *s, const char *loc, int64_t version, const char *text)
{
    struct buf b = BUF_INIT;
    int64_t v = -1;
    struct hl_error err;
    if (iceberg_load_current(s, loc, &v, &b, &err) != 0)
        fail_msg("load %s: %s", loc, err.message);
    assert_int_equal(v, version);
    if (text) {
        assert_int_equal(buf_putc(&b, '\0'), 0);
        assert_string_equal(b.data, text);
    } else {
        assert_int_equal(b.len, 0);
    }
    buf_free(&b);
}

static void versions(struct objstore *s, const char *loc)
{
    struct hl_error err;
    /* No table yet. */
    expect_current(s, loc, 0, NULL);
    assert_int_equal(iceberg_commit_version(s, loc, 1, "{\"v\":1}", 7, &err), 0);
    expect_current(s, loc, 1, "{\"v\":1}");
    /* A second writer that loaded the same version loses, and nothing of
     * the first is overwritten. */
    assert_int_equal(iceberg_commit_version(s, loc, 1, "{\"v\":9}", 7, &err), -1);
    assert_int_equal(err.status, HL_ERR_ALREADY_EXISTS);
    expect_current(s, loc, 1, "{\"v\":1}");
    assert_int_equal(iceberg_commit_version(s, loc, 2, "{\"v\":2}", 7, &err), 0);
    expect_current(s, loc, 2, "{\"v\":2}");
    /* A version whose hint update was lost is still found. */
    put(s, loc, "v3.metadata.json", "{\"v\":3}");
    expect_current(s, loc, 3, "{\"v\":3}");
    /* A hint naming a version that is not there, or no number at all:
     * the listing decides. */
    put(s, loc, "version-hint.text", "7\n");
    expect_current(s, loc, 3, "{\"v\":3}");
    put(s, loc, "version-hint.text", "garbage");
    expect_current(s, loc, 3, "{\"v\":3}");
    /* Other files in the directory are not versions. */
    put(s, loc, "v4.metadata.json.tmp", "x");
    put(s, loc, "snap-1-1-abc.avro", "x");
    expect_current(s, loc, 3, "{\"v\":3}");
    /* Bad arguments. */
    assert_int_equal(iceberg_commit_version(s, loc, 0, "{}", 2, &err), -1);
    assert_int_equal(err.status, HL_ERR_INVALID_ARGUMENT);
}

static void on_file(void **state)
{
    (void)state;
    char loc[512];
    snprintf(loc, sizeof loc, "file://%s/tbl/", tmp_root); /* a trailing slash is fine */
    struct objstore *s = open_store(NULL);
    versions(s, loc);
    objstore_free(s);
}

static void on_moto(void **state)
{
    (void)state;
    char loc[512];
    snprintf(loc, sizeof loc, "s3://%s/iceberg-io-%ld-%d/tbl",
             test_need_env("HOGLAKE_TEST_S3_BUCKET"), (long)time(NULL), (int)getpid());
    struct objstore *s = open_store(test_need_env("HOGLAKE_TEST_MOTO_ENDPOINT"));
    versions(s, loc);
    objstore_free(s);
}

static int setup(void **state)
{
    (void)state;
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(tmp_root, sizeof tmp_root, "%s/hl-iceberg-io-XXXXXX", tmp);
    return mkdtemp(tmp_root) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_root);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(on_file), cmocka_unit_test(on_moto)};
    return cmocka_run_group_tests(tests, setup, teardown);
}
