#include "rows/rows_adapt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rows/rows_json.h"
#include "rows/rows_schema.h"
#include "rows/rows_value.h"
#include "rows/rows_variant.h"
#include "util/strutil.h"
#include "parquet/writer.h"
#include "util/arrow.h"
#include "util/failpoint.h"

enum conv {
    CV_NONE,
    CV_INT,             /* integer width or signedness, range-checked */
    CV_FLOAT,           /* float32 or float16 to a wider float */
    CV_TIME,            /* time of day to microseconds */
    CV_TIMESTAMP,       /* timestamp unit, exact */
    CV_FIXED,           /* fixed-size binary to binary */
    CV_CHECK_UTF8,      /* binary into a string column */
    CV_CHECK_JSON,      /* text into a json column */
    CV_NULLS,           /* an Arrow null array (Parquet's UNKNOWN) into a nullable column */
    CV_VARIANT_JSON,    /* JSON text into a variant column, encoded */
    CV_VARIANT_STORAGE, /* a VARIANT's storage (any layout), checked and unshredded */
    CV_VARIANT_ARROW,   /* typed Arrow values into a variant column, encoded */
    CV_BAD,
};

struct ctx {
    bool dry;                       /* check only */
    bool trust_utf8;                /* Arrow utf8 values are taken as valid UTF-8 (else checked) */
    struct rows_adapt_options *opt; /* may be NULL; its counts are added to */
    int64_t variant_invalid;
    struct rows_variant_invalid *by_column; /* the current top-level column's; NULL */
    bool keep_storage;                      /* the current top-level column's */
    const bool *skip;  /* top-level columns left for later (the chunked variants), or NULL */
    int64_t first_row; /* of the rows converted, within the caller's batch (for errors) */
    struct rows_where at;
};

/* Integer formats: width in bytes, and signedness. */
static bool int_format(const char *f, int *width, bool *is_signed)
{
    static const char names[] = "cCsSiIlL";
    const char *p = f[0] && !f[1] ? strchr(names, f[0]) : NULL;
    if (!p)
        return false;
    int k = (int)(p - names);
    *width = 1 << (k / 2);
    *is_signed = k % 2 == 0;
    return true;
}

static bool ts_format(const char *f, enum rows_unit *unit, bool *tz)
{
    if (f[0] != 't' || (f[1] != 's' && f[1] != 't'))
        return false;
    switch (f[2]) {
    case 's': *unit = ROWS_SECONDS; break;
    case 'm': *unit = ROWS_MILLIS; break;
    case 'u': *unit = ROWS_MICROS; break;
    case 'n': *unit = ROWS_NANOS; break;
    default: return false;
    }
    if (f[1] == 't')
        return f[3] == '\0';
    *tz = f[3] == ':' && f[4] != '\0';
    return f[3] == ':';
}

static enum rows_unit lake_unit(enum lake_type t)
{
    switch (t) {
    case LT_TIMESTAMP_S: return ROWS_SECONDS;
    case LT_TIMESTAMP_MS: return ROWS_MILLIS;
    case LT_TIMESTAMP_NS: return ROWS_NANOS;
    default: return ROWS_MICROS;
    }
}

static enum conv classify(const struct lake_column *c, const char *f, bool trust_utf8)
{
    char buf[32];
    const char *want = pq_arrow_format_for(c, buf, sizeof buf);
    if (strcmp(f, "n") == 0)
        return c->nullable && !lake_type_is_container(c->type) ? CV_NULLS : CV_BAD;
    int w;
    bool sg, tz;
    enum rows_unit unit;
    if (int_format(want, &w, &sg)) {
        if (strcmp(f, want) == 0)
            return CV_NONE;
        return int_format(f, &w, &sg) ? CV_INT : CV_BAD;
    }
    switch (c->type) {
    case LT_JSON: return strcmp(f, "u") == 0 || strcmp(f, "z") == 0 ? CV_CHECK_JSON : CV_BAD;
    case LT_VARIANT:
        if (strcmp(f, "u") == 0 || strcmp(f, "U") == 0 || strcmp(f, "z") == 0 ||
            strcmp(f, "Z") == 0)
            return CV_VARIANT_JSON;
        return CV_VARIANT_ARROW; /* storage structs are told apart in adapt() */
    case LT_STRING:
        if (strcmp(f, "u") == 0)
            return trust_utf8 ? CV_NONE : CV_CHECK_UTF8;
        return strcmp(f, "z") == 0 ? CV_CHECK_UTF8 : CV_BAD;
    case LT_BINARY:
        if (strcmp(f, "z") == 0 || strcmp(f, "u") == 0)
            return CV_NONE;
        return strncmp(f, "w:", 2) == 0 ? CV_FIXED : CV_BAD;
    case LT_FLOAT: return strcmp(f, "f") == 0 ? CV_NONE : strcmp(f, "e") == 0 ? CV_FLOAT : CV_BAD;
    case LT_DOUBLE:
        if (strcmp(f, "g") == 0)
            return CV_NONE;
        return strcmp(f, "f") == 0 || strcmp(f, "e") == 0 ? CV_FLOAT : CV_BAD;
    case LT_DECIMAL: {
        int p, s, bits = 128;
        char tail;
        int n = sscanf(f, "d:%d,%d,%d%c", &p, &s, &bits, &tail);
        return (n == 2 || n == 3) && bits == 128 && s == c->scale && p <= c->precision ? CV_NONE
                                                                                       : CV_BAD;
    }
    case LT_TIME:
        if (!ts_format(f, &unit, &tz) || f[1] != 't')
            return CV_BAD;
        return unit == ROWS_MICROS ? CV_NONE : CV_TIME;
    case LT_TIMESTAMP_S:
    case LT_TIMESTAMP_MS:
    case LT_TIMESTAMP:
    case LT_TIMESTAMP_NS:
    case LT_TIMESTAMPTZ:
        if (!ts_format(f, &unit, &tz) || f[1] != 's' || tz != (c->type == LT_TIMESTAMPTZ))
            return CV_BAD;
        return unit == lake_unit(c->type) ? CV_NONE : CV_TIMESTAMP;
    default: return strcmp(f, want) == 0 ? CV_NONE : CV_BAD;
    }
}

/* ---- building the converted array ---- */

static bool valid_at(const struct ArrowArray *a, int64_t i)
{
    const uint8_t *v = a->n_buffers > 0 ? a->buffers[0] : NULL;
    return !v || a->null_count == 0 || arrow_bit(v, a->offset + i);
}

/* A new array of a's length and validity, with n_buffers value buffers. */
static int start_like(const struct ArrowArray *a, int64_t n_buffers, struct ArrowArray *out)
{
    if (arrow_array_init(out, n_buffers, 0) != 0)
        return -1;
    out->length = a->length;
    out->null_count = a->null_count;
    const uint8_t *v = a->n_buffers > 0 ? a->buffers[0] : NULL;
    if (v && a->null_count != 0) {
        uint8_t *bits = calloc((size_t)a->length / 8 + 1, 1);
        if (!bits) {
            out->release(out);
            return -1;
        }
        for (int64_t i = 0; i < a->length; i++)
            arrow_set_bit(bits, i, arrow_bit(v, a->offset + i));
        arrow_array_own_buffer(out, 0, bits);
    }
    return 0;
}

static int convert_int(struct ctx *x, const struct lake_column *c, const char *f,
                       const struct ArrowArray *a, void *out)
{
    int sw = 0, tw = 0;
    bool ss = false, ts = false;
    char buf[32];
    /* classify() chose this conversion because both are integer formats. */
    if (!int_format(f, &sw, &ss) || !int_format(pq_arrow_format_for(c, buf, sizeof buf), &tw, &ts))
        return rows_fail(&x->at, ERR_INTERNAL, "not an integer conversion");
    for (int64_t i = 0; i < a->length; i++) {
        if (!valid_at(a, i))
            continue;
        const uint8_t *p = (const uint8_t *)a->buffers[1] + (size_t)(a->offset + i) * (size_t)sw;
        bool neg = false;
        uint64_t mag = rows_load_unsigned(p, sw);
        if (ss) {
            int64_t v = rows_load_signed(p, sw);
            neg = v < 0;
            mag = neg ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
        }
        uint64_t lim = tw == 8 ? UINT64_MAX : ((uint64_t)1 << (tw * 8)) - 1;
        if (ts)
            lim = neg ? (lim >> 1) + 1 : lim >> 1;
        if (mag > lim || (neg && !ts))
            return rows_fail(&x->at, ERR_INVALID, "value %s%llu does not fit a %s", neg ? "-" : "",
                             (unsigned long long)mag, lake_type_name(c->type));
        uint64_t v = neg ? (uint64_t)0 - mag : mag;
        memcpy((uint8_t *)out + (size_t)i * (size_t)tw, &v, (size_t)tw);
    }
    return 0;
}

/* v in unit `from` to unit `to`: exact, or false. */
static bool rescale(int64_t v, enum rows_unit from, enum rows_unit to, int64_t *out)
{
    if (to >= from)
        return !__builtin_mul_overflow(v, rows_unit_per_second(to) / rows_unit_per_second(from),
                                       out);
    int64_t d = rows_unit_per_second(from) / rows_unit_per_second(to);
    if (v % d != 0)
        return false;
    *out = v / d;
    return true;
}

static int convert_units(struct ctx *x, const struct lake_column *c, const char *f,
                         const struct ArrowArray *a, int64_t *out)
{
    enum rows_unit from, to = lake_unit(c->type);
    bool tz;
    ts_format(f, &from, &tz);
    int sw = f[1] == 't' && from <= ROWS_MILLIS ? 4 : 8;
    for (int64_t i = 0; i < a->length; i++) {
        if (!valid_at(a, i))
            continue;
        int64_t v = rows_load_signed(
            (const uint8_t *)a->buffers[1] + (size_t)(a->offset + i) * (size_t)sw, sw);
        if (!rescale(v, from, to, &out[i]))
            return rows_fail(&x->at, ERR_INVALID,
                             "value %lld does not convert exactly to the column's %s unit",
                             (long long)v,
                             to == ROWS_SECONDS  ? "second"
                             : to == ROWS_MILLIS ? "millisecond"
                             : to == ROWS_MICROS ? "microsecond"
                                                 : "nanosecond");
    }
    return 0;
}

static void convert_float(const struct lake_column *c, const char *f, const struct ArrowArray *a,
                          void *out)
{
    for (int64_t i = 0; i < a->length; i++) {
        int64_t k = a->offset + i;
        double v;
        if (f[0] == 'e') {
            uint16_t h;
            memcpy(&h, (const uint8_t *)a->buffers[1] + k * 2, 2);
            v = rows_half_to_float(h);
        } else {
            float s;
            memcpy(&s, (const uint8_t *)a->buffers[1] + k * 4, 4);
            v = s;
        }
        if (c->type == LT_FLOAT) {
            float s = (float)v;
            memcpy((uint8_t *)out + i * 4, &s, 4);
        } else {
            memcpy((uint8_t *)out + i * 8, &v, 8);
        }
    }
}

static int convert_fixed(struct ctx *x, const char *f, const struct ArrowArray *a,
                         struct ArrowArray *out)
{
    int w = atoi(f + 2);
    if ((int64_t)a->length * w > INT32_MAX)
        return rows_fail(&x->at, ERR_LIMIT, "out of memory or over 2 GiB");
    int32_t *off = calloc((size_t)a->length + 1, sizeof *off);
    char *data = malloc((size_t)a->length * (size_t)w + 1);
    if (!off || !data) {
        free(off);
        free(data);
        return rows_fail(&x->at, ERR_NOMEM, "out of memory or over 2 GiB");
    }
    memcpy(data, (const uint8_t *)a->buffers[1] + (size_t)a->offset * (size_t)w,
           (size_t)a->length * (size_t)w);
    for (int64_t i = 0; i < a->length; i++)
        off[i + 1] = (int32_t)((i + 1) * w);
    arrow_array_own_buffer(out, 1, off);
    arrow_array_own_buffer(out, 2, data);
    return 0;
}

static int check_text(struct ctx *x, enum conv cv, const struct ArrowArray *a)
{
    const int32_t *off = a->buffers[1];
    for (int64_t i = 0; i < a->length; i++) {
        if (!valid_at(a, i))
            continue;
        int64_t k = a->offset + i;
        const char *s = (const char *)a->buffers[2] + off[k];
        size_t n = (size_t)(off[k + 1] - off[k]);
        struct error je;
        if (cv == CV_CHECK_UTF8 && !str_utf8_valid(s, n, NULL))
            return rows_fail(&x->at, ERR_INVALID, "value %lld is not valid UTF-8", (long long)i);
        if (cv == CV_CHECK_JSON && !rj_parse(s, n, NULL, &je))
            return rows_fail(&x->at, ERR_INVALID, "value %lld is not valid JSON (%s)", (long long)i,
                             je.msg);
    }
    return 0;
}

/* The same number of nulls, in the layout of c's type. */
static int nulls_of(struct ctx *x, const struct lake_column *c, struct ArrowArray *a)
{
    struct ArrowSchema s;
    if (rows_column_arrow_schema(c, c->name, &s) != 0)
        return rows_fail(&x->at, ERR_NOMEM, "out of memory");
    struct ArrowArray out;
    int rc = arrow_array_nulls(&s, a->length, &out);
    s.release(&s);
    if (rc != 0)
        return rows_fail(&x->at, ERR_NOMEM, "out of memory");
    a->release(a);
    arrow_array_move(&out, a);
    return 0;
}

static int fail_variant(struct ctx *x, const struct error *e)
{
    rows_fail(&x->at, e->code, "%s", e->msg);
    if (x->at.err)
        x->at.err->reason = e->reason; /* the codec's typed reason survives the prefix */
    return -1;
}

/* A variant column's input made its unshredded storage. */
static int convert_variant(struct ctx *x, const struct ArrowSchema *s, enum conv cv,
                           struct ArrowArray *a)
{
    struct error e = {0};
    if (cv == CV_VARIANT_STORAGE && x->keep_storage)
        return 0;
    if (cv == CV_VARIANT_STORAGE) {
        if (rows_variant_unshred(s, a, x->first_row, &e) != 0)
            goto fail;
        return 0;
    }
    /* A type the typed encoder refuses is refused by a check as well. */
    if (cv == CV_VARIANT_ARROW && x->dry)
        return rows_variant_arrow_check(s, &e) == 0 ? 0 : fail_variant(x, &e);
    enum rows_variant_on_invalid on =
        x->opt ? x->opt->variant_on_invalid : ROWS_VARIANT_INVALID_ERROR;
    struct rows_variant_invalid bad = {{0}};
    struct ArrowArray out;
    if (cv == CV_VARIANT_ARROW
            ? rows_variant_from_arrow(s, a, x->first_row, &out, &e) != 0
            : rows_variant_from_json(s->format, a, x->first_row, on, &out, &bad, &e) != 0)
        goto fail;
    x->variant_invalid += rows_variant_invalid_total(&bad);
    for (int r = 0; x->by_column && r < RV__COUNT; r++)
        x->by_column->by_reason[r] += bad.by_reason[r];
    a->release(a);
    arrow_array_move(&out, a);
    return 0;
fail:
    return fail_variant(x, &e);
}

static int convert(struct ctx *x, const struct lake_column *c, const char *f, enum conv cv,
                   struct ArrowArray *a)
{
    if (cv == CV_CHECK_UTF8 || cv == CV_CHECK_JSON)
        return check_text(x, cv, a);
    if (cv == CV_NULLS)
        return nulls_of(x, c, a);
    char buf[32];
    const char *want = pq_arrow_format_for(c, buf, sizeof buf);
    int width = 8; /* time, timestamps, double */
    bool is_signed;
    if (!int_format(want, &width, &is_signed) && strcmp(want, "f") == 0)
        width = 4;
    struct ArrowArray out;
    if (start_like(a, cv == CV_FIXED ? 3 : 2, &out) != 0)
        return rows_fail(&x->at, ERR_NOMEM, "out of memory");
    int rc = 0;
    if (cv == CV_FIXED) {
        rc = convert_fixed(x, f, a, &out);
    } else {
        void *vals = calloc((size_t)a->length + 1, (size_t)width);
        if (!vals) {
            out.release(&out);
            return rows_fail(&x->at, ERR_NOMEM, "out of memory");
        }
        arrow_array_own_buffer(&out, 1, vals);
        if (cv == CV_INT)
            rc = convert_int(x, c, f, a, vals);
        else if (cv == CV_FLOAT)
            convert_float(c, f, a, vals);
        else
            rc = convert_units(x, c, f, a, vals);
    }
    if (rc != 0) {
        out.release(&out);
        return -1;
    }
    a->release(a);
    arrow_array_move(&out, a);
    return 0;
}

static int adapt(struct ctx *x, const struct lake_column *c, const struct ArrowSchema *s,
                 struct ArrowArray *a);

static int adapt_child(struct ctx *x, const struct lake_column *c, const char *suffix,
                       const struct ArrowSchema *s, struct ArrowArray *a)
{
    size_t len = strlen(x->at.path);
    snprintf(x->at.path + len, sizeof x->at.path - len, "%s", suffix);
    int rc = adapt(x, c, s, a);
    x->at.path[len] = '\0';
    return rc;
}

static int adapt(struct ctx *x, const struct lake_column *c, const struct ArrowSchema *s,
                 struct ArrowArray *a)
{
    const char *f = s->format;
    switch (c->type) {
    case LT_STRUCT:
        if (strcmp(f, "+s") != 0 || s->n_children != (int64_t)c->nchildren)
            return rows_fail(
                &x->at, ERR_INVALID,
                "the input has Arrow type '%s' here, the schema a struct of %zu fields", f,
                c->nchildren);
        for (size_t i = 0; i < c->nchildren; i++) {
            const struct lake_column *k = c->children[i];
            if (!s->children[i]->name || strcmp(s->children[i]->name, k->name) != 0)
                return rows_fail(&x->at, ERR_INVALID,
                                 "field %zu is '%s' in the input, '%s' in the schema", i,
                                 s->children[i]->name ? s->children[i]->name : "", k->name);
            char suffix[300];
            snprintf(suffix, sizeof suffix, ".%s", k->name);
            if (adapt_child(x, k, suffix, s->children[i], x->dry ? NULL : a->children[i]) != 0)
                return -1;
        }
        return 0;
    case LT_LIST:
        if (strcmp(f, "+l") != 0 || s->n_children != 1)
            return rows_fail(&x->at, ERR_INVALID,
                             "the input has Arrow type '%s' here, the schema a list", f);
        return adapt_child(x, c->children[0], "[]", s->children[0], x->dry ? NULL : a->children[0]);
    case LT_MAP: {
        const struct ArrowSchema *e = s->n_children == 1 ? s->children[0] : NULL;
        if (strcmp(f, "+m") != 0 || !e || e->n_children != 2)
            return rows_fail(&x->at, ERR_INVALID,
                             "the input has Arrow type '%s' here, the schema a map", f);
        struct ArrowArray *ea = x->dry ? NULL : a->children[0];
        if (adapt_child(x, c->children[0], ".key", e->children[0], ea ? ea->children[0] : NULL) !=
            0)
            return -1;
        return adapt_child(x, c->children[1], ".value", e->children[1],
                           ea ? ea->children[1] : NULL);
    }
    case LT_VARIANT:
        if (strcmp(f, "+s") == 0 && rows_variant_is_storage(s))
            return x->dry ? 0 : convert_variant(x, s, CV_VARIANT_STORAGE, a);
        break;
    default: break;
    }
    enum conv cv = classify(c, f, x->trust_utf8);
    if (cv == CV_BAD && strcmp(f, "n") == 0)
        return rows_fail(&x->at, ERR_INVALID,
                         "the input holds only nulls (the null type): the schema's column "
                         "must be a nullable scalar, not %s%s",
                         c->nullable ? "" : "NOT NULL ", lake_type_name(c->type));
    if (cv == CV_BAD) {
        char want[32];
        return rows_fail(&x->at, ERR_INVALID,
                         "the input's values (Arrow '%s') cannot be written as %s (Arrow '%s')", f,
                         lake_type_name(c->type), pq_arrow_format_for(c, want, sizeof want));
    }
    if (cv == CV_VARIANT_ARROW)
        return convert_variant(x, s, cv, a);
    if (x->dry || cv == CV_NONE)
        return 0;
    if (cv == CV_VARIANT_JSON)
        return convert_variant(x, s, cv, a);
    return convert(x, c, f, cv, a);
}

/* Top-level column i of t, from input s into a (NULL: a dry run). */
static int adapt_column(struct ctx *x, const struct lake_table *t, size_t i,
                        const struct ArrowSchema *s, struct ArrowArray *a)
{
    const struct lake_column *c = t->root.children[i];
    snprintf(x->at.path, sizeof x->at.path, "%s", c->name);
    x->by_column =
        x->opt && x->opt->variant_invalid_by_column ? &x->opt->variant_invalid_by_column[i] : NULL;
    x->keep_storage = x->opt && x->opt->variant_keep_storage && x->opt->variant_keep_storage[i];
    return adapt(x, c, s, a);
}

/* The batch's columns but those x->skip names. */
static int adapt_columns(struct ctx *x, const struct ArrowSchema *from, struct ArrowArray *batch,
                         const struct lake_table *t)
{
    if (strcmp(from->format, "+s") != 0 || from->n_children != (int64_t)t->root.nchildren ||
        (batch && batch->n_children != from->n_children))
        return error_fail(x->at.err, ERR_INVALID,
                          "the input's columns do not match the schema's %zu", t->root.nchildren);
    for (size_t i = 0; i < t->root.nchildren; i++)
        if (!(x->skip && x->skip[i]) &&
            adapt_column(x, t, i, from->children[i], x->dry ? NULL : batch->children[i]) != 0)
            return -1;
    return 0;
}

static int adapt_top(bool dry, bool trust_utf8, const struct ArrowSchema *from,
                     struct ArrowArray *batch, const struct lake_table *t,
                     struct rows_adapt_options *opt, struct error *err)
{
    struct ctx x = {.dry = dry, .trust_utf8 = trust_utf8, .opt = opt};
    rows_where_init(&x.at, err);
    if (adapt_columns(&x, from, batch, t) != 0)
        return -1;
    if (opt)
        opt->variant_invalid += x.variant_invalid;
    return 0;
}
int rows_adapt_check(const struct ArrowSchema *from, const struct lake_table *t, struct error *err)
{
    return adapt_top(true, true, from, NULL, t, NULL, err);
}

int rows_adapt_batch(const struct ArrowSchema *from, struct ArrowArray *batch,
                     const struct lake_table *t, struct error *err)
{
    return adapt_top(false, true, from, batch, t, NULL, err);
}

int rows_adapt_batch_with(const struct ArrowSchema *from, struct ArrowArray *batch,
                          const struct lake_table *t, struct rows_adapt_options *opt,
                          struct error *err)
{
    return adapt_top(false, true, from, batch, t, opt, err);
}

/* ---- adapting in chunks ---- */

/* Whether top-level column i is converted into a binary child of its own,
 * whose size follows its input's: a variant column, unless its storage is
 * kept as it is (or it holds only nulls). */
static bool chunked_column(const struct lake_column *c, const struct ArrowSchema *s,
                           const struct rows_adapt_options *opt, size_t i)
{
    bool keep = opt && opt->variant_keep_storage && opt->variant_keep_storage[i];
    return c->type == LT_VARIANT && strcmp(s->format, "n") != 0 &&
           !(keep && strcmp(s->format, "+s") == 0);
}

/* One chunked column's row sizes: the exact bytes of up to two byte
 * arrays the column's rows own one-to-one (JSON text; a storage's
 * metadata and value), plus an even share of the rest. */
struct row_sizer {
    struct arrow_bytes part[2];
    int64_t base[2]; /* a row's value in the part = base + row */
    int nparts;
    double share; /* of the rest, a row */
};

static void sizer_add(struct row_sizer *z, const struct ArrowSchema *s, const struct ArrowArray *a,
                      int64_t base)
{
    if (z->nparts < 2 && arrow_bytes_open(&z->part[z->nparts], s->format, a))
        z->base[z->nparts++] = base;
}

/* Sizes rows [0, rows) of a, the column of a batch whose offset is base. */
static void sizer_init(struct row_sizer *z, const struct ArrowSchema *s, const struct ArrowArray *a,
                       int64_t base, int64_t rows)
{
    memset(z, 0, sizeof *z);
    double total = arrow_approx_bytes(s, a), owned = 0;
    if (strcmp(s->format, "+s") == 0) {
        for (int64_t c = 0; c < s->n_children && c < a->n_children; c++)
            if (s->children[c]->name && (strcmp(s->children[c]->name, "metadata") == 0 ||
                                         strcmp(s->children[c]->name, "value") == 0))
                sizer_add(z, s->children[c], a->children[c], base + a->offset);
    } else {
        sizer_add(z, s, a, base);
    }
    for (int k = 0; k < z->nparts; k++)
        owned += (double)arrow_bytes_span(&z->part[k], z->base[k], rows);
    z->share = rows > 0 && total > owned ? (total - owned) / (double)rows : 0;
}

static double sizer_row(const struct row_sizer *z, int64_t i)
{
    double n = z->share;
    for (int k = 0; k < z->nparts; k++)
        n += (double)arrow_bytes_span(&z->part[k], z->base[k] + i, 1);
    return n;
}

/* Where the chunk beginning at row start ends: at max_rows rows, or at the
 * row that brings the chunked columns' input to max_bytes. */
static int64_t chunk_end(const struct row_sizer *sizers, const bool *chunked, size_t ncols,
                         int64_t start, int64_t length, int64_t max_rows, double max_bytes)
{
    int64_t end = start;
    double bytes = 0;
    while (end < length && end - start < max_rows && bytes < max_bytes) {
        for (size_t i = 0; i < ncols; i++)
            if (chunked[i])
                bytes += sizer_row(&sizers[i], end);
        end++;
    }
    return end;
}

/* The rows made NULL so far, to the caller's count. */
static void flush_invalid(struct ctx *x)
{
    if (x->opt)
        x->opt->variant_invalid += x->variant_invalid;
    x->variant_invalid = 0;
}

struct rows_chunks {
    struct ctx x;
    const struct ArrowSchema *from;
    const struct lake_table *t;
    bool *chunked;            /* top-level columns converted a chunk at a time */
    struct row_sizer *sizers; /* theirs */
    int64_t max_rows;
    double max_bytes;
    struct ArrowArray whole;   /* the batch converted whole, until handed out */
    struct arrow_share *share; /* or the batch whose rows the chunks view */
    int64_t next, length;
};

void rows_chunks_free(struct rows_chunks *c)
{
    if (!c)
        return;
    if (c->whole.release)
        c->whole.release(&c->whole);
    arrow_share_unref(c->share);
    free(c->chunked);
    free(c->sizers);
    free(c);
}

/* The bounds: the options', or failpoint variant_small_chunks' (which
 * makes any batch one of many chunks, as a huge one is), or the
 * defaults. */
static void chunk_bounds(const struct rows_adapt_options *opt, int64_t *rows, double *bytes)
{
    *rows = opt && opt->chunk_rows > 0 ? opt->chunk_rows : ROWS_CHUNK_ROWS;
    *bytes = opt && opt->chunk_bytes > 0 ? (double)opt->chunk_bytes : (double)ROWS_CHUNK_BYTES;
    if (failpoint_on("variant_small_chunks")) {
        *rows = *rows < 7 ? *rows : 7;
        *bytes = *bytes < 4096 ? *bytes : 4096;
    }
}

int rows_chunks_open(const struct ArrowSchema *from, struct ArrowArray *batch,
                     const struct lake_table *t, struct rows_adapt_options *opt,
                     struct rows_chunks **out, struct error *err)
{
    *out = NULL;
    size_t ncols = t->root.nchildren;
    struct rows_chunks *c = calloc(1, sizeof *c);
    if (c) {
        c->chunked = calloc(ncols ? ncols : 1, sizeof *c->chunked);
        c->sizers = calloc(ncols ? ncols : 1, sizeof *c->sizers);
    }
    if (!c || !c->chunked || !c->sizers) {
        rows_chunks_free(c);
        batch->release(batch);
        return error_nomem(err);
    }
    c->x = (struct ctx){.trust_utf8 = !(opt && opt->check_utf8), .opt = opt};
    rows_where_init(&c->x.at, err);
    c->from = from;
    c->t = t;
    c->length = batch->length;
    chunk_bounds(opt, &c->max_rows, &c->max_bytes);
    if (strcmp(from->format, "+s") != 0 || from->n_children != (int64_t)ncols ||
        batch->n_children != (int64_t)ncols) {
        rows_chunks_free(c);
        batch->release(batch);
        return error_fail(err, ERR_INVALID, "the input's columns do not match the schema's %zu",
                          ncols);
    }
    double total = 0;
    bool any = false;
    for (size_t i = 0; i < ncols; i++) {
        if (!chunked_column(t->root.children[i], from->children[i], opt, i))
            continue;
        c->chunked[i] = any = true;
        sizer_init(&c->sizers[i], from->children[i], batch->children[i], batch->offset,
                   batch->length);
        total += arrow_approx_bytes(from->children[i], batch->children[i]);
    }
    bool whole = !any || (batch->length <= c->max_rows && total < c->max_bytes);
    /* The columns converted whole: all of them, or those not chunked. */
    c->x.skip = whole ? NULL : c->chunked;
    int rc = adapt_columns(&c->x, from, batch, t);
    flush_invalid(&c->x);
    if (rc == 0 && whole)
        arrow_array_move(batch, &c->whole);
    else if (rc == 0 && !(c->share = arrow_share_new(batch)))
        rc = error_nomem(err);
    if (batch->release)
        batch->release(batch);
    if (rc != 0) {
        rows_chunks_free(c);
        return -1;
    }
    *out = c;
    return 0;
}

int rows_chunks_next(struct rows_chunks *c, struct ArrowArray *out, int64_t *first_row,
                     struct error *err)
{
    struct ctx *x = &c->x;
    rows_where_init(&x->at, err);
    if (!c->share) {
        if (!c->whole.release)
            return 0;
        *first_row = 0;
        c->next = c->length;
        arrow_array_move(&c->whole, out);
        return 1;
    }
    if (c->next >= c->length)
        return 0;
    size_t ncols = c->t->root.nchildren;
    int64_t start = c->next;
    int64_t end =
        chunk_end(c->sizers, c->chunked, ncols, start, c->length, c->max_rows, c->max_bytes);
    if (arrow_array_init(out, 1, (int64_t)ncols) != 0)
        return error_nomem(err);
    out->length = end - start;
    out->null_count = 0;
    x->first_row = start;
    int rc = 0;
    for (size_t i = 0; i < ncols && rc == 0; i++) {
        if (arrow_share_view(c->share, (int64_t)i, start, end - start, out->children[i]) != 0)
            rc = error_nomem(err);
        else if (c->chunked[i])
            rc = adapt_column(x, c->t, i, c->from->children[i], out->children[i]);
    }
    flush_invalid(x);
    if (rc != 0) {
        out->release(out);
        return -1;
    }
    c->next = end;
    *first_row = start;
    return 1;
}

int rows_adapt_chunks(const struct ArrowSchema *from, struct ArrowArray *batch,
                      const struct lake_table *t, struct rows_adapt_options *opt, rows_chunk_fn fn,
                      void *fn_ctx, struct error *err)
{
    struct rows_chunks *c;
    if (rows_chunks_open(from, batch, t, opt, &c, err) != 0)
        return -1;
    int rc;
    struct ArrowArray chunk;
    int64_t first;
    while ((rc = rows_chunks_next(c, &chunk, &first, err)) == 1) {
        rc = fn(fn_ctx, &chunk, err);
        chunk.release(&chunk);
        if (rc != 0)
            break;
    }
    rows_chunks_free(c);
    return rc;
}
