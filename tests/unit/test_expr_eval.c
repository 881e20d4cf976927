/* Binding predicates to a table and evaluating them over Arrow batches
 * (src/expr): every column type and operator, three-valued logic, nested
 * struct fields, column-to-column comparisons, arrays at non-zero offsets
 * with validity bitmaps, and every binding error with its position. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "expr_testlib.h"
#include "pq_testlib.h"
#include "util/arrow.h"

static const char columns[] =
    "[{'name':'id','type':'long','nullable':false},"
    "{'name':'i8','type':'int8'},{'name':'i16','type':'int16'},{'name':'i','type':'int'},"
    "{'name':'l','type':'long'},{'name':'u8','type':'uint8'},{'name':'u16','type':'uint16'},"
    "{'name':'u32','type':'uint32'},{'name':'u64','type':'uint64'},"
    "{'name':'f','type':'float'},{'name':'d','type':'double'},"
    "{'name':'dec','type':'decimal','type_params':{'precision':10,'scale':2}},"
    "{'name':'big','type':'decimal','type_params':{'precision':38,'scale':0}},"
    "{'name':'dt','type':'date'},{'name':'tm','type':'time'},{'name':'ts','type':'timestamp'},"
    "{'name':'tss','type':'timestamp_s'},{'name':'tsms','type':'timestamp_ms'},"
    "{'name':'tsn','type':'timestamp_ns'},{'name':'tz','type':'timestamptz'},"
    "{'name':'s','type':'string'},{'name':'j','type':'json'},{'name':'u','type':'uuid'},"
    "{'name':'bin','type':'binary'},{'name':'b','type':'boolean'},"
    "{'name':'st','type':'struct','children':[{'name':'x','type':'int'},"
    "  {'name':'y','type':'string'},"
    "  {'name':'in','type':'struct','children':[{'name':'z','type':'long'}]}]},"
    "{'name':'tags','type':'list','children':[{'name':'element','type':'int'}]},"
    "{'name':'Name','type':'int'},{'name':'a-b','type':'int'}]";

/* Two rows to drop, then rows 0 to 5. */
static const char rows[] =
    "{'id':100,'i8':9,'st':null,'s':'junk','b':true,'f':9}\n"
    "{'id':101,'i8':null,'st':{'x':9,'y':'z','in':null},'tz':'2000-01-01T00:00:00Z'}\n"
    "{'id':0,'i8':-128,'i16':-32768,'i':-2147483648,'l':-9223372036854775808,'u8':0,'u16':0,"
    "'u32':0,'u64':0,'f':-0.0,'d':'NaN','dec':'-1.50','big':'-"
    "99999999999999999999999999999999999999',"
    "'dt':'1969-12-31','tm':'00:00:00','ts':'1969-12-31T23:59:59.999999',"
    "'tss':'1969-12-31T23:59:59','tsms':'1969-12-31T23:59:59.999',"
    "'tsn':'1969-12-31T23:59:59.999999999','tz':'1969-12-31T23:59:59.999999Z','s':'','j':'{}',"
    "'u':'00000000-0000-0000-0000-000000000000','bin':'','b':false,"
    "'st':{'x':1,'y':'a','in':{'z':10}},'tags':[1],'Name':0,'a-b':0}\n"
    "{'id':1,'i8':127,'i16':32767,'i':2147483647,'l':9223372036854775807,'u8':255,'u16':65535,"
    "'u32':4294967295,'u64':18446744073709551615,'f':1.5,'d':'Infinity','dec':'12345678.99',"
    "'big':'99999999999999999999999999999999999999','dt':'2024-02-29','tm':'23:59:59.999999',"
    "'ts':'2026-01-02T03:04:05.123456','tss':'2026-01-02T03:04:05',"
    "'tsms':'2026-01-02T03:04:05.123','tsn':'2026-01-02T03:04:05.123456789',"
    "'tz':'2026-01-02T03:04:05.123456Z','s':'abc','j':'[1]',"
    "'u':'ffffffff-ffff-ffff-ffff-ffffffffffff','bin':'aGVsbG8=','b':true,"
    "'st':{'x':2,'y':'b','in':null},'tags':[],'Name':1,'a-b':1}\n"
    "{'id':2,'Name':2,'a-b':2}\n"
    "{'id':3,'i8':5,'i16':5,'i':5,'l':5,'u8':5,'u16':5,'u32':5,'u64':5,'f':'NaN','d':0.0,"
    "'dec':'0.05','big':'0','dt':'1970-01-01','tm':'12:00:00','ts':'1970-01-01T00:00:00',"
    "'tss':'1970-01-01T00:00:00','tsms':'1970-01-01T00:00:00.000','tsn':'1970-01-01T00:00:00',"
    "'tz':'1970-01-01T00:00:00Z','s':'abd','j':'[1,2]',"
    "'u':'12345678-1234-5678-1234-567812345678','bin':'AP8=','b':true,"
    "'st':{'x':null,'y':'c','in':{'z':null}},'tags':null,'Name':3,'a-b':3}\n"
    "{'id':4,'i8':-5,'i16':300,'i':-7,'l':1000000000000,'u8':200,'u16':40000,'u32':3000000000,"
    "'u64':9223372036854775808,'f':-2.25,'d':-1e300,'dec':'-0.01','big':'1','dt':'0001-01-01',"
    "'tm':'00:00:00.000001','ts':'0001-01-01T00:00:00','tss':'0001-01-01T00:00:00',"
    "'tsms':'0001-01-01T00:00:00.000','tsn':'1900-01-01T00:00:00',"
    "'tz':'9999-12-31T23:59:59.999999Z','s':'ab','j':'7',"
    "'u':'00000000-0000-0000-0000-000000000001','bin':'AA==','b':false,"
    "'st':{'x':4,'y':null,'in':{'z':40}},'tags':[4],'Name':4,'a-b':4}\n"
    "{'id':5,'i8':0,'i16':0,'i':0,'l':0,'u8':1,'u16':1,'u32':1,'u64':1,'f':0.0,"
    "'d':'-Infinity','dec':'0.00','big':'-1','dt':'2026-01-01','tm':'06:30:00',"
    "'ts':'2026-01-01T00:00:00','tss':'2026-01-01T00:00:00','tsms':'2026-01-01T00:00:00.000',"
    "'tsn':'2026-01-01T00:00:00','tz':'2026-01-01T05:00:00Z','s':'\xc3\xa9','j':null,"
    "'u':'00000000-0000-0000-0000-000000000002','bin':'AQ==','b':null,"
    "'st':{'x':5,'y':'e','in':{'z':50}},'tags':[5],'Name':5,'a-b':5}\n";

/* The junk rows dropped; the offsets variants move the batch's offset
 * into the columns (and the struct's fields). */
static int setup_plain(void **state)
{
    *state = xt_fixture_new(columns, rows, 2, 0);
    return 0;
}

static int setup_offsets(void **state)
{
    *state = xt_fixture_new(columns, rows, 2, 1);
    return 0;
}

static int setup_deep_offsets(void **state)
{
    *state = xt_fixture_new(columns, rows, 2, 2);
    return 0;
}

static int teardown(void **state)
{
    xt_fixture_free(*state);
    return 0;
}

#define SELECT(text, want)                                                                         \
    assert_string_equal(xt_select(&f->tt.t, text, &f->schema, &f->batch), want)

static void test_integers(void **state)
{
    struct xt_fixture *f = *state;
    SELECT("id >= 0", "0,1,2,3,4,5");
    SELECT("i8 = -128", "0");
    SELECT("i8 = 127 OR i8 = 5", "1,3");
    SELECT("i8 != 5", "0,1,4,5");
    SELECT("i8 < 0", "0,4");
    SELECT("i8 <= 0", "0,4,5");
    SELECT("i8 > 0", "1,3");
    SELECT("0 < i8", "1,3");
    SELECT("-5 >= i8", "0,4");
    SELECT("i8 IS NULL", "2");
    SELECT("i8 IS NOT NULL", "0,1,3,4,5");
    SELECT("i16 = -32768 OR i16 = 300", "0,4");
    SELECT("i > 2147483646", "1");
    SELECT("i = -2147483648", "0");
    SELECT("l = -9223372036854775808", "0");
    SELECT("l >= 9223372036854775807", "1");
    SELECT("l BETWEEN 1 AND 1e12", "3,4");
    SELECT("u8 > 127", "1,4");
    SELECT("u8 = 255", "1");
    SELECT("u16 >= 40000", "1,4");
    SELECT("u32 = 4294967295", "1");
    SELECT("u32 > 2147483647", "1,4");
    SELECT("u64 = 18446744073709551615", "1");
    SELECT("u64 > 9223372036854775807", "1,4");
    SELECT("u64 < 9223372036854775808", "0,3,5");
    SELECT("u64 IN (0, 9223372036854775808, 7)", "0,4");
    SELECT("i8 IN (5, -128)", "0,3");
    SELECT("u8 IN (255, 200)", "1,4");
    SELECT("i16 IN (300)", "4");
    SELECT("i IN (-7, 5, 0, 5)", "3,4,5");
    SELECT("l IN (0, 1000000000000)", "4,5");
    SELECT("i = 5.0", "3");
    SELECT("i = 50e-1", "3");
    SELECT("Name = 3", "3");
}

static void test_floats(void **state)
{
    struct xt_fixture *f = *state;
    /* -0.0 equals 0.0; NaN equals NaN and sorts above everything. */
    SELECT("f = 0", "0,5");
    SELECT("f = -0.0", "0,5");
    SELECT("f = 'NaN'", "3");
    SELECT("f = 'nan'", "3");
    SELECT("f > 1", "1,3");
    SELECT("f >= 1.5", "1,3");
    SELECT("f < 0", "4");
    SELECT("f <= 0", "0,4,5");
    SELECT("f != 1.5", "0,3,4,5");
    SELECT("NOT f > 1", "0,4,5");
    SELECT("f < 'NaN'", "0,1,4,5");
    SELECT("f <= 'NaN'", "0,1,3,4,5");
    SELECT("f >= 'NaN'", "3");
    SELECT("f > 'NaN'", "");
    SELECT("f != 'NaN'", "0,1,4,5");
    SELECT("f IN (0, 'NaN')", "0,3,5");
    SELECT("f NOT IN (0, 'NaN')", "1,4");
    SELECT("f = -2.25", "4");
    SELECT("d > 1e308", "0,1");
    SELECT("d = 'Infinity'", "1");
    SELECT("d = '-Infinity'", "5");
    SELECT("d < 0", "4,5");
    SELECT("d IS NULL", "2");
    SELECT("d BETWEEN -1e301 AND 0", "3,4");
    SELECT("d IN ('NaN', '-Infinity')", "0,5");
}

static void test_decimals(void **state)
{
    struct xt_fixture *f = *state;
    SELECT("dec = 12345678.99", "1");
    SELECT("dec > 0", "1,3");
    SELECT("dec = 0", "5");
    SELECT("dec = 0.050", "3");
    SELECT("dec = 5e-2", "3");
    SELECT("dec < -1.4", "0");
    SELECT("dec IN (0.05, -0.01, 7)", "3,4");
    SELECT("dec NOT IN (0.05, -0.01)", "0,1,5");
    SELECT("big > 0", "1,4");
    SELECT("big = -99999999999999999999999999999999999999", "0");
    SELECT("big >= 99999999999999999999999999999999999999", "1");
    SELECT("big IN (1, -1, 0)", "3,4,5");
}

static void test_temporals(void **state)
{
    struct xt_fixture *f = *state;
    SELECT("dt = '2024-02-29'", "1");
    SELECT("dt < DATE '1970-01-01'", "0,4");
    SELECT("dt >= TIMESTAMP '2026-01-01 00:00:00'", "5");
    SELECT("dt IN ('1970-01-01', DATE '0001-01-01')", "3,4");
    SELECT("tm > '12:00'", "1");
    SELECT("tm = TIME '00:00:00.000001'", "4");
    SELECT("tm <= '00:00:00.000001'", "0,4");
    SELECT("ts < '1970-01-01'", "0,4");
    SELECT("ts = TIMESTAMP '2026-01-02T03:04:05.123456'", "1");
    SELECT("ts >= '2026-01-01'", "1,5");
    SELECT("ts BETWEEN '1969-12-31 23:59:59.999999' AND '1970-01-01'", "0,3");
    SELECT("tss = '2026-01-02 03:04:05'", "1");
    SELECT("tss < '1970-01-01'", "0,4");
    SELECT("tsms = '2026-01-02 03:04:05.123'", "1");
    SELECT("tsn = '2026-01-02T03:04:05.123456789'", "1");
    SELECT("tsn < '1970-01-01'", "0,4");
    SELECT("tz = TIMESTAMPTZ '2026-01-01T06:00:00+01:00'", "5");
    SELECT("tz = '2026-01-01 05:00'", "5");
    SELECT("tz > '9999-01-01Z'", "4");
    SELECT("tz < '1970-01-01T00:00:00-00:30'", "0,3");
    SELECT("tz IN ('1970-01-01Z', '2026-01-01T00:00:00-05:00')", "3,5");
}

static void test_bytes_and_booleans(void **state)
{
    struct xt_fixture *f = *state;
    SELECT("s = ''", "0");
    SELECT("s > 'ab'", "1,3,5");
    SELECT("s IN ('abc', 'zzz')", "1");
    SELECT("s < 'abc'", "0,4");
    SELECT("s NOT IN ('', 'abc')", "3,4,5");
    SELECT("s = '\xc3\xa9'", "5");
    SELECT("s BETWEEN 'ab' AND 'abc'", "1,4");
    SELECT("j IS NULL", "2,5");
    SELECT("u = '12345678-1234-5678-1234-567812345678'", "3");
    SELECT("u = UUID '12345678-1234-5678-1234-567812345678'", "3");
    SELECT("u > UUID '00000000-0000-0000-0000-000000000000'", "1,3,4,5");
    SELECT("u IN ('00000000-0000-0000-0000-000000000001', 'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF')",
           "1,4");
    SELECT("bin = X'00FF'", "3");
    SELECT("bin < X'01'", "0,3,4");
    SELECT("bin = 'hello'", "1");
    SELECT("bin IN (X'', X'01')", "0,5");
    SELECT("b", "1,3");
    SELECT("NOT b", "0,4");
    SELECT("b = FALSE", "0,4");
    SELECT("b != TRUE", "0,4");
    SELECT("b IS NULL", "2,5");
    SELECT("b > FALSE", "1,3");
    SELECT("b IN (TRUE)", "1,3");
    SELECT("b NOT IN (TRUE)", "0,4");
    SELECT("tags IS NULL", "2,3");
    SELECT("tags IS NOT NULL", "0,1,4,5");
}

static void test_struct_fields(void **state)
{
    struct xt_fixture *f = *state;
    SELECT("st.x > 1", "1,4,5");
    SELECT("st.x IS NULL", "2,3");
    SELECT("st IS NULL", "2");
    SELECT("st IS NOT NULL", "0,1,3,4,5");
    /* A field under a null struct is null. */
    SELECT("st.in.z IS NULL", "1,2,3");
    SELECT("st.in IS NOT NULL", "0,3,4,5");
    SELECT("st.in.z >= 40", "4,5");
    SELECT("NOT st.in.z >= 40", "0");
    SELECT("st.y = 'a'", "0");
    SELECT("st.y IN ('b', 'c', 'e')", "1,3,5");
    SELECT("ST.Y = 'a'", "0");
    SELECT("\"st\".\"in\".\"z\" = 10", "0");
    SELECT("\"a-b\" = 2", "2");
}

static void test_three_valued_logic(void **state)
{
    struct xt_fixture *f = *state;
    SELECT("NOT (i8 = 5)", "0,1,4,5");
    SELECT("i8 = 5 OR i8 IS NULL", "2,3");
    SELECT("NOT (i8 = 5 OR b)", "0,4");
    SELECT("NOT (i8 = 5 AND b)", "0,1,4,5");
    SELECT("i8 IN (5, NULL)", "3");
    SELECT("i8 NOT IN (5, NULL)", "");
    SELECT("NOT i8 IN (5, NULL)", "");
    SELECT("i8 NOT IN (5)", "0,1,4,5");
    SELECT("NOT i8 NOT IN (5)", "3");
    SELECT("i8 IN (NULL)", "");
    SELECT("i8 BETWEEN -5 AND 5", "3,4,5");
    SELECT("NOT (i8 BETWEEN -5 AND 5)", "0,1");
    SELECT("i8 NOT BETWEEN -5 AND 5", "0,1");
    SELECT("i8 NOT BETWEEN 5 AND -5", "0,1,3,4,5");
    SELECT("i8 BETWEEN 5 AND -5", "");
    SELECT("i8 BETWEEN NULL AND 5", "");
    SELECT("i8 NOT BETWEEN NULL AND 0", "1,3");
    SELECT("i8 = NULL", "");
    SELECT("NOT (i8 = NULL)", "");
    SELECT("NULL = i8 OR id = 2", "2");
    SELECT("NULL IS NULL", "0,1,2,3,4,5");
    SELECT("NULL IS NOT NULL", "");
    SELECT("5 IS NULL", "");
    SELECT("NOT TRUE", "");
    SELECT("TRUE", "0,1,2,3,4,5");
    SELECT("NULL", "");
    SELECT("NOT NULL", "");
    SELECT("NOT NOT (i8 < 0)", "0,4");
    SELECT("NOT (NOT b OR i8 IS NULL)", "1,3");
    SELECT("(i8 < 0 OR i8 > 100) AND NOT (s = '' OR u8 = 0)", "1,4");
}

static void test_column_comparisons(void **state)
{
    struct xt_fixture *f = *state;
    SELECT("i8 < i16", "1,4");
    SELECT("l = u64", "3");
    SELECT("u64 > l", "0,1,4,5");
    SELECT("dec > i8", "0,1,4");
    SELECT("big >= dec", "1,4");
    SELECT("d > f", "0,1");
    SELECT("f = i8", "5");
    SELECT("f = d", "");
    SELECT("ts > dt", "0,1");
    SELECT("tsn = tss", "3,5");
    SELECT("tz >= ts", "0,1,3,4,5");
    SELECT("tm = tm", "0,1,3,4,5");
    SELECT("s < st.y", "0,1,3");
    SELECT("s = j", "");
    SELECT("b = b", "0,1,3,4");
    SELECT("NOT i8 < i16", "0,3,5");
    SELECT("i8 IN (i16, 0)", "3,5");
    SELECT("i8 NOT IN (i16, 0)", "0,1,4");
    SELECT("i8 BETWEEN i16 AND i", "3,5");
}

static void test_bind_errors(void **state)
{
    struct xt_fixture *f = *state;
    const struct lake_table *t = &f->tt.t;
    static const struct {
        const char *text, *want;
    } errors[] = {
        {"nosuch = 1", "at 1 ('nosuch'): no column 'nosuch'"},
        {"id = 1 AND st.nosuch = 1",
         "at 12 ('st.nosuch'): no column 'nosuch' in the struct before it"},
        {"tags.element = 1",
         "at 1 ('tags.element'): 'tags' is a list; a path names struct fields only"},
        {"st = 1", "at 1 ('st'): 'st' is a struct; compare one of its fields (a.b), or test "
                   "IS NULL"},
        {"tags IN (1)", "at 1 ('tags'): 'tags' is a list; compare it with IS NULL only"},
        {"i8 = 128", "at 6 ('128'): out of range for column 'i8' (int8)"},
        {"u8 = -1", "at 6 ('-1'): out of range for column 'u8' (uint8)"},
        {"u64 = 18446744073709551616",
         "at 7 ('18446744073709551616'): out of range for column 'u64' (uint64)"},
        {"l = 9223372036854775808",
         "at 5 ('9223372036854775808'): out of range for column 'l' (long)"},
        {"i = 1.5", "at 5 ('1.5'): not an integer for column 'i' (int)"},
        {"dec = 1.234", "at 7 ('1.234'): more than 2 fraction digits for column 'dec' (decimal)"},
        {"dec = 123456789", "at 7 ('123456789'): more than 10 digits for column 'dec' (decimal)"},
        {"big = 1e38", "at 7 ('1e38'): out of range for column 'big' (decimal)"},
        {"i8 = 'x'", "at 6 (''x''): expected an integer, not a string for column 'i8' (int8)"},
        {"f = 1e39", "at 5 ('1e39'): out of range for column 'f' (float)"},
        {"f = 'x'", "at 5 (''x''): expected a number, 'NaN', 'Infinity' or '-Infinity' for "
                    "column 'f' (float)"},
        {"dt = DATE '2023-02-29'",
         "at 6 ('DATE '2023-02-29''): expected a date YYYY-MM-DD for column 'dt' "
         "(date)"},
        {"dt = '2026-01-01 12:00'",
         "at 6 (''2026-01-01 12:00''): not midnight for column 'dt' (date)"},
        {"dt = '2026-01-01Z'",
         "at 6 (''2026-01-01Z''): a date has no time zone for column 'dt' (date)"},
        {"dt = TIME '12:00'",
         "at 6 ('TIME '12:00''): expected a DATE or a string, not a TIME for column "
         "'dt' (date)"},
        {"ts = '2026-01-01T00:00:00Z'",
         "at 6 (''2026-01-01T00:00:00Z''): a timestamp without time zone takes no "
         "offset for column 'ts' (timestamp)"},
        {"tss = '2026-01-01 00:00:00.5'",
         "at 7 (''2026-01-01 00:00:00.5''): finer than the column's unit for column "
         "'tss' (timestamp_s)"},
        {"tsn = '2300-01-01'",
         "at 7 (''2300-01-01''): out of range for column 'tsn' (timestamp_ns)"},
        {"ts = '2026-13-01'",
         "at 6 (''2026-13-01''): expected YYYY-MM-DD[ HH:MM[:SS[.fraction]]][offset] "
         "for column 'ts' (timestamp)"},
        {"tm = '24:00:00'",
         "at 6 (''24:00:00''): expected a time HH:MM[:SS[.fraction]] for column 'tm' "
         "(time)"},
        {"tm = '00:00:00.0000001'",
         "at 6 (''00:00:00.0000001''): finer than the column's unit for column 'tm' "
         "(time)"},
        {"u = 'xyz'", "at 5 (''xyz''): expected a uuid as 8-4-4-4-12 hex digits for column 'u' "
                      "(uuid)"},
        {"b = 1", "at 5 ('1'): expected TRUE or FALSE, not a number for column 'b' (boolean)"},
        {"s = 1", "at 5 ('1'): expected a string, not a number for column 's' (string)"},
        {"s = X'00'", "at 5 ('X'00''): expected a string, not a hex literal for column 's' "
                      "(string)"},
        {"1 = 1", "at 3 ('='): a comparison needs a column on one side"},
        {"i8 < s", "at 4 ('<'): cannot compare 'i8' (int8) with 's' (string)"},
        {"dt = tm", "at 4 ('='): cannot compare 'dt' (date) with 'tm' (time)"},
        {"i8", "at 1 ('i8'): 'i8' is a int8, not a boolean: compare it with a value"},
        {"5 OR b", "at 1 ('5'): expected a predicate, not a value"},
        {"5 IN (1)", "at 1 ('5'): IN needs a column on its left"},
        {"i8 IN (1, 'x')",
         "at 11 (''x''): expected an integer, not a string for column 'i8' (int8)"},
    };
    for (size_t k = 0; k < sizeof errors / sizeof *errors; k++)
        assert_string_equal(xt_bind_error(t, errors[k].text), errors[k].want);
}

/* The catalog keeps sibling names distinct when case is ignored, but a
 * loaded definition is not checked again: a name that folds onto two
 * columns is refused, an exact one still binds. */
static void test_ambiguous_names(void **state)
{
    (void)state;
    struct arena a;
    arena_init(&a, 0);
    struct lake_table t;
    lake_table_init(&t, &a);
    struct error err = {0};
    assert_int_equal(lake_table_load_column(&t, 1, 0, "Ab", LT_INT, 0, 0, true, 0, NULL, &err), 0);
    assert_int_equal(lake_table_load_column(&t, 2, 0, "aB", LT_INT, 0, 0, true, 1, NULL, &err), 0);
    assert_string_equal(xt_bind_error(&t, "ab = 1"),
                        "at 1 ('ab'): 'ab' matches 2 columns when case is ignored; quote the "
                        "exact name");
    struct expr_pred *p;
    assert_int_equal(expr_compile_predicate(&a, &t, "aB = 1", 6, &p, &err), 0);
    assert_int_equal(expr_pred_columns(p)->field_ids[0], 2);
    lake_table_release(&t);
    arena_free(&a);
}

static void test_columns_used(void **state)
{
    struct xt_fixture *f = *state;
    struct arena a;
    arena_init(&a, 0);
    struct expr_pred *p;
    struct error err = {0};
    const char *text = "s = 'x' OR st.in.z = 3 AND i8 > 1 OR st IS NULL OR i8 < 0 OR tags IS NULL";
    assert_int_equal(expr_compile_predicate(&a, &f->tt.t, text, strlen(text), &p, &err), 0);
    const struct expr_columns *c = expr_pred_columns(p);
    /* Top-level: i8 (1), s (20), st (25), tags (26). */
    assert_int_equal(c->ntop, 4);
    assert_int_equal(c->top[0], 1);
    assert_int_equal(c->top[1], 20);
    assert_int_equal(c->top[2], 25);
    assert_int_equal(c->top[3], 26);
    /* Leaves whose statistics count: i8, s, st.in.z (not the struct or list). */
    assert_int_equal(c->nfield_ids, 3);
    const struct lake_table *t = &f->tt.t;
    int64_t want[3] = {t->root.children[1]->field_id, t->root.children[20]->field_id,
                       t->root.children[25]->children[2]->children[0]->field_id};
    for (int k = 0; k < 3; k++)
        for (int j = k + 1; j < 3; j++)
            if (want[j] < want[k]) {
                int64_t x = want[j];
                want[j] = want[k];
                want[k] = x;
            }
    for (int k = 0; k < 3; k++)
        assert_int_equal(c->field_ids[k], want[k]);
    arena_free(&a);
}

static void test_batch_mismatch(void **state)
{
    struct xt_fixture *f = *state;
    struct arena a;
    arena_init(&a, 0);
    struct expr_pred *p;
    struct error err = {0};
    const char *text = "st.x = 1";
    assert_int_equal(expr_compile_predicate(&a, &f->tt.t, text, strlen(text), &p, &err), 0);
    uint8_t sel[8];
    /* The struct column's child reads as the wrong type. */
    struct ArrowSchema *x = f->schema.children[25]->children[0];
    char *saved = (char *)x->format;
    x->format = "l";
    assert_int_equal(expr_pred_eval(p, &f->schema, &f->batch, sel, NULL, &err), -1);
    assert_int_equal(err.code, ERR_INVALID);
    assert_string_equal(err.msg,
                        "column 'st.x' (int): the batch array's format does not fit ('l')");
    x->format = saved;
    /* A batch with fewer columns. */
    int64_t n = f->schema.n_children;
    f->schema.n_children = 20;
    assert_int_equal(expr_pred_eval(p, &f->schema, &f->batch, sel, NULL, &err), -1);
    assert_string_equal(err.msg, "column 'st.x' (int): the batch has no such column ('+s')");
    f->schema.n_children = n;
    arena_free(&a);
}

/* A variable-size column with 64-bit offsets ("U", "Z"). */
static void col_large(struct ArrowSchema *s, struct ArrowArray *a, const char *name,
                      const char *format, const char *const *values, int64_t n)
{
    assert_int_equal(arrow_schema_init(s, format, name, ARROW_FLAG_NULLABLE, 0), 0);
    assert_int_equal(arrow_array_init(a, 3, 0), 0);
    a->length = n;
    uint8_t *valid = calloc(1, 1);
    int64_t *off = calloc((size_t)n + 1, sizeof *off);
    struct buf data = BUF_INIT;
    assert_non_null(valid);
    assert_non_null(off);
    for (int64_t i = 0; i < n; i++) {
        if (values[i]) {
            arrow_set_bit(valid, i, true);
            buf_puts(&data, values[i]);
        } else {
            a->null_count++;
        }
        off[i + 1] = (int64_t)data.len;
    }
    arrow_array_own_buffer(a, 0, valid);
    arrow_array_own_buffer(a, 1, off);
    char *bytes = buf_take(&data);
    arrow_array_own_buffer(a, 2, bytes ? bytes : calloc(1, 1));
}

/* The other formats the writer takes: large strings and binary, a
 * timestamptz in another zone (values are UTC), a decimal of smaller
 * precision with the 128-bit suffix. */
static void test_writer_formats(void **state)
{
    (void)state;
    struct test_table tt;
    test_table_init(&tt,
                    "[{'name':'s','type':'string'},{'name':'bin','type':'binary'},"
                    "{'name':'tz','type':'timestamptz'},"
                    "{'name':'dec','type':'decimal','type_params':{'precision':10,'scale':2}}]");
    static const char *const strings[] = {"abc", NULL, "", "zz"};
    static const char *const bins[] = {"\x01", "hi", NULL, ""};
    static const int64_t micros[] = {0, 1767225600000000, -1, 5};
    static const __int128 cents[] = {150, -1, 0, 99999};
    static const bool all[] = {true, true, true, false};
    struct ArrowSchema cols[4];
    struct ArrowArray arrays[4];
    col_large(&cols[0], &arrays[0], "s", "U", strings, 4);
    col_large(&cols[1], &arrays[1], "bin", "Z", bins, 4);
    col_fixed(&cols[2], &arrays[2], "tz", "tsu:Europe/Paris", micros, 8, 4, NULL);
    col_fixed(&cols[3], &arrays[3], "dec", "d:9,2,128", cents, 16, 4, all);
    struct ArrowSchema schema;
    struct ArrowArray batch;
    batch_of(&schema, &batch, cols, arrays, 4, 4);
    assert_string_equal(xt_select(&tt.t, "s >= 'abc'", &schema, &batch), "0,3");
    assert_string_equal(xt_select(&tt.t, "s = ''", &schema, &batch), "2");
    assert_string_equal(xt_select(&tt.t, "s IN ('zz', 'abc')", &schema, &batch), "0,3");
    assert_string_equal(xt_select(&tt.t, "s IS NULL", &schema, &batch), "1");
    assert_string_equal(xt_select(&tt.t, "bin = 'hi'", &schema, &batch), "1");
    assert_string_equal(xt_select(&tt.t, "bin < X'02'", &schema, &batch), "0,3");
    assert_string_equal(xt_select(&tt.t, "tz = '2026-01-01T01:00:00+01:00'", &schema, &batch), "1");
    assert_string_equal(xt_select(&tt.t, "tz < '1970-01-01'", &schema, &batch), "2");
    assert_string_equal(xt_select(&tt.t, "dec > 0", &schema, &batch), "0");
    assert_string_equal(xt_select(&tt.t, "dec IS NULL", &schema, &batch), "3");
    /* An update keeps the rows it does not assign, in the writer's "u". */
    struct arena a;
    arena_init(&a, 0);
    struct expr_update *u;
    struct error err;
    assert_int_equal(expr_compile_assignments(&a, &tt.t, "s = 'new'", 9, &u, &err), 0);
    const uint8_t assigned[4] = {0, 1, 0, 1};
    struct ArrowArray out;
    assert_int_equal(expr_update_eval(u, 0, &schema, &batch, assigned, &out, &err), 0);
    const int32_t *off = out.buffers[1];
    const char *data = out.buffers[2];
    assert_int_equal(off[4], 9);
    assert_memory_equal(data, "abcnewnew", 9);
    assert_int_equal(off[3] - off[2], 0);
    assert_int_equal(out.null_count, 0);
    out.release(&out);
    arena_free(&a);
    schema.release(&schema);
    batch.release(&batch);
    test_table_release(&tt);
}

/* Larger than a chunk: every chunk boundary, AND/OR short cuts. */
static void test_many_rows(void **state)
{
    (void)state;
    struct test_table tt;
    test_table_init(&tt, "[{'name':'v','type':'long'},{'name':'s','type':'string'}]");
    struct buf text = BUF_INIT;
    const int n = 10000;
    for (int r = 0; r < n; r++) {
        if (r % 7 == 0)
            buf_printf(&text, "{'v':null,'s':'s%d'}\n", r % 100);
        else
            buf_printf(&text, "{'v':%d,'s':'s%d'}\n", r, r % 100);
    }
    struct ArrowSchema schema;
    struct ArrowArray batch;
    xt_batch(&tt.t, text.data, &schema, &batch);
    struct arena a;
    arena_init(&a, 0);
    struct error err;
    static const char *const preds[] = {
        "v >= 4000 AND v < 8200 AND s IN ('s1', 's2', 's50')",
        "v < 10 OR v > 9990 OR s = 's77'",
        "NOT (v BETWEEN 100 AND 9000) AND v IS NOT NULL",
        "v IS NULL OR v IN (1, 2, 3, 4096, 4097, 8191, 8192)",
    };
    for (size_t k = 0; k < sizeof preds / sizeof *preds; k++) {
        struct expr_pred *p;
        assert_int_equal(expr_compile_predicate(&a, &tt.t, preds[k], strlen(preds[k]), &p, &err),
                         0);
        uint8_t *sel = malloc((size_t)n);
        int64_t count;
        assert_int_equal(expr_pred_eval(p, &schema, &batch, sel, &count, &err), 0);
        int64_t want = 0;
        for (int r = 0; r < n; r++) {
            bool null = r % 7 == 0;
            int s = r % 100;
            bool m;
            switch (k) {
            case 0: m = !null && r >= 4000 && r < 8200 && (s == 1 || s == 2 || s == 50); break;
            case 1: m = (!null && (r < 10 || r > 9990)) || s == 77; break;
            case 2: m = !null && (r < 100 || r > 9000); break;
            default:
                m = null || r == 1 || r == 2 || r == 3 || r == 4096 || r == 4097 || r == 8191 ||
                    r == 8192;
                break;
            }
            if (sel[r] != m)
                fail_msg("predicate %zu row %d: %d", k, r, sel[r]);
            want += m;
        }
        assert_int_equal(count, want);
        free(sel);
    }
    arena_free(&a);
    schema.release(&schema);
    batch.release(&batch);
    buf_free(&text);
    test_table_release(&tt);
}

#define VARIANTS(fn)                                                                               \
    cmocka_unit_test_setup_teardown(fn, setup_plain, teardown),                                    \
        cmocka_unit_test_setup_teardown(fn, setup_offsets, teardown),                              \
        cmocka_unit_test_setup_teardown(fn, setup_deep_offsets, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        VARIANTS(test_integers),
        VARIANTS(test_floats),
        VARIANTS(test_decimals),
        VARIANTS(test_temporals),
        VARIANTS(test_bytes_and_booleans),
        VARIANTS(test_struct_fields),
        VARIANTS(test_three_valued_logic),
        VARIANTS(test_column_comparisons),
        cmocka_unit_test_setup_teardown(test_bind_errors, setup_plain, teardown),
        cmocka_unit_test_setup_teardown(test_columns_used, setup_plain, teardown),
        cmocka_unit_test(test_ambiguous_names),
        cmocka_unit_test_setup_teardown(test_batch_mismatch, setup_plain, teardown),
        cmocka_unit_test(test_writer_formats),
        cmocka_unit_test(test_many_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
