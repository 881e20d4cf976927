/* Unit tests for src/lake/partition: the scalar transforms and wire strings
 * against every vector of tests/vectors/transform_vectors.json that
 * test_lake_bucket does not check (the murmur3_32, bucket_hash and
 * bucket_encode kinds are its), the refusals and type gates, and the batch
 * driver: fanout grouping, nulls, struct leaves, refusals, agreement with
 * the scalar path on random batches, and its speed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "lake/partition.h"
#include "parquet/writer.h"
#include "pq_testlib.h"
#include "util/arrow.h"
#include "util/timefmt.h"
#include "vectors_testlib.h"

#ifndef HL_SHARED_VECTORS
#error "HL_SHARED_VECTORS must name the shared vectors directory"
#endif

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static json_t *doc; /* the vectors file, numbers kept exact */

static int setup(void **state)
{
    (void)state;
    doc = vectors_load_exact(HL_SHARED_VECTORS "/transform_vectors.json");
    return doc ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    json_decref(doc);
    return 0;
}

/* ---- reading vector values ---- */

static enum lake_type type_named(const char *name)
{
    enum lake_type t;
    if (!name || lake_type_lookup(name, &t, NULL) != LAKE_TYPE_OK)
        fail_msg("unknown type '%s'", name ? name : "(none)");
    return t;
}

static int64_t token_int(const json_t *v)
{
    const char *tok = vectors_num_token(v);
    if (!tok)
        fail_msg("not a number");
    return strtoll(tok, NULL, 10);
}

static size_t hex_bytes(const char *hex, uint8_t *out, size_t cap)
{
    size_t n = 0;
    for (const char *c = hex; c[0] && c[1]; c += 2) {
        if (*c == '-')
            c--; /* uuid dashes: step over one character */
        else {
            unsigned v;
            assert_int_equal(sscanf(c, "%2x", &v), 1);
            assert_true(n < cap);
            out[n++] = (uint8_t)v;
        }
    }
    return n;
}

/* "2017-11-16T22:31:08" (naive: read as UTC) or with an offset. */
static int64_t iso_micros(const char *s)
{
    const char *t = strchr(s, 'T');
    assert_non_null(t);
    char text[80];
    snprintf(text, sizeof text, "%s%s", s, strpbrk(t, "+-Z") ? "" : "Z");
    int64_t us;
    if (!time_parse_iso8601(text, &us))
        fail_msg("bad timestamp '%s'", s);
    return us;
}

/* A decimal text's scale: the vector's type_params, else its fraction. */
static int decimal_scale(const json_t *vec, const char *text)
{
    const json_t *tp = json_object_get(vec, "type_params");
    if (tp)
        return (int)token_int(json_object_get(tp, "scale"));
    const char *dot = text ? strchr(text, '.') : NULL;
    return dot ? (int)strlen(dot + 1) : 0;
}

__extension__ static __int128 unscaled_of(const char *text, int scale)
{
    __extension__ __int128 v = 0;
    int frac = -1;
    for (const char *c = text; *c; c++) {
        if (*c == '.')
            frac = 0;
        else if (*c >= '0' && *c <= '9') {
            v = v * 10 + (*c - '0');
            frac += frac >= 0;
        }
    }
    for (int k = frac < 0 ? 0 : frac; k < scale; k++)
        v *= 10;
    return text[0] == '-' ? -v : v;
}

struct input {
    struct lake_value v;
    uint8_t bytes[64];
    int scale;
};

/* A vector's input as a value of type t (ticks in the type's unit). */
static void read_input(enum lake_type t, const json_t *vec, const json_t *in, struct input *out)
{
    memset(out, 0, sizeof *out);
    const char *s = json_string_value(in);
    out->scale = decimal_scale(vec, s);
    if (!in || json_is_null(in)) {
        out->v.null = true;
    } else if (json_is_boolean(in)) {
        out->v.b = json_is_true(in);
    } else if (vectors_num_token(in)) {
        const char *tok = vectors_num_token(in);
        if (t == LT_UINT64)
            out->v.u = strtoull(tok, NULL, 10);
        else if (t == LT_FLOAT || t == LT_DOUBLE)
            out->v.d = strtod(tok, NULL);
        else if (t == LT_BOOLEAN)
            out->v.b = strtoll(tok, NULL, 10) != 0;
        else
            out->v.i = strtoll(tok, NULL, 10);
    } else if (t == LT_DATE) {
        int y, m, d;
        assert_int_equal(sscanf(s, "%d-%d-%d", &y, &m, &d), 3);
        out->v.i = time_days_from_civil(y, (unsigned)m, (unsigned)d);
    } else if (t == LT_TIME) {
        int h, mi, sec;
        assert_int_equal(sscanf(s, "%d:%d:%d", &h, &mi, &sec), 3);
        out->v.i = ((int64_t)h * 3600 + mi * 60 + sec) * 1000000;
    } else if (lake_type_is_timestamp(t)) {
        int64_t us = iso_micros(s);
        out->v.i = t == LT_TIMESTAMP_S    ? us / 1000000
                   : t == LT_TIMESTAMP_MS ? us / 1000
                   : t == LT_TIMESTAMP_NS ? us * 1000
                                          : us;
    } else if (t == LT_DECIMAL) {
        out->v.dec = unscaled_of(s, out->scale);
    } else if (t == LT_UUID || t == LT_BINARY) {
        out->v.bytes.data = out->bytes;
        out->v.bytes.len = hex_bytes(s, out->bytes, sizeof out->bytes);
    } else {
        out->v.bytes.data = (const uint8_t *)s;
        out->v.bytes.len = strlen(s);
    }
}

/* The wire string of a non-null value (malloc'd), or NULL with err set. */
static char *render(enum lake_type t, int scale, const struct lake_value *v, struct error *err)
{
    struct buf b = BUF_INIT;
    if (lake_partition_render(t, scale, v, &b, err) != 0) {
        buf_free(&b);
        return NULL;
    }
    char *s = buf_take(&b);
    return s ? s : strdup("");
}

/* A transform by name with the vector's param; 0 or -1 with err. */
static int vector_transform(const json_t *vec, const char *key, enum lake_type type,
                            enum lake_transform *tr, int32_t *param, struct error *err)
{
    const json_t *p = json_object_get(vec, "param");
    bool has = p && !json_is_null(p);
    int64_t pv = has ? token_int(p) : 0;
    *param = (int32_t)pv;
    if (lake_partition_parse_transform(json_string_value(json_object_get(vec, key)), tr, err) != 0)
        return -1;
    return lake_partition_check(*tr, has, pv, type, err);
}

static void to_hex(const uint8_t *b, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", b[i]);
    out[2 * n] = '\0';
}

/* ---- the scalar vectors ---- */

static void check_transform_vector(const json_t *vec)
{
    const char *name = json_string_value(json_object_get(vec, "transform"));
    enum lake_type type = type_named(json_string_value(json_object_get(vec, "type")));
    const json_t *want = json_object_get(vec, "expected");
    const char *want_err = json_string_value(json_object_get(want, "error"));
    struct error err = {0};
    enum lake_transform tr;
    int32_t param;
    struct input in;
    read_input(type, vec, json_object_get(vec, "input"), &in);
    struct lake_value out;
    int rc = vector_transform(vec, "transform", type, &tr, &param, &err);
    if (rc == 0)
        rc = lake_partition_apply(tr, param, type, &in.v, &out, &err);
    if (want_err) {
        if (rc == 0 || !strstr(err.msg, want_err))
            fail_msg("%s on %s: want error '%s', got rc %d '%s'", name, lake_type_name(type),
                     want_err, rc, err.msg);
        assert_int_equal(err.code, ERR_INVALID);
        return;
    }
    if (rc != 0)
        fail_msg("%s on %s: %s", name, lake_type_name(type), err.msg);
    if (json_is_null(want)) {
        assert_true(out.null);
        return;
    }
    assert_false(out.null);
    enum lake_type rt = lake_partition_result_type(tr, type);
    char hex[130];
    char *got;
    if (rt == LT_BINARY) {
        to_hex(out.bytes.data, out.bytes.len, hex);
        got = strdup(hex);
    } else {
        got = render(rt, in.scale, &out, &err);
    }
    if (!got)
        fail_msg("%s on %s: render: %s", name, lake_type_name(type), err.msg);
    const char *w = vectors_num_token(want) ? vectors_num_token(want) : json_string_value(want);
    if (strcmp(got, w) != 0)
        fail_msg("%s on %s: got '%s', want '%s'", name, lake_type_name(type), got, w);
    if (rt == LT_INT)
        assert_int_equal(out.i, token_int(want));
    free(got);
}

/* The kinds test_lake_bucket checks, and the two this file checks apart. */
static bool other_kind(const char *kind)
{
    static const char *const skip[] = {"murmur3_32", "bucket_hash", "bucket_encode", "wire_string",
                                       "transform_strings"};
    for (size_t i = 0; i < ARRAY_LEN(skip); i++)
        if (strcmp(kind, skip[i]) == 0)
            return false;
    return true;
}

static size_t each_vector(bool (*want)(const char *kind), const char *only,
                          void (*check)(const json_t *v))
{
    size_t i, seen = 0;
    json_t *v;
    json_array_foreach (json_object_get(doc, "vectors"), i, v) {
        const char *kind = json_string_value(json_object_get(v, "transform"));
        if (want ? want(kind) : strcmp(kind, only) == 0) {
            check(v);
            seen++;
        }
    }
    return seen;
}

static size_t count_kind(const char *kind)
{
    size_t i, n = 0;
    json_t *v;
    json_array_foreach (json_object_get(doc, "vectors"), i, v)
        n += strcmp(json_string_value(json_object_get(v, "transform")), kind) == 0;
    return n;
}

static void test_transform_vectors(void **state)
{
    (void)state;
    size_t n = each_vector(other_kind, NULL, check_transform_vector);
    /* truncate 28, day 19, bucket 18, hour 14, month 7, year 5, identity 3,
     * and one unknown transform. */
    assert_int_equal(count_kind("truncate"), 28);
    assert_int_equal(count_kind("bucket"), 18);
    assert_int_equal(n, 95);
}

/* ---- the driver on hand-made columns ---- */

/* Columns JSON for one column `c` of the type (decimals at a scale). */
static void one_column_table(struct test_table *tt, enum lake_type t, int precision, int scale)
{
    char cols[200];
    if (t == LT_DECIMAL)
        snprintf(cols, sizeof cols,
                 "[{'name':'c','type':'decimal','type_params':{'precision':%d,'scale':%d}}]",
                 precision, scale);
    else
        snprintf(cols, sizeof cols, "[{'name':'c','type':'%s'}]", lake_type_name(t));
    test_table_init(tt, cols);
}

/* An Arrow column of column c's writer format holding vals[0..n). */
static void column_of(const struct lake_column *c, const char *name, const struct lake_value *vals,
                      int64_t n, struct ArrowSchema *s, struct ArrowArray *a)
{
    char fbuf[32];
    const char *format = pq_arrow_format_for(c, fbuf, sizeof fbuf);
    bool *valid = calloc((size_t)n + 1, sizeof *valid);
    assert_non_null(valid);
    for (int64_t i = 0; i < n; i++)
        valid[i] = !vals[i].null;
    if (c->type == LT_STRING || c->type == LT_JSON || c->type == LT_BINARY) {
        const char **strs = calloc((size_t)n + 1, sizeof *strs);
        size_t *lens = calloc((size_t)n + 1, sizeof *lens);
        assert_true(strs && lens);
        for (int64_t i = 0; i < n; i++) {
            strs[i] = vals[i].null ? "" : (const char *)vals[i].bytes.data;
            lens[i] = vals[i].null ? 0 : vals[i].bytes.len;
        }
        col_bytes(s, a, name, format, strs, lens, n, valid);
        free(strs);
        free(lens);
    } else {
        size_t w = c->type == LT_BOOLEAN ? 1 : (size_t)test_fixed_width(c->type);
        uint8_t *raw = calloc((size_t)n + 1, w);
        assert_non_null(raw);
        for (int64_t i = 0; i < n; i++) {
            const struct lake_value *v = &vals[i];
            uint8_t *dst = raw + (size_t)i * w;
            if (v->null)
                continue;
            if (c->type == LT_BOOLEAN)
                *dst = v->b;
            else if (c->type == LT_FLOAT)
                *(float *)dst = (float)v->d;
            else if (c->type == LT_DOUBLE)
                memcpy(dst, &v->d, 8);
            else if (c->type == LT_DECIMAL)
                memcpy(dst, &v->dec, 16);
            else if (c->type == LT_UUID)
                memcpy(dst, v->bytes.data, 16);
            else if (c->type == LT_UINT64)
                memcpy(dst, &v->u, 8);
            else /* little-endian: the low bytes of the int64 */
                memcpy(dst, &v->i, w);
        }
        col_fixed(s, a, name, format, raw, w, n, valid);
        free(raw);
    }
    free(valid);
}

static void set_spec(struct test_table *tt, const struct lake_partition_field *f, size_t n)
{
    tt->t.nspec_fields = 0;
    tt->t.partitioned = false;
    struct error err = {0};
    for (size_t i = 0; i < n; i++)
        if (lake_table_load_partition_field(&tt->t, &f[i], &err) != 0)
            fail_msg("spec: %s", err.msg);
}

static int64_t field_id_of(struct test_table *tt, const char *path)
{
    struct error err = {0};
    struct lake_column *c = lake_table_find_path(&tt->t, path, &err);
    if (!c)
        fail_msg("no column '%s': %s", path, err.msg);
    return c->field_id;
}

static void group_rows(struct test_table *tt, const struct ArrowSchema *s,
                       const struct ArrowArray *b, struct lake_partition_groups *g)
{
    struct error err = {0};
    if (lake_partition_group_rows(&tt->t, s, b, g, &err) != 0)
        fail_msg("group_rows: %s", err.msg);
    assert_int_equal(g->nrows, b->length);
    assert_int_equal(g->nfields, tt->t.nspec_fields);
}

static bool same_text(const char *a, const char *b)
{
    return a && b ? strcmp(a, b) == 0 : a == b;
}

/* The driver's string for row r, field f. */
static const char *row_value(const struct lake_partition_groups *g, int64_t r, size_t f)
{
    return g->values[(size_t)g->group_of_row[r] * g->nfields + f];
}

/* A one-column table of the vector's type with `values` as rows, grouped
 * under the vector's source_transform; checks each row's string. */
static void check_through_driver(const json_t *vec, enum lake_type type, const json_t *inputs,
                                 const json_t *wants)
{
    struct test_table tt;
    size_t n = json_array_size(inputs);
    struct input *in = calloc(n + 1, sizeof *in);
    struct lake_value *vals = calloc(n + 1, sizeof *vals);
    assert_true(in && vals);
    int scale = 0;
    for (size_t i = 0; i < n; i++) {
        read_input(type, vec, json_array_get(inputs, i), &in[i]);
        if (!in[i].v.null)
            scale = in[i].scale;
    }
    for (size_t i = 0; i < n; i++)
        vals[i] = in[i].v;
    one_column_table(&tt, type, 38, scale);
    struct error err = {0};
    enum lake_transform tr;
    int32_t param;
    if (vector_transform(vec, "source_transform", type, &tr, &param, &err) != 0)
        fail_msg("%s", err.msg);
    set_spec(&tt, &(struct lake_partition_field){field_id_of(&tt, "c"), tr, param}, 1);
    struct ArrowSchema col, schema;
    struct ArrowArray arr, batch;
    column_of(tt.t.root.children[0], "c", vals, (int64_t)n, &col, &arr);
    batch_of(&schema, &batch, &col, &arr, 1, (int64_t)n);
    struct lake_partition_groups g;
    group_rows(&tt, &schema, &batch, &g);
    for (size_t r = 0; r < n; r++) {
        const json_t *w = json_array_get(wants, r);
        const char *got = row_value(&g, (int64_t)r, 0);
        if (json_is_null(w)) {
            if (got)
                fail_msg("%s row %zu: got '%s', want null", lake_type_name(type), r, got);
            continue;
        }
        const char *ws = vectors_num_token(w) ? vectors_num_token(w) : json_string_value(w);
        if (!got || strcmp(got, ws) != 0)
            fail_msg("%s row %zu: got '%s', want '%s'", lake_type_name(type), r,
                     got ? got : "(null)", ws);
    }
    lake_partition_groups_free(&g);
    schema.release(&schema);
    batch.release(&batch);
    test_table_release(&tt);
    free(in);
    free(vals);
}

/* wire_string: the scalar rendering, and for identity the driver's too. */
static void check_wire_vector(const json_t *vec)
{
    enum lake_type type = type_named(json_string_value(json_object_get(vec, "type")));
    enum lake_transform tr;
    struct error err = {0};
    if (lake_partition_parse_transform(json_string_value(json_object_get(vec, "source_transform")),
                                       &tr, &err) != 0)
        fail_msg("%s", err.msg);
    enum lake_type rt = lake_partition_result_type(tr, type);
    const json_t *want = json_object_get(vec, "expected");
    struct input in;
    read_input(rt, vec, json_object_get(vec, "input"), &in);
    if (json_is_null(want)) {
        assert_true(in.v.null);
        assert_int_equal(lake_partition_render(rt, 0, &in.v, &(struct buf)BUF_INIT, &err), -1);
    } else {
        char *got = render(rt, in.scale, &in.v, &err);
        if (!got || strcmp(got, json_string_value(want)) != 0)
            fail_msg("%s: got '%s' (%s), want '%s'", lake_type_name(type), got ? got : "", err.msg,
                     json_string_value(want));
        free(got);
    }
    if (tr != LTR_IDENTITY)
        return;
    json_t *inputs = json_pack("[O]", json_object_get(vec, "input"));
    json_t *wants = json_pack("[O]", want);
    assert_true(inputs && wants);
    check_through_driver(vec, type, inputs, wants);
    json_decref(inputs);
    json_decref(wants);
}

static void check_strings_vector(const json_t *vec)
{
    enum lake_type type = type_named(json_string_value(json_object_get(vec, "type")));
    const json_t *inputs = json_object_get(vec, "input");
    const json_t *wants = json_object_get(vec, "expected");
    /* The scalar path gives the same strings. */
    struct error err = {0};
    enum lake_transform tr;
    int32_t param;
    if (vector_transform(vec, "source_transform", type, &tr, &param, &err) != 0)
        fail_msg("%s", err.msg);
    for (size_t i = 0; i < json_array_size(inputs); i++) {
        struct input in;
        struct lake_value out;
        read_input(type, vec, json_array_get(inputs, i), &in);
        assert_int_equal(lake_partition_apply(tr, param, type, &in.v, &out, &err), 0);
        const json_t *w = json_array_get(wants, i);
        if (json_is_null(w)) {
            assert_true(out.null);
            continue;
        }
        char *got = render(lake_partition_result_type(tr, type), in.scale, &out, &err);
        assert_non_null(got);
        assert_string_equal(got, json_string_value(w));
        free(got);
    }
    check_through_driver(vec, type, inputs, wants);
}

static void test_wire_string_vectors(void **state)
{
    (void)state;
    assert_int_equal(each_vector(NULL, "wire_string", check_wire_vector), 25);
}

static void test_transform_strings_vectors(void **state)
{
    (void)state;
    assert_int_equal(each_vector(NULL, "transform_strings", check_strings_vector), 8);
    /* With test_lake_bucket's 18, every vector is checked. */
    assert_int_equal(95 + 25 + 8 + 18, json_array_size(json_object_get(doc, "vectors")));
}

/* ---- gates and refusals ---- */

static bool in_gate(const char *gate, enum lake_type t)
{
    size_t i;
    json_t *v;
    json_array_foreach (json_object_get(json_object_get(doc, "type_gates"), gate), i, v)
        if (type_named(json_string_value(v)) == t)
            return true;
    return false;
}

static void test_type_gates(void **state)
{
    (void)state;
    for (int tr = 0; tr < LTR__COUNT; tr++) {
        for (int ty = 0; ty < LT__COUNT; ty++) {
            enum lake_type t = (enum lake_type)ty;
            bool want;
            switch ((enum lake_transform)tr) {
            case LTR_IDENTITY: want = !lake_type_is_container(t) && t != LT_VARIANT; break;
            case LTR_BUCKET: want = in_gate("bucket", t); break;
            case LTR_TRUNCATE: want = in_gate("truncate", t); break;
            case LTR_HOUR: want = in_gate("hour", t); break;
            default: want = in_gate("year_month_day", t);
            }
            if (tr == LTR_BUCKET && in_gate("not_bucketable", t))
                assert_false(want);
            struct error err = {0};
            bool param = lake_transform_takes_param((enum lake_transform)tr);
            int rc = lake_partition_check((enum lake_transform)tr, param, 4, t, &err);
            if ((rc == 0) != want)
                fail_msg("%s on %s: check %d, gate %d (%s)",
                         lake_transform_name((enum lake_transform)tr), lake_type_name(t), rc, want,
                         err.msg);
            if (!want) {
                char sub[64];
                snprintf(sub, sizeof sub, "%s%s cannot be applied",
                         lake_transform_name((enum lake_transform)tr), param ? "" : " transform");
                if (!strstr(err.msg, sub))
                    fail_msg("'%s' lacks '%s'", err.msg, sub);
            }
        }
    }
}

static void expect_refusal(int rc, const struct error *err, const char *sub)
{
    assert_int_equal(rc, -1);
    assert_int_equal(err->code, ERR_INVALID);
    if (!strstr(err->msg, sub))
        fail_msg("'%s' lacks '%s'", err->msg, sub);
}

static void test_check_refusals(void **state)
{
    (void)state;
    struct error err = {0};
    enum lake_transform tr;
    expect_refusal(lake_partition_parse_transform("squiggle", &tr, &err), &err,
                   "unknown partition transform");
    assert_int_equal(lake_partition_parse_transform("Month", &tr, &err), 0);
    assert_int_equal(tr, LTR_MONTH);
    expect_refusal(lake_partition_check(LTR_TRUNCATE, false, 0, LT_STRING, &err), &err,
                   "requires transform_param");
    expect_refusal(lake_partition_check(LTR_BUCKET, true, -3, LT_LONG, &err), &err,
                   "positive bucket count");
    expect_refusal(lake_partition_check(LTR_TRUNCATE, true, -1, LT_LONG, &err), &err,
                   "positive width");
    expect_refusal(lake_partition_check(LTR_BUCKET, true, INT64_C(1) << 31, LT_LONG, &err), &err,
                   "2147483647");
    expect_refusal(lake_partition_check(LTR_DAY, true, 3, LT_DATE, &err), &err,
                   "does not take transform_param");
    /* Truncation that leaves int64 refuses instead of wrapping. */
    struct lake_value in = {.i = INT64_MIN}, out;
    expect_refusal(lake_partition_apply(LTR_TRUNCATE, 10, LT_LONG, &in, &out, &err), &err,
                   "overflows");
    /* ms -> µs: 2^63/1000 + 1 overflows, the largest tick that fits works. */
    in.i = INT64_MAX / 1000 + 1;
    expect_refusal(lake_partition_apply(LTR_DAY, 0, LT_TIMESTAMP_MS, &in, &out, &err), &err,
                   "overflow");
    in.i = INT64_MAX / 1000;
    assert_int_equal(lake_partition_apply(LTR_DAY, 0, LT_TIMESTAMP_MS, &in, &out, &err), 0);
    assert_int_equal(out.i, 106751991);
}

/* truncate[W]: below v by less than W, idempotent, order-preserving. */
static void test_truncate_properties(void **state)
{
    (void)state;
    struct rng rng = {99};
    struct error err = {0};
    const int32_t widths[] = {1, 2, 7, 10, 1000};
    for (int k = 0; k < 2000; k++) {
        int32_t w = widths[k % 5];
        int64_t a = (int64_t)rng_next(&rng) >> (k % 50), b = (int64_t)rng_next(&rng) >> (k % 50);
        if (a > b) {
            int64_t t = a;
            a = b;
            b = t;
        }
        struct lake_value va = {.i = a}, vb = {.i = b}, ta, tb, tta;
        if (lake_partition_apply(LTR_TRUNCATE, w, LT_LONG, &va, &ta, &err) != 0 ||
            lake_partition_apply(LTR_TRUNCATE, w, LT_LONG, &vb, &tb, &err) != 0)
            continue; /* within W of INT64_MIN: refused, checked elsewhere */
        assert_int_equal(lake_partition_apply(LTR_TRUNCATE, w, LT_LONG, &ta, &tta, &err), 0);
        assert_true(ta.i <= a && a - ta.i < w);
        assert_int_equal(tta.i, ta.i);
        assert_true(ta.i <= tb.i);
        /* The same on a decimal's unscaled value. */
        struct lake_value da = {.dec = a}, dt;
        assert_int_equal(lake_partition_apply(LTR_TRUNCATE, w, LT_DECIMAL, &da, &dt, &err), 0);
        assert_true(dt.dec == ta.i);
        /* uint64 and the unsigned narrow types never go below zero. */
        struct lake_value ua = {.u = (uint64_t)a}, ut;
        assert_int_equal(lake_partition_apply(LTR_TRUNCATE, w, LT_UINT64, &ua, &ut, &err), 0);
        assert_true(ut.u <= ua.u && ua.u - ut.u < (uint64_t)w && ut.u % (uint64_t)w == 0);
    }
    /* Strings: a code-point prefix, never a split character. */
    const char *s = "\xc3\xa9t\xc3\xa9\xf0\x9f\x98\x80";
    const size_t want[] = {0, 2, 3, 5, 9, 9, 9}; /* by width */
    for (int32_t w = 1; w <= 6; w++) {
        struct lake_value in = {.bytes = {(const uint8_t *)s, strlen(s)}}, out, again;
        assert_int_equal(lake_partition_apply(LTR_TRUNCATE, w, LT_STRING, &in, &out, &err), 0);
        assert_int_equal(out.bytes.len, want[w]);
        assert_int_equal(lake_partition_apply(LTR_TRUNCATE, w, LT_STRING, &out, &again, &err), 0);
        assert_int_equal(again.bytes.len, out.bytes.len);
    }
}

/* Wire strings §5.4 spells out beyond the vectors. */
static void expect_text(enum lake_type t, int scale, struct lake_value v, const char *want)
{
    struct error err = {0};
    char *got = render(t, scale, &v, &err);
    if (!got || strcmp(got, want) != 0)
        fail_msg("%s: got '%s' (%s), want '%s'", lake_type_name(t), got ? got : "", err.msg, want);
    free(got);
}

static void test_render_forms(void **state)
{
    (void)state;
    expect_text(LT_DOUBLE, 0, (struct lake_value){.d = 1.5}, "1.5");
    expect_text(LT_DOUBLE, 0, (struct lake_value){.d = 1e-05}, "1e-05");
    expect_text(LT_DOUBLE, 0, (struct lake_value){.d = 1e16}, "1e+16");
    expect_text(LT_DOUBLE, 0, (struct lake_value){.d = 3.0}, "3.0");
    expect_text(LT_DOUBLE, 0, (struct lake_value){.d = -1.0 / 0.0}, "-inf");
    expect_text(LT_DOUBLE, 0, (struct lake_value){.d = 0.0 / 0.0}, "nan");
    /* A float is widened first: 0.1f is not 0.1. */
    expect_text(LT_FLOAT, 0, (struct lake_value){.d = (double)0.1f}, "0.10000000149011612");
    /* str(Decimal): exponent form below an adjusted exponent of -6. */
    expect_text(LT_DECIMAL, 8, (struct lake_value){.dec = 0}, "0E-8");
    expect_text(LT_DECIMAL, 7, (struct lake_value){.dec = 1}, "1E-7");
    expect_text(LT_DECIMAL, 8, (struct lake_value){.dec = 15}, "1.5E-7");
    expect_text(LT_DECIMAL, 6, (struct lake_value){.dec = 1}, "0.000001");
    expect_text(LT_DECIMAL, 2, (struct lake_value){.dec = -1}, "-0.01");
    expect_text(LT_DECIMAL, 0, (struct lake_value){.dec = -1420}, "-1420");
    expect_text(LT_DECIMAL, 2, (struct lake_value){.dec = 0}, "0.00");
    /* isoformat: a fraction only when there are microseconds. */
    expect_text(LT_TIME, 0, (struct lake_value){.i = 81068000001}, "22:31:08.000001");
    expect_text(LT_TIMESTAMP_MS, 0, (struct lake_value){.i = -1}, "1969-12-31T23:59:59.999000");
    expect_text(LT_TIMESTAMPTZ, 0, (struct lake_value){.i = 0}, "1970-01-01T00:00:00+00:00");
    expect_text(LT_TIMESTAMP_S, 0, (struct lake_value){.i = 1}, "1970-01-01T00:00:01");
    expect_text(LT_UINT32, 0, (struct lake_value){.i = 4294967295}, "4294967295");
    expect_text(LT_BOOLEAN, 0, (struct lake_value){.b = false}, "false");
    expect_text(LT_BINARY, 0, (struct lake_value){.bytes = {(const uint8_t *)"", 0}}, "");
    /* What Python could not print is refused. */
    struct error err = {0};
    struct buf b = BUF_INIT;
    struct lake_value year0 = {.i = time_days_from_civil(0, 12, 31)};
    expect_refusal(lake_partition_render(LT_DATE, 0, &year0, &b, &err), &err, "1..9999");
    struct lake_value day = {.i = 86400000000};
    expect_refusal(lake_partition_render(LT_TIME, 0, &day, &b, &err), &err, "one day");
    struct lake_value nul = {.bytes = {(const uint8_t *)"a\0b", 3}};
    expect_refusal(lake_partition_render(LT_STRING, 0, &nul, &b, &err), &err, "NUL");
    struct lake_value short_uuid = {.bytes = {(const uint8_t *)"abc", 3}};
    expect_refusal(lake_partition_render(LT_UUID, 0, &short_uuid, &b, &err), &err, "16 bytes");
    buf_free(&b);
}

/* ---- the driver: fanout shapes ---- */

static const char *const fanout_cols =
    "[{'name':'team_id','type':'long'},{'name':'ts','type':'timestamp'}]";

/* team_id and ts columns; ts from "YYYY-MM-DD" days at 01:00. */
static void fanout_batch(struct test_table *tt, const int64_t *teams, const bool *team_valid,
                         const char *const *days, int64_t n, struct ArrowSchema *s,
                         struct ArrowArray *b)
{
    struct lake_value *tv = calloc((size_t)n, sizeof *tv), *sv = calloc((size_t)n, sizeof *sv);
    assert_true(tv && sv);
    for (int64_t i = 0; i < n; i++) {
        tv[i] = (struct lake_value){.null = team_valid && !team_valid[i], .i = teams[i]};
        char iso[40];
        snprintf(iso, sizeof iso, "%sT01:00:00", days[i]);
        sv[i] = (struct lake_value){.i = iso_micros(iso)};
    }
    struct ArrowSchema cs[2];
    struct ArrowArray ca[2];
    column_of(tt->t.root.children[0], "team_id", tv, n, &cs[0], &ca[0]);
    column_of(tt->t.root.children[1], "ts", sv, n, &cs[1], &ca[1]);
    batch_of(s, b, cs, ca, 2, n);
    free(tv);
    free(sv);
}

/* Groups n rows of (teams, days) under the spec
 * (team_tr[team_param](team_id), ts_tr(ts)); g outlives the batch. */
static void group_fanout(enum lake_transform team_tr, int32_t team_param, enum lake_transform ts_tr,
                         const int64_t *teams, const bool *valid, const char *const *days,
                         int64_t n, struct lake_partition_groups *g)
{
    struct test_table tt;
    test_table_init(&tt, fanout_cols);
    const struct lake_partition_field spec[] = {
        {field_id_of(&tt, "team_id"), team_tr, team_param},
        {field_id_of(&tt, "ts"), ts_tr, 0},
    };
    set_spec(&tt, spec, 2);
    struct ArrowSchema s;
    struct ArrowArray b;
    fanout_batch(&tt, teams, valid, days, n, &s, &b);
    group_rows(&tt, &s, &b, g);
    s.release(&s);
    b.release(&b);
    test_table_release(&tt);
}

struct want_group {
    const char *team, *ts; /* NULL: a null value */
    int64_t rows;
};

/* The groups, in order, and each row's group. */
static void expect_groups(const struct lake_partition_groups *g, const struct want_group *want,
                          size_t n, const uint32_t *rows)
{
    assert_int_equal(g->ngroups, n);
    for (size_t k = 0; k < n; k++) {
        const char *got0 = g->values[k * 2], *got1 = g->values[k * 2 + 1];
        if (!same_text(got0, want[k].team) || !same_text(got1, want[k].ts))
            fail_msg("group %zu: (%s, %s), want (%s, %s)", k, got0 ? got0 : "null",
                     got1 ? got1 : "null", want[k].team ? want[k].team : "null",
                     want[k].ts ? want[k].ts : "null");
        assert_int_equal(g->group_rows[k], want[k].rows);
    }
    for (int64_t r = 0; r < g->nrows; r++)
        if (g->group_of_row[r] != rows[r])
            fail_msg("row %lld is in group %u, want %u", (long long)r, g->group_of_row[r], rows[r]);
}

/* Months 672, 672, 673, 672, 674, 674, 674, 673. */
static const char *const fanout_days[] = {"2026-01-05", "2026-01-20", "2026-02-05", "2026-01-07",
                                          "2026-03-05", "2026-03-09", "2026-03-01", "2026-02-28"};

static void test_driver_fanout(void **state)
{
    (void)state;
    const int64_t teams[] = {1, 1, 1, 2, 2, 1, 2, 3};
    struct lake_partition_groups g;
    group_fanout(LTR_IDENTITY, 0, LTR_MONTH, teams, NULL, fanout_days, 8, &g);
    /* Six tuples, numbered by first occurrence. */
    const struct want_group want[] = {{"1", "672", 2}, {"1", "673", 1}, {"2", "672", 1},
                                      {"2", "674", 2}, {"1", "674", 1}, {"3", "673", 1}};
    expect_groups(&g, want, 6, (const uint32_t[]){0, 0, 1, 2, 3, 4, 3, 5});
    lake_partition_groups_free(&g);
}

static void test_null_source(void **state)
{
    (void)state;
    const int64_t teams[] = {7, 0, 8, 0};
    const bool valid[] = {true, false, true, false};
    const char *const days[] = {"2026-01-05", "2026-01-05", "2026-05-05", "2027-01-01"};
    struct lake_partition_groups g;
    group_fanout(LTR_BUCKET, 4, LTR_YEAR, teams, valid, days, 4, &g);
    /* Teams 7 and 8 share bucket 3; the nulls stay null, in their own
     * groups by year. */
    const struct want_group want[] = {{"3", "56", 2}, {NULL, "56", 1}, {NULL, "57", 1}};
    expect_groups(&g, want, 3, (const uint32_t[]){0, 1, 0, 2});
    lake_partition_groups_free(&g);
}

static void test_bucket_by_month(void **state)
{
    (void)state;
    const int64_t teams[] = {7, 8, 7, 8, 7, 8, 8, 7};
    struct lake_partition_groups g;
    group_fanout(LTR_BUCKET, 4, LTR_MONTH, teams, NULL, fanout_days, 8, &g);
    /* Both teams land in bucket 3: the months alone split the rows. */
    const struct want_group want[] = {{"3", "672", 3}, {"3", "673", 2}, {"3", "674", 3}};
    expect_groups(&g, want, 3, (const uint32_t[]){0, 0, 1, 0, 2, 2, 2, 1});
    lake_partition_groups_free(&g);
}

/* A struct leaf: a null parent nulls it; offsets at every level count. */
static void test_struct_leaf(void **state)
{
    (void)state;
    struct test_table tt;
    test_table_init(&tt, "[{'name':'id','type':'long'},{'name':'ctx','type':'struct','children':["
                         "{'name':'team','type':'int'},{'name':'day','type':'date'}]}]");
    const struct lake_partition_field spec[] = {
        {field_id_of(&tt, "ctx.team"), LTR_IDENTITY, 0},
        {field_id_of(&tt, "ctx.day"), LTR_MONTH, 0},
    };
    set_spec(&tt, spec, 2);
    const int64_t ids[] = {100, 101, 102, 103, 104};
    const int32_t teams[] = {0, 10, 11, 12, 13, 14}; /* read from offset 1 */
    const bool team_valid[] = {true, true, true, true, false, true};
    int32_t days[5];
    for (int p = 0; p < 5; p++)
        days[p] = (int32_t)time_days_from_civil(2026, (unsigned)(p + 1), 15);
    struct ArrowSchema cols[2], kids[2];
    struct ArrowArray arrs[2], kida[2];
    col_fixed(&cols[0], &arrs[0], "id", "l", ids, 8, 5, NULL);
    col_fixed(&kids[0], &kida[0], "team", "i", teams, 4, 6, team_valid);
    kida[0].offset = 1;
    kida[0].length = 5;
    col_fixed(&kids[1], &kida[1], "day", "tdD", days, 4, 5, NULL);
    assert_int_equal(arrow_schema_init(&cols[1], "+s", "ctx", ARROW_FLAG_NULLABLE, 2), 0);
    assert_int_equal(arrow_array_init(&arrs[1], 1, 2), 0);
    arrs[1].length = 5;
    uint8_t *parent_valid = calloc(1, 1);
    assert_non_null(parent_valid);
    *parent_valid = 0x1b; /* struct index 2 is null */
    arrow_array_own_buffer(&arrs[1], 0, parent_valid);
    arrs[1].null_count = 1;
    for (int k = 0; k < 2; k++) {
        arrow_schema_move(&kids[k], cols[1].children[k]);
        arrow_array_move(&kida[k], arrs[1].children[k]);
    }
    struct ArrowSchema s;
    struct ArrowArray b;
    batch_of(&s, &b, cols, arrs, 2, 5);
    b.offset = 1; /* rows are struct indexes 1..4 */
    b.length = 4;
    struct lake_partition_groups g;
    group_rows(&tt, &s, &b, &g);
    /* Months since 1970 of 2026-02..05: 673..676. Index 2 is a null
     * struct; team at index 3 is null itself. */
    assert_int_equal(g.ngroups, 4);
    const char *const want[4][2] = {{"11", "673"}, {NULL, NULL}, {NULL, "675"}, {"14", "676"}};
    for (int r = 0; r < 4; r++) {
        assert_int_equal(g.group_of_row[r], r);
        for (int f = 0; f < 2; f++) {
            const char *got = row_value(&g, r, (size_t)f);
            if (want[r][f] ? !got || strcmp(got, want[r][f]) : got != NULL)
                fail_msg("row %d field %d: '%s'", r, f, got ? got : "null");
        }
    }
    lake_partition_groups_free(&g);
    s.release(&s);
    b.release(&b);
    test_table_release(&tt);
}

static void expect_driver_refusal(struct test_table *tt, const struct ArrowSchema *s,
                                  const struct ArrowArray *b, const char *sub)
{
    struct error err = {0};
    struct lake_partition_groups g;
    expect_refusal(lake_partition_group_rows(&tt->t, s, b, &g, &err), &err, sub);
    assert_null(g.values);
    assert_null(g.group_of_row);
    lake_partition_groups_free(&g);
}

static const char *const all_types =
    "[{'name':'b','type':'boolean'},{'name':'i8','type':'int8'},{'name':'i16','type':'int16'},"
    "{'name':'i','type':'int'},{'name':'l','type':'long'},{'name':'u8','type':'uint8'},"
    "{'name':'u16','type':'uint16'},{'name':'u32','type':'uint32'},"
    "{'name':'u64','type':'uint64'},{'name':'f','type':'float'},{'name':'d','type':'double'},"
    "{'name':'dec','type':'decimal','type_params':{'precision':20,'scale':3}},"
    "{'name':'small','type':'decimal','type_params':{'precision':9,'scale':8}},"
    "{'name':'day','type':'date'},{'name':'tm','type':'time'},"
    "{'name':'tss','type':'timestamp_s'},{'name':'tsm','type':'timestamp_ms'},"
    "{'name':'ts','type':'timestamp'},{'name':'tsn','type':'timestamp_ns'},"
    "{'name':'tz','type':'timestamptz'},{'name':'s','type':'string'},"
    "{'name':'j','type':'json'},{'name':'id','type':'uuid'},{'name':'bin','type':'binary'},"
    "{'name':'st','type':'struct','children':[{'name':'ts','type':'timestamp'},"
    "{'name':'s','type':'string'},{'name':'in','type':'struct','children':["
    "{'name':'n','type':'long'}]}]}]";

/* The types withheld from bucket are refused by the driver too, before
 * any row is read. */
static void test_driver_bucket_gate(void **state)
{
    (void)state;
    struct rng rng = {5};
    struct gen_options o = {.null_per_mille = 0, .max_string_len = 4};
    struct test_table tt;
    test_table_init(&tt, all_types);
    struct ArrowSchema s;
    struct ArrowArray b;
    gen_batch(&tt.t, 3, &o, &rng, &s, &b);
    const char *const withheld[] = {"u32", "u64", "tss", "tsm", "tsn", "b", "f", "d", "j"};
    for (size_t i = 0; i < ARRAY_LEN(withheld); i++) {
        set_spec(&tt, &(struct lake_partition_field){field_id_of(&tt, withheld[i]), LTR_BUCKET, 4},
                 1);
        expect_driver_refusal(&tt, &s, &b, "bucket cannot be applied");
    }
    /* An empty batch has no groups. */
    set_spec(&tt, &(struct lake_partition_field){field_id_of(&tt, "l"), LTR_BUCKET, 4}, 1);
    b.length = 0;
    struct lake_partition_groups g;
    group_rows(&tt, &s, &b, &g);
    assert_int_equal(g.ngroups, 0);
    lake_partition_groups_free(&g);
    b.length = 3;
    s.release(&s);
    b.release(&b);
    test_table_release(&tt);
}

static void test_driver_refusals(void **state)
{
    (void)state;
    struct rng rng = {42};
    struct gen_options o = {.null_per_mille = 0, .max_list_len = 2, .max_string_len = 4};
    struct test_table tt;
    test_table_init(&tt, "[{'name':'l','type':'list','children':[{'name':'element','type':'int'}]},"
                         "{'name':'u','type':'uint32'},{'name':'ts','type':'timestamp_s'}]");
    struct ArrowSchema s;
    struct ArrowArray b;
    gen_batch(&tt.t, 3, &o, &rng, &s, &b);
    expect_driver_refusal(&tt, &s, &b, "not partitioned");
    /* A list element is not a source; uint32 is not bucketable even when a
     * spec says so. */
    set_spec(&tt, &(struct lake_partition_field){field_id_of(&tt, "l") + 1, LTR_IDENTITY, 0}, 1);
    expect_driver_refusal(&tt, &s, &b, "only struct leaves");
    set_spec(&tt, &(struct lake_partition_field){field_id_of(&tt, "u"), LTR_TRUNCATE, 0}, 1);
    expect_driver_refusal(&tt, &s, &b, "positive width");
    set_spec(&tt, &(struct lake_partition_field){999, LTR_IDENTITY, 0}, 1);
    expect_driver_refusal(&tt, &s, &b, "field_id 999");
    /* 2^62 seconds have no microseconds. */
    set_spec(&tt, &(struct lake_partition_field){field_id_of(&tt, "ts"), LTR_DAY, 0}, 1);
    ((int64_t *)b.children[2]->buffers[1])[1] = INT64_C(1) << 62;
    expect_driver_refusal(&tt, &s, &b, "overflow");
    /* The wrong Arrow type for the column. */
    set_spec(&tt, &(struct lake_partition_field){field_id_of(&tt, "u"), LTR_IDENTITY, 0}, 1);
    const char *format = s.children[1]->format;
    s.children[1]->format = "L";
    expect_driver_refusal(&tt, &s, &b, "cannot be Arrow 'L'");
    s.children[1]->format = format;
    /* A row past the column's end. */
    b.length = 4;
    expect_driver_refusal(&tt, &s, &b, "malformed");
    b.length = 3;
    s.release(&s);
    b.release(&b);
    test_table_release(&tt);
}

/* ---- the driver against the scalar path on random batches ---- */

/* Row r's value of column c, read back here on its own. */
static struct lake_value cell(const struct lake_table *t, const struct lake_column *c,
                              const struct ArrowArray *batch, int64_t r)
{
    const struct lake_column *chain[LAKE_MAX_DEPTH];
    int n = 0;
    for (const struct lake_column *k = c; k; k = k->parent)
        chain[n++] = k;
    const struct lake_column *parent = &t->root;
    const struct ArrowArray *a = batch;
    int64_t p = batch->offset + r;
    while (n-- > 0) {
        size_t i = 0;
        while (parent->children[i] != chain[n])
            i++;
        a = a->children[i];
        p += a->offset;
        if (a->buffers[0] && !arrow_bit(a->buffers[0], p))
            return (struct lake_value){.null = true};
        parent = chain[n];
    }
    const uint8_t *d = a->buffers[1];
    struct lake_value v = {0};
    switch (c->type) {
    case LT_BOOLEAN: v.b = arrow_bit(d, p); break;
    case LT_INT8: v.i = (int8_t)d[p]; break;
    case LT_UINT8: v.i = d[p]; break;
    case LT_INT16: v.i = ((const int16_t *)(const void *)d)[p]; break;
    case LT_UINT16: v.i = ((const uint16_t *)(const void *)d)[p]; break;
    case LT_INT:
    case LT_DATE: v.i = ((const int32_t *)(const void *)d)[p]; break;
    case LT_UINT32: v.i = ((const uint32_t *)(const void *)d)[p]; break;
    case LT_UINT64: memcpy(&v.u, d + 8 * p, 8); break;
    case LT_FLOAT: v.d = ((const float *)(const void *)d)[p]; break;
    case LT_DOUBLE: memcpy(&v.d, d + 8 * p, 8); break;
    case LT_DECIMAL: memcpy(&v.dec, d + 16 * p, 16); break;
    case LT_UUID: v.bytes.data = d + 16 * p, v.bytes.len = 16; break;
    case LT_STRING:
    case LT_JSON:
    case LT_BINARY: {
        const int32_t *off = (const int32_t *)(const void *)d;
        v.bytes.data = (const uint8_t *)a->buffers[2] + off[p];
        v.bytes.len = (size_t)(off[p + 1] - off[p]);
        break;
    }
    default: memcpy(&v.i, d + 8 * p, 8);
    }
    return v;
}

/* Random ticks moved into years Python can print (about 68..9900). */
static void tame_column(const struct lake_column *c, struct ArrowArray *a)
{
    if (c->type == LT_STRUCT) {
        for (size_t i = 0; i < c->nchildren; i++)
            tame_column(c->children[i], a->children[i]);
        return;
    }
    int64_t span = 0, low = 0;
    switch (c->type) {
    case LT_DATE: {
        int32_t *d = (int32_t *)(void *)a->buffers[1];
        for (int64_t i = 0; i < a->length; i++)
            d[i] = (int32_t)((uint32_t)d[i] % 3000000u) - 700000;
        return;
    }
    case LT_TIME: span = INT64_C(86400000000); break;
    case LT_TIMESTAMP_S: span = INT64_C(300000000000), low = INT64_C(60000000000); break;
    case LT_TIMESTAMP_MS: span = INT64_C(300000000000000), low = INT64_C(60000000000000); break;
    case LT_TIMESTAMP:
    case LT_TIMESTAMPTZ:
        span = INT64_C(300000000000000000), low = INT64_C(60000000000000000);
        break;
    default: return;
    }
    int64_t *v = (int64_t *)(void *)a->buffers[1];
    for (int64_t i = 0; i < a->length; i++)
        v[i] = (int64_t)((uint64_t)v[i] % (uint64_t)span) - low;
}

/* Every row's strings equal the scalar path's; groups are numbered by
 * first occurrence, counted right, and hold distinct tuples. */
static void expect_scalar_agreement(struct test_table *tt, const struct ArrowArray *batch,
                                    const struct lake_partition_groups *g)
{
    size_t nf = g->nfields;
    for (int64_t r = 0; r < g->nrows; r++) {
        for (size_t f = 0; f < nf; f++) {
            const struct lake_partition_field *pf = &tt->t.spec_fields[f];
            const struct lake_column *c = lake_table_find_field(&tt->t, pf->source_field_id);
            struct lake_value in = cell(&tt->t, c, batch, r), out;
            struct error err = {0};
            assert_int_equal(
                lake_partition_apply(pf->transform, pf->param, c->type, &in, &out, &err), 0);
            char *want = out.null ? NULL
                                  : render(lake_partition_result_type(pf->transform, c->type),
                                           c->scale, &out, &err);
            if (!out.null && !want)
                fail_msg("render: %s", err.msg);
            if (!same_text(row_value(g, r, f), want))
                fail_msg("%s(%s) row %lld: driver '%s', scalar '%s'",
                         lake_transform_name(pf->transform), c->name, (long long)r,
                         row_value(g, r, f) ? row_value(g, r, f) : "null", want ? want : "null");
            free(want);
        }
    }
    uint32_t seen = 0;
    int64_t *counts = calloc(g->ngroups + 1, sizeof *counts);
    assert_non_null(counts);
    for (int64_t r = 0; r < g->nrows; r++) {
        assert_true(g->group_of_row[r] <= seen);
        seen += g->group_of_row[r] == seen;
        counts[g->group_of_row[r]]++;
    }
    assert_int_equal(seen, g->ngroups);
    for (size_t a = 0; a < g->ngroups; a++) {
        assert_int_equal(counts[a], g->group_rows[a]);
        for (size_t b = a + 1; b < g->ngroups; b++) {
            size_t f = 0;
            while (f < nf && same_text(g->values[a * nf + f], g->values[b * nf + f]))
                f++;
            if (f == nf)
                fail_msg("groups %zu and %zu hold the same tuple", a, b);
        }
    }
    free(counts);
}

struct leaf_list {
    const struct lake_column *c[64];
    size_t n;
};

static void collect_leaves(struct lake_column *c, void *ctx)
{
    struct leaf_list *l = ctx;
    if (c->type != LT_STRUCT && l->n < ARRAY_LEN(l->c))
        l->c[l->n++] = c;
}

static void test_driver_matches_scalar(void **state)
{
    (void)state;
    struct test_table tt;
    test_table_init(&tt, all_types);
    struct leaf_list leaves = {.n = 0};
    lake_table_walk(&tt.t, collect_leaves, &leaves);
    struct rng rng = {7};
    size_t pairs = 0;
    for (int small = 0; small < 2; small++) {
        struct gen_options o = {
            .null_per_mille = 150, .max_string_len = 5, .distinct_small = small == 1};
        struct ArrowSchema s;
        struct ArrowArray b;
        gen_batch(&tt.t, 300, &o, &rng, &s, &b);
        for (size_t i = 0; i < tt.t.root.nchildren; i++)
            tame_column(tt.t.root.children[i], b.children[i]);
        for (size_t k = 0; k < leaves.n; k++) {
            for (int tr = 0; tr < LTR__COUNT; tr++) {
                if (!lake_transform_accepts((enum lake_transform)tr, leaves.c[k]->type))
                    continue;
                int32_t param = tr == LTR_BUCKET ? 5 : tr == LTR_TRUNCATE ? 3 : 0;
                set_spec(&tt,
                         &(struct lake_partition_field){leaves.c[k]->field_id,
                                                        (enum lake_transform)tr, param},
                         1);
                struct lake_partition_groups g;
                group_rows(&tt, &s, &b, &g);
                expect_scalar_agreement(&tt, &b, &g);
                lake_partition_groups_free(&g);
                pairs += small == 0;
            }
        }
        /* Specs of several fields, over a window of the batch. */
        b.offset = 17;
        b.length = 250;
        for (int round = 0; round < 30; round++) {
            struct lake_partition_field spec[4];
            size_t nf = 1 + rng_below(&rng, 4);
            for (size_t f = 0; f < nf; f++) {
                const struct lake_column *c;
                int tr;
                do {
                    c = leaves.c[rng_below(&rng, leaves.n)];
                    tr = (int)rng_below(&rng, LTR__COUNT);
                } while (!lake_transform_accepts((enum lake_transform)tr, c->type));
                spec[f] = (struct lake_partition_field){c->field_id, (enum lake_transform)tr,
                                                        tr == LTR_BUCKET     ? 3
                                                        : tr == LTR_TRUNCATE ? 2
                                                                             : 0};
            }
            set_spec(&tt, spec, nf);
            struct lake_partition_groups g;
            group_rows(&tt, &s, &b, &g);
            expect_scalar_agreement(&tt, &b, &g);
            lake_partition_groups_free(&g);
        }
        b.offset = 0;
        b.length = 300;
        s.release(&s);
        b.release(&b);
    }
    /* Every transform/type pair the gates allow, on the 27 leaves. */
    print_message("driver == scalar on %zu transform/column pairs\n", pairs);
    /* identity 27, bucket 18, truncate 14, year/month/day 3 x 7, hour 6 */
    assert_int_equal(pairs, 27 + 18 + 14 + 21 + 6);
    test_table_release(&tt);
}

/* ---- speed ---- */

/* The best of three runs, in ns per row: the machine is shared. */
static double time_grouping(struct test_table *tt, const struct ArrowSchema *s,
                            const struct ArrowArray *b, size_t *ngroups)
{
    double best = 0;
    for (int run = 0; run < 3; run++) {
        struct lake_partition_groups g;
        int64_t t0 = time_mono_ns();
        group_rows(tt, s, b, &g);
        double ns = (double)(time_mono_ns() - t0) / (double)b->length;
        best = run == 0 || ns < best ? ns : best;
        *ngroups = g.ngroups;
        lake_partition_groups_free(&g);
    }
    return best;
}

static void test_driver_speed(void **state)
{
    (void)state;
    enum { N = 1000000 };
    struct test_table tt;
    test_table_init(&tt, fanout_cols);
    int64_t *teams = malloc(N * sizeof *teams), *ts = malloc(N * sizeof *ts);
    int64_t *uniq = malloc(N * sizeof *uniq);
    assert_true(teams && ts && uniq);
    struct rng rng = {1};
    int64_t start = iso_micros("2026-01-01T00:00:00");
    for (int64_t i = 0; i < N; i++) {
        teams[i] = (int64_t)rng_below(&rng, 1000);
        ts[i] = start + (int64_t)rng_below(&rng, INT64_C(365) * 86400000000);
        uniq[i] = (int64_t)rng_next(&rng);
    }
    struct ArrowSchema cs[2], s;
    struct ArrowArray ca[2], b;
    col_fixed(&cs[0], &ca[0], "team_id", "l", teams, 8, N, NULL);
    col_fixed(&cs[1], &ca[1], "ts", "tsu:", ts, 8, N, NULL);
    batch_of(&s, &b, cs, ca, 2, N);
    const int64_t team = field_id_of(&tt, "team_id"), when = field_id_of(&tt, "ts");
    size_t ng;
    set_spec(&tt, &(struct lake_partition_field){team, LTR_IDENTITY, 0}, 1);
    double id_ns = time_grouping(&tt, &s, &b, &ng);
    assert_int_equal(ng, 1000);
    set_spec(&tt, &(struct lake_partition_field){when, LTR_MONTH, 0}, 1);
    double month_ns = time_grouping(&tt, &s, &b, &ng);
    assert_int_equal(ng, 12);
    const struct lake_partition_field both[] = {{team, LTR_IDENTITY, 0}, {when, LTR_MONTH, 0}};
    set_spec(&tt, both, 2);
    double both_ns = time_grouping(&tt, &s, &b, &ng);
    assert_int_equal(ng, 12000);
    set_spec(&tt, &(struct lake_partition_field){team, LTR_BUCKET, 16}, 1);
    double bucket_ns = time_grouping(&tt, &s, &b, &ng);
    assert_int_equal(ng, 16);
    memcpy((void *)b.children[0]->buffers[1], uniq, N * sizeof *uniq);
    set_spec(&tt, &(struct lake_partition_field){team, LTR_IDENTITY, 0}, 1);
    double uniq_ns = time_grouping(&tt, &s, &b, &ng);
    assert_int_equal(ng, N);
    print_message("ns/row over 1M rows: identity(long, 1000 values) %.1f, month(timestamp) %.1f, "
                  "identity x month %.1f, bucket[16](long) %.1f, identity(long, all distinct) "
                  "%.1f\n",
                  id_ns, month_ns, both_ns, bucket_ns, uniq_ns);
    s.release(&s);
    b.release(&b);
    free(teams);
    free(ts);
    free(uniq);
    test_table_release(&tt);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_transform_vectors),
        cmocka_unit_test(test_wire_string_vectors),
        cmocka_unit_test(test_transform_strings_vectors),
        cmocka_unit_test(test_type_gates),
        cmocka_unit_test(test_check_refusals),
        cmocka_unit_test(test_truncate_properties),
        cmocka_unit_test(test_render_forms),
        cmocka_unit_test(test_driver_fanout),
        cmocka_unit_test(test_null_source),
        cmocka_unit_test(test_bucket_by_month),
        cmocka_unit_test(test_struct_leaf),
        cmocka_unit_test(test_driver_refusals),
        cmocka_unit_test(test_driver_bucket_gate),
        cmocka_unit_test(test_driver_matches_scalar),
        cmocka_unit_test(test_driver_speed),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
