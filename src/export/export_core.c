/* What the Iceberg export and its compaction share (see export_core.h). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "export/export_core.h"
#include "iceberg/table_io.h"
#include "lake/partition.h"
#include "lake/tableinfo.h"
#include "objstore/objstore.h"
#include "parquet/colstats.h"
#include "parquet/writer.h"
#include "util/array.h"
#include "util/arrow.h"
#include "util/error.h"
#include "util/failpoint.h"
#include "util/spans.h"
#include "util/timefmt.h"
#include "util/random.h"
#include "hoglake/sys/table.h"

hl_status xp_fail(struct hl_error *err, hl_status st, const char *code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    error_setv(err, st, 0, false, code, fmt, ap);
    va_end(ap);
    return st;
}

hl_status xp_nomem(struct hl_error *err)
{
    return xp_fail(err, HL_ERR_NOMEM, "out_of_memory", "out of memory");
}

hl_status xp_open(struct exporter *x, const char *location, struct hl_error *err)
{
    arena_init(&x->arena, 0);
    lake_table_init(&x->table, &x->arena);
    if (!x->t || !location)
        return xp_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                       "a table and a target location are required");
    int n = (int)strlen(location);
    while (n > 0 && location[n - 1] == '/')
        n--;
    if (n == 0 || (size_t)n >= sizeof x->loc)
        return xp_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument", "a bad target location");
    snprintf(x->loc, sizeof x->loc, "%.*s", n, location);
    return hl_table_object_store(x->t, &x->store, err);
}

hl_status xp_get(struct exporter *x, const char *uri, struct buf *b, struct hl_error *err)
{
    if (objstore_get(x->store, uri, 0, UINT64_MAX, b, err) != 0)
        return err ? err->status : HL_ERR_IO;
    return HL_OK;
}

hl_status xp_manifest_entries(struct exporter *x, const char *uri, xp_entry_fn fn, void *ctx,
                              struct hl_error *err)
{
    struct buf b = BUF_INIT;
    hl_status st = xp_get(x, uri, &b, err);
    struct avro_reader *r = NULL;
    struct error ae;
    if (st == HL_OK && avro_reader_open(b.data, b.len, NULL, &r, &ae) != 0)
        st = error_publish(err, HL_ERR_PROTOCOL, &ae, "iceberg manifest");
    json_t *e;
    int got = 0;
    while (st == HL_OK && (got = avro_reader_next(r, &e, &ae)) == 1) {
        st = fn(ctx, uri, e, err);
        json_decref(e);
    }
    if (st == HL_OK && got < 0)
        st = error_publish(err, HL_ERR_PROTOCOL, &ae, "iceberg manifest");
    avro_reader_free(r);
    buf_free(&b);
    return st;
}

bool xp_json_long(const json_t *o, const char *key, int64_t *out)
{
    const json_t *v = json_object_get(o, key);
    if (!json_is_integer(v))
        return false;
    *out = (int64_t)json_integer_value(v);
    return true;
}

int64_t xp_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

hl_status xp_write_manifest(struct exporter *x, const struct ice_manifest_spec *spec, char uuid[37],
                            char *uri, size_t uri_size, struct ice_manifest_summary *summary,
                            int64_t *len, struct hl_error *err)
{
    if (random_uuid4(uuid) != 0)
        return xp_fail(err, HL_ERR_INTERNAL, "internal", "no randomness for a file name");
    struct buf manifest = BUF_INIT;
    struct error ae;
    if (ice_manifest_write(spec, x->files, x->nfiles, &manifest, summary, &ae) != 0)
        return error_publish(err, HL_ERR_INTERNAL, &ae, "iceberg manifest");
    snprintf(uri, uri_size, "%s/metadata/%s-m0.avro", x->loc, uuid);
    hl_status st = xp_put_object(x, uri, &manifest, err);
    *len = (int64_t)manifest.len;
    buf_free(&manifest);
    return st;
}

hl_status xp_snapshot_add(const struct exporter *x, int64_t version, int64_t snapshot_id,
                          const char *list_uri, char *previous, size_t previous_size,
                          struct ice_snapshot_add *add, struct hl_error *err)
{
    int64_t bytes = 0;
    for (size_t i = 0; i < x->nfiles; i++)
        bytes += x->files[i].file_size;
    if (version > 0 && iceberg_metadata_uri(x->loc, version, previous, previous_size) != 0)
        return xp_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                       "the location is too long");
    *add = (struct ice_snapshot_add){
        .snapshot_id = snapshot_id,
        .timestamp_ms = xp_now_ms(),
        .manifest_list = list_uri,
        .added_data_files = (int64_t)x->nfiles,
        .added_records = x->rows,
        .added_files_size = bytes,
        .changed_partition_count = (int64_t)x->ngroups,
        .previous_metadata_file = version > 0 ? previous : NULL,
    };
    return HL_OK;
}

int xp_stage(struct exporter *x, const char *uri)
{
    if (ARRAY_RESERVE(x->staged, x->staged_cap, x->nstaged + 1, 16) != 0)
        return -1;
    if (!(x->staged[x->nstaged] = strdup(uri)))
        return -1;
    x->nstaged++;
    return 0;
}

/* Removes what this run wrote (it never became part of the table). */
void xp_unstage(struct exporter *x)
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
        /* Their Parquet form (unsigned INT64, milliseconds) is not the
         * Iceberg type's. */
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

hl_status xp_load_table(struct exporter *x, struct hl_error *err)
{
    char *text = NULL;
    hl_status st = hl_table_info(x->t, NULL, &text, err);
    if (st != HL_OK)
        return st;
    json_t *info = json_loads(text, 0, NULL);
    free(text);
    if (!info)
        return xp_nomem(err);
    struct error lerr = {0};
    if (lake_table_from_info(info, &x->table, &lerr) != 0)
        st = lerr.code == ERR_NOMEM ? xp_nomem(err)
                                    : xp_fail(err, HL_ERR_PROTOCOL, "protocol", "%s", lerr.msg);
    const char *primary = json_string_value(json_object_get(info, "primary_timestamp_column"));
    for (size_t i = 0; st == HL_OK && primary && i < x->table.root.nchildren; i++) {
        const struct lake_column *c = x->table.root.children[i];
        if (strcmp(c->name, primary) == 0 && lake_type_is_temporal(c->type))
            x->day_col = c;
    }
    const char *ns = json_string_value(json_object_get(info, "namespace"));
    snprintf(x->qualified, sizeof x->qualified, "%s.%s.%s", hl_catalog_name(hl_table_catalog(x->t)),
             ns ? ns : "?", hl_table_name(x->t));
    json_decref(info);
    char why[300];
    if (st == HL_OK && !exportable(&x->table.root, why, sizeof why))
        st = xp_fail(err, HL_ERR_NOT_IMPLEMENTED, "not_implemented", "%s", why);
    if (st != HL_OK)
        return st;
    /* The lookup key: the sort order, else the identity partition sources. */
    if (x->table.sorted) {
        x->keys = x->table.sort_fields;
        x->nkeys = x->table.nsort_fields;
    } else if (x->table.partitioned) {
        x->keys = arena_calloc(&x->arena, x->table.nspec_fields + 1, sizeof *x->keys);
        if (!x->keys)
            return xp_nomem(err);
        for (size_t i = 0; i < x->table.nspec_fields; i++) {
            if (x->table.spec_fields[i].transform == LTR_IDENTITY)
                x->keys[x->nkeys++] =
                    (struct lake_sort_field){x->table.spec_fields[i].source_field_id, false, true};
        }
    }
    struct error ie;
    int64_t max_id;
    if (!(x->schema_json = ice_schema_json(&x->table, x->format_version, 0, &max_id, &ie)) ||
        !(x->spec_json =
              ice_partition_spec_json(&x->table, x->day_col ? x->day_col->field_id : 0, &ie)) ||
        !(x->order_json = ice_sort_order_json(&x->table, x->keys, x->nkeys, &ie)))
        return error_publish(err, HL_OK, &ie, "iceberg metadata");
    ice_spec_describe(x->spec_json, &x->table, x->partition_spec, sizeof x->partition_spec);
    ice_sort_describe(x->order_json, &x->table, x->sort_order, sizeof x->sort_order);
    return HL_OK;
}

hl_status xp_apply_sort_order(struct exporter *x, struct ice_meta *m, struct hl_error *err)
{
    struct error ie;
    bool changed;
    if (m && ice_meta_set_sort_order(m, x->order_json, &changed, &ie) != 0)
        return error_publish(err, HL_OK, &ie, "iceberg metadata");
    const json_t *order = m ? m->default_sort_order : x->order_json;
    int32_t id = (int32_t)json_integer_value(json_object_get(order, "order-id"));
    if (!x->order_chosen) {
        x->order_chosen = true;
        x->sort_order_id = id;
    } else if (id != x->sort_order_id) {
        return xp_fail(err, HL_ERR_CONFLICT, "conflict",
                       "the Iceberg table's sort orders changed while this run wrote files "
                       "sorted by order %d (now %d); run it again",
                       (int)x->sort_order_id, (int)id);
    }
    return HL_OK;
}

static struct day_group *group_for(struct exporter *x, bool null_day, int32_t day)
{
    for (size_t i = 0; i < x->ngroups; i++) {
        struct day_group *g = &x->groups[i];
        if (g->null_day == null_day && (null_day || g->day == day))
            return g;
    }
    if (ARRAY_RESERVE(x->groups, x->group_cap, x->ngroups + 1, 16) != 0)
        return NULL;
    struct day_group *g = &x->groups[x->ngroups++];
    memset(g, 0, sizeof *g);
    g->null_day = null_day;
    g->day = day;
    return g;
}

static int group_add(struct day_group *g, uint32_t batch, uint32_t row)
{
    if (ARRAY_RESERVE(g->refs, g->cap, g->n + 1, 1024) != 0)
        return -1;
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

hl_status xp_row_days(struct exporter *x, const struct ArrowArray *b, bool *null_day, int32_t *day,
                      struct hl_error *err)
{
    if (!x->day_col) {
        for (int64_t r = 0; r < b->length; r++)
            null_day[r] = true;
        return HL_OK;
    }
    /* The day transform of the partition code, on a spec of one field. */
    struct lake_table by_day = x->table;
    struct lake_partition_field field = {x->day_col->field_id, LTR_DAY, 0};
    by_day.partitioned = true;
    by_day.spec_fields = &field;
    by_day.nspec_fields = 1;
    struct lake_partition_groups pg;
    struct error le;
    if (lake_partition_group_rows(&by_day, &x->schema, b, &pg, &le) != 0)
        return xp_fail(err, le.code == ERR_NOMEM ? HL_ERR_NOMEM : HL_ERR_VALIDATION, "validation",
                       "partitioning by day: %s", le.msg);
    for (int64_t r = 0; r < pg.nrows; r++) {
        const char *v = pg.values[pg.group_of_row[r]];
        null_day[r] = v == NULL;
        day[r] = v ? (int32_t)strtol(v, NULL, 10) : 0;
    }
    lake_partition_groups_free(&pg);
    return HL_OK;
}

/* Puts every row into its day's group (one group when unpartitioned). */
hl_status xp_group_rows(struct exporter *x, struct hl_error *err)
{
    hl_status st = HL_OK;
    for (size_t b = 0; st == HL_OK && b < x->nbatches; b++) {
        size_t n = (size_t)x->batches[b].length;
        bool *null_day = malloc(n ? n : 1);
        int32_t *day = malloc((n ? n : 1) * sizeof *day);
        st = null_day && day ? xp_row_days(x, &x->batches[b], null_day, day, err) : xp_nomem(err);
        for (size_t r = 0; st == HL_OK && r < n; r++) {
            struct day_group *g = group_for(x, null_day[r], day[r]);
            if (!g || group_add(g, (uint32_t)b, (uint32_t)r) != 0)
                st = xp_nomem(err);
        }
        free(null_day);
        free(day);
    }
    if (x->ngroups > 1)
        qsort(x->groups, x->ngroups, sizeof *x->groups, cmp_groups);
    return st;
}

/* ---- data files ---- */

/* The key paths of the lookup key (top-level columns of the batches). */
static hl_status sort_keys(struct exporter *x, struct rows_sort_key *keys, struct hl_error *err)
{
    struct error e;
    for (size_t k = 0; k < x->nkeys; k++)
        if (rows_sort_key_for_field(&x->table, &x->keys[k], &keys[k], &e) != 0)
            return error_publish(err, HL_ERR_NOT_IMPLEMENTED, &e, "the lookup key");
    return HL_OK;
}

struct upload_sink {
    struct objstore_writer *w;
    uint64_t bytes;
    struct hl_error err;
    bool failed;
};

static int sink_write(void *ctx, const void *data, size_t len, struct error *err)
{
    struct upload_sink *u = ctx;
    if (objstore_writer_write(u->w, data, len, &u->err) != 0) {
        u->failed = true;
        return error_fail(err, ERR_IO, "%s", u->err.message);
    }
    u->bytes += len;
    return 0;
}

int xp_add_batch(struct exporter *x, struct ArrowArray *b)
{
    if (ARRAY_RESERVE(x->batches, x->batch_cap, x->nbatches + 1, 16) != 0) {
        b->release(b);
        return -1;
    }
    x->batches[x->nbatches++] = *b;
    x->rows += b->length;
    return 0;
}

hl_status xp_add_lineage_columns(struct exporter *x, bool sequence, struct hl_error *err)
{
    struct error le;
    if (lake_table_load_column(&x->table, ICE_FIELD_ROW_ID, 0, "_row_id", LT_LONG, 0, 0, true,
                               1 << 20, NULL, &le) != 0 ||
        (sequence && lake_table_load_column(&x->table, ICE_FIELD_LAST_UPDATED_SEQ, 0,
                                            "_last_updated_sequence_number", LT_LONG, 0, 0, true,
                                            (1 << 20) + 1, NULL, &le) != 0))
        return xp_fail(err, HL_ERR_INTERNAL, "internal", "lineage columns: %s", le.msg);
    return HL_OK;
}

hl_status xp_info_add_long(json_t *info, const char *name, int64_t field_id, int ordinal,
                           struct hl_error *err)
{
    json_t *cols = json_object_get(info, "columns");
    if (!json_is_array(cols))
        return xp_fail(err, HL_ERR_PROTOCOL, "protocol", "the Table object has no columns");
    json_t *c = json_pack("{s:s, s:s, s:I, s:i, s:b}", "name", name, "type", "long", "field_id",
                          (json_int_t)field_id, "ordinal", ordinal, "nullable", true);
    return json_array_append_new(cols, c) == 0 && c ? HL_OK : xp_nomem(err);
}

/* (Batches here come from a reader or rows_take: their offset is 0.) */
int xp_fill_long(struct ArrowArray *batch, int64_t k, int64_t first, int64_t step, int64_t *min,
                 int64_t *max)
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
        if (min && values[i] < *min)
            *min = values[i];
        if (max && values[i] > *max)
            *max = values[i];
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

static int add_file(struct exporter *x, const struct ice_data_file *f)
{
    if (ARRAY_RESERVE(x->files, x->file_cap, x->nfiles + 1, 16) != 0)
        return -1;
    x->files[x->nfiles++] = *f;
    return 0;
}

/* The NaN counts of the group's float and double columns (top level), in
 * the arena: the Parquet footer does not count NaNs. */
static int64_t (*count_nans(struct exporter *x, const struct day_group *g, size_t *n))[2]
{
    *n = 0;
    size_t ncols = x->table.root.nchildren;
    int64_t(*out)[2] = arena_calloc(&x->arena, ncols ? ncols : 1, sizeof *out);
    if (!out)
        return NULL;
    for (size_t c = 0; c < ncols; c++) {
        const char *f = x->schema.children[c]->format;
        bool is_float = strcmp(f, "f") == 0, is_double = strcmp(f, "g") == 0;
        if (!is_float && !is_double)
            continue;
        int64_t nans = 0;
        for (size_t i = 0; i < g->n; i++) {
            const struct ArrowArray *b = &x->batches[g->refs[i].batch];
            const struct ArrowArray *a = b->children[c];
            int64_t p = a->offset + b->offset + g->refs[i].row;
            const uint8_t *valid = a->buffers[0];
            if (valid && !arrow_bit(valid, p))
                continue;
            double v = is_float ? (double)((const float *)a->buffers[1])[p]
                                : ((const double *)a->buffers[1])[p];
            nans += isnan(v);
        }
        out[*n][0] = x->table.root.children[c]->field_id;
        out[(*n)++][1] = nans;
    }
    return out;
}

/* Writes one group's rows, sorted, as one data file. */
hl_status xp_write_group(struct exporter *x, struct day_group *g, struct hl_error *err)
{
    struct rows_sort_key keys[16];
    if (x->nkeys > 16)
        return xp_fail(err, HL_ERR_NOT_IMPLEMENTED, "not_implemented",
                       "a lookup key of %zu columns", x->nkeys);
    hl_status st = sort_keys(x, keys, err);
    if (st != HL_OK)
        return st;
    struct error e;
    const struct ArrowArray **bp = calloc(x->nbatches, sizeof *bp);
    if (!bp)
        return xp_nomem(err);
    for (size_t b = 0; b < x->nbatches; b++)
        bp[b] = &x->batches[b];
    if (x->nkeys &&
        rows_sort(&x->schema, bp, x->nbatches, keys, x->nkeys, g->refs, g->n, &e) != 0) {
        free(bp);
        return error_publish(err, HL_ERR_VALIDATION, &e, "sorting by the lookup key");
    }
    /* <location>/data/<field>=<day>/<uuid>.parquet */
    char uuid[37], day[16] = "null", uri[4096];
    if (random_uuid4(uuid) != 0) {
        free(bp);
        return xp_fail(err, HL_ERR_INTERNAL, "internal", "no randomness for a file name");
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
        return xp_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                       "the location is too long");
    }
    char *schema_text = json_dumps(x->schema_json, JSON_COMPACT);
    struct upload_sink up = {0};
    struct pq_writer *w = NULL;
    struct error pe;
    struct pq_write_options wo;
    pq_write_options_default(&wo);
    struct pq_key_value kv = {"iceberg.schema", schema_text};
    wo.kv = &kv;
    wo.nkv = 1;
    /* Row ids (a compaction's lineage column) are a permutation of a dense
     * range: their deltas take a fraction of the 8 bytes PLAIN would. */
    static const int32_t delta_ids[] = {ICE_FIELD_ROW_ID};
    wo.delta_field_ids = delta_ids;
    wo.ndelta = sizeof delta_ids / sizeof delta_ids[0];
    if (!schema_text)
        st = xp_nomem(err);
    else if (objstore_writer_open(x->store, uri, 0, &up.w, err) != 0)
        st = err ? err->status : HL_ERR_IO;
    else if (xp_stage(x, uri) != 0)
        st = xp_nomem(err);
    struct pq_sink sink = {sink_write, &up};
    if (st == HL_OK && pq_writer_open(&x->table, &wo, &sink, &w, &pe) != 0)
        st = xp_fail(err, HL_ERR_INTERNAL, "internal", "opening a Parquet writer: %s", pe.msg);
    for (size_t at = 0; st == HL_OK && at < g->n; at += TAKE_ROWS) {
        size_t k = g->n - at < TAKE_ROWS ? g->n - at : TAKE_ROWS;
        struct ArrowArray taken;
        if (rows_take(&x->schema, bp, x->nbatches, g->refs + at, k, &taken, &e) != 0) {
            st = error_publish(err, HL_ERR_INTERNAL, &e, "gathering rows");
            break;
        }
        if (pq_writer_write(w, &x->schema, &taken, &pe) != 0)
            st = up.failed
                     ? xp_fail(err, up.err.status, "io", "uploading %s: %s", uri, up.err.message)
                     : xp_fail(err, HL_ERR_INTERNAL, "internal", "encoding: %s", pe.msg);
        taken.release(&taken);
    }
    struct pq_write_result res;
    bool closed = false;
    if (st == HL_OK) {
        struct pq_writer *closing = w;
        w = NULL;
        if (pq_writer_close(closing, &res, &pe) != 0)
            st = xp_fail(err, HL_ERR_IO, "io", "finishing %s: %s", uri, pe.msg);
        else
            closed = true;
    }
    struct pq_col_stats *stats = NULL;
    size_t nstats = 0;
    if (st == HL_OK && pq_footer_column_stats(&res.meta, &res.schema, &x->table, &x->arena, &stats,
                                              &nstats, &pe) != 0)
        st = xp_fail(err, HL_ERR_INTERNAL, "internal", "statistics: %s", pe.msg);
    /* Lineage columns are not the Iceberg schema's: no statistics, but for
     * _row_id holding hoglake row ids, whose bounds find a delete's files. */
    size_t kept = 0;
    for (size_t i = 0; st == HL_OK && i < nstats; i++) {
        bool ids = stats[i].field_id == ICE_FIELD_ROW_ID && x->row_id_bounds &&
                   stats[i].null_count == 0 && stats[i].lower && stats[i].upper;
        if (stats[i].field_id < ICE_FIELD_LAST_UPDATED_SEQ || ids)
            stats[kept++] = stats[i];
    }
    nstats = kept;
    if (st == HL_OK) {
        struct objstore_writer *uw = up.w;
        up.w = NULL;
        if (objstore_writer_commit(uw, NULL, err) != 0)
            st = err ? err->status : HL_ERR_IO;
    }
    if (st == HL_OK) {
        size_t nnan;
        int64_t(*nans)[2] = count_nans(x, g, &nnan);
        struct ice_data_file f = {.path = arena_strdup(&x->arena, uri),
                                  .record_count = (int64_t)g->n,
                                  .file_size = (int64_t)res.file_size,
                                  .partition_null = g->null_day,
                                  .partition_day = g->day,
                                  .stats = stats,
                                  .nstats = nstats,
                                  .sort_order_id = x->sort_order_id,
                                  .nan_counts = (const int64_t(*)[2])nans,
                                  .nnan = nnan};
        if (!f.path || !nans || add_file(x, &f) != 0)
            st = xp_nomem(err);
    }
    if (closed)
        pq_write_result_release(&res);
    pq_writer_free(w);
    objstore_writer_abort(up.w);
    free(schema_text);
    free(bp);
    return st;
}

hl_status xp_put_object(struct exporter *x, const char *uri, const struct buf *b,
                        struct hl_error *err)
{
    if (objstore_put(x->store, uri, b->data, b->len, OBJSTORE_IF_NONE_MATCH, err) != 0)
        return err ? err->status : HL_ERR_IO;
    return xp_stage(x, uri) == 0 ? HL_OK : xp_nomem(err);
}

hl_status xp_load_iceberg(struct exporter *x, struct ice_meta *m, int64_t *version,
                          struct hl_error *err)
{
    struct buf text = BUF_INIT;
    memset(m, 0, sizeof *m);
    if (iceberg_load_current(x->store, x->loc, version, &text, err) != 0) {
        buf_free(&text);
        return err ? err->status : HL_ERR_IO;
    }
    hl_status st = HL_OK;
    struct error ie;
    if (*version > 0 && ice_meta_load(m, text.data, text.len, &ie) != 0)
        st = error_publish(err, HL_OK, &ie, "iceberg metadata");
    buf_free(&text);
    return st;
}

void xp_span_layout(struct exporter *x, struct span *s)
{
    span_attr_str(s, "hyp_partition_spec", x->partition_spec);
    span_attr_str(s, "hyp_sort_order", x->sort_order);
    span_attr_str(s, "iceberg.location", x->loc);
    span_attr_int(s, "iceberg.format_version", x->format_version);
}

void xp_exporter_free(struct exporter *x)
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

int xp_failpoint_rival(struct exporter *x, int64_t version)
{
    if (!failpoint_on("iceberg-lost-race") || version < 1)
        return 0;
    /* Another writer's commit, as far as this run can tell: version+1
     * appears (a copy of the one it loaded) just before its own commit. */
    char uri[4096];
    struct buf b = BUF_INIT;
    struct hl_error e;
    int rc = iceberg_metadata_uri(x->loc, version, uri, sizeof uri) == 0 &&
                     objstore_get(x->store, uri, 0, UINT64_MAX, &b, &e) == 0 &&
                     iceberg_commit_version(x->store, x->loc, version + 1, b.data, b.len, &e) == 0
                 ? 0
                 : -1;
    buf_free(&b);
    return rc;
}
