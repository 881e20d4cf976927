/* JSON rows from JSON Lines or one array (textio_jsonrows): elements with
 * brackets, commas and escaped quotes inside strings, the lines they start
 * on, malformed arrays; and gzip/zstd streams (textio_decompress): whole,
 * several members or frames, truncated and corrupt. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "textio/csv.h"
#include "textio/textio_decompress.h"
#include "textio/textio_jsonrows.h"

struct rows {
    FILE *f;
    struct jsonrows r;
};

static void open_rows(struct rows *rs, const char *text, bool lines_only)
{
    rs->f = fmemopen((void *)text, strlen(text), "r");
    assert_non_null(rs->f);
    jsonrows_init(&rs->r, rs->f);
    rs->r.lines_only = lines_only;
}

static void close_rows(struct rows *rs)
{
    jsonrows_free(&rs->r);
    fclose(rs->f);
}

static void expect_row(struct rows *rs, int64_t line, const char *want)
{
    const char *text;
    size_t len;
    int rc = jsonrows_next(&rs->r, &text, &len);
    if (rc != 1)
        fail_msg("expected row %s, got %d (%s)", want, rc, rs->r.err);
    if (len != strlen(want) || memcmp(text, want, len) != 0)
        fail_msg("got row '%.*s', want '%s'", (int)len, text, want);
    assert_int_equal(rs->r.row_line, line);
}

static void expect_end(struct rows *rs)
{
    const char *text;
    size_t len;
    int rc = jsonrows_next(&rs->r, &text, &len);
    if (rc != 0)
        fail_msg("expected the end, got %d (%s)", rc, rs->r.err);
}

static void expect_error(struct rows *rs, const char *want)
{
    const char *text;
    size_t len;
    int rc;
    while ((rc = jsonrows_next(&rs->r, &text, &len)) == 1)
        ;
    assert_int_equal(rc, -1);
    if (!strstr(rs->r.err, want))
        fail_msg("error '%s' lacks '%s'", rs->r.err, want);
}

/* A row past the reader's bound (a JSON Lines line, an array element) is
 * refused, naming the line it starts on; one at the bound is read. */
static void row_bound(void **state)
{
    (void)state;
    struct rows rs;
    open_rows(&rs, "{\"a\":1}\n{\"a\":12345}\n", false);
    assert_int_equal(rs.r.max_row, JSONROWS_MAX_ROW_BYTES);
    rs.r.max_row = 9;
    expect_row(&rs, 1, "{\"a\":1}");
    expect_error(&rs, "line 2: the row starting there is longer than");
    close_rows(&rs);

    open_rows(&rs, "[{\"a\":1},\n {\"a\":\"a long string\"}]", false);
    rs.r.max_row = 9;
    expect_row(&rs, 1, "{\"a\":1}");
    expect_error(&rs, "line 2: the row starting there");
    close_rows(&rs);
}

static void array_elements(void **state)
{
    (void)state;
    struct rows rs;
    open_rows(&rs,
              "\xef\xbb\xbf [\n"
              "  {\"a\": \"x],{\\\"y\"},\n"
              "  {\"b\": [1, {\"c\": 2}]}\n"
              "  ,\n"
              "  {\"d\":\n"
              "   null}, 5, \"s\\\\\"]\n",
              false);
    expect_row(&rs, 2, "{\"a\": \"x],{\\\"y\"}");
    expect_row(&rs, 3, "{\"b\": [1, {\"c\": 2}]}");
    expect_row(&rs, 5, "{\"d\":\n   null}");
    expect_row(&rs, 6, "5"); /* the row parser refuses what is not an object */
    expect_row(&rs, 6, "\"s\\\\\"");
    expect_end(&rs);
    close_rows(&rs);
    open_rows(&rs, " [ ] \n", false);
    expect_end(&rs);
    close_rows(&rs);
}

static void json_lines(void **state)
{
    (void)state;
    struct rows rs;
    open_rows(&rs, "{\"a\":1}\n\n  \n{\"a\":2}", false);
    expect_row(&rs, 1, "{\"a\":1}");
    expect_row(&rs, 4, "{\"a\":2}");
    expect_end(&rs);
    close_rows(&rs);
    /* JSON Lines as the caller says: a line starting with '[' is a row. */
    open_rows(&rs, "[1]\n", true);
    expect_row(&rs, 1, "[1]");
    expect_end(&rs);
    close_rows(&rs);
}

static void malformed_arrays(void **state)
{
    (void)state;
    static const struct {
        const char *text, *error;
    } cases[] = {
        {"[{\"a\":1}] x", "line 1: text after the array's closing ']'"},
        {"[{\"a\":1}]\n[{\"a\":2}]", "line 2: text after the array's closing ']'"},
        {"[{\"a\":1},\n]", "line 2: expected an element after ','"},
        {"[{\"a\":1},,{}]", "expected an element after ','"},
        {"[,{}]", "expected an element after '['"},
        {"[{\"a\":1} {\"a\":2}]", "expected ',' or ']' after the array's element"},
        {"[{\"a\":1},\n{\"a\":2}", "line 2: the input ends before the array's closing ']'"},
        {"[\n{\"a\":\"1}]", "the input ends inside the element that starts on line 2"},
        {"[}]", "'}' closes nothing"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct rows rs;
        open_rows(&rs, cases[i].text, false);
        expect_error(&rs, cases[i].error);
        close_rows(&rs);
    }
}

static const char sample[] = "id,name\n1,alpha\n2,beta\n";

/* sample gzip-compressed, `members` times over, into out. */
static size_t gzip_of(unsigned char *out, size_t cap, int members)
{
    size_t n = 0;
    for (int m = 0; m < members; m++) {
        z_stream z = {0};
        assert_int_equal(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
        z.next_in = (Bytef *)sample;
        z.avail_in = sizeof sample - 1;
        z.next_out = out + n;
        z.avail_out = (uInt)(cap - n);
        assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
        n += z.total_out;
        deflateEnd(&z);
    }
    return n;
}

static size_t zstd_of(unsigned char *out, size_t cap, int frames)
{
    size_t n = 0;
    for (int f = 0; f < frames; f++) {
        size_t k = ZSTD_compress(out + n, cap - n, sample, sizeof sample - 1, 3);
        assert_false(ZSTD_isError(k));
        n += k;
    }
    return n;
}

/* Reads all of data (len bytes, compressed with c) through a CSV reader:
 * the records read, and the error text when the read fails. */
static int read_all(const unsigned char *data, size_t len, enum textio_compression c, char *err,
                    size_t errsize)
{
    FILE *raw = fmemopen((void *)data, len, "r");
    assert_non_null(raw);
    const char *why;
    FILE *f = textio_decompress_open(raw, c, &why);
    assert_non_null(f);
    struct csv_reader r;
    csv_reader_init(&r, f);
    r.src.read_error = why;
    int n = 0, got;
    while ((got = csv_read_record(&r)) == 1)
        n++;
    snprintf(err, errsize, "%s", got < 0 ? r.err : "");
    csv_reader_free(&r);
    fclose(f);
    fclose(raw);
    return got < 0 ? -1 : n;
}

static void whole_streams(void **state)
{
    (void)state;
    unsigned char buf[4096];
    char err[256];
    assert_int_equal(read_all(buf, gzip_of(buf, sizeof buf, 1), TEXTIO_GZIP, err, sizeof err), 3);
    assert_int_equal(read_all(buf, zstd_of(buf, sizeof buf, 1), TEXTIO_ZSTD, err, sizeof err), 3);
    /* Members (concatenated .gz files) and frames follow each other: the
     * header line repeats as a record. */
    assert_int_equal(read_all(buf, gzip_of(buf, sizeof buf, 3), TEXTIO_GZIP, err, sizeof err), 9);
    assert_int_equal(read_all(buf, zstd_of(buf, sizeof buf, 2), TEXTIO_ZSTD, err, sizeof err), 6);
}

static void expect_broken(const unsigned char *data, size_t len, enum textio_compression c,
                          const char *want)
{
    char err[256];
    assert_int_equal(read_all(data, len, c, err, sizeof err), -1);
    if (!strstr(err, want))
        fail_msg("error '%s' lacks '%s'", err, want);
}

static void broken_streams(void **state)
{
    (void)state;
    unsigned char buf[4096];
    size_t n = gzip_of(buf, sizeof buf, 1);
    expect_broken(buf, n - 5, TEXTIO_GZIP, "read error: truncated gzip data");
    expect_broken(buf, 0, TEXTIO_GZIP, "truncated gzip data");
    n = zstd_of(buf, sizeof buf, 1);
    expect_broken(buf, n - 3, TEXTIO_ZSTD, "read error: truncated zstd data");
    static const unsigned char text[] = "id,name\n1,alpha\n";
    expect_broken(text, sizeof text - 1, TEXTIO_GZIP,
                  "gzip data is corrupt (incorrect header check)");
    expect_broken(text, sizeof text - 1, TEXTIO_ZSTD,
                  "zstd data is corrupt (Unknown frame descriptor)");
    /* A flipped byte in the trailer: the CRC catches it. */
    n = gzip_of(buf, sizeof buf, 1);
    buf[n - 6] ^= 0xff;
    expect_broken(buf, n, TEXTIO_GZIP, "gzip data is corrupt (incorrect data check)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(array_elements),   cmocka_unit_test(json_lines),
        cmocka_unit_test(malformed_arrays), cmocka_unit_test(whole_streams),
        cmocka_unit_test(broken_streams),   cmocka_unit_test(row_bound),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
