/* Out-of-band compaction of an exported Iceberg table (see compact.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/compact.h"
#include "export/export_core.h"
#include "iceberg/table_io.h"
#include "objstore/objstore.h"
#include "util/array.h"
#include "util/arrow.h"
#include "util/failpoint.h"
#include "util/spans.h"
#include "util/random.h"
#include "hoglake/sys/table.h"

#define DEFAULT_FILE_COUNT 32
#define DEFAULT_MAX_BYTES ((int64_t)128 << 20)
#define DEFAULT_TARGET_BYTES ((int64_t)128 << 20)

const char *ice_compact_outcome_name(enum ice_compact_outcome o)
{
    switch (o) {
    case ICE_COMPACTED: return "compacted";
    case ICE_BELOW_THRESHOLD: return "below-threshold";
    case ICE_ABOVE_BYTE_CAP: return "above-byte-cap";
    case ICE_NO_TABLE: return "no-table";
    case ICE_CONFLICT: return "conflict";
    case ICE_ERROR: return "error";
    }
    return "error";
}

/* A live data file of the current snapshot, with the lineage its rows
 * inherit (Iceberg's rules: null values come from the manifest list). */
struct live_file {
    char *path;
    json_t *partition; /* the entry's partition tuple (owned; NULL: unpartitioned) */
    int64_t rows, size;
    int64_t first_row_id; /* -1: none (v2) */
    int64_t sequence_number;
};

static void live_free(struct live_file *f, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(f[i].path);
        json_decref(f[i].partition);
    }
    free(f);
}

/* Collects the live entries of one manifest, with the lineage they
 * inherit from its manifest list record. */
struct live_collector {
    struct live_file **files;
    size_t *n, *cap;
    int64_t seq;     /* the manifest's sequence number */
    int64_t next_id; /* the next inherited first_row_id (-1: none, v2) */
};

static hl_status collect_live(void *ctx, const char *manifest, const json_t *e,
                              struct hl_error *err)
{
    struct live_collector *c = ctx;
    int64_t status = -1, rows = 0, size = 0, first = -1, eseq = c->seq;
    const json_t *df = json_object_get(e, "data_file");
    const char *file = json_string_value(json_object_get(df, "file_path"));
    xp_json_long(e, "status", &status);
    xp_json_long(e, "sequence_number", &eseq);
    if (!file || !xp_json_long(df, "record_count", &rows) ||
        !xp_json_long(df, "file_size_in_bytes", &size))
        return xp_fail(err, HL_ERR_PROTOCOL, "protocol", "%s: a malformed entry", manifest);
    if (status == 2)
        return HL_OK; /* DELETED */
    if (!xp_json_long(df, "first_row_id", &first) && c->next_id >= 0) {
        first = c->next_id;
        c->next_id += rows;
    }
    if (array_reserve(c->files, c->cap, *c->n + 1, sizeof **c->files, 64) != 0)
        return xp_nomem(err);
    struct live_file *f = &(*c->files)[*c->n];
    *f = (struct live_file){
        strdup(file), json_incref(json_object_get(df, "partition")), rows, size, first, eseq};
    if (!f->path) {
        json_decref(f->partition);
        return xp_nomem(err);
    }
    (*c->n)++;
    return HL_OK;
}

/* The live entries of one data manifest. */
static hl_status manifest_files(struct exporter *x, const json_t *mf, struct live_file **files,
                                size_t *n, size_t *cap, struct hl_error *err)
{
    const char *path = json_string_value(json_object_get(mf, "manifest_path"));
    int64_t content = 0;
    struct live_collector c = {files, n, cap, 0, -1};
    xp_json_long(mf, "content", &content);
    if (!path || !xp_json_long(mf, "sequence_number", &c.seq))
        return xp_fail(err, HL_ERR_PROTOCOL, "protocol", "a manifest list entry without a path");
    if (content != 0)
        return xp_fail(err, HL_ERR_NOT_IMPLEMENTED, "not_implemented",
                       "the table has delete files, which compaction does not apply yet");
    xp_json_long(mf, "first_row_id", &c.next_id);
    return xp_manifest_entries(x, path, collect_live, &c, err);
}

static hl_status live_files(struct exporter *x, const struct ice_meta *m, struct live_file **files,
                            size_t *n, struct hl_error *err)
{
    *files = NULL;
    *n = 0;
    const char *list = json_string_value(json_object_get(m->current_snapshot, "manifest-list"));
    if (!list)
        return xp_fail(err, HL_ERR_PROTOCOL, "protocol",
                       "the current snapshot has no manifest list");
    struct buf b = BUF_INIT;
    json_t *records = NULL;
    struct error ae;
    hl_status st = xp_get(x, list, &b, err);
    if (st == HL_OK && ice_manifest_list_read(b.data, b.len, &records, &ae) != 0)
        st = error_publish(err, HL_ERR_INTERNAL, &ae, "iceberg manifest");
    buf_free(&b);
    size_t cap = 0, i;
    const json_t *mf;
    json_array_foreach (records, i, mf) {
        if (st == HL_OK)
            st = manifest_files(x, mf, files, n, &cap, err);
    }
    json_decref(records);
    return st;
}

/* Whether a rewrite would change anything: some partition holds two or
 * more files below the target size. A partition of one file, or of files
 * at the target size, is as compact as a rewrite would make it. */
static bool worth_rewriting(const struct live_file *live, size_t n, int64_t target)
{
    for (size_t i = 0; i < n; i++) {
        if (live[i].size >= target)
            continue;
        for (size_t j = i + 1; j < n; j++) {
            if (live[j].size < target && json_equal(live[i].partition, live[j].partition))
                return true;
        }
    }
    return false;
}

/* ---- rows, with their lineage ---- */

/* The Table object with the two lineage columns after the table's own. */
static json_t *info_with_lineage(hl_table *t, bool lineage, struct hl_error *err)
{
    char *text = NULL;
    if (hl_table_info(t, NULL, &text, err) != HL_OK)
        return NULL;
    json_t *info = json_loads(text, 0, NULL);
    free(text);
    json_t *cols = json_object_get(info, "columns");
    if (!json_is_array(cols)) {
        json_decref(info);
        xp_nomem(err);
        return NULL;
    }
    if (lineage &&
        (json_array_append_new(cols,
                               json_pack("{s:s, s:s, s:I, s:i, s:b}", "name", "_row_id", "type",
                                         "long", "field_id", (json_int_t)ICE_FIELD_ROW_ID,
                                         "ordinal", 1 << 20, "nullable", true)) != 0 ||
         json_array_append_new(cols, json_pack("{s:s, s:s, s:I, s:i, s:b}", "name",
                                               "_last_updated_sequence_number", "type", "long",
                                               "field_id", (json_int_t)ICE_FIELD_LAST_UPDATED_SEQ,
                                               "ordinal", (1 << 20) + 1, "nullable", true)) != 0)) {
        json_decref(info);
        xp_nomem(err);
        return NULL;
    }
    return info;
}

/* Replaces child k of a batch by an int64 array whose nulls are filled:
 * value(row) for the rows a file did not store lineage for. */
static int fill_lineage(struct ArrowArray *batch, int64_t k, int64_t first, int64_t step,
                        int64_t *min)
{
    struct ArrowArray *a = batch->children[k];
    int64_t n = batch->length;
    int64_t *values = malloc((size_t)(n ? n : 1) * sizeof *values);
    if (!values)
        return -1;
    const uint8_t *valid = a->n_buffers > 0 ? a->buffers[0] : NULL;
    const int64_t *old = a->n_buffers > 1 ? a->buffers[1] : NULL;
    for (int64_t i = 0; i < n; i++) {
        int64_t p = a->offset + i;
        bool present = a->null_count != a->length && old && (!valid || arrow_bit(valid, p));
        values[i] = present ? old[p] : first + step * i;
        if (values[i] < *min)
            *min = values[i];
    }
    a->release(a);
    if (arrow_array_init(a, 2, 0) != 0) {
        free(values);
        return -1;
    }
    arrow_array_own_buffer(a, 1, values);
    a->length = n;
    return 0;
}

static hl_status read_file(struct exporter *x, const json_t *info, const struct live_file *f,
                           bool lineage, int64_t *min_row_id, struct hl_error *err)
{
    json_t *plan = json_pack("[{s:{s:s,s:I}}]", "data_file", "path", f->path, "file_size_bytes",
                             (json_int_t)f->size);
    if (!plan)
        return xp_nomem(err);
    struct ArrowArrayStream s;
    hl_status st = hl_table_read_plan(x->t, info, plan, &s, err);
    if (st != HL_OK)
        return st;
    if (!x->schema.release && s.get_schema(&s, &x->schema) != 0)
        st = xp_fail(err, HL_ERR_IO, "io", "%s: no schema", f->path);
    int64_t position = 0;
    while (st == HL_OK) {
        struct ArrowArray b;
        if (s.get_next(&s, &b) != 0) {
            st = xp_fail(err, HL_ERR_IO, "io", "reading %s: %s", f->path,
                         s.get_last_error(&s) ? s.get_last_error(&s) : "failed");
            break;
        }
        if (!b.release)
            break;
        int64_t nc = b.n_children;
        int64_t unused = INT64_MAX;
        if (lineage && (fill_lineage(&b, nc - 2, f->first_row_id + position, 1, min_row_id) != 0 ||
                        fill_lineage(&b, nc - 1, f->sequence_number, 0, &unused) != 0)) {
            b.release(&b);
            st = xp_nomem(err);
            break;
        }
        position += b.length;
        if (xp_add_batch(x, &b) != 0) {
            st = xp_nomem(err);
            break;
        }
    }
    s.release(&s);
    if (st == HL_OK && position != f->rows)
        st = xp_fail(err, HL_ERR_PROTOCOL, "protocol", "%s holds %lld rows, its manifest says %lld",
                     f->path, (long long)position, (long long)f->rows);
    return st;
}

/* The lineage columns join the table definition the new files are written
 * from (after xp_load_table made the Iceberg schema without them). */
static hl_status add_lineage_columns(struct exporter *x, struct hl_error *err)
{
    struct error le;
    if (lake_table_load_column(&x->table, ICE_FIELD_ROW_ID, 0, "_row_id", LT_LONG, 0, 0, true,
                               1 << 20, NULL, &le) != 0 ||
        lake_table_load_column(&x->table, ICE_FIELD_LAST_UPDATED_SEQ, 0,
                               "_last_updated_sequence_number", LT_LONG, 0, 0, true, (1 << 20) + 1,
                               NULL, &le) != 0)
        return xp_fail(err, HL_ERR_INTERNAL, "internal", "lineage columns: %s", le.msg);
    return HL_OK;
}

/* ---- the replace commit ---- */

static hl_status stage_commit(struct exporter *x, struct ice_meta *m, int64_t version,
                              const struct live_file *live, size_t nlive, int64_t min_row_id,
                              struct ice_compact_result *res, struct hl_error *err)
{
    struct ice_manifest_spec spec = {.format_version = x->format_version, .day_field_id = 1000};
    char *schema_text = json_dumps(x->schema_json, JSON_COMPACT);
    const json_t *fields = json_object_get(m->default_spec, "fields");
    char *fields_text = json_dumps(fields, JSON_COMPACT);
    spec.schema_json = schema_text;
    spec.spec_fields_json = fields_text;
    spec.day_field_name =
        json_array_size(fields) > 0
            ? json_string_value(json_object_get(json_array_get(fields, 0), "name"))
            : NULL;
    xp_json_long(m->current_schema, "schema-id", &spec.schema_id);
    int64_t spec_id = 0;
    xp_json_long(m->default_spec, "spec-id", &spec_id);
    spec.spec_id = (int32_t)spec_id;
    hl_status st = schema_text && fields_text ? HL_OK : xp_nomem(err);
    struct ice_manifest_summary summary;
    struct error ae;
    struct error ie;
    struct buf list = BUF_INIT;
    char uuid[37], manifest_uri[4096], list_uri[4096], previous[4096];
    int64_t snapshot_id = -1, seq = ice_meta_next_sequence_number(m), manifest_len = 0;
    if (st == HL_OK)
        st = xp_write_manifest(x, &spec, uuid, manifest_uri, sizeof manifest_uri, &summary,
                               &manifest_len, err);
    if (st == HL_OK && ice_meta_pick_snapshot_id(m, &snapshot_id, &ie) != 0)
        st = error_publish(err, HL_OK, &ie, "iceberg metadata");
    /* The rows carry their _row_id: the manifest starts at the smallest, as
     * icebird does, so no new ids are handed out. */
    int64_t first_row_id = min_row_id == INT64_MAX ? m->next_row_id : min_row_id;
    /* Only the new manifest: every replaced file's manifest is left out. */
    json_t *added = st == HL_OK ? ice_manifest_file_record(&spec, manifest_uri, manifest_len,
                                                           snapshot_id, seq, first_row_id, &summary)
                                : NULL;
    if (st == HL_OK && !added)
        st = xp_nomem(err);
    if (st == HL_OK) {
        snprintf(list_uri, sizeof list_uri, "%s/metadata/snap-%" PRId64 "-0-%s.avro", x->loc,
                 snapshot_id, uuid);
        if (ice_manifest_list_write(x->format_version, snapshot_id, m->current_snapshot_id, seq,
                                    m->next_row_id, NULL, added, &list, &ae) != 0)
            st = error_publish(err, HL_ERR_INTERNAL, &ae, "iceberg manifest");
    }
    if (st == HL_OK)
        st = xp_put_object(x, list_uri, &list, err);
    json_decref(added);
    buf_free(&list);
    free(schema_text);
    free(fields_text);
    if (st != HL_OK)
        return st;
    struct ice_snapshot_add add;
    if ((st = xp_snapshot_add(x, version, snapshot_id, list_uri, previous, sizeof previous, &add,
                              err)) != HL_OK)
        return st;
    int64_t removed_rows = 0;
    for (size_t i = 0; i < nlive; i++)
        removed_rows += live[i].rows;
    add.operation = ICE_OP_REPLACE;
    add.removed_data_files = (int64_t)nlive;
    add.deleted_records = removed_rows;
    add.removed_files_size = res->bytes_before;
    add.added_rows = 0; /* the rows keep their ids: next-row-id does not move */
    if (ice_meta_add_snapshot(m, &add, &ie) != 0)
        return error_publish(err, HL_OK, &ie, "iceberg metadata");
    char *text = ice_meta_dumps(m);
    if (!text)
        return xp_nomem(err);
    if (xp_failpoint_rival(x, version) != 0) {
        free(text);
        return xp_fail(err, HL_ERR_INTERNAL, "internal", "the lost-race failpoint failed");
    }
    int rc = iceberg_commit_version(x->store, x->loc, version + 1, text, strlen(text), err);
    free(text);
    res->snapshot_id = snapshot_id;
    return rc == 0 ? HL_OK : err ? err->status : HL_ERR_IO;
}

/* After a failed commit: did it land after all, did another writer win,
 * or can nobody tell? */
static hl_status settle(struct exporter *x, hl_status failed, struct ice_compact_result *res,
                        struct hl_error *err)
{
    struct hl_error first = *err;
    struct ice_meta m;
    int64_t version;
    /* (The failpoint stands for a store that stops answering.) */
    if (failpoint_on("iceberg-unverifiable") || xp_load_iceberg(x, &m, &version, err) != HL_OK) {
        res->staged_files_left = true;
        res->outcome = ICE_ERROR;
        return xp_fail(err, HL_ERR_IO, "unverified",
                       "the commit failed (%s) and the table could not be read again to tell "
                       "whether it landed; the %zu staged files are left in place",
                       first.message, x->nstaged);
    }
    bool landed = m.has_current_snapshot && m.current_snapshot_id == res->snapshot_id;
    ice_meta_free(&m);
    if (landed) {
        res->outcome = ICE_COMPACTED;
        return HL_OK;
    }
    xp_unstage(x);
    res->snapshot_id = -1;
    if (failed == HL_ERR_ALREADY_EXISTS) {
        res->outcome = ICE_CONFLICT; /* a lost race: the table is another writer's now */
        return HL_OK;
    }
    res->outcome = ICE_ERROR;
    *err = first;
    return failed;
}

hl_status ice_compact_run(hl_table *t, const struct ice_compact_options *o,
                          struct ice_compact_result *res, struct hl_error *err)
{
    memset(res, 0, sizeof *res);
    res->outcome = ICE_ERROR;
    res->snapshot_id = -1;
    if (!o)
        return xp_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument", "no options");
    struct exporter xs = {.t = t, .tracer = o->tracer};
    struct exporter *x = &xs;
    int64_t min_files = o->file_count > 0 ? o->file_count : DEFAULT_FILE_COUNT;
    int64_t max_bytes = o->max_bytes > 0 ? o->max_bytes : DEFAULT_MAX_BYTES;
    int64_t target = o->target_bytes > 0 ? o->target_bytes : DEFAULT_TARGET_BYTES;
    struct ice_meta m;
    memset(&m, 0, sizeof m);
    int64_t version = 0;
    struct live_file *live = NULL;
    size_t nlive = 0;
    json_t *info = NULL;
    hl_status st = xp_open(x, o->location, err);
    if (st == HL_OK)
        st = xp_load_iceberg(x, &m, &version, err);
    if (st != HL_OK)
        goto out; /* a load failure is an error, not "no table" */
    if (version == 0) {
        res->outcome = ICE_NO_TABLE;
        goto out;
    }
    x->format_version = m.format_version;
    if (m.has_current_snapshot)
        st = live_files(x, &m, &live, &nlive, err);
    res->files_before = (int64_t)nlive;
    for (size_t i = 0; i < nlive; i++)
        res->bytes_before += live[i].size;
    if (st != HL_OK)
        goto out;
    if ((int64_t)nlive < min_files || !worth_rewriting(live, nlive, target)) {
        res->outcome = ICE_BELOW_THRESHOLD;
        goto out;
    }
    if (res->bytes_before > max_bytes) {
        res->outcome = ICE_ABOVE_BYTE_CAP;
        goto out;
    }
    /* The layout as the export derives it; the rows with their lineage. */
    bool lineage = m.format_version >= 3;
    st = xp_load_table(x, err);
    if (st == HL_OK) /* the files record the order they are sorted by */
        st = xp_apply_sort_order(x, &m, err);
    if (st == HL_OK && lineage)
        st = add_lineage_columns(x, err);
    if (st == HL_OK && !(info = info_with_lineage(t, lineage, err)))
        st = err ? err->status : HL_ERR_NOMEM;
    int64_t min_row_id = INT64_MAX;
    for (size_t i = 0; st == HL_OK && i < nlive; i++)
        st = read_file(x, info, &live[i], lineage, &min_row_id, err);
    res->rows = x->rows;
    if (st == HL_OK)
        st = xp_group_rows(x, err);
    for (size_t i = 0; st == HL_OK && i < x->ngroups; i++)
        st = xp_write_group(x, &x->groups[i], err);
    res->files_after = (int64_t)x->nfiles;
    if (st == HL_OK && failpoint_on("iceberg-die-mid-stage"))
        st = xp_fail(err, HL_ERR_INTERNAL, "internal", "died while staging (a failpoint)");
    struct span *span = st == HL_OK ? span_start(o->tracer, "iceberg.snapshot.commit", NULL) : NULL;
    xp_span_layout(x, span);
    span_attr_str(span, "iceberg.operation", "replace");
    if (st == HL_OK) {
        st = stage_commit(x, &m, version, live, nlive, min_row_id, res, err);
        if (st == HL_OK)
            res->outcome = ICE_COMPACTED;
        else if (res->snapshot_id >= 0)
            st = settle(x, st, res, err); /* the commit itself failed */
    }
    span_attr_str(span, "outcome", ice_compact_outcome_name(res->outcome));
    if (res->outcome == ICE_ERROR)
        span_fail(span, "error", err ? err->message : "failed");
    span_end(span);
    if (st != HL_OK && res->outcome == ICE_ERROR && !res->staged_files_left)
        xp_unstage(x);
out:
    json_decref(info);
    live_free(live, nlive);
    ice_meta_free(&m);
    xp_exporter_free(x);
    return st;
}
