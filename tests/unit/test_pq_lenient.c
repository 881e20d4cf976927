/* Files other readers (DuckDB among them) read that a strict reading of
 * the format refuses, each read deliberately, and the files next to each
 * that the same leniency would read wrong, still refused (issue 14):
 *
 *   - INT96 timestamps outside the nanosecond range (Spark: year 9999, BC
 *     dates) read as microseconds;
 *   - parquet-mr before 1.2.9: a dictionary page without
 *     dictionary_page_offset, its header left out of total_compressed_size;
 *   - an old parquet-rs: a footer num_rows of 0 over row groups that hold
 *     rows;
 *   - data pages v2 carrying bit-width-0 repetition levels on a flat column;
 *   - a 0-row file whose chunks' offsets point inside the leading magic.
 *
 * Each file is put together byte for byte (fuzz/pq_shapes.h). With
 * HL_WRITE_LENIENT_DIR set, each is also written there as NAME.parquet, to
 * look at with another reader: the values hard-coded below as DuckDB's
 * were confirmed by running tests/interop/duckdb_query.mjs on those files
 * by hand (DuckDB 1.x through @duckdb/node-api). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "parquet/encoding.h"
#include "parquet/meta.h"
#include "parquet/reader.h"
#include "pq_shapes.h"
#include "util/arrow.h"

/* ---- helpers ---- */

static void save(const char *name, const struct buf *file)
{
    const char *dir = getenv("HL_WRITE_LENIENT_DIR");
    if (!dir || !*dir)
        return;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.parquet", dir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(file->data, 1, file->len, f), file->len);
    assert_int_equal(fclose(f), 0);
}

static void put_u32(struct buf *b, uint32_t v)
{
    assert_int_equal(buf_append(b, &v, 4), 0);
}

/* A whole read: the schema and every row group. */
struct read {
    struct pq_reader *r;
    struct ArrowSchema schema;
    struct ArrowArray groups[CRAFT_MAX_GROUPS];
    size_t ngroups;
};

/* Opens and reads the file (with `unit` asked for INT96 when not 0);
 * returns the error code, err filled when it is not ERR_OK. */
static enum error_code read_all(const struct buf *file, enum pq_time_unit unit, struct read *out,
                                struct error *err)
{
    memset(out, 0, sizeof *out);
    struct pq_source src;
    pq_source_memory(&src, file->data, file->len);
    if (pq_reader_open(&src, &out->r, err) != 0)
        return err->code;
    if (unit && pq_reader_set_int96_unit(out->r, unit, err) != 0)
        return err->code;
    if (pq_reader_arrow_schema(out->r, &out->schema, err) != 0)
        return err->code;
    size_t n = pq_reader_meta(out->r)->nrow_groups;
    assert_true(n <= CRAFT_MAX_GROUPS);
    for (size_t g = 0; g < n; g++) {
        if (pq_reader_read_row_group(out->r, g, &out->groups[g], err) != 0)
            return err->code;
        out->ngroups++;
    }
    return ERR_OK;
}

static void read_free(struct read *rd)
{
    for (size_t g = 0; g < rd->ngroups; g++)
        rd->groups[g].release(&rd->groups[g]);
    if (rd->schema.release)
        rd->schema.release(&rd->schema);
    pq_reader_free(rd->r);
}

/* Reads the file, expecting code `want` and (when not NULL) msg_part in
 * the message. */
static void expect_refused(const struct buf *file, enum pq_time_unit unit, enum error_code want,
                           const char *msg_part)
{
    struct read rd;
    struct error err = {0};
    enum error_code code = read_all(file, unit, &rd, &err);
    read_free(&rd);
    if (code != want || (msg_part && !strstr(err.msg, msg_part)))
        fail_msg("code %d '%s', expected %d with '%s'", (int)code, err.msg, (int)want,
                 msg_part ? msg_part : "");
}

static void expect_read(const struct buf *file, enum pq_time_unit unit, struct read *rd)
{
    struct error err = {0};
    if (read_all(file, unit, rd, &err) != ERR_OK)
        fail_msg("read: %s", err.msg);
}

static int64_t i64_at(const struct ArrowArray *a, int64_t i)
{
    int64_t v;
    memcpy(&v, (const uint8_t *)a->buffers[1] + 8 * i, 8);
    return v;
}

static int32_t i32_at(const struct ArrowArray *a, int64_t i)
{
    int32_t v;
    memcpy(&v, (const uint8_t *)a->buffers[1] + 4 * i, 4);
    return v;
}

static const char *str_at(const struct ArrowArray *a, int64_t i, char *out, size_t size)
{
    const int32_t *off = a->buffers[1];
    int n = off[i + 1] - off[i];
    snprintf(out, size, "%.*s", n, (const char *)a->buffers[2] + off[i]);
    return out;
}

/* ---- 1. INT96 outside the nanosecond range ---- */

enum { UNIX_EPOCH_JD = 2440588 };
#define NS_PER_DAY (86400LL * 1000000000LL)
#define US_PER_DAY (86400LL * 1000000LL)

struct int96 {
    int32_t days; /* since 1970-01-01 */
    int64_t nanos_of_day;
};

/* 2024-01-01 00:00:00.123456789; 9999-12-31 23:59:59.999999999 (Spark's
 * "max"); 0002-01-01 BC 00:00:00.000000500 (proleptic Gregorian,
 * astronomical year -1). */
static const struct int96 in_range = {19723, 123456789};
static const struct int96 year_9999 = {2932896, NS_PER_DAY - 1};
static const struct int96 year_1_bc = {-719893, 500};

static void put_int96(struct buf *v, struct int96 t)
{
    assert_int_equal(buf_append(v, &t.nanos_of_day, 8), 0);
    int32_t jd = t.days + UNIX_EPOCH_JD;
    assert_int_equal(buf_append(v, &jd, 4), 0);
}

/* One optional INT96 column "ts" per row group; group g holds rows[g]
 * (ngroups 1 or 2), PLAIN, the last row of each null. */
static void int96_file(struct buf *out, const struct int96 *const *rows, const size_t *nrows,
                       size_t ngroups)
{
    static struct pq_schema_element el[2];
    el[0] = pq_el_root(1);
    el[1] = pq_el_leaf("ts", PQ_OPTIONAL, PQ_INT96);
    static const char *const path[] = {"ts"};
    struct pq_craft c;
    pq_craft_begin(&c, out, PQ_UNCOMPRESSED, el, 2);
    for (size_t g = 0; g < ngroups; g++) {
        size_t n = nrows[g] + 1;
        pq_craft_group(&c, (int64_t)n);
        pq_craft_column(&c, path, 1, PQ_INT96, 1, 0);
        struct buf v = BUF_INIT;
        uint16_t def[8] = {0};
        assert_true(n <= 8);
        for (size_t i = 0; i < nrows[g]; i++) {
            put_int96(&v, rows[g][i]);
            def[i] = 1;
        }
        pq_craft_v1(&c, PQ_ENC_PLAIN, n, NULL, def, false, &v);
        pq_craft_column_end(&c, (int64_t)n);
        buf_free(&v);
    }
    pq_craft_finish(&c, NULL, NULL);
}

static int64_t micros_of(struct int96 t)
{
    return t.days * US_PER_DAY + t.nanos_of_day / 1000;
}

static void test_int96_past_nanoseconds_reads_as_micros(void **state)
{
    (void)state;
    const struct int96 rows[] = {in_range, year_9999, year_1_bc};
    const struct int96 *groups[] = {rows};
    size_t n[] = {3};
    struct buf file = BUF_INIT;
    int96_file(&file, groups, n, 1);
    save("int96_year_9999", &file);
    struct read rd;
    expect_read(&file, 0, &rd);
    assert_string_equal(rd.schema.children[0]->format, "tsu:");
    const struct ArrowArray *a = rd.groups[0].children[0];
    assert_int_equal(a->length, 4);
    assert_int_equal(a->null_count, 1);
    /* DuckDB reads this file as TIMESTAMP 2024-01-01 00:00:00.123456,
     * 9999-12-31 23:59:59.999999, 0002-01-01 (BC) 00:00:00, NULL, whose
     * epoch_us are these (below a microsecond dropped). */
    assert_int_equal(i64_at(a, 0), 1704067200123456LL);
    assert_int_equal(i64_at(a, 1), 253402300799999999LL);
    assert_int_equal(i64_at(a, 2), -62198755200000000LL);
    for (int i = 0; i < 3; i++)
        assert_int_equal(i64_at(a, i), micros_of(rows[i]));
    assert_false(arrow_bit(a->buffers[0], 3));
    read_free(&rd);

    /* Asked for microseconds or milliseconds, the caller gets them. */
    expect_read(&file, PQ_MILLIS, &rd);
    assert_string_equal(rd.schema.children[0]->format, "tsm:");
    assert_int_equal(i64_at(rd.groups[0].children[0], 1), 253402300799999LL);
    read_free(&rd);
    /* Asked for nanoseconds, the caller gets them or nothing: never a
     * wrapped value. */
    expect_refused(&file, PQ_NANOS, ERR_UNSUPPORTED, "outside the nanosecond range");
    buf_free(&file);
}

static void test_int96_in_range_stays_nanoseconds(void **state)
{
    (void)state;
    const struct int96 rows[] = {in_range};
    const struct int96 *groups[] = {rows};
    size_t n[] = {1};
    struct buf file = BUF_INIT;
    int96_file(&file, groups, n, 1);
    save("int96_in_range", &file);
    struct read rd;
    expect_read(&file, 0, &rd);
    assert_string_equal(rd.schema.children[0]->format, "tsn:");
    assert_int_equal(i64_at(rd.groups[0].children[0], 0),
                     in_range.days * NS_PER_DAY + in_range.nanos_of_day);
    read_free(&rd);
    expect_read(&file, PQ_MICROS, &rd);
    assert_string_equal(rd.schema.children[0]->format, "tsu:");
    assert_int_equal(i64_at(rd.groups[0].children[0], 0), micros_of(in_range));
    read_free(&rd);
    buf_free(&file);
}

/* The unit is the file's, not a row group's: a year-9999 value in the
 * second row group makes the first one microseconds too. */
static void test_int96_unit_holds_for_the_file(void **state)
{
    (void)state;
    const struct int96 g0[] = {in_range}, g1[] = {year_9999};
    const struct int96 *groups[] = {g0, g1};
    size_t n[] = {1, 1};
    struct buf file = BUF_INIT;
    int96_file(&file, groups, n, 2);
    struct read rd;
    expect_read(&file, 0, &rd);
    assert_string_equal(rd.schema.children[0]->format, "tsu:");
    assert_int_equal(i64_at(rd.groups[0].children[0], 0), micros_of(in_range));
    assert_int_equal(i64_at(rd.groups[1].children[0], 0), micros_of(year_9999));
    read_free(&rd);

    /* The stream's schema says the same before any row group is read. */
    struct pq_source src;
    pq_source_memory(&src, file.data, file.len);
    struct pq_reader *r;
    struct error err;
    assert_int_equal(pq_reader_open(&src, &r, &err), 0);
    struct ArrowArrayStream s;
    assert_int_equal(pq_reader_stream(r, &s, &err), 0);
    struct ArrowSchema schema;
    assert_int_equal(s.get_schema(&s, &schema), 0);
    assert_string_equal(schema.children[0]->format, "tsu:");
    schema.release(&schema);
    s.release(&s);
    buf_free(&file);
}

/* Past even the microsecond range (a Julian day near 2^31) there is no
 * unit to read it in: refused. */
static void test_int96_past_microseconds_refused(void **state)
{
    (void)state;
    const struct int96 rows[] = {{INT32_MAX - UNIX_EPOCH_JD, 0}};
    const struct int96 *groups[] = {rows};
    size_t n[] = {1};
    struct buf file = BUF_INIT;
    int96_file(&file, groups, n, 1);
    expect_refused(&file, 0, ERR_UNSUPPORTED, "outside the microsecond range");
    /* Milliseconds reach that far; a caller asking for them gets it. */
    struct read rd;
    expect_read(&file, PQ_MILLIS, &rd);
    assert_int_equal(i64_at(rd.groups[0].children[0], 0), rows[0].days * 86400000LL);
    read_free(&rd);
    buf_free(&file);
}

/* ---- 2. a dictionary page without dictionary_page_offset ---- */

/* How the file's dictionary chunk is described in its footer. */
enum dict_meta {
    DM_AS_WRITTEN,           /* dictionary_page_offset set, sizes right */
    DM_PARQUET_MR_128,       /* no dictionary offset, size short by the header */
    DM_NO_OFFSET_SIZE_RIGHT, /* no dictionary offset, size right */
    DM_SHORT_BY_LESS,        /* no offset, short by less than the header */
    DM_SHORT_BY_MORE,        /* no offset, short by more than the header */
    DM_OFFSET_SET_SHORT,     /* dictionary_page_offset set, short by the header */
};

struct dict_edit {
    enum dict_meta how;
    const struct buf *file;
};

static void edit_dict_chunk(struct pq_file_meta *m, void *arg)
{
    const struct dict_edit *e = arg;
    struct pq_column_meta *cm = &m->row_groups[0].columns[1].meta;
    assert_true(cm->has_dictionary_page_offset);
    struct pq_page_header h;
    size_t hl;
    struct error err;
    size_t at = (size_t)cm->dictionary_page_offset;
    assert_int_equal(
        pq_decode_page_header(e->file->data + at, e->file->len - at, NULL, &h, &hl, &err), 0);
    int64_t header = (int64_t)hl;
    switch (e->how) {
    case DM_AS_WRITTEN: return;
    case DM_OFFSET_SET_SHORT: cm->total_compressed_size -= header; return;
    case DM_PARQUET_MR_128: cm->total_compressed_size -= header; break;
    case DM_NO_OFFSET_SIZE_RIGHT: break;
    case DM_SHORT_BY_LESS: cm->total_compressed_size -= header - 1; break;
    case DM_SHORT_BY_MORE: cm->total_compressed_size -= header + 1; break;
    }
    /* parquet-mr 1.2.8: the chunk's first page (the dictionary) is its
     * "data page", and no dictionary offset is written. */
    cm->data_page_offset = cm->dictionary_page_offset;
    cm->has_dictionary_page_offset = false;
    cm->dictionary_page_offset = 0;
}

/* 4 rows: a required INT64 "a", then a required string "s" from a
 * dictionary of 2 (the chunk under test), then an INT32 "z" after it, so
 * that bytes read past "s" are another chunk's. */
static void dict_file(struct buf *out, enum dict_meta how)
{
    static struct pq_schema_element el[4];
    el[0] = pq_el_root(3);
    el[1] = pq_el_leaf("a", PQ_REQUIRED, PQ_INT64);
    el[2] = pq_el_leaf("s", PQ_REQUIRED, PQ_BYTE_ARRAY);
    el[2].logical.kind = PQ_LT_STRING;
    el[3] = pq_el_leaf("z", PQ_REQUIRED, PQ_INT32);
    static const char *const pa[] = {"a"}, *const ps[] = {"s"}, *const pz[] = {"z"};
    struct pq_craft c;
    pq_craft_begin(&c, out, PQ_UNCOMPRESSED, el, 4);
    pq_craft_group(&c, 4);
    pq_craft_column(&c, pa, 1, PQ_INT64, 0, 0);
    struct buf v = BUF_INIT;
    for (int64_t i = 1; i <= 4; i++)
        assert_int_equal(buf_append(&v, &i, 8), 0);
    pq_craft_v1(&c, PQ_ENC_PLAIN, 4, NULL, NULL, false, &v);
    pq_craft_column_end(&c, 4);
    buf_reset(&v);
    pq_craft_column(&c, ps, 1, PQ_BYTE_ARRAY, 0, 0);
    put_u32(&v, 5);
    assert_int_equal(buf_append(&v, "hello", 5), 0);
    put_u32(&v, 5);
    assert_int_equal(buf_append(&v, "world", 5), 0);
    pq_craft_dict(&c, 2, &v);
    buf_reset(&v);
    assert_int_equal(buf_putc(&v, 1), 0); /* bit width */
    static const uint32_t idx[] = {0, 1, 1, 0};
    assert_int_equal(pq_rle_encode_u32(idx, 4, 1, &v), 0);
    pq_craft_v1(&c, PQ_ENC_RLE_DICTIONARY, 4, NULL, NULL, false, &v);
    pq_craft_column_end(&c, 4);
    buf_reset(&v);
    pq_craft_column(&c, pz, 1, PQ_INT32, 0, 0);
    for (int32_t i = 7; i <= 10; i++)
        assert_int_equal(buf_append(&v, &i, 4), 0);
    pq_craft_v1(&c, PQ_ENC_PLAIN, 4, NULL, NULL, false, &v);
    pq_craft_column_end(&c, 4);
    buf_free(&v);
    struct dict_edit e = {how, out};
    pq_craft_finish(&c, edit_dict_chunk, &e);
}

static void expect_dict_values(const struct buf *file)
{
    struct read rd;
    expect_read(file, 0, &rd);
    /* DuckDB reads the parquet-mr 1.2.8 file as (1, hello, 7), (2, world,
     * 8), (3, world, 9), (4, hello, 10). */
    static const char *const want[] = {"hello", "world", "world", "hello"};
    char s[16];
    for (int i = 0; i < 4; i++) {
        assert_int_equal(i64_at(rd.groups[0].children[0], i), i + 1);
        assert_string_equal(str_at(rd.groups[0].children[1], i, s, sizeof s), want[i]);
        assert_int_equal(i32_at(rd.groups[0].children[2], i), i + 7);
    }
    read_free(&rd);
}

static void test_dictionary_header_left_out_of_size(void **state)
{
    (void)state;
    struct buf file = BUF_INIT;
    dict_file(&file, DM_AS_WRITTEN);
    expect_dict_values(&file);
    buf_reset(&file);
    dict_file(&file, DM_PARQUET_MR_128);
    save("dict_no_offset_short_size", &file);
    expect_dict_values(&file);
    /* Without the offset but with the right size (writers that simply
     * leave the optional field out) reads as before. */
    buf_reset(&file);
    dict_file(&file, DM_NO_OFFSET_SIZE_RIGHT);
    expect_dict_values(&file);
    buf_free(&file);
}

static void test_dictionary_size_otherwise_wrong_refused(void **state)
{
    (void)state;
    struct buf file = BUF_INIT;
    /* Short by anything but the dictionary's header: the pages end inside
     * the next chunk, or past what was read. */
    dict_file(&file, DM_SHORT_BY_LESS);
    expect_refused(&file, 0, ERR_CORRUPT, "does not explain");
    buf_reset(&file);
    dict_file(&file, DM_SHORT_BY_MORE);
    expect_refused(&file, 0, ERR_CORRUPT, "runs past its chunk");
    /* The writer that sets dictionary_page_offset has no such bug: a size
     * short there is corrupt as ever. */
    buf_reset(&file);
    dict_file(&file, DM_OFFSET_SET_SHORT);
    expect_refused(&file, 0, ERR_CORRUPT, NULL);
    buf_free(&file);
}

/* ---- 3. a footer num_rows of 0 ---- */

struct rows_edit {
    int64_t num_rows;
    bool set_group;
    int64_t group_rows;
};

static void edit_rows(struct pq_file_meta *m, void *arg)
{
    const struct rows_edit *e = arg;
    m->num_rows = e->num_rows;
    if (e->set_group)
        m->row_groups[0].num_rows = e->group_rows;
}

/* One required INT32 "x" of 4 rows, 1..4, through edit. */
static void rows_file(struct buf *out, const struct rows_edit *e)
{
    static struct pq_schema_element el[2];
    el[0] = pq_el_root(1);
    el[1] = pq_el_leaf("x", PQ_REQUIRED, PQ_INT32);
    static const char *const px[] = {"x"};
    struct pq_craft c;
    pq_craft_begin(&c, out, PQ_UNCOMPRESSED, el, 2);
    pq_craft_group(&c, 4);
    pq_craft_column(&c, px, 1, PQ_INT32, 0, 0);
    struct buf v = BUF_INIT;
    for (int32_t i = 1; i <= 4; i++)
        assert_int_equal(buf_append(&v, &i, 4), 0);
    pq_craft_v1(&c, PQ_ENC_PLAIN, 4, NULL, NULL, false, &v);
    pq_craft_column_end(&c, 4);
    buf_free(&v);
    pq_craft_finish(&c, edit_rows, (void *)e);
}

static void test_footer_rows_zero_trusts_row_groups(void **state)
{
    (void)state;
    struct buf file = BUF_INIT;
    rows_file(&file, &(struct rows_edit){0, false, 0});
    save("footer_num_rows_zero", &file);
    struct read rd;
    expect_read(&file, 0, &rd);
    /* DuckDB reads 4 rows, 1 to 4 (count(*) = 4). */
    assert_int_equal(pq_reader_meta(rd.r)->num_rows, 4);
    assert_int_equal(rd.groups[0].length, 4);
    for (int i = 0; i < 4; i++)
        assert_int_equal(i32_at(rd.groups[0].children[0], i), i + 1);
    int64_t rows = 0;
    struct arena a;
    arena_init(&a, 0);
    struct pq_file_meta m;
    uint32_t flen;
    struct error err;
    assert_int_equal(pq_parse_footer_tail(file.data + file.len - 8 - pq_reader_footer_size(rd.r),
                                          pq_reader_footer_size(rd.r) + 8, &a, &m, &flen, &err),
                     0);
    assert_true(pq_meta_rows_only_in_groups(&m, &rows));
    assert_int_equal(rows, 4);
    arena_free(&a);
    read_free(&rd);
    buf_free(&file);
}

static void test_footer_rows_otherwise_wrong_refused(void **state)
{
    (void)state;
    struct buf file = BUF_INIT;
    /* A count that is not 0 and not the groups' sum: no writer bug says
     * which to believe. */
    rows_file(&file, &(struct rows_edit){3, false, 0});
    expect_refused(&file, 0, ERR_CORRUPT, "row counts");
    /* 0 over row groups that hold 0 is simply right; 0 over a negative
     * group count is corrupt. */
    buf_reset(&file);
    rows_file(&file, &(struct rows_edit){0, true, -4});
    expect_refused(&file, 0, ERR_CORRUPT, "row counts");
    buf_free(&file);
}

/* ---- 4. repetition levels on a flat column in data pages v2 ---- */

/* A required INT32 "x" of 4 rows in one data page v2 whose repetition
 * level section holds rep[0..nrep). With opt, "y" is optional beside it
 * (rows 2 null) with the same repetition section. */
static void v2_rep_file(struct buf *out, const uint8_t *rep, size_t nrep)
{
    static struct pq_schema_element el[3];
    el[0] = pq_el_root(2);
    el[1] = pq_el_leaf("x", PQ_REQUIRED, PQ_INT32);
    el[2] = pq_el_leaf("y", PQ_OPTIONAL, PQ_INT32);
    static const char *const px[] = {"x"}, *const py[] = {"y"};
    struct pq_craft c;
    pq_craft_begin(&c, out, PQ_UNCOMPRESSED, el, 3);
    pq_craft_group(&c, 4);
    for (int col = 0; col < 2; col++) {
        pq_craft_column(&c, col ? py : px, 1, PQ_INT32, (int16_t)col, 0);
        struct buf body = BUF_INIT, def = BUF_INIT;
        assert_int_equal(buf_append(&body, rep, nrep), 0);
        if (col) {
            static const uint16_t d[] = {1, 1, 0, 1};
            assert_int_equal(pq_rle_encode_u16(d, 4, 1, &def), 0);
            assert_int_equal(buf_append(&body, def.data, def.len), 0);
        }
        for (int32_t i = 1; i <= 4; i++)
            if (!(col && i == 3))
                assert_int_equal(buf_append(&body, &i, 4), 0);
        struct pq_page_header h = {.type = PQ_DATA_PAGE_V2,
                                   .uncompressed_size = (int32_t)body.len,
                                   .compressed_size = (int32_t)body.len,
                                   .num_values = 4,
                                   .num_nulls = col,
                                   .num_rows = 4,
                                   .encoding = PQ_ENC_PLAIN,
                                   .def_levels_len = (int32_t)def.len,
                                   .rep_levels_len = (int32_t)nrep,
                                   .is_compressed = false};
        pq_craft_page(&c, &h, body.data, body.len);
        pq_craft_column_end(&c, 4);
        buf_free(&body);
        buf_free(&def);
    }
    pq_craft_finish(&c, NULL, NULL);
}

static void test_v2_zero_width_repetition_levels_skipped(void **state)
{
    (void)state;
    /* An RLE run of 4 zeros at bit width 0: a header, no value byte. */
    static const uint8_t rle_run[] = {4 << 1};
    /* One bit-packed group of 8 at bit width 0 (4 of them wanted). */
    static const uint8_t packed[] = {1 << 1 | 1};
    /* Two runs, 1 + 3. */
    static const uint8_t two_runs[] = {1 << 1, 3 << 1};
    const struct {
        const char *name;
        const uint8_t *rep;
        size_t n;
    } cases[] = {{"v2_flat_rep_levels", rle_run, 1}, {NULL, packed, 1}, {NULL, two_runs, 2}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        struct buf file = BUF_INIT;
        v2_rep_file(&file, cases[k].rep, cases[k].n);
        if (cases[k].name)
            save(cases[k].name, &file);
        struct read rd;
        expect_read(&file, 0, &rd);
        /* DuckDB reads x = 1, 2, 3, 4 and y = 1, 2, NULL, 4. */
        const struct ArrowArray *x = rd.groups[0].children[0], *y = rd.groups[0].children[1];
        for (int i = 0; i < 4; i++)
            assert_int_equal(i32_at(x, i), i + 1);
        assert_int_equal(y->null_count, 1);
        assert_false(arrow_bit(y->buffers[0], 2));
        assert_int_equal(i32_at(y, 0), 1);
        assert_int_equal(i32_at(y, 1), 2);
        assert_int_equal(i32_at(y, 3), 4);
        read_free(&rd);
        buf_free(&file);
    }
}

static void test_v2_other_repetition_levels_refused(void **state)
{
    (void)state;
    static const uint8_t too_few[] = {3 << 1};        /* 3 levels for 4 */
    static const uint8_t too_many[] = {5 << 1};       /* 5 levels for 4 */
    static const uint8_t with_value[] = {4 << 1, 1};  /* a value byte: bit width 1 */
    static const uint8_t truncated[] = {0x80};        /* a varint cut short */
    static const uint8_t two_groups[] = {2 << 1 | 1}; /* 16 packed levels for 4 */
    static const uint8_t empty_run[] = {0, 4 << 1};   /* a run of 0 */
    const struct {
        const uint8_t *rep;
        size_t n;
    } cases[] = {{too_few, 1},   {too_many, 1},   {with_value, 2},
                 {truncated, 1}, {two_groups, 1}, {empty_run, 2}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        struct buf file = BUF_INIT;
        v2_rep_file(&file, cases[k].rep, cases[k].n);
        expect_refused(&file, 0, ERR_CORRUPT, "repetition levels on a flat column");
        buf_free(&file);
    }
}

/* ---- 5. a 0-row file with offsets inside the magic ---- */

struct empty_edit {
    int64_t offset, size, dict_offset; /* dict_offset < 0: absent */
};

static void edit_empty(struct pq_file_meta *m, void *arg)
{
    const struct empty_edit *e = arg;
    for (size_t c = 0; c < m->row_groups[0].ncolumns; c++) {
        struct pq_column_meta *cm = &m->row_groups[0].columns[c].meta;
        cm->data_page_offset = e->offset;
        cm->total_compressed_size = e->size;
        cm->has_dictionary_page_offset = e->dict_offset >= 0;
        cm->dictionary_page_offset = e->dict_offset >= 0 ? e->dict_offset : 0;
    }
}

/* A row group of `rows` rows (its chunks declared with `values` values,
 * no page written) of an INT64 "a" and an optional string "s". */
static void empty_file(struct buf *out, int64_t rows, int64_t values, const struct empty_edit *e)
{
    static struct pq_schema_element el[3];
    el[0] = pq_el_root(2);
    el[1] = pq_el_leaf("a", PQ_REQUIRED, PQ_INT64);
    el[2] = pq_el_leaf("s", PQ_OPTIONAL, PQ_BYTE_ARRAY);
    el[2].logical.kind = PQ_LT_STRING;
    static const char *const pa[] = {"a"}, *const ps[] = {"s"};
    struct pq_craft c;
    pq_craft_begin(&c, out, PQ_UNCOMPRESSED, el, 3);
    pq_craft_group(&c, rows);
    pq_craft_column(&c, pa, 1, PQ_INT64, 0, 0);
    pq_craft_column_end(&c, values);
    pq_craft_column(&c, ps, 1, PQ_BYTE_ARRAY, 1, 0);
    pq_craft_column_end(&c, values);
    pq_craft_finish(&c, edit_empty, (void *)e);
}

static void test_empty_file_offsets_in_magic(void **state)
{
    (void)state;
    const struct empty_edit ok[] = {{0, 0, -1}, {0, 4, -1}, {3, 1, 0}, {4, 0, -1}};
    for (size_t k = 0; k < sizeof ok / sizeof ok[0]; k++) {
        struct buf file = BUF_INIT;
        empty_file(&file, 0, 0, &ok[k]);
        if (k == 0)
            save("empty_offsets_in_magic", &file);
        struct read rd;
        expect_read(&file, 0, &rd);
        /* DuckDB reads the first of these as 0 rows (count(*) = 0). */
        assert_int_equal(rd.ngroups, 1);
        assert_int_equal(rd.groups[0].length, 0);
        assert_int_equal(rd.groups[0].children[0]->length, 0);
        assert_int_equal(rd.groups[0].children[1]->length, 0);
        assert_string_equal(rd.schema.children[1]->format, "u");
        read_free(&rd);
        buf_free(&file);
    }
}

static void test_offsets_in_magic_otherwise_refused(void **state)
{
    (void)state;
    struct buf file = BUF_INIT;
    /* Rows to read: the magic is no page. */
    empty_file(&file, 4, 4, &(struct empty_edit){0, 0, -1});
    expect_refused(&file, 0, ERR_CORRUPT, "outside the data");
    /* 0 rows, but a range reaching past the magic, or starting before the
     * file, or a dictionary offset elsewhere. */
    const struct empty_edit bad[] = {{0, 5, -1}, {-1, 0, -1}, {0, 0, 40}};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        buf_reset(&file);
        empty_file(&file, 0, 0, &bad[k]);
        expect_refused(&file, 0, ERR_CORRUPT, "outside the data");
    }
    buf_free(&file);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_int96_past_nanoseconds_reads_as_micros),
        cmocka_unit_test(test_int96_in_range_stays_nanoseconds),
        cmocka_unit_test(test_int96_unit_holds_for_the_file),
        cmocka_unit_test(test_int96_past_microseconds_refused),
        cmocka_unit_test(test_dictionary_header_left_out_of_size),
        cmocka_unit_test(test_dictionary_size_otherwise_wrong_refused),
        cmocka_unit_test(test_footer_rows_zero_trusts_row_groups),
        cmocka_unit_test(test_footer_rows_otherwise_wrong_refused),
        cmocka_unit_test(test_v2_zero_width_repetition_levels_skipped),
        cmocka_unit_test(test_v2_other_repetition_levels_refused),
        cmocka_unit_test(test_empty_file_offsets_in_magic),
        cmocka_unit_test(test_offsets_in_magic_otherwise_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
