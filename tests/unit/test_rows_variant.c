/* Variant storage in Arrow (rows/rows_variant.h): JSON text encoded into
 * the unshredded struct, shredded storage read back (partially shredded
 * objects merged with their residual, arrays of element groups, typed
 * primitives), and storage the spec calls invalid refused with its reason.
 *
 * Storage is written as JSON Lines against a struct column shaped like
 * VARIANT storage, its binaries in base64: the bytes below are built by
 * hand from VariantEncoding.md. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pq_testlib.h"
#include "rows/rows_schema.h"
#include "rows/rows_variant.h"
#include "rows/rows_variant_verify.h"
#include "textio/textio_parse.h"
#include "textio/textio_schema.h"
#include "util/arena.h"
#include "util/base64.h"
#include "util/arrow.h"
#include "variant/variant.h"

/* Metadata: dictionaries ["b"], ["a"] (sorted) and none. */
#define M_B "\"EQEAAWI=\""
#define M_A "\"EQEAAWE=\""
#define M_EMPTY "\"AQAA\""
/* Values: {<key 0>: int8 5}, int8 5, null. */
#define V_OBJ5 "\"AgEAAAIMBQ==\""
#define V_INT5 "\"DAU=\""
#define V_NULL "\"AA==\""

/* (metadata nullable: the catalog refuses a struct shaped exactly as
 * VARIANT storage, and the reader does not look at nullability) */
static const char storage_spec[] =
    "v:struct<metadata:binary, value:binary, typed_value:struct<"
    "a:struct<value:binary, typed_value:long>, "
    "s:struct<value:binary, typed_value:string>, "
    "d:struct<value:binary, typed_value:decimal(9,2)>, "
    "l:struct<value:binary, typed_value:list<struct<value:binary, typed_value:long>!>>>>";

struct parsed {
    struct arena arena;
    struct lake_table t;
    struct ArrowSchema schema;
    struct ArrowArray batch;
};

/* JSON Lines rows of a one-column table, as Arrow. */
static void parse_rows(struct parsed *x, const char *spec, const char *jsonl)
{
    arena_init(&x->arena, 0);
    lake_table_init(&x->t, &x->arena);
    x->t.name = "t";
    struct error err;
    if (textio_table_from_spec(spec, &x->t, &err) != 0)
        fail_msg("spec: %s", err.msg);
    struct textio_parser *p;
    assert_int_equal(textio_parser_new(&x->t, &p, &err), 0);
    for (const char *line = jsonl; *line;) {
        const char *nl = strchr(line, '\n');
        assert_non_null(nl);
        if (textio_parser_json_row(p, line, (size_t)(nl - line), &err) != 0)
            fail_msg("row: %s", err.msg);
        line = nl + 1;
    }
    assert_int_equal(textio_parser_take(p, &x->schema, &x->batch, &err), 0);
    textio_parser_free(p);
}

static void parsed_free(struct parsed *x)
{
    if (x->batch.release)
        x->batch.release(&x->batch);
    x->schema.release(&x->schema);
    lake_table_release(&x->t);
    arena_free(&x->arena);
}

/* The rows' JSON, one a line ("SQL NULL" for a null). */
static char *as_json(const struct ArrowArray *storage)
{
    struct ArrowArray text;
    struct error err;
    if (rows_variant_to_json(storage, &text, &err) != 0)
        fail_msg("to_json: %s", err.msg);
    struct buf out = BUF_INIT;
    const int32_t *off = text.buffers[1];
    for (int64_t i = 0; i < text.length; i++) {
        const uint8_t *valid = text.buffers[0];
        if (valid && !arrow_bit(valid, i))
            buf_puts(&out, "SQL NULL");
        else
            buf_append(&out, (const char *)text.buffers[2] + off[i], (size_t)(off[i + 1] - off[i]));
        buf_putc(&out, '\n');
    }
    text.release(&text);
    return buf_take(&out);
}

/* Storage rows unshredded: their JSON, or the error (reason: message). */
static char *unshred(const char *spec, const char *jsonl)
{
    struct parsed x;
    parse_rows(&x, spec, jsonl);
    struct error err = {0};
    char *got;
    if (rows_variant_unshred(x.schema.children[0], x.batch.children[0], 0, &err) != 0) {
        struct buf b = BUF_INIT;
        buf_printf(&b, "%s: %s", err.reason ? err.reason : "-", err.msg);
        got = buf_take(&b);
    } else {
        got = as_json(x.batch.children[0]);
    }
    parsed_free(&x);
    return got;
}

static void expect_unshred(const char *jsonl, const char *want)
{
    char *got = unshred(storage_spec, jsonl);
    if (strcmp(got, want) != 0)
        fail_msg("got:\n%s\nwant:\n%s", got, want);
    free(got);
}

static void expect_refused(const char *jsonl, const char *needle)
{
    char *got = unshred(storage_spec, jsonl);
    if (!strstr(got, needle))
        fail_msg("got:\n%s\nwant a refusal with: %s", got, needle);
    free(got);
}

static void shredded_storage_reads(void **state)
{
    (void)state;
    expect_unshred(
        /* a partially shredded object: the residual's "b" and the typed
         * "a", a name the row's dictionary lacks */
        "{\"v\":{\"metadata\":" M_B ",\"value\":" V_OBJ5
        ",\"typed_value\":{\"a\":{\"typed_value\":7}}}}\n"
        /* typed fields only: a long string, a decimal(9,2) */
        "{\"v\":{\"metadata\":" M_EMPTY ",\"typed_value\":{\"s\":{\"typed_value\":"
        "\"0123456789012345678901234567890123456789012345678901234567890123456789\"},"
        "\"d\":{\"typed_value\":\"-12.34\"}}}}\n"
        /* an array of element groups, one typed and one in value */
        "{\"v\":{\"metadata\":" M_EMPTY ",\"typed_value\":{\"l\":{\"typed_value\":"
        "[{\"typed_value\":1},{\"value\":" V_NULL "}]}}}}\n"
        "{\"v\":null}\n"
        /* not shredded at all */
        "{\"v\":{\"metadata\":" M_EMPTY ",\"value\":" V_INT5 "}}\n"
        /* a null field group reads as a missing field (DuckDB's optional
         * groups), and a field group with neither is missing too */
        "{\"v\":{\"metadata\":" M_EMPTY ",\"typed_value\":{\"a\":{},\"s\":null}}}\n",
        "{\"a\":7,\"b\":5}\n"
        "{\"d\":-12.34,\"s\":"
        "\"0123456789012345678901234567890123456789012345678901234567890123456789\"}\n"
        "{\"l\":[1,null]}\n"
        "SQL NULL\n"
        "5\n"
        "{}\n");
}

static void invalid_storage_refused(void **state)
{
    (void)state;
    expect_refused("{\"v\":{\"metadata\":" M_EMPTY ",\"typed_value\":{\"a\":{\"value\":" V_INT5
                   ",\"typed_value\":7}}}}\n",
                   "variant_encoding: row 0: shredded storage: both a value and a typed primitive");
    expect_refused("{\"v\":{\"metadata\":" M_EMPTY ",\"value\":" V_INT5
                   ",\"typed_value\":{\"a\":{\"typed_value\":7}}}}\n",
                   "a value beside a shredded object that is not an object");
    expect_refused("{\"v\":{\"metadata\":" M_A ",\"value\":" V_OBJ5
                   ",\"typed_value\":{\"a\":{\"typed_value\":7}}}}\n",
                   "a value that repeats a shredded field");
    expect_refused("{\"v\":{\"metadata\":" M_EMPTY
                   ",\"typed_value\":{\"l\":{\"typed_value\":[{}]}}}}\n",
                   "an array element with neither value nor typed_value");
    expect_refused("{\"v\":{\"metadata\":" M_EMPTY "}}\n",
                   "a row with neither value nor typed_value");
    expect_refused("{\"v\":{\"metadata\":" M_EMPTY ",\"value\":" V_OBJ5
                   ",\"typed_value\":{\"a\":{\"typed_value\":7}}}}\n",
                   "a field id past the dictionary");
    /* An object value whose field id the dictionary lacks, unshredded:
     * the decoder's check. */
    expect_refused("{\"v\":{\"metadata\":" M_EMPTY ",\"value\":" V_OBJ5 "}}\n",
                   "variant_encoding: row 0:");
    /* A typed leaf no Variant type shreds to. */
    char *got = unshred("v:struct<metadata:binary, value:binary, typed_value:uint32>",
                        "{\"v\":{\"metadata\":" M_EMPTY ",\"typed_value\":1}}\n");
    assert_non_null(strstr(got, "$: a typed_value of Arrow type 'I'"));
    free(got);
}

/* JSON text to storage: nulls stay SQL NULL, `null` is a Variant null, and
 * bad text fails or becomes NULL as asked. */
static void json_text_encoded(void **state)
{
    (void)state;
    struct parsed x;
    parse_rows(&x, "j:string",
               "{\"j\":\"{\\\"b\\\":1,\\\"a\\\":[true]}\"}\n{\"j\":null}\n{\"j\":\"null\"}\n"
               "{\"j\":\"{oops\"}\n{\"j\":\"{\\\"a\\\":1,\\\"a\\\":2}\"}\n"
               "{\"j\":\"1e999\"}\n{\"j\":\"[]\"}\n");
    struct ArrowArray out;
    struct error err = {0};
    struct rows_variant_invalid invalid = {{0}};
    assert_int_equal(rows_variant_from_json("u", x.batch.children[0], 0, ROWS_VARIANT_INVALID_ERROR,
                                            &out, &invalid, &err),
                     -1);
    assert_string_equal(err.reason, "invalid_json");
    assert_non_null(strstr(err.msg, "row 3"));
    assert_int_equal(rows_variant_from_json("u", x.batch.children[0], 0, ROWS_VARIANT_INVALID_NULL,
                                            &out, &invalid, &err),
                     0);
    /* Counted by reason: text that is not JSON, a key named twice, a
     * number beyond a double. */
    assert_int_equal(invalid.by_reason[RV_INVALID_JSON], 1);
    assert_int_equal(invalid.by_reason[RV_DUPLICATE_KEY], 1);
    assert_int_equal(invalid.by_reason[RV_NUMBER_OUT_OF_RANGE], 1);
    assert_int_equal(rows_variant_invalid_total(&invalid), 3);
    assert_string_equal(rows_variant_reason_name(RV_DUPLICATE_KEY), "duplicate_key");
    char *got = as_json(&out);
    assert_string_equal(got, "{\"a\":[true],\"b\":1}\nSQL NULL\nnull\nSQL NULL\nSQL NULL\n"
                             "SQL NULL\n[]\n");
    free(got);
    out.release(&out);
    parsed_free(&x);
}

/* ---- property: shredded and unshredded storage read alike ---- */

static const char *const keys[] = {"s",   "n",   "i8", "big", "b",       "f",
                                   "arr", "obj", "v",  "x",   "\xc3\xa9"};

static void gen_json(struct rng *g, struct buf *out, int depth)
{
    /* Mostly objects at the top, as event properties are. */
    uint64_t pick = depth == 0 && rng_below(g, 10) < 7 ? 10 : rng_below(g, depth >= 4 ? 8 : 11);
    switch (pick) {
    case 0: buf_puts(out, "null"); break;
    case 1: buf_puts(out, rng_below(g, 2) ? "true" : "false"); break;
    case 2: buf_printf(out, "%lld", (long long)rng_below(g, 300) - 150); break;
    case 3:
        buf_printf(out, "%lld", (long long)(rng_next(g) >> 1) * (rng_below(g, 2) ? 1 : -1));
        break;
    case 4: buf_puts(out, "123456789012345678901234567890"); break;
    case 5: buf_printf(out, "%d.5", (int)rng_below(g, 100)); break;
    case 6:
        buf_puts(
            out,
            rng_below(g, 2)
                ? "\"short\""
                : "\"0123456789012345678901234567890123456789012345678901234567890123456789\"");
        break;
    case 7: buf_printf(out, "\"k%d\"", (int)rng_below(g, 5)); break;
    case 8:
    case 9: {
        buf_putc(out, '[');
        uint64_t n = rng_below(g, 4);
        for (uint64_t i = 0; i < n; i++) {
            if (i)
                buf_putc(out, ',');
            gen_json(g, out, depth + 1);
        }
        buf_putc(out, ']');
        break;
    }
    default: {
        buf_putc(out, '{');
        bool used[sizeof keys / sizeof keys[0]] = {false};
        uint64_t n = rng_below(g, 6);
        bool first = true;
        for (uint64_t i = 0; i < n; i++) {
            size_t k = (size_t)rng_below(g, sizeof keys / sizeof keys[0]);
            if (used[k])
                continue;
            used[k] = true;
            buf_printf(out, "%s\"%s\":", first ? "" : ",", keys[k]);
            first = false;
            gen_json(g, out, depth + 1);
        }
        buf_putc(out, '}');
    }
    }
}

/* A "u" array of the texts. */
static void text_array(const struct buf *texts, const int32_t *ends, int64_t n,
                       struct ArrowArray *out)
{
    assert_int_equal(arrow_array_init(out, 3, 0), 0);
    int32_t *off = malloc((size_t)(n + 1) * sizeof *off);
    char *data = malloc(texts->len + 1);
    assert_non_null(off);
    assert_non_null(data);
    off[0] = 0;
    memcpy(off + 1, ends, (size_t)n * sizeof *off);
    memcpy(data, texts->data, texts->len);
    out->length = n;
    out->null_count = 0;
    arrow_array_own_buffer(out, 1, off);
    arrow_array_own_buffer(out, 2, data);
}

static int64_t count_valid(const struct ArrowArray *a)
{
    int64_t n = 0;
    for (int64_t i = 0; i < a->length; i++)
        n += !a->buffers[0] || arrow_bit(a->buffers[0], a->offset + i);
    return n;
}

/* A file written from one column's table form (moved in) through a
 * declared layout, open for reading. */
struct written {
    struct buf file;
    struct pq_write_result res;
    struct pq_reader *rd;
    struct ArrowSchema rs; /* the file's Arrow schema: the storage as laid out */
};

static void written_open(struct written *w, const struct lake_table *t, struct ArrowArray *column,
                         int64_t row_group_bytes)
{
    struct ArrowSchema schema;
    assert_int_equal(rows_table_arrow_schema(t, &schema), 0);
    struct ArrowArray batch;
    assert_int_equal(arrow_array_init(&batch, 1, 1), 0);
    batch.length = column->length;
    arrow_array_move(column, batch.children[0]);
    struct pq_write_options o;
    pq_write_options_default(&o);
    if (row_group_bytes)
        o.row_group_bytes = row_group_bytes;
    w->file = (struct buf)BUF_INIT;
    write_batches(t, &o, &schema, &batch, 1, &w->file, &w->res);
    batch.release(&batch);
    schema.release(&schema);
    struct pq_source src;
    pq_source_memory(&src, w->file.data, w->file.len);
    struct error err;
    assert_int_equal(pq_reader_open(&src, &w->rd, &err), 0);
    assert_int_equal(pq_reader_arrow_schema(w->rd, &w->rs, &err), 0);
}

/* Row group g as stored (the caller's to release). */
static void written_read(struct written *w, size_t g, struct ArrowArray *b)
{
    struct error err;
    assert_int_equal(pq_reader_read_row_group(w->rd, g, b, &err), 0);
}

/* A row group's rows as JSON, unshredded in place. */
static char *written_json(struct written *w, struct ArrowArray *b)
{
    struct error err;
    if (rows_variant_unshred(w->rs.children[0], b->children[0], 0, &err) != 0)
        fail_msg("unshred: %s", err.msg);
    return as_json(b->children[0]);
}

static void written_close(struct written *w)
{
    w->rs.release(&w->rs);
    pq_reader_free(w->rd);
    pq_write_result_release(&w->res);
    buf_free(&w->file);
}

static void shredded_round_trip(void **state)
{
    (void)state;
    struct test_table tt;
    test_table_init(
        &tt, "[{'name':'v','type':'variant','type_params':{'shredding':{'type':'object','fields':["
             "{'name':'s','type':'string'},{'name':'n','type':'int32'},{'name':'i8','type':'int8'},"
             "{'name':'big','type':'decimal16','precision':38,'scale':0},"
             "{'name':'b','type':'boolean'},{'name':'f','type':'double'},"
             "{'name':'arr','type':'array','element':{'type':'int64'}},"
             "{'name':'obj','type':'object','fields':[{'name':'s','type':'string'},"
             "{'name':'v','type':'variant'},{'name':'x','type':'array','element':"
             "{'type':'variant'}}]}]}}}]");
    struct rng g = {0x5eed};
    enum { ROWS = 3000 };
    struct buf texts = BUF_INIT;
    int32_t *ends = malloc(ROWS * sizeof *ends);
    assert_non_null(ends);
    for (int i = 0; i < ROWS; i++) {
        gen_json(&g, &texts, 0);
        ends[i] = (int32_t)texts.len;
    }
    struct ArrowArray text;
    text_array(&texts, ends, ROWS, &text);
    struct ArrowArray table_form;
    struct error err;
    assert_int_equal(
        rows_variant_from_json("u", &text, 0, ROWS_VARIANT_INVALID_ERROR, &table_form, NULL, &err),
        0);
    char *want = as_json(&table_form);

    /* Written through the declared layout, in small row groups. */
    struct written w;
    written_open(&w, &tt.t, &table_form, 64 * 1024);

    /* Read back: the storage is shredded, and unshreds to the same JSON. */
    assert_true(pq_reader_schema(w.rd)->nleaves > 20); /* every declared leaf has a column */
    struct buf got = BUF_INIT;
    int64_t typed_s = 0, typed_arr = 0;
    for (size_t k = 0; k < pq_reader_meta(w.rd)->nrow_groups; k++) {
        struct ArrowArray b;
        written_read(&w, k, &b);
        /* v.typed_value.s.typed_value and v.typed_value.arr.typed_value */
        const struct ArrowArray *typed = b.children[0]->children[2];
        typed_s += count_valid(typed->children[0]->children[1]);
        typed_arr += count_valid(typed->children[6]->children[1]);
        /* what our writer wrote verifies: its declared form, canonical */
        struct rows_variant_verify_options vo = {
            .check_form = true, .shredding = tt.t.root.children[0]->shredding, .canonical = true};
        if (rows_variant_verify(w.rs.children[0], b.children[0], &vo, &err) != 0)
            fail_msg("verify: %s", err.msg);
        char *part = written_json(&w, &b);
        buf_puts(&got, part);
        free(part);
        b.release(&b);
    }
    assert_true(pq_reader_meta(w.rd)->nrow_groups > 1);
    /* Strings and arrays were shredded, not all left in value. */
    assert_true(typed_s > ROWS / 100);
    assert_true(typed_arr > ROWS / 100);
    buf_putc(&got, '\0');
    if (strcmp(got.data, want) != 0) {
        const char *a = got.data, *b = want;
        while (*a && *a == *b)
            a++, b++;
        fail_msg("differs at byte %zu: got ...%.80s want ...%.80s", (size_t)(a - got.data), a, b);
    }
    written_close(&w);
    buf_free(&got);
    free(want);
    free(ends);
    buf_free(&texts);
    text.release(&text);
    test_table_release(&tt);
}

/* timestamptz_ns leaves: a Variant timestamp with time zone in
 * nanoseconds fills an INT64 TIMESTAMP(NANOS) adjusted to UTC, one without
 * a zone the timestamp_ns leaf beside it, and a microsecond timestamp
 * stays in value; all read back as they went in. */
static void nanosecond_instants(void **state)
{
    (void)state;
    /* Keys ["n", "t"]; {n: ntz nanos, t: tz nanos}, {t: tz micros},
     * {t: tz nanos -1}. */
    static const char rows[] =
        "{\"v\":{\"metadata\":\"EQIAAQJudA==\",\"value\":\"AgIAAQAJEkwVzYU9/"
        "pyXF0ixaJLOduL6GA==\"}}\n"
        "{\"v\":{\"metadata\":\"EQIAAQJudA==\",\"value\":\"AgEBAAkwQCIgGCQKBgA=\"}}\n"
        "{\"v\":{\"metadata\":\"EQIAAQJudA==\",\"value\":\"AgEBAAlI//////////8=\"}}\n";
    struct parsed x;
    parse_rows(&x, "v:struct<metadata:binary, value:binary>", rows);
    char *want = as_json(x.batch.children[0]);
    assert_string_equal(want, "{\"n\":\"2023-11-14T22:13:20.123456789\",\"t\":"
                              "\"2027-01-15T08:00:00.987654321Z\"}\n"
                              "{\"t\":\"2023-11-14T22:13:20.123456Z\"}\n"
                              "{\"t\":\"1969-12-31T23:59:59.999999999Z\"}\n");

    struct test_table tt;
    test_table_init(
        &tt, "[{'name':'v','type':'variant','type_params':{'shredding':{'type':'object','fields':["
             "{'name':'t','type':'timestamptz_ns'},{'name':'n','type':'timestamp_ns'}]}}}]");
    struct written w;
    written_open(&w, &tt.t, x.batch.children[0], 0);
    /* v.typed_value.{t,n}.typed_value */
    const struct ArrowSchema *typed = w.rs.children[0]->children[2];
    assert_string_equal(typed->children[0]->children[1]->format, "tsn:UTC");
    assert_string_equal(typed->children[1]->children[1]->format, "tsn:");
    struct ArrowArray b;
    written_read(&w, 0, &b);
    const struct ArrowArray *tv = b.children[0]->children[2];
    assert_int_equal(count_valid(tv->children[0]->children[1]), 2); /* rows 0 and 2 */
    assert_int_equal(count_valid(tv->children[0]->children[0]), 1); /* row 1's micros */
    assert_int_equal(count_valid(tv->children[1]->children[1]), 1);
    char *got = written_json(&w, &b);
    assert_string_equal(got, want);
    free(got);
    b.release(&b);
    written_close(&w);
    free(want);
    test_table_release(&tt);
    parsed_free(&x);
}

/* Fields named like storage fields ("value", "typed_value") are fields
 * like any other; the writer's counts say where each node's values went
 * (the encoding report). */
static void storage_named_fields_counted(void **state)
{
    (void)state;
    struct test_table tt;
    test_table_init(
        &tt, "[{'name':'v','type':'variant','type_params':{'shredding':{'type':'object','fields':["
             "{'name':'value','type':'string'},{'name':'typed_value','type':'int64'}]}}}]");
    static const char *const rows[] = {"{\"value\":\"a\",\"typed_value\":1}",
                                       "{\"value\":2,\"typed_value\":null}", "[1]", "{}"};
    struct buf texts = BUF_INIT;
    int32_t ends[4];
    for (int i = 0; i < 4; i++) {
        buf_puts(&texts, rows[i]);
        ends[i] = (int32_t)texts.len;
    }
    struct ArrowArray text, table_form;
    text_array(&texts, ends, 4, &text);
    struct error err;
    assert_int_equal(
        rows_variant_from_json("u", &text, 0, ROWS_VARIANT_INVALID_ERROR, &table_form, NULL, &err),
        0);
    char *want = as_json(&table_form);
    struct written w;
    written_open(&w, &tt.t, &table_form, 0);
    /* $, $.value, $.typed_value */
    assert_int_equal(w.res.nvariant, 1);
    assert_int_equal(w.res.variant[0].ngroups, 3);
    const struct pq_shred_counts *c = w.res.variant[0].groups;
    assert_true(c[0].typed == 3 && c[0].fallback == 1); /* three objects, an array */
    assert_true(c[1].typed == 1 && c[1].fallback == 1 && c[1].missing == 1);
    assert_true(c[2].typed == 1 && c[2].variant_null == 1 && c[2].missing == 1);
    struct ArrowArray b;
    written_read(&w, 0, &b);
    char *got = written_json(&w, &b);
    assert_string_equal(got, want);
    free(got);
    free(want);
    b.release(&b);
    written_close(&w);
    buf_free(&texts);
    text.release(&text);
    test_table_release(&tt);
}

/* An object of 300 fields whose values lie in reverse order (as another
 * writer may lay them out), shredded through a declaration that takes
 * three of them: each field's bytes found by the next offset above its
 * own, the rest kept in the residual, all read back as they went in. */
static void fields_laid_out_backwards(void **state)
{
    (void)state;
    enum { N = 300 };
    struct buf m = BUF_INIT, v = BUF_INIT;
    /* metadata: version 1, sorted, 2-byte offsets; keys k000..k299 */
    buf_putc(&m, 0x51);
    uint8_t le[4];
    le[0] = N & 0xff, le[1] = N >> 8;
    buf_append(&m, le, 2);
    for (int k = 0; k <= N; k++) {
        le[0] = (uint8_t)((4 * k) & 0xff), le[1] = (uint8_t)((4 * k) >> 8);
        buf_append(&m, le, 2);
    }
    for (int k = 0; k < N; k++)
        buf_printf(&m, "k%03d", k);
    /* value: an object, 4-byte count, 2-byte ids and offsets; field k an
     * int8 k % 100 at offset (N - 1 - k) * 2 */
    buf_putc(&v, (uint8_t)(2 | (1 | 1 << 2 | 1 << 4) << 2));
    le[0] = N & 0xff, le[1] = N >> 8, le[2] = 0, le[3] = 0;
    buf_append(&v, le, 4);
    for (int k = 0; k < N; k++) {
        le[0] = (uint8_t)(k & 0xff), le[1] = (uint8_t)(k >> 8);
        buf_append(&v, le, 2);
    }
    for (int k = 0; k <= N; k++) {
        int off = k < N ? (N - 1 - k) * 2 : N * 2;
        le[0] = (uint8_t)(off & 0xff), le[1] = (uint8_t)(off >> 8);
        buf_append(&v, le, 2);
    }
    for (int slot = 0; slot < N; slot++) { /* slot i holds field N - 1 - i */
        buf_putc(&v, 0x0c);
        buf_putc(&v, (uint8_t)((N - 1 - slot) % 100));
    }
    struct buf want = BUF_INIT;
    struct error err;
    assert_int_equal(variant_to_json((const uint8_t *)m.data, m.len, (const uint8_t *)v.data, v.len,
                                     &want, &err),
                     0);
    buf_putc(&want, '\n');

    /* One row of table form, written through the declaration. */
    struct buf row = BUF_INIT;
    buf_puts(&row, "{\"v\":{\"metadata\":\"");
    base64_encode(&row, (const uint8_t *)m.data, m.len);
    buf_puts(&row, "\",\"value\":\"");
    base64_encode(&row, (const uint8_t *)v.data, v.len);
    buf_puts(&row, "\"}}\n");
    struct parsed x;
    parse_rows(&x, "v:struct<metadata:binary, value:binary>", row.data);
    struct test_table tt;
    test_table_init(
        &tt, "[{'name':'v','type':'variant','type_params':{'shredding':{'type':'object','fields':["
             "{'name':'k299','type':'int64'},{'name':'k000','type':'int64'},"
             "{'name':'k150','type':'string'}]}}}]");
    struct written w;
    written_open(&w, &tt.t, x.batch.children[0], 0);
    const struct pq_shred_counts *c = w.res.variant[0].groups;
    assert_true(c[1].typed == 1 && c[2].typed == 1 && c[3].fallback == 1);
    struct ArrowArray b;
    written_read(&w, 0, &b);
    char *got = written_json(&w, &b);
    assert_string_equal(got, want.data);
    free(got);
    b.release(&b);
    written_close(&w);
    test_table_release(&tt);
    parsed_free(&x);
    buf_free(&row);
    buf_free(&want);
    buf_free(&m);
    buf_free(&v);
}

/* ---- verify (rows/rows_variant_verify.h) ---- */

/* ["a", "b"] sorted; {"b": int16 5} over it (not canonical). */
#define M_AB "\"EQIAAQJhYg==\""
#define V_B_INT16 "\"AgEBAAMQBQA=\""
/* Every field group present and empty (missing fields). */
/* The empty dictionary as the encoder writes it: flagged sorted. */
#define M_NONE "\"EQAA\""

/* "ok", or the refusal as "reason: message". */
static char *verify_rows(const char *jsonl, const struct rows_variant_verify_options *o)
{
    struct parsed x;
    parse_rows(&x, storage_spec, jsonl);
    struct error err = {0};
    struct buf b = BUF_INIT;
    if (rows_variant_verify(x.schema.children[0], x.batch.children[0], o, &err) != 0)
        buf_printf(&b, "%s: %s", err.reason ? err.reason : "-", err.msg);
    else
        buf_puts(&b, "ok");
    parsed_free(&x);
    return buf_take(&b);
}

static void expect_verify(const char *jsonl, const struct rows_variant_verify_options *o,
                          const char *want)
{
    char *got = verify_rows(jsonl, o);
    if (!strstr(got, want))
        fail_msg("got: %s\nwant: %s", got, want);
    free(got);
}

static void storage_verified(void **state)
{
    (void)state;
    struct rows_variant_verify_options o = {.canonical = true};
    /* a typed int and a missing field pass */
    expect_verify("{\"v\":{\"metadata\":" M_A ",\"typed_value\":{\"a\":{\"typed_value\":7},"
                  "\"s\":{},\"d\":{},\"l\":{}}}}\n{\"v\":null}\n",
                  &o, "ok");
    /* int8 5 left in value under an int64 leaf */
    expect_verify("{\"v\":{\"metadata\":" M_A ",\"typed_value\":{\"a\":{\"value\":" V_INT5
                  "},\"s\":{},\"d\":{},\"l\":{}}}}\n",
                  &o, "variant_encoding: row 0, $.a: misplaced");
    /* a null field group */
    expect_verify("{\"v\":{\"metadata\":" M_EMPTY ",\"typed_value\":{\"a\":null,\"s\":{},"
                  "\"d\":{},\"l\":{}}}}\n",
                  &o, "row 0, $.a: null_group");
    /* an element with neither value nor typed_value, in row 1 */
    expect_verify("{\"v\":null}\n{\"v\":{\"metadata\":" M_EMPTY ",\"typed_value\":{\"a\":{},"
                  "\"s\":{},\"d\":{},\"l\":{\"typed_value\":[{\"typed_value\":1},{}]}}}}\n",
                  &o, "row 1, $.l[1]: missing_element");
    /* a residual repeating the shredded "a" */
    expect_verify("{\"v\":{\"metadata\":" M_A ",\"value\":" V_OBJ5 ",\"typed_value\":{\"a\":{"
                  "\"typed_value\":7},\"s\":{},\"d\":{},\"l\":{}}}}\n",
                  &o, "row 0, $: residual_repeats");
    /* a shredded name the row's dictionary lacks */
    expect_verify("{\"v\":{\"metadata\":" M_EMPTY ",\"typed_value\":{\"a\":{\"typed_value\":7},"
                  "\"s\":{},\"d\":{},\"l\":{}}}}\n",
                  &o, "key_not_in_dictionary");
    /* a non-canonical residual ({"b": int16 5}): refused, and passed
     * with canonical checking off */
    const char *residual = "{\"v\":{\"metadata\":" M_AB ",\"value\":" V_B_INT16
                           ",\"typed_value\":{\"a\":{\"typed_value\":7},\"s\":{},\"d\":{},"
                           "\"l\":{}}}}\n";
    expect_verify(residual, &o, "row 0: variant: $.b: canonical_int");
    struct rows_variant_verify_options loose = {.canonical = false};
    expect_verify(residual, &loose, "ok");
    /* SQL NULL under NOT NULL */
    struct rows_variant_verify_options not_null = {.canonical = true, .not_null = true};
    expect_verify("{\"v\":{\"metadata\":" M_NONE ",\"value\":" V_INT5 "}}\n{\"v\":null}\n",
                  &not_null, "not_null: row 1");
    /* a form that is not the declaration's layout; nor the unshredded one */
    struct rows_variant_verify_options form = {
        .canonical = true,
        .check_form = true,
        .shredding = "{\"type\":\"object\",\"fields\":[{\"name\":\"a\",\"type\":\"int32\"}]}"};
    expect_verify("{\"v\":null}\n", &form, "invalid_shredding: storage field v");
    form.shredding = NULL;
    expect_verify("{\"v\":null}\n", &form, "invalid_shredding");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(shredded_storage_reads),    cmocka_unit_test(invalid_storage_refused),
        cmocka_unit_test(json_text_encoded),         cmocka_unit_test(shredded_round_trip),
        cmocka_unit_test(nanosecond_instants),       cmocka_unit_test(storage_named_fields_counted),
        cmocka_unit_test(fields_laid_out_backwards), cmocka_unit_test(storage_verified),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
