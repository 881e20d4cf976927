/* libFuzzer target: the expression language (src/expr/expr.h). The input
 * is parsed as a predicate and as an assignment list; what parses must
 * print as canonical text that parses back to the same text, and is then
 * bound to a fixed table and, when it binds, evaluated over a small batch
 * (with offsets and nulls) and run through the pruning. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "expr/expr.h"
#include "lake/partition.h"
#include "textio/textio_parse.h"
#include "util/arena.h"

static const char columns[] =
    "[{\"name\":\"i\",\"type\":\"long\"},{\"name\":\"s\",\"type\":\"string\"},"
    "{\"name\":\"d\",\"type\":\"double\"},{\"name\":\"ts\",\"type\":\"timestamp\"},"
    "{\"name\":\"dec\",\"type\":\"decimal\",\"type_params\":{\"precision\":10,\"scale\":2}},"
    "{\"name\":\"b\",\"type\":\"boolean\"},{\"name\":\"u\",\"type\":\"uuid\"},"
    "{\"name\":\"st\",\"type\":\"struct\",\"children\":[{\"name\":\"x\",\"type\":\"int\"}]},"
    "{\"name\":\"u8\",\"type\":\"uint8\"}]";

static const char *const rows[] = {
    "{\"i\":1,\"s\":\"a\",\"d\":1.5,\"ts\":\"2026-01-01T00:00:00\",\"dec\":\"1.00\",\"b\":true,"
    "\"u\":\"00000000-0000-0000-0000-000000000001\",\"st\":{\"x\":1},\"u8\":1}",
    "{\"i\":null,\"s\":null,\"d\":\"NaN\",\"st\":null}",
    "{\"i\":-9223372036854775808,\"s\":\"\",\"d\":-0.0,\"ts\":\"1969-12-31T23:59:59\","
    "\"dec\":\"-99999999.99\",\"b\":false,\"st\":{\"x\":null},\"u8\":255}",
    "{\"i\":9223372036854775807,\"s\":\"zz\",\"d\":\"Infinity\",\"dec\":\"0.01\",\"u8\":0}",
};

static struct arena table_arena;
static struct lake_table table;
static struct ArrowSchema schema;
static struct ArrowArray batch;

static void setup(void)
{
    arena_init(&table_arena, 0);
    lake_table_init(&table, &table_arena);
    json_t *cols = json_loads(columns, 0, NULL);
    struct error err;
    struct textio_parser *p;
    if (!cols || lake_table_add_columns(&table, cols, &err) != 0 ||
        textio_parser_new(&table, &p, &err) != 0)
        abort();
    json_decref(cols);
    for (size_t k = 0; k < sizeof rows / sizeof *rows; k++)
        if (textio_parser_json_row(p, rows[k], strlen(rows[k]), &err) != 0)
            abort();
    if (textio_parser_take(p, &schema, &batch, &err) != 0)
        abort();
    textio_parser_free(p);
    batch.offset = 1; /* rows 1..3 */
    batch.length = 3;
}

static void canonical_roundtrip(struct arena *a, const struct expr *e, bool assignments,
                                const struct expr_assignments *as)
{
    struct buf one = BUF_INIT, two = BUF_INIT;
    struct error err;
    if ((assignments ? expr_assignments_to_text(as, &one) : expr_to_text(e, &one)) != 0)
        abort();
    if (one.len <= EXPR_MAX_TEXT) {
        struct expr *e2;
        struct expr_assignments *as2;
        int rc = assignments ? expr_parse_assignments(a, one.data, one.len, &as2, &err)
                             : expr_parse_predicate(a, one.data, one.len, &e2, &err);
        /* Printing adds parentheses, which may pass the nesting bound. */
        if (rc == 0 &&
            ((assignments ? expr_assignments_to_text(as2, &two) : expr_to_text(e2, &two)) != 0 ||
             two.len != one.len || memcmp(one.data, two.data, one.len) != 0))
            abort();
    }
    buf_free(&one);
    buf_free(&two);
}

static void use_predicate(struct arena *a, const struct expr *e)
{
    struct expr_pred *p;
    struct error err;
    if (expr_bind_predicate(a, &table, e, &p, &err) != 0)
        return;
    uint8_t sel[3];
    int64_t n;
    if (expr_pred_eval(p, &schema, &batch, sel, &n, &err) != 0 || n < 0 || n > 3)
        abort();
    const struct expr_columns *c = expr_pred_columns(p);
    if (c->ntop > table.root.nchildren)
        abort();
    static const uint8_t lo[8] = {1}, hi[8] = {9};
    struct expr_field_stats stats = {1, lo, hi, 8, 8, 10, 1, -1};
    (void)expr_pred_may_match(p, &stats, 1);
    struct lake_partition_field spec[2] = {{1, LTR_IDENTITY, 0}, {4, LTR_DAY, 0}};
    const char *values[2] = {"5", "20454"};
    (void)expr_pred_may_match_partition(p, spec, 2, values, 2);
}

static void use_assignments(struct arena *a, const struct expr_assignments *as)
{
    struct expr_update *u;
    struct error err;
    if (expr_bind_assignments(a, &table, as, &u, &err) != 0)
        return;
    static const uint8_t assigned[3] = {1, 0, 1};
    for (size_t k = 0; k < expr_update_count(u); k++) {
        struct ArrowArray out;
        if (expr_update_eval(u, k, &schema, &batch, k % 2 ? assigned : NULL, &out, &err) == 0) {
            if (out.length != batch.length)
                abort();
            out.release(&out);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bool ready;
    if (!ready) {
        setup();
        ready = true;
    }
    struct arena a;
    arena_init(&a, 64 << 20);
    struct error err;
    struct expr *e;
    if (expr_parse_predicate(&a, (const char *)data, size, &e, &err) == 0) {
        canonical_roundtrip(&a, e, false, NULL);
        use_predicate(&a, e);
    }
    struct expr_assignments *as;
    if (expr_parse_assignments(&a, (const char *)data, size, &as, &err) == 0) {
        canonical_roundtrip(&a, NULL, true, as);
        use_assignments(&a, as);
    }
    arena_free(&a);
    return 0;
}
