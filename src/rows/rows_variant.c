#include "rows/rows_variant.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rows/rows_unshred.h"
#include "util/arrow.h"
#include "util/buf.h"
#include "variant/variant.h"

/* ---- building binary arrays ---- */

struct bytes_out {
    struct buf data;
    int32_t *off;
    int64_t n;
};

static int bytes_out_init(struct bytes_out *b, int64_t rows, struct error *err)
{
    memset(b, 0, sizeof *b);
    if (!(b->off = malloc(((size_t)rows + 1) * sizeof *b->off)))
        return error_nomem(err);
    b->off[0] = 0;
    return 0;
}

static void bytes_out_free(struct bytes_out *b)
{
    buf_free(&b->data);
    free(b->off);
}

/* Seals the row just appended to b->data (2 GiB bounds an array). */
static int bytes_out_seal(struct bytes_out *b, struct error *err)
{
    if (b->data.len > INT32_MAX)
        return error_fail(err, ERR_LIMIT, "a variant batch holds more than 2 GiB of encoded bytes");
    b->off[++b->n] = (int32_t)b->data.len;
    return 0;
}

/* Moves b into *out, a "z" or "u" array without nulls. */
static int bytes_out_finish(struct bytes_out *b, struct ArrowArray *out, struct error *err)
{
    if (arrow_array_init(out, 3, 0) != 0)
        return error_nomem(err);
    out->length = b->n;
    out->null_count = 0;
    arrow_array_own_buffer(out, 1, b->off);
    arrow_array_own_buffer(out, 2, buf_take(&b->data));
    b->off = NULL;
    return 0;
}

/* ---- the storage struct ---- */

struct storage_out {
    struct bytes_out metadata, value;
    uint8_t *validity; /* NULL until a row is null */
    int64_t rows, nulls;
};

static int storage_init(struct storage_out *s, int64_t rows, struct error *err)
{
    memset(s, 0, sizeof *s);
    s->rows = rows;
    if (bytes_out_init(&s->metadata, rows, err) != 0)
        return -1;
    return bytes_out_init(&s->value, rows, err);
}

static void storage_free(struct storage_out *s)
{
    bytes_out_free(&s->metadata);
    bytes_out_free(&s->value);
    free(s->validity);
}

/* A SQL NULL row: no bytes in either child. */
static int storage_null(struct storage_out *s, int64_t i, struct error *err)
{
    if (!s->validity) {
        size_t n = ((size_t)s->rows + 7) / 8;
        if (!(s->validity = malloc(n)))
            return error_nomem(err);
        memset(s->validity, 0xff, n);
    }
    arrow_set_bit(s->validity, i, false);
    s->nulls++;
    if (bytes_out_seal(&s->metadata, err) != 0)
        return -1;
    return bytes_out_seal(&s->value, err);
}

static int storage_finish(struct storage_out *s, struct ArrowArray *out, struct error *err)
{
    if (arrow_array_init(out, 1, 2) != 0)
        return error_nomem(err);
    out->length = s->rows;
    out->null_count = s->nulls;
    if (s->validity)
        arrow_array_own_buffer(out, 0, s->validity);
    s->validity = NULL;
    if (bytes_out_finish(&s->metadata, out->children[0], err) != 0 ||
        bytes_out_finish(&s->value, out->children[1], err) != 0) {
        out->release(out);
        return -1;
    }
    return 0;
}

/* Puts "row N: " in front of a codec error (its reason kept). */
static int at_row(struct error *err, int64_t i)
{
    return error_prefix(err, "row %lld", (long long)i);
}

static const char *const reason_names[RV__COUNT] = {
    [RV_INVALID_JSON] = "invalid_json",
    [RV_DUPLICATE_KEY] = "duplicate_key",
    [RV_NESTING_TOO_DEEP] = "nesting_too_deep",
    [RV_NUMBER_OUT_OF_RANGE] = "number_out_of_range",
};

const char *rows_variant_reason_name(enum rows_variant_reason r)
{
    return r < RV__COUNT ? reason_names[r] : "invalid_json";
}

int64_t rows_variant_invalid_total(const struct rows_variant_invalid *v)
{
    int64_t n = 0;
    for (int r = 0; r < RV__COUNT; r++)
        n += v->by_reason[r];
    return n;
}

/* The encoder's reason as one of ours; invalid_json for any other. */
static enum rows_variant_reason reason_of(const struct error *e)
{
    for (int r = 0; r < RV__COUNT; r++)
        if (e->reason && strcmp(e->reason, reason_names[r]) == 0)
            return (enum rows_variant_reason)r;
    return RV_INVALID_JSON;
}

int rows_variant_from_json(const char *format, const struct ArrowArray *in, int64_t first_row,
                           enum rows_variant_on_invalid on_invalid, struct ArrowArray *out,
                           struct rows_variant_invalid *invalid, struct error *err)
{
    struct arrow_bytes text;
    if (!arrow_bytes_open(&text, format, in))
        return error_fail(err, ERR_INVALID, "variant values come as JSON text, not Arrow '%s'",
                          format);
    struct storage_out s;
    struct variant_encoder *enc = variant_encoder_new();
    if (!enc || storage_init(&s, in->length, err) != 0) {
        if (enc)
            storage_free(&s);
        variant_encoder_free(enc);
        return enc ? -1 : error_nomem(err);
    }
    /* A Variant is about as long as its JSON text, and rarely longer;
     * its dictionary about half. Reserved, not touched: no copy as the
     * buffers grow. */
    int64_t text_bytes = (int64_t)arrow_bytes_span(&text, 0, in->length);
    if (text_bytes > 0 && text_bytes < INT32_MAX &&
        (buf_reserve(&s.value.data, (size_t)text_bytes) != 0 ||
         buf_reserve(&s.metadata.data, (size_t)text_bytes / 2) != 0)) {
        storage_free(&s);
        variant_encoder_free(enc);
        return error_nomem(err);
    }
    struct rows_variant_invalid bad = {{0}};
    for (int64_t i = 0; i < in->length; i++) {
        if (!arrow_bytes_valid(&text, i)) {
            if (storage_null(&s, i, err) != 0)
                goto fail;
            continue;
        }
        const uint8_t *p;
        size_t n;
        arrow_bytes_at(&text, i, &p, &n);
        struct error e = {0};
        if (variant_encoder_encode(enc, (const char *)p, n, &s.metadata.data, &s.value.data, &e) !=
            0) {
            if (e.code == ERR_NOMEM || on_invalid == ROWS_VARIANT_INVALID_ERROR) {
                *err = e;
                at_row(err, first_row + i);
                goto fail;
            }
            bad.by_reason[reason_of(&e)]++;
            if (storage_null(&s, i, err) != 0)
                goto fail;
            continue;
        }
        if (bytes_out_seal(&s.metadata, err) != 0 || bytes_out_seal(&s.value, err) != 0)
            goto fail;
    }
    if (storage_finish(&s, out, err) != 0)
        goto fail;
    storage_free(&s);
    variant_encoder_free(enc);
    for (int r = 0; invalid && r < RV__COUNT; r++)
        invalid->by_reason[r] += bad.by_reason[r];
    return 0;
fail:
    storage_free(&s);
    variant_encoder_free(enc);
    return -1;
}

int rows_variant_build(int64_t rows, int64_t first_row, rows_variant_row_fn fn, void *ctx,
                       struct ArrowArray *out, struct error *err)
{
    struct storage_out s;
    if (storage_init(&s, rows, err) != 0)
        goto fail;
    for (int64_t i = 0; i < rows; i++) {
        bool null = false;
        if (fn(ctx, i, &s.metadata.data, &s.value.data, &null, err) != 0) {
            at_row(err, first_row + i);
            goto fail;
        }
        int rc = null                                    ? storage_null(&s, i, err)
                 : bytes_out_seal(&s.metadata, err) != 0 ? -1
                                                         : bytes_out_seal(&s.value, err);
        if (rc != 0)
            goto fail;
    }
    if (storage_finish(&s, out, err) != 0)
        goto fail;
    storage_free(&s);
    return 0;
fail:
    storage_free(&s);
    return -1;
}

/* ---- storage read from a file ---- */

static int64_t child_named(const struct ArrowSchema *s, const char *name)
{
    for (int64_t i = 0; i < s->n_children; i++)
        if (s->children[i]->name && strcmp(s->children[i]->name, name) == 0)
            return i;
    return -1;
}

static bool is_binary(const char *f)
{
    return strcmp(f, "z") == 0 || strcmp(f, "Z") == 0;
}

/* A reservation for what an array of the storage unshreds into: about
 * its bytes, capped so a reservation never asks for more than a binary
 * array can hold. */
static size_t storage_bytes(const struct ArrowSchema *s, const struct ArrowArray *a)
{
    double n = arrow_approx_bytes(s, a);
    return n < (double)(INT32_MAX / 4) ? (size_t)n : INT32_MAX / 4;
}

bool rows_variant_is_storage(const struct ArrowSchema *s)
{
    if (!s || strcmp(s->format, "+s") != 0)
        return false;
    int64_t m = child_named(s, "metadata"), v = child_named(s, "value");
    int64_t t = child_named(s, "typed_value");
    if (m < 0 || !is_binary(s->children[m]->format) || (v < 0 && t < 0))
        return false;
    return v < 0 || is_binary(s->children[v]->format);
}

int rows_variant_unshred(const struct ArrowSchema *s, struct ArrowArray *a, int64_t first_row,
                         struct error *err)
{
    if (!rows_variant_is_storage(s) || a->n_children != s->n_children)
        return error_fail(err, ERR_INVALID, "not a VARIANT's storage struct");
    struct unshred_plan *plan = unshred_plan_new(s, err);
    if (!plan)
        return -1;
    struct storage_out out;
    if (storage_init(&out, a->length, err) != 0)
        goto fail;
    /* Unshredded, a row takes its dictionary (perhaps with a few names
     * more) and its value with the typed columns' values folded back in:
     * reserved from what the storage holds rather than grown by copies. */
    int64_t mi = child_named(s, "metadata");
    if (buf_reserve(&out.value.data, storage_bytes(s, a)) != 0 ||
        buf_reserve(&out.metadata.data, storage_bytes(s->children[mi], a->children[mi])) != 0) {
        error_nomem(err);
        goto fail;
    }
    const uint8_t *valid = a->n_buffers > 0 ? a->buffers[0] : NULL;
    for (int64_t i = 0; i < a->length; i++) {
        if (valid && a->null_count != 0 && !arrow_bit(valid, a->offset + i)) {
            if (storage_null(&out, i, err) != 0)
                goto fail;
            continue;
        }
        size_t m0 = out.metadata.data.len, v0 = out.value.data.len;
        if (unshred_row(plan, a, i, &out.metadata.data, &out.value.data, err) != 0) {
            at_row(err, first_row + i);
            goto fail;
        }
        /* Checks every offset, id and length of the row. */
        if (variant_check((const uint8_t *)out.metadata.data.data + m0, out.metadata.data.len - m0,
                          (const uint8_t *)out.value.data.data + v0, out.value.data.len - v0,
                          err) != 0) {
            at_row(err, first_row + i);
            goto fail;
        }
        if (bytes_out_seal(&out.metadata, err) != 0 || bytes_out_seal(&out.value, err) != 0)
            goto fail;
    }
    struct ArrowArray fresh;
    if (storage_finish(&out, &fresh, err) != 0)
        goto fail;
    storage_free(&out);
    unshred_plan_free(plan);
    a->release(a);
    arrow_array_move(&fresh, a);
    return 0;
fail:
    storage_free(&out);
    unshred_plan_free(plan);
    return -1;
}

int rows_variant_to_json(const struct ArrowArray *a, struct ArrowArray *out, struct error *err)
{
    struct arrow_bytes meta, value;
    if (a->n_children != 2 || !arrow_bytes_open(&meta, "z", a->children[0]) ||
        !arrow_bytes_open(&value, "z", a->children[1]))
        return error_fail(err, ERR_INVALID, "not a variant column's unshredded storage");
    struct bytes_out text;
    uint8_t *validity = NULL;
    if (bytes_out_init(&text, a->length, err) != 0)
        goto fail;
    /* JSON text is somewhat longer than a value's bytes and its
     * dictionary's together: reserved once rather than grown by copies. */
    size_t guess = (arrow_bytes_span(&meta, a->offset, a->length) +
                    arrow_bytes_span(&value, a->offset, a->length)) /
                   2 * 3;
    if (guess < INT32_MAX && buf_reserve(&text.data, guess) != 0) {
        error_nomem(err);
        goto fail;
    }
    const uint8_t *valid = a->n_buffers > 0 ? a->buffers[0] : NULL;
    int64_t nulls = 0;
    for (int64_t i = 0; i < a->length; i++) {
        int64_t k = a->offset + i;
        if (valid && a->null_count != 0 && !arrow_bit(valid, k)) {
            if (!validity) {
                size_t n = ((size_t)a->length + 7) / 8;
                if (!(validity = malloc(n))) {
                    error_nomem(err);
                    goto fail;
                }
                memset(validity, 0xff, n);
            }
            arrow_set_bit(validity, i, false);
            nulls++;
        } else {
            const uint8_t *m, *v;
            size_t mn, vn;
            arrow_bytes_at(&meta, k, &m, &mn);
            arrow_bytes_at(&value, k, &v, &vn);
            if (variant_to_json(m, mn, v, vn, &text.data, err) != 0) {
                at_row(err, i);
                goto fail;
            }
        }
        if (bytes_out_seal(&text, err) != 0)
            goto fail;
    }
    if (bytes_out_finish(&text, out, err) != 0)
        goto fail;
    out->null_count = nulls;
    if (validity)
        arrow_array_own_buffer(out, 0, validity);
    return 0;
fail:
    bytes_out_free(&text);
    free(validity);
    return -1;
}
