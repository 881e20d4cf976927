/* See pq_shapes.h. */
#include "pq_shapes.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "parquet/compress.h"
#include "parquet/encoding.h"
#include "parquet/meta.h"
#include "pq_testlib.h"

/* ---- files from the writer ---- */

struct writer_shape {
    const char *columns;
    int64_t rows;
    enum pq_codec codec;
    bool dictionary, distinct_small, page_index;
    int64_t page_bytes, row_group_bytes;
    bool kv;
};

static const char flat_json[] =
    "[{'name':'id','type':'long','nullable':false},{'name':'i','type':'int'},"
    "{'name':'s','type':'string'},{'name':'d','type':'double'},{'name':'b','type':'boolean'},"
    "{'name':'dt','type':'date'},"
    "{'name':'dec','type':'decimal','type_params':{'precision':9,'scale':2}},"
    "{'name':'u','type':'uuid'},{'name':'bin','type':'binary'}]";

static const char scalars_json[] =
    "[{'name':'i8','type':'int8'},{'name':'i16','type':'int16','nullable':false},"
    "{'name':'u8','type':'uint8'},{'name':'u16','type':'uint16'},{'name':'u32','type':'uint32'},"
    "{'name':'u64','type':'uint64'},{'name':'f','type':'float'},{'name':'t','type':'time'},"
    "{'name':'ts_s','type':'timestamp_s'},{'name':'ts_ms','type':'timestamp_ms'},"
    "{'name':'ts','type':'timestamp'},{'name':'ts_ns','type':'timestamp_ns'},"
    "{'name':'tstz','type':'timestamptz'},{'name':'j','type':'json'},"
    "{'name':'d38','type':'decimal','type_params':{'precision':38,'scale':10},"
    "'nullable':false}]";

static const char small_json[] =
    "[{'name':'k','type':'long','nullable':false},{'name':'v','type':'string'},"
    "{'name':'l','type':'list','children':[{'name':'element','type':'long'}]}]";

static void build_with_writer(const struct writer_shape *ws, uint64_t seed, struct buf *out)
{
    struct test_table tt;
    test_table_init(&tt, ws->columns);
    struct rng g = {seed};
    struct gen_options gen = {.null_per_mille = 200,
                              .max_list_len = 3,
                              .max_string_len = 8,
                              .distinct_small = ws->distinct_small};
    struct ArrowSchema schema;
    struct ArrowArray batch;
    gen_batch(&tt.t, ws->rows, &gen, &g, &schema, &batch);
    struct pq_write_options o;
    pq_write_options_default(&o);
    o.codec = ws->codec;
    o.dictionary = ws->dictionary;
    o.page_index = ws->page_index;
    o.page_bytes = ws->page_bytes;
    o.row_group_bytes = ws->row_group_bytes;
    struct pq_key_value kv[] = {{"hoglake.shape", "kv"}, {"no.value", NULL}};
    if (ws->kv) {
        o.kv = kv;
        o.nkv = 2;
    }
    struct pq_write_result result;
    write_batches(&tt.t, &o, &schema, &batch, 1, out, &result);
    pq_write_result_release(&result);
    batch.release(&batch);
    schema.release(&schema);
    test_table_release(&tt);
}

static const struct writer_shape writer_shapes[] = {
    {flat_json, 120, PQ_UNCOMPRESSED, false, false, true, 512, 4096, false},
    {flat_json, 120, PQ_SNAPPY, true, true, true, 512, 4096, false},
    {pq_nested_table, 40, PQ_GZIP, true, false, true, 400, 1 << 20, false},
    {pq_nested_table, 40, PQ_ZSTD, false, true, false, 1 << 20, 1 << 20, false},
    {scalars_json, 60, PQ_LZ4_RAW, true, true, true, 1 << 20, 1 << 20, false},
    {small_json, 80, PQ_ZSTD, true, false, true, 64, 2048, true},
    {small_json, 30, PQ_UNCOMPRESSED, true, true, true, 1 << 20, 1 << 20, true},
};
static const char *const writer_names[] = {
    "flat_plain_uncompressed", "flat_dict_snappy", "nested_dict_gzip",       "nested_plain_zstd",
    "scalars_dict_lz4raw",     "small_pages_zstd", "small_dict_uncompressed"};

/* ---- files put together by hand ---- */

static void must(int rc)
{
    assert_int_equal(rc, 0);
}

void pq_craft_begin(struct pq_craft *c, struct buf *out, enum pq_codec codec,
                    const struct pq_schema_element *el, size_t nel)
{
    memset(c, 0, sizeof *c);
    c->out = out;
    c->codec = codec;
    c->ctx = pq_codec_ctx_new();
    assert_non_null(c->ctx);
    c->el = el;
    c->nel = nel;
    must(buf_append(out, "PAR1", 4));
}

void pq_craft_group(struct pq_craft *c, int64_t rows)
{
    assert_true(c->ngroups < CRAFT_MAX_GROUPS);
    struct pq_row_group *g = &c->groups[c->ngroups];
    g->columns = c->cols[c->ngroups];
    g->num_rows = rows;
    c->ngroups++;
}

void pq_craft_column(struct pq_craft *c, const char *const *path, size_t npath, enum pq_type type,
                     int16_t max_def, int16_t max_rep)
{
    struct pq_row_group *g = &c->groups[c->ngroups - 1];
    assert_true(g->ncolumns < CRAFT_MAX_COLUMNS);
    struct pq_column_chunk *cc = &g->columns[g->ncolumns];
    memset(cc, 0, sizeof *cc);
    cc->has_meta = true;
    cc->meta.type = type;
    cc->meta.path = (const char **)path;
    cc->meta.npath = npath;
    cc->meta.codec = c->codec;
    cc->meta.encodings = c->encodings[c->ngroups - 1][g->ncolumns];
    g->ncolumns++;
    c->cc = cc;
    c->max_def = max_def;
    c->max_rep = max_rep;
    c->chunk_start = c->out->len;
    c->seen_data = false;
    c->total_uncompressed = 0;
}

static void note_encoding(struct pq_craft *c, int32_t enc)
{
    struct pq_column_meta *m = &c->cc->meta;
    for (size_t i = 0; i < m->nencodings; i++)
        if (m->encodings[i] == enc)
            return;
    assert_true(m->nencodings < CRAFT_MAX_ENCODINGS);
    m->encodings[m->nencodings++] = enc;
}

static void put_page(struct pq_craft *c, const struct pq_page_header *h, const struct buf *body)
{
    struct buf hb = BUF_INIT;
    must(pq_encode_page_header(h, &hb));
    if (h->type == PQ_DICTIONARY_PAGE && !c->cc->meta.has_dictionary_page_offset) {
        c->cc->meta.has_dictionary_page_offset = true;
        c->cc->meta.dictionary_page_offset = (int64_t)c->out->len;
    } else if (h->type != PQ_DICTIONARY_PAGE && !c->seen_data) {
        c->cc->meta.data_page_offset = (int64_t)c->out->len;
        c->seen_data = true;
    }
    must(buf_append(c->out, hb.data, hb.len));
    must(buf_append(c->out, body->data, body->len));
    c->total_uncompressed += (int64_t)hb.len + h->uncompressed_size;
    buf_free(&hb);
}

static void compress_into(struct pq_craft *c, enum pq_codec codec, const struct buf *src,
                          struct buf *dst)
{
    struct error err;
    must(pq_compress(c->ctx, codec, 0, src->data, src->len, dst, &err));
}

static void put_u32(struct buf *b, uint32_t v)
{
    must(buf_append(b, &v, 4));
}

/* RLE/bit-packed hybrid levels; v1 pages prefix them with their length. */
static void rle_levels(struct buf *out, const uint16_t *lv, size_t n, int16_t max, bool prefix)
{
    struct buf t = BUF_INIT;
    must(pq_rle_encode_u16(lv, n, pq_bit_width((uint64_t)max), &t));
    if (prefix)
        put_u32(out, (uint32_t)t.len);
    must(buf_append(out, t.data, t.len));
    buf_free(&t);
}

/* The deprecated BIT_PACKED levels: MSB first, no length. */
static void bitpacked_levels(struct buf *out, const uint16_t *lv, size_t n, int16_t max)
{
    int bw = pq_bit_width((uint64_t)max);
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = 0; i < n; i++) {
        acc = acc << bw | lv[i];
        bits += bw;
        while (bits >= 8) {
            must(buf_putc(out, (char)(uint8_t)(acc >> (bits - 8))));
            bits -= 8;
        }
    }
    if (bits)
        must(buf_putc(out, (char)(uint8_t)(acc << (8 - bits))));
}

void pq_craft_page(struct pq_craft *c, const struct pq_page_header *h, const void *body, size_t n)
{
    struct buf b = {(char *)body, n, n};
    put_page(c, h, &b);
}

void pq_craft_dict(struct pq_craft *c, int32_t n, const struct buf *plain)
{
    struct buf body = BUF_INIT;
    compress_into(c, c->codec, plain, &body);
    struct pq_page_header h = {.type = PQ_DICTIONARY_PAGE,
                               .uncompressed_size = (int32_t)plain->len,
                               .compressed_size = (int32_t)body.len,
                               .num_values = n,
                               .encoding = PQ_ENC_PLAIN};
    note_encoding(c, PQ_ENC_PLAIN);
    put_page(c, &h, &body);
    buf_free(&body);
}

/* A data page v1: levels (RLE, or BIT_PACKED when bitpacked) then values,
 * all compressed. */
void pq_craft_v1(struct pq_craft *c, enum pq_encoding enc, size_t n, const uint16_t *rep,
                 const uint16_t *def, bool bitpacked, const struct buf *values)
{
    struct buf raw = BUF_INIT, body = BUF_INIT;
    enum pq_encoding lenc = bitpacked ? PQ_ENC_BIT_PACKED : PQ_ENC_RLE;
    if (c->max_rep) {
        if (bitpacked)
            bitpacked_levels(&raw, rep, n, c->max_rep);
        else
            rle_levels(&raw, rep, n, c->max_rep, true);
    }
    if (c->max_def) {
        if (bitpacked)
            bitpacked_levels(&raw, def, n, c->max_def);
        else
            rle_levels(&raw, def, n, c->max_def, true);
    }
    must(buf_append(&raw, values->data, values->len));
    compress_into(c, c->codec, &raw, &body);
    struct pq_page_header h = {.type = PQ_DATA_PAGE,
                               .uncompressed_size = (int32_t)raw.len,
                               .compressed_size = (int32_t)body.len,
                               .num_values = (int32_t)n,
                               .encoding = enc,
                               .def_encoding = lenc,
                               .rep_encoding = lenc};
    note_encoding(c, (int32_t)enc);
    if (c->max_def || c->max_rep)
        note_encoding(c, (int32_t)lenc);
    put_page(c, &h, &body);
    buf_free(&raw);
    buf_free(&body);
}

/* A data page v2: uncompressed levels, then the values, compressed when
 * `compressed`. */
void pq_craft_v2(struct pq_craft *c, enum pq_encoding enc, size_t n, int32_t rows,
                 const uint16_t *rep, const uint16_t *def, const struct buf *values,
                 bool compressed)
{
    struct buf rl = BUF_INIT, dl = BUF_INIT, body = BUF_INIT;
    int32_t nulls = 0;
    if (c->max_rep)
        rle_levels(&rl, rep, n, c->max_rep, false);
    if (c->max_def) {
        rle_levels(&dl, def, n, c->max_def, false);
        for (size_t i = 0; i < n; i++)
            nulls += def[i] < c->max_def;
    }
    must(buf_append(&body, rl.data, rl.len));
    must(buf_append(&body, dl.data, dl.len));
    compress_into(c, compressed ? c->codec : PQ_UNCOMPRESSED, values, &body);
    struct pq_page_header h = {.type = PQ_DATA_PAGE_V2,
                               .uncompressed_size = (int32_t)(rl.len + dl.len + values->len),
                               .compressed_size = (int32_t)body.len,
                               .num_values = (int32_t)n,
                               .num_nulls = nulls,
                               .num_rows = rows,
                               .encoding = enc,
                               .def_levels_len = (int32_t)dl.len,
                               .rep_levels_len = (int32_t)rl.len,
                               .is_compressed = compressed};
    note_encoding(c, (int32_t)enc);
    note_encoding(c, PQ_ENC_RLE);
    put_page(c, &h, &body);
    buf_free(&rl);
    buf_free(&dl);
    buf_free(&body);
}

void pq_craft_column_end(struct pq_craft *c, int64_t num_values)
{
    struct pq_column_meta *m = &c->cc->meta;
    m->num_values = num_values;
    m->total_compressed_size = (int64_t)(c->out->len - c->chunk_start);
    m->total_uncompressed_size = c->total_uncompressed;
    c->cc->file_offset = (int64_t)c->chunk_start;
    struct pq_row_group *g = &c->groups[c->ngroups - 1];
    g->total_byte_size += c->total_uncompressed;
}

void pq_craft_finish(struct pq_craft *c, void (*edit)(struct pq_file_meta *m, void *arg), void *arg)
{
    struct pq_file_meta m = {0};
    m.version = 2;
    m.schema = (struct pq_schema_element *)c->el;
    m.nschema = c->nel;
    m.row_groups = c->groups;
    m.nrow_groups = c->ngroups;
    for (size_t g = 0; g < c->ngroups; g++)
        m.num_rows += c->groups[g].num_rows;
    m.created_by = "hoglake pq_shapes";
    if (edit)
        edit(&m, arg);
    size_t start = c->out->len;
    must(pq_encode_file_meta(&m, c->out));
    put_u32(c->out, (uint32_t)(c->out->len - start));
    must(buf_append(c->out, "PAR1", 4));
    pq_codec_ctx_free(c->ctx);
}

/* ---- value encoders for the hand-made pages ---- */

static void plain_fixed(struct buf *out, const void *v, size_t width)
{
    must(buf_append(out, v, width));
}

static void plain_bytes(struct buf *out, const char *s)
{
    put_u32(out, (uint32_t)strlen(s));
    must(buf_append(out, s, strlen(s)));
}

static void delta_values(struct buf *out, const int64_t *v, size_t n)
{
    must(pq_delta_encode_i64(v, n, out));
}

static void delta_lengths(struct buf *out, const char *const *s, size_t n)
{
    int64_t *lens = calloc(n ? n : 1, sizeof *lens);
    assert_non_null(lens);
    for (size_t i = 0; i < n; i++)
        lens[i] = (int64_t)strlen(s[i]);
    delta_values(out, lens, n);
    for (size_t i = 0; i < n; i++)
        must(buf_append(out, s[i], strlen(s[i])));
    free(lens);
}

static void delta_byte_array(struct buf *out, const char *const *s, size_t n)
{
    int64_t *pre = calloc(n ? n : 1, sizeof *pre), *suf = calloc(n ? n : 1, sizeof *suf);
    assert_non_null(pre);
    assert_non_null(suf);
    for (size_t i = 0; i < n; i++) {
        size_t p = 0;
        if (i)
            while (s[i][p] && s[i][p] == s[i - 1][p])
                p++;
        pre[i] = (int64_t)p;
        suf[i] = (int64_t)(strlen(s[i]) - p);
    }
    delta_values(out, pre, n);
    delta_values(out, suf, n);
    for (size_t i = 0; i < n; i++)
        must(buf_append(out, s[i] + pre[i], (size_t)suf[i]));
    free(pre);
    free(suf);
}

static void byte_stream_split(struct buf *out, const uint8_t *v, size_t n, size_t width)
{
    for (size_t k = 0; k < width; k++)
        for (size_t i = 0; i < n; i++)
            must(buf_putc(out, (char)v[i * width + k]));
}

static void rle_bools(struct buf *out, const uint8_t *v, size_t n)
{
    uint16_t *t = calloc(n ? n : 1, sizeof *t);
    assert_non_null(t);
    for (size_t i = 0; i < n; i++)
        t[i] = v[i];
    rle_levels(out, t, n, 1, true);
    free(t);
}

static void dict_indices(struct buf *out, const uint32_t *idx, size_t n, int bw)
{
    must(buf_putc(out, (char)bw));
    must(pq_rle_encode_u32(idx, n, bw, out));
}

/* ---- shape: data pages v2 with the DELTA and BYTE_STREAM_SPLIT encodings ---- */

struct pq_schema_element pq_el_leaf(const char *name, enum pq_repetition rep, enum pq_type type)
{
    struct pq_schema_element e = {0};
    e.name = name;
    e.has_repetition = true;
    e.repetition = rep;
    e.has_type = true;
    e.type = type;
    return e;
}

struct pq_schema_element pq_el_group(const char *name, enum pq_repetition rep, int32_t n)
{
    struct pq_schema_element e = {0};
    e.name = name;
    e.has_repetition = true;
    e.repetition = rep;
    e.has_num_children = true;
    e.num_children = n;
    return e;
}

/* The schema's root: a group without a repetition. */
struct pq_schema_element pq_el_root(int32_t n)
{
    struct pq_schema_element e = pq_el_group("schema", PQ_REQUIRED, n);
    e.has_repetition = false;
    return e;
}

static const char *const words[] = {"alpha", "alphabet", "alpine", "beta",  "betamax", "",
                                    "gamma", "gammas",   "delta",  "delta", "deltoid", "x"};

static void shape_v2_delta(struct buf *out)
{
    enum { ROWS = 24, HALF = 12, NCOL = 8 };
    struct pq_schema_element el[NCOL + 1];
    el[0] = pq_el_root(NCOL);
    el[1] = pq_el_leaf("id", PQ_REQUIRED, PQ_INT64);
    el[2] = pq_el_leaf("s", PQ_OPTIONAL, PQ_BYTE_ARRAY);
    el[2].logical.kind = PQ_LT_STRING;
    el[3] = pq_el_leaf("p", PQ_OPTIONAL, PQ_BYTE_ARRAY);
    el[3].has_converted = true;
    el[3].converted = PQ_CT_UTF8;
    el[4] = pq_el_leaf("d", PQ_REQUIRED, PQ_DOUBLE);
    el[5] = pq_el_leaf("b", PQ_OPTIONAL, PQ_BOOLEAN);
    el[6] = pq_el_leaf("i", PQ_REQUIRED, PQ_INT32);
    el[7] = pq_el_leaf("f", PQ_REQUIRED, PQ_FIXED_LEN_BYTE_ARRAY);
    el[7].type_length = 4;
    el[8] = pq_el_leaf("k", PQ_OPTIONAL, PQ_INT32);
    static const char *const paths[NCOL] = {"id", "s", "p", "d", "b", "i", "f", "k"};

    uint16_t def[ROWS], def_req[ROWS] = {0};
    for (int r = 0; r < ROWS; r++)
        def[r] = r % 5 != 3;
    struct pq_craft c;
    pq_craft_begin(&c, out, PQ_SNAPPY, el, NCOL + 1);
    pq_craft_group(&c, ROWS);
    for (int col = 0; col < NCOL; col++) {
        bool optional = el[col + 1].repetition == PQ_OPTIONAL;
        pq_craft_column(&c, &paths[col], 1, el[col + 1].type, optional ? 1 : 0, 0);
        const uint16_t *d = optional ? def : def_req;
        if (col == 7) {
            /* A dictionary, then RLE_DICTIONARY indices. */
            struct buf dict = BUF_INIT;
            for (int32_t v = 0; v < 5; v++) {
                int32_t x = v * 1000 - 7;
                plain_fixed(&dict, &x, 4);
            }
            pq_craft_dict(&c, 5, &dict);
            buf_free(&dict);
        }
        for (int page = 0; page < 2; page++) {
            int from = page * HALF;
            size_t present = 0;
            struct buf v = BUF_INIT;
            const char *strs[HALF];
            int64_t ints[HALF];
            uint8_t raw[HALF * 8];
            uint32_t idx[HALF];
            for (int r = from; r < from + HALF; r++) {
                if (!d[r] && optional)
                    continue;
                strs[present] = words[r % 12];
                ints[present] = col == 0 ? (int64_t)r * 1000003 - 5 : (int64_t)(r * r) - 40;
                double dv = r * 1.25 - 3;
                memcpy(raw + present * 8, &dv, 8);
                if (col == 6)
                    memcpy(raw + present * 4, &(int32_t){r * 77}, 4);
                if (col == 4)
                    raw[present] = r % 3 == 0;
                idx[present] = (uint32_t)(r % 5);
                present++;
            }
            enum pq_encoding enc;
            switch (col) {
            case 0:
            case 5:
                enc = PQ_ENC_DELTA_BINARY_PACKED;
                delta_values(&v, ints, present);
                break;
            case 1:
                enc = PQ_ENC_DELTA_LENGTH_BYTE_ARRAY;
                delta_lengths(&v, strs, present);
                break;
            case 2:
                enc = PQ_ENC_DELTA_BYTE_ARRAY;
                delta_byte_array(&v, strs, present);
                break;
            case 3:
                enc = PQ_ENC_BYTE_STREAM_SPLIT;
                byte_stream_split(&v, raw, present, 8);
                break;
            case 4: {
                enc = PQ_ENC_RLE;
                uint8_t bits[HALF];
                for (size_t k = 0; k < present; k++)
                    bits[k] = raw[k];
                rle_bools(&v, bits, present);
                break;
            }
            case 6:
                enc = PQ_ENC_BYTE_STREAM_SPLIT;
                byte_stream_split(&v, raw, present, 4);
                break;
            default:
                enc = PQ_ENC_RLE_DICTIONARY;
                dict_indices(&v, idx, present, 3);
                break;
            }
            /* The second page of every other column is not compressed. */
            pq_craft_v2(&c, enc, HALF, HALF, NULL, d + from, &v, page == 0 || col % 2 == 0);
            buf_free(&v);
        }
        pq_craft_column_end(&c, ROWS);
    }
    pq_craft_finish(&c, NULL, NULL);
}

/* ---- shape: legacy layouts in data pages v1 ---- */

/* Levels and values for a list-like column: row r holds (r % 4) entries
 * (r % 4 == 0: null when the column is nullable, else empty); max_def is
 * the level of a present entry. */
size_t pq_shape_list_levels(int rows, bool nullable, int16_t max_def, uint16_t *rep, uint16_t *def)
{
    size_t n = 0;
    for (int r = 0; r < rows; r++) {
        int k = r % 4;
        if (k == 0) {
            rep[n] = 0;
            def[n++] = nullable ? 0 : (uint16_t)(max_def - 1);
            continue;
        }
        if (k == 1 && nullable) {
            rep[n] = 0;
            def[n++] = (uint16_t)(max_def - 1); /* empty */
            continue;
        }
        for (int e = 0; e < k; e++) {
            rep[n] = e ? 1 : 0;
            def[n++] = (uint16_t)max_def;
        }
    }
    return n;
}

static void shape_legacy_v1(struct buf *out)
{
    enum { ROWS = 16 };
    struct pq_schema_element el[18];
    size_t ne = 0;
    el[ne++] = pq_el_root(11);
    el[ne++] = pq_el_leaf("ts", PQ_OPTIONAL, PQ_INT96); /* 1 */
    struct pq_schema_element e = pq_el_leaf("dec32", PQ_REQUIRED, PQ_INT32);
    e.has_converted = true;
    e.converted = PQ_CT_DECIMAL;
    e.has_decimal = true;
    e.precision = 9;
    e.scale = 2;
    el[ne++] = e; /* 2 */
    e = pq_el_leaf("dec64", PQ_OPTIONAL, PQ_INT64);
    e.logical.kind = PQ_LT_DECIMAL;
    e.logical.precision = 18;
    e.logical.scale = 4;
    el[ne++] = e; /* 3 */
    e = pq_el_leaf("decba", PQ_OPTIONAL, PQ_BYTE_ARRAY);
    e.logical.kind = PQ_LT_DECIMAL;
    e.logical.precision = 20;
    e.logical.scale = 2;
    el[ne++] = e; /* 4 */
    e = pq_el_group("arr", PQ_OPTIONAL, 1);
    e.has_converted = true;
    e.converted = PQ_CT_LIST;
    el[ne++] = e;                                          /* 5 */
    el[ne++] = pq_el_leaf("array", PQ_REPEATED, PQ_INT32); /* 6: two-level list */
    el[ne++] = pq_el_leaf("bare", PQ_REPEATED, PQ_INT64);  /* 7: a bare repeated field */
    e = pq_el_group("keys", PQ_OPTIONAL, 1);
    e.has_converted = true;
    e.converted = PQ_CT_MAP_KEY_VALUE;
    el[ne++] = e;                                      /* 8 */
    el[ne++] = pq_el_group("map", PQ_REPEATED, 1);     /* 9 */
    e = pq_el_leaf("key", PQ_REQUIRED, PQ_BYTE_ARRAY); /* 10 */
    e.has_converted = true;
    e.converted = PQ_CT_UTF8;
    el[ne++] = e;
    e = pq_el_group("tup", PQ_OPTIONAL, 1);
    e.logical.kind = PQ_LT_LIST;
    el[ne++] = e;                                        /* 11 */
    el[ne++] = pq_el_group("tup_tuple", PQ_REPEATED, 1); /* 12: "<list>_tuple" is the element */
    el[ne++] = pq_el_leaf("a", PQ_REQUIRED, PQ_INT32);   /* 13 */
    el[ne++] = pq_el_leaf("flag", PQ_REQUIRED, PQ_BOOLEAN);
    e = pq_el_leaf("half", PQ_OPTIONAL, PQ_FIXED_LEN_BYTE_ARRAY);
    e.type_length = 2;
    e.logical.kind = PQ_LT_FLOAT16;
    el[ne++] = e;
    e = pq_el_leaf("small", PQ_OPTIONAL, PQ_INT32);
    e.logical.kind = PQ_LT_INTEGER;
    e.logical.bit_width = 16;
    e.logical.is_signed = false;
    el[ne++] = e;

    static const char *const p_ts[] = {"ts"}, *const p_d32[] = {"dec32"},
                             *const p_d64[] = {"dec64"}, *const p_dba[] = {"decba"},
                             *const p_arr[] = {"arr", "array"}, *const p_bare[] = {"bare"},
                             *const p_keys[] = {"keys", "map", "key"},
                             *const p_tup[] = {"tup", "tup_tuple", "a"}, *const p_flag[] = {"flag"},
                             *const p_half[] = {"half"}, *const p_small[] = {"small"};
    uint16_t def[ROWS * 4], rep[ROWS * 4];
    uint16_t odef[ROWS];
    for (int r = 0; r < ROWS; r++)
        odef[r] = r % 3 != 1;

    struct pq_craft c;
    pq_craft_begin(&c, out, PQ_GZIP, el, ne);
    for (int g = 0; g < 2; g++) {
        int rows = g ? ROWS - 6 : 6;
        int base = g ? 6 : 0;
        pq_craft_group(&c, rows);
        const uint16_t *od = odef + base;
        struct buf v = BUF_INIT;

        /* ts: INT96 with BIT_PACKED definition levels */
        pq_craft_column(&c, p_ts, 1, PQ_INT96, 1, 0);
        for (int r = 0; r < rows; r++)
            if (od[r]) {
                int64_t nanos = (int64_t)(base + r) * 3600000000000LL;
                int32_t jd = 2440588 + base + r;
                plain_fixed(&v, &nanos, 8);
                plain_fixed(&v, &jd, 4);
            }
        pq_craft_v1(&c, PQ_ENC_PLAIN, (size_t)rows, NULL, od, true, &v);
        pq_craft_column_end(&c, rows);
        buf_reset(&v);

        pq_craft_column(&c, p_d32, 1, PQ_INT32, 0, 0);
        for (int r = 0; r < rows; r++)
            plain_fixed(&v, &(int32_t){(base + r) * 12345 - 99999}, 4);
        pq_craft_v1(&c, PQ_ENC_PLAIN, (size_t)rows, NULL, NULL, false, &v);
        pq_craft_column_end(&c, rows);
        buf_reset(&v);

        pq_craft_column(&c, p_d64, 1, PQ_INT64, 1, 0);
        for (int r = 0; r < rows; r++)
            if (od[r])
                plain_fixed(&v, &(int64_t){(int64_t)(base + r) * -987654321}, 8);
        pq_craft_v1(&c, PQ_ENC_PLAIN, (size_t)rows, NULL, od, false, &v);
        pq_craft_column_end(&c, rows);
        buf_reset(&v);

        pq_craft_column(&c, p_dba, 1, PQ_BYTE_ARRAY, 1, 0);
        for (int r = 0; r < rows; r++)
            if (od[r]) {
                uint8_t be[9] = {(uint8_t)(r & 1 ? 0xff : 0x00), 1, 2, 3, 4, 5, 6, 7, (uint8_t)r};
                size_t len = 1 + (size_t)(r % 9);
                put_u32(&v, (uint32_t)len);
                must(buf_append(&v, be, len));
            }
        pq_craft_v1(&c, PQ_ENC_PLAIN, (size_t)rows, NULL, od, false, &v);
        pq_craft_column_end(&c, rows);
        buf_reset(&v);

        /* arr: optional two-level list of required int32 */
        size_t n = pq_shape_list_levels(rows, true, 2, rep, def);
        pq_craft_column(&c, p_arr, 2, PQ_INT32, 2, 1);
        for (size_t i = 0; i < n; i++)
            if (def[i] == 2)
                plain_fixed(&v, &(int32_t){(int32_t)i * 3}, 4);
        pq_craft_v1(&c, PQ_ENC_PLAIN, n, rep, def, false, &v);
        pq_craft_column_end(&c, (int64_t)n);
        buf_reset(&v);

        /* bare: repeated int64, never null, sometimes empty */
        n = pq_shape_list_levels(rows, false, 1, rep, def);
        pq_craft_column(&c, p_bare, 1, PQ_INT64, 1, 1);
        for (size_t i = 0; i < n; i++)
            if (def[i] == 1)
                plain_fixed(&v, &(int64_t){(int64_t)i << 40}, 8);
        pq_craft_v1(&c, PQ_ENC_PLAIN, n, rep, def, false, &v);
        pq_craft_column_end(&c, (int64_t)n);
        buf_reset(&v);

        /* keys: a map with keys only, PLAIN_DICTIONARY (the v1 name) */
        n = pq_shape_list_levels(rows, true, 2, rep, def);
        pq_craft_column(&c, p_keys, 3, PQ_BYTE_ARRAY, 2, 1);
        struct buf dict = BUF_INIT;
        for (int k = 0; k < 4; k++)
            plain_bytes(&dict, words[k * 3]);
        pq_craft_dict(&c, 4, &dict);
        buf_free(&dict);
        {
            uint32_t idx[ROWS * 4];
            size_t m = 0;
            for (size_t i = 0; i < n; i++)
                if (def[i] == 2)
                    idx[m++] = (uint32_t)(i % 4);
            dict_indices(&v, idx, m, 2);
        }
        pq_craft_v1(&c, PQ_ENC_PLAIN_DICTIONARY, n, rep, def, false, &v);
        pq_craft_column_end(&c, (int64_t)n);
        buf_reset(&v);

        /* tup: a list whose repeated group is the element */
        n = pq_shape_list_levels(rows, true, 2, rep, def);
        pq_craft_column(&c, p_tup, 3, PQ_INT32, 2, 1);
        for (size_t i = 0; i < n; i++)
            if (def[i] == 2)
                plain_fixed(&v, &(int32_t){-(int32_t)i}, 4);
        pq_craft_v1(&c, PQ_ENC_PLAIN, n, rep, def, true, &v);
        pq_craft_column_end(&c, (int64_t)n);
        buf_reset(&v);

        pq_craft_column(&c, p_flag, 1, PQ_BOOLEAN, 0, 0);
        {
            uint8_t bits[ROWS];
            for (int r = 0; r < rows; r++)
                bits[r] = (uint8_t)((base + r) % 3 == 0);
            must(pq_plain_encode_bool(bits, (size_t)rows, &v));
        }
        pq_craft_v1(&c, PQ_ENC_PLAIN, (size_t)rows, NULL, NULL, false, &v);
        pq_craft_column_end(&c, rows);
        buf_reset(&v);

        pq_craft_column(&c, p_half, 1, PQ_FIXED_LEN_BYTE_ARRAY, 1, 0);
        for (int r = 0; r < rows; r++)
            if (od[r])
                plain_fixed(&v, &(uint16_t){(uint16_t)(0x3c00 + r)}, 2);
        pq_craft_v1(&c, PQ_ENC_PLAIN, (size_t)rows, NULL, od, false, &v);
        pq_craft_column_end(&c, rows);
        buf_reset(&v);

        pq_craft_column(&c, p_small, 1, PQ_INT32, 1, 0);
        for (int r = 0; r < rows; r++)
            if (od[r])
                plain_fixed(&v, &(int32_t){(base + r) * 4000}, 4);
        pq_craft_v1(&c, PQ_ENC_PLAIN, (size_t)rows, NULL, od, false, &v);
        pq_craft_column_end(&c, rows);
        buf_free(&v);
    }
    pq_craft_finish(&c, NULL, NULL);
}

/* ---- shape: deep nesting ---- */

/* Forty optional structs around an optional list of optional int32, in
 * data pages v2 compressed with LZ4_RAW: definition levels up to 43 (bit
 * width 6), nulls at every depth. */
static void shape_deep(struct buf *out)
{
    enum { DEPTH = 40, ROWS = 24 };
    struct pq_schema_element el[DEPTH + 4];
    static const char *path[DEPTH + 3];
    size_t ne = 0;
    el[ne++] = pq_el_root(1);
    for (int i = 0; i < DEPTH; i++) {
        el[ne++] = pq_el_group("g", PQ_OPTIONAL, 1);
        path[i] = "g";
    }
    struct pq_schema_element l = pq_el_group("l", PQ_OPTIONAL, 1);
    l.logical.kind = PQ_LT_LIST;
    el[ne++] = l;
    el[ne++] = pq_el_group("list", PQ_REPEATED, 1);
    el[ne++] = pq_el_leaf("element", PQ_OPTIONAL, PQ_INT32);
    path[DEPTH] = "l";
    path[DEPTH + 1] = "list";
    path[DEPTH + 2] = "element";
    const int16_t max_def = DEPTH + 3;

    uint16_t rep[ROWS * 3], def[ROWS * 3];
    struct buf v = BUF_INIT;
    size_t n = 0;
    for (int r = 0; r < ROWS; r++) {
        switch (r % 6) {
        case 0: /* null at some struct */
            rep[n] = 0;
            def[n++] = (uint16_t)(r % DEPTH);
            break;
        case 1: /* the list null */
            rep[n] = 0;
            def[n++] = DEPTH;
            break;
        case 2: /* the list empty */
            rep[n] = 0;
            def[n++] = DEPTH + 1;
            break;
        default:
            for (int k = 0; k <= r % 3; k++) {
                rep[n] = k ? 1 : 0;
                def[n] = (uint16_t)((r + k) % 2 ? max_def : max_def - 1);
                if (def[n] == max_def)
                    plain_fixed(&v, &(int32_t){r * 100 + k}, 4);
                n++;
            }
        }
    }
    struct pq_craft c;
    pq_craft_begin(&c, out, PQ_LZ4_RAW, el, ne);
    pq_craft_group(&c, ROWS);
    pq_craft_column(&c, path, DEPTH + 3, PQ_INT32, max_def, 1);
    pq_craft_v2(&c, PQ_ENC_PLAIN, n, ROWS, rep, def, &v, true);
    pq_craft_column_end(&c, (int64_t)n);
    pq_craft_finish(&c, NULL, NULL);
    buf_free(&v);
}

/* ---- the list ---- */

enum { NWRITER = sizeof writer_shapes / sizeof *writer_shapes };

static const struct {
    const char *name;
    void (*build)(struct buf *out);
} crafted[] = {
    {"v2_delta_bss_snappy", shape_v2_delta},
    {"legacy_v1_gzip", shape_legacy_v1},
    {"deep_v2_lz4raw", shape_deep},
};

size_t pq_shape_count(void)
{
    return NWRITER + sizeof crafted / sizeof *crafted;
}

const char *pq_shape_name(size_t i)
{
    return i < NWRITER ? writer_names[i] : crafted[i - NWRITER].name;
}

void pq_shape_build(size_t i, struct buf *out)
{
    if (i < NWRITER)
        build_with_writer(&writer_shapes[i], 1000 + i, out);
    else
        crafted[i - NWRITER].build(out);
}
