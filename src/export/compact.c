/* Out-of-band compaction of an exported Iceberg table (see compact.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/compact.h"
#include "export/export_core.h"
#include "export/live.h"
#include "rows/rows_filter.h"
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

/* Whether a rewrite would change anything: some partition holds two or
 * more files below the target size. A partition of one file, or of files
 * at the target size, is as compact as a rewrite would make it. */
static bool worth_rewriting(const struct xp_data_file *live, size_t n, int64_t target)
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

/* The Table object with the lineage columns after the table's own:
 * _row_id, and on v3 _last_updated_sequence_number. */
static json_t *info_with_lineage(hl_table *t, bool sequence, struct hl_error *err)
{
    char *text = NULL;
    if (hl_table_info(t, NULL, &text, err) != HL_OK)
        return NULL;
    json_t *info = json_loads(text, 0, NULL);
    free(text);
    if (!info) {
        xp_nomem(err);
        return NULL;
    }
    if (xp_info_add_long(info, "_row_id", ICE_FIELD_ROW_ID, 1 << 20, err) != HL_OK ||
        (sequence && xp_info_add_long(info, "_last_updated_sequence_number",
                                      ICE_FIELD_LAST_UPDATED_SEQ, (1 << 20) + 1, err) != HL_OK)) {
        json_decref(info);
        return NULL;
    }
    return info;
}

/* The rows of a live file with their lineage (v2: _row_id as stored),
 * less the rows its delete files delete (deleted: their positions). */
static hl_status read_file(struct exporter *x, const json_t *info, const struct xp_data_file *f,
                           const struct lake_dv *deleted, bool sequence, int64_t *min_row_id,
                           struct hl_error *err)
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
        int64_t ids = b.n_children - (sequence ? 2 : 1);
        int64_t unused = INT64_MAX;
        /* v2 has no inheritance: _row_id is what the file stores (nulls
         * in a file exported before files carried their rows' ids). */
        bool ok = !sequence ||
                  (xp_fill_long(&b, ids, f->first_row_id + position, 1, min_row_id, NULL) == 0 &&
                   xp_fill_long(&b, ids + 1, f->sequence_number, 0, &unused, NULL) == 0);
        uint64_t dropped = 0;
        struct error fe;
        if (ok && deleted->n > 0 &&
            rows_drop_deleted(&x->schema, &b, (uint64_t)position, deleted, &dropped, &fe) != 0)
            ok = false;
        if (!ok) {
            b.release(&b);
            st = xp_nomem(err);
            break;
        }
        position += b.length + (int64_t)dropped;
        if (b.length == 0) {
            b.release(&b);
            continue;
        }
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

/* ---- the replace commit ---- */

static hl_status stage_commit(struct exporter *x, struct ice_meta *m, int64_t version,
                              const struct xp_live *live, int64_t min_row_id,
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
    /* Only the new manifest: every replaced file's manifest (and every
     * delete manifest) is left out. */
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
    for (size_t i = 0; i < live->ndata; i++)
        removed_rows += live->data[i].rows;
    add.operation = ICE_OP_REPLACE;
    add.removed_data_files = (int64_t)live->ndata;
    add.deleted_records = removed_rows;
    add.removed_files_size = res->bytes_before;
    /* The delete files are applied: they leave with the files they name. */
    add.removed_delete_files = (int64_t)live->ndels;
    add.removed_position_deletes = live->delete_positions;
    add.removed_dvs = live->dvs;
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
    struct xp_live live;
    memset(&live, 0, sizeof live);
    struct lake_dv *deleted = NULL;
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
        st = xp_live_load(x, &m, &live, err);
    res->files_before = (int64_t)live.ndata;
    for (size_t i = 0; i < live.ndata; i++)
        res->bytes_before += live.data[i].size;
    if (st != HL_OK)
        goto out;
    /* Delete files are worth applying whatever the files' sizes. */
    if (live.ndels == 0 &&
        ((int64_t)live.ndata < min_files || !worth_rewriting(live.data, live.ndata, target))) {
        res->outcome = ICE_BELOW_THRESHOLD;
        goto out;
    }
    if (res->bytes_before > max_bytes) {
        res->outcome = ICE_ABOVE_BYTE_CAP;
        goto out;
    }
    /* The layout as the export derives it; the rows with their lineage
     * (v3 also the sequence numbers), less the rows the delete files
     * delete. The ids are hoglake's, and bounded, when every input's was. */
    bool sequence = m.format_version >= 3;
    x->row_id_bounds = true;
    for (size_t i = 0; i < live.ndata; i++)
        x->row_id_bounds = x->row_id_bounds && live.data[i].has_ids;
    st = xp_load_table(x, err);
    if (st == HL_OK) /* the files record the order they are sorted by */
        st = xp_apply_sort_order(x, &m, err);
    if (st == HL_OK)
        st = xp_add_lineage_columns(x, sequence, err);
    if (st == HL_OK && !(info = info_with_lineage(t, sequence, err)))
        st = err ? err->status : HL_ERR_NOMEM;
    if (st == HL_OK && !(deleted = calloc(live.ndata + 1, sizeof *deleted)))
        st = xp_nomem(err);
    if (st == HL_OK)
        st = xp_live_deleted(x, &live, deleted, err);
    int64_t min_row_id = INT64_MAX;
    for (size_t i = 0; st == HL_OK && i < live.ndata; i++)
        st = read_file(x, info, &live.data[i], &deleted[i], sequence, &min_row_id, err);
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
        st = stage_commit(x, &m, version, &live, min_row_id, res, err);
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
    xp_dvs_free(deleted, live.ndata);
    xp_live_free(&live);
    ice_meta_free(&m);
    xp_exporter_free(x);
    return st;
}
