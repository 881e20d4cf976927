/* The typed scan plan and changes plan of libhoglake (issue 20) against a
 * real hoglaked and PostgreSQL: hl_table_scan_plan_list and
 * hl_table_changes_plan equal, field by field, the JSON of
 * hl_table_scan_plan and hl_table_changes for
 *   - a table with three appends, a delete (a deletion vector) and a
 *     second delete superseding it, at the head and in the past;
 *   - changes windows holding appends, the first vector (superseding
 *     nothing) and the second (superseding the first);
 *   - a partitioned table (partition values, null included);
 *   - an empty table (no entries, arrays NULL). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client_harness.h"
#include "harness.h"
#include "hoglake/hoglake.h"
#include "util/buf.h"

static struct client_stack stack;
static hl_catalog *catalog;
static hl_namespace *ns;

static int setup(void **state)
{
    (void)state;
    client_stack_up(&stack, "typed_plans");
    char data_path[512];
    client_stack_data_path(&stack, stack.file_client, "plans", data_path, sizeof data_path);
    struct hl_error err;
    test_check(hl_catalog_create(stack.file_client, "plans", data_path, &catalog, &err), &err,
               "catalog");
    test_check(hl_namespace_create(catalog, "ns", &ns, &err), &err, "namespace");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    hl_namespace_free(ns);
    hl_catalog_free(catalog);
    client_stack_down(&stack);
    return 0;
}

static hl_table *table_new(const char *name)
{
    hl_table *t;
    struct hl_error err;
    test_check(hl_table_create(ns, name,
                               "[{\"name\":\"id\",\"type\":\"long\",\"nullable\":false},"
                               "{\"name\":\"name\",\"type\":\"string\"}]",
                               NULL, &t, &err),
               &err, "table create");
    hl_table_free(t); /* a handle that reads the head */
    test_check(hl_table_open(ns, name, &t, &err), &err, "table open");
    return t;
}

/* Appends rows [from, to) (name "n<id>") in one commit; its snapshot. */
static int64_t append_rows(hl_table *t, int from, int to)
{
    struct buf jsonl = BUF_INIT;
    for (int i = from; i < to; i++)
        assert_int_equal(buf_printf(&jsonl, "{\"id\":%d,\"name\":\"n%d\"}\n", i, i), 0);
    struct ArrowArrayStream s;
    test_rows_stream("id:long!, name:string", jsonl.data, &s);
    buf_free(&jsonl);
    return test_append(t, &s, 0);
}

static int64_t delete_rows(hl_table *t, const char *predicate)
{
    struct hl_delete_result r;
    struct hl_error err;
    test_check(hl_table_delete(t, predicate, NULL, &r, &err), &err, predicate);
    assert_int_equal(r.rows_deleted, 1);
    return r.snapshot_id;
}

/* ---- field by field against the JSON ---- */

static int64_t jint_or(const json_t *obj, const char *member, int64_t absent)
{
    const json_t *v = json_object_get(obj, member);
    return v && !json_is_null(v) ? jint(obj, member) : absent;
}

static void expect_data_file(const struct hl_data_file *f, const json_t *j)
{
    static const char *const states[] = {"provided", "pending", "failed"};
    assert_int_equal(f->data_file_id, jint(j, "data_file_id"));
    assert_string_equal(f->path, json_string_value(json_object_get(j, "path")));
    assert_int_equal(f->record_count, jint(j, "record_count"));
    assert_int_equal(f->file_size_bytes, jint(j, "file_size_bytes"));
    assert_int_equal(f->row_id_start, jint(j, "row_id_start"));
    assert_int_equal(f->begin_snapshot, jint(j, "begin_snapshot"));
    assert_string_equal(states[f->stats_state],
                        json_string_value(json_object_get(j, "stats_state")));
    assert_int_equal(f->explicit_row_ids, json_is_true(json_object_get(j, "explicit_row_ids")));
    assert_int_equal(f->footer_size, jint_or(j, "footer_size", -1));
    assert_int_equal(f->spec_id, jint_or(j, "spec_id", -1));
    const json_t *values = json_object_get(j, "partition_values");
    assert_int_equal(f->npartition_values, json_array_size(values));
    for (size_t i = 0; i < f->npartition_values; i++) {
        const json_t *v = json_array_get(values, i);
        if (json_is_null(v))
            assert_null(f->partition_values[i]);
        else
            assert_string_equal(f->partition_values[i], json_string_value(v));
    }
}

/* d against j, where a NULL d stands for an absent or null j. */
static void expect_delete_file(const struct hl_delete_file *d, const json_t *j)
{
    if (!j || json_is_null(j)) {
        assert_null(d);
        return;
    }
    assert_non_null(d);
    assert_int_equal(d->delete_file_id, jint(j, "delete_file_id"));
    assert_int_equal(d->data_file_id, jint(j, "data_file_id"));
    assert_string_equal(d->path, json_string_value(json_object_get(j, "path")));
    assert_int_equal(d->delete_count, jint(j, "delete_count"));
    assert_int_equal(d->file_size_bytes, jint(j, "file_size_bytes"));
    assert_int_equal(d->begin_snapshot, jint(j, "begin_snapshot"));
}

static json_t *parse(char *text)
{
    json_t *j = json_loads(text, 0, NULL);
    free(text);
    assert_non_null(j);
    return j;
}

/* The typed scan plan at `at` (the caller's, for hl_scan_files_free),
 * checked equal to the JSON one. */
static struct hl_scan_file *scan_plan(hl_table *t, const struct hl_at *at, size_t *n)
{
    struct hl_error err;
    char *text;
    test_check(hl_table_scan_plan(t, at, &text, &err), &err, "scan plan");
    json_t *want = parse(text);
    struct hl_scan_file *files;
    test_check(hl_table_scan_plan_list(t, at, &files, n, &err), &err, "typed scan plan");
    assert_int_equal(*n, json_array_size(want));
    assert_true((*n == 0) == (files == NULL));
    for (size_t i = 0; i < *n; i++) {
        const json_t *entry = json_array_get(want, i);
        expect_data_file(&files[i].data_file, json_object_get(entry, "data_file"));
        expect_delete_file(files[i].delete_file, json_object_get(entry, "delete_file"));
    }
    json_decref(want);
    return files;
}

/* The typed changes of (from, to] into *plan, checked equal to the JSON. */
static void changes_plan(hl_table *t, int64_t from, int64_t to, struct hl_changes_plan *plan)
{
    struct hl_error err;
    char *text;
    test_check(hl_table_changes(t, from, to, &text, &err), &err, "changes");
    json_t *want = parse(text);
    test_check(hl_table_changes_plan(t, from, to, plan, &err), &err, "typed changes");
    assert_string_equal(plan->table_uuid, json_string_value(json_object_get(want, "table_uuid")));
    assert_string_equal(plan->table_uuid, hl_table_uuid(t));
    assert_int_equal(plan->from_snapshot, jint(want, "from_snapshot"));
    assert_int_equal(plan->to_snapshot, jint(want, "to_snapshot"));
    const json_t *files = json_object_get(want, "files");
    assert_int_equal(plan->nfiles, json_array_size(files));
    assert_true((plan->nfiles == 0) == (plan->files == NULL));
    for (size_t i = 0; i < plan->nfiles; i++)
        expect_data_file(&plan->files[i], json_array_get(files, i));
    const json_t *dvs = json_object_get(want, "delete_files");
    assert_int_equal(plan->ndelete_files, json_array_size(dvs));
    assert_true((plan->ndelete_files == 0) == (plan->delete_files == NULL));
    for (size_t i = 0; i < plan->ndelete_files; i++) {
        const struct hl_change_delete_file *c = &plan->delete_files[i];
        const json_t *dv = json_array_get(dvs, i);
        expect_delete_file(&c->delete_file, dv);
        expect_data_file(&c->data_file, json_object_get(dv, "data_file"));
        assert_int_equal(c->data_file.data_file_id, c->delete_file.data_file_id);
        expect_delete_file(c->superseded, json_object_get(dv, "superseded_delete_file"));
    }
    json_decref(want);
}

/* ---- tests ---- */

/* Three appends, a delete and a second delete superseding its vector. */
static void test_appends_and_superseding_deletes(void **state)
{
    (void)state;
    hl_table *t = table_new("events");
    int64_t created = head_of("plans");
    int64_t a1 = append_rows(t, 0, 10);
    int64_t a2 = append_rows(t, 10, 20);
    int64_t a3 = append_rows(t, 20, 30);
    int64_t d1 = delete_rows(t, "id = 3");
    int64_t d2 = delete_rows(t, "id = 4");

    /* The head: three files, the first masked by the second vector. */
    size_t n;
    struct hl_scan_file *files = scan_plan(t, NULL, &n);
    assert_int_equal(n, 3);
    struct hl_scan_file *first = NULL;
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(files[i].data_file.record_count, 10);
        if (files[i].data_file.begin_snapshot == a1)
            first = &files[i];
        else
            assert_null(files[i].delete_file);
    }
    assert_non_null(first);
    assert_non_null(first->delete_file);
    assert_int_equal(first->delete_file->delete_count, 2);
    assert_int_equal(first->delete_file->begin_snapshot, d2);
    assert_int_equal(first->delete_file->data_file_id, first->data_file.data_file_id);
    int64_t first_id = first->data_file.data_file_id;
    int64_t dv2 = first->delete_file->delete_file_id;
    hl_scan_files_free(files, n);

    /* Time travel: between the deletes, the first vector alone... */
    files = scan_plan(t, &(struct hl_at){d1, NULL}, &n);
    assert_int_equal(n, 3);
    int64_t dv1 = -1;
    for (size_t i = 0; i < n; i++)
        if (files[i].data_file.data_file_id == first_id) {
            assert_int_equal(files[i].delete_file->delete_count, 1);
            dv1 = files[i].delete_file->delete_file_id;
        }
    assert_true(dv1 >= 0 && dv1 != dv2);
    hl_scan_files_free(files, n);
    /* ... before them none, and after the first append one file. */
    files = scan_plan(t, &(struct hl_at){a3, NULL}, &n);
    assert_int_equal(n, 3);
    for (size_t i = 0; i < n; i++)
        assert_null(files[i].delete_file);
    hl_scan_files_free(files, n);
    files = scan_plan(t, &(struct hl_at){a1, NULL}, &n);
    assert_int_equal(n, 1);
    assert_int_equal(files[0].data_file.data_file_id, first_id);
    hl_scan_files_free(files, n);

    /* The appends' window: their files, no vectors. */
    struct hl_changes_plan plan;
    changes_plan(t, created, a3, &plan);
    assert_int_equal(plan.nfiles, 3);
    assert_int_equal(plan.files[1].begin_snapshot, a2);
    assert_int_equal(plan.ndelete_files, 0);
    hl_changes_plan_clear(&plan);
    /* The deletes' window (to the head): both vectors on the first file,
     * the second superseding the first, which superseded nothing. */
    changes_plan(t, a3, -1, &plan);
    assert_int_equal(plan.to_snapshot, d2);
    assert_int_equal(plan.nfiles, 0);
    assert_int_equal(plan.ndelete_files, 2);
    for (size_t i = 0; i < 2; i++) {
        const struct hl_change_delete_file *c = &plan.delete_files[i];
        assert_int_equal(c->data_file.data_file_id, first_id);
        assert_int_equal(c->data_file.begin_snapshot, a1);
        if (c->delete_file.delete_file_id == dv1) {
            assert_null(c->superseded);
        } else {
            assert_int_equal(c->delete_file.delete_file_id, dv2);
            assert_non_null(c->superseded);
            assert_int_equal(c->superseded->delete_file_id, dv1);
            assert_int_equal(c->superseded->delete_count, 1);
        }
    }
    hl_changes_plan_clear(&plan);
    /* The second delete alone: its vector supersedes one from before. */
    changes_plan(t, d1, d2, &plan);
    assert_int_equal(plan.ndelete_files, 1);
    assert_int_equal(plan.delete_files[0].superseded->delete_file_id, dv1);
    hl_changes_plan_clear(&plan);
    hl_changes_plan_clear(NULL);
    hl_table_free(t);
}

static void test_partitioned(void **state)
{
    (void)state;
    hl_table *t = table_new("parted");
    struct hl_error err;
    test_check(hl_table_alter(t,
                              "[{\"op\":\"set_partition_spec\",\"fields\":[{\"source_field_"
                              "id\":2,\"transform\":\"identity\"}]}]",
                              NULL, &err),
               &err, "partition by name");
    int64_t since = head_of("plans");
    struct ArrowArrayStream s;
    test_rows_stream("id:long!, name:string",
                     "{\"id\":1,\"name\":\"a\"}\n{\"id\":2,\"name\":null}\n"
                     "{\"id\":3,\"name\":\"b\"}\n{\"id\":4,\"name\":\"a\"}\n",
                     &s);
    test_append(t, &s, 0);
    hl_table_free(t);
    test_check(hl_table_open(ns, "parted", &t, &err), &err, "reopen");
    delete_rows(t, "id = 4");

    size_t n;
    struct hl_scan_file *files = scan_plan(t, NULL, &n);
    assert_int_equal(n, 3);
    int seen = 0;
    for (size_t i = 0; i < n; i++) {
        const struct hl_data_file *f = &files[i].data_file;
        assert_true(f->spec_id >= 1);
        assert_int_equal(f->npartition_values, 1);
        const char *v = f->partition_values[0];
        seen |= !v ? 1 : strcmp(v, "a") == 0 ? 2 : strcmp(v, "b") == 0 ? 4 : 8;
        assert_true((files[i].delete_file != NULL) == (v && strcmp(v, "a") == 0));
    }
    assert_int_equal(seen, 7);
    hl_scan_files_free(files, n);

    struct hl_changes_plan plan;
    changes_plan(t, since, -1, &plan);
    assert_int_equal(plan.nfiles, 3);
    assert_int_equal(plan.ndelete_files, 1);
    assert_string_equal(plan.delete_files[0].data_file.partition_values[0], "a");
    assert_null(plan.delete_files[0].superseded);
    hl_changes_plan_clear(&plan);
    hl_table_free(t);
}

static void test_empty_table(void **state)
{
    (void)state;
    hl_table *t = table_new("empty");
    size_t n = 99;
    struct hl_scan_file *files = scan_plan(t, NULL, &n);
    assert_int_equal(n, 0);
    assert_null(files);
    hl_scan_files_free(files, n);
    struct hl_changes_plan plan;
    int64_t head = head_of("plans");
    changes_plan(t, head, -1, &plan);
    assert_int_equal(plan.from_snapshot, head);
    assert_int_equal(plan.to_snapshot, head);
    assert_int_equal(plan.nfiles + plan.ndelete_files, 0);
    hl_changes_plan_clear(&plan);

    /* A bad window is refused, with nothing held. */
    struct hl_error err;
    assert_int_equal(hl_table_changes_plan(t, -1, -1, &plan, &err), HL_ERR_INVALID_ARGUMENT);
    assert_null(plan.table_uuid);
    assert_null(plan.files);
    hl_table_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_appends_and_superseding_deletes),
        cmocka_unit_test(test_partitioned),
        cmocka_unit_test(test_empty_table),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
