/* The incremental Iceberg export of a table (see export.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "export/export.h"
#include "export/deletes.h"
#include "export/export_core.h"
#include "iceberg/manifest.h"
#include "iceberg/metadata.h"
#include "iceberg/table_io.h"
#include "lake/puffin.h"
#include "lake/partition.h"
#include "objstore/objstore.h"
#include "parquet/colstats.h"
#include "parquet/writer.h"
#include "rows/rows_filter.h"
#include "rows/rows_schema.h"
#include "rows/rows_sort.h"
#include "util/arena.h"
#include "util/arrow.h"
#include "util/failpoint.h"
#include "util/sha256.h"
#include "util/spans.h"
#include "util/timefmt.h"
#include "util/random.h"
#include "hoglake/sys/table.h"

/* An export run: the shared state, and this run's own. */
struct export_run {
    struct exporter x;
    const struct ice_export_options *o;
    struct ice_export_result *res;
    char consumer[48];
    struct xp_deletes deletes; /* the rows the window deletes */
};

#define SUMMARY_TABLE "hoglake.table-uuid"
#define SUMMARY_FROM "hoglake.source-snapshot-from"
#define SUMMARY_TO "hoglake.source-snapshot-to"
#define SUMMARY_BOOTSTRAP "hoglake.bootstrap-snapshot"
/* Who the Iceberg table belongs to (its properties). */
#define PROP_TABLE_UUID "hoglake.table-uuid"
#define PROP_TABLE "hoglake.table"
#define PROP_CATALOG "hoglake.catalog"

int ice_export_consumer_id(const char *location, char out[48])
{
    uint8_t digest[32];
    size_t n = strlen(location);
    while (n > 0 && location[n - 1] == '/')
        n--;
    if (sha256(location, n, digest) != 0)
        return -1;
    int k = snprintf(out, 48, "iceberg-");
    for (int i = 0; i < 16; i++)
        k += snprintf(out + k, (size_t)(48 - k), "%02x", digest[i]);
    return 0;
}

/* ---- the rows since the last export ---- */

/* The changefeed's trailing columns (_row_id, _change_type: hoglake.h):
 * the export writes _row_id (as Iceberg's _row_id) and not _change_type. */
static void drop_change_schema(struct ArrowSchema *s)
{
    struct ArrowSchema *kind = s->children[s->n_children - 1];
    kind->release(kind);
    s->n_children--;
}

/* Drops a changefeed batch's _change_type; *deleted: its rows are deleted
 * ones (a batch is one file's rows, all one kind). */
static hl_status drop_change_column(struct exporter *x, struct ArrowArray *b, bool *deleted,
                                    struct hl_error *err)
{
    struct ArrowArray *kind = b->children[b->n_children - 1];
    const int32_t *off = kind->buffers[1];
    const char *text = kind->buffers[2];
    int64_t deletes = 0;
    for (int64_t i = 0; i < kind->length; i++) {
        int64_t k = kind->offset + i;
        deletes += off[k + 1] - off[k] == 6 && memcmp(text + off[k], "delete", 6) == 0;
    }
    if (deletes != 0 && deletes != kind->length)
        return xp_fail(err, HL_ERR_PROTOCOL, "protocol",
                       "a batch of the changes of %s mixes inserted and deleted rows",
                       x->qualified);
    *deleted = deletes != 0;
    kind->release(kind);
    b->n_children--;
    return HL_OK;
}

/* Moves every batch of s into x (the first stream read gives the schema),
 * and releases s. A changefeed's stream (d: its deleted rows go there)
 * loses its _change_type. */
static hl_status drain(struct exporter *x, struct ArrowArrayStream *stream, struct xp_deletes *d,
                       struct hl_error *err)
{
    struct ArrowArrayStream s = *stream;
    hl_status st = HL_OK;
    struct ArrowSchema schema = {0};
    if (s.get_schema(&s, &schema) != 0)
        st = xp_fail(err, HL_ERR_IO, "io", "reading the rows: %s",
                     s.get_last_error(&s) ? s.get_last_error(&s) : "no schema");
    if (st == HL_OK && d)
        drop_change_schema(&schema);
    if (st == HL_OK && !x->schema.release)
        arrow_schema_move(&schema, &x->schema);
    else if (schema.release)
        schema.release(&schema);
    while (st == HL_OK) {
        struct ArrowArray b;
        if (s.get_next(&s, &b) != 0) {
            st = xp_fail(err, HL_ERR_IO, "io", "reading the rows: %s",
                         s.get_last_error(&s) ? s.get_last_error(&s) : "failed");
            break;
        }
        if (!b.release)
            break;
        bool deleted = false;
        if (d && (st = drop_change_column(x, &b, &deleted, err)) == HL_OK && deleted)
            st = xp_deletes_collect(x, d, &b, err);
        if (st != HL_OK || deleted || b.length == 0) {
            b.release(&b);
            continue;
        }
        if (xp_add_batch(x, &b) != 0) {
            st = xp_nomem(err);
            break;
        }
    }
    s.release(&s);
    return st;
}

/* An offset the changefeed can no longer serve: a typed error that says
 * what to do. */
static hl_status offset_expired(struct export_run *e, int64_t offset, int64_t floor,
                                struct hl_error *err)
{
    snprintf(e->res->error_kind, sizeof e->res->error_kind, "export_offset_expired");
    return xp_fail(err, HL_ERR_EXPIRED, "export_offset_expired",
                   "the export's offset (snapshot %lld) is below the catalog's expiry floor "
                   "(snapshot %lld): the rows in between are gone from the changefeed; run again "
                   "with --restart to re-export the table's live rows to %s",
                   (long long)offset, (long long)floor, e->x.loc);
}

/* The rows committed after `from` (up to the head, which sets to_snapshot). */
static hl_status read_changes(struct export_run *e, int64_t from, struct hl_error *err)
{
    struct ArrowArrayStream s;
    hl_status st = hl_table_scan_changes(e->x.t, from, -1, &s, &e->res->to_snapshot, err);
    return st == HL_OK ? drain(&e->x, &s, &e->deletes, err) : st;
}

/* The table's expiry floor: the earliest snapshot reads can still see. */
static hl_status expiry_floor(hl_table *t, int64_t *floor, struct hl_error *err)
{
    char *text = NULL;
    hl_status st = hl_catalog_options(hl_table_catalog(t), &text, err);
    if (st != HL_OK)
        return st;
    json_t *o = json_loads(text, 0, NULL);
    free(text);
    const json_t *v = json_object_get(o, "earliest_snapshot_id");
    if (json_is_integer(v))
        *floor = (int64_t)json_integer_value(v);
    else
        st = xp_fail(err, HL_ERR_PROTOCOL, "protocol", "the catalog options lack the floor");
    json_decref(o);
    return st;
}

/* The Table object at `snapshot` (NULL with *absent set when no table of
 * that name existed there). */
static hl_status table_at(hl_table *t, int64_t snapshot, json_t **info, bool *absent,
                          struct hl_error *err)
{
    *info = NULL;
    *absent = false;
    struct hl_at at = {snapshot, NULL};
    char *text = NULL;
    hl_status st = hl_table_info(t, &at, &text, err);
    if (st == HL_ERR_NOT_FOUND) {
        *absent = true;
        return HL_OK;
    }
    if (st != HL_OK)
        return st;
    *info = json_loads(text, 0, NULL);
    free(text);
    return *info ? HL_OK : xp_nomem(err);
}

/* The positions a scan file's deletion vector deletes (none without one). */
static hl_status floor_vector(struct exporter *x, const json_t *dv, const char *path, int64_t rows,
                              struct lake_dv *out, struct hl_error *err)
{
    if (!dv || json_is_null(dv))
        return HL_OK;
    const char *dv_path = json_string_value(json_object_get(dv, "path"));
    int64_t size = 0, count = 0;
    xp_json_long(dv, "file_size_bytes", &size);
    xp_json_long(dv, "delete_count", &count);
    if (!dv_path || size <= 0)
        return xp_fail(err, HL_ERR_PROTOCOL, "protocol",
                       "the scan plan gives %s a deletion vector without a path or size", path);
    struct buf file = BUF_INIT;
    if (objstore_get_sized(x->store, dv_path, (uint64_t)size, &file, err) != 0)
        return err ? err->status : HL_ERR_IO;
    struct error pe;
    int rc =
        lake_puffin_load_dv((const uint8_t *)file.data, file.len, path, (uint64_t)rows, out, &pe);
    buf_free(&file);
    if (rc != 0)
        return pe.code == ERR_NOMEM
                   ? xp_nomem(err)
                   : xp_fail(err, HL_ERR_IO, "corrupt_delete_file", "%s: %s", dv_path, pe.msg);
    return (int64_t)out->n == count
               ? HL_OK
               : xp_fail(err, HL_ERR_IO, "corrupt_delete_file",
                         "%s: the vector of %s holds %zu positions, the catalog says %lld", dv_path,
                         path, out->n, (long long)count);
}

/* The rows of one file of the floor's scan plan, with their ids (info
 * reads the file's own, if it stores them, into _row_id; else they are
 * row_id_start + position), less the rows its deletion vector deletes:
 * read without the vector, so positions stay known. */
static hl_status read_floor_file(struct exporter *x, const json_t *info, const json_t *scan_file,
                                 struct hl_error *err)
{
    json_t *df = json_object_get(scan_file, "data_file");
    const char *path = json_string_value(json_object_get(df, "path"));
    int64_t start = 0, rows = 0, position = 0;
    if (!path || !xp_json_long(df, "row_id_start", &start) ||
        !xp_json_long(df, "record_count", &rows))
        return xp_fail(err, HL_ERR_PROTOCOL, "protocol",
                       "the scan plan has a file without a path, row_id_start or record_count");
    struct lake_dv dv;
    lake_dv_init(&dv);
    hl_status st = floor_vector(x, json_object_get(scan_file, "delete_file"), path, rows, &dv, err);
    json_t *plan = st == HL_OK ? json_pack("[{s:O}]", "data_file", df) : NULL;
    if (st == HL_OK && !plan)
        st = xp_nomem(err);
    struct ArrowArrayStream s;
    if (st == HL_OK && (st = hl_table_read_plan(x->t, info, plan, &s, err)) == HL_OK) {
        while (st == HL_OK) {
            struct ArrowArray b;
            if (s.get_next(&s, &b) != 0) {
                st = xp_fail(err, HL_ERR_IO, "io", "reading %s: %s", path,
                             s.get_last_error(&s) ? s.get_last_error(&s) : "failed");
                break;
            }
            if (!b.release)
                break;
            uint64_t dropped = 0;
            struct error fe;
            if (xp_fill_long(&b, b.n_children - 1, start + position, 1, NULL, NULL) != 0 ||
                rows_drop_deleted(&x->schema, &b, (uint64_t)position, &dv, &dropped, &fe) != 0) {
                b.release(&b);
                st = xp_nomem(err);
                break;
            }
            position += b.length + (int64_t)dropped;
            if (b.length == 0)
                b.release(&b);
            else if (xp_add_batch(x, &b) != 0)
                st = xp_nomem(err);
        }
        s.release(&s);
    }
    lake_dv_free(&dv);
    return st;
}

/* A bootstrap: the rows live at the floor (when this incarnation of the
 * table existed there; created later, it had none), read with the table's
 * definition at the head, then the changefeed from the floor. Nothing of
 * the history before the floor is needed. The floor's rows come first in
 * x->batches, so a row the changes delete is taken out of them (an update
 * inside the window inserts its new version, which stays). */
static hl_status read_bootstrap(struct export_run *e, int64_t floor, struct hl_error *err)
{
    struct exporter *x = &e->x;
    e->res->bootstrapped = true;
    e->res->bootstrap_snapshot = floor;
    hl_status st = read_changes(e, floor, err);
    json_t *then = NULL, *now = NULL;
    bool absent = false, gone_now = false;
    if (st == HL_OK)
        st = table_at(x->t, floor, &then, &absent, err);
    const char *uuid_then = json_string_value(json_object_get(then, "table_uuid"));
    if (st != HL_OK || absent || !uuid_then || strcmp(uuid_then, hl_table_uuid(x->t)) != 0) {
        json_decref(then);
        return st; /* created after the floor: the changefeed holds every row */
    }
    json_decref(then);
    /* The changes go after the floor's rows. */
    struct ArrowArray *changes = x->batches;
    size_t nchanges = x->nbatches;
    x->batches = NULL;
    x->nbatches = x->batch_cap = 0;
    x->rows = 0;
    st = table_at(x->t, e->res->to_snapshot, &now, &gone_now, err);
    if (st == HL_OK && gone_now)
        st = xp_fail(err, HL_ERR_NOT_FOUND, "not_found", "%s was dropped during the export",
                     x->qualified);
    if (st == HL_OK)
        st = xp_info_add_long(now, "_row_id", LAKE_ROW_ID_FIELD_ID, 1 << 20, err);
    char *plan_text = NULL;
    struct hl_at at = {floor, NULL};
    if (st == HL_OK)
        st = hl_table_scan_plan(x->t, &at, &plan_text, err);
    json_t *plan = plan_text ? json_loads(plan_text, 0, NULL) : NULL;
    free(plan_text);
    if (st == HL_OK && !plan)
        st = xp_nomem(err);
    size_t i;
    const json_t *file;
    json_array_foreach (plan, i, file) {
        if (st == HL_OK)
            st = read_floor_file(x, now, file, err);
    }
    json_decref(plan);
    json_decref(now);
    for (size_t k = 0; k < nchanges; k++) {
        if (st == HL_OK && xp_add_batch(x, &changes[k]) != 0)
            st = xp_nomem(err);
        else if (st != HL_OK)
            changes[k].release(&changes[k]);
    }
    free(changes);
    return st;
}

/* ---- ownership: an Iceberg location belongs to one hoglake table ---- */

/* The table uuid the Iceberg table belongs to: its properties, else (an
 * export from before they were written) its newest export's summary. */
static const char *owner_of(const struct ice_meta *m)
{
    const char *uuid = ice_meta_property(m, PROP_TABLE_UUID);
    const json_t *snap = uuid ? NULL : ice_meta_find_summary_key(m, SUMMARY_TABLE);
    return uuid ? uuid : snap ? ice_snapshot_summary(snap, SUMMARY_TABLE) : NULL;
}

/* HL_OK when m is this table's, has no owner yet, or is being adopted
 * (*adopting then set); else the typed refusal, with nothing written. */
static hl_status check_owner(struct export_run *e, const struct ice_meta *m, bool *adopting,
                             struct hl_error *err)
{
    const char *owner = owner_of(m), *ours = hl_table_uuid(e->x.t);
    *adopting = false;
    if (!owner || strcmp(owner, ours) == 0)
        return HL_OK;
    if (e->o->adopt) {
        *adopting = true;
        return HL_OK;
    }
    const char *name = ice_meta_property(m, PROP_TABLE);
    snprintf(e->res->error_kind, sizeof e->res->error_kind, "iceberg_target_owned_by_other_table");
    return xp_fail(err, HL_ERR_CONFLICT, "iceberg_target_owned_by_other_table",
                   "the Iceberg table at %s belongs to hoglake table %s (uuid %s), not to %s (uuid "
                   "%s); export to another location, or, if %s was recreated, pass --adopt to "
                   "re-export it there",
                   e->x.loc, name ? name : "(name not recorded)", owner, e->x.qualified, ours,
                   e->x.qualified);
}

/* The properties that record the owner. */
static json_t *owner_properties(const struct exporter *x)
{
    return json_pack("{s:s, s:s, s:s}", PROP_TABLE_UUID, hl_table_uuid(x->t), PROP_TABLE,
                     x->qualified, PROP_CATALOG, hl_catalog_name(hl_table_catalog(x->t)));
}

/* ---- the commit ---- */

/* The source window a loaded table's newest export recorded, when it is
 * this table's: *to = -1 when none. */
static void recorded_window(const struct ice_meta *m, const char *table_uuid, int64_t *to)
{
    *to = -1;
    const json_t *snap = ice_meta_find_summary_key(m, SUMMARY_TO);
    const char *uuid = snap ? ice_snapshot_summary(snap, SUMMARY_TABLE) : NULL;
    const char *text = snap ? ice_snapshot_summary(snap, SUMMARY_TO) : NULL;
    if (uuid && text && strcmp(uuid, table_uuid) == 0)
        *to = strtoll(text, NULL, 10);
}

/* A count of the snapshot's summary (0 when it has none). */
static int64_t summary_count(const json_t *snapshot, const char *key)
{
    const char *text = ice_snapshot_summary(snapshot, key);
    long long n = text ? strtoll(text, NULL, 10) : 0;
    return n > 0 ? (int64_t)n : 0;
}

/* One attempt: the manifest list and version+1 on top of what is there. */
/* The manifests a run writes: its data files', its delete files' (with
 * the live delete files it keeps). uri[0] empty: none. */
struct run_manifests {
    char uri[2][4096];
    int64_t len[2];
    struct ice_manifest_summary summary[2];
};

/* The manifest list's records: the parent's (a run that writes delete
 * files keeps only its data manifests: its delete manifest lists every
 * live delete file), then the run's. */
static json_t *list_records(struct export_run *e, const struct ice_meta *m, bool overwrite,
                            const struct ice_manifest_spec *spec, const struct run_manifests *rm,
                            int64_t snapshot_id, int64_t seq, struct hl_error *err, hl_status *st)
{
    struct exporter *x = &e->x;
    json_t *records = NULL;
    const char *parent_list =
        m->current_snapshot && !overwrite
            ? json_string_value(json_object_get(m->current_snapshot, "manifest-list"))
            : NULL;
    if (parent_list) {
        struct buf b = BUF_INIT;
        struct error ae;
        if (objstore_get(x->store, parent_list, 0, UINT64_MAX, &b, err) != 0)
            *st = err ? err->status : HL_ERR_IO;
        else if (ice_manifest_list_read(b.data, b.len, &records, &ae) != 0)
            *st = error_publish(err, HL_ERR_INTERNAL, &ae, "iceberg manifest");
        buf_free(&b);
    } else {
        records = json_array();
    }
    if (*st != HL_OK) {
        json_decref(records);
        return NULL;
    }
    for (size_t i = json_array_size(records); rm->uri[1][0] && i-- > 0;) {
        if (json_integer_value(json_object_get(json_array_get(records, i), "content")) != 0)
            json_array_remove(records, i);
    }
    for (int k = 0; records && k < 2; k++) {
        if (!rm->uri[k][0])
            continue;
        struct ice_manifest_spec ks = *spec;
        ks.deletes = k == 1;
        json_t *rec = ice_manifest_file_record(&ks, rm->uri[k], rm->len[k], snapshot_id, seq,
                                               m->next_row_id, &rm->summary[k]);
        if (!rec || json_array_append_new(records, rec) != 0) {
            json_decref(records);
            records = NULL;
        }
    }
    if (!records)
        *st = xp_nomem(err);
    return records;
}

/* What the snapshot says of the run's delete files. */
static void delete_counts(const struct export_run *e, bool overwrite, const json_t *parent,
                          struct ice_snapshot_add *add)
{
    const struct xp_deletes *d = &e->deletes;
    if (overwrite) { /* every live delete file goes with the files it names */
        add->removed_delete_files = summary_count(parent, "total-delete-files");
        add->removed_position_deletes = summary_count(parent, "total-position-deletes");
        return;
    }
    add->added_delete_files = (int64_t)d->nfiles;
    add->added_position_deletes = d->added_positions;
    add->added_dvs = e->x.format_version >= 3 ? (int64_t)d->nfiles : 0;
    add->removed_delete_files = d->removed_files;
    add->removed_position_deletes = d->removed_positions;
    add->removed_dvs = d->removed_dvs;
}

static hl_status commit_attempt(struct export_run *e, struct ice_meta *m, int64_t version,
                                int attempt, const struct ice_manifest_spec *spec,
                                const struct run_manifests *rm, struct hl_error *err)
{
    struct exporter *x = &e->x;
    struct error ie;
    json_t *props = owner_properties(x);
    if (!props)
        return xp_nomem(err);
    hl_status st = HL_OK;
    bool adopting, changed;
    if (version == 0) {
        char uuid[37];
        struct ice_new_table nt = {x->format_version, uuid,          x->loc, x->schema_json,
                                   x->spec_json,      x->order_json, props,  xp_now_ms()};
        if (random_uuid4(uuid) != 0)
            st = xp_fail(err, HL_ERR_INTERNAL, "internal", "no randomness for a table uuid");
        else if (ice_meta_create(m, &nt, &ie) != 0)
            st = error_publish(err, HL_OK, &ie, "iceberg metadata");
    } else if ((st = check_owner(e, m, &adopting, err)) == HL_OK &&
               (ice_meta_set_schema(m, x->schema_json, &changed, &ie) != 0 ||
                ice_meta_set_properties(m, props, &changed, &ie) != 0)) {
        st = error_publish(err, HL_OK, &ie, "iceberg metadata");
    }
    json_decref(props);
    if (st == HL_OK)
        st = xp_apply_sort_order(x, m, err);
    if (st != HL_OK)
        return st;
    /* A bootstrap onto a table that has rows replaces them all. */
    bool overwrite = e->res->bootstrapped && m->current_snapshot;
    /* Deletes were located in one snapshot's files: they must still be
     * the live ones (another writer's compaction would have moved them). */
    if (e->deletes.nfiles && m->current_snapshot_id != e->deletes.against_snapshot)
        return xp_fail(err, HL_ERR_CONFLICT, "conflict",
                       "the Iceberg table at %s changed while this run located the rows it "
                       "deletes; run it again",
                       x->loc);
    int64_t snapshot_id, seq = ice_meta_next_sequence_number(m);
    if (ice_meta_pick_snapshot_id(m, &snapshot_id, &ie) != 0)
        return error_publish(err, HL_OK, &ie, "iceberg metadata");
    json_t *records = list_records(e, m, overwrite, spec, rm, snapshot_id, seq, err, &st);
    /* The writer takes the last record apart. */
    size_t nrec = json_array_size(records);
    json_t *added = nrec ? json_incref(json_array_get(records, nrec - 1)) : NULL;
    if (added)
        json_array_remove(records, nrec - 1);
    else if (st == HL_OK)
        st = xp_fail(err, HL_ERR_INTERNAL, "internal", "a snapshot without a manifest");
    json_t *parent = records;
    char uuid[37], list_uri[4096];
    struct buf list = BUF_INIT;
    if (st == HL_OK && random_uuid4(uuid) != 0)
        st = xp_fail(err, HL_ERR_INTERNAL, "internal", "no randomness for a file name");
    if (st == HL_OK) {
        snprintf(list_uri, sizeof list_uri, "%s/metadata/snap-%" PRId64 "-%d-%s.avro", x->loc,
                 snapshot_id, attempt, uuid);
        struct error ae;
        int64_t parent_id = m->has_current_snapshot ? m->current_snapshot_id : -1;
        if (ice_manifest_list_write(x->format_version, snapshot_id, parent_id, seq, m->next_row_id,
                                    parent, added, &list, &ae) != 0)
            st = error_publish(err, HL_ERR_INTERNAL, &ae, "iceberg manifest");
    }
    if (st == HL_OK)
        st = xp_put_object(x, list_uri, &list, err);
    buf_free(&list);
    json_decref(added);
    json_decref(parent);
    if (st != HL_OK)
        return st;

    char from[24], to[24], boot[24], previous[4096];
    snprintf(from, sizeof from, "%" PRId64, e->res->from_snapshot);
    snprintf(to, sizeof to, "%" PRId64, e->res->to_snapshot);
    snprintf(boot, sizeof boot, "%" PRId64, e->res->bootstrap_snapshot);
    struct ice_summary_kv extra[] = {{SUMMARY_TABLE, hl_table_uuid(x->t)},
                                     {SUMMARY_FROM, from},
                                     {SUMMARY_TO, to},
                                     {SUMMARY_BOOTSTRAP, boot}};
    struct ice_snapshot_add add;
    st = xp_snapshot_add(x, version, snapshot_id, list_uri, previous, sizeof previous, &add, err);
    if (st != HL_OK)
        return st;
    add.operation = overwrite || (x->nfiles && e->deletes.nfiles) ? ICE_OP_OVERWRITE
                    : e->deletes.nfiles                           ? ICE_OP_DELETE
                                                                  : ICE_OP_APPEND;
    if (overwrite) {
        add.removed_data_files = summary_count(m->current_snapshot, "total-data-files");
        add.deleted_records = summary_count(m->current_snapshot, "total-records");
        add.removed_files_size = summary_count(m->current_snapshot, "total-files-size");
    }
    delete_counts(e, overwrite, m->current_snapshot, &add);
    /* v3: the rows' ids are hoglake's; next-row-id moves past them, so no
     * id a later writer's rows inherit is one of theirs. */
    add.added_rows = x->rows;
    if (x->max_row_id >= m->next_row_id + add.added_rows)
        add.added_rows = x->max_row_id + 1 - m->next_row_id;
    add.extra = extra;
    add.nextra = sizeof extra / sizeof extra[0] - (e->res->bootstrapped ? 0 : 1);
    if (ice_meta_add_snapshot(m, &add, &ie) != 0)
        return error_publish(err, HL_OK, &ie, "iceberg metadata");
    char *text = ice_meta_dumps(m);
    if (!text)
        return xp_nomem(err);
    if (attempt == 0 && xp_failpoint_rival(x, version) != 0) {
        free(text);
        return xp_fail(err, HL_ERR_INTERNAL, "internal", "the lost-race failpoint failed");
    }
    int rc = iceberg_commit_version(x->store, x->loc, version + 1, text, strlen(text), err);
    free(text);
    if (rc != 0)
        return err ? err->status : HL_ERR_IO;
    e->res->iceberg_snapshot_id = snapshot_id;
    return HL_OK;
}

/* Writes the run's manifests: its data files', and when it deletes, the
 * delete manifest (the live delete files it keeps, then its own). */
static hl_status write_manifests(struct export_run *e, const struct ice_manifest_spec *spec,
                                 struct run_manifests *rm, struct hl_error *err)
{
    struct exporter *x = &e->x;
    char uuid[37];
    hl_status st = HL_OK;
    memset(rm, 0, sizeof *rm);
    if (x->nfiles)
        st = xp_write_manifest(x, spec, uuid, rm->uri[0], sizeof rm->uri[0], &rm->summary[0],
                               &rm->len[0], err);
    if (st != HL_OK || !e->deletes.nfiles)
        return st;
    struct ice_manifest_spec ds = *spec;
    ds.deletes = true;
    struct buf out = BUF_INIT;
    struct error ae;
    if (random_uuid4(uuid) != 0)
        return xp_fail(err, HL_ERR_INTERNAL, "internal", "no randomness for a file name");
    if (ice_manifest_write_existing(&ds, e->deletes.carried, e->deletes.files, e->deletes.nfiles,
                                    &out, &rm->summary[1], &ae) != 0)
        st = error_publish(err, HL_ERR_INTERNAL, &ae, "iceberg manifest");
    snprintf(rm->uri[1], sizeof rm->uri[1], "%s/metadata/%s-m1.avro", x->loc, uuid);
    if (st == HL_OK)
        st = xp_put_object(x, rm->uri[1], &out, err);
    rm->len[1] = (int64_t)out.len;
    buf_free(&out);
    return st;
}

static hl_status commit(struct export_run *e, struct hl_error *err)
{
    struct exporter *x = &e->x;
    struct ice_manifest_spec spec = {
        .format_version = x->format_version,
        .schema_id = 0,
        .spec_id = 0,
        .day_field_id = 1000,
    };
    char *schema_text = json_dumps(x->schema_json, JSON_COMPACT);
    char *fields_text = json_dumps(json_object_get(x->spec_json, "fields"), JSON_COMPACT);
    spec.schema_json = schema_text;
    spec.spec_fields_json = fields_text;
    spec.day_field_name =
        x->day_col ? json_string_value(json_object_get(
                         json_array_get(json_object_get(x->spec_json, "fields"), 0), "name"))
                   : NULL;
    hl_status st = schema_text && fields_text ? HL_OK : xp_nomem(err);
    struct run_manifests rm;
    if (st == HL_OK)
        st = write_manifests(e, &spec, &rm, err);
    for (int attempt = 0; st == HL_OK; attempt++) {
        struct ice_meta m;
        int64_t version;
        st = xp_load_iceberg(x, &m, &version, err);
        int64_t landed;
        /* (--restart replaces what is there, whatever window it holds.) */
        if (st == HL_OK && version > 0 && !e->o->restart) {
            recorded_window(&m, hl_table_uuid(x->t), &landed);
            if (landed >= e->res->to_snapshot) {
                /* Another run exported this window while we wrote. */
                e->res->reconciled = true;
                ice_meta_free(&m);
                xp_unstage(x);
                break;
            }
        }
        struct span *span = NULL;
        if (st == HL_OK && version == 0) {
            span = span_start(x->tracer, "iceberg.table.create", NULL);
            xp_span_layout(x, span);
        }
        struct span *commit_span = span_start(x->tracer, "iceberg.snapshot.commit", span);
        xp_span_layout(x, commit_span);
        if (st == HL_OK)
            st = commit_attempt(e, &m, version, attempt, &spec, &rm, err);
        span_attr_int(commit_span, "rows", x->rows);
        span_attr_int(commit_span, "files", (int64_t)x->nfiles);
        span_attr_int(commit_span, "delete_files", (int64_t)e->deletes.nfiles);
        if (st == HL_OK) {
            span_attr_int(commit_span, "iceberg.snapshot_id", e->res->iceberg_snapshot_id);
            e->res->created = version == 0;
        } else if (st != HL_ERR_ALREADY_EXISTS || attempt + 1 >= COMMIT_ATTEMPTS) {
            span_fail(commit_span, "error", err ? err->message : "failed");
            span_fail(span, "error", err ? err->message : "failed");
        }
        span_end(commit_span);
        span_end(span);
        ice_meta_free(&m);
        if (st == HL_ERR_ALREADY_EXISTS && attempt + 1 < COMMIT_ATTEMPTS) {
            st = HL_OK; /* another writer's version landed first: reload, retry */
            continue;
        }
        break;
    }
    free(schema_text);
    free(fields_text);
    return st;
}

/* ---- the run ---- */

/* The largest row id the run exports (x->max_row_id). */
static void max_row_id(struct exporter *x)
{
    for (size_t b = 0; b < x->nbatches; b++) {
        const struct ArrowArray *c = x->batches[b].children[x->batches[b].n_children - 1];
        const int64_t *v = c->buffers[1];
        for (int64_t r = 0; r < c->length; r++)
            if (v[c->offset + r] > x->max_row_id)
                x->max_row_id = v[c->offset + r];
    }
}

hl_status ice_export_run(hl_table *t, const struct ice_export_options *o,
                         struct ice_export_result *res, struct hl_error *err)
{
    memset(res, 0, sizeof *res);
    res->iceberg_snapshot_id = -1;
    res->to_snapshot = -1;
    res->bootstrap_snapshot = -1;
    if (!o)
        return xp_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument", "no options");
    if (o->format_version != 0 && o->format_version != 2 && o->format_version != 3)
        return xp_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                       "format version %d: 2 or 3", o->format_version);
    struct export_run e = {.x = {.t = t, .tracer = o->tracer}, .o = o, .res = res};
    struct exporter *x = &e.x;
    hl_status st = xp_open(x, o->location, err);
    if (st == HL_OK && ice_export_consumer_id(x->loc, e.consumer) != 0)
        st = xp_nomem(err);

    /* The target first: its format version, its owner, and its record of
     * the last window exported (which wins over a lagging offset). */
    struct ice_meta m;
    int64_t version = 0;
    memset(&m, 0, sizeof m);
    if (st == HL_OK)
        st = xp_load_iceberg(x, &m, &version, err);
    res->format_version = version > 0         ? m.format_version
                          : o->format_version ? o->format_version
                                              : 3;
    x->format_version = res->format_version;
    if (st == HL_OK)
        st = xp_load_table(x, err);
    /* Every file carries its rows' hoglake ids, bounded in the manifest
     * (test-only failpoint "iceberg-no-row-id-bounds": files as exports
     * before this wrote them, without bounds). */
    x->row_id_bounds = !failpoint_on("iceberg-no-row-id-bounds");
    x->max_row_id = -1;
    if (st == HL_OK)
        st = xp_add_lineage_columns(x, false, err);
    snprintf(res->partition_spec, sizeof res->partition_spec, "%s", x->partition_spec);
    snprintf(res->sort_order, sizeof res->sort_order, "%s", x->sort_order);
    bool adopting = false;
    if (st == HL_OK && version > 0)
        st = check_owner(&e, &m, &adopting, err);
    res->adopted = adopting;
    int64_t offset = -1, landed = -1, floor = 0;
    if (st == HL_OK)
        st = hl_catalog_offset(hl_table_catalog(t), e.consumer, hl_table_uuid(t), &offset, err);
    if (st == HL_OK && version > 0) {
        recorded_window(&m, hl_table_uuid(t), &landed);
        if (landed > offset) {
            st = hl_catalog_commit_offset(hl_table_catalog(t), e.consumer, hl_table_uuid(t), landed,
                                          err);
            offset = landed;
            res->reconciled = true;
        }
        /* The layout must not drift: a new layout is a new table. */
        char describe[300];
        if (st == HL_OK && ice_spec_compare(x->spec_json, m.default_spec, &x->table, describe,
                                            sizeof describe) != ICE_SPEC_SAME) {
            snprintf(res->error_kind, sizeof res->error_kind, "iceberg_partition_spec_drift");
            struct span *s = span_start(o->tracer, "iceberg.snapshot.commit", NULL);
            xp_span_layout(x, s);
            span_fail(s, "iceberg_partition_spec_drift", describe);
            span_end(s);
            st = xp_fail(err, HL_ERR_CONFLICT, "iceberg_partition_spec_drift",
                         "the table's partitioning drifted from the Iceberg table's: %s; export to "
                         "a new location",
                         describe);
        }
    }
    /* The order the files are sorted by, as the table will record it. */
    if (st == HL_OK)
        st = xp_apply_sort_order(x, version > 0 ? &m : NULL, err);
    if (st == HL_OK)
        st = expiry_floor(t, &floor, err);
    /* A new export, an adopted location, or (asked for) an offset the
     * changefeed no longer serves: the live rows first. */
    bool expired = offset >= 0 && offset < floor;
    if (st == HL_OK && expired && !o->restart && !adopting)
        st = offset_expired(&e, offset, floor, err);
    res->from_snapshot = offset < 0 ? floor : offset;
    if (st == HL_OK && (offset < 0 || adopting || expired || o->restart)) {
        res->from_snapshot = floor;
        st = read_bootstrap(&e, floor, err);
    } else if (st == HL_OK) {
        st = read_changes(&e, offset, err);
        /* The floor moved past the offset meanwhile. */
        if (st == HL_ERR_EXPIRED && expiry_floor(t, &floor, err) == HL_OK)
            st = offset_expired(&e, offset, floor, err);
    }
    /* The deleted rows: in the Iceberg table's files (not a bootstrap's:
     * it replaces them), else among the rows this run exports. */
    if (st == HL_OK)
        st = xp_deletes_locate(x, &e.deletes, res->bootstrapped ? NULL : &m, err);
    ice_meta_free(&m);
    res->rows = x->rows;
    res->rows_deleted = 0;
    for (size_t i = 0; e.deletes.added && i < e.deletes.live.ndata; i++)
        res->rows_deleted += (int64_t)e.deletes.added[i].n;
    if (st == HL_OK && res->rows == 0 && res->rows_deleted == 0)
        res->nothing_new = true;
    max_row_id(x);
    if (st == HL_OK && !res->nothing_new)
        st = xp_group_rows(x, err);
    for (size_t i = 0; st == HL_OK && !res->nothing_new && i < x->ngroups; i++)
        st = xp_write_group(x, &x->groups[i], err);
    if (st == HL_OK && !res->nothing_new)
        st = xp_deletes_write(x, &e.deletes, err);
    res->files = (int64_t)x->nfiles;
    res->delete_files = (int64_t)e.deletes.nfiles;
    if (st == HL_OK && !res->nothing_new)
        st = commit(&e, err);
    if (st != HL_OK && !res->nothing_new && res->iceberg_snapshot_id < 0)
        xp_unstage(x);
    /* The offset follows the Iceberg commit; should it fail now, the next
     * run reconciles from the snapshot summary. A run with nothing new
     * moves it too, so a quiet table never holds the catalog's consumer
     * floor longer than its own schedule. */
    if (st == HL_OK && res->to_snapshot > offset) {
        st = hl_catalog_commit_offset(hl_table_catalog(t), e.consumer, hl_table_uuid(t),
                                      res->to_snapshot, err);
        res->offset_advanced = st == HL_OK && res->nothing_new;
    }
    xp_deletes_free(&e.deletes);
    xp_exporter_free(x);
    return st;
}
