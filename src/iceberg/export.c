/* The incremental Iceberg export of a table (see export.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "client/append.h"
#include "client/internal.h"
#include "client/tableinfo.h"
#include "iceberg/export.h"
#include "iceberg/manifest.h"
#include "iceberg/metadata.h"
#include "iceberg/table_io.h"
#include "lake/partition.h"
#include "objstore/objstore.h"
#include "parquet/colstats.h"
#include "parquet/writer.h"
#include "rows/rows_schema.h"
#include "rows/rows_sort.h"
#include "util/arena.h"
#include "util/sha256.h"
#include "util/spans.h"
#include "util/timefmt.h"

/* Rows per slice handed to the Parquet writer from the sorted order. */
enum { TAKE_ROWS = 65536, COMMIT_ATTEMPTS = 8 };

#define SUMMARY_TABLE "hoglake.table-uuid"
#define SUMMARY_FROM "hoglake.source-snapshot-from"
#define SUMMARY_TO "hoglake.source-snapshot-to"

/* The rows of one day (or of the whole table, unpartitioned). */
struct day_group {
    bool null_day;
    int32_t day;
    struct rows_ref *refs;
    size_t n, cap;
};

struct exporter {
    hl_table *t;
    const struct ice_export_options *o;
    struct ice_export_result *res;
    struct objstore *store;
    char loc[2048]; /* no trailing slash */
    char consumer[48];
    struct arena arena; /* the table definition and footer statistics */
    struct lake_table table;
    const struct lake_column *day_col;
    struct lake_sort_field *keys;
    size_t nkeys;
    json_t *schema_json, *spec_json, *order_json;
    /* the source rows */
    struct ArrowSchema schema;
    struct ArrowArray *batches;
    size_t nbatches, batch_cap;
    struct day_group *groups;
    size_t ngroups, group_cap;
    /* what this run wrote */
    struct ice_data_file *files;
    size_t nfiles, file_cap;
    char **staged; /* every object written, for cleanup on failure */
    size_t nstaged, staged_cap;
};

static hl_status fail(struct hl_error *err, hl_status st, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static hl_status fail(struct hl_error *err, hl_status st, const char *code, const char *fmt, ...)
{
    char msg[HL_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return client_fail(err, st, code, "%s", msg);
}

static hl_status icemeta_status(const struct icemeta_err *e, struct hl_error *err)
{
    hl_status st = e->kind == ICEMETA_ERR_NOMEM         ? HL_ERR_NOMEM
                   : e->kind == ICEMETA_ERR_UNSUPPORTED ? HL_ERR_NOT_IMPLEMENTED
                   : e->kind == ICEMETA_ERR_MALFORMED   ? HL_ERR_PROTOCOL
                                                        : HL_ERR_VALIDATION;
    return fail(err, st, icemeta_err_kind_name(e->kind), "iceberg metadata: %s", e->msg);
}

static hl_status avro_status(const struct avro_error *e, struct hl_error *err)
{
    return fail(err, e->code == AVRO_ERR_NOMEM ? HL_ERR_NOMEM : HL_ERR_INTERNAL, "avro",
                "iceberg manifest: %s", e->msg);
}

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

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int stage(struct exporter *x, const char *uri)
{
    if (x->nstaged == x->staged_cap) {
        size_t cap = x->staged_cap ? x->staged_cap * 2 : 16;
        char **p = realloc(x->staged, cap * sizeof *p);
        if (!p)
            return -1;
        x->staged = p;
        x->staged_cap = cap;
    }
    if (!(x->staged[x->nstaged] = strdup(uri)))
        return -1;
    x->nstaged++;
    return 0;
}

/* Removes what this run wrote (it never became part of the table). */
static void unstage(struct exporter *x)
{
    if (x->nstaged == 0)
        return;
    struct hl_error e;
    if (objstore_delete(x->store, (const char *const *)x->staged, x->nstaged, NULL, &e) != 0)
        fprintf(stderr, "hoglake: iceberg export: could not remove the files it wrote: %s\n",
                e.message);
}

/* ---- the table and its export layout ---- */

static bool exportable(const struct lake_column *c, char *why, size_t size)
{
    switch (c->type) {
    case LT_UINT64:
    case LT_TIMESTAMP_S:
    case LT_TIMESTAMP_MS:
    case LT_VARIANT:
        /* Their Parquet form (unsigned INT64, milliseconds, native VARIANT)
         * is not the Iceberg type's. */
        snprintf(why, size, "column '%s' is %s, which the Iceberg export does not write yet",
                 c->name, lake_type_name(c->type));
        return false;
    default: break;
    }
    for (size_t i = 0; i < c->nchildren; i++) {
        if (!exportable(c->children[i], why, size))
            return false;
    }
    return true;
}

static hl_status load_table(struct exporter *x, struct hl_error *err)
{
    char *text = NULL;
    hl_status st = hl_table_info(x->t, NULL, &text, err);
    if (st != HL_OK)
        return st;
    json_t *info = json_loads(text, 0, NULL);
    free(text);
    if (!info)
        return client_nomem(err);
    st = client_table_from_info(info, &x->table, err);
    const char *primary = json_string_value(json_object_get(info, "primary_timestamp_column"));
    for (size_t i = 0; st == HL_OK && primary && i < x->table.root.nchildren; i++) {
        const struct lake_column *c = x->table.root.children[i];
        if (strcmp(c->name, primary) == 0 && lake_type_is_temporal(c->type))
            x->day_col = c;
    }
    json_decref(info);
    char why[300];
    if (st == HL_OK && !exportable(&x->table.root, why, sizeof why))
        st = fail(err, HL_ERR_NOT_IMPLEMENTED, "not_implemented", "%s", why);
    if (st != HL_OK)
        return st;
    /* The lookup key: the sort order, else the identity partition sources. */
    if (x->table.sorted) {
        x->keys = x->table.sort_fields;
        x->nkeys = x->table.nsort_fields;
    } else if (x->table.partitioned) {
        x->keys = arena_calloc(&x->arena, x->table.nspec_fields + 1, sizeof *x->keys);
        if (!x->keys)
            return client_nomem(err);
        for (size_t i = 0; i < x->table.nspec_fields; i++) {
            if (x->table.spec_fields[i].transform == LTR_IDENTITY)
                x->keys[x->nkeys++] =
                    (struct lake_sort_field){x->table.spec_fields[i].source_field_id, false, true};
        }
    }
    struct icemeta_err ie;
    int64_t max_id;
    if (!(x->schema_json = ice_schema_json(&x->table, x->res->format_version, 0, &max_id, &ie)) ||
        !(x->spec_json =
              ice_partition_spec_json(&x->table, x->day_col ? x->day_col->field_id : 0, &ie)) ||
        !(x->order_json = ice_sort_order_json(&x->table, x->keys, x->nkeys, &ie)))
        return icemeta_status(&ie, err);
    ice_spec_describe(x->spec_json, &x->table, x->res->partition_spec,
                      sizeof x->res->partition_spec);
    ice_sort_describe(x->order_json, &x->table, x->res->sort_order, sizeof x->res->sort_order);
    return HL_OK;
}

/* ---- the rows since the last export ---- */

static hl_status read_rows(struct exporter *x, struct hl_error *err)
{
    struct ArrowArrayStream s;
    hl_status st =
        hl_table_scan_changes(x->t, x->res->from_snapshot, -1, &s, &x->res->to_snapshot, err);
    if (st != HL_OK)
        return st;
    if (s.get_schema(&s, &x->schema) != 0)
        st = fail(err, HL_ERR_IO, "io", "reading the changes: %s",
                  s.get_last_error(&s) ? s.get_last_error(&s) : "no schema");
    while (st == HL_OK) {
        struct ArrowArray b;
        if (s.get_next(&s, &b) != 0) {
            st = fail(err, HL_ERR_IO, "io", "reading the changes: %s",
                      s.get_last_error(&s) ? s.get_last_error(&s) : "failed");
            break;
        }
        if (!b.release)
            break;
        if (b.length == 0) {
            b.release(&b);
            continue;
        }
        if (x->nbatches == x->batch_cap) {
            size_t cap = x->batch_cap ? x->batch_cap * 2 : 16;
            struct ArrowArray *p = realloc(x->batches, cap * sizeof *p);
            if (!p) {
                b.release(&b);
                st = client_nomem(err);
                break;
            }
            x->batches = p;
            x->batch_cap = cap;
        }
        x->batches[x->nbatches++] = b;
        x->res->rows += b.length;
    }
    s.release(&s);
    return st;
}

static struct day_group *group_for(struct exporter *x, bool null_day, int32_t day)
{
    for (size_t i = 0; i < x->ngroups; i++) {
        struct day_group *g = &x->groups[i];
        if (g->null_day == null_day && (null_day || g->day == day))
            return g;
    }
    if (x->ngroups == x->group_cap) {
        size_t cap = x->group_cap ? x->group_cap * 2 : 16;
        struct day_group *p = realloc(x->groups, cap * sizeof *p);
        if (!p)
            return NULL;
        x->groups = p;
        x->group_cap = cap;
    }
    struct day_group *g = &x->groups[x->ngroups++];
    memset(g, 0, sizeof *g);
    g->null_day = null_day;
    g->day = day;
    return g;
}

static int group_add(struct day_group *g, uint32_t batch, uint32_t row)
{
    if (g->n == g->cap) {
        size_t cap = g->cap ? g->cap * 2 : 1024;
        struct rows_ref *p = realloc(g->refs, cap * sizeof *p);
        if (!p)
            return -1;
        g->refs = p;
        g->cap = cap;
    }
    g->refs[g->n++] = (struct rows_ref){batch, row};
    return 0;
}

static int cmp_groups(const void *a, const void *b)
{
    const struct day_group *x = a, *y = b;
    if (x->null_day != y->null_day)
        return x->null_day ? 1 : -1;
    return x->day < y->day ? -1 : x->day > y->day;
}

/* Puts every row into its day's group (one group when unpartitioned). */
static hl_status group_rows(struct exporter *x, struct hl_error *err)
{
    if (!x->day_col) {
        struct day_group *g = group_for(x, true, 0);
        for (size_t b = 0; g && b < x->nbatches; b++) {
            for (int64_t r = 0; r < x->batches[b].length; r++) {
                if (group_add(g, (uint32_t)b, (uint32_t)r) != 0)
                    return client_nomem(err);
            }
        }
        return g ? HL_OK : client_nomem(err);
    }
    /* The day transform of the partition code, on a spec of one field. */
    struct lake_table by_day = x->table;
    struct lake_partition_field field = {x->day_col->field_id, LTR_DAY, 0};
    by_day.partitioned = true;
    by_day.spec_fields = &field;
    by_day.nspec_fields = 1;
    for (size_t b = 0; b < x->nbatches; b++) {
        struct lake_partition_groups pg;
        struct lake_err le;
        if (lake_partition_group_rows(&by_day, &x->schema, &x->batches[b], &pg, &le) != 0)
            return fail(err, le.kind == LAKE_ERR_NOMEM ? HL_ERR_NOMEM : HL_ERR_VALIDATION,
                        "validation", "partitioning by day: %s", le.msg);
        /* Groups are made first and indexed after: making one may move
         * the others. */
        size_t *index = calloc(pg.ngroups ? pg.ngroups : 1, sizeof *index);
        bool ok = index != NULL;
        for (size_t k = 0; ok && k < pg.ngroups; k++) {
            const char *v = pg.values[k];
            struct day_group *g = group_for(x, v == NULL, v ? (int32_t)strtol(v, NULL, 10) : 0);
            ok = g != NULL;
            if (ok)
                index[k] = (size_t)(g - x->groups);
        }
        for (int64_t r = 0; ok && r < pg.nrows; r++)
            ok = group_add(&x->groups[index[pg.group_of_row[r]]], (uint32_t)b, (uint32_t)r) == 0;
        free(index);
        lake_partition_groups_free(&pg);
        if (!ok)
            return client_nomem(err);
    }
    qsort(x->groups, x->ngroups, sizeof *x->groups, cmp_groups);
    return HL_OK;
}

/* ---- data files ---- */

/* The key paths of the lookup key (top-level columns of the batches). */
static hl_status sort_keys(struct exporter *x, struct rows_sort_key *keys, struct hl_error *err)
{
    for (size_t k = 0; k < x->nkeys; k++) {
        memset(&keys[k], 0, sizeof keys[k]);
        const struct lake_column *c = lake_table_find_field(&x->table, x->keys[k].source_field_id);
        int at = -1;
        for (size_t i = 0; c && i < x->table.root.nchildren; i++) {
            if (x->table.root.children[i] == c)
                at = (int)i;
        }
        if (at < 0)
            return fail(err, HL_ERR_NOT_IMPLEMENTED, "not_implemented",
                        "the lookup key's field %lld is not a top-level column",
                        (long long)x->keys[k].source_field_id);
        keys[k].path[0] = at;
        keys[k].depth = 1;
        keys[k].descending = x->keys[k].descending;
        keys[k].nulls_first = x->keys[k].nulls_first;
    }
    return HL_OK;
}

struct upload_sink {
    struct objstore_writer *w;
    uint64_t bytes;
    struct hl_error err;
    bool failed;
};

static int sink_write(void *ctx, const void *data, size_t len, struct pq_error *err)
{
    struct upload_sink *u = ctx;
    if (objstore_writer_write(u->w, data, len, &u->err) != 0) {
        u->failed = true;
        return pq_fail(err, PQ_ERR_IO, "%s", u->err.message);
    }
    u->bytes += len;
    return 0;
}

static int add_file(struct exporter *x, const struct ice_data_file *f)
{
    if (x->nfiles == x->file_cap) {
        size_t cap = x->file_cap ? x->file_cap * 2 : 16;
        struct ice_data_file *p = realloc(x->files, cap * sizeof *p);
        if (!p)
            return -1;
        x->files = p;
        x->file_cap = cap;
    }
    x->files[x->nfiles++] = *f;
    return 0;
}

/* Writes one group's rows, sorted, as one data file. */
static hl_status write_group(struct exporter *x, struct day_group *g, struct hl_error *err)
{
    struct rows_sort_key keys[16];
    if (x->nkeys > 16)
        return fail(err, HL_ERR_NOT_IMPLEMENTED, "not_implemented", "a lookup key of %zu columns",
                    x->nkeys);
    hl_status st = sort_keys(x, keys, err);
    if (st != HL_OK)
        return st;
    char msg[512];
    const struct ArrowArray **bp = calloc(x->nbatches, sizeof *bp);
    if (!bp)
        return client_nomem(err);
    for (size_t b = 0; b < x->nbatches; b++)
        bp[b] = &x->batches[b];
    if (x->nkeys && rows_sort(&x->schema, bp, x->nbatches, keys, x->nkeys, g->refs, g->n, msg,
                              sizeof msg) != ROWS_SORT_OK) {
        free(bp);
        return fail(err, HL_ERR_VALIDATION, "validation", "sorting by the lookup key: %s", msg);
    }
    /* <location>/data/<field>=<day>/<uuid>.parquet */
    char uuid[37], day[16] = "null", uri[4096];
    if (client_uuid4(uuid) != 0) {
        free(bp);
        return fail(err, HL_ERR_INTERNAL, "internal", "no randomness for a file name");
    }
    if (!g->null_day) {
        char iso[48];
        time_format_iso8601((int64_t)g->day * 86400 * 1000000, iso, sizeof iso);
        snprintf(day, sizeof day, "%.10s", iso);
    }
    const char *field = json_string_value(
        json_object_get(json_array_get(json_object_get(x->spec_json, "fields"), 0), "name"));
    int n = x->day_col
                ? snprintf(uri, sizeof uri, "%s/data/%s=%s/%s.parquet", x->loc, field, day, uuid)
                : snprintf(uri, sizeof uri, "%s/data/%s.parquet", x->loc, uuid);
    if (n < 0 || (size_t)n >= sizeof uri) {
        free(bp);
        return fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument", "the location is too long");
    }
    char *schema_text = json_dumps(x->schema_json, JSON_COMPACT);
    struct upload_sink up = {0};
    struct pq_writer *w = NULL;
    struct pq_error pe;
    struct pq_write_options wo;
    pq_write_options_default(&wo);
    struct pq_key_value kv = {"iceberg.schema", schema_text};
    wo.kv = &kv;
    wo.nkv = 1;
    if (!schema_text)
        st = client_nomem(err);
    else if (objstore_writer_open(x->store, uri, 0, &up.w, err) != 0)
        st = err ? err->status : HL_ERR_IO;
    else if (stage(x, uri) != 0)
        st = client_nomem(err);
    struct pq_sink sink = {sink_write, &up};
    if (st == HL_OK && pq_writer_open(&x->table, &wo, &sink, &w, &pe) != 0)
        st = fail(err, HL_ERR_INTERNAL, "internal", "opening a Parquet writer: %s", pe.msg);
    for (size_t at = 0; st == HL_OK && at < g->n; at += TAKE_ROWS) {
        size_t k = g->n - at < TAKE_ROWS ? g->n - at : TAKE_ROWS;
        struct ArrowArray taken;
        if (rows_take(&x->schema, bp, x->nbatches, g->refs + at, k, &taken, msg, sizeof msg) !=
            ROWS_SORT_OK) {
            st = fail(err, HL_ERR_INTERNAL, "internal", "gathering rows: %s", msg);
            break;
        }
        if (pq_writer_write(w, &x->schema, &taken, &pe) != 0)
            st = up.failed ? fail(err, up.err.status, "io", "uploading %s: %s", uri, up.err.message)
                           : fail(err, HL_ERR_INTERNAL, "internal", "encoding: %s", pe.msg);
        taken.release(&taken);
    }
    struct pq_write_result res;
    bool closed = false;
    if (st == HL_OK) {
        struct pq_writer *closing = w;
        w = NULL;
        if (pq_writer_close(closing, &res, &pe) != 0)
            st = fail(err, HL_ERR_IO, "io", "finishing %s: %s", uri, pe.msg);
        else
            closed = true;
    }
    struct pq_col_stats *stats = NULL;
    size_t nstats = 0;
    if (st == HL_OK && pq_footer_column_stats(&res.meta, &res.schema, &x->table, &x->arena, &stats,
                                              &nstats, &pe) != 0)
        st = fail(err, HL_ERR_INTERNAL, "internal", "statistics: %s", pe.msg);
    if (st == HL_OK) {
        struct objstore_writer *uw = up.w;
        up.w = NULL;
        if (objstore_writer_commit(uw, NULL, err) != 0)
            st = err ? err->status : HL_ERR_IO;
    }
    if (st == HL_OK) {
        struct ice_data_file f = {arena_strdup(&x->arena, uri),
                                  (int64_t)g->n,
                                  (int64_t)res.file_size,
                                  g->null_day,
                                  g->day,
                                  stats,
                                  nstats,
                                  x->nkeys ? 1 : 0};
        if (!f.path || add_file(x, &f) != 0)
            st = client_nomem(err);
    }
    if (closed)
        pq_write_result_release(&res);
    pq_writer_free(w);
    objstore_writer_abort(up.w);
    free(schema_text);
    free(bp);
    return st;
}

/* ---- the commit ---- */

static hl_status put_object(struct exporter *x, const char *uri, const struct buf *b,
                            struct hl_error *err)
{
    if (objstore_put(x->store, uri, b->data, b->len, OBJSTORE_IF_NONE_MATCH, err) != 0)
        return err ? err->status : HL_ERR_IO;
    return stage(x, uri) == 0 ? HL_OK : client_nomem(err);
}

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

static hl_status load_iceberg(struct exporter *x, struct ice_meta *m, int64_t *version,
                              struct hl_error *err)
{
    struct buf text = BUF_INIT;
    memset(m, 0, sizeof *m);
    if (iceberg_load_current(x->store, x->loc, version, &text, err) != 0) {
        buf_free(&text);
        return err ? err->status : HL_ERR_IO;
    }
    hl_status st = HL_OK;
    struct icemeta_err ie;
    if (*version > 0 && ice_meta_load(m, text.data, text.len, &ie) != 0)
        st = icemeta_status(&ie, err);
    buf_free(&text);
    return st;
}

/* One attempt: the manifest list and version+1 on top of what is there. */
static hl_status commit_attempt(struct exporter *x, struct ice_meta *m, int64_t version,
                                int attempt, const char *manifest_uri,
                                const struct ice_manifest_spec *spec,
                                const struct ice_manifest_summary *summary, int64_t manifest_len,
                                struct hl_error *err)
{
    struct icemeta_err ie;
    if (version == 0) {
        char uuid[37];
        if (client_uuid4(uuid) != 0)
            return fail(err, HL_ERR_INTERNAL, "internal", "no randomness for a table uuid");
        struct ice_new_table nt = {x->res->format_version, uuid,          x->loc, x->schema_json,
                                   x->spec_json,           x->order_json, NULL,   now_ms()};
        if (ice_meta_create(m, &nt, &ie) != 0)
            return icemeta_status(&ie, err);
    } else {
        bool changed;
        if (ice_meta_set_schema(m, x->schema_json, &changed, &ie) != 0 ||
            ice_meta_set_sort_order(m, x->order_json, &changed, &ie) != 0)
            return icemeta_status(&ie, err);
    }
    int64_t snapshot_id, seq = ice_meta_next_sequence_number(m);
    if (ice_meta_pick_snapshot_id(m, &snapshot_id, &ie) != 0)
        return icemeta_status(&ie, err);
    json_t *parent = NULL;
    hl_status st = HL_OK;
    const char *parent_list =
        m->current_snapshot
            ? json_string_value(json_object_get(m->current_snapshot, "manifest-list"))
            : NULL;
    if (parent_list) {
        struct buf b = BUF_INIT;
        struct avro_error ae;
        if (objstore_get(x->store, parent_list, 0, UINT64_MAX, &b, err) != 0)
            st = err ? err->status : HL_ERR_IO;
        else if (ice_manifest_list_read(b.data, b.len, &parent, &ae) != 0)
            st = avro_status(&ae, err);
        buf_free(&b);
    }
    json_t *added = st == HL_OK
                        ? ice_manifest_file_record(spec, manifest_uri, manifest_len, snapshot_id,
                                                   seq, m->next_row_id, summary)
                        : NULL;
    if (st == HL_OK && !added)
        st = client_nomem(err);
    char uuid[37], list_uri[4096];
    struct buf list = BUF_INIT;
    if (st == HL_OK && client_uuid4(uuid) != 0)
        st = fail(err, HL_ERR_INTERNAL, "internal", "no randomness for a file name");
    if (st == HL_OK) {
        snprintf(list_uri, sizeof list_uri, "%s/metadata/snap-%" PRId64 "-%d-%s.avro", x->loc,
                 snapshot_id, attempt, uuid);
        struct avro_error ae;
        int64_t parent_id = m->has_current_snapshot ? m->current_snapshot_id : -1;
        if (ice_manifest_list_write(x->res->format_version, snapshot_id, parent_id, seq,
                                    m->next_row_id, parent, added, &list, &ae) != 0)
            st = avro_status(&ae, err);
    }
    if (st == HL_OK)
        st = put_object(x, list_uri, &list, err);
    buf_free(&list);
    json_decref(added);
    json_decref(parent);
    if (st != HL_OK)
        return st;

    char from[24], to[24], previous[4096];
    snprintf(from, sizeof from, "%" PRId64, x->res->from_snapshot);
    snprintf(to, sizeof to, "%" PRId64, x->res->to_snapshot);
    struct ice_summary_kv extra[] = {
        {SUMMARY_TABLE, hl_table_uuid(x->t)}, {SUMMARY_FROM, from}, {SUMMARY_TO, to}};
    int64_t bytes = 0;
    for (size_t i = 0; i < x->nfiles; i++)
        bytes += x->files[i].file_size;
    if (version > 0 && iceberg_metadata_uri(x->loc, version, previous, sizeof previous) != 0)
        return fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument", "the location is too long");
    struct ice_snapshot_add add = {
        .snapshot_id = snapshot_id,
        .timestamp_ms = now_ms(),
        .manifest_list = list_uri,
        .operation = ICE_OP_APPEND,
        .added_data_files = (int64_t)x->nfiles,
        .added_records = x->res->rows,
        .added_files_size = bytes,
        .changed_partition_count = (int64_t)x->ngroups,
        .added_rows = x->res->rows,
        .previous_metadata_file = version > 0 ? previous : NULL,
        .extra = extra,
        .nextra = sizeof extra / sizeof extra[0],
    };
    if (ice_meta_add_snapshot(m, &add, &ie) != 0)
        return icemeta_status(&ie, err);
    char *text = ice_meta_dumps(m);
    if (!text)
        return client_nomem(err);
    int rc = iceberg_commit_version(x->store, x->loc, version + 1, text, strlen(text), err);
    free(text);
    if (rc != 0)
        return err ? err->status : HL_ERR_IO;
    x->res->iceberg_snapshot_id = snapshot_id;
    return HL_OK;
}

static void span_layout(struct exporter *x, struct span *s)
{
    span_attr_str(s, "hyp_partition_spec", x->res->partition_spec);
    span_attr_str(s, "hyp_sort_order", x->res->sort_order);
    span_attr_str(s, "iceberg.location", x->loc);
    span_attr_int(s, "iceberg.format_version", x->res->format_version);
}

static hl_status commit(struct exporter *x, struct hl_error *err)
{
    struct ice_manifest_spec spec = {
        .format_version = x->res->format_version,
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
    hl_status st = schema_text && fields_text ? HL_OK : client_nomem(err);
    struct buf manifest = BUF_INIT;
    struct ice_manifest_summary summary;
    struct avro_error ae;
    char uuid[37], manifest_uri[4096];
    if (st == HL_OK && client_uuid4(uuid) != 0)
        st = fail(err, HL_ERR_INTERNAL, "internal", "no randomness for a file name");
    if (st == HL_OK &&
        ice_manifest_write(&spec, x->files, x->nfiles, &manifest, &summary, &ae) != 0)
        st = avro_status(&ae, err);
    if (st == HL_OK) {
        snprintf(manifest_uri, sizeof manifest_uri, "%s/metadata/%s-m0.avro", x->loc, uuid);
        st = put_object(x, manifest_uri, &manifest, err);
    }
    int64_t manifest_len = (int64_t)manifest.len;
    buf_free(&manifest);
    for (int attempt = 0; st == HL_OK; attempt++) {
        struct ice_meta m;
        int64_t version;
        st = load_iceberg(x, &m, &version, err);
        int64_t landed;
        if (st == HL_OK && version > 0) {
            recorded_window(&m, hl_table_uuid(x->t), &landed);
            if (landed >= x->res->to_snapshot) {
                /* Another run exported this window while we wrote. */
                x->res->reconciled = true;
                ice_meta_free(&m);
                unstage(x);
                break;
            }
        }
        struct span *span = NULL;
        if (st == HL_OK && version == 0) {
            span = span_start(x->o->tracer, "iceberg.table.create", NULL);
            span_layout(x, span);
        }
        struct span *commit_span = span_start(x->o->tracer, "iceberg.snapshot.commit", span);
        span_layout(x, commit_span);
        if (st == HL_OK)
            st = commit_attempt(x, &m, version, attempt, manifest_uri, &spec, &summary,
                                manifest_len, err);
        span_attr_int(commit_span, "rows", x->res->rows);
        span_attr_int(commit_span, "files", (int64_t)x->nfiles);
        if (st == HL_OK) {
            span_attr_int(commit_span, "iceberg.snapshot_id", x->res->iceberg_snapshot_id);
            x->res->created = version == 0;
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

static void exporter_free(struct exporter *x)
{
    for (size_t i = 0; i < x->nbatches; i++)
        x->batches[i].release(&x->batches[i]);
    free(x->batches);
    if (x->schema.release)
        x->schema.release(&x->schema);
    for (size_t i = 0; i < x->ngroups; i++)
        free(x->groups[i].refs);
    free(x->groups);
    free(x->files);
    for (size_t i = 0; i < x->nstaged; i++)
        free(x->staged[i]);
    free(x->staged);
    json_decref(x->schema_json);
    json_decref(x->spec_json);
    json_decref(x->order_json);
    lake_table_release(&x->table);
    arena_free(&x->arena);
}

hl_status ice_export_run(hl_table *t, const struct ice_export_options *o,
                         struct ice_export_result *res, struct hl_error *err)
{
    memset(res, 0, sizeof *res);
    res->iceberg_snapshot_id = -1;
    res->to_snapshot = -1;
    if (!t || !o || !o->location)
        return fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                    "a table and a target location are required");
    int n = (int)strlen(o->location);
    while (n > 0 && o->location[n - 1] == '/')
        n--;
    struct exporter x = {.t = t, .o = o, .res = res};
    if (n == 0 || (size_t)n >= sizeof x.loc)
        return fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument", "a bad target location");
    snprintf(x.loc, sizeof x.loc, "%.*s", n, o->location);
    if (o->format_version != 0 && o->format_version != 2 && o->format_version != 3)
        return fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument", "format version %d: 2 or 3",
                    o->format_version);
    arena_init(&x.arena, 0);
    lake_table_init(&x.table, &x.arena);
    hl_status st = ice_export_consumer_id(x.loc, x.consumer) == 0
                       ? client_store(t->ns->catalog->client, &x.store, err)
                       : client_nomem(err);

    /* The target first: its format version, and its record of the last
     * window exported (which wins over a lagging offset). */
    struct ice_meta m;
    int64_t version = 0;
    memset(&m, 0, sizeof m);
    if (st == HL_OK)
        st = load_iceberg(&x, &m, &version, err);
    res->format_version = version > 0         ? m.format_version
                          : o->format_version ? o->format_version
                                              : 3;
    if (st == HL_OK)
        st = load_table(&x, err);
    int64_t offset = -1, landed = -1;
    if (st == HL_OK)
        st = hl_catalog_offset(t->ns->catalog, x.consumer, hl_table_uuid(t), &offset, err);
    if (st == HL_OK && version > 0) {
        recorded_window(&m, hl_table_uuid(t), &landed);
        if (landed > offset) {
            st =
                hl_catalog_commit_offset(t->ns->catalog, x.consumer, hl_table_uuid(t), landed, err);
            offset = landed;
            res->reconciled = true;
        }
        /* The layout must not drift: a new layout is a new table. */
        char describe[300];
        if (st == HL_OK && ice_spec_compare(x.spec_json, m.default_spec, &x.table, describe,
                                            sizeof describe) != ICE_SPEC_SAME) {
            snprintf(res->error_kind, sizeof res->error_kind, "iceberg_partition_spec_drift");
            struct span *s = span_start(o->tracer, "iceberg.snapshot.commit", NULL);
            span_layout(&x, s);
            span_fail(s, "iceberg_partition_spec_drift", describe);
            span_end(s);
            st = fail(err, HL_ERR_CONFLICT, "iceberg_partition_spec_drift",
                      "the table's partitioning drifted from the Iceberg table's: %s; export to "
                      "a new location",
                      describe);
        }
    }
    ice_meta_free(&m);
    res->from_snapshot = offset < 0 ? 0 : offset;
    if (st == HL_OK)
        st = read_rows(&x, err);
    if (st == HL_OK && res->rows == 0)
        res->nothing_new = true;
    if (st == HL_OK && !res->nothing_new)
        st = group_rows(&x, err);
    for (size_t i = 0; st == HL_OK && !res->nothing_new && i < x.ngroups; i++)
        st = write_group(&x, &x.groups[i], err);
    res->files = (int64_t)x.nfiles;
    if (st == HL_OK && !res->nothing_new)
        st = commit(&x, err);
    if (st != HL_OK && !res->nothing_new && res->iceberg_snapshot_id < 0)
        unstage(&x);
    /* The offset follows the Iceberg commit; should it fail now, the next
     * run reconciles from the snapshot summary. */
    if (st == HL_OK && !res->nothing_new)
        st = hl_catalog_commit_offset(t->ns->catalog, x.consumer, hl_table_uuid(t),
                                      res->to_snapshot, err);
    exporter_free(&x);
    return st;
}
