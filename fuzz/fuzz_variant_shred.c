/* libFuzzer target: shredding and unshredding (parquet/variant_shred.c,
 * rows/rows_unshred.c). The input is one row, as fuzz_variant reads it:
 * an odd first byte and JSON text to encode, or an even one, a metadata
 * length (2 bytes), then metadata and value bytes taken as they are. The
 * row is shredded into a fixed declared layout whatever its bytes (they
 * may be refused, never read past); a row that decodes must shred, and its
 * shredded storage must unshred to the same JSON. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parquet/variant_layout.h"
#include "parquet/variant_shred.h"
#include "rows/rows_variant.h"
#include "util/arena.h"
#include "util/arrow.h"
#include "util/buf.h"
#include "variant/variant.h"

static const char decl[] =
    "{\"type\":\"object\",\"fields\":[{\"name\":\"a\",\"type\":\"int64\"},"
    "{\"name\":\"s\",\"type\":\"string\"},"
    "{\"name\":\"d\",\"type\":\"decimal8\",\"precision\":18,\"scale\":2},"
    "{\"name\":\"l\",\"type\":\"array\",\"element\":{\"type\":\"object\",\"fields\":"
    "[{\"name\":\"x\",\"type\":\"double\"},{\"name\":\"i\",\"type\":\"int8\"}]}},"
    "{\"name\":\"b\",\"type\":\"boolean\"},{\"name\":\"t\",\"type\":\"timestamptz\"},"
    "{\"name\":\"u\",\"type\":\"uuid\"},{\"name\":\"bin\",\"type\":\"binary\"},"
    "{\"name\":\"v\",\"type\":\"variant\"}]}";

/* A "z" array of one value. */
static void one_binary(struct ArrowArray *a, const void *p, size_t n)
{
    if (arrow_array_init(a, 3, 0) != 0)
        abort();
    int32_t *off = malloc(2 * sizeof *off);
    uint8_t *data = malloc(n ? n : 1);
    if (!off || !data)
        abort();
    off[0] = 0;
    off[1] = (int32_t)n;
    if (n)
        memcpy(data, p, n);
    a->length = 1;
    a->null_count = 0;
    arrow_array_own_buffer(a, 1, off);
    arrow_array_own_buffer(a, 2, data);
}

static void check_row(const struct lake_column *layout, const uint8_t *m, size_t mn,
                      const uint8_t *v, size_t vn)
{
    struct ArrowArray row;
    if (arrow_array_init(&row, 1, 2) != 0)
        abort();
    row.length = 1;
    row.null_count = 0;
    one_binary(row.children[0], m, mn);
    one_binary(row.children[1], v, vn);
    struct buf want = BUF_INIT;
    struct error e;
    bool valid = variant_to_json(m, mn, v, vn, &want, &e) == 0;
    struct ArrowArray shredded;
    size_t ngroups = pq_variant_groups(layout);
    struct pq_shred_counts *counts = calloc(ngroups, sizeof *counts);
    if (!counts)
        abort();
    int rc = pq_variant_shred(layout, &row, 0, 1, &shredded, counts, &e);
    if (valid && rc != 0)
        abort(); /* a valid row always shreds */
    if (rc == 0 && counts[0].typed + counts[0].fallback + counts[0].variant_null != 1)
        abort(); /* the row's value went one place */
    free(counts);
    if (rc == 0 && valid) {
        struct ArrowSchema s;
        struct ArrowArray text;
        if (pq_variant_shred_schema(layout, &s) != 0 ||
            rows_variant_unshred(&s, &shredded, 0, &e) != 0 ||
            rows_variant_to_json(&shredded, &text, &e) != 0)
            abort(); /* and reads back */
        const int32_t *off = text.buffers[1];
        if ((size_t)off[1] != want.len || memcmp(text.buffers[2], want.data, want.len) != 0)
            abort(); /* as the same value */
        text.release(&text);
        s.release(&s);
    }
    if (rc == 0)
        shredded.release(&shredded);
    row.release(&row);
    buf_free(&want);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > (1u << 20))
        return 0;
    static struct arena arena;
    static struct lake_column *layout;
    if (!layout) {
        arena_init(&arena, 0);
        layout = arena_calloc(&arena, 1, sizeof *layout);
        struct error e;
        if (!layout)
            abort();
        *layout = (struct lake_column){
            .name = "v", .type = LT_VARIANT, .shredding = decl, .nullable = true, .field_id = 1};
        if (pq_variant_layout(&arena, layout, &e) != 0)
            abort();
    }
    if (data[0] & 1) {
        struct buf m = BUF_INIT, v = BUF_INIT;
        struct error e;
        if (variant_from_json((const char *)data + 1, size - 1, &m, &v, &e) == 0)
            check_row(layout, (const uint8_t *)m.data, m.len, (const uint8_t *)v.data, v.len);
        buf_free(&m);
        buf_free(&v);
        return 0;
    }
    if (size < 3)
        return 0;
    size_t mlen = (size_t)data[1] | (size_t)data[2] << 8;
    if (mlen > size - 3)
        mlen = size - 3;
    check_row(layout, data + 3, mlen, data + 3 + mlen, size - 3 - mlen);
    return 0;
}
