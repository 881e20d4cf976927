/* The CLI's RFC 4180 reader and writer: quoting, embedded line ends, CRLF,
 * empty versus null fields, ragged input, malformed input, and the reader's
 * buffer boundary. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "textio/csv.h"
#include "textio/textio_parse.h"
#include "textio/textio_schema.h"

struct reading {
    FILE *f;
    struct csv_reader r;
};

static void open_text(struct reading *rd, const char *text, size_t len)
{
    rd->f = fmemopen((void *)text, len, "r");
    assert_non_null(rd->f);
    csv_reader_init(&rd->r, rd->f);
}

static void close_text(struct reading *rd)
{
    csv_reader_free(&rd->r);
    fclose(rd->f);
}

/* Reads one record and checks its fields; "\x01" before a field's text
 * marks it as expected quoted. */
static void expect_record(struct reading *rd, int64_t line, size_t n, ...)
{
    int rc = csv_read_record(&rd->r);
    if (rc != 1)
        fail_msg("expected a record, got %d (%s)", rc, rd->r.err);
    assert_int_equal(rd->r.record_line, line);
    assert_int_equal(rd->r.nfields, n);
    va_list ap;
    va_start(ap, n);
    for (size_t i = 0; i < n; i++) {
        const char *want = va_arg(ap, const char *);
        bool want_quoted = want[0] == '\x01';
        if (want_quoted)
            want++;
        size_t len;
        bool quoted;
        const char *got = csv_field_text(&rd->r, i, &len, &quoted);
        if (len != strlen(want) || memcmp(got, want, len) != 0 || quoted != want_quoted)
            fail_msg("field %zu: got '%.*s' (quoted %d), want '%s' (quoted %d)", i, (int)len, got,
                     quoted, want, want_quoted);
    }
    va_end(ap);
}

static void expect_end(struct reading *rd)
{
    assert_int_equal(csv_read_record(&rd->r), 0);
    assert_int_equal(csv_read_record(&rd->r), 0);
}

static void expect_error(const char *text, const char *needle)
{
    struct reading rd;
    open_text(&rd, text, strlen(text));
    int rc;
    while ((rc = csv_read_record(&rd.r)) == 1)
        ;
    if (rc != -1)
        fail_msg("'%s' was accepted", text);
    if (!strstr(rd.r.err, needle))
        fail_msg("'%s': message '%s' lacks '%s'", text, rd.r.err, needle);
    close_text(&rd);
}

static void plain_records(void **state)
{
    (void)state;
    struct reading rd;
    const char *t = "a,b,c\n1,22,333\nx,,z";
    open_text(&rd, t, strlen(t));
    expect_record(&rd, 1, 3, "a", "b", "c");
    expect_record(&rd, 2, 3, "1", "22", "333");
    expect_record(&rd, 3, 3, "x", "", "z"); /* no final line end */
    expect_end(&rd);
    close_text(&rd);
}

static void crlf_and_lf(void **state)
{
    (void)state;
    struct reading rd;
    const char *t = "a,b\r\n1,2\n3,4\r\n";
    open_text(&rd, t, strlen(t));
    expect_record(&rd, 1, 2, "a", "b");
    expect_record(&rd, 2, 2, "1", "2");
    expect_record(&rd, 3, 2, "3", "4");
    expect_end(&rd);
    close_text(&rd);
}

static void quoting(void **state)
{
    (void)state;
    struct reading rd;
    const char *t = "\"a,b\",\"say \"\"hi\"\"\",\"\",plain,\"\"\"\"\n"
                    "\"line1\nline2\",\"crlf\r\ninside\",x\r\n"
                    "last,\"\",\n";
    open_text(&rd, t, strlen(t));
    expect_record(&rd, 1, 5,
                  "\x01"
                  "a,b",
                  "\x01"
                  "say \"hi\"",
                  "\x01", "plain", "\x01\"");
    expect_record(&rd, 2, 3, "\x01line1\nline2",
                  "\x01"
                  "crlf\r\ninside",
                  "x");
    /* The record after two embedded line ends starts on line 5. */
    expect_record(&rd, 5, 3, "last", "\x01", "");
    expect_end(&rd);
    close_text(&rd);
}

static void empty_lines_and_bom(void **state)
{
    (void)state;
    struct reading rd;
    const char *t = "\xef\xbb\xbfname\n\n\"\"\nz\n";
    open_text(&rd, t, strlen(t));
    expect_record(&rd, 1, 1, "name"); /* the BOM is not part of the name */
    expect_record(&rd, 2, 1, "");     /* an empty line: one null field */
    expect_record(&rd, 3, 1, "\x01"); /* one empty string */
    expect_record(&rd, 4, 1, "z");
    expect_end(&rd);
    close_text(&rd);
}

static void ragged_records_are_read_as_they_are(void **state)
{
    (void)state;
    /* Field counts are the caller's to check (textio_parse refuses them). */
    struct reading rd;
    const char *t = "a,b,c\n1,2\n1,2,3,4\n";
    open_text(&rd, t, strlen(t));
    expect_record(&rd, 1, 3, "a", "b", "c");
    expect_record(&rd, 2, 2, "1", "2");
    expect_record(&rd, 3, 4, "1", "2", "3", "4");
    expect_end(&rd);
    close_text(&rd);
}

static void nul_bytes_are_data(void **state)
{
    (void)state;
    struct reading rd;
    static const char t[] = "a\0b,\"c\0\"\n";
    open_text(&rd, t, sizeof t - 1);
    assert_int_equal(csv_read_record(&rd.r), 1);
    size_t len;
    bool quoted;
    const char *f = csv_field_text(&rd.r, 0, &len, &quoted);
    assert_int_equal(len, 3);
    assert_memory_equal(f, "a\0b", 3);
    f = csv_field_text(&rd.r, 1, &len, &quoted);
    assert_int_equal(len, 2);
    assert_true(quoted);
    assert_memory_equal(f, "c\0", 2);
    expect_end(&rd);
    close_text(&rd);
}

static void malformed(void **state)
{
    (void)state;
    expect_error("a,b\"c\n", "line 1: a quote inside an unquoted field");
    expect_error("\"ab\"c,d\n", "line 1: text after the closing quote");
    expect_error("ok\n\"open\nstill open", "line 3: a quoted field is not closed");
    expect_error("a\rb\n", "line 1: a carriage return not followed by a line feed");
}

static void broken_bom(void **state)
{
    (void)state;
    expect_error("\xef\xbb"
                 "a\n",
                 "invalid UTF-8 at the start");
}

static void long_field_across_the_buffer(void **state)
{
    (void)state;
    /* A quoted field of 200000 bytes with doubled quotes spread through it,
     * so quote pairs straddle the reader's 64 KiB buffer. */
    struct csv_reader probe;
    size_t buffer = sizeof probe.src.in;
    size_t n = 200000;
    char *want = malloc(n + 1);
    char *text = malloc(2 * n + 16);
    assert_non_null(want);
    assert_non_null(text);
    size_t k = 0;
    text[k++] = '"';
    for (size_t i = 0; i < n; i++) {
        char c = i % 997 == 0 || i == buffer - 2 || i == buffer - 1 ? '"' : (char)('a' + i % 26);
        want[i] = c;
        text[k++] = c;
        if (c == '"')
            text[k++] = '"';
    }
    want[n] = '\0';
    memcpy(text + k, "\",end\r\n", 7);
    k += 7;
    struct reading rd;
    open_text(&rd, text, k);
    assert_int_equal(csv_read_record(&rd.r), 1);
    size_t len;
    bool quoted;
    const char *f = csv_field_text(&rd.r, 0, &len, &quoted);
    assert_int_equal(len, n);
    assert_memory_equal(f, want, n);
    f = csv_field_text(&rd.r, 1, &len, &quoted);
    assert_int_equal(len, 3);
    assert_memory_equal(f, "end", 3);
    expect_end(&rd);
    close_text(&rd);
    free(want);
    free(text);
}

/* A record past the reader's bound is refused, naming where it starts,
 * whether the bytes are quoted or not; one at the bound is read. The
 * default bound is 64 MiB; a small one shows the same code path. */
static void record_bound(void **state)
{
    (void)state;
    const char *text = "a,b\nxxxx,yyyy\n\"abc,\ndefghij\",e\nzz\n";
    struct reading rd;
    open_text(&rd, text, strlen(text));
    assert_int_equal(rd.r.max_record, CSV_MAX_RECORD_BYTES);
    rd.r.max_record = 10; /* field bytes and each field's terminating NUL */
    expect_record(&rd, 1, 2, "a", "b");
    expect_record(&rd, 2, 2, "xxxx", "yyyy"); /* 10 bytes: at the bound */
    assert_int_equal(csv_read_record(&rd.r), -1);
    assert_non_null(strstr(rd.r.err, "line 3: the record starting there is longer than"));
    close_text(&rd);

    open_text(&rd, "\"never closed", strlen("\"never closed"));
    rd.r.max_record = 4;
    assert_int_equal(csv_read_record(&rd.r), -1);
    assert_non_null(strstr(rd.r.err, "is a closing quote missing"));
    close_text(&rd);
}

static void writer(void **state)
{
    (void)state;
    struct buf b = BUF_INIT;
    csv_write_field(&b, true, "plain", 5);
    csv_write_field(&b, false, "", 0);
    csv_write_null(&b, false);
    csv_write_field(&b, false, "a,b", 3);
    csv_write_field(&b, false, "say \"hi\"", 8);
    csv_write_field(&b, false, "l1\nl2", 5);
    csv_write_field(&b, false, "cr\r", 3);
    csv_write_field(&b, false, " spaced ", 8);
    csv_end_record(&b);
    csv_write_null(&b, true);
    csv_end_record(&b);
    assert_string_equal(b.data,
                        "plain,\"\",,\"a,b\",\"say \"\"hi\"\"\",\"l1\nl2\",\"cr\r\", spaced \r\n"
                        "\r\n");
    buf_free(&b);
}

/* Fields longer than the buffer holds, and quotes at every position:
 * the writer reserves the worst case, then writes without checks. */
static void writer_quotes_and_growth(void **state)
{
    (void)state;
    struct buf b = BUF_INIT;
    csv_write_field(&b, true, "\"", 1);
    csv_write_field(&b, false, "\"\"", 2);
    csv_write_field(&b, false, "a\"", 2);
    csv_write_field(&b, false, "\r\n", 2);
    csv_write_field(&b, false, "{\"k\":\"v\"}", 9);
    csv_end_record(&b);
    assert_string_equal(b.data,
                        "\"\"\"\",\"\"\"\"\"\",\"a\"\"\",\"\r\n\",\"{\"\"k\"\":\"\"v\"\"}\"\r\n");
    for (int round = 0; round < 2; round++) {
        buf_reset(&b);
        char all_quotes[1000];
        memset(all_quotes, '"', sizeof all_quotes);
        char plain[3000];
        memset(plain, 'x', sizeof plain);
        csv_write_field(&b, true, round ? plain : all_quotes,
                        round ? sizeof plain : sizeof all_quotes);
        size_t want = round ? sizeof plain : 2 * sizeof all_quotes + 2;
        assert_int_equal(b.len, want);
        assert_int_equal(strlen(b.data), want);
        if (!round)
            assert_true(b.data[0] == '"' && b.data[want - 1] == '"');
    }
    buf_free(&b);
}

static void writer_then_reader(void **state)
{
    (void)state;
    static const char *const fields[] = {"",   "x",    ",",   "\"", "\"\"", "\r\n",
                                         "\n", "a\rb", "é,ü", "  ", "end\""};
    size_t nf = sizeof fields / sizeof fields[0];
    struct buf b = BUF_INIT;
    for (int rec = 0; rec < 3; rec++) {
        for (size_t i = 0; i < nf; i++)
            csv_write_field(&b, i == 0, fields[(i + (size_t)rec) % nf],
                            strlen(fields[(i + (size_t)rec) % nf]));
        csv_write_null(&b, false);
        csv_end_record(&b);
    }
    struct reading rd;
    open_text(&rd, b.data, b.len);
    for (int rec = 0; rec < 3; rec++) {
        assert_int_equal(csv_read_record(&rd.r), 1);
        assert_int_equal(rd.r.nfields, nf + 1);
        for (size_t i = 0; i < nf; i++) {
            const char *want = fields[(i + (size_t)rec) % nf];
            size_t len;
            bool quoted;
            const char *got = csv_field_text(&rd.r, i, &len, &quoted);
            assert_int_equal(len, strlen(want));
            assert_memory_equal(got, want, len);
            if (len == 0)
                assert_true(quoted); /* the empty string stays distinct from null */
        }
        size_t len;
        bool quoted;
        csv_field_text(&rd.r, nf, &len, &quoted);
        assert_int_equal(len, 0);
        assert_false(quoted);
    }
    expect_end(&rd);
    close_text(&rd);
    buf_free(&b);
}

/* Another delimiter: it separates fields, a quoted field may hold it
 * (and commas, now plain text). */
static void other_delimiters(void **state)
{
    (void)state;
    static const char text[] = "a;\"b;c\";d,e\n1;;x\n";
    struct reading rd;
    open_text(&rd, text, sizeof text - 1);
    rd.r.delim = ';';
    expect_record(&rd, 1, 3, "a", "\001b;c", "d,e");
    expect_record(&rd, 2, 3, "1", "", "x");
    expect_end(&rd);
    close_text(&rd);
    static const char tsv[] = "a b\tc,d\n\t\n";
    open_text(&rd, tsv, sizeof tsv - 1);
    rd.r.delim = '\t';
    expect_record(&rd, 1, 2, "a b", "c,d");
    expect_record(&rd, 2, 2, "", "");
    expect_end(&rd);
    close_text(&rd);
}

static void delimiters_that_cannot_be(void **state)
{
    (void)state;
    assert_true(csv_delimiter_valid(','));
    assert_true(csv_delimiter_valid('\t'));
    assert_true(csv_delimiter_valid('|'));
    assert_false(csv_delimiter_valid('"'));
    assert_false(csv_delimiter_valid('\n'));
    assert_false(csv_delimiter_valid('\r'));
    assert_false(csv_delimiter_valid(0));
    assert_false(csv_delimiter_valid(0xa7)); /* not ASCII: one byte of a character */
}

/* A parser for spec with one record of text read as its header. */
struct parsing {
    struct arena arena;
    struct lake_table t;
    struct textio_parser *p;
    struct reading rd;
};

static void parse_open(struct parsing *x, const char *spec, const char *text)
{
    arena_init(&x->arena, 0);
    lake_table_init(&x->t, &x->arena);
    struct error err;
    assert_int_equal(textio_table_from_spec(spec, &x->t, &err), 0);
    assert_int_equal(textio_parser_new(&x->t, &x->p, &err), 0);
    open_text(&x->rd, text, strlen(text));
}

static void parse_close(struct parsing *x)
{
    close_text(&x->rd);
    textio_parser_free(x->p);
    lake_table_release(&x->t);
    arena_free(&x->arena);
}

/* Every name the schema lacks is in the one message. */
static void unknown_header_names_together(void **state)
{
    (void)state;
    struct parsing x;
    parse_open(&x, "id:long!, name:string", "Flight Date,id,Price $\n");
    assert_int_equal(csv_read_record(&x.rd.r), 1);
    struct error err;
    assert_int_equal(textio_parser_csv_header(x.p, &x.rd.r, &err), -1);
    assert_string_equal(err.msg,
                        "the header names columns the schema lacks: 'Flight Date', 'Price $'");
    parse_close(&x);
}

/* Reads the next record as a row, expecting success (want_ok) or not. */
static void row(struct parsing *x, bool want_ok)
{
    struct error err;
    assert_int_equal(csv_read_record(&x->rd.r), 1);
    int rc = textio_parser_csv_row(x->p, &x->rd.r, &err);
    if ((rc == 0) != want_ok)
        fail_msg("row on line %lld: got %d (%s)", (long long)x->rd.r.record_line, rc,
                 rc ? err.msg : "");
}

/* --null: an unquoted field equal to the marker is NULL, a quoted one is
 * text; an empty field stays NULL; a required column refuses the marker. */
static void null_marker(void **state)
{
    (void)state;
    struct parsing x;
    parse_open(&x, "id:long!, name:string", "id,name\n1,NA\n2,\"NA\"\n3,\n4,NAN\nNA,x\n");
    textio_parser_csv_null(x.p, "NA");
    struct error err;
    assert_int_equal(csv_read_record(&x.rd.r), 1);
    assert_int_equal(textio_parser_csv_header(x.p, &x.rd.r, &err), 0);
    for (int i = 0; i < 4; i++)
        row(&x, true);
    struct ArrowSchema s;
    struct ArrowArray b;
    assert_int_equal(textio_parser_take(x.p, &s, &b, &err), 0);
    const struct ArrowArray *name = b.children[1];
    assert_int_equal(b.length, 4);
    assert_int_equal(name->null_count, 2);
    const uint8_t *valid = name->buffers[0];
    assert_int_equal(valid[0] & 0x0f, 0x0a); /* rows 2 and 4 hold text */
    b.release(&b);
    s.release(&s);
    row(&x, false); /* NA for the required id */
    parse_close(&x);
}

/* CSV's number spellings beyond JSON's grammar read as numbers in
 * numeric columns ('+1', '.5', '-.5', '5.', decimals too); a string
 * column keeps the text as written; malformed ones stay refused. */
static void csv_number_spellings(void **state)
{
    (void)state;
    struct parsing x;
    parse_open(&x, "n:long, d:double, m:decimal(5,2), s:string",
               "n,d,m,s\n+1,.5,-.25,+1\n-2,5.,+3.,.5\n+-1,1,1,x\n1,.e5,1,x\n007,1,1,x\n");
    struct error err;
    assert_int_equal(csv_read_record(&x.rd.r), 1);
    assert_int_equal(textio_parser_csv_header(x.p, &x.rd.r, &err), 0);
    row(&x, true);
    row(&x, true);
    struct ArrowSchema s;
    struct ArrowArray b;
    assert_int_equal(textio_parser_take(x.p, &s, &b, &err), 0);
    const int64_t *n = b.children[0]->buffers[1];
    const double *d = b.children[1]->buffers[1];
    const int64_t *m = b.children[2]->buffers[1]; /* decimal128 low words, little-endian */
    assert_int_equal(n[0], 1);
    assert_int_equal(n[1], -2);
    assert_true(d[0] == 0.5 && d[1] == 5.0);
    assert_int_equal(m[0], -25);
    assert_int_equal(m[2], 300);
    const int32_t *so = b.children[3]->buffers[1];
    const char *sd = b.children[3]->buffers[2];
    assert_int_equal(so[1] - so[0], 2);
    assert_memory_equal(sd, "+1", 2);
    b.release(&b);
    s.release(&s);
    row(&x, false); /* +-1 */
    row(&x, false); /* .e5 */
    row(&x, false); /* 007 */
    parse_close(&x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(plain_records),
        cmocka_unit_test(csv_number_spellings),
        cmocka_unit_test(crlf_and_lf),
        cmocka_unit_test(quoting),
        cmocka_unit_test(empty_lines_and_bom),
        cmocka_unit_test(ragged_records_are_read_as_they_are),
        cmocka_unit_test(nul_bytes_are_data),
        cmocka_unit_test(malformed),
        cmocka_unit_test(broken_bom),
        cmocka_unit_test(long_field_across_the_buffer),
        cmocka_unit_test(writer),
        cmocka_unit_test(writer_quotes_and_growth),
        cmocka_unit_test(writer_then_reader),
        cmocka_unit_test(other_delimiters),
        cmocka_unit_test(delimiters_that_cannot_be),
        cmocka_unit_test(unknown_header_names_together),
        cmocka_unit_test(null_marker),
        cmocka_unit_test(record_bound),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
