/* Value expressions for updates (src/expr): literals and columns of every
 * type, arithmetic per type with overflow and division by zero, CASE,
 * NULL, rows kept when not assigned, batches at offsets, and every
 * binding and runtime error. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "expr_testlib.h"
#include "parquet/writer.h"
#include "rows/rows_schema.h"
#include "pq_testlib.h"
#include "textio/textio_text.h"
#include "util/arrow.h"

static const char columns[] =
    "[{'name':'id','type':'long','nullable':false},"
    "{'name':'i8','type':'int8'},{'name':'i','type':'int'},{'name':'l','type':'long'},"
    "{'name':'u8','type':'uint8'},{'name':'u64','type':'uint64'},"
    "{'name':'dec','type':'decimal','type_params':{'precision':10,'scale':2}},"
    "{'name':'big','type':'decimal','type_params':{'precision':38,'scale':0}},"
    "{'name':'f','type':'float'},{'name':'d','type':'double'},"
    "{'name':'dt','type':'date'},{'name':'tm','type':'time'},{'name':'ts','type':'timestamp'},"
    "{'name':'tss','type':'timestamp_s'},{'name':'tsn','type':'timestamp_ns'},"
    "{'name':'tz','type':'timestamptz'},"
    "{'name':'s','type':'string'},{'name':'j','type':'json'},{'name':'u','type':'uuid'},"
    "{'name':'bin','type':'binary'},{'name':'b','type':'boolean'},"
    "{'name':'req','type':'int','nullable':false},"
    "{'name':'st','type':'struct','children':[{'name':'x','type':'int'}]},"
    "{'name':'tags','type':'list','children':[{'name':'element','type':'int'}]}]";

/* One row to drop, then rows 0 to 3. */
static const char rows[] =
    "{'id':99,'i':99,'req':99}\n"
    "{'id':0,'i8':5,'i':0,'l':9223372036854775807,'u8':250,'u64':18446744073709551615,"
    "'dec':'1.00','big':'10000000000000000000000000000000000000','f':1.5,'d':2.5,"
    "'dt':'2026-01-02','tm':'01:02:03','ts':'2026-01-02T03:04:05.123456',"
    "'tss':'2026-01-02T03:04:05','tsn':'2026-01-02T03:04:05.123456789',"
    "'tz':'2026-01-02T03:04:05Z','s':'abc','j':'{}','u':'00000000-0000-0000-0000-000000000001',"
    "'bin':'AP8=','b':true,'req':1,'st':{'x':7},'tags':[1]}\n"
    "{'id':1,'i8':-5,'i':7,'l':-3,'u8':0,'u64':0,'dec':'-2.55','big':'-1','f':-0.5,'d':'NaN',"
    "'dt':'1969-12-31','tm':'00:00:00','ts':'1969-12-31T23:59:59.999999',"
    "'tss':'1969-12-31T23:59:59','tsn':'1969-12-31T23:59:59.999999999',"
    "'tz':'1969-12-31T23:59:59Z','s':'','j':'[1]','u':'ffffffff-ffff-ffff-ffff-ffffffffffff',"
    "'bin':'','b':false,'req':2,'st':null,'tags':null}\n"
    "{'id':2,'req':3}\n"
    "{'id':3,'i8':127,'i':-7,'l':10,'u8':1,'u64':1,'dec':'0.05','big':'0','f':0,'d':-1,"
    "'dt':'0001-01-01','tm':'23:59:59.999999','ts':'2026-01-01T00:00:00',"
    "'tss':'2026-01-01T00:00:00','tsn':'2026-01-01T00:00:00','tz':'2026-01-01T00:00:00Z',"
    "'s':'\xc3\xa9','j':'7','u':'12345678-1234-5678-1234-567812345678','bin':'AA==','b':true,"
    "'req':4,'st':{'x':null},'tags':[]}\n";

/* The junk rows dropped; the offsets variants move the batch's offset
 * into the columns (and the struct's fields). */
static int setup_plain(void **state)
{
    *state = xt_fixture_new(columns, rows, 1, 0);
    return 0;
}

static int setup_offsets(void **state)
{
    *state = xt_fixture_new(columns, rows, 1, 2);
    return 0;
}

static int teardown(void **state)
{
    xt_fixture_free(*state);
    return 0;
}

/* One value of an output array as text. */
static void render_value(const struct lake_column *c, const struct ArrowArray *a, int64_t r,
                         struct buf *out)
{
    char text[128];
    const uint8_t *v = a->buffers[1];
    size_t n = 0;
    switch (c->type) {
    case LT_INT8: n = rt_format_i64(((const int8_t *)(const void *)v)[r], text); break;
    case LT_INT: n = rt_format_i64(((const int32_t *)(const void *)v)[r], text); break;
    case LT_DATE: n = rt_format_date(((const int32_t *)(const void *)v)[r], text); break;
    case LT_LONG: n = rt_format_i64(((const int64_t *)(const void *)v)[r], text); break;
    case LT_UINT8: n = rt_format_u64(v[r], text); break;
    case LT_UINT64: n = rt_format_u64(((const uint64_t *)(const void *)v)[r], text); break;
    case LT_FLOAT: n = rt_format_float(((const float *)(const void *)v)[r], text); break;
    case LT_DOUBLE: n = rt_format_double(((const double *)(const void *)v)[r], text); break;
    case LT_DECIMAL: {
        rt_i128 x;
        memcpy(&x, v + 16 * r, 16);
        n = rt_format_decimal(x, c->scale, text);
        break;
    }
    case LT_TIME:
        n = rt_format_time(((const int64_t *)(const void *)v)[r], ROWS_MICROS, text);
        break;
    case LT_TIMESTAMP:
    case LT_TIMESTAMPTZ:
    case LT_TIMESTAMP_S:
    case LT_TIMESTAMP_NS: {
        enum rows_unit u = c->type == LT_TIMESTAMP_S    ? ROWS_SECONDS
                           : c->type == LT_TIMESTAMP_NS ? ROWS_NANOS
                                                        : ROWS_MICROS;
        n = rt_format_timestamp(((const int64_t *)(const void *)v)[r], u, c->type == LT_TIMESTAMPTZ,
                                text);
        break;
    }
    case LT_BOOLEAN:
        n = (size_t)snprintf(text, sizeof text, "%s", arrow_bit(v, r) ? "true" : "false");
        break;
    case LT_UUID: n = rt_format_uuid(v + 16 * r, text); break;
    case LT_BINARY: {
        const int32_t *o = (const int32_t *)(const void *)v;
        rt_hex_encode(out, (const uint8_t *)a->buffers[2] + o[r], (size_t)(o[r + 1] - o[r]));
        return;
    }
    default: {
        const int32_t *o = (const int32_t *)(const void *)v;
        buf_append(out, (const char *)a->buffers[2] + o[r], (size_t)(o[r + 1] - o[r]));
        return;
    }
    }
    buf_append(out, text, n);
}

/* Runs assignment 0 of text (rows: NULL or "1011") and renders the new
 * column as "v0|v1|..." ("null" for nulls). */
static const char *run(struct xt_fixture *f, const char *text, const char *rows_mask)
{
    static char result[2048];
    struct arena a;
    arena_init(&a, 0);
    struct expr_update *u;
    struct error err = {0};
    if (expr_compile_assignments(&a, &f->tt.t, text, strlen(text), &u, &err) != 0)
        fail_msg("'%s': %s", text, err.msg);
    uint8_t mask[16];
    for (size_t k = 0; rows_mask && rows_mask[k]; k++)
        mask[k] = rows_mask[k] == '1';
    struct ArrowArray out;
    if (expr_update_eval(u, 0, &f->schema, &f->batch, rows_mask ? mask : NULL, &out, &err) != 0) {
        snprintf(result, sizeof result, "error: %s", err.msg);
        arena_free(&a);
        return result;
    }
    const struct lake_column *c = f->tt.t.root.children[expr_update_target(u, 0)];
    assert_int_equal(out.length, f->batch.length);
    assert_int_equal(out.offset, 0);
    struct buf b = BUF_INIT;
    int64_t nulls = 0;
    for (int64_t r = 0; r < out.length; r++) {
        if (r)
            buf_putc(&b, '|');
        if (!arrow_bit(out.buffers[0], r)) {
            buf_puts(&b, "null");
            nulls++;
        } else {
            render_value(c, &out, r, &b);
        }
    }
    assert_int_equal(out.null_count, nulls);
    snprintf(result, sizeof result, "%s", b.data ? b.data : "");
    buf_free(&b);
    out.release(&out);
    arena_free(&a);
    return result;
}

static const char *bind_error(struct xt_fixture *f, const char *text)
{
    static char msg[ERROR_MESSAGE_MAX];
    struct arena a;
    arena_init(&a, 0);
    struct expr_update *u;
    struct error err = {0};
    if (expr_compile_assignments(&a, &f->tt.t, text, strlen(text), &u, &err) == 0)
        fail_msg("'%s' binds", text);
    assert_int_equal(err.code, ERR_INVALID);
    snprintf(msg, sizeof msg, "%s", err.msg);
    arena_free(&a);
    return msg;
}

#define RUN(text, want) assert_string_equal(run(f, text, NULL), want)
#define RUN_ROWS(text, mask, want) assert_string_equal(run(f, text, mask), want)

static void test_literals(void **state)
{
    struct xt_fixture *f = *state;
    RUN("i8 = 5", "5|5|5|5");
    RUN("i8 = -128", "-128|-128|-128|-128");
    RUN("i8 = NULL", "null|null|null|null");
    RUN("u64 = 18446744073709551615", "18446744073709551615|18446744073709551615|"
                                      "18446744073709551615|18446744073709551615");
    RUN("dec = 1.5", "1.50|1.50|1.50|1.50");
    RUN("dec = -0.005", "-0.01|-0.01|-0.01|-0.01");
    RUN("big = -99999999999999999999999999999999999999",
        "-99999999999999999999999999999999999999|-99999999999999999999999999999999999999|"
        "-99999999999999999999999999999999999999|-99999999999999999999999999999999999999");
    RUN("f = 0.1", "0.1|0.1|0.1|0.1");
    RUN("d = 'NaN'", "NaN|NaN|NaN|NaN");
    RUN("d = -0.0", "-0.0|-0.0|-0.0|-0.0");
    RUN("dt = '2024-02-29'", "2024-02-29|2024-02-29|2024-02-29|2024-02-29");
    RUN("tm = TIME '12:34:56.789'", "12:34:56.789000|12:34:56.789000|12:34:56.789000|"
                                    "12:34:56.789000");
    RUN("ts = '1900-01-01 00:00:00.000001'",
        "1900-01-01T00:00:00.000001|1900-01-01T00:00:00.000001|1900-01-01T00:00:00.000001|"
        "1900-01-01T00:00:00.000001");
    RUN("tz = '2026-01-01T01:00:00+01:00'",
        "2026-01-01T00:00:00.000000Z|2026-01-01T00:00:00.000000Z|2026-01-01T00:00:00.000000Z|"
        "2026-01-01T00:00:00.000000Z");
    RUN("tss = DATE '2026-01-01'",
        "2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:00:00");
    RUN("s = 'it''s'", "it's|it's|it's|it's");
    RUN("j = '{\"a\": [1, 2]}'", "{\"a\": [1, 2]}|{\"a\": [1, 2]}|{\"a\": [1, 2]}|{\"a\": [1, 2]}");
    RUN("u = UUID '12345678-1234-5678-1234-56781234567A'",
        "12345678-1234-5678-1234-56781234567a|12345678-1234-5678-1234-56781234567a|"
        "12345678-1234-5678-1234-56781234567a|12345678-1234-5678-1234-56781234567a");
    RUN("bin = X'00ff'", "00ff|00ff|00ff|00ff");
    RUN("bin = 'hi'", "6869|6869|6869|6869");
    RUN("b = FALSE", "false|false|false|false");
    RUN("s = NULL", "null|null|null|null");
}

static void test_columns(void **state)
{
    struct xt_fixture *f = *state;
    RUN("i8 = i8", "5|-5|null|127");
    RUN("l = i8", "5|-5|null|127");
    RUN("l = u8", "250|0|null|1");
    RUN("i = st.x", "7|null|null|null");
    RUN("dec = i8", "5.00|-5.00|null|127.00");
    RUN("big = dec * 100", "100|-255|null|5");
    RUN("d = f", "1.5|-0.5|null|0.0");
    RUN("d = dec", "1.0|-2.55|null|0.05");
    RUN("f = d", "2.5|NaN|null|-1.0");
    RUN("ts = tss", "2026-01-02T03:04:05.000000|1969-12-31T23:59:59.000000|null|"
                    "2026-01-01T00:00:00.000000");
    RUN("tsn = ts", "2026-01-02T03:04:05.123456000|1969-12-31T23:59:59.999999000|null|"
                    "2026-01-01T00:00:00.000000000");
    RUN("ts = dt", "2026-01-02T00:00:00.000000|1969-12-31T00:00:00.000000|null|"
                   "0001-01-01T00:00:00.000000");
    RUN("tz = ts", "2026-01-02T03:04:05.123456Z|1969-12-31T23:59:59.999999Z|null|"
                   "2026-01-01T00:00:00.000000Z");
    RUN("tm = tm", "01:02:03.000000|00:00:00.000000|null|23:59:59.999999");
    RUN("s = j", "{}|[1]|null|7");
    RUN("bin = s", "616263||null|c3a9");
    RUN("u = u", "00000000-0000-0000-0000-000000000001|ffffffff-ffff-ffff-ffff-ffffffffffff|null|"
                 "12345678-1234-5678-1234-567812345678");
    RUN("b = b", "true|false|null|true");
}

static void test_integer_arithmetic(void **state)
{
    struct xt_fixture *f = *state;
    RUN("i = i + 1", "1|8|null|-6");
    RUN("i = i * 2 - 1", "-1|13|null|-15");
    RUN("i = i - i8 * 2 + 3", "-7|20|null|-258");
    RUN("i = i / 2", "0|3|null|-3");
    RUN("i = -i / 2", "0|-3|null|3");
    RUN("i = (i + 1) * (i - 1)", "-1|48|null|48");
    RUN("i = -(-i)", "0|7|null|-7");
    RUN("l = l - 1 + 1", "9223372036854775807|-3|null|10");
    RUN("l = l + 1 - 1", "9223372036854775807|-3|null|10");
    RUN("u64 = u64 - u8 + 1", "18446744073709551366|1|null|1");
}

static void test_overflow_and_division(void **state)
{
    struct xt_fixture *f = *state;
    RUN("i8 = i8 * 100", "error: at 1 ('i8'): the value is outside the column type's range in "
                         "row 0");
    RUN("u8 = u8 - 1", "error: at 1 ('u8'): the value is outside the column type's range in row 1");
    RUN("l = l * 2", "error: at 1 ('l'): the value is outside the column type's range in row 0");
    RUN("u64 = u64 + 1",
        "error: at 1 ('u64'): the value is outside the column type's range in row 0");
    RUN("big = big * big * big * big", "error: at 11 ('*'): numeric overflow in row 0");
    RUN("big = big * 10", "error: at 1 ('big'): the value does not fit the column's precision in "
                          "row 0");
    RUN("i = 10 / i", "error: at 8 ('/'): division by zero in row 0");
    RUN("i = CASE WHEN i = 0 THEN 0 ELSE 70 / i END", "0|10|null|-10");
    RUN("i = 10 / NULL", "null|null|null|null");
    RUN("d = d / 0", "error: at 7 ('/'): division by zero in row 0");
    RUN("d = d * 1e308 * 10", "error: at 7 ('*'): float overflow in row 0");
    RUN("f = d * 1e38", "2.5e+38|NaN|null|-1e+38");
    RUN("f = d * 1e39", "error: at 1 ('f'): float overflow in row 0");
    RUN("dec = dec * 1e8", "error: at 1 ('dec'): the value does not fit the column's precision in "
                           "row 0");
    RUN("i = -2147483648 / -1",
        "error: at 1 ('i'): the value is outside the column type's range in row 0");
    /* Only the rows assigned are computed. */
    RUN_ROWS("i = 10 / i", "0111", "0|1|null|-1");
    RUN_ROWS("i8 = i8 * 100", "0100",
             "error: at 1 ('i8'): the value is outside the column type's range in row 1");
    RUN_ROWS("i8 = i8 * 20", "0100", "5|-100|null|127");
}

static void test_decimal_arithmetic(void **state)
{
    struct xt_fixture *f = *state;
    RUN("dec = dec * 1.1", "1.10|-2.81|null|0.06");
    RUN("dec = dec / 3", "0.33|-0.85|null|0.02");
    RUN("dec = 2 / 3", "0.67|0.67|0.67|0.67");
    RUN("dec = -2 / 3", "-0.67|-0.67|-0.67|-0.67");
    RUN("dec = dec + 0.005", "1.01|-2.55|null|0.06");
    RUN("dec = dec - 0.005", "1.00|-2.56|null|0.05");
    RUN("dec = dec * dec * dec", "1.00|-16.58|null|0.00");
    RUN("dec = i8 / 4", "1.25|-1.25|null|31.75");
    RUN("dec = (dec + i8) / 2", "3.00|-3.78|null|63.53");
    RUN("dec = 99999999.99 + 0.01",
        "error: at 1 ('dec'): the value does not fit the column's precision in row 0");
    RUN("big = big / 3", "3333333333333333333333333333333333333|0|null|0");
    RUN("big = -big", "-10000000000000000000000000000000000000|1|null|0");
}

static void test_float_arithmetic(void **state)
{
    struct xt_fixture *f = *state;
    RUN("d = d / 4", "0.625|NaN|null|-0.25");
    RUN("d = d + i8 * 0.5", "5.0|NaN|null|62.5");
    RUN("f = f * 2", "3.0|-1.0|null|0.0");
    RUN("d = -d", "-2.5|NaN|null|1.0");
    RUN("d = dec / 2", "0.5|-1.275|null|0.025");
    RUN("d = 'Infinity' - 1", "Infinity|Infinity|Infinity|Infinity");
}

static void test_case(void **state)
{
    struct xt_fixture *f = *state;
    RUN("i = CASE WHEN i > 1 THEN i * 10 WHEN i IS NULL THEN -1 ELSE 0 END", "0|70|-1|0");
    RUN("i = CASE WHEN i > 1 THEN 1 END", "null|1|null|null");
    RUN("s = CASE WHEN b THEN s ELSE 'no' END", "abc|no|no|\xc3\xa9");
    RUN("s = CASE WHEN NOT b THEN 'neg' WHEN b THEN NULL END", "null|neg|null|null");
    RUN("dec = CASE WHEN i8 > 0 THEN dec * 1.5 ELSE 0.125 END", "1.50|0.13|0.13|0.08");
    RUN("i = CASE WHEN i8 > 0 THEN CASE WHEN i = 0 THEN 100 ELSE 200 END ELSE i END + 1",
        "101|8|null|201");
    RUN("ts = CASE WHEN dt < '2000-01-01' THEN dt ELSE ts END",
        "2026-01-02T03:04:05.123456|1969-12-31T00:00:00.000000|null|0001-01-01T00:00:00.000000");
    RUN("b = CASE WHEN st.x IS NULL THEN TRUE ELSE FALSE END", "false|true|true|true");
    RUN("req = CASE WHEN id = 1 THEN NULL ELSE 1 END",
        "error: at 1 ('req'): NULL for a required column in row 1");
    RUN("req = CASE WHEN id = 5 THEN NULL ELSE req + 1 END", "2|3|4|5");
}

static void test_rows_kept(void **state)
{
    struct xt_fixture *f = *state;
    RUN_ROWS("i = 42", "1010", "42|7|42|-7");
    RUN_ROWS("i = 42", "0000", "0|7|null|-7");
    RUN_ROWS("s = s", "0000", "abc||null|\xc3\xa9");
    RUN_ROWS("s = 'x'", "0101", "abc|x|null|x");
    RUN_ROWS("dec = dec / 7", "1100", "0.14|-0.36|null|0.05");
    RUN_ROWS("u = NULL", "1000",
             "null|ffffffff-ffff-ffff-ffff-ffffffffffff|null|"
             "12345678-1234-5678-1234-567812345678");
}

/* The writer takes a new column as the table's column (one-column tables
 * of its type). */
static void writer_takes(const char *column_json, struct ArrowArray *col)
{
    struct test_table tt;
    test_table_init(&tt, column_json);
    struct ArrowSchema schema;
    assert_int_equal(rows_table_arrow_schema(&tt.t, &schema), 0);
    struct ArrowArray batch;
    assert_int_equal(arrow_array_init(&batch, 1, 1), 0);
    batch.length = col->length;
    arrow_array_move(col, batch.children[0]);
    struct pq_write_options o;
    pq_write_options_default(&o);
    struct buf file = BUF_INIT;
    struct pq_write_result res;
    write_batches(&tt.t, &o, &schema, &batch, 1, &file, &res);
    expect_file_equals(&tt.t, &file, &schema, &batch, 1);
    assert_int_equal(res.meta.num_rows, batch.length);
    pq_write_result_release(&res);
    buf_free(&file);
    schema.release(&schema);
    batch.release(&batch);
    test_table_release(&tt);
}

static void test_output_format(void **state)
{
    struct xt_fixture *f = *state;
    struct arena a;
    arena_init(&a, 0);
    struct expr_update *u;
    struct error err = {0};
    const char *text = "dec = dec * 2, s = s, u = u, id = id + 1";
    assert_int_equal(expr_compile_assignments(&a, &f->tt.t, text, strlen(text), &u, &err), 0);
    assert_int_equal(expr_update_count(u), 4);
    assert_int_equal(expr_update_target(u, 0), 6);
    assert_int_equal(expr_update_target(u, 1), 16);
    assert_int_equal(expr_update_target(u, 2), 18);
    assert_int_equal(expr_update_target(u, 3), 0);
    /* It reads its targets (kept where rows are not assigned). */
    const struct expr_columns *c = expr_update_columns(u);
    assert_int_equal(c->ntop, 4);
    assert_int_equal(c->top[0], 0);
    assert_int_equal(c->top[1], 6);
    assert_int_equal(c->top[2], 16);
    assert_int_equal(c->top[3], 18);
    static const char *const defs[] = {
        "[{'name':'dec','type':'decimal','type_params':{'precision':10,'scale':2}}]",
        "[{'name':'s','type':'string'}]",
        "[{'name':'u','type':'uuid'}]",
        "[{'name':'id','type':'long','nullable':false}]",
    };
    const uint8_t rows_mask[4] = {1, 0, 1, 0};
    for (size_t k = 0; k < 4; k++) {
        struct ArrowArray col;
        assert_int_equal(expr_update_eval(u, k, &f->schema, &f->batch, rows_mask, &col, &err), 0);
        writer_takes(defs[k], &col);
    }
    struct ArrowArray col;
    assert_int_equal(expr_update_eval(u, 4, &f->schema, &f->batch, NULL, &col, &err), -1);
    assert_string_equal(err.msg, "assignment 4 of 4");
    arena_free(&a);
}

static void test_bind_errors(void **state)
{
    struct xt_fixture *f = *state;
    static const struct {
        const char *text, *want;
    } errors[] = {
        {"st.x = 1", "at 1 ('st.x'): 'st.x' is a struct field; assignments name top-level "
                     "columns"},
        {"tags = NULL", "at 1 ('tags'): 'tags' is a list, which cannot be assigned"},
        {"st = NULL", "at 1 ('st'): 'st' is a struct, which cannot be assigned"},
        {"i = 1, I = 2", "at 8 ('I'): column 'i' is assigned twice"},
        {"req = NULL", "at 7 ('NULL'): column 'req' is required: it cannot be NULL"},
        {"s = s + 1", "at 7 ('+'): arithmetic needs a numeric column; 's' is string"},
        {"ts = -ts", "at 6 ('-'): arithmetic needs a numeric column; 'ts' is timestamp"},
        {"i = s", "at 5 ('s'): 's' (string) does not fit column 'i' (int)"},
        {"i = dec", "at 5 ('dec'): 'dec' (decimal) does not fit column 'i' (int)"},
        {"i = d + 1", "at 5 ('d'): 'd' (double) does not fit column 'i' (int)"},
        {"dt = ts", "at 6 ('ts'): 'ts' (timestamp) does not fit column 'dt' (date)"},
        {"tss = ts", "at 7 ('ts'): 'ts' (timestamp) does not fit column 'tss' (timestamp_s)"},
        {"tm = ts", "at 6 ('ts'): 'ts' (timestamp) does not fit column 'tm' (time)"},
        {"j = s", "at 5 ('s'): 's' (string) does not fit column 'j' (json)"},
        {"b = i8", "at 5 ('i8'): 'i8' (int8) does not fit column 'b' (boolean)"},
        {"i = st", "at 5 ('st'): 'st' (struct) does not fit column 'i' (int)"},
        {"i = 1.5", "at 5 ('1.5'): expected an integer of at most 38 digits for column 'i' "
                    "(int)"},
        {"dec = 1e40", "at 7 ('1e40'): expected a number of at most 38 digits for column 'dec' "
                       "(decimal)"},
        {"i = 'x'", "at 5 (''x''): expected an integer of at most 38 digits for column 'i' "
                    "(int)"},
        {"j = 'not json'", "at 5 (''not json''): not valid JSON for column 'j' (json)"},
        {"u = 'x'", "at 5 (''x''): expected a uuid as 8-4-4-4-12 hex digits for column 'u' "
                    "(uuid)"},
        {"b = 1", "at 5 ('1'): expected TRUE or FALSE, not a number for column 'b' "
                  "(boolean)"},
        {"nosuch = 1", "at 1 ('nosuch'): no column 'nosuch'"},
        {"i = CASE WHEN s THEN 1 END",
         "at 15 ('s'): 's' is a string, not a boolean: compare it with a value"},
        {"dec = dec * dec * dec * dec * dec * dec * dec * dec * dec * "
         "dec * dec * dec * dec * dec * dec * dec * dec * dec * dec * "
         "dec",
         "at 11 ('*'): the result has more than 38 fraction digits"},
    };
    for (size_t k = 0; k < sizeof errors / sizeof *errors; k++)
        assert_string_equal(bind_error(f, errors[k].text), errors[k].want);
}

#define VARIANTS(fn)                                                                               \
    cmocka_unit_test_setup_teardown(fn, setup_plain, teardown),                                    \
        cmocka_unit_test_setup_teardown(fn, setup_offsets, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        VARIANTS(test_literals),
        VARIANTS(test_columns),
        VARIANTS(test_integer_arithmetic),
        VARIANTS(test_overflow_and_division),
        VARIANTS(test_decimal_arithmetic),
        VARIANTS(test_float_arithmetic),
        VARIANTS(test_case),
        VARIANTS(test_rows_kept),
        cmocka_unit_test_setup_teardown(test_output_format, setup_plain, teardown),
        cmocka_unit_test_setup_teardown(test_bind_errors, setup_plain, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
