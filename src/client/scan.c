/* Reading a table's rows as an Arrow stream through its scan plan. One page
 * of the plan and one data file are held at a time: the plan's next page
 * is read when a page runs out, and each file is fetched whole, then read
 * a row group per batch, its columns matched to the table's by field id
 * and converted to the table's types. A file the plan pairs with a
 * deletion vector has the vector's Puffin file fetched with it, and the
 * rows it deletes dropped from each batch. hl_table_scan_with adds a
 * projection, a predicate (files, row groups and pages pruned by
 * client/prune.c, the rows left selected by expr_pred_eval), a limit and
 * counters. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/prune.h"
#include "client/object_source.h"
#include "client/row_ids.h"
#include "client/tableinfo.h"
#include "expr/expr.h"
#include "lake/puffin.h"
#include "objstore/objstore.h"
#include "parquet/reader.h"
#include "rows/rows_filter.h"
#include "rows/rows_project.h"
#include "rows/rows_schema.h"
#include "rows/rows_variant.h"
#include "util/arena.h"
#include "util/arrow.h"
#include "hoglake/sys/table.h"

/* The changefeed stream's two trailing columns (hl_table_scan_changes):
 * each row's id, read from an explicit-row-id file's _hog_row_id (by its
 * field id, contract invariant 2) or computed from the file's
 * row_id_start, and the change the row is. No data file holds
 * _change_type, so the projection reads it as nulls, which are then
 * replaced. */

struct scan {
    struct arena arena;
    struct lake_table table;
    struct objstore *store;
    json_t *plan; /* ScanFile[]: the page being read */
    size_t next_file;
    /* The plan's later pages (hl_table_scan), read at the snapshot the
     * first page read: the handle and snapshot to ask with, the next
     * page's token (NULL: this page is the last). */
    hl_table *handle;
    int64_t snapshot;
    char *next_token;
    /* The file being read. */
    /* The open file, read by ranged reads (its URI copied: the plan page
     * may be replaced while it is open). */
    struct client_object_source source;
    char *path;
    struct pq_reader *reader;
    size_t next_group;
    struct rows_projection proj; /* the file's columns in table order, by field id */
    struct lake_dv dv;           /* the file's deleted positions (empty: none) */
    uint64_t group_pos;          /* the next row group's first position in the file */
    /* The row group being read, a chunk at a time (rows_project_chunks):
     * its chunks (NULL: none open), its first position, where its read's
     * rows sit (filtered reads), and the memory of those. */
    struct rows_chunks *chunks;
    uint64_t chunk_base;
    struct client_group_read got;
    struct arena group_scratch;
    struct ArrowSchema schema; /* the batches' (the table's Arrow schema) */
    /* A changefeed: the stream adds _row_id and _change_type, and the open
     * file's rows are the ones it inserted (its vector's positions left
     * out) or the ones it deleted (only its vector's positions). */
    bool changes;
    bool deleted_rows;
    bool explicit_ids;
    int64_t row_id_start;
    /* hl_table_scan_with's options: the predicate (NULL: none; the plan is
     * then read with its statistics), the top-level columns decoded, the
     * columns handed out (out_cols[i]: a table column; NULL: all, in
     * order), the rows still to hand out (< 0: no limit), the counters
     * and where the caller wants them. */
    struct expr_pred *pred;
    bool *wanted;
    size_t *out_cols;
    size_t nout;
    bool variant_json; /* variant columns handed out as JSON text */
    int64_t left;
    struct hl_scan_stats stats, *stats_out;
    char last_error[HL_ERROR_MESSAGE_MAX];
};

static int scan_fail(struct scan *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int scan_fail(struct scan *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->last_error, sizeof s->last_error, fmt, ap);
    va_end(ap);
    return -1;
}

/* Ends the row group being read. */
static void close_group(struct scan *s)
{
    rows_chunks_free(s->chunks);
    s->chunks = NULL;
    arena_free(&s->group_scratch);
    arena_init(&s->group_scratch, 0);
}

static void close_file(struct scan *s)
{
    close_group(s);
    pq_reader_free(s->reader);
    s->reader = NULL;
    client_object_source_free(&s->source);
    free(s->path);
    s->path = NULL;
    rows_project_free(&s->proj);
    lake_dv_free(&s->dv);
}

hl_status client_dv_load(struct objstore *store, const json_t *dv, const char *path, uint64_t rows,
                         struct lake_dv *out, struct hl_error *err)
{
    lake_dv_init(out);
    const char *dv_path = json_string_value(json_object_get(dv, "path"));
    json_int_t size = json_integer_value(json_object_get(dv, "file_size_bytes"));
    json_int_t count = json_integer_value(json_object_get(dv, "delete_count"));
    if (!dv_path || size <= 0 || count <= 0)
        return client_fail(err, HL_ERR_PROTOCOL, "protocol",
                           "the plan gives %s a deletion vector without a path, size or count",
                           path);
    struct buf file = {0};
    if (objstore_get_sized(store, dv_path, (uint64_t)size, &file, err) != 0) {
        client_error_prefix(err, "fetching %s", dv_path);
        return err ? err->status : HL_ERR_IO;
    }
    struct error pe;
    int rc = lake_puffin_load_dv((const uint8_t *)file.data, file.len, path, rows, out, &pe);
    buf_free(&file);
    if (rc != 0)
        return pe.code == ERR_NOMEM
                   ? client_nomem(err)
                   : client_fail(err, HL_ERR_IO, "corrupt_delete_file", "%s: %s", dv_path, pe.msg);
    if (out->n != (uint64_t)count) {
        size_t n = out->n;
        lake_dv_free(out);
        return client_fail(err, HL_ERR_IO, "corrupt_delete_file",
                           "%s: the deletion vector of %s holds %zu positions, the catalog says "
                           "%lld",
                           dv_path, path, n, (long long)count);
    }
    return HL_OK;
}

/* client_dv_load for the stream, its failure the stream's error. */
static int load_dv(struct scan *s, const json_t *dv, const char *path, uint64_t rows,
                   struct lake_dv *out)
{
    struct hl_error e;
    if (client_dv_load(s->store, dv, path, rows, out, &e) != HL_OK)
        return scan_fail(s, "%s", e.message);
    return 0;
}

/* The open file's vector: the one the plan pairs it with; for the rows a
 * changefeed deleted, without the positions its vector before the window
 * (baseline_delete_file) already held. */
static int load_vectors(struct scan *s, const json_t *scan_file, const char *path, uint64_t rows)
{
    const json_t *dv = json_object_get(scan_file, "delete_file");
    if (dv && !json_is_null(dv) && load_dv(s, dv, path, rows, &s->dv) != 0)
        return -1;
    const json_t *base = json_object_get(scan_file, "baseline_delete_file");
    if (!s->deleted_rows || !base || json_is_null(base))
        return 0;
    struct lake_dv before;
    lake_dv_init(&before);
    int rc = load_dv(s, base, path, rows, &before);
    if (rc == 0)
        lake_dv_subtract(&s->dv, &before);
    lake_dv_free(&before);
    return rc;
}

/* What a changefeed needs of the open file: whether its rows are
 * reported deleted, and where its row ids come from. */
static int read_change_entry(struct scan *s, const json_t *scan_file, const json_t *df,
                             const char *path)
{
    const char *change = json_string_value(json_object_get(scan_file, "change"));
    s->deleted_rows = change && strcmp(change, "delete") == 0;
    if (!s->changes)
        return 0;
    struct error e;
    if (client_row_id_source(df, &s->explicit_ids, &s->row_id_start, &e) != 0)
        return scan_fail(s, "%s: %s", path, e.msg);
    return 0;
}

/* Opens the next file of the plan: fetches it, selects the table's columns
 * it holds (by field id) and builds its projection. */
static int open_file(struct scan *s, const json_t *scan_file)
{
    const json_t *df = json_object_get(scan_file, "data_file");
    const char *path = json_string_value(json_object_get(df, "path"));
    if (!path)
        return scan_fail(s, "the scan plan has a file without a path");
    json_int_t size = json_integer_value(json_object_get(df, "file_size_bytes"));
    json_int_t rows = json_integer_value(json_object_get(df, "record_count"));
    if (size <= 0 || rows < 0)
        return scan_fail(s, "the scan plan gives %s no file_size_bytes or record_count", path);
    if (read_change_entry(s, scan_file, df, path) != 0 ||
        load_vectors(s, scan_file, path, (uint64_t)rows) != 0)
        return -1;
    /* Ranged reads within the size the catalog recorded: the footer and
     * the chunks (or pages) of the columns decoded, never the whole file. */
    if (!(s->path = strdup(path)))
        return scan_fail(s, "out of memory");
    struct pq_source src;
    struct hl_error e;
    if (client_object_source_open(&s->source, &src, s->store, s->path, (uint64_t)size, &e) != 0)
        return scan_fail(s, "fetching %s: %s", path, e.message);
    struct error pe;
    if (pq_reader_open(&src, &s->reader, &pe) != 0)
        return scan_fail(s, "%s: %s", path, pe.msg);
    if (rows_project_open_some(s->reader, &s->table, s->wanted, &s->proj, &pe) != 0)
        return scan_fail(s, "%s: %s", path, pe.msg);
    s->next_group = 0;
    s->group_pos = 0;
    return 0;
}

/* The table column handed out at position i. */
static size_t output_column(const struct scan *s, size_t i)
{
    return s->out_cols ? s->out_cols[i] : i;
}

static size_t output_count(const struct scan *s)
{
    return s->out_cols ? s->nout : s->table.root.nchildren;
}

/* JSON columns marked as such, and variant fields made JSON text where
 * asked for. */
static int json_schema(const struct scan *s, struct ArrowSchema *out)
{
    const char *key = "ARROW:extension:name", *value = "arrow.json";
    for (size_t i = 0; i < output_count(s); i++) {
        const struct lake_column *c = s->table.root.children[output_column(s, i)];
        if (rows_schema_mark_json(out->children[i], c) != 0)
            return -1;
        if (c->type != LT_VARIANT || !s->variant_json)
            continue;
        struct ArrowSchema *f = out->children[i];
        f->release(f);
        if (arrow_schema_init(f, "u", c->name, c->nullable ? ARROW_FLAG_NULLABLE : 0, 0) != 0 ||
            arrow_schema_set_metadata(f, &key, &value, 1) != 0)
            return -1;
    }
    return 0;
}

/* The stream's schema: the table's, or its projected columns in order. */
static int output_schema(const struct scan *s, struct ArrowSchema *out)
{
    if (rows_table_arrow_schema(&s->table, out) != 0)
        return -1;
    if (!s->out_cols)
        return json_schema(s, out);
    struct ArrowSchema shaped;
    int rc = arrow_schema_init(&shaped, "+s", "", 0, (int64_t)s->nout);
    for (size_t i = 0; rc == 0 && i < s->nout; i++)
        arrow_schema_move(out->children[s->out_cols[i]], shaped.children[i]);
    out->release(out);
    if (rc == 0)
        arrow_schema_move(&shaped, out);
    return rc == 0 ? json_schema(s, out) : rc;
}

static int scan_get_schema(struct ArrowArrayStream *stream, struct ArrowSchema *out)
{
    struct scan *s = stream->private_data;
    if (output_schema(s, out) != 0)
        return scan_fail(s, "out of memory"), ENOMEM;
    return 0;
}

/* Replaces column c of batch with fresh. */
static void replace_column(struct ArrowArray *batch, int64_t c, struct ArrowArray *fresh)
{
    struct ArrowArray *old = batch->children[c];
    if (old->release)
        old->release(old);
    arrow_array_move(fresh, old);
}

/* Fills the changefeed's columns of a batch whose row 0 is at file
 * position first: row ids computed from row_id_start unless the file's own
 * were read, and the change each row is. */
static int annotate_changes(struct scan *s, struct ArrowArray *b, uint64_t first)
{
    int64_t n = b->length;
    struct error e;
    struct pq_row_range whole = {0, n};
    struct client_rows_at at = {first, &whole, 1};
    if (client_row_ids_fill(b, b->n_children - 2, s->explicit_ids, s->row_id_start, &at, &e) != 0)
        return scan_fail(s, "%s", e.msg);
    const char *kind = s->deleted_rows ? "delete" : "insert";
    size_t klen = strlen(kind);
    struct ArrowArray kinds = {0};
    int32_t *off = malloc(((size_t)n + 1) * sizeof *off);
    char *text = malloc((size_t)n * klen + 1);
    if (!off || !text || arrow_array_init(&kinds, 3, 0) != 0) {
        free(off);
        free(text);
        return scan_fail(s, "out of memory");
    }
    for (int64_t i = 0; i <= n; i++)
        off[i] = (int32_t)((size_t)i * klen);
    for (int64_t i = 0; i < n; i++)
        memcpy(text + (size_t)i * klen, kind, klen);
    kinds.length = n;
    arrow_array_own_buffer(&kinds, 1, off);
    arrow_array_own_buffer(&kinds, 2, text);
    replace_column(b, b->n_children - 1, &kinds);
    return 0;
}

/* Takes the next row group to read: its index, its first position
 * (chunk_base). */
static size_t take_group(struct scan *s)
{
    size_t g = s->next_group++;
    s->chunk_base = s->group_pos;
    s->group_pos += (uint64_t)pq_reader_meta(s->reader)->row_groups[g].num_rows;
    return g;
}

/* The open row group's next chunk into out: 1, or 0 (out released) when
 * it has no more, the group then closed; -1 failed. *first: the chunk's
 * first row within the read. */
static int next_chunk(struct scan *s, struct ArrowArray *out, int64_t *first)
{
    struct error e;
    int rc = rows_chunks_next(s->chunks, out, first, &e);
    if (rc <= 0) {
        out->release = NULL;
        close_group(s);
    }
    return rc < 0 ? scan_fail(s, "%s", e.msg) : rc;
}

/* A chunk of a row group of the open file, in the table's shape, without
 * the rows its deletion vector deletes (or, for a changefeed's deleted
 * rows, only those); out left released at a row group's end. */
static int next_batch(struct scan *s, struct ArrowArray *out)
{
    struct error e;
    if (!s->chunks &&
        rows_project_chunks(s->reader, take_group(s), &s->proj, &s->table, &s->chunks, &e) != 0)
        return scan_fail(s, "%s", e.msg);
    int64_t at;
    int got = next_chunk(s, out, &at);
    if (got <= 0)
        return got;
    uint64_t first = s->chunk_base + (uint64_t)at, dropped = 0;
    int rc = s->changes ? annotate_changes(s, out, first) : 0;
    if (rc == 0 && s->deleted_rows) {
        if (rows_keep_listed(&s->schema, out, first, &s->dv, &e) != 0)
            rc = scan_fail(s, "%s", e.msg);
    } else if (rc == 0 && s->dv.n > 0) {
        if (rows_drop_deleted(&s->schema, out, first, &s->dv, &dropped, &e) != 0)
            rc = scan_fail(s, "%s", e.msg);
    }
    if (rc != 0)
        out->release(out);
    return rc;
}

/* The rows of the batch (read as `at` says) the predicate selects and the
 * deletion vector leaves, the rest dropped. */
static int filter_batch(struct scan *s, struct ArrowArray *b, const struct client_rows_at *at)
{
    uint8_t *keep = malloc((size_t)b->length + 1);
    if (!keep)
        return scan_fail(s, "out of memory");
    struct error e;
    int rc = 0;
    if (s->pred)
        rc = expr_pred_eval(s->pred, &s->schema, b, keep, NULL, &e);
    else
        memset(keep, 1, (size_t)b->length);
    if (rc == 0 && s->dv.n > 0)
        client_mask_positions(&s->dv, at, keep);
    if (rc == 0)
        rc = rows_filter(&s->schema, b, keep, &e);
    free(keep);
    return rc == 0 ? 0 : scan_fail(s, "%s", e.msg);
}

/* A chunk of a row group of the open file read for hl_table_scan_with
 * (out left released at a group's end, or for a pruned group): the pages
 * that may match decoded and filtered. */
static int next_filtered_batch(struct scan *s, struct ArrowArray *out)
{
    struct error e;
    out->release = NULL;
    if (!s->chunks) {
        size_t g = take_group(s);
        if (client_row_group_chunks(&s->table, s->pred, s->reader, g, s->chunk_base, &s->proj,
                                    &s->group_scratch, &s->chunks, &s->got, &e) != 0) {
            close_group(s);
            return scan_fail(s, "%s", e.msg);
        }
        if (s->got.at.n == 0) {
            s->stats.row_groups_pruned++;
            close_group(s);
            return 0;
        }
        s->stats.row_groups_scanned++;
        s->stats.pages_scanned += s->got.pages_read;
        s->stats.pages_pruned += s->got.pages_skipped;
    }
    int64_t first;
    int got = next_chunk(s, out, &first);
    if (got <= 0)
        return got;
    struct client_rows_at part;
    if (client_rows_at_part(&s->got.at, first, out->length, &s->group_scratch, &part) != 0) {
        out->release(out);
        return scan_fail(s, "out of memory");
    }
    if (filter_batch(s, out, &part) != 0) {
        out->release(out);
        return -1;
    }
    return 0;
}

/* The batch as handed out: at most the rows still wanted, the projected
 * columns in their order. */
static int shape_output(struct scan *s, struct ArrowArray *b)
{
    struct error e;
    if (s->left >= 0 && b->length > s->left) {
        uint8_t *keep = calloc((size_t)b->length, 1);
        if (!keep)
            return scan_fail(s, "out of memory");
        memset(keep, 1, (size_t)s->left);
        int rc = rows_filter(&s->schema, b, keep, &e);
        free(keep);
        if (rc != 0)
            return scan_fail(s, "%s", e.msg);
    }
    if (s->left >= 0)
        s->left -= b->length;
    s->stats.rows_matched += b->length;
    if (!s->out_cols)
        return 0;
    struct ArrowArray shaped;
    if (arrow_array_init(&shaped, 1, (int64_t)s->nout) != 0)
        return scan_fail(s, "out of memory");
    shaped.length = b->length;
    for (size_t i = 0; i < s->nout; i++)
        arrow_array_move(b->children[s->out_cols[i]], shaped.children[i]);
    b->release(b);
    arrow_array_move(&shaped, b);
    return 0;
}

/* The batch's variant columns as JSON text, where asked for. */
static int variant_json_batch(struct scan *s, struct ArrowArray *b)
{
    for (size_t i = 0; s->variant_json && i < output_count(s); i++) {
        if (s->table.root.children[output_column(s, i)]->type != LT_VARIANT)
            continue;
        struct ArrowArray text;
        struct error e;
        if (rows_variant_to_json(b->children[i], &text, &e) != 0)
            return scan_fail(s, "column '%s': %s",
                             s->table.root.children[output_column(s, i)]->name, e.msg);
        b->children[i]->release(b->children[i]);
        arrow_array_move(&text, b->children[i]);
    }
    return 0;
}

/* Replaces the page read to its end with the plan's next page. */
static int next_plan_page(struct scan *s)
{
    struct hl_at at = {s->snapshot, NULL};
    json_t *files = NULL;
    char *next = NULL;
    struct hl_error e;
    hl_status st =
        client_plan_page(s->handle, &at, s->pred != NULL, s->next_token, &files, &next, &e);
    free(s->next_token);
    s->next_token = next;
    if (st != HL_OK)
        return scan_fail(s, "reading the scan plan's next page: %s", e.message);
    json_decref(s->plan);
    s->plan = files;
    s->next_file = 0;
    return 0;
}

/* The next row group's batch of the open file (out left released when
 * none of its rows is handed out). */
static int read_group(struct scan *s, struct ArrowArray *out)
{
    bool options = s->pred || s->out_cols || s->left >= 0 || s->stats_out;
    int rc = options ? next_filtered_batch(s, out) : next_batch(s, out);
    if (rc == 0 && out->release && out->length == 0)
        out->release(out); /* every row of the group deleted or filtered out */
    if (rc == 0 && out->release && options && shape_output(s, out) != 0) {
        out->release(out);
        rc = -1;
    }
    if (rc == 0 && out->release && variant_json_batch(s, out) != 0) {
        out->release(out);
        rc = -1;
    }
    if (s->stats_out)
        *s->stats_out = s->stats;
    return rc;
}

/* Opens the plan's next file, or counts it pruned. */
static int next_file(struct scan *s)
{
    const json_t *sf = json_array_get(s->plan, s->next_file++);
    if (s->pred) {
        struct arena scratch;
        arena_init(&scratch, 0);
        bool may =
            client_file_may_match(&s->table, s->pred, json_object_get(sf, "data_file"), &scratch);
        arena_free(&scratch);
        if (!may) {
            s->stats.files_pruned++;
            return 0;
        }
    }
    if (open_file(s, sf) != 0) {
        close_file(s);
        return -1;
    }
    s->stats.files_scanned++;
    return 0;
}

static int scan_get_next(struct ArrowArrayStream *stream, struct ArrowArray *out)
{
    struct scan *s = stream->private_data;
    memset(out, 0, sizeof *out);
    while (s->left != 0) {
        if (s->reader && (s->chunks || s->next_group < pq_reader_meta(s->reader)->nrow_groups)) {
            if (read_group(s, out) != 0)
                return EIO;
            if (out->release)
                return 0;
            continue;
        }
        close_file(s);
        if (s->next_file >= json_array_size(s->plan)) {
            if (!s->next_token)
                break;
            if (next_plan_page(s) != 0)
                return EIO;
            continue;
        }
        if (next_file(s) != 0)
            return EIO;
    }
    if (s->stats_out)
        *s->stats_out = s->stats;
    return 0; /* the end: out stays released */
}

static const char *scan_last_error(struct ArrowArrayStream *stream)
{
    struct scan *s = stream->private_data;
    return s->last_error[0] ? s->last_error : NULL;
}

static void scan_release(struct ArrowArrayStream *stream)
{
    struct scan *s = stream->private_data;
    close_file(s);
    arena_free(&s->group_scratch);
    json_decref(s->plan);
    free(s->next_token);
    if (s->schema.release)
        s->schema.release(&s->schema);
    lake_table_release(&s->table);
    arena_free(&s->arena);
    free(s);
    stream->release = NULL;
}

/* The changefeed's trailing columns join the table read. */
static hl_status add_change_columns(struct lake_table *t, struct hl_error *err)
{
    int ordinal = (int)t->root.nchildren;
    struct error le;
    if (lake_table_load_column(t, LAKE_ROW_ID_FIELD_ID, 0, "_row_id", LT_LONG, 0, 0, false, ordinal,
                               NULL, &le) != 0 ||
        lake_table_load_column(t, LAKE_CHANGE_TYPE_FIELD_ID, 0, "_change_type", LT_STRING, 0, 0,
                               false, ordinal + 1, NULL, &le) != 0)
        return le.code == ERR_NOMEM ? client_nomem(err)
                                    : client_fail(err, HL_ERR_PROTOCOL, "protocol",
                                                  "the table has a column named like the "
                                                  "changefeed's: %s",
                                                  le.msg);
    return HL_OK;
}

/* A stream over plan (taken), read as info describes the table; a
 * changefeed's (changes) adds _row_id and _change_type. */
static hl_status scan_open(hl_table *t, const json_t *info, json_t *plan, bool changes,
                           struct ArrowArrayStream *out, struct hl_error *err)
{
    struct scan *s = calloc(1, sizeof *s);
    if (!s) {
        json_decref(plan);
        return client_nomem(err);
    }
    arena_init(&s->arena, 0);
    arena_init(&s->group_scratch, 0);
    lake_table_init(&s->table, &s->arena);
    s->plan = plan;
    s->changes = changes;
    s->left = -1;
    hl_status st = client_table_from_info(info, &s->table, err);
    if (st == HL_OK && changes)
        st = add_change_columns(&s->table, err);
    if (st == HL_OK && rows_table_arrow_schema(&s->table, &s->schema) != 0)
        st = client_nomem(err);
    if (st == HL_OK)
        st = client_store(t->ns->catalog->client, &s->store, err);
    if (st != HL_OK) {
        struct ArrowArrayStream tmp = {.private_data = s};
        scan_release(&tmp);
        return st;
    }
    out->get_schema = scan_get_schema;
    out->get_next = scan_get_next;
    out->get_last_error = scan_last_error;
    out->release = scan_release;
    out->private_data = s;
    return HL_OK;
}

hl_status client_scan_plan(hl_table *t, const json_t *info, json_t *plan,
                           struct ArrowArrayStream *out, struct hl_error *err)
{
    return scan_open(t, info, plan, false, out, err);
}

/* The Table object at `at` (parsed), and the snapshot it resolved at. */
static hl_status table_info_at(hl_table *t, const struct hl_at *at, json_t **info,
                               int64_t *snapshot, struct hl_error *err)
{
    char *text = NULL;
    hl_status st = hl_table_info(t, at, &text, err);
    if (st != HL_OK)
        return st;
    *info = json_loads(text, 0, NULL);
    free(text);
    if (!*info)
        return client_nomem(err);
    if (!client_json_int(*info, "read_snapshot_id", snapshot)) {
        json_decref(*info);
        *info = NULL;
        return client_fail(err, HL_ERR_PROTOCOL, "protocol",
                           "the Table answer has no read_snapshot_id");
    }
    return HL_OK;
}

void hl_scan_options_init(struct hl_scan_options *o)
{
    memset(o, 0, sizeof *o);
    o->limit = -1;
}

/* The projection's table columns, in the order asked, into s. */
static hl_status resolve_columns(struct scan *s, const struct hl_scan_options *o,
                                 struct hl_error *err)
{
    size_t n = s->table.root.nchildren;
    s->out_cols = arena_calloc(&s->arena, o->ncolumns, sizeof *s->out_cols);
    if (!s->out_cols)
        return client_nomem(err);
    s->nout = o->ncolumns;
    for (size_t i = 0; i < o->ncolumns; i++) {
        const char *name = o->columns[i];
        size_t c = 0;
        while (c < n && (!name || strcmp(s->table.root.children[c]->name, name) != 0))
            c++;
        if (c == n)
            return client_fail(err, HL_ERR_INVALID_ARGUMENT, "unknown_column",
                               "the table has no column '%s'", name ? name : "(null)");
        if (s->wanted[c])
            return client_fail(err, HL_ERR_INVALID_ARGUMENT, "unknown_column",
                               "column '%s' is asked for twice", name);
        s->wanted[c] = true;
        s->out_cols[i] = c;
    }
    return HL_OK;
}

/* The options into s: the columns to decode and hand out, the predicate
 * bound to the table read, the limit and the counters. */
static hl_status apply_options(struct scan *s, const struct hl_scan_options *o,
                               struct hl_error *err)
{
    size_t n = s->table.root.nchildren;
    s->left = o->limit < 0 ? -1 : o->limit;
    s->variant_json = o->variant_as_json;
    s->stats_out = o->stats;
    if (o->stats)
        memset(o->stats, 0, sizeof *o->stats);
    s->wanted = arena_calloc(&s->arena, n ? n : 1, sizeof *s->wanted);
    if (!s->wanted)
        return client_nomem(err);
    if (o->ncolumns == 0)
        memset(s->wanted, 1, n * sizeof *s->wanted);
    else if (resolve_columns(s, o, err) != HL_OK)
        return err->status;
    if (!o->predicate)
        return HL_OK;
    struct error e;
    if (expr_compile_predicate(&s->arena, &s->table, o->predicate, strlen(o->predicate), &s->pred,
                               &e) != 0)
        return e.code == ERR_NOMEM
                   ? client_nomem(err)
                   : client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_predicate", "%s", e.msg);
    const struct expr_columns *cols = expr_pred_columns(s->pred);
    for (size_t i = 0; i < cols->ntop; i++)
        s->wanted[cols->top[i]] = true;
    return HL_OK;
}

hl_status hl_table_scan(hl_table *t, const struct hl_at *at, struct ArrowArrayStream *out,
                        struct hl_error *err)
{
    return hl_table_scan_with(t, at, NULL, out, err);
}

hl_status hl_table_scan_with(hl_table *t, const struct hl_at *at,
                             const struct hl_scan_options *options, struct ArrowArrayStream *out,
                             struct hl_error *err)
{
    memset(out, 0, sizeof *out);
    hl_status st = client_check_at(at, err);
    if (st != HL_OK)
        return st;
    /* The table as of the snapshot read, and the plan pinned to the same
     * snapshot, so columns and files agree. */
    struct hl_at pin = {t->ddl_snapshot, NULL};
    bool travel = at && (at->snapshot >= 0 || at->at_timestamp);
    json_t *info = NULL;
    int64_t snapshot = -1;
    st = table_info_at(t, travel ? at : t->ddl_snapshot >= 0 ? &pin : NULL, &info, &snapshot, err);
    if (st != HL_OK)
        return st;
    /* The options bind to the table read, before the plan is asked for. */
    st = scan_open(t, info, NULL, false, out, err);
    json_decref(info);
    struct scan *s = st == HL_OK ? out->private_data : NULL;
    if (s && options)
        st = apply_options(s, options, err);
    /* The plan's first page now (its errors are this call's); the rest as
     * the stream reaches them, at the same snapshot. */
    struct hl_at at_read = {snapshot, NULL};
    if (st == HL_OK) {
        s->handle = t;
        s->snapshot = snapshot;
        st = client_plan_page(t, &at_read, s->pred != NULL, NULL, &s->plan, &s->next_token, err);
    }
    if (st != HL_OK && out->release)
        out->release(out);
    return st;
}

hl_status hl_table_scan_changes(hl_table *t, int64_t from_snapshot, int64_t to_snapshot,
                                struct ArrowArrayStream *out, int64_t *resolved_to,
                                struct hl_error *err)
{
    memset(out, 0, sizeof *out);
    if (resolved_to)
        *resolved_to = -1;
    char *text = NULL;
    hl_status st = hl_table_changes(t, from_snapshot, to_snapshot, &text, err);
    if (st != HL_OK)
        return st;
    json_t *changes = json_loads(text, 0, NULL);
    free(text);
    int64_t to = -1;
    json_t *plan = NULL;
    if (!changes)
        st = client_nomem(err);
    else if (!client_json_int(changes, "to_snapshot", &to))
        st = client_fail(err, HL_ERR_PROTOCOL, "protocol", "the changes plan lacks to_snapshot");
    else
        st = client_changes_plan(changes, &plan, err);
    json_decref(changes);
    /* Read with the table as of `to`. */
    json_t *info = NULL;
    int64_t snapshot;
    struct hl_at at = {to, NULL};
    if (st == HL_OK)
        st = table_info_at(t, &at, &info, &snapshot, err);
    if (st == HL_OK)
        st = scan_open(t, info, plan, true, out, err);
    else
        json_decref(plan);
    json_decref(info);
    if (st == HL_OK && resolved_to)
        *resolved_to = to;
    return st;
}

hl_status hl_table_read_plan(hl_table *t, const json_t *info, json_t *plan,
                             struct ArrowArrayStream *out, struct hl_error *err)
{
    return client_scan_plan(t, info, plan, out, err);
}
