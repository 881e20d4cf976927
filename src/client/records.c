/* Typed records of the metadata reads: the JSON the listings return,
 * decoded into the structs of include/hoglake/hoglake.h. */
#include "client/records.h"

#include <stdlib.h>
#include <string.h>

#include "client/decode.h"

#define F struct hl_data_file
static const struct client_member data_file_members[] = {
    CM(F, data_file_id, CM_I64, true),      CM(F, path, CM_STRING, true),
    CM(F, record_count, CM_I64, true),      CM(F, file_size_bytes, CM_I64, true),
    CM(F, row_id_start, CM_I64, true),      CM(F, begin_snapshot, CM_I64, true),
    CM(F, explicit_row_ids, CM_BOOL, true), CM(F, footer_size, CM_I64, false),
    CM(F, spec_id, CM_I64, false),
};
#undef F
#define NMEMBERS (sizeof data_file_members / sizeof data_file_members[0])

#define D struct hl_delete_file
static const struct client_member delete_file_members[] = {
    CM(D, delete_file_id, CM_I64, true),  CM(D, data_file_id, CM_I64, true),
    CM(D, path, CM_STRING, true),         CM(D, delete_count, CM_I64, true),
    CM(D, file_size_bytes, CM_I64, true), CM(D, begin_snapshot, CM_I64, true),
};
#undef D
#define NDELETE_MEMBERS (sizeof delete_file_members / sizeof delete_file_members[0])

void client_data_file_clear(struct hl_data_file *f)
{
    client_decode_free(data_file_members, NMEMBERS, f);
    for (size_t i = 0; i < f->npartition_values; i++)
        free(f->partition_values[i]);
    free(f->partition_values);
    memset(f, 0, sizeof *f);
}

static hl_status stats_state(const json_t *obj, enum hl_stats_state *out, struct hl_error *err)
{
    static const char *const names[] = {"provided", "pending", "failed"};
    const char *s = json_string_value(json_object_get(obj, "stats_state"));
    for (int i = 0; s && i < 3; i++)
        if (strcmp(s, names[i]) == 0) {
            *out = (enum hl_stats_state)i;
            return HL_OK;
        }
    return client_fail(err, HL_ERR_PROTOCOL, "protocol",
                       "the DataFile answer's 'stats_state' is '%s', not provided, pending or "
                       "failed",
                       s ? s : "(missing)");
}

static hl_status partition_values(const json_t *obj, struct hl_data_file *f, struct hl_error *err)
{
    json_t *values = json_object_get(obj, "partition_values");
    if (!values || json_is_null(values))
        return HL_OK;
    if (!json_is_array(values))
        return client_fail(err, HL_ERR_PROTOCOL, "protocol",
                           "the DataFile answer's 'partition_values' is not an array");
    size_t n = json_array_size(values);
    if (n == 0)
        return HL_OK;
    if (!(f->partition_values = calloc(n, sizeof *f->partition_values)))
        return client_nomem(err);
    f->npartition_values = n;
    for (size_t i = 0; i < n; i++) {
        json_t *v = json_array_get(values, i);
        if (json_is_null(v))
            continue;
        if (!json_is_string(v))
            return client_fail(err, HL_ERR_PROTOCOL, "protocol",
                               "the DataFile answer's partition value %zu is not a string", i);
        if (!(f->partition_values[i] = strdup(json_string_value(v))))
            return client_nomem(err);
    }
    return HL_OK;
}

hl_status client_data_file_decode(const json_t *obj, struct hl_data_file *f, struct hl_error *err)
{
    hl_status st = client_decode(obj, "DataFile", data_file_members, NMEMBERS, f, sizeof *f, err);
    if (st != HL_OK)
        return st;
    if (!json_object_get(obj, "footer_size"))
        f->footer_size = -1;
    if (!json_object_get(obj, "spec_id"))
        f->spec_id = -1;
    st = stats_state(obj, &f->stats_state, err);
    if (st == HL_OK)
        st = partition_values(obj, f, err);
    if (st != HL_OK)
        client_data_file_clear(f);
    return st;
}

hl_status client_data_file_member(const json_t *obj, const char *what, struct hl_data_file *f,
                                  struct hl_error *err)
{
    const json_t *v = json_object_get(obj, "data_file");
    if (json_is_object(v))
        return client_data_file_decode(v, f, err);
    memset(f, 0, sizeof *f);
    return client_fail(err, HL_ERR_PROTOCOL, "protocol",
                       "the %s answer's 'data_file' is missing or not an object", what);
}

hl_status client_delete_file_decode(const json_t *obj, struct hl_delete_file *d,
                                    struct hl_error *err)
{
    return client_decode(obj, "DeleteFile", delete_file_members, NDELETE_MEMBERS, d, sizeof *d,
                         err);
}

void client_delete_file_clear(struct hl_delete_file *d)
{
    client_decode_free(delete_file_members, NDELETE_MEMBERS, d);
    memset(d, 0, sizeof *d);
}

void client_delete_file_free(struct hl_delete_file *d)
{
    if (!d)
        return;
    client_delete_file_clear(d);
    free(d);
}

hl_status client_delete_file_member(const json_t *obj, const char *what, const char *member,
                                    struct hl_delete_file **out, struct hl_error *err)
{
    *out = NULL;
    const json_t *v = json_object_get(obj, member);
    if (!v || json_is_null(v))
        return HL_OK;
    if (!json_is_object(v))
        return client_fail(err, HL_ERR_PROTOCOL, "protocol",
                           "the %s answer's '%s' is not a DeleteFile object", what, member);
    struct hl_delete_file *d = malloc(sizeof *d);
    if (!d)
        return client_nomem(err);
    hl_status st = client_delete_file_decode(v, d, err);
    if (st != HL_OK) {
        free(d);
        return st;
    }
    *out = d;
    return HL_OK;
}

static hl_status data_file_record_decode(const json_t *obj, void *rec, struct hl_error *err)
{
    return client_data_file_decode(obj, rec, err);
}

static void data_file_record_clear(void *rec)
{
    client_data_file_clear(rec);
}

const struct client_record_kind client_data_file_kind = {
    sizeof(struct hl_data_file), data_file_record_decode, data_file_record_clear};

void client_records_free(const struct client_record_kind *kind, void *recs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        kind->clear((char *)recs + i * kind->size);
    free(recs);
}

hl_status client_records_decode(const json_t *list, const char *what,
                                const struct client_record_kind *kind, void **recs, size_t *n,
                                struct hl_error *err)
{
    *recs = NULL;
    *n = 0;
    if (!json_is_array(list))
        return client_fail(err, HL_ERR_PROTOCOL, "protocol", "the %s is not an array", what);
    size_t count = json_array_size(list);
    if (count == 0)
        return HL_OK;
    char *out = calloc(count, kind->size);
    if (!out)
        return client_nomem(err);
    hl_status st = HL_OK;
    size_t done = 0;
    for (; st == HL_OK && done < count; done++)
        st = kind->decode(json_array_get(list, done), out + done * kind->size, err);
    if (st != HL_OK) {
        /* The failed record cleared itself. */
        client_records_free(kind, out, done - 1);
        return st;
    }
    *recs = out;
    *n = count;
    return HL_OK;
}

hl_status client_records_parse(char *text, const char *what, json_t **out, struct hl_error *err)
{
    *out = json_loads(text, 0, NULL);
    free(text);
    return *out ? HL_OK
                : client_fail(err, HL_ERR_PROTOCOL, "protocol", "the %s answer is not JSON", what);
}

void hl_data_files_free(struct hl_data_file *files, size_t nfiles)
{
    client_records_free(&client_data_file_kind, files, nfiles);
}

hl_status client_listing_records(client_listing_read read, hl_table *t, const struct hl_at *at,
                                 const char *what, const struct client_record_kind *kind,
                                 void **recs, size_t *n, struct hl_error *err)
{
    *recs = NULL;
    *n = 0;
    char *text = NULL;
    json_t *list = NULL;
    hl_status st = read(t, at, &text, err);
    if (st == HL_OK)
        st = client_records_parse(text, what, &list, err);
    if (st == HL_OK)
        st = client_records_decode(list, what, kind, recs, n, err);
    json_decref(list);
    return st;
}

hl_status hl_table_files_list(hl_table *t, const struct hl_at *at, struct hl_data_file **files,
                              size_t *nfiles, struct hl_error *err)
{
    void *recs;
    hl_status st = client_listing_records(hl_table_files, t, at, "files listing",
                                          &client_data_file_kind, &recs, nfiles, err);
    *files = recs;
    return st;
}
