/* libhoglake's logic without a server: a Table answer as a table definition
 * (and every way an answer can be malformed), idempotency keys, paths and
 * time-travel queries, Arrow arrays of nulls for every type the writer
 * takes (the columns an append's input leaves out), and upload claims: the
 * sizes of the claim requests and the answers a writer accepts; ranged
 * reads of a stored Parquet file (client/object_source). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "client/append.h"
#include "client/claims.h"
#include "client/object_source.h"
#include "client/tableinfo.h"
#include "pq_testlib.h"
#include "parquet/writer.h"
#include "objstore/objstore.h"
#include "rows/rows_project.h"
#include "rows/rows_schema.h"
#include "textio/textio_schema.h"
#include "util/arena.h"
#include "util/arrow.h"
#include "util/random.h"

static const char table_answer[] =
    "{\"name\":\"ev\",\"namespace\":\"ns\",\"table_uuid\":\"7e0c2f52-2d6f-4f4b-9a43-"
    "2b8d7c5e9f10\",\"read_snapshot_id\":12,\"columns\":["
    "{\"name\":\"ts\",\"type\":\"timestamptz\",\"field_id\":2,\"ordinal\":1,\"nullable\":true},"
    "{\"name\":\"id\",\"type\":\"long\",\"field_id\":1,\"ordinal\":0,\"nullable\":false},"
    "{\"name\":\"amount\",\"type\":\"decimal\",\"field_id\":3,\"ordinal\":2,"
    "\"type_params\":{\"precision\":12,\"scale\":3}},"
    "{\"name\":\"tags\",\"type\":\"list\",\"field_id\":4,\"ordinal\":3,\"children\":["
    "{\"name\":\"element\",\"type\":\"string\",\"field_id\":5,\"ordinal\":0}]}],"
    "\"partition_spec\":{\"spec_id\":2,\"fields\":[{\"source_field_id\":2,\"transform\":\"day\"},"
    "{\"source_field_id\":1,\"transform\":\"bucket\",\"transform_param\":16}]},"
    "\"sort_spec\":{\"sort_id\":1,\"fields\":[{\"source_field_id\":1,\"direction\":\"desc\","
    "\"null_order\":\"nulls_first\"}]}}";

static hl_status load(const char *text, struct lake_table *t, struct arena *a, struct hl_error *err)
{
    arena_init(a, 0);
    lake_table_init(t, a);
    json_t *info = json_loads(text, 0, NULL);
    assert_non_null(info);
    hl_status st = client_table_from_info(info, t, err);
    json_decref(info);
    return st;
}

static void unload(struct lake_table *t, struct arena *a)
{
    lake_table_release(t);
    arena_free(a);
}

static void test_table_from_info(void **state)
{
    (void)state;
    struct arena a;
    struct lake_table t;
    struct hl_error err;
    assert_int_equal(load(table_answer, &t, &a, &err), HL_OK);
    assert_string_equal(t.name, "ev");
    /* Siblings in ordinal order, whatever the answer's order. */
    assert_int_equal(t.root.nchildren, 4);
    assert_string_equal(t.root.children[0]->name, "id");
    assert_false(t.root.children[0]->nullable);
    assert_string_equal(t.root.children[1]->name, "ts");
    assert_int_equal(t.root.children[1]->type, LT_TIMESTAMPTZ);
    assert_int_equal(t.root.children[2]->precision, 12);
    assert_int_equal(t.root.children[2]->scale, 3);
    assert_true(t.root.children[2]->nullable); /* absent nullable: nullable */
    assert_int_equal(t.root.children[3]->nchildren, 1);
    assert_int_equal(t.root.children[3]->children[0]->field_id, 5);
    assert_true(t.partitioned);
    assert_int_equal(t.spec_id, 2);
    assert_int_equal(t.nspec_fields, 2);
    assert_int_equal(t.spec_fields[0].transform, LTR_DAY);
    assert_int_equal(t.spec_fields[1].transform, LTR_BUCKET);
    assert_int_equal(t.spec_fields[1].param, 16);
    assert_true(t.sorted);
    assert_true(t.sort_fields[0].descending);
    assert_true(t.sort_fields[0].nulls_first);
    unload(&t, &a);
}

static void test_malformed_answers(void **state)
{
    (void)state;
    static const struct {
        const char *text, *needle;
    } bad[] = {
        {"{\"columns\":[]}", "no name"},
        {"{\"name\":\"t\",\"columns\":{}}", "columns is not an array"},
        {"{\"name\":\"t\",\"columns\":[{\"name\":\"a\",\"type\":\"long\",\"ordinal\":0}]}",
         "lacks name, type, field_id or ordinal"},
        {"{\"name\":\"t\",\"columns\":[{\"name\":\"a\",\"type\":\"int128\",\"field_id\":1,"
         "\"ordinal\":0}]}",
         "does not know"},
        {"{\"name\":\"t\",\"columns\":[{\"name\":\"a\",\"type\":\"long\",\"field_id\":1,"
         "\"ordinal\":0}],\"partition_spec\":{\"fields\":[{\"source_field_id\":1,"
         "\"transform\":\"fortnight\"}]}}",
         "known transform"},
        {"{\"name\":\"t\",\"columns\":[{\"name\":\"a\",\"type\":\"long\",\"field_id\":1,"
         "\"ordinal\":0}],\"partition_spec\":{}}",
         "no fields array"},
        {"{\"name\":\"t\",\"columns\":[{\"name\":\"a\",\"type\":\"long\",\"field_id\":1,"
         "\"ordinal\":0}],\"sort_spec\":{\"fields\":[{}]}}",
         "lacks source_field_id"},
        /* A child whose parent the answer never gave. */
        {"{\"name\":\"t\",\"columns\":[{\"name\":\"s\",\"type\":\"struct\",\"field_id\":1,"
         "\"ordinal\":0,\"children\":[{\"name\":\"x\",\"type\":\"long\",\"field_id\":1,"
         "\"ordinal\":0}]}]}",
         "the Table answer"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct arena a;
        struct lake_table t;
        struct hl_error err;
        hl_status st = load(bad[i].text, &t, &a, &err);
        if (st != HL_ERR_PROTOCOL || !strstr(err.message, bad[i].needle))
            fail_msg("answer %zu: %s '%s', expected protocol with '%s'", i, hl_status_name(st),
                     err.message, bad[i].needle);
        unload(&t, &a);
    }
}

static void test_uuids(void **state)
{
    (void)state;
    assert_true(client_is_uuid("7e0c2f52-2d6f-4f4b-9a43-2b8d7c5e9f10"));
    assert_true(client_is_uuid("7E0C2F52-2D6F-4F4B-9A43-2B8D7C5E9F10"));
    assert_false(client_is_uuid(NULL));
    assert_false(client_is_uuid(""));
    assert_false(client_is_uuid("7e0c2f52-2d6f-4f4b-9a43-2b8d7c5e9f1"));
    assert_false(client_is_uuid("7e0c2f52-2d6f-4f4b-9a43-2b8d7c5e9f100"));
    assert_false(client_is_uuid("7e0c2f52x2d6f-4f4b-9a43-2b8d7c5e9f10"));
    assert_false(client_is_uuid("7e0c2f52-2d6f-4f4b-9a43-2b8d7c5e9g10"));
    /* Generated keys are version 4, variant 1, distinct. */
    char a[37], b[37];
    assert_int_equal(random_uuid4(a), 0);
    assert_int_equal(random_uuid4(b), 0);
    assert_true(client_is_uuid(a));
    assert_int_equal(a[14], '4');
    assert_non_null(strchr("89ab", a[19]));
    assert_string_not_equal(a, b);
}

static void test_paths_and_travel(void **state)
{
    (void)state;
    struct hl_client_options o = {.server_url = "http://127.0.0.1:1/"};
    hl_client *c;
    struct hl_error err;
    assert_int_equal(hl_client_new(&o, &c, &err), HL_OK);
    hl_catalog cat = {.client = c, .name = "a b"};
    hl_namespace ns = {.catalog = &cat, .name = "n/s"};
    hl_table t = {.ns = &ns, .name = "t?x"};
    struct buf p = BUF_INIT;
    assert_int_equal(client_table_path(&p, &t), 0);
    assert_string_equal(p.data, "/v1/catalogs/a%20b/namespaces/n%2Fs/tables/t%3Fx");
    bool q = false;
    struct hl_at at = {-1, "2026-01-01T00:00:00+02:00"};
    assert_int_equal(client_query_at(&p, &at, &q), 0);
    assert_true(q);
    assert_non_null(strstr(p.data, "?at_timestamp=2026-01-01T00%3A00%3A00%2B02%3A00"));
    struct hl_at snap = {7, NULL};
    assert_int_equal(client_query_at(&p, &snap, &q), 0);
    assert_non_null(strstr(p.data, "&snapshot=7"));
    buf_free(&p);
    struct hl_at both = {3, "2026-01-01T00:00:00Z"}, negative = {-5, NULL};
    assert_int_equal(client_check_at(&both, &err), HL_ERR_INVALID_ARGUMENT);
    assert_int_equal(client_check_at(&negative, &err), HL_ERR_INVALID_ARGUMENT);
    assert_int_equal(client_check_at(NULL, &err), HL_OK);
    hl_client_free(c);
}

/* Every type's writer format: an array of nulls the writer accepts. */
static void test_null_arrays(void **state)
{
    (void)state;
    struct arena a;
    arena_init(&a, 0);
    struct lake_table t;
    lake_table_init(&t, &a);
    struct error err;
    const char *spec = "b:boolean, i8:int8, i16:int16, i:int, l:long, u8:uint8, u16:uint16, "
                       "u32:uint32, u64:uint64, f:float, d:double, dec:decimal(20,4), dt:date, "
                       "tm:time, ts0:timestamp_s, ts3:timestamp_ms, ts6:timestamp, "
                       "ts9:timestamp_ns, tz:timestamptz, s:string, j:json, u:uuid, bin:binary, "
                       "li:list<long>, st:struct<x:int,y:string>, m:map<string,long>";
    if (textio_table_from_spec(spec, &t, &err) != 0)
        fail_msg("%s", err.msg);
    struct ArrowSchema schema;
    assert_int_equal(rows_table_arrow_schema(&t, &schema), 0);
    struct ArrowArray batch;
    assert_int_equal(arrow_array_init(&batch, 1, schema.n_children), 0);
    batch.length = 37;
    for (int64_t c = 0; c < schema.n_children; c++) {
        if (arrow_array_nulls(schema.children[c], 37, batch.children[c]) != 0)
            fail_msg("no nulls for %s", schema.children[c]->format);
        assert_int_equal(batch.children[c]->null_count, 37);
    }
    struct buf out = BUF_INIT;
    struct pq_sink sink = {test_sink_buf_write, &out};
    struct pq_writer *w;
    struct error pe;
    struct pq_write_options wo;
    pq_write_options_default(&wo);
    assert_int_equal(pq_writer_open(&t, &wo, &sink, &w, &pe), 0);
    if (pq_writer_write(w, &schema, &batch, &pe) != 0)
        fail_msg("write: %s", pe.msg);
    struct pq_write_result res;
    assert_int_equal(pq_writer_close(w, &res, &pe), 0);
    assert_int_equal(res.meta.num_rows, 37);
    pq_write_result_release(&res);
    buf_free(&out);
    batch.release(&batch);
    /* The same nulls with their buffers in one shared zeroed block (a
     * block too small for the largest: that column's buffers are its
     * own); the holder's reference goes first, the block lives on in the
     * arrays, the writer reads them alike, and they are released in
     * reverse order. */
    size_t largest = 0;
    for (int64_t c = 0; c < schema.n_children; c++) {
        size_t need = arrow_nulls_size(schema.children[c], 37);
        assert_true(need >= 37 / 8 + 1);
        largest = need > largest ? need : largest;
    }
    struct arrow_zeros *zeros = NULL;
    assert_int_equal(arrow_zeros_reserve(&zeros, largest - 1), 0);
    struct arrow_zeros *kept = zeros;
    assert_int_equal(arrow_zeros_reserve(&zeros, largest - 2), 0);
    assert_ptr_equal(zeros, kept); /* large enough: kept */
    struct ArrowArray shared;
    assert_int_equal(arrow_array_init(&shared, 1, schema.n_children), 0);
    shared.length = 37;
    for (int64_t c = 0; c < schema.n_children; c++)
        assert_int_equal(arrow_array_nulls_in(schema.children[c], 37, zeros, shared.children[c]),
                         0);
    arrow_zeros_unref(zeros);
    out = (struct buf)BUF_INIT;
    assert_int_equal(pq_writer_open(&t, &wo, &sink, &w, &pe), 0);
    if (pq_writer_write(w, &schema, &shared, &pe) != 0)
        fail_msg("write of shared nulls: %s", pe.msg);
    assert_int_equal(pq_writer_close(w, &res, &pe), 0);
    assert_int_equal(res.meta.num_rows, 37);
    assert_int_equal(res.meta.row_groups[0].columns[0].meta.statistics.null_count, 37);
    pq_write_result_release(&res);
    buf_free(&out);
    for (int64_t c = schema.n_children - 1; c >= 0; c--)
        shared.children[c]->release(shared.children[c]);
    shared.release(&shared);
    /* A format it does not know. */
    struct ArrowSchema odd;
    assert_int_equal(arrow_schema_init(&odd, "+ud:0,1", "u", 0, 0), 0);
    struct ArrowArray none;
    assert_int_equal(arrow_array_nulls(&odd, 3, &none), -1);
    odd.release(&odd);
    schema.release(&schema);
    lake_table_release(&t);
    arena_free(&a);
}

/* Claim requests double from the first, up to the server's bound. */
static void test_claim_batches(void **state)
{
    (void)state;
    static const size_t from_one[] = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1000, 1000};
    static const size_t from_eight[] = {8, 16, 32, 64, 128, 256, 512, 1000, 1000};
    size_t b = from_one[0];
    for (size_t i = 1; i < sizeof from_one / sizeof *from_one; i++)
        assert_int_equal(b = claims_next_batch(b), from_one[i]);
    b = from_eight[0];
    for (size_t i = 1; i < sizeof from_eight / sizeof *from_eight; i++)
        assert_int_equal(b = claims_next_batch(b), from_eight[i]);
    assert_int_equal(claims_next_batch(700), CLAIMS_MAX_BATCH);
}

static const char claim_prefix[] = "s3://b/wh/data/ns/t/";

/* An answer of two claims with these paths (NULL: the well-formed one). */
static json_t *claim_answer(char (*ids)[37], const char *path0, const char *path1)
{
    char good[2][128];
    for (int i = 0; i < 2; i++)
        snprintf(good[i], sizeof good[i], "%s%s.parquet", claim_prefix, ids[i]);
    json_t *a =
        json_pack("{s:[{s:s, s:s}, {s:s, s:s}]}", "uploads", "upload_id", ids[0], "path",
                  path0 ? path0 : good[0], "upload_id", ids[1], "path", path1 ? path1 : good[1]);
    assert_non_null(a);
    return a;
}

/* The writer takes the paths the server answers in the order it asked,
 * and only inside the prefix it claimed: one segment ending .parquet. */
static void test_claim_answers(void **state)
{
    (void)state;
    hl_catalog cat = {.name = "c"};
    struct claims c;
    struct hl_error err;
    assert_int_equal(claims_init(&c, &cat, CLAIMS_DATA, claim_prefix, 1, 0, &err), HL_OK);
    assert_true(client_is_uuid(c.owner));
    char ids[2][37];
    assert_int_equal(random_uuid4(ids[0]), 0);
    assert_int_equal(random_uuid4(ids[1]), 0);

    char path0[128];
    snprintf(path0, sizeof path0, "%s%s.parquet", claim_prefix, ids[0]);
    static const char *const outside[] = {
        "s3://b/wh/data/ns/other/x.parquet", /* another table's prefix */
        "s3://b/wh/data/ns/t/../u/x.parquet",
        "s3://b/wh/data/ns/t/a/x.parquet",
        "s3://b/wh/data/ns/t/x.puffin",
        "s3://b/wh/data/ns/t/.parquet",
        "file:///etc/x.parquet",
        "s3://b/wh/data/ns/t"};
    for (size_t i = 0; i < sizeof outside / sizeof *outside; i++) {
        json_t *a = claim_answer(ids, NULL, outside[i]);
        if (claims_accept(&c, a, ids, 2, &err) != HL_ERR_PROTOCOL)
            fail_msg("accepted a claim at %s", outside[i]);
        json_decref(a);
    }
    /* The ids in another order, or fewer uploads than asked for. */
    char swapped[2][37];
    memcpy(swapped[0], ids[1], 37);
    memcpy(swapped[1], ids[0], 37);
    json_t *a = claim_answer(ids, NULL, NULL);
    assert_int_equal(claims_accept(&c, a, swapped, 2, &err), HL_ERR_PROTOCOL);
    assert_int_equal(claims_accept(&c, a, ids, 1, &err), HL_ERR_PROTOCOL);
    json_t *none = json_object();
    assert_int_equal(claims_accept(&c, none, ids, 2, &err), HL_ERR_PROTOCOL);
    json_decref(none);

    /* The well-formed answer: its paths are taken in order, without a
     * request while the pool holds some. */
    assert_int_equal(c.npaths, 0); /* nothing of a refused answer was kept */
    assert_int_equal(claims_accept(&c, a, ids, 2, &err), HL_OK);
    json_decref(a);
    assert_int_equal(c.npaths, 2);
    assert_false(c.requested);
    char out[256];
    assert_int_equal(claims_take(&c, out, sizeof out, &err), HL_OK);
    assert_string_equal(out, path0);
    assert_int_equal(claims_take(&c, out, 8, &err), HL_ERR_INVALID_ARGUMENT);
    assert_int_equal(claims_take(&c, out, sizeof out, &err), HL_OK);
    assert_non_null(strstr(out, ids[1]));
    claims_free(&c);
}

/* Claims for deletion vectors take .puffin paths, never .parquet ones. */
static void test_delete_claims(void **state)
{
    (void)state;
    hl_catalog cat = {.name = "c"};
    struct claims c;
    struct hl_error err;
    assert_int_equal(claims_init(&c, &cat, CLAIMS_DELETES, claim_prefix, 1, 0, &err), HL_OK);
    char ids[2][37], p0[128], p1[128];
    assert_int_equal(random_uuid4(ids[0]), 0);
    assert_int_equal(random_uuid4(ids[1]), 0);
    snprintf(p0, sizeof p0, "%s%s.puffin", claim_prefix, ids[0]);
    snprintf(p1, sizeof p1, "%s%s.puffin", claim_prefix, ids[1]);
    json_t *a = claim_answer(ids, NULL, NULL); /* .parquet paths */
    assert_int_equal(claims_accept(&c, a, ids, 2, &err), HL_ERR_PROTOCOL);
    json_decref(a);
    a = claim_answer(ids, p0, p1);
    assert_int_equal(claims_accept(&c, a, ids, 2, &err), HL_OK);
    json_decref(a);
    claims_free(&c);
}

/* A Parquet file read through ranged reads of its object: the footer and
 * the chunks of the columns decoded, equal to reading it from memory; an
 * object shorter than its recorded size fails the open. */
static void test_object_source(void **state)
{
    (void)state;
    struct test_table tt;
    test_table_init(&tt, "[{'name':'a','type':'long','nullable':false},"
                         "{'name':'b','type':'string'},{'name':'c','type':'double'}]");
    struct rng g = {7};
    struct gen_options go = {.null_per_mille = 100, .max_string_len = 200};
    struct ArrowSchema schema;
    struct ArrowArray batch;
    gen_batch(&tt.t, 20000, &go, &g, &schema, &batch);
    struct pq_write_options wo;
    pq_write_options_default(&wo);
    wo.row_group_bytes = 64 * 1024;
    struct buf file = BUF_INIT;
    struct pq_write_result wr;
    write_batches(&tt.t, &wo, &schema, &batch, 1, &file, &wr);
    pq_write_result_release(&wr);
    char dir[] = "/tmp/hl-objsrc-XXXXXX", path[64], uri[80];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/f.parquet", dir);
    snprintf(uri, sizeof uri, "file://%s", path);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(file.data, 1, file.len, f), file.len);
    assert_int_equal(fclose(f), 0);

    struct objstore *store;
    struct hl_error herr;
    assert_int_equal(objstore_open(NULL, &store, &herr), 0);
    struct client_object_source os;
    struct pq_source ranged, whole;
    assert_int_equal(client_object_source_open(&os, &ranged, store, uri, file.len, &herr), 0);
    pq_source_memory(&whole, file.data, file.len);
    struct pq_reader *rr, *rw;
    struct error e;
    assert_int_equal(pq_reader_open(&ranged, &rr, &e), 0);
    assert_int_equal(pq_reader_open(&whole, &rw, &e), 0);
    const struct pq_file_meta *meta = pq_reader_meta(rr);
    assert_true(meta->nrow_groups > 2);
    bool wanted[3] = {true, false, false};
    struct rows_projection pr, pw;
    assert_int_equal(rows_project_open_some(rr, &tt.t, wanted, &pr, &e), 0);
    assert_int_equal(rows_project_open_some(rw, &tt.t, wanted, &pw, &e), 0);
    for (size_t rg = 0; rg < meta->nrow_groups; rg++) {
        struct ArrowArray a, b;
        assert_int_equal(rows_project_read(rr, rg, &pr, &tt.t, &a, &e), 0);
        assert_int_equal(rows_project_read(rw, rg, &pw, &tt.t, &b, &e), 0);
        assert_int_equal(a.length, b.length);
        const struct ArrowArray *ca = a.children[0], *cb = b.children[0];
        assert_memory_equal((const int64_t *)ca->buffers[1] + ca->offset,
                            (const int64_t *)cb->buffers[1] + cb->offset,
                            (size_t)a.length * sizeof(int64_t));
        a.release(&a);
        b.release(&b);
    }
    /* Only column a's chunks (and the footer) were fetched. */
    assert_true(os.reads >= meta->nrow_groups);
    assert_true(os.bytes_read < file.len / 2);
    rows_project_free(&pr);
    rows_project_free(&pw);
    pq_reader_free(rr);
    pq_reader_free(rw);
    client_object_source_free(&os);

    /* Shorter or longer than recorded: refused at the open, typed. */
    assert_int_equal(truncate(path, (off_t)file.len - 100), 0);
    assert_int_equal(client_object_source_open(&os, &ranged, store, uri, file.len, &herr), -1);
    assert_int_equal(herr.status, HL_ERR_FORBIDDEN);
    assert_non_null(strstr(herr.message, "were recorded"));
    client_object_source_free(&os);
    assert_int_equal(truncate(path, (off_t)file.len + 100), 0);
    assert_int_equal(client_object_source_open(&os, &ranged, store, uri, file.len, &herr), -1);
    assert_non_null(strstr(herr.message, "holds more than"));
    client_object_source_free(&os);
    /* Changed after the open: a short read fails the reader, typed. */
    assert_int_equal(truncate(path, (off_t)file.len), 0);
    assert_int_equal(client_object_source_open(&os, &ranged, store, uri, file.len, &herr), 0);
    assert_int_equal(truncate(path, (off_t)file.len - 100), 0);
    assert_int_equal(pq_reader_open(&ranged, &rr, &e), -1);
    assert_true(e.code == ERR_CORRUPT || e.code == ERR_IO);
    client_object_source_free(&os);

    objstore_free(store);
    unlink(path);
    rmdir(dir);
    buf_free(&file);
    schema.release(&schema);
    batch.release(&batch);
    test_table_release(&tt);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_object_source),   cmocka_unit_test(test_delete_claims),
        cmocka_unit_test(test_table_from_info), cmocka_unit_test(test_malformed_answers),
        cmocka_unit_test(test_uuids),           cmocka_unit_test(test_paths_and_travel),
        cmocka_unit_test(test_null_arrays),     cmocka_unit_test(test_claim_batches),
        cmocka_unit_test(test_claim_answers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
