/* The live files of an exported Iceberg table (see live.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/live.h"
#include "lake/puffin.h"
#include "objstore/objstore.h"
#include "parquet/reader.h"
#include "rows/rows_project.h"
#include "util/array.h"
#include "util/base64.h"
#include "util/bytes.h"

/* A long bound (8 bytes little-endian, base64 as the Avro layer gives
 * bytes) of field `id` in an int-keyed map of bounds. */
static bool long_bound(const json_t *map, int64_t id, int64_t *out)
{
    size_t i;
    const json_t *kv;
    json_array_foreach (map, i, kv) {
        if (json_integer_value(json_object_get(kv, "key")) != id)
            continue;
        const char *text = json_string_value(json_object_get(kv, "value"));
        struct buf b = BUF_INIT;
        bool ok = text && !base64_decode(text, strlen(text), &b) && b.len == 8;
        if (ok)
            *out = (int64_t)le_load64((const uint8_t *)b.data);
        buf_free(&b);
        return ok;
    }
    return false;
}

/* The day of a partition tuple (null_day when it has none). */
static void partition_day(const json_t *partition, bool *null_day, int32_t *day)
{
    const char *key;
    const json_t *v;
    *null_day = true;
    *day = 0;
    json_object_foreach ((json_t *)partition, key, v) {
        if (json_is_integer(v)) {
            *null_day = false;
            *day = (int32_t)json_integer_value(v);
        }
        break;
    }
}

/* What a manifest's entries inherit from its manifest list record. */
struct collector {
    struct xp_live *live;
    int64_t snapshot_id, seq; /* the manifest's */
    int64_t next_id;          /* the next inherited first_row_id (-1: none, v2) */
};

static hl_status collect_data(void *ctx, const char *manifest, const json_t *e,
                              struct hl_error *err)
{
    struct collector *c = ctx;
    struct xp_live *l = c->live;
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
    if (ARRAY_RESERVE(l->data, l->data_cap, l->ndata + 1, 64) != 0)
        return xp_nomem(err);
    struct xp_data_file *f = &l->data[l->ndata];
    *f = (struct xp_data_file){.path = strdup(file),
                               .partition = json_incref(json_object_get(df, "partition")),
                               .rows = rows,
                               .size = size,
                               .first_row_id = first,
                               .sequence_number = eseq};
    if (!f->path) {
        json_decref(f->partition);
        return xp_nomem(err);
    }
    partition_day(f->partition, &f->null_day, &f->day);
    f->has_ids = long_bound(json_object_get(df, "lower_bounds"), ICE_FIELD_ROW_ID, &f->id_lo) &&
                 long_bound(json_object_get(df, "upper_bounds"), ICE_FIELD_ROW_ID, &f->id_hi);
    l->ndata++;
    return HL_OK;
}

/* Sets e[key] to v when it is null (Iceberg's inheritance). */
static int inherit(json_t *e, const char *key, int64_t v)
{
    return json_is_integer(json_object_get(e, key)) ? 0
                                                    : json_object_set_new(e, key, json_integer(v));
}

static hl_status collect_delete(void *ctx, const char *manifest, const json_t *e,
                                struct hl_error *err)
{
    struct collector *c = ctx;
    struct xp_live *l = c->live;
    int64_t status = -1, content = -1, count = 0, size = 0;
    const json_t *df = json_object_get(e, "data_file");
    xp_json_long(e, "status", &status);
    xp_json_long(df, "content", &content);
    if (status == 2)
        return HL_OK;
    if (content != 1)
        return xp_fail(err, HL_ERR_NOT_IMPLEMENTED, "not_implemented",
                       "%s lists equality deletes, which the export does not apply", manifest);
    const char *format = json_string_value(json_object_get(df, "file_format"));
    if (!json_string_value(json_object_get(df, "file_path")) || !format ||
        !xp_json_long(df, "record_count", &count) || !xp_json_long(df, "file_size_in_bytes", &size))
        return xp_fail(err, HL_ERR_PROTOCOL, "protocol", "%s: a malformed delete entry", manifest);
    json_t *own = json_deep_copy(e);
    if (!own || inherit(own, "snapshot_id", c->snapshot_id) != 0 ||
        inherit(own, "sequence_number", c->seq) != 0 ||
        inherit(own, "file_sequence_number", c->seq) != 0 ||
        ARRAY_RESERVE(l->dels, l->dels_cap, l->ndels + 1, 64) != 0) {
        json_decref(own);
        return xp_nomem(err);
    }
    const json_t *odf = json_object_get(own, "data_file");
    bool puffin = strcmp(format, "PUFFIN") == 0 || strcmp(format, "puffin") == 0;
    l->dels[l->ndels++] =
        (struct xp_delete_file){own,
                                json_string_value(json_object_get(odf, "file_path")),
                                json_string_value(json_object_get(odf, "referenced_data_file")),
                                puffin,
                                count,
                                size};
    l->delete_positions += count;
    l->dvs += puffin;
    return HL_OK;
}

static hl_status manifest_files(struct exporter *x, struct xp_live *l, const json_t *mf,
                                struct hl_error *err)
{
    const char *path = json_string_value(json_object_get(mf, "manifest_path"));
    int64_t content = 0;
    struct collector c = {l, -1, 0, -1};
    xp_json_long(mf, "content", &content);
    xp_json_long(mf, "added_snapshot_id", &c.snapshot_id);
    if (!path || !xp_json_long(mf, "sequence_number", &c.seq))
        return xp_fail(err, HL_ERR_PROTOCOL, "protocol", "a manifest list entry without a path");
    if (content == 0) {
        xp_json_long(mf, "first_row_id", &c.next_id);
        if (json_array_append(l->data_manifests, (json_t *)mf) != 0)
            return xp_nomem(err);
    }
    return xp_manifest_entries(x, path, content == 0 ? collect_data : collect_delete, &c, err);
}

hl_status xp_live_load(struct exporter *x, const struct ice_meta *m, struct xp_live *l,
                       struct hl_error *err)
{
    memset(l, 0, sizeof *l);
    if (!(l->data_manifests = json_array()))
        return xp_nomem(err);
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
    size_t i;
    const json_t *mf;
    json_array_foreach (records, i, mf) {
        if (st == HL_OK)
            st = manifest_files(x, l, mf, err);
    }
    json_decref(records);
    return st;
}

void xp_live_free(struct xp_live *l)
{
    for (size_t i = 0; i < l->ndata; i++) {
        free(l->data[i].path);
        json_decref(l->data[i].partition);
    }
    free(l->data);
    for (size_t i = 0; i < l->ndels; i++)
        json_decref(l->dels[i].entry);
    free(l->dels);
    json_decref(l->data_manifests);
    memset(l, 0, sizeof *l);
}

void xp_dvs_free(struct lake_dv *dvs, size_t n)
{
    for (size_t i = 0; dvs && i < n; i++)
        lake_dv_free(&dvs[i]);
    free(dvs);
}

/* ---- the positions deleted ---- */

/* The data file a delete names (its index), or -1. */
static long data_index(const json_t *index, const char *path)
{
    const json_t *v = path ? json_object_get(index, path) : NULL;
    return v ? (long)json_integer_value(v) : -1;
}

static hl_status add_positions(struct lake_dv *dv, const uint64_t *pos, size_t n,
                               struct hl_error *err)
{
    struct error e;
    return lake_dv_add(dv, pos, n, &e) == 0 ? HL_OK : xp_nomem(err);
}

/* One deletion vector of a Puffin file (held in file). */
static hl_status load_vector(const struct xp_delete_file *d, const struct buf *file,
                             const struct xp_live *l, const json_t *index, struct lake_dv *dvs,
                             struct hl_error *err)
{
    long i = data_index(index, d->referenced);
    if (i < 0)
        return xp_fail(err, HL_ERR_PROTOCOL, "corrupt_delete_file",
                       "%s: a deletion vector of %s, which is not a live data file", d->path,
                       d->referenced ? d->referenced : "(no file)");
    struct lake_dv v;
    lake_dv_init(&v);
    struct error pe;
    if (lake_puffin_load_dv((const uint8_t *)file->data, file->len, d->referenced,
                            (uint64_t)l->data[i].rows, &v, &pe) != 0)
        return pe.code == ERR_NOMEM ? xp_nomem(err)
                                    : xp_fail(err, HL_ERR_PROTOCOL, "corrupt_delete_file", "%s: %s",
                                              d->path, pe.msg);
    hl_status st = (int64_t)v.n == d->count
                       ? add_positions(&dvs[i], v.pos, v.n, err)
                       : xp_fail(err, HL_ERR_PROTOCOL, "corrupt_delete_file",
                                 "%s: the vector of %s holds %zu positions, its manifest says %lld",
                                 d->path, d->referenced, v.n, (long long)d->count);
    lake_dv_free(&v);
    return st;
}

hl_status xp_read_columns(const struct buf *file, const char *path, const struct xp_column *cols,
                          size_t n, xp_batch_fn fn, void *ctx, struct hl_error *err)
{
    struct arena arena;
    arena_init(&arena, 0);
    struct lake_table t;
    lake_table_init(&t, &arena);
    struct error e;
    struct pq_source src;
    struct pq_reader *r = NULL;
    struct rows_projection proj = {0};
    hl_status st = HL_OK;
    bool loaded = true;
    for (size_t c = 0; loaded && c < n; c++)
        loaded = lake_table_load_column(&t, cols[c].field_id, 0, cols[c].name, cols[c].type, 0, 0,
                                        true, (int)c, NULL, &e) == 0;
    pq_source_memory(&src, file->data, file->len);
    if (!loaded || pq_reader_open(&src, &r, &e) != 0 || rows_project_open(r, &t, &proj, &e) != 0)
        st = e.code == ERR_NOMEM
                 ? xp_nomem(err)
                 : xp_fail(err, HL_ERR_PROTOCOL, "corrupt_file", "%s: %s", path, e.msg);
    uint64_t first = 0;
    for (size_t g = 0; st == HL_OK && g < pq_reader_meta(r)->nrow_groups; g++) {
        struct ArrowArray b;
        if (rows_project_read(r, g, &proj, &t, &b, &e) != 0) {
            st = xp_fail(err, HL_ERR_PROTOCOL, "corrupt_file", "%s: %s", path, e.msg);
            break;
        }
        st = fn(ctx, &b, first, err);
        first += (uint64_t)b.length;
        b.release(&b);
    }
    rows_project_free(&proj);
    pq_reader_free(r);
    lake_table_release(&t);
    arena_free(&arena);
    return st;
}

/* Where a position delete file's rows go. */
struct positions {
    const struct xp_delete_file *d;
    const struct xp_live *l;
    const json_t *index;
    struct lake_dv *dvs;
};

/* The (file_path, pos) rows of one row group into the data files' sets. */
static hl_status position_rows(void *ctx, const struct ArrowArray *b, uint64_t first,
                               struct hl_error *err)
{
    (void)first;
    const struct positions *ps = ctx;
    const struct xp_delete_file *d = ps->d;
    const struct ArrowArray *paths = b->children[0], *pos = b->children[1];
    const int32_t *off = paths->buffers[1];
    const char *text = paths->buffers[2];
    const int64_t *p = pos->buffers[1];
    char name[4096];
    for (int64_t r = 0; r < b->length; r++) {
        int64_t k = paths->offset + r;
        int32_t len = off[k + 1] - off[k];
        if (paths->null_count || pos->null_count || len <= 0 || (size_t)len >= sizeof name)
            return xp_fail(err, HL_ERR_PROTOCOL, "corrupt_delete_file",
                           "%s: a row without a file path or position", d->path);
        memcpy(name, text + off[k], (size_t)len);
        name[len] = '\0';
        long i = data_index(ps->index, name);
        int64_t at = p[pos->offset + r];
        if (i < 0)
            continue; /* a file no longer live (a reader skips it too) */
        if (at < 0 || at >= ps->l->data[i].rows)
            return xp_fail(err, HL_ERR_PROTOCOL, "corrupt_delete_file",
                           "%s: position %lld of %s, which has %lld rows", d->path, (long long)at,
                           name, (long long)ps->l->data[i].rows);
        uint64_t u = (uint64_t)at;
        hl_status st = add_positions(&ps->dvs[i], &u, 1, err);
        if (st != HL_OK)
            return st;
    }
    return HL_OK;
}

/* A Parquet position delete file (held in file). */
static hl_status load_positions(const struct xp_delete_file *d, const struct buf *file,
                                const struct xp_live *l, const json_t *index, struct lake_dv *dvs,
                                struct hl_error *err)
{
    static const struct xp_column cols[] = {{ICE_FIELD_DELETE_FILE_PATH, "file_path", LT_STRING},
                                            {ICE_FIELD_DELETE_POS, "pos", LT_LONG}};
    struct positions ps = {d, l, index, dvs};
    return xp_read_columns(file, d->path, cols, 2, position_rows, &ps, err);
}

hl_status xp_live_deleted(struct exporter *x, const struct xp_live *l, struct lake_dv *dvs,
                          struct hl_error *err)
{
    for (size_t i = 0; i < l->ndata; i++)
        lake_dv_init(&dvs[i]);
    json_t *index = json_object();
    hl_status st = index ? HL_OK : xp_nomem(err);
    for (size_t i = 0; st == HL_OK && i < l->ndata; i++) {
        if (json_object_set_new(index, l->data[i].path, json_integer((json_int_t)i)) != 0)
            st = xp_nomem(err);
    }
    /* A Puffin file holds the vectors of several entries: fetched once. */
    struct buf file = BUF_INIT;
    const char *held = NULL;
    for (size_t k = 0; st == HL_OK && k < l->ndels; k++) {
        const struct xp_delete_file *d = &l->dels[k];
        if (!held || strcmp(held, d->path) != 0) {
            buf_free(&file);
            held = NULL;
            if (objstore_get_sized(x->store, d->path, (uint64_t)d->size, &file, err) != 0) {
                st = err ? err->status : HL_ERR_IO;
                break;
            }
            held = d->path;
        }
        st = d->puffin ? load_vector(d, &file, l, index, dvs, err)
                       : load_positions(d, &file, l, index, dvs, err);
    }
    buf_free(&file);
    json_decref(index);
    return st;
}
