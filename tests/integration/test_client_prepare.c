/* Prepared appends as the Python client's prepare_append_tables needs them
 * (issue 20), against a real hoglaked, PostgreSQL and a local warehouse:
 *   - caller-given partition groups: each group's rows go to files under
 *     its tuple (identity(team_id) x month(ts), month 672 = 2026-01), one
 *     payload, one commit; a row outside its group's tuple, or a tuple of
 *     the wrong arity, is refused before anything is uploaded;
 *   - expected_table_uuid pins an incarnation other than the handle's:
 *     after a drop and recreate, a payload pinned to the new table commits
 *     into it through the old handle, and one pinned to a uuid no table has
 *     is refused as recreated, uploading nothing;
 *   - expected_table_info reads the table afresh even with a warm cache,
 *     and a layout changed since the caller's read (columns, partition
 *     spec, sort order) is refused as ddl_since_read_snapshot, re-prepare,
 *     uploading nothing; hl_table_prepare_files takes both options too;
 *   - the writer cache: a warm cache prepares with no GET; a payload
 *     prepared on a stale cache is refused at commit with re_prepare, the
 *     cache is dropped, and the next prepare reads the table once;
 *   - streaming_uploads (the seed's single_request_uploads=False): a small
 *     object goes to S3 as create, part, complete instead of one PUT
 *     (counted at a recording S3 stand-in);
 *   - the layout a prepare shapes rows for, typed without a request while
 *     the cache is warm (hl_table_definition_details), and an alter's
 *     add_column from an Arrow type (hl_arrow_column_def). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client_harness.h"
#include "fake_http.h"
#include "harness.h"
#include "hoglake/hoglake.h"
#include "util/arrow.h"

static struct client_stack stack;

static int setup(void **state)
{
    (void)state;
    client_stack_up(&stack, "client_prepare");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    client_stack_down(&stack);
    return 0;
}

static const char *const columns = "[{\"name\":\"id\",\"type\":\"long\",\"nullable\":false},"
                                   "{\"name\":\"team_id\",\"type\":\"long\",\"nullable\":false},"
                                   "{\"name\":\"ts\",\"type\":\"timestamp\"}]";
static const char *const row_spec = "id:long!, team_id:long!, ts:timestamp";
static const char *const team_month =
    "[{\"op\":\"set_partition_spec\",\"fields\":[{\"source_field_id\":2,\"transform\":"
    "\"identity\"},{\"source_field_id\":3,\"transform\":\"month\"}]}]";

static const char *const key1 = "6f1c1a52-3c4e-4f0e-9d55-0c1f4a0c0001";
static const char *const key2 = "6f1c1a52-3c4e-4f0e-9d55-0c1f4a0c0002";
static const char *const key3 = "6f1c1a52-3c4e-4f0e-9d55-0c1f4a0c0003";

struct fixture {
    hl_catalog *catalog;
    hl_namespace *ns;
    hl_table *table;
};

static hl_table *open_table(struct fixture *f)
{
    hl_table *t;
    struct hl_error err;
    test_check(hl_table_open(f->ns, "events", &t, &err), &err, "table open");
    return t;
}

static void create_table(struct fixture *f, const char *ops)
{
    hl_table *t;
    struct hl_error err;
    test_check(hl_table_create(f->ns, "events", columns, NULL, &t, &err), &err, "table create");
    if (ops)
        test_check(hl_table_alter(t, ops, NULL, &err), &err, "alter");
    hl_table_free(t);
}

static void fixture_up(struct fixture *f, const char *name, const char *ops)
{
    memset(f, 0, sizeof *f);
    char data_path[512];
    client_stack_data_path(&stack, stack.file_client, name, data_path, sizeof data_path);
    struct hl_error err;
    test_check(hl_catalog_create(stack.file_client, name, data_path, &f->catalog, &err), &err,
               "catalog");
    test_check(hl_namespace_create(f->catalog, "ns", &f->ns, &err), &err, "namespace");
    create_table(f, ops);
    f->table = open_table(f);
}

static void fixture_free(struct fixture *f)
{
    hl_table_free(f->table);
    hl_namespace_free(f->ns);
    hl_catalog_free(f->catalog);
}

/* GETs of the catalog and table routes the server has answered. */
static int64_t metadata_gets(void)
{
    return test_route_requests(&stack.srv, "GET", "/v1/catalogs/{catalog}") +
           test_route_requests(&stack.srv, "GET",
                               "/v1/catalogs/{catalog}/namespaces/{namespace}/tables/{table}");
}

static int64_t count_rows(hl_table *t)
{
    struct hl_table_details d;
    struct hl_error err;
    test_check(hl_table_describe(t, NULL, &d, &err), &err, "describe");
    int64_t n = d.record_count;
    hl_table_details_clear(&d);
    return n;
}

/* ---- caller-given partition groups ---- */

static void test_groups(void **state)
{
    (void)state;
    struct fixture f;
    fixture_up(&f, "groups", team_month);
    struct ArrowArrayStream a, b, c;
    /* Team 101 in 2026-01 (month 672), team 102 in 2026-03 (674) in two
     * groups of one tuple, which share a file. */
    test_rows_stream(row_spec,
                     "{\"id\":1,\"team_id\":101,\"ts\":\"2026-01-05T00:00:00\"}\n"
                     "{\"id\":2,\"team_id\":101,\"ts\":\"2026-01-31T23:59:59\"}\n",
                     &a);
    test_rows_stream(row_spec, "{\"id\":3,\"team_id\":102,\"ts\":\"2026-03-01T00:00:00\"}\n", &b);
    test_rows_stream(row_spec, "{\"id\":4,\"team_id\":102,\"ts\":\"2026-03-31T00:00:00\"}\n", &c);
    static const char *const jan101[] = {"101", "672"}, *const mar102[] = {"102", "674"};
    struct hl_prepare_group groups[] = {{&a, jan101, 2}, {&b, mar102, 2}, {&c, mar102, 2}};
    char *payload;
    struct hl_append_result *up;
    struct hl_error err;
    test_check(hl_table_prepare_append_groups(f.table, groups, 3, key1, NULL, &payload, &up, &err),
               &err, "prepare groups");
    assert_int_equal(up->nfiles, 2);
    assert_string_equal(up->files[0].partition_values[0], "101");
    assert_string_equal(up->files[0].partition_values[1], "672");
    assert_int_equal(up->files[0].record_count, 2);
    assert_string_equal(up->files[1].partition_values[1], "674");
    assert_int_equal(up->files[1].record_count, 2);
    hl_append_result_free(up);
    assert_non_null(strstr(payload, "\"partition_values\":[\"101\",\"672\"]"));
    int64_t snap;
    test_check(hl_table_commit_prepared(f.table, payload, &snap, &err), &err, "commit");
    free(payload);
    assert_int_equal(count_rows(f.table), 4);

    /* A row of February in January's group: refused, nothing uploaded. */
    test_rows_stream(row_spec,
                     "{\"id\":5,\"team_id\":101,\"ts\":\"2026-01-02T00:00:00\"}\n"
                     "{\"id\":6,\"team_id\":101,\"ts\":\"2026-02-02T00:00:00\"}\n",
                     &a);
    struct hl_prepare_group wrong = {&a, jan101, 2};
    assert_int_equal(
        hl_table_prepare_append_groups(f.table, &wrong, 1, key2, NULL, &payload, &up, &err),
        HL_ERR_VALIDATION);
    assert_null(payload);
    assert_non_null(strstr(err.message, "partition (101, 672) is in partition (101, 673)"));
    assert_int_equal(up->nuploaded, 0);
    hl_append_result_free(up);

    /* One value for a spec of two fields. */
    test_rows_stream(row_spec, "{\"id\":7,\"team_id\":101,\"ts\":null}\n", &a);
    struct hl_prepare_group short_tuple = {&a, jan101, 1};
    assert_int_equal(
        hl_table_prepare_append_groups(f.table, &short_tuple, 1, key2, NULL, &payload, &up, &err),
        HL_ERR_VALIDATION);
    assert_non_null(strstr(err.message, "partition arity differs from destination"));
    hl_append_result_free(up);

    /* A null month is its own partition; NULL values: computed per row. */
    static const char *const null101[] = {"101", NULL};
    test_rows_stream(row_spec, "{\"id\":8,\"team_id\":101,\"ts\":null}\n", &a);
    test_rows_stream(row_spec, "{\"id\":9,\"team_id\":102,\"ts\":\"2026-02-01T00:00:00\"}\n", &b);
    struct hl_prepare_group mixed[] = {{&a, null101, 2}, {&b, NULL, 0}};
    test_check(hl_table_prepare_append_groups(f.table, mixed, 2, key3, NULL, &payload, &up, &err),
               &err, "prepare null and computed");
    assert_int_equal(up->nfiles, 2);
    assert_null(up->files[0].partition_values[1]);
    assert_string_equal(up->files[1].partition_values[1], "673");
    hl_append_result_free(up);
    test_check(hl_catalog_commit_prepared(f.catalog, payload, &snap, &err), &err, "commit 2");
    free(payload);
    assert_int_equal(count_rows(f.table), 6);
    fixture_free(&f);
}

/* ---- expected_table_uuid ---- */

static void test_pinned_uuid(void **state)
{
    (void)state;
    struct fixture f;
    fixture_up(&f, "pinned", NULL);
    char old_uuid[64];
    snprintf(old_uuid, sizeof old_uuid, "%s", hl_table_uuid(f.table));
    struct hl_error err;
    hl_table *dropper = open_table(&f);
    test_check(hl_table_drop(dropper, NULL, &err), &err, "drop");
    hl_table_free(dropper);
    create_table(&f, NULL);
    hl_table *fresh = open_table(&f);
    assert_string_not_equal(hl_table_uuid(fresh), old_uuid);

    /* The old handle, pinned to the new incarnation. */
    struct ArrowArrayStream s;
    test_rows_stream(row_spec, "{\"id\":1,\"team_id\":1,\"ts\":null}\n", &s);
    struct hl_prepare_group g = {.stream = &s};
    struct hl_prepare_options o = {.expected_table_uuid = hl_table_uuid(fresh)};
    char *payload;
    test_check(hl_table_prepare_append_groups(f.table, &g, 1, key1, &o, &payload, NULL, &err), &err,
               "prepare pinned to the new table");
    assert_non_null(strstr(payload, hl_table_uuid(fresh)));
    int64_t snap;
    test_check(hl_catalog_commit_prepared(f.catalog, payload, &snap, &err), &err, "commit");
    free(payload);
    assert_int_equal(count_rows(fresh), 1);

    /* Pinned to an incarnation no table has: refused before any upload. */
    test_rows_stream(row_spec, "{\"id\":2,\"team_id\":1,\"ts\":null}\n", &s);
    o.expected_table_uuid = "00000000-0000-4000-8000-000000000000";
    struct hl_append_result *up;
    assert_int_equal(hl_table_prepare_append_groups(fresh, &g, 1, key2, &o, &payload, &up, &err),
                     HL_ERR_TABLE_RECREATED);
    assert_true(err.re_prepare);
    assert_int_equal(up->nuploaded, 0);
    hl_append_result_free(up);
    /* Not a UUID: the caller's mistake. */
    test_rows_stream(row_spec, "{\"id\":3,\"team_id\":1,\"ts\":null}\n", &s);
    o.expected_table_uuid = "events";
    assert_int_equal(hl_table_prepare_append_groups(fresh, &g, 1, key2, &o, &payload, NULL, &err),
                     HL_ERR_INVALID_ARGUMENT);
    assert_int_equal(count_rows(fresh), 1);
    hl_table_free(fresh);
    fixture_free(&f);
}

/* ---- expected_table_info ---- */

static hl_status prepare_expecting(hl_table *t, const struct hl_table_details *info,
                                   const char *key, char **payload, struct hl_append_result **up,
                                   struct hl_error *err)
{
    struct ArrowArrayStream s;
    test_rows_stream(row_spec, "{\"id\":1,\"team_id\":101,\"ts\":\"2026-01-05T00:00:00\"}\n", &s);
    struct hl_prepare_group g = {.stream = &s};
    struct hl_prepare_options o = {.expected_table_info = info};
    return hl_table_prepare_append_groups(t, &g, 1, key, &o, payload, up, err);
}

/* Another writer alters the table; the caller's read goes stale, and the
 * prepare says what changed. */
static void expect_stale(struct fixture *f, const struct hl_table_details *info, const char *ops,
                         const char *what)
{
    hl_table *other = open_table(f);
    struct hl_error err;
    test_check(hl_table_alter(other, ops, NULL, &err), &err, "alter");
    hl_table_free(other);
    char *payload;
    struct hl_append_result *up;
    assert_int_equal(prepare_expecting(f->table, info, key2, &payload, &up, &err),
                     HL_ERR_DDL_SINCE_READ);
    assert_string_equal(err.code, "ddl_since_read_snapshot");
    assert_true(err.re_prepare);
    assert_non_null(strstr(err.message, what));
    assert_null(payload);
    assert_int_equal(up->nuploaded, 0);
    hl_append_result_free(up);
}

static void test_expected_info(void **state)
{
    (void)state;
    struct fixture f;
    fixture_up(&f, "expected_info", team_month);
    struct hl_table_details info;
    struct hl_error err;
    test_check(hl_table_describe(f.table, NULL, &info, &err), &err, "describe");
    /* The cache is warm, and still the table is read. */
    char *payload;
    int64_t gets = metadata_gets();
    test_check(prepare_expecting(f.table, &info, key1, &payload, NULL, &err), &err,
               "prepare with the current layout");
    assert_int_equal(metadata_gets(), gets + 2);
    free(payload);

    expect_stale(&f, &info,
                 "[{\"op\":\"set_sort_order\",\"sort_fields\":[{\"source_field_id\":1,"
                 "\"direction\":\"desc\"}]}]",
                 "its sort order changed");
    hl_table_details_clear(&info);
    test_check(hl_table_describe(f.table, NULL, &info, &err), &err, "describe 2");
    expect_stale(&f, &info,
                 "[{\"op\":\"set_partition_spec\",\"fields\":[{\"source_field_id\":2,"
                 "\"transform\":\"identity\"}]}]",
                 "its partition spec changed");
    hl_table_details_clear(&info);
    test_check(hl_table_describe(f.table, NULL, &info, &err), &err, "describe 3");
    expect_stale(&f, &info,
                 "[{\"op\":\"add_column\",\"column\":{\"name\":\"note\",\"type\":\"string\"}}]",
                 "its columns changed");
    hl_table_details_clear(&info);
    fixture_free(&f);
}

/* Files another writer produced take the same options. */
static void test_files_options(void **state)
{
    (void)state;
    struct fixture f;
    fixture_up(&f, "files_options", NULL);
    struct ArrowArrayStream s;
    test_rows_stream(row_spec, "{\"id\":1,\"team_id\":101,\"ts\":null}\n", &s);
    struct hl_append_result *res;
    struct hl_error err;
    test_check(hl_table_append(f.table, &s, NULL, &res, &err), &err, "append");
    const char *paths[] = {res->files[0].path + strlen("file://")};
    struct hl_table_details info;
    test_check(hl_table_describe(f.table, NULL, &info, &err), &err, "describe");
    struct hl_prepare_options o = {.expected_table_uuid = "00000000-0000-4000-8000-000000000000"};
    char *payload;
    assert_int_equal(
        hl_table_prepare_files(f.table, paths, 1, NULL, key1, &o, &payload, NULL, &err),
        HL_ERR_TABLE_RECREATED);
    o = (struct hl_prepare_options){.expected_table_info = &info};
    test_check(hl_table_prepare_files(f.table, paths, 1, NULL, key1, &o, &payload, NULL, &err),
               &err, "prepare files with the current layout");
    free(payload);
    hl_table *other = open_table(&f);
    test_check(hl_table_alter(other,
                              "[{\"op\":\"set_sort_order\",\"sort_fields\":[{\"source_field_id\":1,"
                              "\"direction\":\"desc\"}]}]",
                              NULL, &err),
               &err, "alter");
    hl_table_free(other);
    assert_int_equal(
        hl_table_prepare_files(f.table, paths, 1, NULL, key2, &o, &payload, NULL, &err),
        HL_ERR_DDL_SINCE_READ);
    assert_non_null(strstr(err.message, "its sort order changed"));
    hl_table_details_clear(&info);
    hl_append_result_free(res);
    fixture_free(&f);
}

/* ---- the writer cache ---- */

static hl_status prepare_rows(hl_table *t, const char *key, char **payload, struct hl_error *err)
{
    struct ArrowArrayStream s;
    test_rows_stream(row_spec, "{\"id\":1,\"team_id\":101,\"ts\":\"2026-01-05T00:00:00\"}\n", &s);
    return hl_table_prepare_append(t, &s, key, payload, NULL, err);
}

static void test_warm_cache(void **state)
{
    (void)state;
    struct fixture f;
    fixture_up(&f, "warm_cache", team_month);
    char *payload;
    int64_t snap;
    struct hl_error err;
    /* The open read the table: preparing and committing costs no GET. */
    int64_t gets = metadata_gets();
    test_check(prepare_rows(f.table, key1, &payload, &err), &err, "prepare");
    test_check(hl_table_commit_prepared(f.table, payload, &snap, &err), &err, "commit");
    free(payload);
    assert_int_equal(metadata_gets(), gets);

    /* Stale: another writer changed the spec. The prepare still reads
     * nothing; the commit is refused with re_prepare and drops the cache. */
    hl_table *other = open_table(&f);
    test_check(hl_table_alter(other,
                              "[{\"op\":\"set_partition_spec\",\"fields\":[{\"source_field_id\":"
                              "2,\"transform\":\"identity\"}]}]",
                              NULL, &err),
               &err, "alter");
    hl_table_free(other);
    gets = metadata_gets();
    test_check(prepare_rows(f.table, key2, &payload, &err), &err, "prepare on a stale cache");
    assert_int_equal(metadata_gets(), gets);
    assert_int_equal(hl_table_commit_prepared(f.table, payload, &snap, &err),
                     HL_ERR_DDL_SINCE_READ);
    assert_true(err.re_prepare);
    free(payload);
    /* Re-prepared: one read (the catalog, then the table), and it lands. */
    gets = metadata_gets();
    test_check(prepare_rows(f.table, key3, &payload, &err), &err, "re-prepare");
    assert_int_equal(metadata_gets(), gets + 2);
    assert_non_null(strstr(payload, "\"partition_values\":[\"101\"]"));
    test_check(hl_table_commit_prepared(f.table, payload, &snap, &err), &err, "commit again");
    free(payload);
    assert_int_equal(count_rows(f.table), 2);
    fixture_free(&f);
}

/* ---- the definition, typed, and columns from Arrow types ---- */

static void test_definition_details(void **state)
{
    (void)state;
    struct fixture f;
    fixture_up(&f, "definition", team_month);
    struct hl_error err;
    struct hl_table_details cached, read;
    int64_t gets = metadata_gets();
    test_check(hl_table_definition_details(f.table, &cached, &err), &err, "definition");
    assert_int_equal(metadata_gets(), gets); /* the open's read, warm */
    test_check(hl_table_describe(f.table, NULL, &read, &err), &err, "describe");
    assert_int_equal(cached.ncolumns, 3);
    assert_int_equal(cached.ncolumns, read.ncolumns);
    for (size_t i = 0; i < cached.ncolumns; i++) {
        assert_string_equal(cached.columns[i].name, read.columns[i].name);
        assert_int_equal(cached.columns[i].field_id, read.columns[i].field_id);
    }
    assert_int_equal(cached.npartition_fields, 2);
    assert_string_equal(cached.partition_fields[1].transform, "month");
    assert_int_equal(cached.spec_id, read.spec_id);
    hl_table_details_clear(&read);
    hl_table_details_clear(&cached);

    /* add_column from Arrow types: decimal128(12, 3) renamed and required,
     * a list of strings with its own name and nullability. */
    struct ArrowSchema dec, list;
    assert_int_equal(arrow_schema_init(&dec, "d:12,3", "ignored", ARROW_FLAG_NULLABLE, 0), 0);
    assert_int_equal(arrow_schema_init(&list, "+l", "tags", ARROW_FLAG_NULLABLE, 1), 0);
    assert_int_equal(arrow_schema_init(list.children[0], "u", "item", ARROW_FLAG_NULLABLE, 0), 0);
    char *dec_def = NULL, *list_def = NULL;
    test_check(hl_arrow_column_def(&dec, "price", 0, &dec_def, &err), &err, "decimal def");
    test_check(hl_arrow_column_def(&list, NULL, -1, &list_def, &err), &err, "list def");
    char ops[1024];
    snprintf(ops, sizeof ops,
             "[{\"op\":\"add_column\",\"column\":%s},"
             "{\"op\":\"add_column\",\"column\":%s}]",
             dec_def, list_def);
    free(dec_def);
    free(list_def);
    test_check(hl_table_alter(f.table, ops, NULL, &err), &err, "alter with Arrow columns");
    test_check(hl_table_definition_details(f.table, &cached, &err), &err, "after alter");
    assert_int_equal(cached.ncolumns, 5);
    const struct hl_column *price = &cached.columns[3], *tags = &cached.columns[4];
    assert_string_equal(price->name, "price");
    assert_string_equal(price->type, "decimal");
    assert_false(price->nullable);
    assert_int_equal(price->precision, 12);
    assert_int_equal(price->scale, 3);
    assert_string_equal(tags->name, "tags");
    assert_string_equal(tags->type, "list");
    assert_true(tags->nullable);
    assert_int_equal(tags->nchildren, 1);
    assert_string_equal(tags->children[0].name, "element");
    assert_string_equal(tags->children[0].type, "string");
    hl_table_details_clear(&cached);

    /* Refused before any request: a type outside the mapping, no name. */
    struct ArrowSchema half, nameless;
    assert_int_equal(arrow_schema_init(&half, "e", "f16", ARROW_FLAG_NULLABLE, 0), 0);
    assert_int_equal(arrow_schema_init(&nameless, "l", NULL, 0, 0), 0);
    char *def = NULL;
    assert_int_equal(hl_arrow_column_def(&half, NULL, -1, &def, &err), HL_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "'f16' has format 'e'"));
    assert_int_equal(hl_arrow_column_def(&nameless, NULL, -1, &def, &err), HL_ERR_INVALID_ARGUMENT);
    assert_int_equal(hl_arrow_column_def(&nameless, "x", 2, &def, &err), HL_ERR_INVALID_ARGUMENT);
    assert_null(def);
    struct ArrowSchema *made[] = {&dec, &list, &half, &nameless};
    for (size_t i = 0; i < sizeof made / sizeof made[0]; i++)
        made[i]->release(made[i]);
    fixture_free(&f);
}

/* ---- streaming_uploads ---- */

/* An S3 that takes every upload: one PUT, or a multipart upload. */
static void s3_accepts(void *ctx, size_t i, const struct fake_request *r, struct fake_answer *a)
{
    (void)ctx;
    (void)i;
    a->status = 200;
    if (strcmp(r->method, "POST") == 0 && strstr(r->target, "?uploads="))
        snprintf(a->body, sizeof a->body,
                 "<InitiateMultipartUploadResult><UploadId>up1</UploadId>"
                 "</InitiateMultipartUploadResult>");
    else if (strcmp(r->method, "POST") == 0)
        snprintf(a->body, sizeof a->body,
                 "<CompleteMultipartUploadResult><ETag>\"e\"</ETag>"
                 "</CompleteMultipartUploadResult>");
    else
        snprintf(a->headers, sizeof a->headers, "ETag: \"e\"\r\n");
}

/* Prepares one row into an s3:// catalog whose storage is f, through a
 * client with streaming_uploads as given; the requests f got are left in f. */
static void prepare_to(struct fake_http *f, bool streaming, const char *name)
{
    struct hl_client_options o = {.server_url = stack.srv.base,
                                  .s3_endpoint = f->base,
                                  .s3_region = "us-east-1",
                                  .s3_access_key = "AKIDRECORDING",
                                  .s3_secret_key = "recording",
                                  .token = test_token_for(stack.srv.base),
                                  .streaming_uploads = streaming};
    hl_client *c;
    struct hl_error err;
    test_check(hl_client_new(&o, &c, &err), &err, "client");
    char data_path[512];
    client_stack_data_path(&stack, stack.moto_client, name, data_path, sizeof data_path);
    struct fixture fx;
    memset(&fx, 0, sizeof fx);
    test_check(hl_catalog_create(c, name, data_path, &fx.catalog, &err), &err, "catalog");
    test_check(hl_namespace_create(fx.catalog, "ns", &fx.ns, &err), &err, "namespace");
    create_table(&fx, NULL);
    fx.table = open_table(&fx);
    char *payload;
    test_check(prepare_rows(fx.table, key1, &payload, &err), &err, "prepare");
    free(payload);
    fixture_free(&fx);
    hl_client_free(c);
}

static void test_streaming_uploads(void **state)
{
    (void)state;
    struct fake_http f;
    fake_http_start(&f, s3_accepts, NULL);
    prepare_to(&f, false, "single_put");
    assert_int_equal(fake_http_count(&f), 1);
    assert_string_equal(fake_http_request(&f, 0).method, "PUT");
    fake_http_stop(&f);

    fake_http_start(&f, s3_accepts, NULL);
    prepare_to(&f, true, "streamed");
    assert_int_equal(fake_http_count(&f), 3);
    struct fake_request create = fake_http_request(&f, 0), part = fake_http_request(&f, 1),
                        complete = fake_http_request(&f, 2);
    assert_string_equal(create.method, "POST");
    assert_non_null(strstr(create.target, "?uploads="));
    assert_string_equal(part.method, "PUT");
    assert_non_null(strstr(part.target, "partNumber=1&uploadId=up1"));
    assert_true(part.body_len > 0);
    assert_string_equal(complete.method, "POST");
    assert_non_null(strstr(complete.target, "?uploadId=up1"));
    fake_http_stop(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_groups),
        cmocka_unit_test(test_pinned_uuid),
        cmocka_unit_test(test_expected_info),
        cmocka_unit_test(test_files_options),
        cmocka_unit_test(test_warm_cache),
        cmocka_unit_test(test_streaming_uploads),
        cmocka_unit_test(test_definition_details),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
