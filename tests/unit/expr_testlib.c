#include "expr_testlib.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "textio/textio_parse.h"
#include "util/arena.h"
#include "util/arrow.h"

void xt_batch(const struct lake_table *t, const char *jsonl, struct ArrowSchema *schema,
              struct ArrowArray *batch)
{
    struct textio_parser *p;
    struct error err = {0};
    if (textio_parser_new(t, &p, &err) != 0)
        fail_msg("parser: %s", err.msg);
    char *text = strdup(jsonl);
    assert_non_null(text);
    for (char *c = text; *c; c++)
        if (*c == '\'')
            *c = '"';
    for (char *line = text, *end; *line; line = end + (*end != '\0')) {
        end = strchr(line, '\n');
        if (!end)
            end = line + strlen(line);
        if (end > line && textio_parser_json_row(p, line, (size_t)(end - line), &err) != 0)
            fail_msg("row '%.*s': %s", (int)(end - line), line, err.msg);
    }
    free(text);
    if (textio_parser_take(p, schema, batch, &err) != 0)
        fail_msg("take: %s", err.msg);
    textio_parser_free(p);
}

void xt_drop(struct ArrowArray *batch, int64_t n)
{
    batch->offset += n;
    batch->length -= n;
}

static void unknown_nulls(struct ArrowArray *a)
{
    if (a->n_buffers > 0 && a->buffers[0])
        a->null_count = -1;
}

void xt_push_offsets(struct ArrowArray *a, int64_t d, bool deep)
{
    assert_true(a->offset >= d);
    /* The array's own validity moves with its offset. */
    uint8_t *bits = a->n_buffers > 0 ? (uint8_t *)a->buffers[0] : NULL;
    for (int64_t i = 0; bits && i < a->offset + a->length - d; i++)
        arrow_set_bit(bits, i, arrow_bit(bits, i + d));
    a->offset -= d;
    unknown_nulls(a);
    for (int64_t i = 0; i < a->n_children; i++) {
        struct ArrowArray *c = a->children[i];
        c->offset += d;
        c->length -= d;
        unknown_nulls(c);
        /* Only struct children index their own children by row. */
        if (deep && c->n_buffers == 1 && c->n_children > 0 && c->offset >= d)
            xt_push_offsets(c, d, true);
    }
}

struct xt_fixture *xt_fixture_new(const char *columns, const char *jsonl, int64_t drop, int offsets)
{
    struct xt_fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    test_table_init(&f->tt, columns);
    xt_batch(&f->tt.t, jsonl, &f->schema, &f->batch);
    xt_drop(&f->batch, drop);
    if (offsets > 0)
        xt_push_offsets(&f->batch, 1, offsets == 2);
    return f;
}

void xt_fixture_free(struct xt_fixture *f)
{
    f->schema.release(&f->schema);
    f->batch.release(&f->batch);
    test_table_release(&f->tt);
    free(f);
}

const char *xt_rows(const struct expr_pred *p, const struct ArrowSchema *schema,
                    const struct ArrowArray *batch)
{
    static char out[4096];
    uint8_t *sel = malloc((size_t)batch->length + 1);
    assert_non_null(sel);
    int64_t n = -1;
    struct error err = {0};
    if (expr_pred_eval(p, schema, batch, sel, &n, &err) != 0)
        fail_msg("eval: %s", err.msg);
    size_t len = 0;
    int64_t count = 0;
    out[0] = '\0';
    for (int64_t r = 0; r < batch->length; r++) {
        assert_true(sel[r] == 0 || sel[r] == 1);
        if (sel[r]) {
            len += (size_t)snprintf(out + len, sizeof out - len, "%s%lld", count ? "," : "",
                                    (long long)r);
            count++;
        }
    }
    assert_int_equal(n, count);
    free(sel);
    return out;
}

const char *xt_select(const struct lake_table *t, const char *text,
                      const struct ArrowSchema *schema, const struct ArrowArray *batch)
{
    struct arena a;
    arena_init(&a, 0);
    struct expr_pred *p;
    struct error err = {0};
    if (expr_compile_predicate(&a, t, text, strlen(text), &p, &err) != 0)
        fail_msg("'%s': %s", text, err.msg);
    const char *rows = xt_rows(p, schema, batch);
    arena_free(&a);
    return rows;
}

const char *xt_bind_error(const struct lake_table *t, const char *text)
{
    static char msg[ERROR_MESSAGE_MAX];
    struct arena a;
    arena_init(&a, 0);
    struct expr_pred *p;
    struct error err = {0};
    if (expr_compile_predicate(&a, t, text, strlen(text), &p, &err) == 0)
        fail_msg("'%s' binds", text);
    arena_free(&a);
    assert_int_equal(err.code, ERR_INVALID);
    snprintf(msg, sizeof msg, "%s", err.msg);
    return msg;
}
