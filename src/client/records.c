/* Typed records of the metadata reads: the JSON the listings return,
 * decoded into the structs of include/hoglake/hoglake.h. */
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

static void data_file_clear(struct hl_data_file *f)
{
    client_decode_free(data_file_members, NMEMBERS, f);
    for (size_t i = 0; i < f->npartition_values; i++)
        free(f->partition_values[i]);
    free(f->partition_values);
    memset(f, 0, sizeof *f);
}

void hl_data_files_free(struct hl_data_file *files, size_t nfiles)
{
    for (size_t i = 0; i < nfiles; i++)
        data_file_clear(&files[i]);
    free(files);
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

static hl_status data_file_decode(const json_t *obj, struct hl_data_file *f, struct hl_error *err)
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
        data_file_clear(f);
    return st;
}

hl_status hl_table_files_list(hl_table *t, const struct hl_at *at, struct hl_data_file **files,
                              size_t *nfiles, struct hl_error *err)
{
    *files = NULL;
    *nfiles = 0;
    char *text = NULL;
    hl_status st = hl_table_files(t, at, &text, err);
    if (st != HL_OK)
        return st;
    json_error_t jerr;
    json_t *list = json_loads(text, 0, &jerr);
    free(text);
    if (!json_is_array(list)) {
        json_decref(list);
        return client_fail(err, HL_ERR_PROTOCOL, "protocol", "the files listing is not an array");
    }
    size_t n = json_array_size(list);
    struct hl_data_file *out = n ? calloc(n, sizeof *out) : NULL;
    if (n && !out)
        st = client_nomem(err);
    size_t done = 0;
    for (; st == HL_OK && done < n; done++)
        st = data_file_decode(json_array_get(list, done), &out[done], err);
    json_decref(list);
    if (st != HL_OK) {
        /* The failed entry cleared itself. */
        hl_data_files_free(out, done);
        return st;
    }
    *files = out;
    *nfiles = n;
    return HL_OK;
}
