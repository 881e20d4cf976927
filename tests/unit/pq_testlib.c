#include "pq_testlib.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "util/arrow.h"

int test_sink_buf_write(void *ctx, const void *data, size_t len, struct error *err)
{
    if (buf_append(ctx, data, len) != 0)
        return error_fail(err, ERR_NOMEM, "out of memory buffering the file");
    return 0;
}

/* ---- randomness ---- */

uint64_t rng_next(struct rng *g)
{
    /* splitmix64: small, fast, and good enough for test data. */
    uint64_t z = (g->state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

uint64_t rng_below(struct rng *g, uint64_t n)
{
    return n ? rng_next(g) % n : 0;
}

/* ---- tables ---- */

const char pq_nested_table[] =
    "[{'name':'id','type':'long','nullable':false},"
    " {'name':'s','type':'struct','children':["
    "   {'name':'a','type':'int'},"
    "   {'name':'r','type':'string','nullable':false},"
    "   {'name':'l','type':'list','children':[{'name':'element','type':'struct','children':["
    "       {'name':'x','type':'double'},"
    "       {'name':'m','type':'map','children':["
    "         {'name':'key','type':'string','nullable':false},"
    "         {'name':'value','type':'long'}]}]}]}]},"
    " {'name':'ints','type':'list','children':[{'name':'element','type':'int','nullable':false}]},"
    " {'name':'ll','type':'list','nullable':false,'children':[{'name':'element','type':'list',"
    "   'children':[{'name':'element','type':'string'}]}]},"
    " {'name':'mm','type':'map','children':[{'name':'key','type':'int','nullable':false},"
    "   {'name':'value','type':'list','children':[{'name':'element','type':'boolean'}]}]},"
    " {'name':'deep','type':'struct','nullable':false,'children':["
    "   {'name':'inner','type':'struct','children':[{'name':'v','type':'decimal',"
    "     'type_params':{'precision':20,'scale':3}},{'name':'u','type':'uuid'}]}]}]";

void test_table_init(struct test_table *tt, const char *columns_json)
{
    char *text = strdup(columns_json);
    assert_non_null(text);
    for (char *p = text; *p; p++)
        if (*p == '\'')
            *p = '"';
    json_error_t jerr;
    json_t *cols = json_loads(text, 0, &jerr);
    if (!cols)
        fail_msg("bad test JSON: %s: %s", jerr.text, text);
    free(text);
    arena_init(&tt->arena, 0);
    lake_table_init(&tt->t, &tt->arena);
    tt->t.name = "t";
    struct error err = {0};
    if (lake_table_add_columns(&tt->t, cols, &err) != 0)
        fail_msg("table: %s", err.msg);
    json_decref(cols);
}

void test_table_release(struct test_table *tt)
{
    lake_table_release(&tt->t);
    arena_free(&tt->arena);
}

/* ---- random batches ---- */

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    assert_non_null(p);
    return p;
}

static const char *const utf8_pieces[] = {
    "a", "b", "Z", " ", "\xc3\xa9", "\xe6\x97\xa5", "\xf0\x9f\x98\x80", "0", "_", "\""};

static void gen_bytes(const struct lake_column *c, const struct gen_options *o, struct rng *g,
                      struct buf *out)
{
    size_t max = (size_t)o->max_string_len;
    if (o->distinct_small) {
        char v[32];
        snprintf(v, sizeof v, c->type == LT_JSON ? "{\"k\":%d}" : "value-%d",
                 (int)rng_below(g, 10));
        assert_int_equal(buf_puts(out, v), 0);
        return;
    }
    if (c->type == LT_JSON) {
        char v[64];
        snprintf(v, sizeof v, "{\"n\":%lld,\"s\":\"x\"}", (long long)(rng_next(g) >> 20));
        assert_int_equal(buf_puts(out, v), 0);
        return;
    }
    size_t len = (size_t)rng_below(g, max + 1);
    while (len--) {
        if (c->type == LT_BINARY) {
            assert_int_equal(buf_putc(out, (char)rng_below(g, 256)), 0);
        } else {
            const char *piece = utf8_pieces[rng_below(g, sizeof utf8_pieces / sizeof *utf8_pieces)];
            assert_int_equal(buf_puts(out, piece), 0);
        }
    }
}

static int64_t pow10_i64(int p)
{
    int64_t v = 1;
    for (int i = 0; i < p && i < 18; i++)
        v *= 10;
    return v;
}

/* One fixed-width value of the column's Arrow type into dst. */
static void gen_fixed(const struct lake_column *c, const struct gen_options *o, struct rng *g,
                      uint8_t *dst, int width)
{
    uint64_t r = o->distinct_small ? rng_below(g, 7) * 0x0101010101010101ULL : rng_next(g);
    switch (c->type) {
    case LT_DECIMAL: {
        int64_t lim = pow10_i64(c->precision) - 1;
        int64_t v = (int64_t)(r % (uint64_t)lim);
        if (rng_below(g, 2))
            v = -v;
        int64_t hi = v < 0 ? -1 : 0;
        memcpy(dst, &v, 8);
        memcpy(dst + 8, &hi, 8);
        return;
    }
    case LT_TIMESTAMP_S: {
        int64_t v = (int64_t)(r % 1000000000000000ULL) - 500000000000000LL;
        memcpy(dst, &v, 8);
        return;
    }
    case LT_UUID:
        for (int i = 0; i < 16; i++)
            dst[i] = (uint8_t)rng_next(g);
        return;
    default: memcpy(dst, &r, (size_t)width);
    }
}

int test_fixed_width(enum lake_type t)
{
    switch (t) {
    case LT_INT8:
    case LT_UINT8: return 1;
    case LT_INT16:
    case LT_UINT16: return 2;
    case LT_INT:
    case LT_UINT32:
    case LT_FLOAT:
    case LT_DATE: return 4;
    case LT_DECIMAL:
    case LT_UUID: return 16;
    default: return 8;
    }
}

static void gen_column(const struct lake_column *c, const char *name, int64_t n,
                       const struct gen_options *o, struct rng *g, struct ArrowSchema *s,
                       struct ArrowArray *a);

static uint8_t *gen_validity(const struct lake_column *c, int64_t n, const struct gen_options *o,
                             struct rng *g, int64_t *nulls)
{
    *nulls = 0;
    if (!c->nullable || o->null_per_mille <= 0)
        return NULL;
    uint8_t *v = xcalloc((size_t)n / 8 + 1, 1);
    for (int64_t i = 0; i < n; i++) {
        bool valid = (int)rng_below(g, 1000) >= o->null_per_mille;
        arrow_set_bit(v, i, valid);
        *nulls += !valid;
    }
    return v;
}

/* List or map offsets; null slots sometimes keep a non-empty range (which
 * the writer must ignore). Returns the child length. */
static int32_t *gen_offsets(int64_t n, const uint8_t *validity, const struct gen_options *o,
                            struct rng *g, int64_t *children)
{
    int32_t *off = xcalloc((size_t)n + 1, sizeof *off);
    for (int64_t i = 0; i < n; i++) {
        int32_t len = (int32_t)rng_below(g, (uint64_t)o->max_list_len + 1);
        if (validity && !arrow_bit(validity, i) && rng_below(g, 2))
            len = 0;
        off[i + 1] = off[i] + len;
    }
    *children = off[n];
    return off;
}

static void gen_column(const struct lake_column *c, const char *name, int64_t n,
                       const struct gen_options *o, struct rng *g, struct ArrowSchema *s,
                       struct ArrowArray *a)
{
    char fmt[32];
    const char *format = pq_arrow_format_for(c, fmt, sizeof fmt);
    int64_t nkids = c->type == LT_STRUCT                        ? (int64_t)c->nchildren
                    : (c->type == LT_LIST || c->type == LT_MAP) ? 1
                                                                : 0;
    assert_int_equal(
        arrow_schema_init(s, format, name, c->nullable ? ARROW_FLAG_NULLABLE : 0, nkids), 0);
    int64_t nbuf = c->type == LT_STRUCT                                                   ? 1
                   : (c->type == LT_STRING || c->type == LT_JSON || c->type == LT_BINARY) ? 3
                                                                                          : 2;
    assert_int_equal(arrow_array_init(a, nbuf, nkids), 0);
    a->length = n;
    uint8_t *validity = gen_validity(c, n, o, g, &a->null_count);
    arrow_array_own_buffer(a, 0, validity);

    switch (c->type) {
    case LT_STRUCT:
        for (size_t i = 0; i < c->nchildren; i++)
            gen_column(c->children[i], c->children[i]->name, n, o, g, s->children[i],
                       a->children[i]);
        return;
    case LT_LIST: {
        int64_t kids;
        arrow_array_own_buffer(a, 1, gen_offsets(n, validity, o, g, &kids));
        gen_column(c->children[0], "element", kids, o, g, s->children[0], a->children[0]);
        return;
    }
    case LT_MAP: {
        int64_t kids;
        arrow_array_own_buffer(a, 1, gen_offsets(n, validity, o, g, &kids));
        struct ArrowSchema *es = s->children[0];
        struct ArrowArray *ea = a->children[0];
        assert_int_equal(arrow_schema_init(es, "+s", "entries", 0, 2), 0);
        assert_int_equal(arrow_array_init(ea, 1, 2), 0);
        ea->length = kids;
        gen_column(c->children[0], "key", kids, o, g, es->children[0], ea->children[0]);
        gen_column(c->children[1], "value", kids, o, g, es->children[1], ea->children[1]);
        return;
    }
    case LT_BOOLEAN: {
        uint8_t *bits = xcalloc((size_t)n / 8 + 1, 1);
        for (int64_t i = 0; i < n; i++)
            arrow_set_bit(bits, i, rng_below(g, 2));
        arrow_array_own_buffer(a, 1, bits);
        return;
    }
    case LT_STRING:
    case LT_JSON:
    case LT_BINARY: {
        int32_t *off = xcalloc((size_t)n + 1, sizeof *off);
        struct buf data = BUF_INIT;
        for (int64_t i = 0; i < n; i++) {
            gen_bytes(c, o, g, &data);
            off[i + 1] = (int32_t)data.len;
        }
        arrow_array_own_buffer(a, 1, off);
        char *bytes = buf_take(&data);
        arrow_array_own_buffer(a, 2, bytes ? bytes : xcalloc(1, 1));
        return;
    }
    default: {
        int w = test_fixed_width(c->type);
        uint8_t *vals = xcalloc((size_t)n, (size_t)w);
        for (int64_t i = 0; i < n; i++)
            gen_fixed(c, o, g, vals + i * w, w);
        arrow_array_own_buffer(a, 1, vals);
        return;
    }
    }
}

void gen_batch(const struct lake_table *t, int64_t n, const struct gen_options *o, struct rng *g,
               struct ArrowSchema *schema, struct ArrowArray *batch)
{
    size_t nc = t->root.nchildren;
    assert_int_equal(arrow_schema_init(schema, "+s", "", 0, (int64_t)nc), 0);
    assert_int_equal(arrow_array_init(batch, 1, (int64_t)nc), 0);
    batch->length = n;
    for (size_t i = 0; i < nc; i++) {
        const struct lake_column *c = t->root.children[i];
        gen_column(c, c->name, n, o, g, schema->children[i], batch->children[i]);
    }
}

/* ---- hand-made columns ---- */

static uint8_t *validity_of(const bool *valid, int64_t n, int64_t *nulls)
{
    *nulls = 0;
    if (!valid)
        return NULL;
    uint8_t *v = xcalloc((size_t)n / 8 + 1, 1);
    for (int64_t i = 0; i < n; i++) {
        arrow_set_bit(v, i, valid[i]);
        *nulls += !valid[i];
    }
    return v;
}

void col_fixed(struct ArrowSchema *s, struct ArrowArray *a, const char *name, const char *format,
               const void *values, size_t width, int64_t n, const bool *valid)
{
    assert_int_equal(arrow_schema_init(s, format, name, valid ? ARROW_FLAG_NULLABLE : 0, 0), 0);
    assert_int_equal(arrow_array_init(a, 2, 0), 0);
    a->length = n;
    arrow_array_own_buffer(a, 0, validity_of(valid, n, &a->null_count));
    uint8_t *data;
    if (strcmp(format, "b") == 0) {
        data = xcalloc((size_t)n / 8 + 1, 1);
        for (int64_t i = 0; i < n; i++)
            arrow_set_bit(data, i, ((const uint8_t *)values)[i]);
    } else {
        data = xcalloc((size_t)n, width);
        memcpy(data, values, (size_t)n * width);
    }
    arrow_array_own_buffer(a, 1, data);
}

void col_bytes(struct ArrowSchema *s, struct ArrowArray *a, const char *name, const char *format,
               const char *const *strings, const size_t *lens, int64_t n, const bool *valid)
{
    assert_int_equal(arrow_schema_init(s, format, name, valid ? ARROW_FLAG_NULLABLE : 0, 0), 0);
    assert_int_equal(arrow_array_init(a, 3, 0), 0);
    a->length = n;
    arrow_array_own_buffer(a, 0, validity_of(valid, n, &a->null_count));
    int32_t *off = xcalloc((size_t)n + 1, sizeof *off);
    struct buf data = BUF_INIT;
    for (int64_t i = 0; i < n; i++) {
        size_t len = lens ? lens[i] : strlen(strings[i]);
        assert_int_equal(buf_append(&data, strings[i], len), 0);
        off[i + 1] = (int32_t)data.len;
    }
    arrow_array_own_buffer(a, 1, off);
    char *bytes = buf_take(&data);
    arrow_array_own_buffer(a, 2, bytes ? bytes : xcalloc(1, 1));
}

void batch_of(struct ArrowSchema *schema, struct ArrowArray *batch, struct ArrowSchema *cols,
              struct ArrowArray *arrays, int64_t ncols, int64_t n)
{
    assert_int_equal(arrow_schema_init(schema, "+s", "", 0, ncols), 0);
    assert_int_equal(arrow_array_init(batch, 1, ncols), 0);
    batch->length = n;
    for (int64_t i = 0; i < ncols; i++) {
        arrow_schema_move(&cols[i], schema->children[i]);
        arrow_array_move(&arrays[i], batch->children[i]);
    }
}

/* ---- writing ---- */

void write_batches(const struct lake_table *t, const struct pq_write_options *o,
                   const struct ArrowSchema *schema, const struct ArrowArray *batches, size_t n,
                   struct buf *file, struct pq_write_result *result)
{
    struct pq_sink sink = {test_sink_buf_write, file};
    struct pq_writer *w;
    struct error err = {0};
    if (pq_writer_open(t, o, &sink, &w, &err) != 0)
        fail_msg("writer_open: %s", err.msg);
    for (size_t i = 0; i < n; i++)
        if (pq_writer_write(w, schema, &batches[i], &err) != 0) {
            pq_writer_free(w);
            fail_msg("write: %s", err.msg);
        }
    if (pq_writer_close(w, result, &err) != 0)
        fail_msg("close: %s", err.msg);
    assert_int_equal(result->file_size, file->len);
}

/* ---- comparing ---- */

static bool slot_valid(const struct ArrowArray *a, int64_t i)
{
    const uint8_t *v = a->n_buffers > 0 ? a->buffers[0] : NULL;
    return !v || arrow_bit(v, a->offset + i);
}

/* The Arrow format the reader gives a column written from `c`. */
static const char *read_format(const struct lake_column *c, char *buf, size_t size)
{
    if (c->type == LT_UINT32)
        return "l"; /* written as INT64 (see schema.c) */
    if (c->type == LT_TIMESTAMP_S)
        return "tsm:"; /* written as milliseconds */
    return pq_arrow_format_for(c, buf, size);
}

static void expect_field(const struct lake_column *c, const char *name, const struct ArrowSchema *s,
                         bool with_id)
{
    char fmt[32];
    const char *want = read_format(c, fmt, sizeof fmt);
    if (strcmp(s->format, want) != 0 || strcmp(s->name, name) != 0)
        fail_msg("field %s: format '%s' name '%s', expected '%s' '%s'", c->name, s->format, s->name,
                 want, name);
    assert_int_equal((s->flags & ARROW_FLAG_NULLABLE) != 0, c->nullable);
    char id[32] = "";
    if (with_id) {
        assert_true(arrow_metadata_get(s->metadata, "PARQUET:field_id", id, sizeof id));
        assert_int_equal(strtoll(id, NULL, 10), c->field_id);
    }
    if (c->type == LT_STRUCT) {
        assert_int_equal(s->n_children, (int64_t)c->nchildren);
        for (size_t i = 0; i < c->nchildren; i++)
            expect_field(c->children[i], c->children[i]->name, s->children[i], true);
    } else if (c->type == LT_LIST) {
        expect_field(c->children[0], "element", s->children[0], true);
    } else if (c->type == LT_MAP) {
        const struct ArrowSchema *es = s->children[0];
        assert_string_equal(es->format, "+s");
        expect_field(c->children[0], "key", es->children[0], true);
        expect_field(c->children[1], "value", es->children[1], true);
    }
}

static void bytes_at(const struct ArrowArray *a, int64_t i, const uint8_t **p, int64_t *len)
{
    const int32_t *off = a->buffers[1];
    int64_t k = a->offset + i;
    *p = (const uint8_t *)a->buffers[2] + off[k];
    *len = off[k + 1] - off[k];
}

static void compare_slot(const struct lake_column *c, const char *path, const struct ArrowArray *in,
                         int64_t i, const struct ArrowArray *out, int64_t j, int64_t row)
{
    bool vi = slot_valid(in, i), vo = slot_valid(out, j);
    if (vi != vo)
        fail_msg("%s, row %lld: %s in, %s out", path, (long long)row, vi ? "valid" : "null",
                 vo ? "valid" : "null");
    if (!vi)
        return;
    char kp[512];
    switch (c->type) {
    case LT_STRUCT:
        for (size_t k = 0; k < c->nchildren; k++) {
            snprintf(kp, sizeof kp, "%s.%s", path, c->children[k]->name);
            compare_slot(c->children[k], kp, in->children[k], in->offset + i, out->children[k],
                         out->offset + j, row);
        }
        return;
    case LT_LIST:
    case LT_MAP: {
        const int32_t *oi = in->buffers[1], *oo = out->buffers[1];
        int64_t bi = oi[in->offset + i], ni = oi[in->offset + i + 1] - bi;
        int64_t bo = oo[out->offset + j], no = oo[out->offset + j + 1] - bo;
        if (ni != no)
            fail_msg("%s, row %lld: %lld entries in, %lld out", path, (long long)row, (long long)ni,
                     (long long)no);
        for (int64_t k = 0; k < ni; k++) {
            if (c->type == LT_LIST) {
                snprintf(kp, sizeof kp, "%s[%lld]", path, (long long)k);
                compare_slot(c->children[0], kp, in->children[0], bi + k, out->children[0], bo + k,
                             row);
            } else {
                const struct ArrowArray *ei = in->children[0], *eo = out->children[0];
                snprintf(kp, sizeof kp, "%s{%lld}.key", path, (long long)k);
                compare_slot(c->children[0], kp, ei->children[0], ei->offset + bi + k,
                             eo->children[0], eo->offset + bo + k, row);
                snprintf(kp, sizeof kp, "%s{%lld}.value", path, (long long)k);
                compare_slot(c->children[1], kp, ei->children[1], ei->offset + bi + k,
                             eo->children[1], eo->offset + bo + k, row);
            }
        }
        return;
    }
    case LT_VARIANT: /* unshredded storage: the same bytes */
        for (int k = 0; k < 2; k++) {
            const uint8_t *pa, *pb;
            int64_t la, lb;
            bytes_at(in->children[k], in->offset + i, &pa, &la);
            bytes_at(out->children[k], out->offset + j, &pb, &lb);
            if (la != lb || memcmp(pa, pb, (size_t)la) != 0)
                fail_msg("%s, row %lld: variant %s bytes differ", path, (long long)row,
                         k ? "value" : "metadata");
        }
        return;
    case LT_BOOLEAN: {
        bool a = arrow_bit(in->buffers[1], in->offset + i);
        bool b = arrow_bit(out->buffers[1], out->offset + j);
        if (a != b)
            fail_msg("%s, row %lld: %d in, %d out", path, (long long)row, a, b);
        return;
    }
    case LT_STRING:
    case LT_JSON:
    case LT_BINARY: {
        const uint8_t *pa, *pb;
        int64_t la, lb;
        bytes_at(in, i, &pa, &la);
        bytes_at(out, j, &pb, &lb);
        if (la != lb || memcmp(pa, pb, (size_t)la) != 0)
            fail_msg("%s, row %lld: '%.*s' in, '%.*s' out", path, (long long)row, (int)la, pa,
                     (int)lb, pb);
        return;
    }
    case LT_UINT32: {
        uint32_t a;
        int64_t b;
        memcpy(&a, (const uint8_t *)in->buffers[1] + (in->offset + i) * 4, 4);
        memcpy(&b, (const uint8_t *)out->buffers[1] + (out->offset + j) * 8, 8);
        if ((int64_t)a != b)
            fail_msg("%s, row %lld: %u in, %lld out", path, (long long)row, a, (long long)b);
        return;
    }
    case LT_TIMESTAMP_S: {
        int64_t a, b;
        memcpy(&a, (const uint8_t *)in->buffers[1] + (in->offset + i) * 8, 8);
        memcpy(&b, (const uint8_t *)out->buffers[1] + (out->offset + j) * 8, 8);
        if (a * 1000 != b)
            fail_msg("%s, row %lld: %llds in, %lldms out", path, (long long)row, (long long)a,
                     (long long)b);
        return;
    }
    default: {
        size_t w = (size_t)test_fixed_width(c->type);
        const uint8_t *a = (const uint8_t *)in->buffers[1] + (size_t)(in->offset + i) * w;
        const uint8_t *b = (const uint8_t *)out->buffers[1] + (size_t)(out->offset + j) * w;
        if (memcmp(a, b, w) != 0) {
            uint64_t x = 0, y = 0;
            memcpy(&x, a, w < 8 ? w : 8);
            memcpy(&y, b, w < 8 ? w : 8);
            fail_msg("%s, row %lld: %#llx in, %#llx out", path, (long long)row,
                     (unsigned long long)x, (unsigned long long)y);
        }
        return;
    }
    }
}

void expect_file_equals(const struct lake_table *t, const struct buf *file,
                        const struct ArrowSchema *schema, const struct ArrowArray *batches,
                        size_t n)
{
    (void)schema;
    struct pq_source src;
    pq_source_memory(&src, file->data, file->len);
    struct pq_reader *r;
    struct error err = {0};
    if (pq_reader_open(&src, &r, &err) != 0)
        fail_msg("reader_open: %s", err.msg);

    struct ArrowSchema out_schema;
    if (pq_reader_arrow_schema(r, &out_schema, &err) != 0)
        fail_msg("arrow_schema: %s", err.msg);
    size_t nc = t->root.nchildren;
    assert_int_equal(out_schema.n_children, (int64_t)nc);
    for (size_t c = 0; c < nc; c++)
        expect_field(t->root.children[c], t->root.children[c]->name, out_schema.children[c], true);
    out_schema.release(&out_schema);

    int64_t total_in = 0;
    for (size_t b = 0; b < n; b++)
        total_in += batches[b].length;
    assert_int_equal(pq_reader_meta(r)->num_rows, total_in);

    size_t bi = 0;
    int64_t ri = 0, row = 0;
    for (size_t g = 0; g < pq_reader_meta(r)->nrow_groups; g++) {
        struct ArrowArray rg;
        if (pq_reader_read_row_group(r, g, &rg, &err) != 0)
            fail_msg("row group %zu: %s", g, err.msg);
        assert_int_equal(rg.n_children, (int64_t)nc);
        for (int64_t j = 0; j < rg.length; j++, ri++, row++) {
            while (bi < n && ri >= batches[bi].length) {
                bi++;
                ri = 0;
            }
            assert_true(bi < n);
            for (size_t c = 0; c < nc; c++)
                compare_slot(t->root.children[c], t->root.children[c]->name,
                             batches[bi].children[c], ri, rg.children[c], j, row);
        }
        rg.release(&rg);
    }
    assert_int_equal(row, total_in);
    pq_reader_free(r);
}
