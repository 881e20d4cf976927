/* The object store confined to a root (objstore_confine): what the server
 * may touch of a catalog's file:// data path. Every attack is tried with
 * openat2 and again with the component walk that replaces it on kernels
 * without it, against canary files outside the root that must survive. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "objstore/fsplace.h"
#include "objstore/objstore.h"

static char base[256];   /* a scratch directory for one test */
static char root[300];   /* base/root: the confined catalog */
static char canary[300]; /* base/outside/canary: must survive */

static void make_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void mkdirs(const char *fmt, ...)
{
    char path[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(path, sizeof path, fmt, ap);
    va_end(ap);
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        mkdir(path, 0755);
        *p = '/';
    }
    mkdir(path, 0755);
}

static int setup(void **state)
{
    (void)state;
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(base, sizeof base, "%s/hl-confine-XXXXXX", tmp);
    assert_non_null(mkdtemp(base));
    snprintf(root, sizeof root, "%s/root", base);
    snprintf(canary, sizeof canary, "%s/outside/canary", base);
    mkdirs("%s/ns/t", root);
    mkdirs("%s/outside", base);
    make_file(canary, "secret");
    char p[600];
    snprintf(p, sizeof p, "%s/ns/t/good.parquet", root);
    make_file(p, "0123456789");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
    (void)system(cmd);
    fs_place_use_openat2(true);
    return 0;
}

static void canary_intact(void)
{
    char text[16] = "";
    FILE *f = fopen(canary, "r");
    assert_non_null(f);
    assert_non_null(fgets(text, sizeof text, f));
    fclose(f);
    assert_string_equal(text, "secret");
}

/* A view on file://<root>; the base store unconfined. */
static struct objstore *store, *view;

static void open_view(void)
{
    struct hl_error err;
    assert_int_equal(objstore_open(NULL, &store, &err), 0);
    char uri[400];
    snprintf(uri, sizeof uri, "file://%s", root);
    assert_int_equal(objstore_confine(store, uri, &view, &err), 0);
}

static void close_view(void)
{
    objstore_free(view);
    objstore_free(store);
}

/* Expects every operation on `rel` (below the root) to be refused with
 * `reason`, and the canary to survive. */
static void expect_refused(const char *rel, const char *reason)
{
    char uri[600];
    snprintf(uri, sizeof uri, "file://%s/%s", root, rel);
    struct hl_error err;
    struct buf b = BUF_INIT;
    uint64_t size;
    assert_int_equal(objstore_get(view, uri, 0, UINT64_MAX, &b, &err), -1);
    assert_int_equal(err.status, HL_ERR_FORBIDDEN);
    assert_string_equal(err.code, reason);
    assert_int_equal(b.len, 0);
    assert_int_equal(objstore_head(view, uri, &size, &err), -1);
    assert_string_equal(err.code, reason);
    const char *uris[] = {uri};
    size_t gone = 99;
    assert_int_equal(objstore_delete(view, uris, 1, &gone, &err), -1);
    assert_int_equal(err.status, HL_ERR_FORBIDDEN);
    assert_string_equal(err.code, reason);
    assert_int_equal(gone, 0);
    buf_free(&b);
    canary_intact();
}

static void reads_and_deletes_its_own_files(void **state)
{
    (void)state;
    open_view();
    char uri[600];
    snprintf(uri, sizeof uri, "file://%s/ns/t/good.parquet", root);
    struct hl_error err;
    uint64_t size = 0;
    assert_int_equal(objstore_head(view, uri, &size, &err), 0);
    assert_int_equal(size, 10);
    struct buf b = BUF_INIT;
    assert_int_equal(objstore_get(view, uri, 2, 3, &b, &err), 0);
    assert_memory_equal(b.data, "234", 3);
    buf_free(&b);
    /* A write creates what is missing beneath the root. */
    char out[600];
    snprintf(out, sizeof out, "file://%s/ns/t/new/dir/compacted.parquet", root);
    assert_int_equal(objstore_put(view, out, "abc", 3, OBJSTORE_IF_NONE_MATCH, &err), 0);
    assert_int_equal(objstore_head(view, out, &size, &err), 0);
    assert_int_equal(size, 3);
    const char *uris[] = {uri, out};
    size_t gone = 0;
    assert_int_equal(objstore_delete(view, uris, 2, &gone, &err), 0);
    assert_int_equal(gone, 2);
    close_view();
}

/* objstore_get_sized against good.parquet (10 bytes) and an empty file:
 * the recorded size or a size_mismatch, never more than size + 1 read. */
static void expect_sized(const char *name, uint64_t size, int rc, const char *needle)
{
    char uri[600];
    snprintf(uri, sizeof uri, "file://%s/ns/t/%s", root, name);
    struct hl_error err = {0};
    struct buf b = BUF_INIT;
    assert_int_equal(objstore_get_sized(view, uri, size, &b, &err), rc);
    if (rc == 0) {
        assert_int_equal(b.len, size);
    } else {
        assert_int_equal(b.len, 0);
        assert_int_equal(err.status, HL_ERR_FORBIDDEN);
        assert_string_equal(err.code, "size_mismatch");
        if (!strstr(err.message, needle))
            fail_msg("size %llu: '%s' lacks '%s'", (unsigned long long)size, err.message, needle);
    }
    buf_free(&b);
}

static void sized_reads_hold_to_the_record(void **state)
{
    (void)state;
    open_view();
    char p[600];
    snprintf(p, sizeof p, "%s/ns/t/empty.parquet", root);
    make_file(p, "");
    expect_sized("good.parquet", 10, 0, NULL);
    expect_sized("good.parquet", 4, -1, "holds more than 4 bytes, 4 were recorded");
    expect_sized("good.parquet", 11, -1, "holds 10 bytes, 11 were recorded");
    expect_sized("good.parquet", 0, -1, "holds 10 bytes, 0 were recorded");
    expect_sized("empty.parquet", 0, 0, NULL);
    expect_sized("empty.parquet", 3, -1, "holds 0 bytes, 3 were recorded");
    close_view();
}

static void outside_the_root_is_refused(void **state)
{
    (void)state;
    open_view();
    char uri[600];
    snprintf(uri, sizeof uri, "file://%s", canary);
    struct hl_error err;
    uint64_t size;
    assert_int_equal(objstore_head(view, uri, &size, &err), -1);
    assert_string_equal(err.code, "outside_root");
    /* A sibling whose name starts like the root is not beneath it. */
    char sibling[400];
    snprintf(sibling, sizeof sibling, "%s2", root);
    mkdirs("%s", sibling);
    snprintf(uri, sizeof uri, "file://%s/x", sibling);
    make_file(uri + 7, "x");
    const char *uris[] = {uri};
    size_t gone = 0;
    assert_int_equal(objstore_delete(view, uris, 1, &gone, &err), -1);
    assert_string_equal(err.code, "outside_root");
    assert_int_equal(access(uri + 7, F_OK), 0);
    /* s3 through a file view, and a write outside. */
    assert_int_equal(objstore_head(view, "s3://bucket/key", &size, &err), -1);
    assert_string_equal(err.code, "outside_root");
    snprintf(uri, sizeof uri, "file://%s/outside/planted", base);
    assert_int_equal(objstore_put(view, uri, "x", 1, 0, &err), -1);
    assert_string_equal(err.code, "outside_root");
    assert_int_not_equal(access(uri + 7, F_OK), 0);
    close_view();
}

static void symlinks_are_never_followed(void **state)
{
    (void)state;
    open_view();
    char link[600], target[600];
    /* A directory link out of the catalog, and a file link to the canary. */
    snprintf(link, sizeof link, "%s/ns/escape", root);
    snprintf(target, sizeof target, "%s/outside", base);
    assert_int_equal(symlink(target, link), 0);
    snprintf(link, sizeof link, "%s/ns/t/alias.parquet", root);
    assert_int_equal(symlink(canary, link), 0);
    expect_refused("ns/escape/canary", "symlink");
    expect_refused("ns/t/alias.parquet", "symlink");
    /* A write through the directory link plants nothing. */
    char uri[600];
    snprintf(uri, sizeof uri, "file://%s/ns/escape/planted", root);
    struct hl_error err;
    assert_int_equal(objstore_put(view, uri, "x", 1, 0, &err), -1);
    assert_string_equal(err.code, "symlink");
    snprintf(target, sizeof target, "%s/outside/planted", base);
    assert_int_not_equal(access(target, F_OK), 0);
    /* The unconfined store, a client's, still follows links. */
    uint64_t size = 0;
    snprintf(uri, sizeof uri, "file://%s/ns/escape/canary", root);
    assert_int_equal(objstore_head(store, uri, &size, &err), 0);
    assert_int_equal(size, 6);
    close_view();
}

static void a_symlinked_root_is_refused(void **state)
{
    (void)state;
    char alias[400], uri[600];
    snprintf(alias, sizeof alias, "%s/alias", base);
    assert_int_equal(symlink(root, alias), 0);
    struct hl_error err;
    assert_int_equal(objstore_open(NULL, &store, &err), 0);
    snprintf(uri, sizeof uri, "file://%s", alias);
    assert_int_equal(objstore_confine(store, uri, &view, &err), 0);
    snprintf(uri, sizeof uri, "file://%s/ns/t/good.parquet", alias);
    const char *uris[] = {uri};
    size_t gone = 0;
    assert_int_equal(objstore_delete(view, uris, 1, &gone, &err), -1);
    assert_string_equal(err.code, "symlink");
    snprintf(uri, sizeof uri, "%s/ns/t/good.parquet", root);
    assert_int_equal(access(uri, F_OK), 0);
    close_view();
}

static void only_regular_files(void **state)
{
    (void)state;
    open_view();
    char path[600];
    snprintf(path, sizeof path, "%s/ns/t/fifo.parquet", root);
    assert_int_equal(mkfifo(path, 0600), 0);
    expect_refused("ns/t/fifo.parquet", "not_regular_file");
    assert_int_equal(access(path, F_OK), 0);
    mkdirs("%s/ns/t/dir.parquet", root);
    expect_refused("ns/t/dir.parquet", "not_regular_file");
    close_view();
}

static void s3_views_keep_to_their_prefix(void **state)
{
    (void)state;
    struct hl_error err;
    assert_int_equal(objstore_open(NULL, &store, &err), 0);
    assert_int_equal(objstore_confine(store, "s3://bucket/cat/", &view, &err), 0);
    const char *outside[] = {"s3://bucket/cat2/x",    "s3://bucket/x",
                             "s3://other/cat/x",      "s3://bucket/cat/a//b",
                             "s3://bucket/cat/a/./b", "s3://bucket/cat/../x",
                             "file:///bucket/cat/x"};
    for (size_t i = 0; i < sizeof outside / sizeof outside[0]; i++) {
        const char *uris[] = {outside[i]};
        size_t gone = 0;
        assert_int_equal(objstore_delete(view, uris, 1, &gone, &err), -1);
        assert_int_equal(err.status, HL_ERR_FORBIDDEN);
        assert_string_equal(err.code, "outside_root");
    }
    objstore_free(view);
    /* No root at all is no confinement: refused. */
    assert_int_equal(objstore_confine(store, "file:///", &view, &err), -1);
    assert_int_equal(objstore_confine(store, "s3://bucket", &view, &err), 0);
    objstore_free(view);
    objstore_free(store);
}

/* Each file:// case again on the walk kernels without openat2 take. */
static int walk_setup(void **state)
{
    fs_place_use_openat2(false);
    return setup(state);
}

#define BOTH(fn)                                                                                   \
    cmocka_unit_test_setup_teardown(fn, setup, teardown),                                          \
        cmocka_unit_test_setup_teardown(fn, walk_setup, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        BOTH(reads_and_deletes_its_own_files),
        BOTH(outside_the_root_is_refused),
        BOTH(symlinks_are_never_followed),
        BOTH(a_symlinked_root_is_refused),
        BOTH(only_regular_files),
        BOTH(sized_reads_hold_to_the_record),
        cmocka_unit_test(s3_views_keep_to_their_prefix),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
