/* The scan plan and the changes plan, typed: hl_table_scan_plan's ScanFile
 * array and hl_table_changes' ChangePlan decoded through the DataFile and
 * DeleteFile decoders of records.c. */
#include <string.h>

#include "client/decode.h"
#include "client/records.h"

/* ---- the scan plan ---- */

static void scan_file_clear(void *rec)
{
    struct hl_scan_file *s = rec;
    client_data_file_clear(&s->data_file);
    client_delete_file_free(s->delete_file);
    s->delete_file = NULL;
}

static hl_status scan_file_decode(const json_t *obj, void *rec, struct hl_error *err)
{
    struct hl_scan_file *s = rec;
    memset(s, 0, sizeof *s);
    hl_status st = client_data_file_member(obj, "ScanFile", &s->data_file, err);
    if (st == HL_OK)
        st = client_delete_file_member(obj, "ScanFile", "delete_file", &s->delete_file, err);
    if (st != HL_OK)
        scan_file_clear(s);
    return st;
}

const struct client_record_kind client_scan_file_kind = {sizeof(struct hl_scan_file),
                                                         scan_file_decode, scan_file_clear};

void hl_scan_files_free(struct hl_scan_file *files, size_t nfiles)
{
    client_records_free(&client_scan_file_kind, files, nfiles);
}

hl_status hl_table_scan_plan_list(hl_table *t, const struct hl_at *at, struct hl_scan_file **files,
                                  size_t *nfiles, struct hl_error *err)
{
    void *recs;
    hl_status st = client_listing_records(hl_table_scan_plan, t, at, "scan plan",
                                          &client_scan_file_kind, &recs, nfiles, err);
    *files = recs;
    return st;
}

/* ---- the changes plan ---- */

static void change_delete_file_clear(void *rec)
{
    struct hl_change_delete_file *c = rec;
    client_delete_file_clear(&c->delete_file);
    client_data_file_clear(&c->data_file);
    client_delete_file_free(c->superseded);
    c->superseded = NULL;
}

static hl_status change_delete_file_decode(const json_t *obj, void *rec, struct hl_error *err)
{
    struct hl_change_delete_file *c = rec;
    memset(c, 0, sizeof *c);
    hl_status st = client_delete_file_decode(obj, &c->delete_file, err);
    if (st == HL_OK)
        st = client_data_file_member(obj, "ChangeDeleteFile", &c->data_file, err);
    if (st == HL_OK)
        st = client_delete_file_member(obj, "ChangeDeleteFile", "superseded_delete_file",
                                       &c->superseded, err);
    if (st != HL_OK)
        change_delete_file_clear(c);
    return st;
}

static const struct client_record_kind change_delete_file_kind = {
    sizeof(struct hl_change_delete_file), change_delete_file_decode, change_delete_file_clear};

#define P struct hl_changes_plan
static const struct client_member plan_members[] = {
    CM(P, table_uuid, CM_STRING, true),
    CM(P, from_snapshot, CM_I64, true),
    CM(P, to_snapshot, CM_I64, true),
};
#undef P
#define NPLAN_MEMBERS (sizeof plan_members / sizeof plan_members[0])

void hl_changes_plan_clear(struct hl_changes_plan *plan)
{
    if (!plan)
        return;
    client_decode_free(plan_members, NPLAN_MEMBERS, plan);
    hl_data_files_free(plan->files, plan->nfiles);
    client_records_free(&change_delete_file_kind, plan->delete_files, plan->ndelete_files);
    memset(plan, 0, sizeof *plan);
}

hl_status client_changes_plan_decode(const json_t *obj, struct hl_changes_plan *plan,
                                     struct hl_error *err)
{
    hl_status st =
        client_decode(obj, "ChangePlan", plan_members, NPLAN_MEMBERS, plan, sizeof *plan, err);
    void *recs = NULL;
    if (st == HL_OK)
        st = client_records_decode(json_object_get(obj, "files"), "ChangePlan answer's 'files'",
                                   &client_data_file_kind, &recs, &plan->nfiles, err);
    plan->files = recs;
    recs = NULL;
    if (st == HL_OK)
        st = client_records_decode(json_object_get(obj, "delete_files"),
                                   "ChangePlan answer's 'delete_files'", &change_delete_file_kind,
                                   &recs, &plan->ndelete_files, err);
    plan->delete_files = recs;
    if (st != HL_OK)
        hl_changes_plan_clear(plan);
    return st;
}

hl_status hl_table_changes_plan(hl_table *t, int64_t from_snapshot, int64_t to_snapshot,
                                struct hl_changes_plan *plan, struct hl_error *err)
{
    memset(plan, 0, sizeof *plan);
    char *text = NULL;
    json_t *obj = NULL;
    hl_status st = hl_table_changes(t, from_snapshot, to_snapshot, &text, err);
    if (st == HL_OK)
        st = client_records_parse(text, "ChangePlan", &obj, err);
    if (st == HL_OK)
        st = client_changes_plan_decode(obj, plan, err);
    json_decref(obj);
    return st;
}
