/* Snapshot expiry of an exported Iceberg table (see expire.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/expire.h"
#include "export/export_core.h"
#include "iceberg/manifest.h"
#include "iceberg/table_io.h"
#include "objstore/objstore.h"
#include "util/spans.h"

#define DEFAULT_OLDER_THAN_MS ((int64_t)7 * 86400 * 1000)

/* What the table's snapshots reference, as a JSON object used as a set:
 * path -> [kind, bytes]. */
enum ref_kind { REF_DATA, REF_MANIFEST, REF_LIST };

static int put_ref(json_t *set, const char *path, enum ref_kind kind, int64_t bytes)
{
    return json_object_set_new(set, path, json_pack("[i,I]", (int)kind, (json_int_t)bytes));
}

/* A manifest entry's data file (whatever its status) into the set. */
static hl_status entry_ref(void *set, const char *manifest, const json_t *e, struct hl_error *err)
{
    const json_t *df = json_object_get(e, "data_file");
    const char *file = json_string_value(json_object_get(df, "file_path"));
    int64_t size = 0;
    if (!file || !xp_json_long(df, "file_size_in_bytes", &size))
        return xp_fail(err, HL_ERR_PROTOCOL, "protocol", "%s: a malformed entry", manifest);
    return put_ref(set, file, REF_DATA, size) == 0 ? HL_OK : xp_nomem(err);
}

/* Everything a snapshot references into set: its manifest list, the
 * manifests listed and their data files (a manifest already in set is not
 * read again: snapshots share most of theirs). */
static hl_status snapshot_refs(struct exporter *x, const json_t *snap, json_t *set,
                               struct hl_error *err)
{
    const char *list = json_string_value(json_object_get(snap, "manifest-list"));
    if (!list)
        return xp_fail(err, HL_ERR_PROTOCOL, "protocol", "a snapshot without a manifest list");
    struct buf b = BUF_INIT;
    json_t *records = NULL;
    struct error ae;
    hl_status st = xp_get(x, list, &b, err);
    if (st == HL_OK && put_ref(set, list, REF_LIST, (int64_t)b.len) != 0)
        st = xp_nomem(err);
    if (st == HL_OK && ice_manifest_list_read(b.data, b.len, &records, &ae) != 0)
        st = error_publish(err, HL_ERR_PROTOCOL, &ae, "iceberg manifest list");
    buf_free(&b);
    size_t i;
    const json_t *mf;
    json_array_foreach (records, i, mf) {
        const char *path = json_string_value(json_object_get(mf, "manifest_path"));
        int64_t len = 0;
        xp_json_long(mf, "manifest_length", &len);
        if (st != HL_OK || (path && json_object_get(set, path)))
            continue;
        if (!path)
            st = xp_fail(err, HL_ERR_PROTOCOL, "protocol", "%s: a manifest without a path", list);
        else if (put_ref(set, path, REF_MANIFEST, len) != 0)
            st = xp_nomem(err);
        else
            st = xp_manifest_entries(x, path, entry_ref, set, err);
    }
    json_decref(records);
    return st;
}

/* ---- which snapshots go ---- */

struct snap_age {
    int64_t id, ts;
};

static int newest_first(const void *a, const void *b)
{
    const struct snap_age *x = a, *y = b;
    return x->ts > y->ts ? -1 : x->ts < y->ts;
}

/* The snapshots to expire (ids, malloc'd): older than cutoff_ms, not among
 * the newest retain_last, not current, not named by a ref. */
static hl_status choose_expired(const struct ice_meta *m, int64_t cutoff_ms, int64_t retain_last,
                                int64_t **ids, size_t *n, int64_t *retained, struct hl_error *err)
{
    const json_t *snaps = json_object_get(m->doc, "snapshots");
    size_t total = json_array_size(snaps);
    struct snap_age *all = calloc(total ? total : 1, sizeof *all);
    *ids = calloc(total ? total : 1, sizeof **ids);
    *n = 0;
    if (!all || !*ids) {
        free(all);
        free(*ids);
        *ids = NULL;
        return xp_nomem(err);
    }
    size_t i;
    const json_t *s;
    json_array_foreach (snaps, i, s) {
        all[i].id = json_integer_value(json_object_get(s, "snapshot-id"));
        all[i].ts = json_integer_value(json_object_get(s, "timestamp-ms"));
    }
    qsort(all, total, sizeof *all, newest_first);
    for (i = 0; i < total; i++) {
        if ((int64_t)i >= retain_last && all[i].ts < cutoff_ms &&
            !ice_meta_snapshot_pinned(m, all[i].id))
            (*ids)[(*n)++] = all[i].id;
    }
    *retained = (int64_t)(total - *n);
    free(all);
    return HL_OK;
}

static const json_t *snapshot_by_id(const struct ice_meta *m, int64_t id)
{
    size_t i;
    const json_t *s;
    json_array_foreach (json_object_get(m->doc, "snapshots"), i, s) {
        if (json_integer_value(json_object_get(s, "snapshot-id")) == id)
            return s;
    }
    return NULL;
}

/* One attempt on the current version: what the expired snapshots
 * reference into doomed, then the version without them. */
static hl_status expire_attempt(struct exporter *x, struct ice_meta *m, int64_t version,
                                int64_t cutoff_ms, int64_t retain_last, json_t *doomed,
                                struct ice_expire_result *res, struct hl_error *err)
{
    int64_t *ids = NULL;
    size_t n = 0;
    hl_status st =
        choose_expired(m, cutoff_ms, retain_last, &ids, &n, &res->snapshots_retained, err);
    for (size_t i = 0; st == HL_OK && i < n; i++)
        st = snapshot_refs(x, snapshot_by_id(m, ids[i]), doomed, err);
    char previous[4096];
    struct error ie;
    if (st == HL_OK && n > 0 && iceberg_metadata_uri(x->loc, version, previous, sizeof previous))
        st = xp_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument", "the location is too long");
    if (st == HL_OK && n > 0 &&
        ice_meta_remove_snapshots(m, ids, n, xp_now_ms(), previous, &ie) != 0)
        st = error_publish(err, HL_OK, &ie, "iceberg metadata");
    free(ids);
    char *text = st == HL_OK && n > 0 ? ice_meta_dumps(m) : NULL;
    if (st == HL_OK && n > 0 && !text)
        st = xp_nomem(err);
    if (st == HL_OK && n > 0 &&
        iceberg_commit_version(x->store, x->loc, version + 1, text, strlen(text), err) != 0)
        st = err ? err->status : HL_ERR_IO;
    free(text);
    if (st == HL_OK && n > 0) {
        res->snapshots_expired = (int64_t)n;
        res->version = version + 1;
    }
    return st;
}

/* Verify, then delete: what the snapshots of the version current now
 * reference is read again; of what the expired ones referenced, the rest
 * goes (only paths under the location). */
static hl_status delete_unreferenced(struct exporter *x, json_t *doomed,
                                     struct ice_expire_result *res, struct hl_error *err)
{
    struct ice_meta m;
    int64_t version;
    json_t *kept = json_object();
    hl_status st = kept ? xp_load_iceberg(x, &m, &version, err) : xp_nomem(err);
    if (st == HL_OK) {
        size_t i;
        const json_t *s;
        json_array_foreach (json_object_get(m.doc, "snapshots"), i, s) {
            if (st == HL_OK)
                st = snapshot_refs(x, s, kept, err);
        }
        ice_meta_free(&m);
    }
    if (st != HL_OK) {
        json_decref(kept);
        return xp_fail(err, st, "unverified",
                       "expired %lld snapshots (version %lld), but what the retained snapshots "
                       "reference could not be read again (%s): no file was deleted",
                       (long long)res->snapshots_expired, (long long)res->version,
                       err ? err->message : "failed");
    }
    size_t prefix = strlen(x->loc), n = 0;
    const char **paths = calloc(json_object_size(doomed) + 1, sizeof *paths);
    const char *path;
    json_t *v;
    json_object_foreach (doomed, path, v) {
        if (!paths || json_object_get(kept, path) || strncmp(path, x->loc, prefix) != 0 ||
            path[prefix] != '/')
            continue;
        paths[n++] = path;
        int kind = (int)json_integer_value(json_array_get(v, 0));
        res->data_files_deleted += kind == REF_DATA;
        res->manifests_deleted += kind == REF_MANIFEST;
        res->manifest_lists_deleted += kind == REF_LIST;
        res->bytes_deleted += json_integer_value(json_array_get(v, 1));
    }
    if (!paths)
        st = xp_nomem(err);
    else if (n > 0 && objstore_delete(x->store, paths, n, NULL, err) != 0)
        st = err ? err->status : HL_ERR_IO;
    free(paths);
    json_decref(kept);
    return st;
}

hl_status ice_expire_run(hl_table *t, const struct ice_expire_options *o,
                         struct ice_expire_result *res, struct hl_error *err)
{
    memset(res, 0, sizeof *res);
    if (!o)
        return xp_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument", "no options");
    struct exporter xs = {.t = t, .tracer = o->tracer};
    struct exporter *x = &xs;
    int64_t older = o->older_than_ms > 0 ? o->older_than_ms : DEFAULT_OLDER_THAN_MS;
    int64_t retain = o->retain_last > 0 ? o->retain_last : 1;
    hl_status st = xp_open(x, o->location, err);
    json_t *doomed = NULL;
    for (int attempt = 0; st == HL_OK; attempt++) {
        struct ice_meta m;
        int64_t version;
        st = xp_load_iceberg(x, &m, &version, err);
        if (st == HL_OK && version == 0)
            res->no_table = true;
        json_decref(doomed);
        doomed = json_object();
        if (st == HL_OK && !doomed)
            st = xp_nomem(err);
        if (st == HL_OK && version > 0)
            st = expire_attempt(x, &m, version, xp_now_ms() - older, retain, doomed, res, err);
        ice_meta_free(&m);
        if (st == HL_ERR_ALREADY_EXISTS && attempt + 1 < COMMIT_ATTEMPTS) {
            st = HL_OK; /* another writer's version landed first: reload, retry */
            continue;
        }
        break;
    }
    if (st == HL_OK && res->snapshots_expired > 0)
        st = delete_unreferenced(x, doomed, res, err);
    struct span *span = span_start(o->tracer, "iceberg.snapshot.expire", NULL);
    span_attr_str(span, "iceberg.location", x->loc);
    span_attr_int(span, "snapshots_expired", res->snapshots_expired);
    span_attr_int(span, "files_deleted",
                  res->data_files_deleted + res->manifests_deleted + res->manifest_lists_deleted);
    if (st != HL_OK)
        span_fail(span, "error", err ? err->message : "failed");
    span_end(span);
    json_decref(doomed);
    xp_exporter_free(x);
    return st;
}
