/* Unit tests for src/objstore: SigV4 against the examples AWS publishes
 * for S3 ("Signature Calculations for the Authorization Header":
 * GET Object, PUT Object, GET Bucket Lifecycle, GET Bucket (List Objects);
 * key AKIAIOSFODNN7EXAMPLE, 20130524, us-east-1), the URI encoding rules,
 * object URI parsing, the minimal S3 XML reader and credential redaction. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "objstore/errors.h"
#include "objstore/s3xml.h"
#include "objstore/sigv4.h"
#include "objstore/uri.h"
#include "util/sha256.h"

#define EXAMPLE_KEY "AKIAIOSFODNN7EXAMPLE"
#define EXAMPLE_SECRET "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
#define EXAMPLE_HOST "examplebucket.s3.amazonaws.com"
#define EXAMPLE_DATE "20130524T000000Z"
#define EMPTY_SHA256 "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

static const struct sigv4_credentials example_creds = {EXAMPLE_KEY, EXAMPLE_SECRET, "us-east-1",
                                                       "s3"};

/* The Signature= part of an Authorization value. */
static const char *signature_of(const struct buf *auth)
{
    const char *s = strstr(auth->data, "Signature=");
    assert_non_null(s);
    return s + strlen("Signature=");
}

static void test_get_object_example(void **state)
{
    (void)state;
    /* Names in mixed case and out of order: the canonical form sorts and lowers them. */
    struct sigv4_kv h[] = {{"X-Amz-Date", EXAMPLE_DATE},
                           {"Range", "bytes=0-9"},
                           {"Host", EXAMPLE_HOST},
                           {"x-amz-content-sha256", EMPTY_SHA256}};
    struct sigv4_request r = {"GET", "/test.txt", "", h, 4, EMPTY_SHA256};
    struct buf creq = BUF_INIT, names = BUF_INIT, sts = BUF_INIT, auth = BUF_INIT;
    assert_int_equal(sigv4_canonical_request(&creq, &r, &names), 0);
    assert_string_equal(creq.data, "GET\n"
                                   "/test.txt\n"
                                   "\n"
                                   "host:examplebucket.s3.amazonaws.com\n"
                                   "range:bytes=0-9\n"
                                   "x-amz-content-sha256:" EMPTY_SHA256 "\n"
                                   "x-amz-date:20130524T000000Z\n"
                                   "\n"
                                   "host;range;x-amz-content-sha256;x-amz-date\n" EMPTY_SHA256);
    assert_string_equal(names.data, "host;range;x-amz-content-sha256;x-amz-date");
    assert_int_equal(
        sigv4_string_to_sign(&sts, EXAMPLE_DATE, "20130524/us-east-1/s3/aws4_request", creq.data),
        0);
    assert_string_equal(sts.data,
                        "AWS4-HMAC-SHA256\n"
                        "20130524T000000Z\n"
                        "20130524/us-east-1/s3/aws4_request\n"
                        "7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972");
    char sig[SIGV4_HEX + 1];
    assert_int_equal(sigv4_signature(sig, EXAMPLE_SECRET, "20130524", "us-east-1", "s3", sts.data),
                     0);
    assert_string_equal(sig, "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
    assert_int_equal(sigv4_authorization(&auth, &example_creds, EXAMPLE_DATE, &r), 0);
    assert_string_equal(
        auth.data, "AWS4-HMAC-SHA256 "
                   "Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
                   "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
                   "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
    buf_free(&creq);
    buf_free(&names);
    buf_free(&sts);
    buf_free(&auth);
}

static void test_put_object_example(void **state)
{
    (void)state;
    const char *body = "Welcome to Amazon S3.";
    char hash[SHA256_HEX_CHARS + 1];
    assert_int_equal(sha256_hex(body, strlen(body), hash), 0);
    assert_string_equal(hash, "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072");
    struct buf path = BUF_INIT, auth = BUF_INIT;
    assert_int_equal(buf_putc(&path, '/'), 0);
    assert_int_equal(sigv4_uri_encode(&path, "test$file.text", 14, true), 0);
    assert_string_equal(path.data, "/test%24file.text");
    struct sigv4_kv h[] = {{"Host", EXAMPLE_HOST},
                           {"Date", "Fri, 24 May 2013 00:00:00 GMT"},
                           {"x-amz-date", EXAMPLE_DATE},
                           {"x-amz-storage-class", "REDUCED_REDUNDANCY"},
                           {"x-amz-content-sha256", hash}};
    struct sigv4_request r = {"PUT", path.data, "", h, 5, hash};
    assert_int_equal(sigv4_authorization(&auth, &example_creds, EXAMPLE_DATE, &r), 0);
    assert_non_null(strstr(auth.data, "SignedHeaders=date;host;x-amz-content-sha256;x-amz-date;"
                                      "x-amz-storage-class,"));
    assert_string_equal(signature_of(&auth),
                        "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd");
    /* One byte of the payload hash changes the signature. */
    hash[0] = hash[0] == '4' ? '5' : '4';
    buf_reset(&auth);
    assert_int_equal(sigv4_authorization(&auth, &example_creds, EXAMPLE_DATE, &r), 0);
    assert_string_not_equal(signature_of(&auth),
                            "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd");
    buf_free(&path);
    buf_free(&auth);
}

static void sign_bucket_get(const struct sigv4_kv *params, size_t n, const char *want_query,
                            const char *want_sig)
{
    struct buf query = BUF_INIT, auth = BUF_INIT;
    assert_int_equal(sigv4_canonical_query(&query, params, n), 0);
    assert_string_equal(query.data, want_query);
    struct sigv4_kv h[] = {{"host", EXAMPLE_HOST},
                           {"x-amz-date", EXAMPLE_DATE},
                           {"x-amz-content-sha256", EMPTY_SHA256}};
    struct sigv4_request r = {"GET", "/", query.data, h, 3, EMPTY_SHA256};
    assert_int_equal(sigv4_authorization(&auth, &example_creds, EXAMPLE_DATE, &r), 0);
    assert_string_equal(signature_of(&auth), want_sig);
    buf_free(&query);
    buf_free(&auth);
}

static void test_bucket_examples(void **state)
{
    (void)state;
    struct sigv4_kv lifecycle[] = {{"lifecycle", ""}};
    sign_bucket_get(lifecycle, 1, "lifecycle=",
                    "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543");
    /* Given unsorted: the canonical query sorts by name. */
    struct sigv4_kv list[] = {{"prefix", "J"}, {"max-keys", "2"}};
    sign_bucket_get(list, 2, "max-keys=2&prefix=J",
                    "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7");
}

static void test_uri_encoding(void **state)
{
    (void)state;
    struct buf b = BUF_INIT;
    const char *s = "a b/c+d=\xc3\xa9~_-.*!";
    assert_int_equal(sigv4_uri_encode(&b, s, strlen(s), true), 0);
    assert_string_equal(b.data, "a%20b/c%2Bd%3D%C3%A9~_-.%2A%21");
    buf_reset(&b);
    assert_int_equal(sigv4_uri_encode(&b, s, strlen(s), false), 0);
    assert_string_equal(b.data, "a%20b%2Fc%2Bd%3D%C3%A9~_-.%2A%21");
    /* Query: names and values encoded (slash too), sorted by name then
     * value, empty values kept as "name=". */
    buf_reset(&b);
    struct sigv4_kv q[] = {{"prefix", "dir/a b"},
                           {"uploads", ""},
                           {"a", "2"},
                           {"a", "1"},
                           {"continuation-token", "x+y="}};
    assert_int_equal(sigv4_canonical_query(&b, q, 5), 0);
    assert_string_equal(b.data, "a=1&a=2&continuation-token=x%2By%3D&prefix=dir%2Fa%20b&uploads=");
    /* Header values are trimmed and inner runs of blanks collapsed. */
    struct buf creq = BUF_INIT;
    struct sigv4_kv h[] = {{"X-Custom", "  a   b \t c  "}, {"Host", "h"}};
    struct sigv4_request r = {"GET", "/", "", h, 2, EMPTY_SHA256};
    assert_int_equal(sigv4_canonical_request(&creq, &r, NULL), 0);
    assert_non_null(strstr(creq.data, "\nhost:h\nx-custom:a b c\n\nhost;x-custom\n"));
    buf_free(&creq);
    buf_free(&b);
}

static void expect_bad_uri(const char *uri, bool as_prefix, const char *needle)
{
    struct objstore_uri u;
    struct hl_error err;
    assert_int_equal(objstore_uri_parse(uri, as_prefix, &u, &err), -1);
    assert_int_equal(err.status, HL_ERR_INVALID_ARGUMENT);
    assert_false(err.retryable);
    if (!strstr(err.message, needle))
        fail_msg("'%s': message '%s' lacks '%s'", uri, err.message, needle);
}

static void test_uri_parsing(void **state)
{
    (void)state;
    struct objstore_uri u;
    struct hl_error err;
    assert_int_equal(objstore_uri_parse("s3://my-bucket.1/a/b c.parquet", false, &u, &err), 0);
    assert_int_equal(u.scheme, OBJSTORE_S3);
    assert_string_equal(u.bucket, "my-bucket.1");
    assert_string_equal(u.key, "a/b c.parquet");
    assert_int_equal(objstore_uri_parse("s3://bkt", true, &u, &err), 0);
    assert_string_equal(u.key, "");
    assert_int_equal(objstore_uri_parse("s3://bkt/", true, &u, &err), 0);
    assert_string_equal(u.key, "");
    assert_int_equal(objstore_uri_parse("file:///tmp/x/y.bin", false, &u, &err), 0);
    assert_int_equal(u.scheme, OBJSTORE_FILE);
    assert_string_equal(u.key, "/tmp/x/y.bin");
    assert_int_equal(objstore_uri_parse("file:///tmp/x/", true, &u, &err), 0);
    assert_string_equal(u.key, "/tmp/x/");

    expect_bad_uri("http://x/y", false, "only file:// and s3://");
    expect_bad_uri("S3://bkt/k", false, "only file:// and s3://");
    expect_bad_uri("s3://bkt", false, "needs a key");
    expect_bad_uri("s3://bkt/", false, "needs a key");
    expect_bad_uri("s3://ab/k", false, "3 to 63");
    expect_bad_uri("s3://Bucket/k", false, "only a-z");
    expect_bad_uri("s3://-bkt/k", false, "start and end");
    expect_bad_uri("s3://bkt/a\nb", false, "control characters");
    expect_bad_uri("s3://bkt/\xff\xfe", false, "UTF-8");
    expect_bad_uri("file://host/tmp/x", false, "no host");
    expect_bad_uri("file://relative", false, "no host");
    expect_bad_uri("file:///tmp/x/", false, "must not end in '/'");
    expect_bad_uri("file:///tmp//x", false, "empty path segment");
    expect_bad_uri("file:///tmp/../etc/passwd", false, "'..'");
    expect_bad_uri("file:///tmp/./x", true, "'.'");
    char longkey[1100];
    memset(longkey, 'k', sizeof longkey - 1);
    longkey[sizeof longkey - 1] = '\0';
    char longuri[1200];
    snprintf(longuri, sizeof longuri, "s3://bkt/%s", longkey);
    expect_bad_uri(longuri, false, "1024 bytes");
    assert_int_equal(objstore_uri_parse(NULL, false, &u, &err), -1);
    assert_int_equal(err.status, HL_ERR_INVALID_ARGUMENT);
}

static int collect(void *ctx, const struct s3xml_object *o)
{
    struct buf *b = ctx;
    return buf_printf(b, "%s=%llu;", o->key, (unsigned long long)o->size);
}

static int stop_after_first(void *ctx, const struct s3xml_object *o)
{
    return buf_printf(ctx, "%s;", o->key) == 0 ? 1 : -1;
}

static int note_mtime(void *ctx, const struct s3xml_object *o)
{
    *(int64_t *)ctx = o->mtime_s;
    return 0;
}

/* LastModified becomes seconds since the epoch; a missing or unreadable
 * one is 0 (unknown), never a refused page. */
static void test_xml_last_modified(void **state)
{
    (void)state;
    static const struct {
        const char *element;
        int64_t seconds;
    } cases[] = {
        {"<LastModified>2009-10-12T17:50:30.000Z</LastModified>", 1255369830},
        {"<LastModified>1970-01-01T00:01:00Z</LastModified>", 60},
        {"<LastModified>2009-10-12T19:50:30+02:00</LastModified>", 1255369830},
        {"<LastModified>yesterday</LastModified>", 0},
        {"", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char page[300];
        snprintf(page, sizeof page, "<Contents><Key>k</Key>%s<Size>1</Size></Contents>",
                 cases[i].element);
        struct buf token = BUF_INIT;
        bool truncated = true;
        int64_t got = -1;
        assert_int_equal(s3xml_list_page(page, strlen(page), note_mtime, &got, &truncated, &token),
                         S3XML_OK);
        if (got != cases[i].seconds)
            fail_msg("%s: want %lld, got %lld", cases[i].element, (long long)cases[i].seconds,
                     (long long)got);
        buf_free(&token);
    }
}

static int collect_upload(void *ctx, const struct s3xml_upload *u)
{
    return buf_printf(ctx, "%s|%s|%lld;", u->key, u->upload_id, (long long)u->initiated_s);
}

/* ListMultipartUploads pages: key, upload id and Initiated of each upload,
 * and the two markers of a truncated page; a page without them, or an
 * upload without its key or id, is refused. */
static void test_xml_uploads(void **state)
{
    (void)state;
    const char *page = "<ListMultipartUploadsResult><IsTruncated>true</IsTruncated>"
                       "<NextKeyMarker>p/b&amp;c</NextKeyMarker>"
                       "<NextUploadIdMarker>id2</NextUploadIdMarker>"
                       "<Upload><Key>p/a</Key><UploadId>id1</UploadId>"
                       "<Initiated>1970-01-01T00:02:00.000Z</Initiated></Upload>"
                       "<Upload><UploadId>id2</UploadId><Key>p/b&amp;c</Key></Upload>"
                       "</ListMultipartUploadsResult>";
    struct buf got = BUF_INIT, key = BUF_INIT, id = BUF_INIT;
    bool truncated = false;
    assert_int_equal(
        s3xml_uploads_page(page, strlen(page), collect_upload, &got, &truncated, &key, &id),
        S3XML_OK);
    assert_string_equal(got.data, "p/a|id1|120;p/b&c|id2|0;");
    assert_true(truncated);
    assert_string_equal(key.data, "p/b&c");
    assert_string_equal(id.data, "id2");
    const char *bad[] = {
        "<IsTruncated>true</IsTruncated>",
        "<Upload><UploadId>x</UploadId></Upload>",
        "<Upload><Key>k</Key></Upload>",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(
            s3xml_uploads_page(bad[i], strlen(bad[i]), collect_upload, &got, &truncated, &key, &id),
            S3XML_BAD);
    buf_free(&got);
    buf_free(&key);
    buf_free(&id);
}

static void test_xml(void **state)
{
    (void)state;
    const char *page = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                       "<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
                       "<Name>b</Name><Prefix>p/</Prefix><KeyCount>2</KeyCount><MaxKeys>2</MaxKeys>"
                       "<IsTruncated>true</IsTruncated>"
                       "<Contents><Key>p/a&amp;b &lt;1&gt;</Key><LastModified>x</LastModified>"
                       "<Size>12</Size></Contents>"
                       "<Contents><Key>p/&#233;&#x20AC;</Key><Size>0</Size></Contents>"
                       "<NextContinuationToken>tok+/=</NextContinuationToken></ListBucketResult>";
    struct buf got = BUF_INIT, token = BUF_INIT;
    bool truncated = false;
    assert_int_equal(s3xml_list_page(page, strlen(page), collect, &got, &truncated, &token),
                     S3XML_OK);
    assert_string_equal(got.data, "p/a&b <1>=12;p/\xc3\xa9\xe2\x82\xac=0;");
    assert_true(truncated);
    assert_string_equal(token.data, "tok+/=");
    buf_reset(&got);
    assert_int_equal(
        s3xml_list_page(page, strlen(page), stop_after_first, &got, &truncated, &token),
        S3XML_STOP);
    assert_string_equal(got.data, "p/a&b <1>;");

    /* Malformed pages are refused, not guessed at. */
    const char *bad[] = {
        "<Contents><Key>k</Key><Size>-1</Size></Contents>",
        "<Contents><Key>k</Key></Contents>",
        "<Contents><Key>a&bogus;</Key><Size>1</Size></Contents>",
        "<Contents><Key>a&#0;</Key><Size>1</Size></Contents>",
        "<Contents><Key>a&#x110000;</Key><Size>1</Size></Contents>",
        "<Contents><Key>a<b</Key><Size>1</Size></Contents>",
        "<IsTruncated>true</IsTruncated>", /* truncated without a token */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        buf_reset(&got);
        int rc = s3xml_list_page(bad[i], strlen(bad[i]), collect, &got, &truncated, &token);
        if (rc != S3XML_BAD)
            fail_msg("page %zu: rc %d, want S3XML_BAD", i, rc);
    }

    const char *error = "<Error><Code>NoSuchKey</Code><Message>The key &quot;k&quot; "
                        "does not exist</Message></Error>";
    struct buf code = BUF_INIT;
    assert_int_equal(s3xml_first(error, strlen(error), "Message", &code), S3XML_OK);
    assert_string_equal(code.data, "The key \"k\" does not exist");
    assert_int_equal(s3xml_first(error, strlen(error), "Nope", &code), S3XML_STOP);

    struct buf esc = BUF_INIT;
    assert_int_equal(s3xml_escape(&esc, "a&b<c>\"d'"), 0);
    assert_string_equal(esc.data, "a&amp;b&lt;c&gt;&quot;d&apos;");
    buf_free(&esc);
    buf_free(&code);
    buf_free(&got);
    buf_free(&token);
}

static void test_redaction(void **state)
{
    (void)state;
    struct hl_error err;
    os_fail(&err, HL_ERR_IO, 403, false, "SignatureDoesNotMatch", "echo %s and %s again",
            EXAMPLE_SECRET, EXAMPLE_SECRET);
    os_redact(&err, EXAMPLE_SECRET);
    assert_string_equal(err.message, "echo [redacted] and [redacted] again");
    /* Short strings are never treated as secrets. */
    os_redact(&err, "ec");
    assert_string_equal(err.message, "echo [redacted] and [redacted] again");
    os_redact(&err, NULL);
    /* Control characters from a peer never reach the message. */
    os_fail(&err, HL_ERR_IO, 500, true, "x", "a\nb\rc");
    assert_string_equal(err.message, "a b c");
    assert_true(err.retryable);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_get_object_example), cmocka_unit_test(test_put_object_example),
        cmocka_unit_test(test_bucket_examples),    cmocka_unit_test(test_uri_encoding),
        cmocka_unit_test(test_uri_parsing),        cmocka_unit_test(test_xml),
        cmocka_unit_test(test_xml_last_modified),  cmocka_unit_test(test_xml_uploads),
        cmocka_unit_test(test_redaction),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
