/* Multi-table transactions (hl_transaction_*) end to end against a real
 * hoglaked, PostgreSQL and a local warehouse:
 *   - appends, deletes and an update on two tables commit as one snapshot
 *     (the snapshot's change rows name both tables); time travel reads
 *     both tables before and after; the update keeps its rows' ids;
 *   - an operation the transaction refuses (a delete of a table it already
 *     wrote to) fails it, and what it had written is deleted;
 *   - an append that lands on a table the transaction deletes from makes
 *     the commit a typed conflict: nothing of the transaction is left in
 *     storage or claimed, and the transaction run again commits. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client_harness.h"
#include "harness.h"
#include "hoglake/hoglake.h"
#include "util/buf.h"

static struct client_stack stack;

static int setup(void **state)
{
    (void)state;
    client_stack_up(&stack, "transaction");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    client_stack_down(&stack);
    return 0;
}

static const char *const columns = "[{\"name\":\"id\",\"type\":\"long\",\"nullable\":false},"
                                   "{\"name\":\"team_id\",\"type\":\"int\",\"nullable\":false},"
                                   "{\"name\":\"name\",\"type\":\"string\"}]";
static const char *const spec = "id:long!, team_id:int!, name:string";

struct fixture {
    hl_catalog *catalog;
    hl_namespace *ns;
    hl_table *orders, *carts; /* orders is partitioned by team_id */
    const char *name;
    char orders_dir[600], carts_dir[600];
};

static hl_table *table_up(struct fixture *f, const char *name, bool partitioned)
{
    hl_table *t;
    struct hl_error err;
    test_check(hl_table_create(f->ns, name, columns, NULL, &t, &err), &err, "table");
    if (partitioned)
        test_check(hl_table_alter(t,
                                  "[{\"op\":\"set_partition_spec\",\"fields\":[{\"source_field_"
                                  "id\":2,\"transform\":\"identity\"}]}]",
                                  NULL, &err),
                   &err, "partition by team");
    hl_table_free(t); /* a handle that reads the head */
    test_check(hl_table_open(f->ns, name, &t, &err), &err, "table open");
    return t;
}

static void fixture_up(struct fixture *f, const char *name)
{
    memset(f, 0, sizeof *f);
    f->name = name;
    char data_path[512];
    client_stack_data_path(&stack, stack.file_client, name, data_path, sizeof data_path);
    snprintf(f->orders_dir, sizeof f->orders_dir, "%s/data/ns/orders", data_path + 7);
    snprintf(f->carts_dir, sizeof f->carts_dir, "%s/data/ns/carts", data_path + 7);
    struct hl_error err;
    test_check(hl_catalog_create(stack.file_client, name, data_path, &f->catalog, &err), &err,
               "catalog");
    test_check(hl_namespace_create(f->catalog, "ns", &f->ns, &err), &err, "namespace");
    f->orders = table_up(f, "orders", true);
    f->carts = table_up(f, "carts", false);
}

static void fixture_free(struct fixture *f)
{
    hl_table_free(f->orders);
    hl_table_free(f->carts);
    hl_namespace_free(f->ns);
    hl_catalog_free(f->catalog);
}

/* Rows [from, to) (id i, team i % 4, name "n<i>") as a stream. */
static void rows(int from, int to, struct ArrowArrayStream *s)
{
    struct buf jsonl = BUF_INIT;
    for (int i = from; i < to; i++)
        assert_int_equal(
            buf_printf(&jsonl, "{\"id\":%d,\"team_id\":%d,\"name\":\"n%d\"}\n", i, i % 4, i), 0);
    test_rows_stream(spec, jsonl.data, s);
    buf_free(&jsonl);
}

static void append(hl_table *t, int from, int to)
{
    struct ArrowArrayStream s;
    rows(from, to, &s);
    struct hl_error err;
    test_check(hl_table_append(t, &s, NULL, NULL, &err), &err, "append");
}

/* How many rows the table holds at snapshot (-1: the head), and how many
 * of them are named `name`. */
static int64_t count_at(hl_table *t, int64_t snapshot, const char *name, int64_t *named)
{
    struct hl_at at = {snapshot, NULL};
    struct ArrowArrayStream s;
    struct hl_error err;
    test_check(hl_table_scan(t, &at, &s, &err), &err, "scan");
    int64_t n = 0;
    *named = 0;
    size_t len = strlen(name);
    for (;;) {
        struct ArrowArray b;
        assert_int_equal(s.get_next(&s, &b), 0);
        if (!b.release)
            break;
        const struct ArrowArray *c = b.children[2];
        const int32_t *off = c->buffers[1];
        for (int64_t i = 0; i < b.length; i++) {
            int64_t k = c->offset + i;
            *named += (size_t)(off[k + 1] - off[k]) == len &&
                      memcmp((const char *)c->buffers[2] + off[k], name, len) == 0;
        }
        n += b.length;
        b.release(&b);
    }
    s.release(&s);
    return n;
}

static int64_t claims_in(const char *catalog, const char *state)
{
    return sqli("SELECT count(*) FROM hog_upload WHERE catalog_id = %lld AND state = '%s'",
                (long long)cat_id(catalog), state);
}

static void two_tables_one_snapshot(void **state)
{
    (void)state;
    struct fixture f;
    fixture_up(&f, "txone");
    append(f.orders, 0, 1000);
    append(f.carts, 0, 1000);
    int64_t before = head_of("txone");
    hl_transaction *tx;
    struct hl_error err;
    test_check(hl_transaction_begin(f.catalog, &tx, &err), &err, "begin");
    int64_t n;
    test_check(hl_transaction_delete(tx, f.orders, "id BETWEEN 10 AND 19", &n, &err), &err,
               "delete");
    assert_int_equal(n, 10);
    struct ArrowArrayStream s;
    rows(1000, 1500, &s);
    test_check(hl_transaction_append(tx, f.orders, &s, &n, &err), &err, "append");
    assert_int_equal(n, 500);
    test_check(
        hl_transaction_update(tx, f.carts, "name = 'tx', team_id = 9", "id >= 900", &n, &err), &err,
        "update");
    assert_int_equal(n, 100);
    /* Nothing is visible before the commit. */
    assert_int_equal(head_of("txone"), before);
    int64_t snap;
    test_check(hl_transaction_commit(tx, "ann", "both", &snap, &err), &err, "commit");
    assert_int_equal(snap, before + 1);
    assert_int_equal(head_of("txone"), before + 1);
    /* Committed: the same snapshot again, nothing sent. */
    int64_t again;
    test_check(hl_transaction_commit(tx, NULL, NULL, &again, &err), &err, "commit again");
    assert_int_equal(again, snap);
    assert_int_equal(head_of("txone"), before + 1);
    assert_int_equal(hl_transaction_append(tx, f.carts, NULL, NULL, &err), HL_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.code, "transaction_closed");
    hl_transaction_free(tx);
    /* One snapshot changed both tables. */
    assert_int_equal(sqli("SELECT count(DISTINCT object_id) FROM hog_snapshot_change WHERE "
                          "catalog_id = %lld AND snapshot_id = %lld",
                          (long long)cat_id("txone"), (long long)snap),
                     2);
    expect_sql("ann|both",
               "SELECT author || '|' || commit_message FROM hog_snapshot WHERE catalog_id = %lld "
               "AND snapshot_id = %lld",
               (long long)cat_id("txone"), (long long)snap);
    int64_t named;
    assert_int_equal(count_at(f.orders, -1, "n15", &named), 1490);
    assert_int_equal(named, 0);
    assert_int_equal(count_at(f.carts, -1, "tx", &named), 1000);
    assert_int_equal(named, 100);
    /* Time travel: before the transaction, neither change. */
    assert_int_equal(count_at(f.orders, before, "n15", &named), 1000);
    assert_int_equal(named, 1);
    assert_int_equal(count_at(f.carts, before, "tx", &named), 1000);
    assert_int_equal(named, 0);
    /* The updated rows kept their ids: deleted and inserted as one id. */
    struct ArrowArrayStream ch;
    test_check(hl_table_scan_changes(f.carts, before, snap, &ch, NULL, &err), &err, "changes");
    int64_t ins[100], del[100], ni = 0, nd = 0;
    for (;;) {
        struct ArrowArray b;
        assert_int_equal(ch.get_next(&ch, &b), 0);
        if (!b.release)
            break;
        const int64_t *rid = b.children[3]->buffers[1];
        const struct ArrowArray *kind = b.children[4];
        const int32_t *off = kind->buffers[1];
        for (int64_t i = 0; i < b.length; i++) {
            bool d = ((const char *)kind->buffers[2])[off[kind->offset + i]] == 'd';
            int64_t id = rid[b.children[3]->offset + i];
            if (d && nd < 100)
                del[nd++] = id;
            else if (!d && ni < 100)
                ins[ni++] = id;
        }
        b.release(&b);
    }
    ch.release(&ch);
    assert_int_equal(nd, 100);
    assert_int_equal(ni, 100);
    for (int i = 0; i < 100; i++) {
        bool found = false;
        for (int k = 0; k < 100 && !found; k++)
            found = del[i] == ins[k];
        assert_true(found);
        assert_true(del[i] >= 900 && del[i] < 1000); /* carts' ids were appended as 0.. */
    }
    assert_int_equal(claims_in("txone", "active"), 0);
    fixture_free(&f);
}

/* A delete of a table the transaction appended to is refused (it would
 * not see the appended rows): the transaction fails and deletes what it
 * wrote. */
static void refused_operation_fails_it(void **state)
{
    (void)state;
    struct fixture f;
    fixture_up(&f, "txrefused");
    append(f.carts, 0, 100);
    int64_t head = head_of("txrefused"), objects = test_count_files(f.carts_dir, "");
    hl_transaction *tx;
    struct hl_error err;
    test_check(hl_transaction_begin(f.catalog, &tx, &err), &err, "begin");
    struct ArrowArrayStream s;
    rows(100, 200, &s);
    test_check(hl_transaction_append(tx, f.carts, &s, NULL, &err), &err, "append");
    assert_int_equal(test_count_files(f.carts_dir, ""), objects + 1);
    assert_int_equal(hl_transaction_delete(tx, f.carts, "id < 10", NULL, &err),
                     HL_ERR_INVALID_ARGUMENT);
    expect_contains(err.message, "already changed", "why");
    assert_int_equal(test_count_files(f.carts_dir, ""), objects);
    assert_int_equal(hl_transaction_commit(tx, NULL, NULL, NULL, &err), HL_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.code, "transaction_closed");
    hl_transaction_free(tx);
    assert_int_equal(head_of("txrefused"), head);
    assert_int_equal(claims_in("txrefused", "active"), 0);
    /* A table of another catalog: refused. */
    struct fixture other;
    fixture_up(&other, "txother");
    test_check(hl_transaction_begin(f.catalog, &tx, &err), &err, "begin");
    rows(0, 10, &s);
    assert_int_equal(hl_transaction_append(tx, other.carts, &s, NULL, &err),
                     HL_ERR_INVALID_ARGUMENT);
    expect_contains(err.message, "not in the transaction's catalog", "why");
    hl_transaction_free(tx);
    assert_int_equal(test_count_files(other.carts_dir, ""), 0);
    fixture_free(&other);
    /* A predicate that does not bind fails it likewise. */
    test_check(hl_transaction_begin(f.catalog, &tx, &err), &err, "begin");
    assert_int_equal(hl_transaction_delete(tx, f.carts, "nope = 1", NULL, &err),
                     HL_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.code, "invalid_predicate");
    hl_transaction_free(tx);
    fixture_free(&f);
}

/* A concurrent append to a table the transaction deletes from: the commit
 * is a typed conflict and leaves nothing behind; the transaction run
 * again commits. */
static void conflict_leaves_nothing(void **state)
{
    (void)state;
    struct fixture f;
    fixture_up(&f, "txconflict");
    append(f.orders, 0, 400);
    append(f.carts, 0, 400);
    for (int run = 0; run < 2; run++) {
        int64_t orders_objects = test_count_files(f.orders_dir, ""),
                orders_vectors = test_count_files(f.orders_dir, ".puffin"),
                carts_objects = test_count_files(f.carts_dir, "");
        hl_transaction *tx;
        struct hl_error err;
        test_check(hl_transaction_begin(f.catalog, &tx, &err), &err, "begin");
        int64_t n;
        test_check(hl_transaction_delete(tx, f.orders, "team_id = 1 AND id < 100", &n, &err), &err,
                   "delete");
        assert_int_equal(n, 25);
        struct ArrowArrayStream s;
        rows(1000, 1200, &s);
        test_check(hl_transaction_append(tx, f.carts, &s, NULL, &err), &err, "append");
        /* One vector, one carts file written, at claims. */
        assert_int_equal(test_count_files(f.orders_dir, ".puffin"), orders_vectors + 1);
        assert_int_equal(test_count_files(f.carts_dir, ""), carts_objects + 1);
        assert_true(claims_in("txconflict", "active") >= 2);
        int64_t head = head_of("txconflict");
        if (run == 0) {
            append(f.orders, 400, 410); /* an insert into a table the transaction deletes from */
            int64_t snap = 0;
            assert_int_equal(hl_transaction_commit(tx, NULL, NULL, &snap, &err), HL_ERR_CONFLICT);
            assert_string_equal(err.code, "commit_conflict");
            assert_int_equal(snap, -1);
            assert_int_equal(head_of("txconflict"), head + 1);
            hl_transaction_free(tx);
            /* The append's files (teams 0 to 3) and nothing of the
             * transaction. */
            assert_int_equal(test_count_files(f.orders_dir, ".puffin"), orders_vectors);
            assert_int_equal(test_count_files(f.orders_dir, ""), orders_objects + 4);
            assert_int_equal(test_count_files(f.carts_dir, ""), carts_objects);
            assert_int_equal(claims_in("txconflict", "active"), 0);
            continue;
        }
        int64_t snap;
        test_check(hl_transaction_commit(tx, NULL, NULL, &snap, &err), &err, "commit");
        assert_int_equal(snap, head + 1);
        hl_transaction_free(tx);
        int64_t named;
        assert_int_equal(count_at(f.orders, -1, "", &named), 410 - 25);
        assert_int_equal(count_at(f.carts, -1, "", &named), 600);
        assert_int_equal(claims_in("txconflict", "active"), 0);
    }
    fixture_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(two_tables_one_snapshot),
        cmocka_unit_test(refused_operation_fails_it),
        cmocka_unit_test(conflict_leaves_nothing),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
