/* The typed plans' decoders without a server (client/records.h): a scan
 * plan's ScanFile array and a ChangePlan object decode field by field, and
 * every malformed member is HL_ERR_PROTOCOL naming it, with nothing held
 * afterwards (leaks show under the sanitizer build), also when the entries
 * before the bad one decoded. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "client/records.h"

#define DATA_FILE(id, begin)                                                                       \
    "{\"data_file_id\":" #id ",\"path\":\"file:///d/" #id ".parquet\",\"file_format\":"            \
    "\"parquet\",\"record_count\":10,\"file_size_bytes\":700,\"row_id_start\":" #id "0,"           \
    "\"stats_state\":\"provided\",\"begin_snapshot\":" #begin ",\"explicit_row_ids\":false,"       \
    "\"footer_size\":300,\"spec_id\":1,\"partition_values\":[\"a\",null]}"
#define DELETE_FILE(id, target, count, begin)                                                      \
    "{\"delete_file_id\":" #id ",\"data_file_id\":" #target ",\"path\":\"file:///d/" #id           \
    ".puffin\",\"file_format\":\"puffin-dv\",\"delete_count\":" #count ",\"file_size_bytes\":90,"  \
    "\"begin_snapshot\":" #begin "}"

static const char scan_text[] = "[{\"data_file\":" DATA_FILE(1, 4) ",\"delete_file\":" DELETE_FILE(
    7, 1, 2, 6) "},"
                "{\"data_file\":" DATA_FILE(2, 5) ",\"delete_file\":null},"
                                                  "{\"data_file\":" DATA_FILE(3, 5) "}]";

/* A first vector on file 1, then a second superseding it. */
static const char changes_text[] =
    "{\"table_uuid\":\"7e0c2f52-2d6f-4f4b-9a43-2b8d7c5e9f10\",\"from_snapshot\":3,"
    "\"to_snapshot\":6,\"files\":[" DATA_FILE(1, 4) "," DATA_FILE(
        2, 5) "],\"delete_files\":["
              "{\"delete_file_id\":6,\"data_file_id\":1,\"path\":\"file:///d/6.puffin\","
              "\"file_format\":\"puffin-dv\",\"delete_count\":1,\"file_size_bytes\":80,"
              "\"begin_snapshot\":5,\"data_file\":" DATA_FILE(
                  1, 4) ",\"superseded_delete_file\":null},"
                        "{\"delete_file_id\":7,\"data_file_id\":1,\"path\":\"file:///d/7.puffin\","
                        "\"file_format\":\"puffin-dv\",\"delete_count\":2,\"file_size_bytes\":90,"
                        "\"begin_snapshot\":6,\"data_file\":" DATA_FILE(
                            1, 4) ",\"superseded_delete_file\":" DELETE_FILE(6, 1, 1,
                                                                             5) "}],\"next_page_"
                                                                                "token\":null}";

static json_t *parse(const char *text)
{
    json_error_t jerr;
    json_t *j = json_loads(text, JSON_DECODE_ANY, &jerr);
    if (!j)
        fail_msg("bad test JSON: %s at %d", jerr.text, jerr.position);
    return j;
}

/* Sets the member at the dotted path ("delete_files.1.path"; array
 * positions as numbers) to the JSON `value`, or removes it when value is
 * NULL. */
static void set_path(json_t *root, const char *path, const char *value)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", path);
    json_t *at = root;
    char *save = NULL;
    char *key = strtok_r(buf, ".", &save);
    for (char *next; (next = strtok_r(NULL, ".", &save)); key = next) {
        at = json_is_array(at) ? json_array_get(at, strtoul(key, NULL, 10))
                               : json_object_get(at, key);
        assert_non_null(at);
    }
    if (value)
        assert_int_equal(json_object_set_new(at, key, parse(value)), 0);
    else
        assert_int_equal(json_object_del(at, key), 0);
}

static hl_status scan_plan_decode(const json_t *list, struct hl_scan_file **files, size_t *n,
                                  struct hl_error *err)
{
    void *recs = NULL;
    hl_status st = client_records_decode(list, "scan plan", &client_scan_file_kind, &recs, n, err);
    *files = recs;
    return st;
}

static void test_scan_plan_decodes(void **state)
{
    (void)state;
    json_t *list = parse(scan_text);
    struct hl_scan_file *files;
    size_t n;
    struct hl_error err;
    assert_int_equal(scan_plan_decode(list, &files, &n, &err), HL_OK);
    json_decref(list);
    assert_int_equal(n, 3);
    const struct hl_data_file *f = &files[0].data_file;
    assert_int_equal(f->data_file_id, 1);
    assert_string_equal(f->path, "file:///d/1.parquet");
    assert_int_equal(f->row_id_start, 10);
    assert_int_equal(f->begin_snapshot, 4);
    assert_int_equal(f->footer_size, 300);
    assert_int_equal(f->npartition_values, 2);
    assert_string_equal(f->partition_values[0], "a");
    assert_null(f->partition_values[1]);
    const struct hl_delete_file *d = files[0].delete_file;
    assert_non_null(d);
    assert_int_equal(d->delete_file_id, 7);
    assert_int_equal(d->data_file_id, 1);
    assert_string_equal(d->path, "file:///d/7.puffin");
    assert_int_equal(d->delete_count, 2);
    assert_int_equal(d->file_size_bytes, 90);
    assert_int_equal(d->begin_snapshot, 6);
    assert_null(files[1].delete_file); /* null */
    assert_null(files[2].delete_file); /* absent */
    assert_int_equal(files[2].data_file.data_file_id, 3);
    hl_scan_files_free(files, n);

    list = parse("[]");
    assert_int_equal(scan_plan_decode(list, &files, &n, &err), HL_OK);
    assert_int_equal(n, 0);
    assert_null(files);
    json_decref(list);
}

struct bad_case {
    const char *path;  /* the member changed */
    const char *value; /* its new JSON; NULL: removed */
    const char *named; /* what the error message must hold */
};

static void test_scan_plan_malformed(void **state)
{
    (void)state;
    static const struct bad_case cases[] = {
        {"0.data_file", NULL, "ScanFile answer's 'data_file'"},
        {"1.data_file", "[]", "ScanFile answer's 'data_file'"},
        {"2.data_file.path", "3", "DataFile answer's 'path'"},
        {"1.data_file.stats_state", "\"done\"", "'stats_state' is 'done'"},
        {"2.data_file.partition_values", "[1]", "partition value 0"},
        {"1.delete_file", "\"dv\"", "ScanFile answer's 'delete_file'"},
        {"0.delete_file.delete_count", NULL, "DeleteFile answer's 'delete_count'"},
        {"0.delete_file.path", "null", "DeleteFile answer's 'path'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_t *list = parse(scan_text);
        set_path(list, cases[i].path, cases[i].value);
        static struct hl_scan_file sentinel; /* to see *files reset */
        struct hl_scan_file *files = &sentinel;
        size_t n = 99;
        struct hl_error err;
        assert_int_equal(scan_plan_decode(list, &files, &n, &err), HL_ERR_PROTOCOL);
        json_decref(list);
        if (!strstr(err.message, cases[i].named))
            fail_msg("%s: '%s' does not name %s", cases[i].path, err.message, cases[i].named);
        assert_null(files);
        assert_int_equal(n, 0);
    }
    json_t *obj = parse("{\"files\":[]}");
    struct hl_scan_file *files;
    size_t n;
    struct hl_error err;
    assert_int_equal(scan_plan_decode(obj, &files, &n, &err), HL_ERR_PROTOCOL);
    assert_non_null(strstr(err.message, "scan plan is not an array"));
    json_decref(obj);
}

static void test_changes_plan_decodes(void **state)
{
    (void)state;
    json_t *obj = parse(changes_text);
    struct hl_changes_plan plan;
    struct hl_error err;
    assert_int_equal(client_changes_plan_decode(obj, &plan, &err), HL_OK);
    json_decref(obj);
    assert_string_equal(plan.table_uuid, "7e0c2f52-2d6f-4f4b-9a43-2b8d7c5e9f10");
    assert_int_equal(plan.from_snapshot, 3);
    assert_int_equal(plan.to_snapshot, 6);
    assert_int_equal(plan.nfiles, 2);
    assert_int_equal(plan.files[1].data_file_id, 2);
    assert_int_equal(plan.ndelete_files, 2);
    const struct hl_change_delete_file *first = &plan.delete_files[0],
                                       *second = &plan.delete_files[1];
    assert_int_equal(first->delete_file.delete_file_id, 6);
    assert_int_equal(first->data_file.data_file_id, 1);
    assert_string_equal(first->data_file.path, "file:///d/1.parquet");
    assert_null(first->superseded);
    assert_int_equal(second->delete_file.delete_count, 2);
    assert_non_null(second->superseded);
    assert_int_equal(second->superseded->delete_file_id, 6);
    assert_string_equal(second->superseded->path, "file:///d/6.puffin");
    hl_changes_plan_clear(&plan);
    assert_null(plan.table_uuid);
    assert_int_equal(plan.nfiles + plan.ndelete_files, 0);
    hl_changes_plan_clear(&plan); /* twice is harmless */
}

static void test_changes_plan_malformed(void **state)
{
    (void)state;
    static const struct bad_case cases[] = {
        {"table_uuid", NULL, "ChangePlan answer's 'table_uuid'"},
        {"to_snapshot", "\"6\"", "ChangePlan answer's 'to_snapshot'"},
        {"files", "{}", "ChangePlan answer's 'files' is not an array"},
        {"files.1.record_count", NULL, "DataFile answer's 'record_count'"},
        {"delete_files", NULL, "ChangePlan answer's 'delete_files' is not an array"},
        {"delete_files.0.data_file", NULL, "ChangeDeleteFile answer's 'data_file'"},
        {"delete_files.1.data_file.explicit_row_ids", "0", "'explicit_row_ids'"},
        {"delete_files.1.superseded_delete_file", "7", "'superseded_delete_file'"},
        {"delete_files.1.superseded_delete_file.begin_snapshot", NULL,
         "DeleteFile answer's 'begin_snapshot'"},
        {"delete_files.1.delete_file_id", "1.5", "DeleteFile answer's 'delete_file_id'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_t *obj = parse(changes_text);
        set_path(obj, cases[i].path, cases[i].value);
        struct hl_changes_plan plan;
        struct hl_error err;
        assert_int_equal(client_changes_plan_decode(obj, &plan, &err), HL_ERR_PROTOCOL);
        json_decref(obj);
        if (!strstr(err.message, cases[i].named))
            fail_msg("%s: '%s' does not name %s", cases[i].path, err.message, cases[i].named);
        assert_null(plan.table_uuid);
        assert_null(plan.files);
        assert_null(plan.delete_files);
        assert_int_equal(plan.nfiles + plan.ndelete_files, 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scan_plan_decodes),
        cmocka_unit_test(test_scan_plan_malformed),
        cmocka_unit_test(test_changes_plan_decodes),
        cmocka_unit_test(test_changes_plan_malformed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
