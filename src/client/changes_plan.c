/* A changefeed window's ChangePlan turned into the entries a scan reads
 * (scan.c): the rows the window inserted, then the rows it deleted.
 *
 * Net per data file, so a consumer applying the stream in order ends where
 * the table is at the window's end:
 *   - a file appended in the window yields its rows less those its newest
 *     vector in the window deletes (rows born and deleted inside the
 *     window are not reported);
 *   - a file from before the window (or a compaction output) with vectors
 *     in the window yields, as deleted, the positions of its newest vector
 *     in the window that the vector before the window did not hold: the
 *     `superseded_delete_file` of its oldest vector in the window. Each
 *     vector names its target in `data_file`.
 * A row inserted through a file that a compaction inside the window then
 * rewrote, and deleted from the compaction's output, is reported inserted
 * and then deleted. */
#include <stdio.h>
#include <string.h>

#include "client/internal.h"

/* The vectors of one target in the window: its newest and oldest. */
struct target {
    json_int_t id;
    const json_t *newest, *oldest;
};

static json_int_t begin_of(const json_t *dv)
{
    return json_integer_value(json_object_get(dv, "begin_snapshot"));
}

static void id_key(json_int_t id, char key[32])
{
    snprintf(key, 32, "%lld", (long long)id);
}

/* Groups the window's vectors by target, in the order each target first
 * appears. *targets (malloc'd) and *index (target id -> position in
 * *targets) are the caller's, whatever the outcome. */
static hl_status group_targets(const json_t *deletes, struct target **targets, size_t *n,
                               json_t **index, struct hl_error *err)
{
    *n = 0;
    *targets = calloc(json_array_size(deletes) + 1, sizeof **targets);
    *index = json_object();
    if (!*targets || !*index)
        return client_nomem(err);
    hl_status st = HL_OK;
    size_t i;
    const json_t *dv;
    json_array_foreach (deletes, i, dv) {
        const json_t *id = json_object_get(dv, "data_file_id");
        if (!json_is_integer(id) || !json_is_object(json_object_get(dv, "data_file"))) {
            st = client_fail(err, HL_ERR_PROTOCOL, "protocol",
                             "the changes plan does not say which data file a deletion vector "
                             "deletes from (a server older than this client?)");
            break;
        }
        char key[32];
        id_key(json_integer_value(id), key);
        const json_t *at = json_object_get(*index, key);
        struct target *t;
        if (at) {
            t = &(*targets)[json_integer_value(at)];
        } else {
            t = &(*targets)[*n];
            *t = (struct target){json_integer_value(id), dv, dv};
            if (json_object_set_new(*index, key, json_integer((json_int_t)(*n)++)) != 0) {
                st = client_nomem(err);
                break;
            }
        }
        if (begin_of(dv) > begin_of(t->newest))
            t->newest = dv;
        if (begin_of(dv) < begin_of(t->oldest))
            t->oldest = dv;
    }
    return st;
}

/* Appends {data_file, change, delete_file?, baseline_delete_file?}. */
static int add_entry(json_t *plan, const json_t *df, const char *change, const json_t *dv,
                     const json_t *baseline)
{
    json_t *e = json_pack("{s:O,s:s}", "data_file", df, "change", change);
    if (!e)
        return -1;
    if ((dv && json_object_set(e, "delete_file", (json_t *)dv) != 0) ||
        (baseline && !json_is_null(baseline) &&
         json_object_set(e, "baseline_delete_file", (json_t *)baseline) != 0)) {
        json_decref(e);
        return -1;
    }
    return json_array_append_new(plan, e);
}

hl_status client_changes_plan(const json_t *changes, json_t **plan, struct hl_error *err)
{
    *plan = NULL;
    const json_t *files = json_object_get(changes, "files");
    const json_t *deletes = json_object_get(changes, "delete_files");
    if (!json_is_array(files) || (deletes && !json_is_array(deletes)))
        return client_fail(err, HL_ERR_PROTOCOL, "protocol",
                           "the changes plan lacks its files or delete_files");
    struct target *targets = NULL;
    size_t ntargets = 0;
    json_t *index = NULL;
    hl_status st = group_targets(deletes, &targets, &ntargets, &index, err);
    json_t *out = st == HL_OK ? json_array() : NULL;
    if (st == HL_OK && !out)
        st = client_nomem(err);
    json_t *appended = out ? json_object() : NULL; /* ids of the files the window appended */
    if (out && !appended)
        st = client_nomem(err);
    size_t i;
    const json_t *df;
    json_array_foreach (files, i, df) {
        if (st != HL_OK)
            break;
        char key[32];
        id_key(json_integer_value(json_object_get(df, "data_file_id")), key);
        const json_t *at = json_object_get(index, key);
        const json_t *newest = at ? targets[json_integer_value(at)].newest : NULL;
        if (json_object_set_new(appended, key, json_true()) != 0 ||
            add_entry(out, df, "insert", newest, NULL) != 0)
            st = client_nomem(err);
    }
    for (size_t k = 0; st == HL_OK && k < ntargets; k++) {
        char key[32];
        id_key(targets[k].id, key);
        if (json_object_get(appended, key))
            continue; /* its insert entry already leaves the deleted rows out */
        const json_t *newest = targets[k].newest;
        if (add_entry(out, json_object_get(newest, "data_file"), "delete", newest,
                      json_object_get(targets[k].oldest, "superseded_delete_file")) != 0)
            st = client_nomem(err);
    }
    json_decref(appended);
    json_decref(index);
    free(targets);
    if (st != HL_OK)
        json_decref(out);
    else
        *plan = out;
    return st;
}
