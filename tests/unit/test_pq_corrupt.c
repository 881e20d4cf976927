/* The Parquet reader against corrupt input: real files of several shapes
 * (fuzz/pq_shapes.c: flat and nested, dictionary and PLAIN, every codec,
 * the page index, data pages v2, the DELTA encodings...) are truncated at
 * every byte, cut short with their footer kept, and mutated (single bit
 * flips and bytes set to 0x00, 0xff, 0x7f and 0x80) at every byte of
 * their footer, page headers, page index and magic numbers and at a sample
 * of bytes within page bodies. Every mutant is opened and read in full
 * (fuzz/pq_fuzzlib.c, as the fuzz target does): the result must be an
 * error (ERR_CORRUPT or ERR_UNSUPPORTED) or, for a change the format
 * cannot detect (a flipped bit inside a value), a read whose Arrow arrays
 * are consistent. A crash, a sanitizer report or a leak fails the test.
 *
 * Also runs every input in tests/unit/corpus/: regression inputs, each a
 * small file that crashed the reader or made it allocate without bound
 * before its fix (some found by the fuzzer, some written by the hostile
 * tests below). */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "parquet/compress.h"
#include "parquet/encoding.h"
#include "parquet/meta.h"
#include "parquet/reader.h"
#include "pq_fuzzlib.h"
#include "pq_shapes.h"
#include "util/arena.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* As in the fuzz target: a few bytes of RLE may validly claim two billion
 * levels, a dictionary entry repeat without cost; the test bounds what a
 * mutant can make the reader allocate. */
static const struct pq_read_limits test_limits = {.max_values = 1u << 20, .max_bytes = 64u << 20};

/* ---- where each part of a file lies ---- */

enum region_kind {
    R_MAGIC,
    R_PAGE_HEADER,
    R_PAGE_BODY,
    R_DICT_HEADER,
    R_DICT_BODY,
    R_COLUMN_INDEX,
    R_OFFSET_INDEX,
    R_FOOTER,
    R_FOOTER_LEN,
    R_TAIL_MAGIC,
    R__COUNT
};

static const char *const region_names[R__COUNT] = {
    "magic",        "page header",  "page body", "dictionary header", "dictionary body",
    "column index", "offset index", "footer",    "footer length",     "tail magic"};

struct region {
    size_t off, len;
    enum region_kind kind;
};

struct layout {
    struct region *r;
    size_t n, cap;
    size_t footer_start; /* where the footer (the file's tail) begins */
};

static void add_region(struct layout *l, size_t off, size_t len, enum region_kind kind)
{
    if (len == 0)
        return;
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 64;
        l->r = realloc(l->r, l->cap * sizeof *l->r);
        assert_non_null(l->r);
    }
    l->r[l->n++] = (struct region){off, len, kind};
}

/* Maps a valid file: its pages (walked header by header), page index,
 * footer and magic numbers. */
static void map_file(const uint8_t *d, size_t len, struct layout *l)
{
    memset(l, 0, sizeof *l);
    struct pq_source src;
    pq_source_memory(&src, d, len);
    struct arena a;
    arena_init(&a, 0);
    struct pq_file_meta m;
    uint32_t flen;
    struct error err;
    if (pq_read_footer(&src, &a, &m, &flen, &err) != 0)
        fail_msg("a shape's footer: %s", err.msg);
    add_region(l, 0, 4, R_MAGIC);
    for (size_t g = 0; g < m.nrow_groups; g++) {
        for (size_t c = 0; c < m.row_groups[g].ncolumns; c++) {
            const struct pq_column_chunk *cc = &m.row_groups[g].columns[c];
            const struct pq_column_meta *cm = &cc->meta;
            size_t pos = (size_t)(cm->has_dictionary_page_offset ? cm->dictionary_page_offset
                                                                 : cm->data_page_offset);
            size_t end = pos + (size_t)cm->total_compressed_size;
            while (pos < end) {
                struct pq_page_header h;
                size_t hl;
                if (pq_decode_page_header(d + pos, end - pos, NULL, &h, &hl, &err) != 0)
                    fail_msg("a shape's page header: %s", err.msg);
                bool dict = h.type == PQ_DICTIONARY_PAGE;
                add_region(l, pos, hl, dict ? R_DICT_HEADER : R_PAGE_HEADER);
                add_region(l, pos + hl, (size_t)h.compressed_size,
                           dict ? R_DICT_BODY : R_PAGE_BODY);
                pos += hl + (size_t)h.compressed_size;
            }
            assert_int_equal(pos, end);
            if (cc->has_column_index)
                add_region(l, (size_t)cc->column_index_offset, (size_t)cc->column_index_length,
                           R_COLUMN_INDEX);
            if (cc->has_offset_index)
                add_region(l, (size_t)cc->offset_index_offset, (size_t)cc->offset_index_length,
                           R_OFFSET_INDEX);
        }
    }
    l->footer_start = len - 8 - flen;
    add_region(l, l->footer_start, flen, R_FOOTER);
    add_region(l, len - 8, 4, R_FOOTER_LEN);
    add_region(l, len - 4, 4, R_TAIL_MAGIC);
    arena_free(&a);
}

/* ---- running mutants ---- */

struct tally {
    size_t errored, read;
};

struct stats {
    struct tally truncated, cut, by_region[R__COUNT];
    size_t codes[ERR_NOMEM + 1];
};

static struct stats total;

/* Reads one mutant from an exact-size heap copy (so that ASan sees any
 * read past its end) and checks the outcome. */
static void run_mutant(const uint8_t *data, size_t len, struct tally *t, const char *what,
                       size_t at)
{
    struct error err;
    struct pq_exercise_result res = pq_exercise_file(data, len, &test_limits, 0, &err);
    total.codes[res.code]++;
    if (res.code == ERR_OK) {
        t->read++;
        return;
    }
    if (res.code != ERR_CORRUPT && res.code != ERR_UNSUPPORTED)
        fail_msg("%s at %zu: error code %d ('%s'), expected CORRUPT or UNSUPPORTED", what, at,
                 (int)res.code, err.msg);
    t->errored++;
}

static void truncations(const uint8_t *file, size_t len, const struct layout *l, struct stats *st)
{
    /* Plain truncation at every byte: nothing can be read. */
    for (size_t k = 0; k < len; k++) {
        uint8_t *p = malloc(k ? k : 1);
        assert_non_null(p);
        memcpy(p, file, k);
        struct tally t = {0};
        run_mutant(p, k, &t, "a truncation", k);
        if (t.read)
            fail_msg("a file truncated to %zu of %zu bytes read without error", k, len);
        st->truncated.errored++;
        free(p);
    }
    /* Cut at every byte of the data, the footer kept: the pages, the page
     * index, then nothing, end early. Every region boundary (and the byte
     * either side) is among them. */
    size_t tail = len - l->footer_start;
    for (size_t k = 0; k < l->footer_start; k++) {
        uint8_t *p = malloc(k + tail);
        assert_non_null(p);
        memcpy(p, file, k);
        memcpy(p + k, file + l->footer_start, tail);
        run_mutant(p, k + tail, &st->cut, "a cut with the footer kept", k);
        free(p);
    }
}

static const uint8_t set_values[] = {0x00, 0xff, 0x7f, 0x80};

/* Mutation m of byte b: m < 8 flips bit m; 8..11 sets a value. */
static uint8_t mutate(uint8_t b, int m)
{
    if (m < 8)
        return (uint8_t)(b ^ (1u << m));
    return set_values[m - 8];
}

/* The reader does not read the page index, so a mutant there reads as
 * the original does: its own decoder is what must hold. */
static void index_mutant(const uint8_t *p, const struct region *r, struct tally *t, size_t at)
{
    uint8_t *q = malloc(r->len);
    assert_non_null(q);
    memcpy(q, p + r->off, r->len);
    struct arena a;
    arena_init(&a, 0);
    struct error err = {0};
    int rc;
    if (r->kind == R_COLUMN_INDEX) {
        struct pq_column_index ci;
        rc = pq_decode_column_index(q, r->len, &a, &ci, &err);
    } else {
        struct pq_offset_index oi;
        rc = pq_decode_offset_index(q, r->len, &a, &oi, &err);
    }
    if (rc != 0 && err.code != ERR_CORRUPT)
        fail_msg("%s at %zu: error code %d", region_names[r->kind], at, (int)err.code);
    if (rc == 0)
        t->read++;
    else
        t->errored++;
    arena_free(&a);
    free(q);
}

static void mutations(const uint8_t *file, size_t len, const struct layout *l, struct stats *st)
{
    uint8_t *p = malloc(len);
    assert_non_null(p);
    memcpy(p, file, len);
    for (size_t i = 0; i < l->n; i++) {
        const struct region *r = &l->r[i];
        bool body = r->kind == R_PAGE_BODY || r->kind == R_DICT_BODY;
        /* Metadata: every byte, every mutation. Bodies: a sample of
         * about 16 bytes each, one mutation per byte in rotation. */
        size_t stride = body ? (r->len + 15) / 16 : 1;
        for (size_t k = 0, s = 0; k < r->len; k += stride, s++) {
            size_t at = r->off + k;
            uint8_t orig = file[at];
            for (int m = 0; m < 12; m++) {
                if (body && m != (int)((s + at) % 12))
                    continue;
                uint8_t v = mutate(orig, m);
                if (v == orig)
                    continue;
                p[at] = v;
                if (r->kind == R_COLUMN_INDEX || r->kind == R_OFFSET_INDEX)
                    index_mutant(p, r, &st->by_region[r->kind], at);
                else
                    run_mutant(p, len, &st->by_region[r->kind], region_names[r->kind], at);
            }
            p[at] = orig;
        }
    }
    free(p);
}

static void print_tally(const char *what, const struct tally *t)
{
    printf("  %-20s %8zu errored %8zu read\n", what, t->errored, t->read);
}

static void add_stats(struct stats *a, const struct stats *b)
{
    a->truncated.errored += b->truncated.errored;
    a->truncated.read += b->truncated.read;
    a->cut.errored += b->cut.errored;
    a->cut.read += b->cut.read;
    for (int k = 0; k < R__COUNT; k++) {
        a->by_region[k].errored += b->by_region[k].errored;
        a->by_region[k].read += b->by_region[k].read;
    }
}

static void test_mutants_of_every_shape(void **state)
{
    (void)state;
    struct stats all = {0};
    clock_t start = clock();
    for (size_t i = 0; i < pq_shape_count(); i++) {
        struct buf file = BUF_INIT;
        pq_shape_build(i, &file);
        const uint8_t *d = (const uint8_t *)file.data;
        struct error err;
        struct pq_exercise_result ok =
            pq_exercise_file(d, file.len, &test_limits, PQ_EXERCISE_ALL, &err);
        if (ok.code != ERR_OK)
            fail_msg("shape %s does not read: %s", pq_shape_name(i), err.msg);
        assert_true(ok.rows_read > 0);
        assert_int_equal(ok.range_reads, ok.groups_read);
        struct layout l;
        map_file(d, file.len, &l);
        struct stats st = {0};
        truncations(d, file.len, &l, &st);
        mutations(d, file.len, &l, &st);
        size_t n = st.truncated.errored + st.cut.errored + st.cut.read;
        for (int k = 0; k < R__COUNT; k++)
            n += st.by_region[k].errored + st.by_region[k].read;
        printf("%s: %zu bytes, %zu regions, %zu mutants\n", pq_shape_name(i), file.len, l.n, n);
        add_stats(&all, &st);
        free(l.r);
        buf_free(&file);
    }
    printf("all shapes (%.1f s of CPU):\n", (double)(clock() - start) / CLOCKS_PER_SEC);
    print_tally("truncated", &all.truncated);
    print_tally("cut, footer kept", &all.cut);
    size_t errored = all.truncated.errored + all.cut.errored, read = all.cut.read;
    for (int k = 0; k < R__COUNT; k++) {
        print_tally(region_names[k], &all.by_region[k]);
        errored += all.by_region[k].errored;
        read += all.by_region[k].read;
    }
    printf("  %-20s %8zu errored %8zu read (CORRUPT %zu, UNSUPPORTED %zu)\n", "total", errored,
           read, total.codes[ERR_CORRUPT], total.codes[ERR_UNSUPPORTED]);
    /* Every kind of region was hit, and metadata damage is mostly caught. */
    for (int k = 0; k < R__COUNT; k++)
        assert_true(all.by_region[k].errored + all.by_region[k].read > 0);
    assert_true(all.by_region[R_FOOTER_LEN].read == 0);
    assert_true(all.by_region[R_TAIL_MAGIC].read == 0);
}

/* ---- hand-made hostile files ---- */

/* Reads a whole file (exact-size copy, within limits: NULL for the
 * reader's defaults) and checks the outcome's code and, when given, a word
 * of its message. */
static void expect_outcome(const struct buf *file, const struct pq_read_limits *limits,
                           enum error_code want, const char *msg_part, const char *what)
{
    uint8_t *p = malloc(file->len ? file->len : 1);
    assert_non_null(p);
    if (file->len)
        memcpy(p, file->data, file->len);
    struct error err;
    struct pq_exercise_result res = pq_exercise_file(p, file->len, limits, PQ_EXERCISE_ALL, &err);
    pq_exercise_structs(p, file->len);
    free(p);
    if (res.code != want || (want != ERR_OK && msg_part && !strstr(err.msg, msg_part)))
        fail_msg("%s: code %d '%s', expected code %d with '%s'", what, (int)res.code,
                 res.code ? err.msg : "", (int)want, msg_part ? msg_part : "");
}

static void put_u32(struct buf *b, uint32_t v)
{
    assert_int_equal(buf_append(b, &v, 4), 0);
}

/* The base file: 4 rows of a required INT64 "a" (PLAIN) and an optional
 * string "s" (a dictionary, then RLE_DICTIONARY), through `edit`. */
static void base_file(struct buf *out, void (*edit)(struct pq_file_meta *, void *), void *arg)
{
    static struct pq_schema_element el[3];
    el[0] = pq_el_root(2);
    el[1] = pq_el_leaf("a", PQ_REQUIRED, PQ_INT64);
    el[2] = pq_el_leaf("s", PQ_OPTIONAL, PQ_BYTE_ARRAY);
    el[2].logical.kind = PQ_LT_STRING;
    static const char *const pa[] = {"a"}, *const ps[] = {"s"};
    struct pq_craft c;
    pq_craft_begin(&c, out, PQ_UNCOMPRESSED, el, 3);
    pq_craft_group(&c, 4);
    pq_craft_column(&c, pa, 1, PQ_INT64, 0, 0);
    struct buf v = BUF_INIT;
    for (int64_t i = 1; i <= 4; i++)
        buf_append(&v, &i, 8);
    pq_craft_v1(&c, PQ_ENC_PLAIN, 4, NULL, NULL, false, &v);
    pq_craft_column_end(&c, 4);
    buf_reset(&v);
    pq_craft_column(&c, ps, 1, PQ_BYTE_ARRAY, 1, 0);
    put_u32(&v, 2);
    buf_append(&v, "hi", 2);
    put_u32(&v, 0);
    pq_craft_dict(&c, 2, &v);
    buf_reset(&v);
    static const uint16_t def[] = {1, 0, 1, 1};
    buf_putc(&v, 1); /* bit width */
    static const uint32_t idx[] = {0, 1, 0};
    assert_int_equal(pq_rle_encode_u32(idx, 3, 1, &v), 0);
    pq_craft_v1(&c, PQ_ENC_RLE_DICTIONARY, 4, NULL, def, false, &v);
    pq_craft_column_end(&c, 4);
    buf_free(&v);
    pq_craft_finish(&c, edit, arg);
}

enum footer_defect {
    FD_NONE,
    FD_EMPTY_SCHEMA,
    FD_ROOT_LEAF,
    FD_NO_REPETITION,
    FD_NEGATIVE_CHILDREN,
    FD_TOO_MANY_CHILDREN,
    FD_OUTSIDE_TREE,
    FD_DEEP_SCHEMA,
    FD_FLBA_NO_LENGTH,
    FD_EMPTY_GROUP,
    FD_BAD_LIST,
    FD_BAD_MAP,
    FD_DECIMAL_PRECISION,
    FD_DECIMAL_WIDE,
    FD_COLUMN_COUNT,
    FD_NEGATIVE_ROWS,
    FD_ROWS_MISMATCH,
    FD_ROWS_OVERFLOW,
    FD_FILE_PATH,
    FD_NO_META,
    FD_TYPE_MISMATCH,
    FD_NEGATIVE_VALUES,
    FD_VALUES_NOT_ROWS,
    FD_CODEC_LZO,
    FD_CODEC_UNKNOWN,
    FD_OFFSET_ZERO,
    FD_OFFSET_NEGATIVE,
    FD_OFFSET_PAST_DATA,
    FD_OFFSET_MAX,
    FD_SIZE_NEGATIVE,
    FD_SIZE_PAST_DATA,
    FD_SIZE_MAX,
    FD_SIZE_SHORT,
    FD_DICT_OFFSET_INSIDE,
    FD__COUNT
};

static const struct {
    enum error_code code;
    const char *msg;
} footer_expect[FD__COUNT] = {
    [FD_NONE] = {ERR_OK, NULL},
    [FD_EMPTY_SCHEMA] = {ERR_CORRUPT, "empty"},
    [FD_ROOT_LEAF] = {ERR_CORRUPT, "root"},
    [FD_NO_REPETITION] = {ERR_CORRUPT, "repetition"},
    [FD_NEGATIVE_CHILDREN] = {ERR_CORRUPT, "children"},
    [FD_TOO_MANY_CHILDREN] = {ERR_CORRUPT, "children"},
    [FD_OUTSIDE_TREE] = {ERR_CORRUPT, "outside"},
    [FD_DEEP_SCHEMA] = {ERR_CORRUPT, "nested"},
    [FD_FLBA_NO_LENGTH] = {ERR_CORRUPT, "length"},
    [FD_EMPTY_GROUP] = {ERR_UNSUPPORTED, "no fields"},
    [FD_BAD_LIST] = {ERR_UNSUPPORTED, "list"},
    [FD_BAD_MAP] = {ERR_UNSUPPORTED, "map"},
    [FD_DECIMAL_PRECISION] = {ERR_UNSUPPORTED, "decimal"},
    [FD_DECIMAL_WIDE] = {ERR_UNSUPPORTED, "decimal"},
    [FD_COLUMN_COUNT] = {ERR_CORRUPT, "columns"},
    [FD_NEGATIVE_ROWS] = {ERR_CORRUPT, "row counts"},
    [FD_ROWS_MISMATCH] = {ERR_CORRUPT, "row counts"},
    [FD_ROWS_OVERFLOW] = {ERR_CORRUPT, "row counts"},
    [FD_FILE_PATH] = {ERR_UNSUPPORTED, "another file"},
    [FD_NO_META] = {ERR_CORRUPT, "no metadata"},
    [FD_TYPE_MISMATCH] = {ERR_CORRUPT, "in its chunk"},
    [FD_NEGATIVE_VALUES] = {ERR_CORRUPT, "values"},
    [FD_VALUES_NOT_ROWS] = {ERR_CORRUPT, "values for"},
    [FD_CODEC_LZO] = {ERR_UNSUPPORTED, "LZO"},
    [FD_CODEC_UNKNOWN] = {ERR_UNSUPPORTED, "compressed"},
    [FD_OFFSET_ZERO] = {ERR_CORRUPT, "outside the data"},
    [FD_OFFSET_NEGATIVE] = {ERR_CORRUPT, "outside the data"},
    [FD_OFFSET_PAST_DATA] = {ERR_CORRUPT, "outside the data"},
    [FD_OFFSET_MAX] = {ERR_CORRUPT, "outside the data"},
    [FD_SIZE_NEGATIVE] = {ERR_CORRUPT, "outside the data"},
    [FD_SIZE_PAST_DATA] = {ERR_CORRUPT, "outside the data"},
    [FD_SIZE_MAX] = {ERR_CORRUPT, "outside the data"},
    [FD_SIZE_SHORT] = {ERR_CORRUPT, NULL},
    [FD_DICT_OFFSET_INSIDE] = {ERR_CORRUPT, NULL},
};

static void edit_footer(struct pq_file_meta *m, void *arg)
{
    enum footer_defect d = *(enum footer_defect *)arg;
    static struct pq_schema_element el[80];
    static struct pq_row_group groups[2];
    memcpy(el, m->schema, m->nschema * sizeof *el);
    m->schema = el;
    struct pq_row_group *rg = &m->row_groups[0];
    struct pq_column_meta *a = &rg->columns[0].meta, *s = &rg->columns[1].meta;
    switch (d) {
    case FD_NONE: break;
    case FD_EMPTY_SCHEMA: m->nschema = 0; break;
    case FD_ROOT_LEAF:
        el[0].has_num_children = false;
        el[0].has_type = true;
        break;
    case FD_NO_REPETITION: el[2].has_repetition = false; break;
    case FD_NEGATIVE_CHILDREN: el[0].num_children = -1; break;
    case FD_TOO_MANY_CHILDREN: el[0].num_children = 3; break;
    case FD_OUTSIDE_TREE: el[0].num_children = 1; break;
    case FD_DEEP_SCHEMA: {
        /* 70 nested groups, each holding the next, then a leaf. */
        size_t n = 0;
        el[n++] = pq_el_root(1);
        for (int i = 0; i < 70; i++)
            el[n++] = pq_el_group("g", PQ_OPTIONAL, 1);
        el[n++] = pq_el_leaf("x", PQ_OPTIONAL, PQ_INT32);
        m->nschema = n;
        break;
    }
    case FD_FLBA_NO_LENGTH:
        el[1].type = PQ_FIXED_LEN_BYTE_ARRAY;
        a->type = PQ_FIXED_LEN_BYTE_ARRAY;
        break;
    case FD_EMPTY_GROUP:
        el[2] = pq_el_group("s", PQ_OPTIONAL, 0);
        el[0].num_children = 2;
        m->nschema = 3;
        break;
    case FD_BAD_LIST:
        /* s becomes a LIST group around two fields. */
        el[2] = pq_el_group("s", PQ_OPTIONAL, 2);
        el[2].logical.kind = PQ_LT_LIST;
        el[3] = pq_el_leaf("x", PQ_REPEATED, PQ_INT32);
        el[4] = pq_el_leaf("y", PQ_REPEATED, PQ_INT32);
        m->nschema = 5;
        break;
    case FD_BAD_MAP:
        el[2] = pq_el_group("s", PQ_OPTIONAL, 1);
        el[2].logical.kind = PQ_LT_MAP;
        el[3] = pq_el_leaf("key_value", PQ_REPEATED, PQ_BYTE_ARRAY);
        m->nschema = 4;
        break;
    case FD_DECIMAL_PRECISION:
        el[1].logical.kind = PQ_LT_DECIMAL;
        el[1].logical.precision = 39;
        break;
    case FD_DECIMAL_WIDE:
        el[1].type = PQ_FIXED_LEN_BYTE_ARRAY;
        el[1].type_length = 17;
        el[1].has_converted = true;
        el[1].converted = PQ_CT_DECIMAL;
        el[1].precision = 38;
        break;
    case FD_COLUMN_COUNT: rg->ncolumns = 1; break;
    case FD_NEGATIVE_ROWS:
        rg->num_rows = -4;
        m->num_rows = -4;
        break;
    case FD_ROWS_MISMATCH: m->num_rows = 5; break;
    case FD_ROWS_OVERFLOW:
        groups[0] = *rg;
        groups[0].num_rows = INT64_MAX;
        groups[1] = groups[0];
        m->row_groups = groups;
        m->nrow_groups = 2;
        m->num_rows = INT64_MAX;
        break;
    case FD_FILE_PATH: rg->columns[1].file_path = "elsewhere.parquet"; break;
    case FD_NO_META: rg->columns[0].has_meta = false; break;
    case FD_TYPE_MISMATCH: a->type = PQ_INT32; break;
    case FD_NEGATIVE_VALUES: s->num_values = -1; break;
    case FD_VALUES_NOT_ROWS: a->num_values = 3; break;
    case FD_CODEC_LZO: a->codec = PQ_LZO; break;
    case FD_CODEC_UNKNOWN: s->codec = (enum pq_codec)99; break;
    case FD_OFFSET_ZERO: a->data_page_offset = 0; break;
    case FD_OFFSET_NEGATIVE: a->data_page_offset = -100; break;
    case FD_OFFSET_PAST_DATA: a->data_page_offset += 10000; break;
    case FD_OFFSET_MAX: a->data_page_offset = INT64_MAX; break;
    case FD_SIZE_NEGATIVE: a->total_compressed_size = -1; break;
    case FD_SIZE_PAST_DATA: s->total_compressed_size += 1; break;
    case FD_SIZE_MAX: a->total_compressed_size = INT64_MAX; break;
    case FD_SIZE_SHORT: a->total_compressed_size -= 1; break;
    case FD_DICT_OFFSET_INSIDE:
        /* The dictionary "starts" inside the first page of the chunk. */
        s->dictionary_page_offset += 3;
        break;
    case FD__COUNT: break;
    }
}

static void test_hostile_footers(void **state)
{
    (void)state;
    for (int d = 0; d < FD__COUNT; d++) {
        struct buf file = BUF_INIT;
        enum footer_defect defect = (enum footer_defect)d;
        base_file(&file, edit_footer, &defect);
        char what[64];
        snprintf(what, sizeof what, "footer defect %d", d);
        expect_outcome(&file, NULL, footer_expect[d].code, footer_expect[d].msg, what);
        buf_free(&file);
    }
}

/* The file's tail: the footer length, magic numbers. */
static void test_hostile_tails(void **state)
{
    (void)state;
    struct buf file = BUF_INIT;
    base_file(&file, NULL, NULL);
    size_t n = file.len;
    uint32_t flen;
    memcpy(&flen, file.data + n - 8, 4);
    const uint32_t lens[] = {
        0, 1, flen - 1, flen + 1, (uint32_t)n - 12, (uint32_t)n - 8, (uint32_t)n, UINT32_MAX};
    for (size_t i = 0; i < ARRAY_LEN(lens); i++) {
        memcpy(file.data + n - 8, &lens[i], 4);
        expect_outcome(&file, NULL, ERR_CORRUPT, NULL, "a footer length");
    }
    memcpy(file.data + n - 8, &flen, 4);
    expect_outcome(&file, NULL, ERR_OK, NULL, "the restored file");
    memcpy(file.data + n - 4, "PARE", 4);
    expect_outcome(&file, NULL, ERR_UNSUPPORTED, "encrypted", "an encrypted footer");
    memcpy(file.data + n - 4, "PAR1", 4);
    memcpy(file.data, "PAR2", 4);
    expect_outcome(&file, NULL, ERR_CORRUPT, "PAR1", "a bad head magic");
    buf_free(&file);
}

/* ---- hostile pages ---- */

enum page_defect {
    PD_V2_EMPTY_FIRST_PAGE, /* valid: a data page v2 of no values first */
    PD_INDEX_PAGE,          /* valid: an INDEX_PAGE and an unknown page type are skipped */
    PD_ZSTD_CLAIMS_GIB,
    PD_SNAPPY_CLAIMS_MORE,
    PD_GARBAGE_ZSTD,
    PD_GARBAGE_SNAPPY,
    PD_GARBAGE_GZIP,
    PD_GARBAGE_LZ4,
    PD_UNCOMPRESSED_SIZES_DIFFER,
    PD_MORE_VALUES_THAN_CHUNK,
    PD_PAGES_SHORT,
    PD_PAGE_PAST_CHUNK,
    PD_LEVEL_ABOVE_MAX,
    PD_RLE_LENGTH_PAST_PAGE,
    PD_BITPACKED_PAST_PAGE,
    PD_V2_REP_ON_FLAT,
    PD_V2_LEVELS_PAST_PAGE,
    PD_V2_LEVELS_DO_NOT_ADD_UP,
    PD_DICT_INDEX_PAST,
    PD_DICT_AFTER_DATA,
    PD_TWO_DICTS,
    PD_NO_DICT,
    PD_DICT_BIT_WIDTH,
    PD_PLAIN_TOO_FEW_BYTES,
    PD_BYTE_ARRAY_LENGTH_PAST,
    PD_UNKNOWN_ENCODING,
    PD_DELTA_ON_DOUBLE,
    PD_DELTA_TRUNCATED,
    PD_BSS_SHORT,
    PD_RLE_BOOL_TRUNCATED,
    PD_DICT_EXPANDS_PAST_2GIB,
    PD_WIDE_FLBA_NULLS,
    PD_FLBA_DICT_EXPANDS,
    PD_FLBA_DICT_PAST_LIMIT,
    PD__COUNT
};

static const struct {
    enum error_code code;
    const char *msg;
    const struct pq_read_limits *limits; /* NULL: the reader's defaults */
} page_expect[PD__COUNT] = {
    [PD_V2_EMPTY_FIRST_PAGE] = {ERR_OK, NULL},
    [PD_INDEX_PAGE] = {ERR_OK, NULL},
    [PD_ZSTD_CLAIMS_GIB] = {ERR_CORRUPT, "claims"},
    [PD_SNAPPY_CLAIMS_MORE] = {ERR_CORRUPT, "claims"},
    [PD_GARBAGE_ZSTD] = {ERR_CORRUPT, "ZSTD"},
    [PD_GARBAGE_SNAPPY] = {ERR_CORRUPT, "SNAPPY"},
    [PD_GARBAGE_GZIP] = {ERR_CORRUPT, "GZIP"},
    [PD_GARBAGE_LZ4] = {ERR_CORRUPT, "LZ4_RAW"},
    [PD_UNCOMPRESSED_SIZES_DIFFER] = {ERR_CORRUPT, "claims"},
    [PD_MORE_VALUES_THAN_CHUNK] = {ERR_CORRUPT, "more values"},
    [PD_PAGES_SHORT] = {ERR_CORRUPT, "hold"},
    [PD_PAGE_PAST_CHUNK] = {ERR_CORRUPT, "past its chunk"},
    [PD_LEVEL_ABOVE_MAX] = {ERR_CORRUPT, "maximum"},
    [PD_RLE_LENGTH_PAST_PAGE] = {ERR_CORRUPT, "past the page"},
    [PD_BITPACKED_PAST_PAGE] = {ERR_CORRUPT, "past the page"},
    [PD_V2_REP_ON_FLAT] = {ERR_CORRUPT, "flat"},
    [PD_V2_LEVELS_PAST_PAGE] = {ERR_CORRUPT, "levels"},
    [PD_V2_LEVELS_DO_NOT_ADD_UP] = {ERR_CORRUPT, NULL},
    [PD_DICT_INDEX_PAST] = {ERR_CORRUPT, "index"},
    [PD_DICT_AFTER_DATA] = {ERR_CORRUPT, "after data"},
    [PD_TWO_DICTS] = {ERR_CORRUPT, "two dictionary"},
    [PD_NO_DICT] = {ERR_CORRUPT, "without a dictionary"},
    [PD_DICT_BIT_WIDTH] = {ERR_CORRUPT, "bit width"},
    [PD_PLAIN_TOO_FEW_BYTES] = {ERR_CORRUPT, "cannot fit"},
    [PD_BYTE_ARRAY_LENGTH_PAST] = {ERR_CORRUPT, "past the end"},
    [PD_UNKNOWN_ENCODING] = {ERR_UNSUPPORTED, NULL},
    [PD_DELTA_ON_DOUBLE] = {ERR_UNSUPPORTED, "DELTA"},
    [PD_DELTA_TRUNCATED] = {ERR_CORRUPT, "DELTA"},
    [PD_BSS_SHORT] = {ERR_CORRUPT, NULL},
    [PD_RLE_BOOL_TRUNCATED] = {ERR_CORRUPT, "truncated"},
    [PD_DICT_EXPANDS_PAST_2GIB] = {ERR_UNSUPPORTED, "2147483647 bytes"},
    [PD_WIDE_FLBA_NULLS] = {ERR_UNSUPPORTED, "2147483647 bytes"},
    [PD_FLBA_DICT_EXPANDS] = {ERR_UNSUPPORTED, "2147483647 bytes"},
    [PD_FLBA_DICT_PAST_LIMIT] = {ERR_UNSUPPORTED, "67108864 bytes", &test_limits},
};

static void page(struct pq_craft *c, enum pq_page_type type, int32_t n, enum pq_encoding enc,
                 const void *body, size_t len, int32_t us)
{
    struct pq_page_header h = {.type = type,
                               .uncompressed_size = us >= 0 ? us : (int32_t)len,
                               .compressed_size = (int32_t)len,
                               .num_values = n,
                               .encoding = enc,
                               .def_encoding = PQ_ENC_RLE,
                               .rep_encoding = PQ_ENC_RLE,
                               .num_rows = n,
                               .is_compressed = true};
    pq_craft_page(c, &h, body, len);
}

/* One column of `rows` rows whose pages exhibit defect d. */
static void hostile_page_file(enum page_defect d, struct buf *out)
{
    struct pq_schema_element el[4];
    el[0] = pq_el_root(1);
    enum pq_type type = PQ_INT32;
    int16_t max_def = 0;
    enum pq_codec codec = PQ_UNCOMPRESSED;
    int64_t rows = 4, values = 4;
    size_t nel = 2;
    el[1] = pq_el_leaf("x", PQ_REQUIRED, PQ_INT32);
    switch (d) {
    case PD_ZSTD_CLAIMS_GIB:
    case PD_GARBAGE_ZSTD: codec = PQ_ZSTD; break;
    case PD_SNAPPY_CLAIMS_MORE:
    case PD_GARBAGE_SNAPPY: codec = PQ_SNAPPY; break;
    case PD_GARBAGE_GZIP: codec = PQ_GZIP; break;
    case PD_GARBAGE_LZ4: codec = PQ_LZ4_RAW; break;
    case PD_V2_EMPTY_FIRST_PAGE:
    case PD_RLE_LENGTH_PAST_PAGE:
    case PD_BITPACKED_PAST_PAGE:
    case PD_V2_LEVELS_PAST_PAGE:
    case PD_V2_LEVELS_DO_NOT_ADD_UP:
        el[1].repetition = PQ_OPTIONAL;
        max_def = 1;
        break;
    case PD_LEVEL_ABOVE_MAX:
        el[1] = pq_el_group("g", PQ_OPTIONAL, 1);
        el[2] = pq_el_leaf("x", PQ_OPTIONAL, PQ_INT32);
        el[0].num_children = 1;
        nel = 3;
        max_def = 2;
        break;
    case PD_DELTA_ON_DOUBLE: el[1].type = type = PQ_DOUBLE; break;
    case PD_BYTE_ARRAY_LENGTH_PAST:
    case PD_DICT_EXPANDS_PAST_2GIB: el[1].type = type = PQ_BYTE_ARRAY; break;
    case PD_RLE_BOOL_TRUNCATED: el[1].type = type = PQ_BOOLEAN; break;
    case PD_FLBA_DICT_EXPANDS:
    case PD_FLBA_DICT_PAST_LIMIT:
        el[1] = pq_el_leaf("x", PQ_REQUIRED, PQ_FIXED_LEN_BYTE_ARRAY);
        el[1].type_length = 4096;
        type = PQ_FIXED_LEN_BYTE_ARRAY;
        codec = PQ_ZSTD;
        break;
    case PD_WIDE_FLBA_NULLS:
        el[1] = pq_el_leaf("x", PQ_OPTIONAL, PQ_FIXED_LEN_BYTE_ARRAY);
        el[1].type_length = 1 << 30;
        type = PQ_FIXED_LEN_BYTE_ARRAY;
        max_def = 1;
        break;
    default: break;
    }
    if (d == PD_DICT_EXPANDS_PAST_2GIB)
        rows = values = 40000;
    if (d == PD_WIDE_FLBA_NULLS)
        rows = values = 2048;
    if (d == PD_FLBA_DICT_EXPANDS)
        rows = values = 600000;
    if (d == PD_FLBA_DICT_PAST_LIMIT)
        rows = values = 30000;
    if (d == PD_MORE_VALUES_THAN_CHUNK)
        rows = values = 3;
    if (d == PD_PAGES_SHORT)
        rows = values = 8;
    static const char *const path1[] = {"x"}, *const path2[] = {"g", "x"};
    struct pq_craft c;
    pq_craft_begin(&c, out, codec, el, nel);
    pq_craft_group(&c, rows);
    pq_craft_column(&c, nel == 3 ? path2 : path1, nel == 3 ? 2 : 1, type, max_def, 0);
    const int32_t four[] = {1, 2, 3, 4};
    struct buf v = BUF_INIT, b = BUF_INIT;
    buf_append(&v, four, sizeof four);
    static const uint16_t all_def[] = {1, 1, 1, 1};
    switch (d) {
    case PD_V2_EMPTY_FIRST_PAGE: {
        struct buf none = BUF_INIT;
        pq_craft_v2(&c, PQ_ENC_PLAIN, 0, 0, NULL, NULL, &none, false);
        pq_craft_v2(&c, PQ_ENC_PLAIN, 4, 4, NULL, all_def, &v, false);
        break;
    }
    case PD_INDEX_PAGE:
        page(&c, PQ_INDEX_PAGE, 0, PQ_ENC_PLAIN, "index", 5, -1);
        page(&c, (enum pq_page_type)77, 0, PQ_ENC_PLAIN, "future", 6, -1);
        pq_craft_v1(&c, PQ_ENC_PLAIN, 4, NULL, NULL, false, &v);
        break;
    case PD_ZSTD_CLAIMS_GIB: {
        /* A real ZSTD frame of 16 bytes whose header says 1 GiB. */
        struct error err;
        struct pq_codec_ctx *ctx = pq_codec_ctx_new();
        assert_int_equal(pq_compress(ctx, PQ_ZSTD, 0, v.data, v.len, &b, &err), 0);
        pq_codec_ctx_free(ctx);
        page(&c, PQ_DATA_PAGE, 4, PQ_ENC_PLAIN, b.data, b.len, 1 << 30);
        break;
    }
    case PD_SNAPPY_CLAIMS_MORE: {
        struct error err;
        assert_int_equal(pq_compress(NULL, PQ_SNAPPY, 0, v.data, v.len, &b, &err), 0);
        page(&c, PQ_DATA_PAGE, 4, PQ_ENC_PLAIN, b.data, b.len, 100000);
        break;
    }
    case PD_GARBAGE_ZSTD:
    case PD_GARBAGE_SNAPPY:
    case PD_GARBAGE_GZIP:
    case PD_GARBAGE_LZ4:
        page(&c, PQ_DATA_PAGE, 4, PQ_ENC_PLAIN, "\x28\xb5\x2f\xfd garbage, not a frame", 24, 16);
        break;
    case PD_UNCOMPRESSED_SIZES_DIFFER: page(&c, PQ_DATA_PAGE, 4, PQ_ENC_PLAIN, four, 16, 20); break;
    case PD_MORE_VALUES_THAN_CHUNK: pq_craft_v1(&c, PQ_ENC_PLAIN, 4, NULL, NULL, false, &v); break;
    case PD_PAGES_SHORT: pq_craft_v1(&c, PQ_ENC_PLAIN, 4, NULL, NULL, false, &v); break;
    case PD_PAGE_PAST_CHUNK: {
        struct pq_page_header h = {.type = PQ_DATA_PAGE,
                                   .uncompressed_size = 16,
                                   .compressed_size = 1000,
                                   .num_values = 4,
                                   .encoding = PQ_ENC_PLAIN};
        pq_craft_page(&c, &h, four, 16);
        break;
    }
    case PD_LEVEL_ABOVE_MAX: {
        /* Definition levels of bit width 2 holding 3 (the maximum is 2). */
        put_u32(&b, 2);
        buf_append(&b, "\x08\x03", 2); /* an RLE run of 4 threes */
        buf_append(&b, four, sizeof four);
        page(&c, PQ_DATA_PAGE, 4, PQ_ENC_PLAIN, b.data, b.len, -1);
        break;
    }
    case PD_RLE_LENGTH_PAST_PAGE:
        put_u32(&b, 1000);
        buf_append(&b, "\x08\x01", 2);
        buf_append(&b, four, sizeof four);
        page(&c, PQ_DATA_PAGE, 4, PQ_ENC_PLAIN, b.data, b.len, -1);
        break;
    case PD_BITPACKED_PAST_PAGE: {
        /* 4 values of BIT_PACKED levels need a byte; the page has none. */
        struct pq_page_header h = {.type = PQ_DATA_PAGE,
                                   .num_values = 4,
                                   .encoding = PQ_ENC_PLAIN,
                                   .def_encoding = PQ_ENC_BIT_PACKED,
                                   .rep_encoding = PQ_ENC_BIT_PACKED};
        pq_craft_page(&c, &h, "", 0);
        break;
    }
    case PD_V2_REP_ON_FLAT: {
        struct pq_page_header h = {.type = PQ_DATA_PAGE_V2,
                                   .uncompressed_size = 18,
                                   .compressed_size = 18,
                                   .num_values = 4,
                                   .num_rows = 4,
                                   .rep_levels_len = 2,
                                   .encoding = PQ_ENC_PLAIN};
        buf_append(&b, "\x08\x00", 2);
        buf_append(&b, four, sizeof four);
        pq_craft_page(&c, &h, b.data, b.len);
        break;
    }
    case PD_V2_LEVELS_PAST_PAGE:
    case PD_V2_LEVELS_DO_NOT_ADD_UP: {
        /* The def levels: an RLE run of 4 ones (2 bytes), said to be 100
         * bytes, or 3 (one byte of values counted as levels). */
        bool past = d == PD_V2_LEVELS_PAST_PAGE;
        struct pq_page_header h = {.type = PQ_DATA_PAGE_V2,
                                   .uncompressed_size = 18,
                                   .compressed_size = 18,
                                   .num_values = 4,
                                   .num_rows = 4,
                                   .def_levels_len = past ? 100 : 3,
                                   .encoding = PQ_ENC_PLAIN};
        buf_append(&b, "\x08\x01", 2);
        buf_append(&b, four, sizeof four);
        pq_craft_page(&c, &h, b.data, b.len);
        break;
    }
    case PD_DICT_INDEX_PAST:
    case PD_DICT_AFTER_DATA:
    case PD_TWO_DICTS:
    case PD_NO_DICT:
    case PD_DICT_BIT_WIDTH: {
        struct buf dict = BUF_INIT;
        buf_append(&dict, four, 8); /* two entries */
        if (d != PD_NO_DICT && d != PD_DICT_AFTER_DATA)
            pq_craft_dict(&c, 2, &dict);
        if (d == PD_TWO_DICTS)
            pq_craft_dict(&c, 2, &dict);
        /* Indices: bit width 2, an RLE run of 4 (1, or 3: past the end). */
        buf_putc(&b, d == PD_DICT_BIT_WIDTH ? 33 : 2);
        buf_append(&b, d == PD_DICT_INDEX_PAST ? "\x08\x03" : "\x08\x01", 2);
        if (d == PD_DICT_AFTER_DATA) {
            pq_craft_v1(&c, PQ_ENC_PLAIN, 2, NULL, NULL, false, &v);
            pq_craft_dict(&c, 2, &dict);
            page(&c, PQ_DATA_PAGE, 2, PQ_ENC_RLE_DICTIONARY, b.data, b.len, -1);
        } else {
            page(&c, PQ_DATA_PAGE, 4, PQ_ENC_RLE_DICTIONARY, b.data, b.len, -1);
        }
        buf_free(&dict);
        break;
    }
    case PD_PLAIN_TOO_FEW_BYTES: page(&c, PQ_DATA_PAGE, 4, PQ_ENC_PLAIN, four, 15, -1); break;
    case PD_BYTE_ARRAY_LENGTH_PAST:
        for (int i = 0; i < 3; i++) {
            put_u32(&b, 1);
            buf_putc(&b, 'x');
        }
        put_u32(&b, 2); /* the last value claims 2 bytes, none left */
        page(&c, PQ_DATA_PAGE, 4, PQ_ENC_PLAIN, b.data, b.len, -1);
        break;
    case PD_UNKNOWN_ENCODING: page(&c, PQ_DATA_PAGE, 4, (enum pq_encoding)99, four, 16, -1); break;
    case PD_DELTA_ON_DOUBLE:
        page(&c, PQ_DATA_PAGE, 4, PQ_ENC_DELTA_BINARY_PACKED, "\x80\x01\x04\x04\x00", 5, -1);
        break;
    case PD_DELTA_TRUNCATED:
        /* Block 128 of 4 miniblocks, 4 values, first 0; then a block
         * whose miniblock widths say 8 bits, without the bytes. */
        page(&c, PQ_DATA_PAGE, 4, PQ_ENC_DELTA_BINARY_PACKED,
             "\x80\x01\x04\x04\x00\x00\x08\x08\x08\x08", 10, -1);
        break;
    case PD_BSS_SHORT: page(&c, PQ_DATA_PAGE, 4, PQ_ENC_BYTE_STREAM_SPLIT, four, 12, -1); break;
    case PD_RLE_BOOL_TRUNCATED:
        put_u32(&b, 9);
        buf_append(&b, "\x08\x01", 2);
        page(&c, PQ_DATA_PAGE, 4, PQ_ENC_RLE, b.data, b.len, -1);
        break;
    case PD_DICT_EXPANDS_PAST_2GIB: {
        /* One 60000-byte entry repeated 40000 times: 2.4 GB from a few
         * bytes of indices. Refused before anything that size is
         * allocated. */
        struct buf dict = BUF_INIT;
        put_u32(&dict, 60000);
        assert_int_equal(buf_reserve(&dict, 60000), 0);
        memset(dict.data + dict.len, 'z', 60000);
        dict.len += 60000;
        pq_craft_dict(&c, 1, &dict);
        buf_free(&dict);
        buf_putc(&b, 1);
        buf_append(&b, "\x80\xf1\x04\x00", 4); /* an RLE run of 40000 zeros */
        page(&c, PQ_DATA_PAGE, 40000, PQ_ENC_RLE_DICTIONARY, b.data, b.len, -1);
        break;
    }
    case PD_WIDE_FLBA_NULLS: {
        /* 2048 nulls of a 1 GiB-wide column: no value bytes at all, but
         * 2 TiB of Arrow slots. */
        static const uint16_t nulls[2048];
        pq_craft_v1(&c, PQ_ENC_PLAIN, 2048, NULL, nulls, false, &b);
        break;
    }
    case PD_FLBA_DICT_EXPANDS:
    case PD_FLBA_DICT_PAST_LIMIT: {
        /* One 4 KiB entry (a few bytes of ZSTD) repeated 600000 times:
         * 2.4 GB, past the default limit; or 30000 times: 123 MB, within
         * it but past a lowered one (a fuzzer's finding: doubling a
         * buffer near 1 GiB had reached past its memory limit). */
        struct buf dict = BUF_INIT;
        assert_int_equal(buf_reserve(&dict, 4096), 0);
        memset(dict.data, 'q', 4096);
        dict.len = 4096;
        pq_craft_dict(&c, 1, &dict);
        buf_free(&dict);
        struct buf idx = BUF_INIT;
        buf_putc(&idx, 1);
        if (d == PD_FLBA_DICT_EXPANDS)
            buf_append(&idx, "\x80\x9f\x49\x00", 4); /* an RLE run of 600000 zeros */
        else
            buf_append(&idx, "\xe0\xd4\x03\x00", 4); /* an RLE run of 30000 zeros */
        pq_craft_v1(&c, PQ_ENC_RLE_DICTIONARY, (int32_t)values, NULL, NULL, false, &idx);
        buf_free(&idx);
        break;
    }
    case PD__COUNT: break;
    }
    pq_craft_column_end(&c, values);
    pq_craft_finish(&c, NULL, NULL);
    buf_free(&v);
    buf_free(&b);
}

static void test_hostile_pages(void **state)
{
    (void)state;
    for (int d = 0; d < PD__COUNT; d++) {
        struct buf file = BUF_INIT;
        hostile_page_file((enum page_defect)d, &file);
        char what[64];
        snprintf(what, sizeof what, "page defect %d", d);
        expect_outcome(&file, page_expect[d].limits, page_expect[d].code, page_expect[d].msg, what);
        buf_free(&file);
    }
}

/* ---- the regression corpus ---- */

static void test_corpus(void **state)
{
    (void)state;
    DIR *dir = opendir(HL_PQ_CORPUS);
    assert_non_null(dir);
    size_t n = 0, errored = 0;
    struct dirent *e;
    while ((e = readdir(dir))) {
        if (e->d_name[0] == '.')
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", HL_PQ_CORPUS, e->d_name);
        FILE *f = fopen(path, "rb");
        assert_non_null(f);
        struct buf b = BUF_INIT;
        char chunk[4096];
        size_t got;
        while ((got = fread(chunk, 1, sizeof chunk, f)) > 0)
            assert_int_equal(buf_append(&b, chunk, got), 0);
        fclose(f);
        /* An exact-size copy, so that reads past the end are caught. */
        uint8_t *p = malloc(b.len ? b.len : 1);
        assert_non_null(p);
        if (b.len)
            memcpy(p, b.data, b.len);
        struct error err;
        struct pq_exercise_result res =
            pq_exercise_file(p, b.len, &test_limits, PQ_EXERCISE_ALL, &err);
        pq_exercise_structs(p, b.len);
        if (res.code != ERR_OK && res.code != ERR_CORRUPT && res.code != ERR_UNSUPPORTED)
            fail_msg("%s: error code %d ('%s')", e->d_name, (int)res.code, err.msg);
        errored += res.code != ERR_OK;
        n++;
        free(p);
        buf_free(&b);
    }
    closedir(dir);
    printf("corpus: %zu inputs, %zu errored, %zu read\n", n, errored, n - errored);
    assert_true(n > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_corpus),
        cmocka_unit_test(test_hostile_footers),
        cmocka_unit_test(test_hostile_tails),
        cmocka_unit_test(test_hostile_pages),
        cmocka_unit_test(test_mutants_of_every_shape),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
