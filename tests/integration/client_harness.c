#include "client_harness.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rows/rows_schema.h"
#include "textio/textio_parse.h"
#include "textio/textio_schema.h"
#include "util/arena.h"

hl_client *test_client_new(const char *server_url, const char *endpoint)
{
    struct hl_client_options o = {.server_url = server_url,
                                  .s3_endpoint = endpoint,
                                  .s3_region = getenv("HOGLAKE_TEST_S3_REGION"),
                                  .s3_access_key = getenv("HOGLAKE_TEST_S3_ACCESS_KEY"),
                                  .s3_secret_key = getenv("HOGLAKE_TEST_S3_SECRET_KEY"),
                                  .token = test_token_for(server_url)};
    hl_client *c;
    struct hl_error err;
    if (hl_client_new(&o, &c, &err) != HL_OK)
        fail_msg("hl_client_new: %s", err.message);
    return c;
}

void test_check(hl_status st, const struct hl_error *err, const char *what)
{
    if (st != HL_OK)
        fail_msg("%s: %s (%s, HTTP %d %s)", what, err->message, hl_status_name(st),
                 err->http_status, err->code);
}

void client_stack_up(struct client_stack *st, const char *label)
{
    memset(st, 0, sizeof *st);
    const char *moto = test_need_env("HOGLAKE_TEST_MOTO_ENDPOINT");
    st->bucket = test_need_env("HOGLAKE_TEST_S3_BUCKET");
    setenv("AWS_ACCESS_KEY_ID", test_need_env("HOGLAKE_TEST_S3_ACCESS_KEY"), 1);
    setenv("AWS_SECRET_ACCESS_KEY", test_need_env("HOGLAKE_TEST_S3_SECRET_KEY"), 1);
    const char *const extra[] = {"--s3-endpoint", moto, "--s3-region",
                                 test_need_env("HOGLAKE_TEST_S3_REGION"), NULL};
    test_db_create(&st->db, label);
    test_server_start(&st->srv, &st->db, extra);
    test_server_start(&st->srv2, &st->db, extra);
    st->pg = test_db_connect(&st->db);
    test_sql_use(st->pg);
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(st->warehouse, sizeof st->warehouse, "%s/hl-%s-XXXXXX", tmp, label);
    assert_non_null(mkdtemp(st->warehouse));
    st->file_client = test_client_new(st->srv.base, NULL);
    st->moto_client = test_client_new(st->srv.base, moto);
}

void client_stack_down(struct client_stack *st)
{
    hl_client_free(st->file_client);
    hl_client_free(st->moto_client);
    test_server_stop(&st->srv2);
    test_stack_down(&st->db, &st->srv, &st->pg);
    test_remove_tree(st->warehouse);
}

void client_stack_data_path(const struct client_stack *st, const hl_client *c, const char *name,
                            char *out, size_t size)
{
    if (c == st->file_client)
        snprintf(out, size, "file://%s/%s", st->warehouse, name);
    else
        snprintf(out, size, "s3://%s/%s", st->bucket, name);
}

/* ---- Arrow input: JSON Lines as one batch ---- */

struct one_batch {
    struct arena arena;
    struct lake_table table;
    struct ArrowArray batch; /* release NULL once handed out */
};

static int ob_schema(struct ArrowArrayStream *s, struct ArrowSchema *out)
{
    struct one_batch *b = s->private_data;
    return textio_arrow_schema(&b->table, out) != 0 ? ENOMEM : 0;
}

static int ob_next(struct ArrowArrayStream *s, struct ArrowArray *out)
{
    struct one_batch *b = s->private_data;
    *out = b->batch;
    b->batch.release = NULL;
    return 0;
}

static const char *ob_error(struct ArrowArrayStream *s)
{
    (void)s;
    return NULL;
}

static void ob_release(struct ArrowArrayStream *s)
{
    struct one_batch *b = s->private_data;
    if (b->batch.release)
        b->batch.release(&b->batch);
    lake_table_release(&b->table);
    arena_free(&b->arena);
    free(b);
    s->release = NULL;
}

void test_rows_stream(const char *spec, const char *jsonl, struct ArrowArrayStream *s)
{
    struct one_batch *b = calloc(1, sizeof *b);
    assert_non_null(b);
    arena_init(&b->arena, 0);
    lake_table_init(&b->table, &b->arena);
    struct error e;
    struct textio_parser *p;
    if (textio_table_from_spec(spec, &b->table, &e) != 0 ||
        textio_parser_new(&b->table, &p, &e) != 0)
        fail_msg("spec: %s", e.msg);
    /* memchr over the known rest, not strchr: under ASan's
     * strict_string_checks each strchr measures the whole rest first,
     * which makes a large input quadratic. */
    const char *stop = jsonl + strlen(jsonl);
    for (const char *line = jsonl; line < stop;) {
        const char *end = memchr(line, '\n', (size_t)(stop - line));
        if (!end)
            fail_msg("row: the last line does not end in a newline");
        if (textio_parser_json_row(p, line, (size_t)(end - line), &e) != 0)
            fail_msg("row: %s", e.msg);
        line = end + 1;
    }
    struct ArrowSchema schema;
    if (textio_parser_take(p, &schema, &b->batch, &e) != 0)
        fail_msg("take: %s", e.msg);
    schema.release(&schema);
    textio_parser_free(p);
    *s = (struct ArrowArrayStream){.get_schema = ob_schema,
                                   .get_next = ob_next,
                                   .get_last_error = ob_error,
                                   .release = ob_release,
                                   .private_data = b};
}

int64_t test_append(hl_table *t, struct ArrowArrayStream *rows, int64_t row_group_bytes)
{
    struct hl_append_options o;
    hl_append_options_init(&o);
    o.row_group_bytes = row_group_bytes;
    struct hl_append_result *res = NULL;
    struct hl_error err;
    test_check(hl_table_append(t, rows, &o, &res, &err), &err, "append");
    int64_t snapshot = res->snapshot_id;
    hl_append_result_free(res);
    return snapshot;
}
