/* The guarded commit endpoints (contract §2.5, §4.3 steps 0, 8, 10 and 11,
 * §4.5) over HTTP against a real hoglaked, PostgreSQL and a file://
 * warehouse, with deletion vectors written as real Puffin files:
 *   - /commit/deletes/prepared, /commit/mutations/prepared, /commit/uploads
 *     and /commit/transaction refuse what they lack (key, read_snapshot,
 *     every group's expected_table_uuid, a deletes group) or do not take
 *     (appends, data_file_path, explicit_row_ids, upload_owner), and change
 *     nothing;
 *   - the unchanged-table guard: an insert or delete on a table the request
 *     deletes from, after read_snapshot, is 409 commit_conflict on the
 *     guarded endpoints (not on /commit); an append to another table and a
 *     compaction (real data, libhoglake and the server's compactor) are
 *     not; a statement that deleted nothing commits a snapshot, guarded too;
 *   - a transaction appends a file and deletes from it by data_file_path in
 *     one snapshot, and the scan plan pairs them;
 *   - explicit row ids on an update's rewritten rows: checked against their
 *     _hog_row_id statistics and the rows the commit deletes, stored with
 *     row_id_start at their minimum, the row-id allocator left alone, and
 *     listed by files, scan and the changefeed;
 *   - /commit/uploads registers only active claims of its key, of the
 *     path's kind;
 *   - replays with the same key return the same snapshot.
 *
 * Bodies are written with single quotes (dq() makes them JSON) and '@'
 * for the catalog's data path. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "client_harness.h"
#include "harness.h"
#include "hoglake/hoglake.h"
#include "lake/dv.h"
#include "lake/puffin.h"
#include "util/base64.h"
#include "util/buf.h"
#include "util/error.h"

#define CAT "ce"
#define NS "ns"
#define ROW_ID_FIELD 2147483646LL

static struct client_stack st; /* its warehouse holds the file:// catalogs */
static char data[300];         /* file://<warehouse>/ce: the catalog's data path */

/* ---- requests ---- */

/* Idempotency key (and upload owner) number n, 0 to 99. */
static const char *key(int n)
{
    static char keys[100][37];
    assert_true(n >= 0 && n < 100);
    snprintf(keys[n], sizeof keys[n], "c0ffee00-0000-4000-8000-%012d", n);
    return keys[n];
}

/* fmt's text with every '@' replaced by the data path, into out. */
static void expand(char *out, size_t size, const char *fmt, va_list ap)
{
    char text[16384];
    vsnprintf(text, sizeof text, fmt, ap);
    size_t n = 0;
    for (const char *p = text; *p && n + 1 < size; p++) {
        if (*p == '@')
            n += (size_t)snprintf(out + n, size - n, "%s", data);
        else
            out[n++] = *p;
    }
    out[n < size ? n : size - 1] = '\0';
    assert_true(n + 1 < size);
}

static void vsend(struct http_result *r, const char *endpoint, const char *fmt, va_list ap)
{
    char body[32768];
    expand(body, sizeof body, fmt, ap);
    char *b = dq(body);
    api_send_text(r, &st.srv, "POST", b, "/v1/catalogs/" CAT "/%s", endpoint);
    free(b);
}

static void send(struct http_result *r, const char *endpoint, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void send(struct http_result *r, const char *endpoint, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsend(r, endpoint, fmt, ap);
    va_end(ap);
}

/* A commit that must succeed; its snapshot id. */
static int64_t commit_at(const char *endpoint, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int64_t commit_at(const char *endpoint, const char *fmt, ...)
{
    struct http_result r;
    va_list ap;
    va_start(ap, fmt);
    vsend(&r, endpoint, fmt, ap);
    va_end(ap);
    expect_status(&r, 200);
    int64_t snap = jint(r.json, "snapshot_id");
    http_result_free(&r);
    return snap;
}

/* Everything a refused commit must leave as it was. */
static void state_text(char *out, size_t size)
{
    snprintf(out, size, "%lld/%lld/%lld/%lld/%lld/%lld", (long long)head_of(CAT),
             (long long)sqli("SELECT count(*) FROM hog_data_file"),
             (long long)sqli("SELECT count(*) FROM hog_delete_file"),
             (long long)sqli("SELECT count(*) FROM hog_delete_file WHERE end_snapshot IS NULL"),
             (long long)sqli("SELECT count(*) FROM hog_commit_receipt"),
             (long long)sqli("SELECT coalesce(sum(next_row_id), 0) FROM hog_table_stats"));
}

/* A commit that must fail with status and code (detail containing needle)
 * and change nothing. */
static void refused_at(const char *endpoint, long status, const char *code, const char *needle,
                       const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void refused_at(const char *endpoint, long status, const char *code, const char *needle,
                       const char *fmt, ...)
{
    char before[200], after[200];
    state_text(before, sizeof before);
    struct http_result r;
    va_list ap;
    va_start(ap, fmt);
    vsend(&r, endpoint, fmt, ap);
    va_end(ap);
    expect_error(&r, status, code);
    expect_detail_contains(&r, needle);
    http_result_free(&r);
    state_text(after, sizeof after);
    assert_string_equal(after, before);
}

/* ---- fixtures ---- */

static void make(const char *table)
{
    json_decref(make_table(&st.srv, CAT, NS, table, "[{\"name\":\"id\",\"type\":\"long\"}]"));
}

static const char *uuid_of(const char *table, char out[64])
{
    json_t *t = api_get_json(&st.srv, "/v1/catalogs/" CAT "/namespaces/" NS "/tables/%s", table);
    snprintf(out, 64, "%s", jstr(t, "table_uuid"));
    json_decref(t);
    return out;
}

/* Appends a (never opened) file of `records` rows at data path + rel to
 * table through /commit; its data file id. */
static int64_t append(const char *table, const char *rel, int64_t records)
{
    commit_at("commit",
              "{'appends':[{'namespace':'" NS "','table':'%s','files':[{'path':'@/%s',"
              "'record_count':%lld,'file_size_bytes':100}]}]}",
              table, rel, (long long)records);
    return sqli("SELECT data_file_id FROM hog_data_file WHERE path = '%s/%s'", data, rel);
}

/* Writes a Puffin file at file_uri (file://) holding the deletion vector
 * of positions [0, n) of the data file at target_uri; its size. */
static int64_t put_dv_uri(const char *file_uri, const char *target_uri, uint64_t n)
{
    struct lake_dv dv;
    lake_dv_init(&dv);
    struct error e;
    for (uint64_t i = 0; i < n; i++)
        assert_int_equal(lake_dv_add(&dv, &i, 1, &e), 0);
    struct lake_puffin_dv_in in = {target_uri, &dv};
    struct lake_puffin_blob_pos pos;
    struct buf out = BUF_INIT;
    if (lake_puffin_write_dvs(&in, 1, "test_commit_endpoints", &out, &pos, &e) != 0)
        fail_msg("puffin: %s", e.msg);
    lake_dv_free(&dv);
    assert_true(strncmp(file_uri, "file://", 7) == 0);
    char mk[700];
    snprintf(mk, sizeof mk, "mkdir -p \"$(dirname '%s')\"", file_uri + 7);
    assert_int_equal(system(mk), 0);
    FILE *f = fopen(file_uri + 7, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(out.data, 1, out.len, f), out.len);
    assert_int_equal(fclose(f), 0);
    /* What was written reads back as the vector it holds. */
    struct lake_puffin_footer footer;
    if (lake_puffin_read_footer((const uint8_t *)out.data, out.len, &footer, &e) != 0)
        fail_msg("puffin footer: %s", e.msg);
    assert_int_equal(footer.ndvs, 1);
    assert_string_equal(footer.dvs[0].referenced_data_file, target_uri);
    assert_int_equal(footer.dvs[0].cardinality, n);
    lake_puffin_footer_free(&footer);
    int64_t size = (int64_t)out.len;
    buf_free(&out);
    return size;
}

/* The same under this catalog's data path: rel and target are relative. */
static int64_t put_dv(const char *rel, const char *target, uint64_t n)
{
    char file_uri[600], target_uri[600];
    snprintf(file_uri, sizeof file_uri, "%s/%s", data, rel);
    snprintf(target_uri, sizeof target_uri, "%s/%s", data, target);
    return put_dv_uri(file_uri, target_uri, n);
}

/* Standard base64 of a long's Iceberg bound (8 bytes little-endian). */
static const char *long_b64(int64_t v, char out[16])
{
    uint8_t le[8];
    for (int i = 0; i < 8; i++)
        le[i] = (uint8_t)((uint64_t)v >> (8 * i));
    struct buf b = BUF_INIT;
    assert_int_equal(base64_encode(&b, le, sizeof le), 0);
    snprintf(out, 16, "%.*s", (int)b.len, b.data);
    buf_free(&b);
    return out;
}

static int64_t next_row_id(const char *table)
{
    return sqli("SELECT next_row_id FROM hog_table_stats WHERE catalog_id = %lld"
                " AND table_id = %lld",
                (long long)cat_id(CAT), (long long)table_id_of(CAT, NS, table));
}

/* Creates catalog `name` at file://<warehouse>/<name> (its data path into
 * data_path, 300 bytes) with namespace ns, through libhoglake. With cat
 * and ns, the caller gets the handles (the namespace borrows the
 * catalog); without, they are freed. */
static void file_catalog(const char *name, char *data_path, hl_catalog **cat, hl_namespace **ns)
{
    snprintf(data_path, 300, "file://%s/%s", st.warehouse, name);
    hl_catalog *c;
    hl_namespace *n;
    struct hl_error err;
    test_check(hl_catalog_create(st.file_client, name, data_path, &c, &err), &err,
               "catalog create");
    test_check(hl_namespace_create(c, NS, &n, &err), &err, "namespace create");
    if (cat) {
        *cat = c;
        *ns = n;
        return;
    }
    hl_namespace_free(n);
    hl_catalog_free(c);
}

static int setup(void **state)
{
    (void)state;
    client_stack_up(&st, "commit_endpoints");
    file_catalog(CAT, data, NULL, NULL);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    client_stack_down(&st);
    return 0;
}

/* ---- what each endpoint requires ---- */

static void endpoints_refuse_what_they_lack(void **state)
{
    (void)state;
    make("req");
    int64_t a = append("req", "req/a.parquet", 10);
    char u[64];
    uuid_of("req", u);
    int64_t rs = head_of(CAT);
    int64_t size = put_dv("req/a.puffin", "req/a.parquet", 2);
    /* A path or a partition value longer than a btree key may be is
     * refused as such (an incompressible 3,000-byte path failed its index
     * insert: a 500). */
    char longest[3001];
    uint32_t seed = 5;
    for (size_t i = 0; i < sizeof longest - 1; i++) {
        seed = seed * 1103515245u + 12345u;
        longest[i] = "abcdefghijklmnopqrstuvwxyz0123456789"[(seed >> 16) % 36];
    }
    longest[sizeof longest - 1] = '\0';
    refused_at("commit", 422, "validation", "longer than 2048",
               "{'appends':[{'namespace':'" NS "','table':'req','files':[{'path':'@/req/%s',"
               "'record_count':1,'file_size_bytes':1}]}]}",
               longest);
    refused_at("commit", 422, "validation", "partition_values[0] is 3000 bytes, longer than 2048",
               "{'appends':[{'namespace':'" NS "','table':'req','files':[{'path':'@/req/p.parquet',"
               "'record_count':1,'file_size_bytes':1,'partition_values':['%s']}]}]}",
               longest);
    /* Groups of ns.req: one deletion vector, one empty, one appended
     * file; each with `uuid` members. */
#define REQ_DV(uuid)                                                                               \
    "{'namespace':'" NS "','table':'req'" uuid ",'files':[{'data_file_id':%lld,"                   \
    "'path':'@/req/a.puffin','delete_count':2,'file_size_bytes':%lld}]}"
#define REQ_NONE "{'namespace':'" NS "','table':'req','expected_table_uuid':'%s','files':[]}"
#define REQ_FILE                                                                                   \
    "{'namespace':'" NS "','table':'req','expected_table_uuid':'%s','files':[{"                    \
    "'path':'@/req/n.parquet','record_count':1,'file_size_bytes':1}]}"
#define WITH_UUID ",'expected_table_uuid':'%s'"
    static const char *const guarded[] = {"commit/deletes/prepared", "commit/mutations/prepared",
                                          "commit/uploads", "commit/transaction"};
    for (size_t i = 0; i < sizeof guarded / sizeof guarded[0]; i++) {
        refused_at(guarded[i], 422, "validation", "this endpoint needs an idempotency_key",
                   "{'read_snapshot':%lld,'deletes':[" REQ_DV(WITH_UUID) "]}", (long long)rs, u,
                   (long long)a, (long long)size);
        /* Without read_snapshot, what needs none (vectors need one
         * anyway): a statement that deleted nothing, or an append. */
        if (i == 0)
            refused_at(guarded[i], 422, "validation", "this endpoint needs read_snapshot",
                       "{'idempotency_key':'%s','deletes':[" REQ_NONE "]}", key(1), u);
        else
            refused_at(guarded[i], 422, "validation", "this endpoint needs read_snapshot",
                       "{'idempotency_key':'%s','appends':[" REQ_FILE "],'deletes':[" REQ_NONE "]}",
                       key(1), u, u);
        refused_at(guarded[i], 422, "validation",
                   "deletes[0].expected_table_uuid is required by this endpoint",
                   "{'idempotency_key':'%s','read_snapshot':%lld,'deletes':[" REQ_DV("") "]}",
                   key(1), (long long)rs, (long long)a, (long long)size);
    }
    refused_at("commit/deletes/prepared", 422, "validation", "this endpoint takes no appends",
               "{'idempotency_key':'%s','read_snapshot':%lld,'appends':[" REQ_FILE
               "],'deletes':[" REQ_DV(WITH_UUID) "]}",
               key(1), (long long)rs, u, u, (long long)a, (long long)size);
    refused_at("commit/mutations/prepared", 422, "validation",
               "this endpoint needs at least one deletes group",
               "{'idempotency_key':'%s','read_snapshot':%lld,'appends':[" REQ_FILE "]}", key(1),
               (long long)rs, u);
    refused_at("commit/uploads", 422, "validation", "upload_owner is not accepted",
               "{'idempotency_key':'%s','upload_owner':'%s','read_snapshot':%lld,"
               "'deletes':[" REQ_DV(WITH_UUID) "]}",
               key(1), key(1), (long long)rs, u, (long long)a, (long long)size);
    /* data_file_path is the transaction's only. */
    refused_at("commit/mutations/prepared", 422, "validation",
               "deletes[0].files[0].data_file_path is only accepted by the transaction endpoint",
               "{'idempotency_key':'%s','read_snapshot':%lld,'deletes':[{'namespace':'" NS
               "','table':'req','expected_table_uuid':'%s','files':[{'data_file_id':0,"
               "'data_file_path':'@/req/a.parquet','path':'@/req/a.puffin','delete_count':2,"
               "'file_size_bytes':%lld}]}]}",
               key(1), (long long)rs, u, (long long)size);
    /* The endpoint sets the requirements: the same body commits on
     * /commit. */
    commit_at("commit", "{'read_snapshot':%lld,'deletes':[" REQ_DV(WITH_UUID) "]}", (long long)rs,
              u, (long long)a, (long long)size);
}

/* ---- the unchanged-table guard ---- */

/* Sends a guarded delete of `count` rows of data file `target` of ns.g
 * (with a Puffin file at rel) with key `key` read at rs to endpoint. */
static void guarded_dv_text(char *out, size_t size, const char *key, int64_t rs, const char *uuid,
                            int64_t target, const char *rel, int64_t count, int64_t dv_size)
{
    snprintf(out, size,
             "{'idempotency_key':'%s','read_snapshot':%lld,'deletes':[{'namespace':'" NS
             "','table':'g','expected_table_uuid':'%s','files':[{'data_file_id':%lld,"
             "'path':'@/%s','delete_count':%lld,'file_size_bytes':%lld}]}]}",
             key, (long long)rs, uuid, (long long)target, rel, (long long)count,
             (long long)dv_size);
}

static void guard_refuses_changed_tables(void **state)
{
    (void)state;
    make("g");
    make("g_other");
    char u[64], body[2048];
    uuid_of("g", u);
    int64_t a = append("g", "g/a.parquet", 100), b = append("g", "g/b.parquet", 100);
    int64_t s1 = put_dv("g/a1.puffin", "g/a.parquet", 5);
    /* An append to another table after the read is no conflict. */
    int64_t rs = head_of(CAT);
    append("g_other", "g_other/1.parquet", 1);
    guarded_dv_text(body, sizeof body, key(10), rs, u, a, "g/a1.puffin", 5, s1);
    int64_t snap = commit_at("commit/deletes/prepared", "%s", body);
    assert_int_equal(change_rows(CAT, snap, "table_deleted_from", table_id_of(CAT, NS, "g")), 1);
    assert_int_equal(change_rows(CAT, snap, NULL, 0), 1);
    /* Its replay (after more commits) answers the same snapshot. */
    append("g_other", "g_other/2.parquet", 1);
    int64_t h = head_of(CAT);
    assert_int_equal(commit_at("commit/deletes/prepared", "%s", body), snap);
    assert_int_equal(head_of(CAT), h);

    /* An append to the table after the read: 409 on the guarded endpoints,
     * not on /commit (appends never conflict with appends there). */
    rs = head_of(CAT);
    append("g", "g/c.parquet", 10);
    int64_t s2 = put_dv("g/b1.puffin", "g/b.parquet", 3);
    guarded_dv_text(body, sizeof body, key(11), rs, u, b, "g/b1.puffin", 3, s2);
    refused_at("commit/deletes/prepared", 409, "commit_conflict",
               "ns.g had rows inserted or deleted after read_snapshot", "%s", body);
    refused_at("commit/mutations/prepared", 409, "commit_conflict",
               "ns.g had rows inserted or deleted after read_snapshot", "%s", body);
    refused_at("commit/transaction", 409, "commit_conflict",
               "ns.g had rows inserted or deleted after read_snapshot", "%s", body);
    commit_at("commit/prepared", "%s", body);

    /* A delete from the table after the read: 409 too. */
    rs = head_of(CAT);
    int64_t s3 = put_dv("g/a2.puffin", "g/a.parquet", 7);
    guarded_dv_text(body, sizeof body, key(12), rs, u, a, "g/a2.puffin", 7, s3);
    commit_at("commit/deletes/prepared", "%s", body);
    int64_t s4 = put_dv("g/b2.puffin", "g/b.parquet", 4);
    guarded_dv_text(body, sizeof body, key(13), rs, u, b, "g/b2.puffin", 4, s4);
    refused_at("commit/deletes/prepared", 409, "commit_conflict", "after read_snapshot", "%s",
               body);

    /* DDL alone is ddl_since_read_snapshot; DDL with an insert is the
     * retryable conflict. */
    rs = head_of(CAT);
    struct http_result r;
    char *ops = dq("{'ops':[{'op':'set_table_comment','comment':'c'}]}");
    api_send_text(&r, &st.srv, "POST", ops,
                  "/v1/catalogs/" CAT "/namespaces/" NS "/tables/g/alter");
    free(ops);
    expect_status(&r, 200);
    http_result_free(&r);
    guarded_dv_text(body, sizeof body, key(14), rs, u, b, "g/b2.puffin", 4, s4);
    refused_at("commit/deletes/prepared", 409, "ddl_since_read_snapshot", "definition changed",
               "%s", body);
    append("g", "g/d.parquet", 10);
    refused_at("commit/deletes/prepared", 409, "commit_conflict", "inserted or deleted", "%s",
               body);
    /* Read again: accepted. */
    guarded_dv_text(body, sizeof body, key(14), head_of(CAT), u, b, "g/b2.puffin", 4, s4);
    commit_at("commit/deletes/prepared", "%s", body);
}

/* A deletes group with no files is a statement that deleted nothing: one
 * snapshot with no change, a receipt, and the same guard. */
static void zero_row_statements(void **state)
{
    (void)state;
    make("z");
    char u[64], body[1024];
    uuid_of("z", u);
    append("z", "z/a.parquet", 10);
    int64_t rs = head_of(CAT);
#define ZERO_FMT                                                                                   \
    "{'idempotency_key':'%s','read_snapshot':%lld,'deletes':[{'namespace':'" NS "','table':'z',"   \
    "'expected_table_uuid':'%s','files':[]}]}"
    snprintf(body, sizeof body, ZERO_FMT, key(20), (long long)rs, u);
    int64_t snap = commit_at("commit/deletes/prepared", "%s", body);
    assert_int_equal(snap, rs + 1);
    assert_int_equal(change_rows(CAT, snap, NULL, 0), 0);
    expect_sql("1", "SELECT count(*) FROM hog_commit_receipt WHERE snapshot_id = %lld",
               (long long)snap);
    assert_int_equal(commit_at("commit/deletes/prepared", "%s", body), snap);
    /* Elsewhere an empty group alone is nothing to commit. */
    snprintf(body, sizeof body, ZERO_FMT, key(21), (long long)head_of(CAT), u);
    refused_at("commit/mutations/prepared", 422, "validation", "nothing to commit", "%s", body);
    refused_at("commit", 422, "validation", "nothing to commit", "%s", body);
    /* Guarded: an insert since the read. */
    rs = head_of(CAT);
    append("z", "z/b.parquet", 10);
    snprintf(body, sizeof body, ZERO_FMT, key(21), (long long)rs, u);
    refused_at("commit/deletes/prepared", 409, "commit_conflict", "ns.z had rows inserted", "%s",
               body);
    /* And the incarnation: a wrong uuid is table_recreated. */
    snprintf(body, sizeof body, ZERO_FMT, key(21), (long long)head_of(CAT),
             "00000000-0000-4000-8000-000000000000");
    refused_at("commit/deletes/prepared", 409, "table_recreated", "ns.z", "%s", body);
}

/* A vector of every row with removes_file ends its data file at the
 * vector's snapshot: the scan plan no longer lists it, time travel before
 * does, the changefeed still sees the vector; a vector short of every row,
 * or one removing a file the same commit appends, is refused. */
static void removes_file(void **state)
{
    (void)state;
    make("rm");
    char u[64], body[2048];
    uuid_of("rm", u);
    int64_t a = append("rm", "rm/a.parquet", 10);
    int64_t b = append("rm", "rm/b.parquet", 10);
    int64_t rs = head_of(CAT);
    int64_t partial = put_dv("rm/a-part.puffin", "rm/a.parquet", 9);
#define REMOVE_FMT                                                                                 \
    "{'idempotency_key':'%s','read_snapshot':%lld,'deletes':[{'namespace':'" NS "','table':'rm',"  \
    "'expected_table_uuid':'%s','files':[{'data_file_id':%lld,'path':'@/%s','delete_count':%lld,"  \
    "'file_size_bytes':%lld,'removes_file':true}]}]}"
    snprintf(body, sizeof body, REMOVE_FMT, key(30), (long long)rs, u, (long long)a,
             "rm/a-part.puffin", 9LL, (long long)partial);
    refused_at("commit/deletes/prepared", 422, "validation", "needs every row deleted", "%s", body);
    int64_t whole = put_dv("rm/a-all.puffin", "rm/a.parquet", 10);
    snprintf(body, sizeof body, REMOVE_FMT, key(30), (long long)rs, u, (long long)a,
             "rm/a-all.puffin", 10LL, (long long)whole);
    int64_t snap = commit_at("commit/deletes/prepared", "%s", body);
    /* Its replay answers the same snapshot and ends nothing more. */
    assert_int_equal(commit_at("commit/deletes/prepared", "%s", body), snap);
    expect_sql("1",
               "SELECT count(*) FROM hog_data_file WHERE data_file_id = %lld"
               " AND end_snapshot = %lld",
               (long long)a, (long long)snap);
    expect_sql("1",
               "SELECT count(*) FROM hog_delete_file WHERE data_file_id = %lld"
               " AND begin_snapshot = %lld AND end_snapshot IS NULL AND delete_count = 10",
               (long long)a, (long long)snap);
    assert_int_equal(change_rows(CAT, snap, "table_deleted_from", table_id_of(CAT, NS, "rm")), 1);
    /* The scan plan at the head lists b alone; before the delete, both. */
    json_t *plan = api_get_json(&st.srv, "/v1/catalogs/" CAT "/namespaces/" NS "/tables/rm/scan");
    const json_t *files = json_object_get(plan, "files");
    assert_int_equal(json_array_size(files), 1);
    assert_int_equal(jint(json_object_get(json_array_get(files, 0), "data_file"), "data_file_id"),
                     b);
    json_decref(plan);
    plan =
        api_get_json(&st.srv, "/v1/catalogs/" CAT "/namespaces/" NS "/tables/rm/scan?snapshot=%lld",
                     (long long)(snap - 1));
    assert_int_equal(json_array_size(json_object_get(plan, "files")), 2);
    json_decref(plan);
    /* The changefeed over the delete lists the vector with its target. */
    json_t *ch = api_get_json(&st.srv,
                              "/v1/catalogs/" CAT "/namespaces/" NS
                              "/tables/rm/changes?from_snapshot=%lld&to_snapshot=%lld",
                              (long long)(snap - 1), (long long)snap);
    const json_t *dvs = json_object_get(ch, "delete_files");
    assert_int_equal(json_array_size(dvs), 1);
    assert_int_equal(jint(json_array_get(dvs, 0), "data_file_id"), a);
    json_decref(ch);
    /* A removed file takes no more vectors (it was retired). */
    int64_t again = put_dv("rm/a-again.puffin", "rm/a.parquet", 10);
    snprintf(body, sizeof body, REMOVE_FMT, key(31), (long long)head_of(CAT), u, (long long)a,
             "rm/a-again.puffin", 10LL, (long long)again);
    refused_at("commit/deletes/prepared", 422, "validation", "already retired", "%s", body);
#undef REMOVE_FMT
    /* Not a file the same transaction appends. */
    refused_at("commit/transaction", 422, "validation", "removes_file cannot remove",
               "{'idempotency_key':'%s','read_snapshot':%lld,'appends':[{'namespace':'" NS
               "','table':'rm','expected_table_uuid':'%s','files':[{'path':'@/rm/n.parquet',"
               "'record_count':2,'file_size_bytes':100}]}],'deletes':[{'namespace':'" NS
               "','table':'rm','expected_table_uuid':'%s','files':[{'data_file_id':0,"
               "'data_file_path':'@/rm/n.parquet','path':'@/rm/n.puffin','delete_count':2,"
               "'file_size_bytes':10,'removes_file':true}]}]}",
               key(32), (long long)head_of(CAT), u, u);
}

/* Sends body (single quotes) to catalog cc's deletes endpoint, expecting
 * 200. */
static void cc_deletes(const char *body)
{
    struct http_result r;
    char *q = dq(body);
    api_send_text(&r, &st.srv, "POST", q, "/v1/catalogs/cc/commit/deletes/prepared");
    free(q);
    expect_status(&r, 200);
    http_result_free(&r);
}

/* A compaction after the read never conflicts: it keeps the rows. Real
 * data, written by libhoglake and compacted by the server. */
static void compaction_does_not_conflict(void **state)
{
    (void)state;
    char path[300];
    const char *spec = "id:long!, p:int";
    hl_catalog *cat;
    hl_namespace *ns;
    hl_table *t;
    struct hl_error err;
    file_catalog("cc", path, &cat, &ns);
    test_check(hl_table_create(ns, "t",
                               "[{\"name\":\"id\",\"type\":\"long\",\"nullable\":false},"
                               "{\"name\":\"p\",\"type\":\"int\"}]",
                               NULL, &t, &err),
               &err, "table create");
    char *ops = dq("[{'op':'set_partition_spec','fields':[{'source_field_id':2,"
                   "'transform':'identity'}]}]");
    test_check(hl_table_alter(t, ops, NULL, &err), &err, "alter");
    free(ops);
    /* One file in partition 0 (left alone: a group needs five), five in
     * partition 1 (compacted). */
    for (int i = 0; i < 6; i++) {
        char rows[200];
        snprintf(rows, sizeof rows, "{\"id\":%d,\"p\":%d}\n{\"id\":%d,\"p\":%d}\n", 2 * i,
                 i ? 1 : 0, 2 * i + 1, i ? 1 : 0);
        struct ArrowArrayStream s;
        test_rows_stream(spec, rows, &s);
        struct hl_append_options o;
        hl_append_options_init(&o);
        o.read_snapshot = head_of("cc");
        test_check(hl_table_append(t, &s, &o, NULL, &err), &err, "append");
    }
    hl_table_free(t);
    hl_namespace_free(ns);
    hl_catalog_free(cat);
    int64_t cid = cat_id("cc"), tid = table_id_of("cc", "ns", "t");
    /* The first file, partition 0's: its path. */
    int64_t first =
        sqli("SELECT min(data_file_id) FROM hog_data_file WHERE catalog_id = %lld", (long long)cid);
    char sql[200], target[600], uuid[64], dv_uri[600];
    snprintf(sql, sizeof sql,
             "SELECT path FROM hog_data_file WHERE catalog_id = %lld AND data_file_id = %lld",
             (long long)cid, (long long)first);
    PGresult *q = PQexec(st.pg, sql);
    assert_int_equal(PQresultStatus(q), PGRES_TUPLES_OK);
    assert_int_equal(PQntuples(q), 1);
    snprintf(target, sizeof target, "%s", PQgetvalue(q, 0, 0));
    PQclear(q);
    json_t *tj = api_get_json(&st.srv, "/v1/catalogs/cc/namespaces/ns/tables/t");
    snprintf(uuid, sizeof uuid, "%s", jstr(tj, "table_uuid"));
    json_decref(tj);

    int64_t rs = head_of("cc");
    struct http_result r;
    char url[300];
    snprintf(url, sizeof url, "%s/v1/catalogs/cc/maintenance/compact?batch=4", st.srv.base);
    http_call(&r, "POST", url, NULL, NULL, 0, NULL);
    expect_status(&r, 200);
    assert_int_equal(jint(r.json, "groups_compacted"), 1);
    assert_int_equal(jint(r.json, "files_in"), 5);
    http_result_free(&r);
    assert_int_equal(change_rows("cc", head_of("cc"), "table_compacted", tid), 1);
    expect_sql("<null>",
               "SELECT end_snapshot FROM hog_data_file WHERE catalog_id = %lld"
               " AND data_file_id = %lld",
               (long long)cid, (long long)first);
    /* Read before the compaction: a statement that deleted nothing, then
     * a delete of a row of that file (a statement that deletes nothing
     * changes nothing the other is guarded against). */
    char body[2048];
    snprintf(body, sizeof body,
             "{'idempotency_key':'%s','read_snapshot':%lld,'deletes':[{'namespace':'ns',"
             "'table':'t','expected_table_uuid':'%s','files':[]}]}",
             key(31), (long long)rs, uuid);
    cc_deletes(body);
    snprintf(dv_uri, sizeof dv_uri, "%s/dv-1.puffin", path);
    int64_t size = put_dv_uri(dv_uri, target, 1);
    snprintf(body, sizeof body,
             "{'idempotency_key':'%s','read_snapshot':%lld,'deletes':[{'namespace':'ns',"
             "'table':'t','expected_table_uuid':'%s','files':[{'data_file_id':%lld,'path':'%s',"
             "'delete_count':1,'file_size_bytes':%lld}]}]}",
             key(30), (long long)rs, uuid, (long long)first, dv_uri, (long long)size);
    cc_deletes(body);
    assert_int_equal(change_rows("cc", head_of("cc"), "table_deleted_from", tid), 1);
}

/* ---- deletes of a same-commit append ---- */

static void transaction_deletes_its_own_append(void **state)
{
    (void)state;
    make("tx");
    char u[64];
    uuid_of("tx", u);
    int64_t old = append("tx", "tx/old.parquet", 20);
    int64_t rs = head_of(CAT);
    int64_t s_new = put_dv("tx/new.puffin", "tx/new.parquet", 3);
    int64_t s_old = put_dv("tx/old.puffin", "tx/old.parquet", 2);
    /* Appends two files, deletes 3 rows of the second and 2 of an older
     * file, in one snapshot. */
#define TX_FMT                                                                                     \
    "{'idempotency_key':'%s','read_snapshot':%lld,'appends':[{'namespace':'" NS "',"               \
    "'table':'tx','expected_table_uuid':'%s','files':[{'path':'@/tx/first.parquet',"               \
    "'record_count':5,'file_size_bytes':100},{'path':'@/tx/new.parquet','record_count':10,"        \
    "'file_size_bytes':100}]}],'deletes':[{'namespace':'" NS "','table':'tx',"                     \
    "'expected_table_uuid':'%s','files':[{'data_file_id':%s,'data_file_path':'%s',"                \
    "'path':'@/tx/new.puffin','delete_count':%d,'file_size_bytes':%lld},"                          \
    "{'data_file_id':%lld,'path':'@/tx/old.puffin','delete_count':2,'file_size_bytes':%lld}]}]}"
    /* The path must name one of this commit's appends to the table. */
    refused_at("commit/transaction", 422, "validation",
               "is not a file this commit appends to ns.tx", TX_FMT, key(40), (long long)rs, u, u,
               "0", "@/tx/old.parquet", 3, (long long)s_new, (long long)old, (long long)s_old);
    refused_at("commit/transaction", 422, "validation", "its data_file_id must be 0", TX_FMT,
               key(40), (long long)rs, u, u, "7", "@/tx/new.parquet", 3, (long long)s_new,
               (long long)old, (long long)s_old);
    refused_at("commit/transaction", 422, "validation", "deletes 11 rows of a 10-row file", TX_FMT,
               key(40), (long long)rs, u, u, "0", "@/tx/new.parquet", 11, (long long)s_new,
               (long long)old, (long long)s_old);
    int64_t snap =
        commit_at("commit/transaction", TX_FMT, key(40), (long long)rs, u, u, "0",
                  "@/tx/new.parquet", 3, (long long)s_new, (long long)old, (long long)s_old);
    int64_t tid = table_id_of(CAT, NS, "tx");
    assert_int_equal(change_rows(CAT, snap, "table_inserted_into", tid), 1);
    assert_int_equal(change_rows(CAT, snap, "table_deleted_from", tid), 1);
    /* The vector names the new file's id, allocated in the same commit. */
    expect_sql("3|10|true",
               "SELECT v.delete_count || '|' || d.record_count || '|' ||"
               " (d.begin_snapshot = v.begin_snapshot)::text FROM hog_delete_file v"
               " JOIN hog_data_file d USING (catalog_id, data_file_id)"
               " WHERE v.path = '%s/tx/new.puffin'",
               data);
    /* The scan plan pairs each file with its vector. */
    json_t *plan = api_get_json(&st.srv, "/v1/catalogs/" CAT "/namespaces/" NS "/tables/tx/scan");
    json_t *files = json_object_get(plan, "files");
    assert_int_equal(json_array_size(files), 3);
    int paired = 0;
    for (size_t i = 0; i < json_array_size(files); i++) {
        json_t *sf = json_array_get(files, i);
        const char *p = jstr(json_object_get(sf, "data_file"), "path");
        json_t *dv = json_object_get(sf, "delete_file");
        char want[600] = "";
        if (strstr(p, "/tx/new.parquet"))
            snprintf(want, sizeof want, "%s/tx/new.puffin", data);
        else if (strstr(p, "/tx/old.parquet"))
            snprintf(want, sizeof want, "%s/tx/old.puffin", data);
        if (!want[0]) {
            assert_null(dv);
            continue;
        }
        assert_string_equal(jstr(dv, "path"), want);
        assert_int_equal(jint(dv, "data_file_id"),
                         jint(json_object_get(sf, "data_file"), "data_file_id"));
        paired++;
    }
    assert_int_equal(paired, 2);
    json_decref(plan);
    /* A replay answers the same snapshot. */
    assert_int_equal(commit_at("commit/transaction", TX_FMT, key(40), (long long)rs, u, u, "0",
                               "@/tx/new.parquet", 3, (long long)s_new, (long long)old,
                               (long long)s_old),
                     snap);
    /* Two vectors for one appended file must be merged by the writer. */
    refused_at("commit/transaction", 422, "validation", "merge them",
               "{'idempotency_key':'%s','read_snapshot':%lld,'appends':[{'namespace':'" NS
               "','table':'tx','expected_table_uuid':'%s','files':[{'path':'@/tx/m.parquet',"
               "'record_count':5,'file_size_bytes':100}]}],'deletes':[{'namespace':'" NS
               "','table':'tx','expected_table_uuid':'%s','files':[{'data_file_id':0,"
               "'data_file_path':'@/tx/m.parquet','path':'@/tx/m1.puffin','delete_count':1,"
               "'file_size_bytes':10},{'data_file_id':0,'data_file_path':'@/tx/m.parquet',"
               "'path':'@/tx/m2.puffin','delete_count':2,'file_size_bytes':10}]}]}",
               key(41), (long long)head_of(CAT), u, u);
    /* So must two for one data file; with two files named twice, the
     * answer names the one repeated first in the request's order (not the
     * lower id). */
#define TX_DV(id, n)                                                                               \
    "{'data_file_id':" id ",'path':'@/tx/t" n ".puffin','delete_count':1,'file_size_bytes':10}"
    refused_at("commit/transaction", 422, "validation", "two deletion vectors for data file 999999",
               "{'idempotency_key':'%s','read_snapshot':%lld,'deletes':[{'namespace':'" NS
               "','table':'tx','expected_table_uuid':'%s','files':[" TX_DV("%lld", "1") "," TX_DV(
                   "999999", "2") "," TX_DV("999999", "3") "," TX_DV("%lld", "4") "]}]}",
               key(42), (long long)head_of(CAT), u, (long long)old, (long long)old);
#undef TX_DV
}

/* ---- many vectors in one commit ---- */

/* POSTs body (taken) to /commit; the snapshot. */
static int64_t commit_json(json_t *body)
{
    char *text = json_dumps(body, JSON_COMPACT);
    json_decref(body);
    assert_non_null(text);
    struct http_result r;
    api_send_text(&r, &st.srv, "POST", text, "/v1/catalogs/" CAT "/commit");
    free(text);
    expect_status(&r, 200);
    int64_t snap = jint(r.json, "snapshot_id");
    http_result_free(&r);
    return snap;
}

/* A deletes commit of ns.many: vector k (in request order) targets file
 * perm(k) of the NF files, deleting perm(k) + extra + 1 rows. */
enum { MANY_FILES = 300 };
static size_t many_perm(size_t k)
{
    return (k * 7 + 3) % MANY_FILES; /* 7 is prime to 300: a permutation */
}

static json_t *many_deletes(const int64_t *ids, size_t nvectors, int extra, const char *tag)
{
    json_t *files = json_array();
    for (size_t k = 0; k < nvectors; k++) {
        size_t f = many_perm(k);
        char path[700];
        snprintf(path, sizeof path, "%s/many/d%s-%03zu.puffin", data, tag, f);
        json_array_append_new(files, json_pack("{s:I,s:s,s:I,s:i}", "data_file_id",
                                               (json_int_t)ids[f], "path", path, "delete_count",
                                               (json_int_t)(f + 1 + (size_t)extra),
                                               "file_size_bytes", 10));
    }
    return json_pack("{s:I,s:[{s:s,s:s,s:o}]}", "read_snapshot", (json_int_t)head_of(CAT),
                     "deletes", "namespace", NS, "table", "many", "files", files);
}

/* Hundreds of vectors in one commit, their targets out of request order:
 * each finds its own target and that target's live vector (the read's
 * rows are searched by id, not in request order). */
static void many_vectors_find_their_targets(void **state)
{
    (void)state;
    make("many");
    json_t *files = json_array();
    for (size_t f = 0; f < MANY_FILES; f++) {
        char path[700];
        snprintf(path, sizeof path, "%s/many/f%03zu.parquet", data, f);
        json_array_append_new(files, json_pack("{s:s,s:i,s:i}", "path", path, "record_count", 1000,
                                               "file_size_bytes", 100));
    }
    commit_json(json_pack("{s:[{s:s,s:s,s:o}]}", "appends", "namespace", NS, "table", "many",
                          "files", files));
    int64_t ids[MANY_FILES];
    for (size_t f = 0; f < MANY_FILES; f++)
        ids[f] =
            sqli("SELECT data_file_id FROM hog_data_file WHERE path = '%s/many/f%03zu.parquet'",
                 data, f);
    commit_json(many_deletes(ids, MANY_FILES, 0, "a"));
    /* Every vector's row names the file its path was written for, with
     * the count meant for it (the numbers are read from the file names:
     * the warehouse is a random temporary directory whose name may hold
     * an 'f' and digits of its own). */
    assert_int_equal(
        sqli("SELECT count(*) FROM hog_delete_file v JOIN hog_data_file d"
             " USING (catalog_id, data_file_id) WHERE v.path LIKE '%%/many/da-%%'"
             " AND substring(v.path from '/da-([0-9]+)\\.puffin$') ="
             " substring(d.path from '/f([0-9]+)\\.parquet$')"
             " AND v.delete_count = substring(d.path from '/f([0-9]+)\\.parquet$')::int + 1"),
        MANY_FILES);
    /* Half of them again, each deleting more: each supersedes its own
     * file's live vector (a wrong one would end another's, or be refused
     * for deleting fewer rows than its predecessor). */
    commit_json(many_deletes(ids, MANY_FILES / 2, 5, "b"));
    assert_int_equal(sqli("SELECT count(*) FROM hog_delete_file WHERE path LIKE '%%/many/da-%%'"
                          " AND end_snapshot IS NOT NULL"),
                     MANY_FILES / 2);
    assert_int_equal(sqli("SELECT count(*) FROM hog_delete_file v JOIN hog_data_file d"
                          " USING (catalog_id, data_file_id) WHERE v.end_snapshot IS NULL"
                          " AND d.path LIKE '%%/many/f%%' AND v.delete_count ="
                          " substring(d.path from '/f([0-9]+)\\.parquet$')::int + 1 +"
                          " CASE WHEN v.path LIKE '%%/many/db-%%' THEN 5 ELSE 0 END"),
                     MANY_FILES);
}

/* ---- explicit row ids ---- */

/* An update of ns.ex: appends `records` rows keeping ids [lo, hi] (the
 * file's _hog_row_id statistics `stats`, NULL for the default) and
 * deletes `deleted` rows of data file `target` (NULL stats: a correct
 * one), to endpoint. */
static void update_text(char *out, size_t size, const char *key, const char *uuid, int64_t records,
                        const char *stats, int64_t target, int64_t deleted, int64_t dv_size)
{
    snprintf(out, size,
             "{'idempotency_key':'%s','read_snapshot':%lld,'appends':[{'namespace':'" NS
             "','table':'ex','expected_table_uuid':'%s','files':[{'path':'@/ex/u-%s.parquet',"
             "'record_count':%lld,'file_size_bytes':100,'explicit_row_ids':true%s%s%s}]}],"
             "'deletes':[{'namespace':'" NS "','table':'ex','expected_table_uuid':'%s',"
             "'files':[{'data_file_id':%lld,'path':'@/ex/d-%lld.puffin','delete_count':%lld,"
             "'file_size_bytes':%lld}]}]}",
             key, (long long)head_of(CAT), uuid, key, (long long)records,
             stats ? ",'column_stats':[" : "", stats ? stats : "", stats ? "]" : "", uuid,
             (long long)target, (long long)deleted, (long long)deleted, (long long)dv_size);
}

/* The _hog_row_id statistics of a file: counts, and bounds lo..hi. */
static void row_id_stats(char *out, size_t size, int64_t values, int64_t nulls, int64_t lo,
                         int64_t hi)
{
    char l[16], h[16];
    snprintf(out, size,
             "{'field_id':%lld,'value_count':%lld,'null_count':%lld,'lower_bound':'%s',"
             "'upper_bound':'%s'},{'field_id':1,'value_count':%lld,'null_count':0}",
             ROW_ID_FIELD, (long long)values, (long long)nulls, long_b64(lo, l), long_b64(hi, h),
             (long long)values);
}

static void explicit_row_ids(void **state)
{
    (void)state;
    make("ex");
    char u[64], body[4096], rid[600];
    uuid_of("ex", u);
    int64_t a = append("ex", "ex/a.parquet", 100); /* ids 0..99 */
    append("ex", "ex/b.parquet", 50);              /* ids 100..149 */
    assert_int_equal(next_row_id("ex"), 150);
    int64_t s10 = put_dv("ex/d-10.puffin", "ex/a.parquet", 10);
    int64_t s5 = put_dv("ex/d-5.puffin", "ex/a.parquet", 5);
    int64_t s15 = put_dv("ex/d-15.puffin", "ex/a.parquet", 15);
    /* Refused elsewhere than mutations and transaction. */
    row_id_stats(rid, sizeof rid, 10, 0, 5, 14);
    update_text(body, sizeof body, key(50), u, 10, rid, a, 10, s10);
    refused_at("commit", 422, "validation", "explicit_row_ids is only accepted by", "%s", body);
    refused_at("commit/prepared", 422, "validation", "explicit_row_ids is only accepted by", "%s",
               body);
    refused_at("commit/uploads", 422, "validation", "explicit_row_ids is only accepted by", "%s",
               body);
    /* Without the statistics that bound the ids. */
    update_text(body, sizeof body, key(50), u, 10, NULL, a, 10, s10);
    refused_at("commit/mutations/prepared", 422, "validation",
               "keeps explicit row ids but has no statistics for _hog_row_id", "%s", body);
    update_text(body, sizeof body, key(50), u, 10, "{'field_id':1,'value_count':10,'null_count':0}",
                a, 10, s10);
    refused_at("commit/mutations/prepared", 422, "validation", "has no statistics for _hog_row_id",
               "%s", body);
    /* Counts: a value for every row, no null. */
    row_id_stats(rid, sizeof rid, 9, 0, 5, 14);
    update_text(body, sizeof body, key(50), u, 10, rid, a, 10, s10);
    refused_at("commit/mutations/prepared", 422, "validation", "must count 10 values and no null",
               "%s", body);
    row_id_stats(rid, sizeof rid, 10, 1, 5, 14);
    update_text(body, sizeof body, key(50), u, 10, rid, a, 10, s10);
    refused_at("commit/mutations/prepared", 422, "validation", "got 10 values and 1 nulls", "%s",
               body);
    /* Bounds: present, ids the table gave out, wide enough. */
    snprintf(rid, sizeof rid, "{'field_id':%lld,'value_count':10,'null_count':0}", ROW_ID_FIELD);
    update_text(body, sizeof body, key(50), u, 10, rid, a, 10, s10);
    refused_at("commit/mutations/prepared", 422, "validation", "need lower and upper bounds", "%s",
               body);
    row_id_stats(rid, sizeof rid, 10, 0, 141, 150);
    update_text(body, sizeof body, key(50), u, 10, rid, a, 10, s10);
    refused_at("commit/mutations/prepared", 422, "validation",
               "keeps row ids 141 to 150, outside the ids the table has given out [0, 150)", "%s",
               body);
    row_id_stats(rid, sizeof rid, 10, 0, -1, 8);
    update_text(body, sizeof body, key(50), u, 10, rid, a, 10, s10);
    refused_at("commit/mutations/prepared", 422, "validation", "outside the ids the table", "%s",
               body);
    row_id_stats(rid, sizeof rid, 10, 0, 5, 13);
    update_text(body, sizeof body, key(50), u, 10, rid, a, 10, s10);
    refused_at("commit/mutations/prepared", 422, "validation", "cannot all differ", "%s", body);
    /* Fewer rows deleted than kept. */
    row_id_stats(rid, sizeof rid, 10, 0, 5, 14);
    update_text(body, sizeof body, key(50), u, 10, rid, a, 5, s5);
    refused_at("commit/mutations/prepared", 422, "validation",
               "10 appended rows keep explicit row ids, but the commit deletes only 5 rows", "%s",
               body);

    /* Accepted: stored at its minimum, the allocator unmoved. */
    update_text(body, sizeof body, key(50), u, 10, rid, a, 10, s10);
    int64_t snap = commit_at("commit/mutations/prepared", "%s", body);
    expect_sql("t|5|10|provided",
               "SELECT explicit_row_ids::text::char || '|' || row_id_start || '|' || record_count"
               " || '|' || stats_state FROM hog_data_file WHERE path = '%s/ex/u-%s.parquet'",
               data, key(50));
    expect_sql("10|0|0500000000000000|0e00000000000000",
               "SELECT value_count || '|' || null_count || '|' || encode(lower_bound, 'hex')"
               " || '|' || encode(upper_bound, 'hex') FROM hog_file_column_stats s"
               " JOIN hog_data_file d USING (catalog_id, data_file_id)"
               " WHERE d.path = '%s/ex/u-%s.parquet' AND s.field_id = %lld",
               data, key(50), ROW_ID_FIELD);
    assert_int_equal(next_row_id("ex"), 150);
    assert_int_equal(commit_at("commit/mutations/prepared", "%s", body), snap);
    /* The files listing, the scan plan and the changefeed show it. */
    int64_t uid = sqli("SELECT data_file_id FROM hog_data_file WHERE path = '%s/ex/u-%s.parquet'",
                       data, key(50));
    json_t *files = api_get_json(&st.srv, "/v1/catalogs/" CAT "/namespaces/" NS "/tables/ex/files");
    bool listed = false;
    for (size_t i = 0; i < json_array_size(json_object_get(files, "files")); i++) {
        json_t *df = json_array_get(json_object_get(files, "files"), i);
        if (jint(df, "data_file_id") == uid) {
            listed = true;
            assert_true(json_is_true(json_object_get(df, "explicit_row_ids")));
            assert_int_equal(jint(df, "row_id_start"), 5);
        }
    }
    assert_true(listed);
    json_decref(files);
    json_t *plan = api_get_json(&st.srv, "/v1/catalogs/" CAT "/namespaces/" NS
                                         "/tables/ex/scan?include=column_stats");
    listed = false;
    for (size_t i = 0; i < json_array_size(json_object_get(plan, "files")); i++) {
        json_t *df =
            json_object_get(json_array_get(json_object_get(plan, "files"), i), "data_file");
        if (jint(df, "data_file_id") != uid)
            continue;
        listed = true;
        /* Only the table's columns' statistics are in the plan. */
        json_t *cs = json_object_get(df, "column_stats");
        assert_int_equal(json_array_size(cs), 1);
        assert_int_equal(jint(json_array_get(cs, 0), "field_id"), 1);
    }
    assert_true(listed);
    json_decref(plan);
    json_t *ch = api_get_json(&st.srv,
                              "/v1/catalogs/" CAT "/namespaces/" NS
                              "/tables/ex/changes?from_snapshot=%lld&to_snapshot=%lld",
                              (long long)snap - 1, (long long)snap);
    assert_int_equal(json_array_size(json_object_get(ch, "files")), 1);
    assert_int_equal(jint(json_array_get(json_object_get(ch, "files"), 0), "data_file_id"), uid);
    assert_int_equal(json_array_size(json_object_get(ch, "delete_files")), 1);
    json_decref(ch);

    /* The superseded vector's rows were deleted before: a vector of 15
     * rows over one of 10 deletes 5 more, too few for 10 kept rows. */
    row_id_stats(rid, sizeof rid, 10, 0, 20, 29);
    update_text(body, sizeof body, key(51), u, 10, rid, a, 15, s15);
    refused_at("commit/transaction", 422, "validation", "the commit deletes only 5 rows", "%s",
               body);
    /* The transaction endpoint takes them too. */
    row_id_stats(rid, sizeof rid, 5, 0, 20, 24);
    update_text(body, sizeof body, key(51), u, 5, rid, a, 15, s15);
    commit_at("commit/transaction", "%s", body);
    assert_int_equal(next_row_id("ex"), 150);
    /* Statistics for the row-id field of a file without explicit ids are
     * still refused. */
    refused_at("commit", 422, "validation", "which is not a live column",
               "{'appends':[{'namespace':'" NS "','table':'ex','files':[{'path':'@/ex/p.parquet',"
               "'record_count':1,'file_size_bytes':10,'column_stats':[{'field_id':%lld,"
               "'value_count':1,'null_count':0}]}]}]}",
               ROW_ID_FIELD);
}

/* ---- /commit/uploads ---- */

/* Claims upload number n under ns.up's prefix for owner, of kind; the
 * claimed path into out (600 bytes). */
static void claim(const char *owner, int n, const char *kind, char *out)
{
    struct http_result r;
    send(&r, "uploads",
         "{'owner':'%s','prefix':'@/up/','file_kind':'%s','upload_ids':"
         "['00000000-0000-4000-8000-%012d']}",
         owner, kind, n);
    expect_status(&r, 200);
    snprintf(out, 600, "%s", jstr(json_array_get(json_object_get(r.json, "uploads"), 0), "path"));
    http_result_free(&r);
}

static void uploads_take_claims_of_the_key(void **state)
{
    (void)state;
    make("up");
    char u[64], mine[600], mine2[600], theirs[600], dv_as_data[600], dv_claim[600];
    uuid_of("up", u);
    /* The key's claims (two data, one of each kind more), and another's. */
    const struct {
        int owner;
        const char *kind;
        char *path;
    } claims[] = {{60, "data", mine},
                  {60, "data", mine2},
                  {61, "data", theirs},
                  {60, "data", dv_as_data},
                  {60, "delete", dv_claim}};
    for (size_t i = 0; i < sizeof claims / sizeof claims[0]; i++)
        claim(key(claims[i].owner), (int)i + 1, claims[i].kind, claims[i].path);
#define UP_FMT                                                                                     \
    "{'idempotency_key':'%s','read_snapshot':%lld,'appends':[{'namespace':'" NS "',"               \
    "'table':'up','expected_table_uuid':'%s','files':[{'path':'%s','record_count':3,"              \
    "'file_size_bytes':100}]}]}"
    /* Another key's claim, and a path nobody claimed. */
    refused_at("commit/uploads", 409, "upload_not_owned", "upload claim this commit does not own",
               UP_FMT, key(60), (long long)head_of(CAT), u, theirs);
    refused_at("commit/uploads", 409, "upload_not_owned",
               "is not an active upload claim of this commit's idempotency_key", UP_FMT, key(60),
               (long long)head_of(CAT), u, "@/up/unclaimed.parquet");
    /* A claim of the key: registered, the key's unused claims released. */
    int64_t rs = head_of(CAT);
    int64_t snap = commit_at("commit/uploads", UP_FMT, key(60), (long long)rs, u, mine);
    expect_sql("registered", "SELECT state FROM hog_upload WHERE path = '%s'", mine);
    expect_sql("0", "SELECT count(*) FROM hog_upload WHERE path IN ('%s', '%s', '%s')", mine2,
               dv_as_data, dv_claim);
    expect_sql("active", "SELECT state FROM hog_upload WHERE path = '%s'", theirs);
    assert_int_equal(commit_at("commit/uploads", UP_FMT, key(60), (long long)rs, u, mine), snap);
    /* A registered claim is not claimable again, even by its key. */
    refused_at("commit/uploads", 422, "validation", "already registered", UP_FMT, key(62),
               (long long)head_of(CAT), u, mine);
    /* Deletion vectors need delete claims. */
    int64_t target = sqli("SELECT data_file_id FROM hog_data_file WHERE path = '%s'", mine);
    claim(key(63), 6, "data", dv_as_data);
    claim(key(63), 7, "delete", dv_claim);
#define UP_DV_FMT                                                                                  \
    "{'idempotency_key':'%s','read_snapshot':%lld,'deletes':[{'namespace':'" NS "',"               \
    "'table':'up','expected_table_uuid':'%s','files':[{'data_file_id':%lld,'path':'%s',"           \
    "'delete_count':1,'file_size_bytes':40}]}]}"
    refused_at("commit/uploads", 409, "upload_not_owned", "of its kind", UP_DV_FMT, key(63),
               (long long)head_of(CAT), u, (long long)target, dv_as_data);
    commit_at("commit/uploads", UP_DV_FMT, key(63), (long long)head_of(CAT), u, (long long)target,
              dv_claim);
    expect_sql("registered", "SELECT state FROM hog_upload WHERE path = '%s'", dv_claim);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(endpoints_refuse_what_they_lack),
        cmocka_unit_test(guard_refuses_changed_tables),
        cmocka_unit_test(zero_row_statements),
        cmocka_unit_test(removes_file),
        cmocka_unit_test(compaction_does_not_conflict),
        cmocka_unit_test(transaction_deletes_its_own_append),
        cmocka_unit_test(many_vectors_find_their_targets),
        cmocka_unit_test(explicit_row_ids),
        cmocka_unit_test(uploads_take_claims_of_the_key),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
