/* Integration tests of the object store client (src/objstore) against
 * moto (S3 semantics: conditional writes, multipart, abort), s3rver (it
 * verifies every SigV4 signature and payload hash), file:// in a temp dir,
 * and a scripted loopback HTTP server for retries, timeouts, aborts and
 * credential leaks. Needs HOGLAKE_TEST_MOTO_ENDPOINT and
 * HOGLAKE_TEST_S3RVER_ENDPOINT (scripts/test.sh starts both): without them
 * the S3 tests fail, they never skip. */
#include <curl/curl.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fake_http.h"
#include "harness.h"
#include "objstore/objstore.h"
#include "util/sha256.h"

#define TEST_SECRET_FALLBACK "hoglake-secret"

static char run_id[64]; /* a fresh key prefix per run: the servers outlive us */
static char tmp_root[256];

static const char *bucket(void)
{
    return test_need_env("HOGLAKE_TEST_S3_BUCKET");
}

static struct objstore *open_store(const char *endpoint, const char *secret, long timeout_ms,
                                   int max_retries)
{
    struct objstore_config cfg = {
        .s3_endpoint = endpoint,
        .s3_region = getenv("HOGLAKE_TEST_S3_REGION"),
        .s3_access_key = getenv("HOGLAKE_TEST_S3_ACCESS_KEY"),
        .s3_secret_key = secret,
        .timeout_ms = timeout_ms,
        .max_retries = max_retries,
    };
    if (!cfg.s3_access_key)
        cfg.s3_access_key = "hoglake";
    struct objstore *s = NULL;
    struct hl_error err;
    if (objstore_open(&cfg, &s, &err) != 0)
        fail_msg("objstore_open: %s", err.message);
    return s;
}

static struct objstore *open_s3(const char *endpoint_env)
{
    const char *secret = getenv("HOGLAKE_TEST_S3_SECRET_KEY");
    return open_store(test_need_env(endpoint_env), secret ? secret : TEST_SECRET_FALLBACK, 0, 0);
}

#define expect_ok(rc, err)                                                                         \
    do {                                                                                           \
        if ((rc) != 0)                                                                             \
            fail_msg("%s:%d: failed: [%s] %s", __FILE__, __LINE__, (err).code, (err).message);     \
    } while (0)

#define expect_fail(rc, err, st)                                                                   \
    do {                                                                                           \
        if ((rc) != -1 || (err).status != (st))                                                    \
            fail_msg("%s:%d: want status %d, got rc %d status %d: %s", __FILE__, __LINE__, (st),   \
                     (rc), (err).status, (err).message);                                           \
    } while (0)

static void fill(uint8_t *p, size_t n, uint32_t seed)
{
    uint32_t x = seed * 2654435761u + 1;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        p[i] = (uint8_t)x;
    }
}

static const char *join(char *out, size_t cap, const char *base, const char *key)
{
    snprintf(out, cap, "%s%s", base, key);
    return out;
}

struct listing {
    char uris[64][600];
    uint64_t sizes[64];
    size_t n;
    size_t stop_after; /* 0: never stop */
    bool sorted;
    char last[600];
};

static int on_object(void *ctx, const char *uri, uint64_t size)
{
    struct listing *l = ctx;
    if (l->n && strcmp(l->last, uri) >= 0)
        l->sorted = false;
    snprintf(l->last, sizeof l->last, "%s", uri);
    if (l->n < 64) {
        snprintf(l->uris[l->n], sizeof l->uris[0], "%s", uri);
        l->sizes[l->n] = size;
    }
    l->n++;
    return l->stop_after && l->n >= l->stop_after;
}

static void list_into(struct objstore *s, const char *prefix, struct listing *l)
{
    memset(l, 0, sizeof *l);
    l->sorted = true;
    struct hl_error err;
    expect_ok(objstore_list(s, prefix, on_object, l, &err), err);
    assert_true(l->sorted);
}

/* A key with spaces, reserved and non-ASCII bytes: the path must be signed
 * as sent. s3rver escapes '&' and '\'' twice in its listings (its bug, seen
 * in the raw XML), so it gets the key without those two. */
#define ODD_KEY "a/sp ace+plus=eq\xc3\xa9$!()*,;:@.bin"
#define ODD_KEY_XML "a/sp ace+plus=eq&amp;\xc3\xa9$!'()*,;:@.bin"

/* The operations every backend must agree on. missing_counts: whether a
 * delete of a missing object counts it as deleted (S3 cannot tell). */
static void exercise(struct objstore *s, const char *base, const char *odd_key, bool missing_counts)
{
    char u1[600], u2[600], u3[600], u4[600], u5[600];
    const char *one = join(u1, sizeof u1, base, "a/one.bin");
    const char *empty = join(u2, sizeof u2, base, "a/empty");
    const char *missing = join(u3, sizeof u3, base, "a/missing");
    const char *cond = join(u4, sizeof u4, base, "a/cond");
    const char *odd = join(u5, sizeof u5, base, odd_key);
    struct hl_error err;
    uint8_t data[1000];
    fill(data, sizeof data, 1);

    expect_ok(objstore_put(s, one, data, sizeof data, 0, &err), err);
    struct buf b = BUF_INIT;
    assert_int_equal(buf_append(&b, "xy", 2), 0);
    expect_ok(objstore_get(s, one, 0, UINT64_MAX, &b, &err), err);
    assert_int_equal(b.len, 1002); /* appended */
    assert_memory_equal(b.data + 2, data, 1000);
    buf_reset(&b);
    expect_ok(objstore_get(s, one, 10, 100, &b, &err), err);
    assert_int_equal(b.len, 100);
    assert_memory_equal(b.data, data + 10, 100);
    buf_reset(&b);
    expect_ok(objstore_get(s, one, 990, UINT64_MAX, &b, &err), err);
    assert_int_equal(b.len, 10);
    assert_memory_equal(b.data, data + 990, 10);
    buf_reset(&b);
    expect_ok(objstore_get(s, one, 995, 100, &b, &err), err); /* cut at the end */
    assert_int_equal(b.len, 5);
    assert_memory_equal(b.data, data + 995, 5);
    buf_reset(&b);
    assert_int_equal(buf_append(&b, "keep", 4), 0);
    expect_fail(objstore_get(s, one, 1000, 10, &b, &err), err, HL_ERR_INVALID_ARGUMENT);
    assert_int_equal(b.len, 4); /* untouched on failure */
    uint64_t size = 0;
    expect_ok(objstore_head(s, one, &size, &err), err);
    assert_int_equal(size, 1000);

    expect_ok(objstore_put(s, empty, NULL, 0, 0, &err), err);
    buf_reset(&b);
    expect_ok(objstore_get(s, empty, 0, UINT64_MAX, &b, &err), err);
    assert_int_equal(b.len, 0);
    expect_ok(objstore_head(s, empty, &size, &err), err);
    assert_int_equal(size, 0);

    expect_fail(objstore_get(s, missing, 0, UINT64_MAX, &b, &err), err, HL_ERR_NOT_FOUND);
    assert_false(err.retryable);
    expect_fail(objstore_head(s, missing, &size, &err), err, HL_ERR_NOT_FOUND);

    expect_ok(objstore_put(s, cond, "first", 5, OBJSTORE_IF_NONE_MATCH, &err), err);
    expect_fail(objstore_put(s, cond, "second", 6, OBJSTORE_IF_NONE_MATCH, &err), err,
                HL_ERR_ALREADY_EXISTS);
    buf_reset(&b);
    expect_ok(objstore_get(s, cond, 0, UINT64_MAX, &b, &err), err);
    assert_int_equal(b.len, 5);
    assert_memory_equal(b.data, "first", 5);
    expect_ok(objstore_put(s, cond, "third!", 6, 0, &err), err); /* a plain put replaces */
    buf_reset(&b);
    expect_ok(objstore_get(s, cond, 0, UINT64_MAX, &b, &err), err);
    assert_int_equal(b.len, 6);
    assert_memory_equal(b.data, "third!", 6);

    expect_ok(objstore_put(s, odd, data, 7, 0, &err), err);
    buf_reset(&b);
    expect_ok(objstore_get(s, odd, 0, UINT64_MAX, &b, &err), err);
    assert_int_equal(b.len, 7);

    char prefix[600];
    struct listing l;
    list_into(s, join(prefix, sizeof prefix, base, "a/"), &l);
    assert_int_equal(l.n, 4);
    assert_string_equal(l.uris[0], cond);
    assert_int_equal(l.sizes[0], 6);
    assert_string_equal(l.uris[1], empty);
    assert_int_equal(l.sizes[1], 0);
    assert_string_equal(l.uris[2], one);
    assert_int_equal(l.sizes[2], 1000);
    assert_string_equal(l.uris[3], odd);
    assert_int_equal(l.sizes[3], 7);
    /* A string prefix, not a directory. */
    list_into(s, join(prefix, sizeof prefix, base, "a/o"), &l);
    assert_int_equal(l.n, 1);
    assert_string_equal(l.uris[0], one);
    /* The callback stops the listing. */
    memset(&l, 0, sizeof l);
    l.sorted = true;
    l.stop_after = 2;
    expect_ok(objstore_list(s, join(prefix, sizeof prefix, base, "a/"), on_object, &l, &err), err);
    assert_int_equal(l.n, 2);

    const char *victims[] = {one, empty, missing, cond, odd};
    size_t deleted = 99;
    expect_ok(objstore_delete(s, victims, 5, &deleted, &err), err);
    assert_int_equal(deleted, missing_counts ? 5 : 4);
    expect_fail(objstore_head(s, one, &size, &err), err, HL_ERR_NOT_FOUND);
    list_into(s, join(prefix, sizeof prefix, base, "a/"), &l);
    assert_int_equal(l.n, 0);
    buf_free(&b);
}

/* n one-byte objects listed back in order, with page_size keys a page and
 * with the default 1000, then deleted in one call (more than 1000 takes two
 * DeleteObjects). */
static void many_keys(struct objstore *s, const char *base, size_t n, int page_size)
{
    struct hl_error err;
    char **uris = calloc(n, sizeof *uris);
    assert_non_null(uris);
    for (size_t i = 0; i < n; i++) {
        char key[32];
        snprintf(key, sizeof key, "m/k%05zu", i);
        uris[i] = malloc(600);
        assert_non_null(uris[i]);
        join(uris[i], 600, base, key);
        expect_ok(objstore_put(s, uris[i], "x", 1, 0, &err), err);
    }
    char prefix[600];
    struct listing l;
    for (int pass = 0; pass < 2; pass++) {
        objstore_set_list_page_size(s, pass ? page_size : 1000);
        list_into(s, join(prefix, sizeof prefix, base, "m/"), &l);
        assert_int_equal(l.n, n);
        assert_string_equal(l.uris[0], uris[0]);
        assert_string_equal(l.last, uris[n - 1]);
    }
    objstore_set_list_page_size(s, 1000);
    size_t deleted = 0;
    expect_ok(objstore_delete(s, (const char *const *)uris, n, &deleted, &err), err);
    assert_int_equal(deleted, n);
    list_into(s, prefix, &l);
    assert_int_equal(l.n, 0);
    for (size_t i = 0; i < n; i++)
        free(uris[i]);
    free(uris);
}

/* A multipart object (three parts, the last short) read back whole and
 * across a part boundary. */
static void multipart(struct objstore *s, const char *uri)
{
    size_t n = 20u * 1024 * 1024 + 123;
    uint8_t *data = malloc(n);
    assert_non_null(data);
    fill(data, n, 7);
    struct hl_error err;
    expect_ok(objstore_put(s, uri, data, n, 0, &err), err);
    uint64_t size = 0;
    expect_ok(objstore_head(s, uri, &size, &err), err);
    assert_int_equal(size, n);
    struct buf b = BUF_INIT;
    expect_ok(objstore_get(s, uri, 0, UINT64_MAX, &b, &err), err);
    assert_int_equal(b.len, n);
    assert_true(memcmp(b.data, data, n) == 0);
    buf_reset(&b);
    expect_ok(objstore_get(s, uri, OBJSTORE_PART_SIZE - 10, 20, &b, &err), err);
    assert_int_equal(b.len, 20);
    assert_memory_equal(b.data, data + OBJSTORE_PART_SIZE - 10, 20);
    buf_free(&b);
    free(data);
}

static void s3_base(char *out, size_t cap)
{
    snprintf(out, cap, "s3://%s/%s/", bucket(), run_id);
}

static void test_file(void **state)
{
    (void)state;
    struct objstore *s = NULL;
    struct hl_error err;
    struct objstore_config cfg = {.max_retries = -1};
    expect_ok(objstore_open(&cfg, &s, &err), err);
    char base[600];
    snprintf(base, sizeof base, "file://%s/store/", tmp_root);
    exercise(s, base, ODD_KEY_XML, false);
    many_keys(s, base, 1005, 7);
    /* The exclusive create leaves no temp file behind, and puts made the parents. */
    char uri[700], dir[700];
    snprintf(uri, sizeof uri, "%sdeep/er/x", base);
    expect_ok(objstore_put(s, uri, "1", 1, OBJSTORE_IF_NONE_MATCH, &err), err);
    expect_fail(objstore_put(s, uri, "2", 1, OBJSTORE_IF_NONE_MATCH, &err), err,
                HL_ERR_ALREADY_EXISTS);
    snprintf(dir, sizeof dir, "%s/store/deep/er", tmp_root);
    char cmd[800];
    snprintf(cmd, sizeof cmd, "test \"$(ls -A '%s')\" = x", dir);
    assert_int_equal(system(cmd), 0);
    /* A directory is not an object, and cannot be replaced by one. */
    snprintf(uri, sizeof uri, "%sdeep/er", base);
    uint64_t size;
    expect_fail(objstore_head(s, uri, &size, &err), err, HL_ERR_NOT_FOUND);
    expect_fail(objstore_put(s, uri, "1", 1, 0, &err), err, HL_ERR_IO);
    /* Below a file: nothing to read, nowhere to write. */
    snprintf(uri, sizeof uri, "%sdeep/er/x/y", base);
    expect_fail(objstore_head(s, uri, &size, &err), err, HL_ERR_NOT_FOUND);
    expect_fail(objstore_put(s, uri, "1", 1, 0, &err), err, HL_ERR_IO);
    assert_false(err.retryable);
    objstore_free(s);
}

static void test_moto(void **state)
{
    (void)state;
    struct objstore *s = open_s3("HOGLAKE_TEST_MOTO_ENDPOINT");
    char base[600], uri[700];
    s3_base(base, sizeof base);
    strcat(base, "moto/");
    exercise(s, base, ODD_KEY_XML, true);
    many_keys(s, base, 1005, 7); /* continuation tokens, many of them */
    multipart(s, join(uri, sizeof uri, base, "big.bin"));
    struct hl_error err;
    const char *victims[] = {uri};
    expect_ok(objstore_delete(s, victims, 1, NULL, &err), err);
    objstore_free(s);
}

static void test_s3rver(void **state)
{
    (void)state;
    struct objstore *s = open_s3("HOGLAKE_TEST_S3RVER_ENDPOINT");
    char base[600], uri[700];
    s3_base(base, sizeof base);
    strcat(base, "s3rver/");
    exercise(s, base, ODD_KEY, true);
    /* No truncated listing here: s3rver makes its continuation tokens with
     * DES, which Node 20's OpenSSL 3 refuses, so any truncated
     * ListObjectsV2 page is a 500 InternalError there. moto covers paging. */
    many_keys(s, base, 30, 1000);
    multipart(s, join(uri, sizeof uri, base, "big.bin"));
    objstore_free(s);
}

/* A wrong secret: a clear, non-retryable error that names neither secret. */
static void test_s3rver_wrong_secret(void **state)
{
    (void)state;
    const char *wrong = "wrong-secret-0123456789";
    const char *right = getenv("HOGLAKE_TEST_S3_SECRET_KEY");
    struct objstore *s = open_store(test_need_env("HOGLAKE_TEST_S3RVER_ENDPOINT"), wrong, 0, 3);
    char base[600], uri[700];
    s3_base(base, sizeof base);
    struct hl_error err;
    int rc = objstore_put(s, join(uri, sizeof uri, base, "denied"), "x", 1, 0, &err);
    expect_fail(rc, err, HL_ERR_IO);
    assert_int_equal(err.http_status, 403);
    assert_false(err.retryable);
    assert_string_equal(err.code, "SignatureDoesNotMatch");
    assert_non_null(strstr(err.message, "check the S3 access key and secret key"));
    assert_null(strstr(err.message, wrong));
    assert_null(strstr(err.message, right ? right : TEST_SECRET_FALLBACK));
    assert_null(strstr(err.message, "Signature="));
    objstore_free(s);
}

/* Multipart uploads still open on moto under key (its ListMultipartUploads,
 * unsigned: moto does not check signatures). */
static bool moto_has_upload(const char *key)
{
    char url[1024];
    snprintf(url, sizeof url, "%s/%s?uploads&prefix=%s",
             test_need_env("HOGLAKE_TEST_MOTO_ENDPOINT"), bucket(), key);
    struct http_result r;
    http_call(&r, "GET", url, NULL, NULL, 0, NULL);
    expect_status(&r, 200);
    bool open = r.body && strstr(r.body, "<UploadId>") != NULL;
    http_result_free(&r);
    return open;
}

/* ---- streamed writes ---- */

/* Odd chunk sizes, cycled: tiny, unaligned, and larger than a part. */
static const size_t chunk_sizes[] = {1, 7, 3u << 20, 4093, (5u << 20) + 3, 9u << 20, 65536};

static void write_chunks(struct objstore_writer *w, const uint8_t *data, size_t n)
{
    struct hl_error err;
    size_t off = 0;
    for (size_t i = 0; off < n; i++) {
        size_t c = chunk_sizes[i % (sizeof chunk_sizes / sizeof chunk_sizes[0])];
        if (c > n - off)
            c = n - off;
        expect_ok(objstore_writer_write(w, data + off, c, &err), err);
        off += c;
    }
}

static void expect_contents(struct objstore *s, const char *uri, const void *data, size_t n)
{
    struct hl_error err;
    struct buf b = BUF_INIT;
    expect_ok(objstore_get(s, uri, 0, UINT64_MAX, &b, &err), err);
    assert_int_equal(b.len, n);
    assert_true(n == 0 || memcmp(b.data, data, n) == 0);
    buf_free(&b);
}

static void expect_absent(struct objstore *s, const char *uri)
{
    struct hl_error err;
    uint64_t size;
    expect_fail(objstore_head(s, uri, &size, &err), err, HL_ERR_NOT_FOUND);
}

/* A backend's view of writes in progress: whether something (a temp
 * file, an open multipart upload) exists for uri; NULL when the backend
 * cannot tell. */
typedef bool (*pending_fn)(const char *uri);

/* The streamed writer, on every backend alike. */
static void stream_suite(struct objstore *s, const char *base, pending_fn pending)
{
    char u1[600], u2[600], u3[600], u4[600], u5[600];
    const char *big = join(u1, sizeof u1, base, "stream/big.bin");
    const char *small = join(u2, sizeof u2, base, "stream/small");
    const char *empty = join(u3, sizeof u3, base, "stream/empty");
    const char *gone = join(u4, sizeof u4, base, "stream/aborted");
    const char *cond = join(u5, sizeof u5, base, "stream/cond");
    size_t n = 20u * 1024 * 1024 + 5;
    uint8_t *data = malloc(n);
    assert_non_null(data);
    fill(data, n, 11);
    struct hl_error err;
    struct objstore_writer *w = NULL;
    uint64_t size = 0;

    /* 20 MiB in odd chunks; invisible until the commit. */
    expect_ok(objstore_writer_open(s, big, 0, &w, &err), err);
    write_chunks(w, data, n / 2);
    expect_absent(s, big);
    if (pending)
        assert_true(pending(big)); /* parts (or bytes) went out already */
    write_chunks(w, data + n / 2, n - n / 2);
    expect_absent(s, big);
    expect_ok(objstore_writer_commit(w, &size, &err), err);
    assert_int_equal(size, n);
    expect_ok(objstore_head(s, big, &size, &err), err);
    assert_int_equal(size, n);
    expect_contents(s, big, data, n);
    if (pending)
        assert_false(pending(big));

    /* Small and empty objects. */
    expect_ok(objstore_writer_open(s, small, 0, &w, &err), err);
    expect_ok(objstore_writer_write(w, data, 1, &err), err);
    expect_ok(objstore_writer_write(w, NULL, 0, &err), err);
    expect_ok(objstore_writer_write(w, data + 1, 7, &err), err);
    expect_absent(s, small);
    expect_ok(objstore_writer_commit(w, NULL, &err), err);
    expect_contents(s, small, data, 8);
    expect_ok(objstore_writer_open(s, empty, 0, &w, &err), err);
    expect_ok(objstore_writer_commit(w, &size, &err), err);
    assert_int_equal(size, 0);
    expect_contents(s, empty, NULL, 0);

    /* A stream replaces an object as a put does. */
    expect_ok(objstore_writer_open(s, small, 0, &w, &err), err);
    expect_ok(objstore_writer_write(w, data + 100, 50, &err), err);
    expect_ok(objstore_writer_commit(w, NULL, &err), err);
    expect_contents(s, small, data + 100, 50);

    /* Abort after a part went out, and before anything did: nothing left. */
    expect_ok(objstore_writer_open(s, gone, 0, &w, &err), err);
    write_chunks(w, data, OBJSTORE_PART_SIZE + 2);
    if (pending)
        assert_true(pending(gone));
    objstore_writer_abort(w);
    expect_absent(s, gone);
    if (pending)
        assert_false(pending(gone));
    expect_ok(objstore_writer_open(s, gone, 0, &w, &err), err);
    expect_ok(objstore_writer_write(w, data, 10, &err), err);
    objstore_writer_abort(w);
    expect_absent(s, gone);
    if (pending)
        assert_false(pending(gone));
    objstore_writer_abort(NULL);

    /* IF_NONE_MATCH: a new name is created, an existing one fails at the
     * commit and keeps its contents, small or multipart. */
    expect_ok(objstore_writer_open(s, cond, OBJSTORE_IF_NONE_MATCH, &w, &err), err);
    expect_ok(objstore_writer_write(w, "orig", 4, &err), err);
    expect_ok(objstore_writer_commit(w, NULL, &err), err);
    expect_ok(objstore_writer_open(s, cond, OBJSTORE_IF_NONE_MATCH, &w, &err), err);
    expect_ok(objstore_writer_write(w, "new", 3, &err), err);
    expect_fail(objstore_writer_commit(w, NULL, &err), err, HL_ERR_ALREADY_EXISTS);
    expect_contents(s, cond, "orig", 4);
    expect_ok(objstore_writer_open(s, cond, OBJSTORE_IF_NONE_MATCH, &w, &err), err);
    write_chunks(w, data, 17u << 20);
    expect_fail(objstore_writer_commit(w, &size, &err), err, HL_ERR_ALREADY_EXISTS);
    expect_contents(s, cond, "orig", 4);
    if (pending)
        assert_false(pending(cond));

    /* Bad arguments are typed errors. */
    expect_fail(objstore_writer_open(s, cond, 0x80, &w, &err), err, HL_ERR_INVALID_ARGUMENT);
    assert_null(w);
    expect_fail(objstore_writer_open(s, "gs://b/k", 0, &w, &err), err, HL_ERR_INVALID_ARGUMENT);
    expect_ok(objstore_writer_open(s, cond, 0, &w, &err), err);
    expect_fail(objstore_writer_write(w, NULL, 3, &err), err, HL_ERR_INVALID_ARGUMENT);
    objstore_writer_abort(w);
    expect_contents(s, cond, "orig", 4);

    const char *victims[] = {big, small, empty, cond};
    expect_ok(objstore_delete(s, victims, 4, NULL, &err), err);
    free(data);
}

/* file://: temp files of writers in progress, in the object's directory. */
static bool file_pending(const char *uri)
{
    char dir[600];
    snprintf(dir, sizeof dir, "%s", uri + strlen("file://"));
    *strrchr(dir, '/') = '\0';
    DIR *d = opendir(dir);
    assert_non_null(d);
    bool found = false;
    struct dirent *de;
    while ((de = readdir(d)) != NULL)
        found |= strncmp(de->d_name, ".hl-tmp.", 8) == 0;
    closedir(d);
    return found;
}

/* moto: an open multipart upload for the object. */
static bool moto_pending(const char *uri)
{
    const char *key = strchr(uri + strlen("s3://"), '/');
    assert_non_null(key);
    return moto_has_upload(key + 1);
}

static void test_stream_file(void **state)
{
    (void)state;
    struct objstore *s = NULL;
    struct hl_error err;
    expect_ok(objstore_open(NULL, &s, &err), err);
    char base[600];
    snprintf(base, sizeof base, "file://%s/stream-store/", tmp_root);
    stream_suite(s, base, file_pending);
    /* Nothing but the directory is left: no temp file of any writer. */
    char cmd[800];
    snprintf(cmd, sizeof cmd, "test -z \"$(ls -A '%s/stream-store/stream')\"", tmp_root);
    assert_int_equal(system(cmd), 0);
    /* A writer whose directory cannot be made fails at open. */
    char uri[700];
    snprintf(uri, sizeof uri, "file://%s/stream-store/f", tmp_root);
    expect_ok(objstore_put(s, uri, "x", 1, 0, &err), err);
    strcat(uri, "/below");
    struct objstore_writer *w = NULL;
    expect_fail(objstore_writer_open(s, uri, 0, &w, &err), err, HL_ERR_IO);
    assert_null(w);
    objstore_free(s);
}

/* The suite against one S3 server, under its own prefix. */
static void stream_s3(const char *endpoint_env, const char *dir, pending_fn pending)
{
    struct objstore *s = open_s3(endpoint_env);
    char base[600];
    s3_base(base, sizeof base);
    strcat(base, dir);
    stream_suite(s, base, pending);
    objstore_free(s);
}

static void test_stream_moto(void **state)
{
    (void)state;
    stream_s3("HOGLAKE_TEST_MOTO_ENDPOINT", "stream-moto/", moto_pending);
}

static void test_stream_s3rver(void **state)
{
    (void)state;
    stream_s3("HOGLAKE_TEST_S3RVER_ENDPOINT", "stream-s3rver/", NULL);
}

/* One handle, several threads at once (connections are shared between
 * them through curl's share interface), half the objects put, half
 * streamed. */
struct worker {
    struct objstore *s;
    char base[600];
    int id;
    bool delete_each;
    int failures;
    char first_error[HL_ERROR_MESSAGE_MAX];
};

/* A put through a writer, in two writes. */
static int stream_put(struct objstore *s, const char *uri, const char *body, size_t n,
                      struct hl_error *err)
{
    struct objstore_writer *w;
    if (objstore_writer_open(s, uri, 0, &w, err) != 0)
        return -1;
    if (objstore_writer_write(w, body, n / 2, err) != 0 ||
        objstore_writer_write(w, body + n / 2, n - n / 2, err) != 0) {
        objstore_writer_abort(w);
        return -1;
    }
    return objstore_writer_commit(w, NULL, err);
}

static void *work(void *ud)
{
    struct worker *w = ud;
    for (int i = 0; i < 20; i++) {
        char uri[700], body[64];
        snprintf(uri, sizeof uri, "%st%d/k%d", w->base, w->id, i);
        int n = snprintf(body, sizeof body, "thread %d object %d", w->id, i);
        struct hl_error err;
        struct buf b = BUF_INIT;
        const char *victims[] = {uri};
        size_t deleted = 0;
        bool ok = (i % 2 ? stream_put(w->s, uri, body, (size_t)n, &err)
                         : objstore_put(w->s, uri, body, (size_t)n, 0, &err)) == 0 &&
                  objstore_get(w->s, uri, 0, UINT64_MAX, &b, &err) == 0;
        if (ok && w->delete_each) {
            ok = objstore_delete(w->s, victims, 1, &deleted, &err) == 0;
            if (ok && deleted != 1) {
                snprintf(err.message, sizeof err.message, "%.600s: not deleted", uri);
                ok = false;
            }
        }
        if (ok && (b.len != (size_t)n || memcmp(b.data, body, b.len) != 0)) {
            snprintf(err.message, sizeof err.message, "%.600s: wrong contents or count", uri);
            ok = false;
        }
        if (!ok && w->failures++ == 0)
            snprintf(w->first_error, sizeof w->first_error, "%s", err.message);
        buf_free(&b);
    }
    return NULL;
}

static void run_workers(struct objstore *s, const char *base, bool delete_each)
{
    enum { N = 4 };
    struct worker w[N];
    pthread_t t[N];
    for (int i = 0; i < N; i++) {
        w[i] = (struct worker){.s = s, .id = i, .delete_each = delete_each};
        snprintf(w[i].base, sizeof w[i].base, "%s", base);
        assert_int_equal(pthread_create(&t[i], NULL, work, &w[i]), 0);
    }
    for (int i = 0; i < N; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < N; i++)
        if (w[i].failures)
            fail_msg("thread %d: %d failures, first: %s", i, w[i].failures, w[i].first_error);
    if (!delete_each) {
        struct listing l;
        list_into(s, base, &l);
        assert_int_equal(l.n, N * 20);
    }
}

static void test_concurrent_calls(void **state)
{
    (void)state;
    const char *endpoints[] = {"HOGLAKE_TEST_MOTO_ENDPOINT", "HOGLAKE_TEST_S3RVER_ENDPOINT"};
    for (size_t i = 0; i < 2; i++) {
        struct objstore *s = open_s3(endpoints[i]);
        char base[600];
        s3_base(base, sizeof base);
        strcat(base, i ? "threads-s3rver/" : "threads-moto/");
        /* Not on s3rver: its delete removes emptied parent directories
         * recursively (fs.rm), racing with puts into them, so a concurrent
         * put can vanish there. */
        run_workers(s, base, i == 0);
        objstore_free(s);
    }
    struct objstore *s = NULL;
    struct hl_error err;
    expect_ok(objstore_open(NULL, &s, &err), err);
    char base[600];
    snprintf(base, sizeof base, "file://%s/threads/", tmp_root);
    run_workers(s, base, true);
    objstore_free(s);
}

/* A conditional multipart put over an existing object fails at completion
 * and the upload is aborted. */
static void test_moto_multipart_abort(void **state)
{
    (void)state;
    struct objstore *s = open_s3("HOGLAKE_TEST_MOTO_ENDPOINT");
    char key[300], uri[700];
    snprintf(key, sizeof key, "%s/abort/big.bin", run_id);
    snprintf(uri, sizeof uri, "s3://%s/%s", bucket(), key);
    size_t n = 17u * 1024 * 1024;
    uint8_t *data = malloc(n);
    assert_non_null(data);
    fill(data, n, 3);
    struct hl_error err;
    expect_ok(objstore_put(s, uri, "small", 5, 0, &err), err);
    expect_fail(objstore_put(s, uri, data, n, OBJSTORE_IF_NONE_MATCH, &err), err,
                HL_ERR_ALREADY_EXISTS);
    assert_false(moto_has_upload(key));
    struct buf b = BUF_INIT;
    expect_ok(objstore_get(s, uri, 0, UINT64_MAX, &b, &err), err);
    assert_int_equal(b.len, 5);
    /* Without the condition the same upload goes through. */
    expect_ok(objstore_put(s, uri, data, n, 0, &err), err);
    uint64_t size = 0;
    expect_ok(objstore_head(s, uri, &size, &err), err);
    assert_int_equal(size, n);
    assert_false(moto_has_upload(key));
    const char *victims[] = {uri};
    expect_ok(objstore_delete(s, victims, 1, NULL, &err), err);
    buf_free(&b);
    free(data);
    objstore_free(s);
}

/* ---- the scripted server ---- */

struct script {
    int fail_first;     /* answer this many requests with `status` */
    int status;         /* then 200 */
    const char *code;   /* S3 error code in the body */
    bool echo_auth;     /* put the request's Authorization and secrets into the error */
    const char *secret; /* ... these */
    const char *token;
    int hold_ms; /* with status 0 */
};

static void scripted(void *ctx, size_t i, const struct fake_request *r, struct fake_answer *a)
{
    const struct script *sc = ctx;
    if ((int)i >= sc->fail_first) {
        a->status = 200;
        snprintf(a->headers, sizeof a->headers, "ETag: \"etag-%zu\"\r\n", i);
        snprintf(a->body, sizeof a->body, "ok");
        return;
    }
    a->status = sc->status;
    a->hold_ms = sc->hold_ms;
    if (sc->echo_auth)
        snprintf(a->body, sizeof a->body,
                 "<Error><Code>%s</Code><Message>you sent %s with %s and %s</Message>"
                 "<SignatureProvided>%s</SignatureProvided></Error>",
                 sc->code, r->authorization, sc->secret, sc->token, r->authorization);
    else
        snprintf(a->body, sizeof a->body,
                 "<Error><Code>%s</Code><Message>try later</Message></Error>", sc->code);
}

static struct objstore *open_fake(const struct fake_http *f, long timeout_ms, int max_retries,
                                  const char *secret, const char *token)
{
    struct objstore_config cfg = {.s3_endpoint = f->base,
                                  .s3_access_key = "AKIDFAKE",
                                  .s3_secret_key = secret,
                                  .s3_session_token = token,
                                  .timeout_ms = timeout_ms,
                                  .max_retries = max_retries};
    struct objstore *s = NULL;
    struct hl_error err;
    if (objstore_open(&cfg, &s, &err) != 0)
        fail_msg("objstore_open: %s", err.message);
    return s;
}

/* Recorded request i has this method and target, and a body of body_len
 * bytes (ANY_LEN: any length). */
#define ANY_LEN SIZE_MAX
static void expect_request(struct fake_http *f, size_t i, const char *method, const char *target,
                           size_t body_len)
{
    struct fake_request r = fake_http_request(f, i);
    assert_string_equal(r.method, method);
    assert_string_equal(r.target, target);
    if (body_len != ANY_LEN)
        assert_int_equal(r.body_len, body_len);
}

/* 500 twice, then success: three requests, each with the whole body. */
static void test_retry_resends_body(void **state)
{
    (void)state;
    struct script sc = {.fail_first = 2, .status = 500, .code = "InternalError"};
    struct fake_http f;
    fake_http_start(&f, scripted, &sc);
    struct objstore *s = open_fake(&f, 5000, 3, "fake-secret-key", NULL);
    uint8_t data[5000];
    fill(data, sizeof data, 9);
    char want[65];
    struct buf h = BUF_INIT;
    struct hl_error err;
    expect_ok(objstore_put(s, "s3://bkt/retry/key", data, sizeof data, 0, &err), err);
    assert_int_equal(fake_http_count(&f), 3);
    assert_int_equal(sha256_hex(data, sizeof data, want), 0);
    for (size_t i = 0; i < 3; i++) {
        struct fake_request r = fake_http_request(&f, i);
        assert_string_equal(r.method, "PUT");
        assert_string_equal(r.target, "/bkt/retry/key");
        assert_int_equal(r.body_len, sizeof data);
        assert_string_equal(r.body_sha256, want);
    }
    /* SlowDown (503) on a GET is retried too. */
    sc.fail_first = 4;
    sc.status = 503;
    sc.code = "SlowDown";
    expect_ok(objstore_get(s, "s3://bkt/retry/key", 0, UINT64_MAX, &h, &err), err);
    assert_int_equal(fake_http_count(&f), 5);
    assert_int_equal(h.len, 2); /* "ok" */
    buf_free(&h);
    objstore_free(s);
    fake_http_stop(&f);
}

/* Always 500: max_retries + 1 attempts, then a retryable HL_ERR_IO. */
static void test_retry_gives_up(void **state)
{
    (void)state;
    struct script sc = {.fail_first = 1000, .status = 500, .code = "InternalError"};
    struct fake_http f;
    fake_http_start(&f, scripted, &sc);
    struct objstore *s = open_fake(&f, 5000, 2, "fake-secret-key", NULL);
    struct hl_error err;
    expect_fail(objstore_put(s, "s3://bkt/k", "abc", 3, 0, &err), err, HL_ERR_IO);
    assert_true(err.retryable);
    assert_int_equal(err.http_status, 500);
    assert_string_equal(err.code, "InternalError");
    assert_int_equal(fake_http_count(&f), 3);
    objstore_free(s);

    /* max_retries -1: exactly one attempt. */
    s = open_fake(&f, 5000, -1, "fake-secret-key", NULL);
    expect_fail(objstore_put(s, "s3://bkt/k", "abc", 3, 0, &err), err, HL_ERR_IO);
    assert_int_equal(fake_http_count(&f), 4);
    /* A 4xx other than the mapped ones is not retried at all. */
    sc.status = 400;
    sc.code = "InvalidArgument";
    objstore_free(s);
    s = open_fake(&f, 5000, 3, "fake-secret-key", NULL);
    expect_fail(objstore_put(s, "s3://bkt/k", "abc", 3, 0, &err), err, HL_ERR_IO);
    assert_false(err.retryable);
    assert_int_equal(fake_http_count(&f), 5);
    objstore_free(s);
    fake_http_stop(&f);
}

/* No answer: HL_ERR_TIMEOUT after every attempt timed out. */
static void test_timeout(void **state)
{
    (void)state;
    /* Held a little longer than the timeout, so the one-connection-at-a-time
     * server is free again for the retry. */
    struct script sc = {.fail_first = 1000, .status = 0, .hold_ms = 450};
    struct fake_http f;
    fake_http_start(&f, scripted, &sc);
    struct objstore *s = open_fake(&f, 300, 1, "fake-secret-key", NULL);
    struct hl_error err;
    struct buf b = BUF_INIT;
    expect_fail(objstore_get(s, "s3://bkt/k", 0, UINT64_MAX, &b, &err), err, HL_ERR_TIMEOUT);
    assert_true(err.retryable);
    objstore_free(s);
    fake_http_stop(&f);
    assert_int_equal(fake_http_count(&f), 2);

    /* Nobody listening: a retryable I/O error. */
    s = open_fake(&f, 300, 1, "fake-secret-key", NULL); /* f's port is closed now */
    expect_fail(objstore_get(s, "s3://bkt/k", 0, UINT64_MAX, &b, &err), err, HL_ERR_IO);
    assert_true(err.retryable);
    objstore_free(s);
    buf_free(&b);
}

/* A part upload fails: the upload is aborted (DELETE ?uploadId=). */
static void multipart_handler(void *ctx, size_t i, const struct fake_request *r,
                              struct fake_answer *a)
{
    (void)ctx;
    (void)i;
    a->status = 200;
    if (strcmp(r->method, "POST") == 0 && strstr(r->target, "?uploads=")) {
        snprintf(a->body, sizeof a->body,
                 "<InitiateMultipartUploadResult><Bucket>bkt</Bucket><Key>k</Key>"
                 "<UploadId>up&amp;1</UploadId></InitiateMultipartUploadResult>");
    } else if (strcmp(r->method, "PUT") == 0 && strstr(r->target, "partNumber=1&")) {
        snprintf(a->headers, sizeof a->headers, "ETag: \"p1\"\r\n");
    } else if (strcmp(r->method, "PUT") == 0) {
        a->status = 400;
        snprintf(a->body, sizeof a->body,
                 "<Error><Code>InvalidPart</Code><Message>no</Message></Error>");
    } else if (strcmp(r->method, "DELETE") == 0) {
        a->status = 204;
    }
}

static void test_multipart_abort_on_part_failure(void **state)
{
    (void)state;
    struct fake_http f;
    fake_http_start(&f, multipart_handler, NULL);
    struct objstore *s = open_fake(&f, 10000, 3, "fake-secret-key", NULL);
    size_t n = OBJSTORE_PART_SIZE + 100;
    uint8_t *data = calloc(1, n);
    assert_non_null(data);
    struct hl_error err;
    expect_fail(objstore_put(s, "s3://bkt/k", data, n, 0, &err), err, HL_ERR_IO);
    assert_string_equal(err.code, "InvalidPart");
    assert_int_equal(fake_http_count(&f), 4);
    expect_request(&f, 1, "PUT", "/bkt/k?partNumber=1&uploadId=up%261", OBJSTORE_PART_SIZE);
    expect_request(&f, 2, "PUT", "/bkt/k?partNumber=2&uploadId=up%261", 100);
    expect_request(&f, 3, "DELETE", "/bkt/k?uploadId=up%261", ANY_LEN);
    free(data);
    objstore_free(s);
    fake_http_stop(&f);
}

/* A small stream is one PUT, sent at the commit; so is an object of
 * exactly one part. */
static void test_stream_small_one_request(void **state)
{
    (void)state;
    struct script sc = {.fail_first = 0};
    struct fake_http f;
    fake_http_start(&f, scripted, &sc);
    struct objstore *s = open_fake(&f, 10000, 3, "fake-secret-key", NULL);
    size_t n = OBJSTORE_PART_SIZE;
    uint8_t *data = malloc(n);
    assert_non_null(data);
    fill(data, n, 5);
    struct hl_error err;
    struct objstore_writer *w = NULL;
    expect_ok(objstore_writer_open(s, "s3://bkt/s/small", 0, &w, &err), err);
    expect_ok(objstore_writer_write(w, data, 1, &err), err);
    expect_ok(objstore_writer_write(w, data + 1, 7, &err), err);
    expect_ok(objstore_writer_write(w, data + 8, 1000, &err), err);
    assert_int_equal(fake_http_count(&f), 0); /* nothing sent before the commit */
    uint64_t size = 0;
    expect_ok(objstore_writer_commit(w, &size, &err), err);
    assert_int_equal(size, 1008);
    assert_int_equal(fake_http_count(&f), 1);
    char want[65];
    assert_int_equal(sha256_hex(data, 1008, want), 0);
    expect_request(&f, 0, "PUT", "/bkt/s/small", 1008);
    assert_string_equal(fake_http_request(&f, 0).body_sha256, want);

    expect_ok(objstore_writer_open(s, "s3://bkt/s/one-part", 0, &w, &err), err);
    write_chunks(w, data, n);
    assert_int_equal(fake_http_count(&f), 1);
    expect_ok(objstore_writer_commit(w, &size, &err), err);
    assert_int_equal(size, n);
    assert_int_equal(fake_http_count(&f), 2);
    expect_request(&f, 1, "PUT", "/bkt/s/one-part", n);
    assert_int_equal(sha256_hex(data, n, want), 0);
    assert_string_equal(fake_http_request(&f, 1).body_sha256, want);
    free(data);
    objstore_free(s);
    fake_http_stop(&f);
}

/* A part fails mid-stream: the write reports HL_ERR_IO, the upload is
 * aborted there and then, and the writer stays failed without sending
 * anything more. */
static void test_stream_part_failure(void **state)
{
    (void)state;
    struct fake_http f;
    fake_http_start(&f, multipart_handler, NULL);
    struct objstore *s = open_fake(&f, 10000, 3, "fake-secret-key", NULL);
    size_t n = OBJSTORE_PART_SIZE;
    uint8_t *data = calloc(1, n);
    assert_non_null(data);
    struct hl_error err;
    struct objstore_writer *w = NULL;
    expect_ok(objstore_writer_open(s, "s3://bkt/k", 0, &w, &err), err);
    expect_ok(objstore_writer_write(w, data, n, &err), err);
    assert_int_equal(fake_http_count(&f), 0); /* a full part waits for more */
    expect_ok(objstore_writer_write(w, data, 1, &err), err);
    assert_int_equal(fake_http_count(&f), 2); /* create + part 1 */
    expect_fail(objstore_writer_write(w, data, n, &err), err, HL_ERR_IO);
    assert_string_equal(err.code, "InvalidPart");
    assert_int_equal(fake_http_count(&f), 4);
    expect_request(&f, 2, "PUT", "/bkt/k?partNumber=2&uploadId=up%261", OBJSTORE_PART_SIZE);
    expect_request(&f, 3, "DELETE", "/bkt/k?uploadId=up%261", ANY_LEN);
    memset(&err, 0, sizeof err);
    expect_fail(objstore_writer_write(w, data, 1, &err), err, HL_ERR_IO);
    assert_string_equal(err.code, "InvalidPart");
    expect_fail(objstore_writer_commit(w, NULL, &err), err, HL_ERR_IO);
    assert_int_equal(fake_http_count(&f), 4);
    free(data);
    objstore_free(s);
    fake_http_stop(&f);
}

/* Part 2 answered 500 once: retried with the same body, and the upload
 * completes. */
static void flaky_part_handler(void *ctx, size_t i, const struct fake_request *r,
                               struct fake_answer *a)
{
    int *failures = ctx;
    multipart_handler(NULL, i, r, a);
    if (strcmp(r->method, "PUT") == 0 && !strstr(r->target, "partNumber=1&")) {
        if (strstr(r->target, "partNumber=2&") && (*failures)++ == 0) {
            a->status = 500;
            snprintf(a->body, sizeof a->body,
                     "<Error><Code>InternalError</Code><Message>later</Message></Error>");
        } else {
            a->status = 200;
            a->body[0] = '\0';
            snprintf(a->headers, sizeof a->headers, "ETag: \"p%zu\"\r\n", i);
        }
    } else if (strcmp(r->method, "POST") == 0 && strstr(r->target, "?uploadId=")) {
        snprintf(a->body, sizeof a->body,
                 "<CompleteMultipartUploadResult><Key>k</Key></CompleteMultipartUploadResult>");
    }
}

static void test_stream_part_retry(void **state)
{
    (void)state;
    int failures = 0;
    struct fake_http f;
    fake_http_start(&f, flaky_part_handler, &failures);
    struct objstore *s = open_fake(&f, 10000, 3, "fake-secret-key", NULL);
    size_t n = 2u * OBJSTORE_PART_SIZE + 10;
    uint8_t *data = malloc(n);
    assert_non_null(data);
    fill(data, n, 21);
    struct hl_error err;
    struct objstore_writer *w = NULL;
    expect_ok(objstore_writer_open(s, "s3://bkt/k", 0, &w, &err), err);
    write_chunks(w, data, n);
    uint64_t size = 0;
    expect_ok(objstore_writer_commit(w, &size, &err), err);
    assert_int_equal(size, n);
    /* create, part 1, part 2 (500), part 2 again, part 3, complete */
    assert_int_equal(fake_http_count(&f), 6);
    char want[65];
    assert_int_equal(sha256_hex(data + OBJSTORE_PART_SIZE, OBJSTORE_PART_SIZE, want), 0);
    for (size_t i = 2; i <= 3; i++) {
        struct fake_request r = fake_http_request(&f, i);
        assert_non_null(strstr(r.target, "partNumber=2&"));
        assert_string_equal(r.body_sha256, want);
    }
    expect_request(&f, 4, "PUT", "/bkt/k?partNumber=3&uploadId=up%261", 10);
    expect_request(&f, 5, "POST", "/bkt/k?uploadId=up%261", ANY_LEN);
    free(data);
    objstore_free(s);
    fake_http_stop(&f);
}

/* The captured log: a few lines, read whole into a fixed buffer. */
static void read_log(const char *path, char *out, size_t cap)
{
    int fd = open(path, O_RDONLY);
    assert_true(fd >= 0);
    ssize_t n = read(fd, out, cap - 1);
    close(fd);
    assert_true(n >= 0);
    out[n] = '\0';
}

/* A peer echoing the Authorization header and the secrets back: neither
 * the error nor the retry log lines carry any of them. */
static void test_no_credentials_in_errors_or_logs(void **state)
{
    (void)state;
    const char *secret = "SuperSecretKey/0123456789abcdef";
    const char *token = "SessionToken-abcdefghijklmnop";
    struct script sc = {.fail_first = 1000,
                        .status = 500,
                        .code = "InternalError",
                        .echo_auth = true,
                        .secret = secret,
                        .token = token};
    struct fake_http f;
    fake_http_start(&f, scripted, &sc);
    struct objstore *s = open_fake(&f, 5000, 2, secret, token);
    char log_path[300];
    snprintf(log_path, sizeof log_path, "%s/stderr.log", tmp_root);
    fflush(stderr);
    int saved = dup(2);
    int fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(saved >= 0 && fd >= 0);
    dup2(fd, 2);
    struct hl_error err;
    int rc = objstore_put(s, "s3://bkt/k", "abc", 3, 0, &err);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    close(fd);
    expect_fail(rc, err, HL_ERR_IO);
    assert_int_equal(fake_http_count(&f), 3);
    struct fake_request r = fake_http_request(&f, 0);
    const char *sig = strstr(r.authorization, "Signature=");
    assert_non_null(sig); /* the request was signed, so there was something to leak */
    sig += strlen("Signature=");
    static char log[16384];
    read_log(log_path, log, sizeof log);
    assert_non_null(strstr(log, "retry 2 of 2")); /* the retries were logged */
    const char *texts[] = {err.message, log};
    for (size_t i = 0; i < 2; i++) {
        if (strstr(texts[i], secret) || strstr(texts[i], token) || strstr(texts[i], sig) ||
            strstr(texts[i], "AWS4-HMAC-SHA256") || strstr(texts[i], "Credential="))
            fail_msg("a credential leaked into %s: %s", i ? "the log" : "the error", texts[i]);
    }
    /* Non-retryable errors too (a 403 echoing everything). */
    sc.status = 403;
    sc.code = "AccessDenied";
    rc = objstore_put(s, "s3://bkt/k", "abc", 3, 0, &err);
    expect_fail(rc, err, HL_ERR_IO);
    assert_false(err.retryable);
    assert_null(strstr(err.message, secret));
    assert_null(strstr(err.message, token));
    assert_null(strstr(err.message, "Signature="));
    objstore_free(s);
    fake_http_stop(&f);
}

/* Configuration errors and the environment fallback. */
static void test_config(void **state)
{
    (void)state;
    struct objstore *s = NULL;
    struct hl_error err;
    struct objstore_config bad_ep = {.s3_endpoint = "ftp://x"};
    expect_fail(objstore_open(&bad_ep, &s, &err), err, HL_ERR_INVALID_ARGUMENT);
    bad_ep.s3_endpoint = "http://host:9000/path";
    expect_fail(objstore_open(&bad_ep, &s, &err), err, HL_ERR_INVALID_ARGUMENT);
    struct objstore_config half = {.s3_access_key = "AKID"};
    unsetenv("AWS_SECRET_ACCESS_KEY");
    expect_fail(objstore_open(&half, &s, &err), err, HL_ERR_INVALID_ARGUMENT);
    struct objstore_config region = {.s3_region = "us east"};
    expect_fail(objstore_open(&region, &s, &err), err, HL_ERR_INVALID_ARGUMENT);
    assert_null(s);

    /* Everything from the environment, against moto. */
    setenv("AWS_ENDPOINT_URL", test_need_env("HOGLAKE_TEST_MOTO_ENDPOINT"), 1);
    setenv("AWS_ACCESS_KEY_ID", "hoglake", 1);
    setenv("AWS_SECRET_ACCESS_KEY", "hoglake-secret", 1);
    setenv("AWS_REGION", "us-east-1", 1);
    expect_ok(objstore_open(NULL, &s, &err), err);
    unsetenv("AWS_ENDPOINT_URL");
    unsetenv("AWS_ACCESS_KEY_ID");
    unsetenv("AWS_SECRET_ACCESS_KEY");
    unsetenv("AWS_REGION");
    char base[600], uri[700];
    s3_base(base, sizeof base);
    expect_ok(objstore_put(s, join(uri, sizeof uri, base, "env/x"), "e", 1, 0, &err), err);
    const char *victims[] = {uri};
    expect_ok(objstore_delete(s, victims, 1, NULL, &err), err);
    /* Bad URIs are typed errors, and a bad URI in a batch deletes nothing. */
    expect_fail(objstore_put(s, "s3://bkt", "x", 1, 0, &err), err, HL_ERR_INVALID_ARGUMENT);
    const char *mixed[] = {uri, "gs://b/k"};
    expect_fail(objstore_delete(s, mixed, 2, NULL, &err), err, HL_ERR_INVALID_ARGUMENT);
    objstore_free(s);

    /* No credentials at all: file:// works, S3 says what is missing. */
    expect_ok(objstore_open(NULL, &s, &err), err);
    expect_fail(objstore_put(s, "s3://bkt/k", "x", 1, 0, &err), err, HL_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.code, "no_credentials");
    objstore_free(s);
}

static int setup(void **state)
{
    (void)state;
    snprintf(run_id, sizeof run_id, "objstore-%ld-%ld", (long)getpid(), (long)time(NULL));
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(tmp_root, sizeof tmp_root, "%s/hl-objstore.XXXXXX", tmp);
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
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_file),
        cmocka_unit_test(test_moto),
        cmocka_unit_test(test_s3rver),
        cmocka_unit_test(test_s3rver_wrong_secret),
        cmocka_unit_test(test_moto_multipart_abort),
        cmocka_unit_test(test_concurrent_calls),
        cmocka_unit_test(test_retry_resends_body),
        cmocka_unit_test(test_retry_gives_up),
        cmocka_unit_test(test_timeout),
        cmocka_unit_test(test_multipart_abort_on_part_failure),
        cmocka_unit_test(test_stream_file),
        cmocka_unit_test(test_stream_moto),
        cmocka_unit_test(test_stream_s3rver),
        cmocka_unit_test(test_stream_small_one_request),
        cmocka_unit_test(test_stream_part_failure),
        cmocka_unit_test(test_stream_part_retry),
        cmocka_unit_test(test_no_credentials_in_errors_or_logs),
        cmocka_unit_test(test_config),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
