/* Data files of a table at a snapshot: the listing (GET .../files) and one
 * file's column statistics (GET .../files/{file_id}/stats), plus the pieces
 * the scan and changefeed handlers share (handlers/files.h). */
#include "server/handlers/files.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lake/bounds.h"
#include "server/db/db.h"
#include "server/db/pgarray.h"
#include "server/handlers/handlers.h"
#include "server/table_store.h"
#include "util/strutil.h"

/* ---- the table at a snapshot ---- */

static void index_column(struct lake_column *c, void *ctx)
{
    struct table_read *tr = ctx;
    tr->fields[tr->nfields].field_id = c->field_id;
    tr->fields[tr->nfields].col = c;
    tr->nfields++;
}

static void count_column(struct lake_column *c, void *ctx)
{
    (void)c;
    (*(size_t *)ctx)++;
}

static int field_slot_cmp(const void *a, const void *b)
{
    int64_t x = ((const struct field_slot *)a)->field_id;
    int64_t y = ((const struct field_slot *)b)->field_id;
    return (x > y) - (x < y);
}

int table_read_open_at(struct srv_req *req, struct table_read *tr, int64_t snapshot,
                       bool time_travel, struct api_error *err)
{
    tr->snapshot = snapshot;
    tr->time_travel = time_travel;
    int64_t ns_id;
    if (namespace_resolve(req, &tr->cat, req->params[1], snapshot, time_travel, &ns_id, err) != 0 ||
        table_resolve(req, &tr->cat, req->params[1], ns_id, req->params[2], snapshot, time_travel,
                      &tr->ref, err) != 0)
        return -1;
    lake_table_init(&tr->t, &req->arena);
    tr->loaded = true;
    if (table_load(req, &tr->cat, &tr->ref, snapshot, false, &tr->t, err) != 0)
        return -1;
    /* Stats rows are looked up by field id per row: index the columns once
     * (lake_table_find_field walks the tree). */
    size_t n = 0;
    lake_table_walk(&tr->t, count_column, &n);
    tr->fields = arena_calloc(&req->arena, n ? n : 1, sizeof *tr->fields);
    if (!tr->fields)
        return api_nomem(err);
    tr->nfields = 0;
    lake_table_walk(&tr->t, index_column, tr);
    qsort(tr->fields, tr->nfields, sizeof *tr->fields, field_slot_cmp);
    return 0;
}

int table_read_open(struct srv_req *req, struct table_read *tr, struct api_error *err)
{
    memset(tr, 0, sizeof *tr);
    bool at_head;
    int64_t snapshot;
    if (catalog_load(req, req->params[0], &tr->cat, err) != 0 ||
        timetravel_resolve(req, &tr->cat, &snapshot, &at_head, err) != 0)
        return -1;
    return table_read_open_at(req, tr, snapshot, !at_head, err);
}

void table_read_release(struct table_read *tr)
{
    if (tr->loaded)
        lake_table_release(&tr->t);
    tr->loaded = false;
}

const struct lake_column *table_read_field(const struct table_read *tr, int64_t field_id)
{
    struct field_slot key = {.field_id = field_id};
    const struct field_slot *hit =
        bsearch(&key, tr->fields, tr->nfields, sizeof *tr->fields, field_slot_cmp);
    return hit ? hit->col : NULL;
}

/* ---- bounds ---- */

const uint8_t *file_bytea(const PGresult *r, int row, int col, struct buf *scratch, size_t *len)
{
    const char *text = db_str(r, row, col);
    if (!text)
        return NULL;
    buf_reset(scratch);
    if (text[0] == '\\' && text[1] == 'x') {
        for (const char *p = text + 2; *p; p += 2) {
            int hi = str_hex_digit(p[0]), lo = hi >= 0 ? str_hex_digit(p[1]) : -1;
            if (lo < 0)
                return NULL;
            if (buf_putc(scratch, (char)(hi * 16 + lo)) != 0)
                return NULL;
        }
    } else {
        /* bytea_output = escape */
        size_t n = 0;
        unsigned char *raw = PQunescapeBytea((const unsigned char *)text, &n);
        if (!raw)
            return NULL;
        int rc = buf_append(scratch, raw, n);
        PQfreemem(raw);
        if (rc != 0)
            return NULL;
    }
    *len = scratch->len;
    /* A zero-length bound is valid (an empty string): never hand back NULL
     * for it. */
    return scratch->data ? (const uint8_t *)scratch->data : (const uint8_t *)"";
}

static int64_t get_le(const uint8_t *b, size_t n)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v |= (uint64_t)b[i] << (8 * i);
    if (n < 8 && (b[n - 1] & 0x80))
        v |= ~(uint64_t)0 << (8 * n); /* sign-extend */
    return (int64_t)v;
}

static void put_le(uint8_t *b, size_t n, uint64_t v)
{
    for (size_t i = 0; i < n; i++)
        b[i] = (uint8_t)(v >> (8 * i));
}

/* The bytes of a bound stored under a promotion's other width, re-encoded
 * for the column's type: 4-byte ints widen to 8 (int/int8/int16 -> long,
 * uint8/uint16 -> uint32), 8-byte ints narrow to 4 when the value fits
 * (bound_check then checks the type's range), float widens to double and
 * a double narrows to float when exact. False when nothing applies. */
static bool adapt_width(enum lake_type t, const uint8_t *b, size_t n, uint8_t out[8],
                        size_t *out_len)
{
    switch (t) {
    case LT_LONG:
    case LT_UINT32:
        if (n != 4)
            return false;
        put_le(out, 8, (uint64_t)get_le(b, 4));
        *out_len = 8;
        return true;
    case LT_INT8:
    case LT_INT16:
    case LT_INT:
    case LT_UINT8:
    case LT_UINT16: {
        if (n != 8)
            return false;
        int64_t v = get_le(b, 8);
        if (v < INT32_MIN || v > INT32_MAX)
            return false;
        put_le(out, 4, (uint64_t)v);
        *out_len = 4;
        return true;
    }
    case LT_DOUBLE: {
        if (n != 4)
            return false;
        uint32_t bits = (uint32_t)get_le(b, 4);
        float f;
        memcpy(&f, &bits, sizeof f);
        double d = (double)f;
        uint64_t dbits;
        memcpy(&dbits, &d, sizeof dbits);
        put_le(out, 8, dbits);
        *out_len = 8;
        return true;
    }
    case LT_FLOAT: {
        if (n != 8)
            return false;
        uint64_t bits = (uint64_t)get_le(b, 8);
        double d;
        memcpy(&d, &bits, sizeof d);
        float f = (float)d;
        if (isnan(d) || (double)f != d)
            return false;
        uint32_t fbits;
        memcpy(&fbits, &f, sizeof fbits);
        put_le(out, 4, fbits);
        *out_len = 4;
        return true;
    }
    default: return false;
    }
}

json_t *file_bound_json(const struct lake_column *c, const PGresult *r, int row, int col,
                        struct buf *scratch)
{
    size_t n = 0;
    const uint8_t *b = file_bytea(r, row, col, scratch, &n);
    if (!b || !c || !bound_type_has_bounds(c->type))
        return json_null();
    const char *why = NULL;
    json_t *v = bound_to_json(c->type, c->precision, c->scale, b, n, &why);
    if (!v) {
        uint8_t w[8];
        size_t wn;
        if (adapt_width(c->type, b, n, w, &wn))
            v = bound_to_json(c->type, c->precision, c->scale, w, wn, &why);
    }
    return v ? v : json_null();
}

/* ---- response shapes ---- */

int file_json_set(json_t *o, const char *key, json_t *value)
{
    if (!value)
        return -1;
    if (!o) {
        json_decref(value);
        return -1;
    }
    return json_object_set_new(o, key, value) == 0 ? 0 : -1;
}

static json_t *jint(const PGresult *r, int row, int col)
{
    return json_integer((json_int_t)db_i64(r, row, col));
}

json_t *data_file_json(const PGresult *r, int row, int c)
{
    json_t *o = json_object();
    int bad = 0;
    bad |= file_json_set(o, "data_file_id", jint(r, row, c + 0));
    bad |= file_json_set(o, "path", json_string(db_str(r, row, c + 1)));
    bad |= file_json_set(o, "file_format", json_string(db_str(r, row, c + 2)));
    bad |= file_json_set(o, "record_count", jint(r, row, c + 3));
    bad |= file_json_set(o, "file_size_bytes", jint(r, row, c + 4));
    bad |= file_json_set(o, "row_id_start", jint(r, row, c + 5));
    bad |= file_json_set(o, "stats_state", json_string(db_str(r, row, c + 6)));
    bad |= file_json_set(o, "begin_snapshot", jint(r, row, c + 7));
    if (!db_isnull(r, row, c + 8))
        bad |= file_json_set(o, "footer_size", jint(r, row, c + 8));
    if (!db_isnull(r, row, c + 9))
        bad |= file_json_set(o, "spec_id", jint(r, row, c + 9));
    if (!db_isnull(r, row, c + 11)) {
        json_error_t jerr;
        bad |= file_json_set(o, "partition_values", json_loads(db_str(r, row, c + 11), 0, &jerr));
    }
    bad |= file_json_set(o, "explicit_row_ids", json_boolean(db_bool(r, row, c + 10)));
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

json_t *delete_file_json(const PGresult *r, int row, int c)
{
    if (db_isnull(r, row, c))
        return NULL;
    json_t *o = json_object();
    int bad = 0;
    bad |= file_json_set(o, "delete_file_id", jint(r, row, c + 0));
    bad |= file_json_set(o, "data_file_id", jint(r, row, c + 1));
    bad |= file_json_set(o, "path", json_string(db_str(r, row, c + 2)));
    bad |= file_json_set(o, "file_format", json_string(db_str(r, row, c + 3)));
    bad |= file_json_set(o, "delete_count", jint(r, row, c + 4));
    bad |= file_json_set(o, "file_size_bytes", jint(r, row, c + 5));
    bad |= file_json_set(o, "begin_snapshot", jint(r, row, c + 6));
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* ---- GET .../files ---- */

enum { FILES_MAX_LIMIT = 10000, MAX_PARTITION_FILTERS = LAKE_MAX_SPEC_FIELDS };

/* Sort keys: the wire name and the ORDER BY columns, each followed by the
 * direction. data_file_id ends every key, so pages are stable. */
static const struct {
    const char *wire;
    const char *columns[3];
} file_sorts[] = {
    {"id", {"d.data_file_id", NULL, NULL}},
    {"path", {"d.path COLLATE \"C\"", "d.data_file_id", NULL}},
    {"record_count", {"d.record_count", "d.data_file_id", NULL}},
    {"size", {"d.file_size_bytes", "d.data_file_id", NULL}},
    {"stats", {"d.stats_state", "d.data_file_id", NULL}},
    {"begin_snapshot", {"d.begin_snapshot", "d.row_id_start", "d.data_file_id"}},
};
enum { DEFAULT_SORT = 5 };

struct files_query {
    size_t sort;
    bool desc;
    bool has_limit;
    int64_t limit, offset;
    struct pg_array keys, values;
    size_t nfilters;
};

/* partition=K:V matches files whose stored value at key index K is
 * exactly V (V may be empty: the empty string); partition=K (no colon)
 * matches a NULL value there. */
static int parse_partition_filter(struct files_query *q, const char *arg, struct api_error *err)
{
    if (++q->nfilters > MAX_PARTITION_FILTERS)
        return api_bad_request(err, "at most %d partition filters may be given",
                               MAX_PARTITION_FILTERS);
    const char *colon = strchr(arg, ':');
    size_t klen = colon ? (size_t)(colon - arg) : strlen(arg);
    char key[24];
    int64_t k = -1;
    if (klen == 0 || klen >= sizeof key)
        goto malformed;
    memcpy(key, arg, klen);
    key[klen] = '\0';
    if (!str_parse_int64(key, &k) || k < 0 || k > INT32_MAX)
        goto malformed;
    if (colon && !str_utf8_valid(colon + 1, strlen(colon + 1), NULL))
        return api_bad_request(err, "query parameter 'partition': the value is not valid UTF-8");
    pg_array_i64(&q->keys, k);
    pg_array_str(&q->values, colon ? colon + 1 : NULL);
    return 0;
malformed:
    return api_bad_request(err,
                           "query parameter 'partition' must be key_index:value (or key_index "
                           "alone for a NULL value) with a non-negative integer key_index, got "
                           "'%.80s'",
                           arg);
}

static int parse_files_query(struct srv_req *req, struct files_query *q, struct api_error *err)
{
    q->sort = DEFAULT_SORT;
    const char *sort = req_arg(req, "sort");
    if (sort) {
        size_t i = 0;
        while (i < sizeof file_sorts / sizeof file_sorts[0] && strcmp(file_sorts[i].wire, sort))
            i++;
        if (i == sizeof file_sorts / sizeof file_sorts[0])
            return api_validation(err,
                                  "query parameter 'sort' must be one of id, path, record_count, "
                                  "size, stats, begin_snapshot, got '%.64s'",
                                  sort);
        q->sort = i;
    }
    const char *order = req_arg(req, "order");
    if (order && strcmp(order, "asc") != 0 && strcmp(order, "desc") != 0)
        return api_validation(err, "query parameter 'order' must be asc or desc, got '%.64s'",
                              order);
    q->desc = order && strcmp(order, "desc") == 0;
    bool has_offset;
    if (req_arg_i64(req, "limit", &q->has_limit, &q->limit, err) != 0 ||
        req_arg_i64(req, "offset", &has_offset, &q->offset, err) != 0)
        return -1;
    if (q->has_limit && (q->limit < 1 || q->limit > FILES_MAX_LIMIT))
        return api_validation(err, "limit must be between 1 and %d, got %lld", FILES_MAX_LIMIT,
                              (long long)q->limit);
    if (!has_offset)
        q->offset = 0;
    if (q->offset < 0)
        return api_validation(err, "offset must be >= 0, got %lld", (long long)q->offset);
    for (size_t i = 0; i < req->nargs; i++)
        if (strcmp(req->args[i].key, "partition") == 0 &&
            parse_partition_filter(q, req->args[i].value, err) != 0)
            return -1;
    return 0;
}

/* FileOrderingBounds: the leading sort field's decoded bounds when the
 * table is sorted at the snapshot, else the file's row-id span. */
static json_t *ordering_bounds(const PGresult *r, int row, const struct lake_column *lead,
                               struct buf *scratch)
{
    json_t *o = json_object();
    int bad = 0;
    if (lead) {
        bad |= file_json_set(o, "lower_bound",
                             file_bound_json(lead, r, row, DATA_FILE_NCOLS, scratch));
        bad |= file_json_set(o, "upper_bound",
                             file_bound_json(lead, r, row, DATA_FILE_NCOLS + 1, scratch));
        bad |= file_json_set(o, "field_id", json_integer((json_int_t)lead->field_id));
    } else {
        int64_t start = db_i64(r, row, DF_ROW_ID_START), records = db_i64(r, row, DF_RECORDS);
        bad |= file_json_set(o, "lower_bound", json_integer((json_int_t)start));
        /* Compaction outputs carry explicit row ids: only the minimum is
         * known. An empty file has no last row id. */
        bool open = db_bool(r, row, DF_EXPLICIT_ROW_IDS) || records == 0;
        bad |= file_json_set(o, "upper_bound",
                             open ? json_null() : json_integer((json_int_t)(start + records - 1)));
    }
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

int h_table_files(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    struct files_query q;
    memset(&q, 0, sizeof q);
    pg_array_init(&q.keys);
    pg_array_init(&q.values);
    struct table_read tr;
    memset(&tr, 0, sizeof tr);
    struct buf sql = BUF_INIT, scratch = BUF_INIT;
    int sqlbad = 0;
    PGresult *r = NULL;
    json_t *out = NULL;
    int rc = -1;
    if (parse_files_query(req, &q, err) != 0 || table_read_open(req, &tr, err) != 0)
        goto done;
    const struct lake_column *lead = NULL;
    if (tr.t.sorted && tr.t.nsort_fields > 0) {
        lead = table_read_field(&tr, tr.t.sort_fields[0].source_field_id);
        if (lead && !bound_type_has_bounds(lead->type))
            lead = NULL;
    }
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, tr.cat.id);
    db_param_i64(&p, tr.ref.table_id);
    db_param_i64(&p, tr.snapshot);
    if (lead)
        db_param_i64(&p, lead->field_id);
    else
        db_param_null(&p);
    /* The leading sort field's stats row rides a LEFT JOIN ($4 is NULL,
     * matching nothing, when the table is unsorted). */
    sqlbad |= buf_puts(&sql, "SELECT " DATA_FILE_COLUMNS ", s.lower_bound, s.upper_bound"
                             " FROM hog_data_file d LEFT JOIN hog_file_column_stats s"
                             " ON s.catalog_id = d.catalog_id AND s.data_file_id = d.data_file_id"
                             " AND s.field_id = $4::bigint"
                             " WHERE d.catalog_id = $1 AND d.table_id = $2"
                             " AND hog_visible(d.begin_snapshot, d.end_snapshot, $3)");
    if (q.nfilters) {
        const char *keys = pg_array_text(&q.keys), *values = pg_array_text(&q.values);
        if (!keys || !values) {
            api_nomem(err);
            goto done;
        }
        db_param_str(&p, keys);
        db_param_str(&p, values);
        /* Every filter (key, value) has a matching stored value. */
        sqlbad |=
            buf_printf(&sql,
                       " AND NOT EXISTS (SELECT 1 FROM unnest($%d::int[], $%d::text[]) AS f(k, v)"
                       "  WHERE NOT EXISTS (SELECT 1 FROM hog_file_partition_value pv"
                       "   WHERE pv.catalog_id = d.catalog_id AND pv.data_file_id = d.data_file_id"
                       "   AND pv.key_index = f.k AND pv.value IS NOT DISTINCT FROM f.v))",
                       p.n - 1, p.n);
    }
    sqlbad |= buf_puts(&sql, " ORDER BY ");
    for (size_t i = 0; i < 3 && file_sorts[q.sort].columns[i]; i++)
        sqlbad |= buf_printf(&sql, "%s%s %s", i ? ", " : "", file_sorts[q.sort].columns[i],
                             q.desc ? "DESC" : "ASC");
    if (q.has_limit)
        db_param_i64(&p, q.limit);
    else
        db_param_null(&p);
    db_param_i64(&p, q.offset);
    sqlbad |= buf_printf(&sql, " LIMIT $%d::bigint OFFSET $%d::bigint", p.n - 1, p.n);
    if (sqlbad || !sql.data) {
        api_nomem(err);
        goto done;
    }
    r = req_query(req, sql.data, &p, "file listing", err);
    if (!r)
        goto done;
    out = json_array();
    if (!out) {
        api_nomem(err);
        goto done;
    }
    for (int i = 0; i < PQntuples(r); i++) {
        json_t *f = data_file_json(r, i, 0);
        if (file_json_set(f, "ordering_bounds", ordering_bounds(r, i, lead, &scratch)) != 0 ||
            json_array_append_new(out, f) != 0) {
            api_nomem(err);
            goto done;
        }
    }
    if (api_json(res, 200, out) != 0) {
        out = NULL;
        api_nomem(err);
        goto done;
    }
    out = NULL;
    rc = 0;
done:
    json_decref(out);
    if (r)
        PQclear(r);
    buf_free(&sql);
    buf_free(&scratch);
    pg_array_free(&q.keys);
    pg_array_free(&q.values);
    table_read_release(&tr);
    return rc;
}

/* ---- GET .../files/{file_id}/stats ---- */

static const char *no_stats_reason(const char *state, bool any)
{
    if (strcmp(state, "pending") == 0)
        return "pending: the file was registered without column statistics and they have not "
               "been collected from its footer yet";
    if (strcmp(state, "failed") == 0)
        return "failed: collecting column statistics from the file's footer failed";
    if (!any)
        return "provided: the writer registered no column statistics for the table's columns";
    return NULL;
}

static json_t *file_column_json(const struct lake_column *c, const PGresult *r, int i,
                                struct buf *scratch)
{
    char path[1200];
    lake_column_path(c, path, sizeof path);
    json_t *o = json_object();
    int bad = 0;
    bad |= file_json_set(o, "field_id", json_integer((json_int_t)c->field_id));
    bad |= file_json_set(o, "name", json_string(c->name));
    bad |= file_json_set(o, "path", json_string(path));
    bad |= file_json_set(o, "type", json_string(lake_type_name(c->type)));
    bad |= file_json_set(o, "value_count", jint(r, i, 1));
    bad |= file_json_set(o, "null_count", jint(r, i, 2));
    bad |= file_json_set(o, "lower_bound", file_bound_json(c, r, i, 5, scratch));
    bad |= file_json_set(o, "upper_bound", file_bound_json(c, r, i, 6, scratch));
    json_t *params = lake_column_type_params(c);
    if (params)
        bad |= file_json_set(o, "type_params", params);
    if (!db_isnull(r, i, 3))
        bad |= file_json_set(o, "nan_count", jint(r, i, 3));
    if (!db_isnull(r, i, 4))
        bad |= file_json_set(o, "size_bytes", jint(r, i, 4));
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

int h_table_file_stats(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    int64_t file_id;
    if (!str_parse_int64(req->params[3], &file_id))
        return api_bad_request(err, "path parameter {file_id} must be an integer, got '%.40s'",
                               req->params[3]);
    struct table_read tr;
    if (table_read_open(req, &tr, err) != 0) {
        table_read_release(&tr);
        return -1;
    }
    struct buf scratch = BUF_INIT;
    PGresult *r = NULL;
    json_t *o = NULL;
    int rc = -1;
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, tr.cat.id);
    db_param_i64(&p, tr.ref.table_id);
    db_param_i64(&p, tr.snapshot);
    db_param_i64(&p, file_id);
    /* One round trip: the file row (visible at the snapshot, in this
     * table) LEFT JOINed to its statistics rows. */
    r = req_query(req,
                  "SELECT s.field_id, s.value_count, s.null_count, s.nan_count, s.size_bytes,"
                  " s.lower_bound, s.upper_bound, d.stats_state"
                  " FROM hog_data_file d LEFT JOIN hog_file_column_stats s"
                  " ON s.catalog_id = d.catalog_id AND s.data_file_id = d.data_file_id"
                  " WHERE d.catalog_id = $1 AND d.table_id = $2 AND d.data_file_id = $4"
                  " AND hog_visible(d.begin_snapshot, d.end_snapshot, $3)"
                  " ORDER BY s.field_id",
                  &p, "file stats", err);
    if (!r)
        goto done;
    if (PQntuples(r) == 0) {
        if (tr.time_travel)
            api_not_found(err, "data file %lld in table '%.200s.%.200s' at snapshot %lld",
                          (long long)file_id, req->params[1], req->params[2],
                          (long long)tr.snapshot);
        else
            api_not_found(err, "data file %lld in table '%.200s.%.200s'", (long long)file_id,
                          req->params[1], req->params[2]);
        goto done;
    }
    const char *state = db_str(r, 0, 7);
    json_t *cols = json_array();
    o = json_object();
    int bad = 0;
    bad |= file_json_set(o, "data_file_id", json_integer((json_int_t)file_id));
    bad |= file_json_set(o, "stats_state", json_string(state));
    bad |= file_json_set(o, "columns", cols);
    for (int i = 0; !bad && i < PQntuples(r); i++) {
        if (db_isnull(r, i, 0))
            continue; /* the LEFT JOIN's row for a file without stats */
        /* Only columns of the definition at the snapshot: a column dropped
         * since the file was written has no name or type there. */
        const struct lake_column *c = table_read_field(&tr, db_i64(r, i, 0));
        if (!c || !bound_type_has_bounds(c->type))
            continue;
        json_t *col = file_column_json(c, r, i, &scratch);
        if (!col || json_array_append_new(cols, col) != 0)
            bad = 1;
    }
    const char *why = bad ? NULL : no_stats_reason(state, json_array_size(cols) > 0);
    if (why)
        bad |= file_json_set(o, "no_stats_reason", json_string(why));
    if (bad) {
        api_nomem(err);
        goto done;
    }
    if (api_json(res, 200, o) != 0) {
        o = NULL;
        api_nomem(err);
        goto done;
    }
    o = NULL;
    rc = 0;
done:
    json_decref(o);
    if (r)
        PQclear(r);
    buf_free(&scratch);
    table_read_release(&tr);
    return rc;
}
