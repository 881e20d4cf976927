/* GET .../tables/{table}/scan: the read plan at a snapshot. Each data file
 * visible there, paired with the deletion vector visible there, and on
 * request each file's column statistics (decoded bounds) and split
 * offsets.
 *
 * Two statements whatever the table's size: one for the files with their
 * vectors (and, with column statistics, each file's statistics count, so an
 * oversized answer is refused before it is read), one for the statistics.
 * Both run in one REPEATABLE READ transaction so they agree. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lake/bounds.h"
#include "server/db/db.h"
#include "server/db/pgarray.h"
#include "server/handlers/files.h"
#include "server/handlers/handlers.h"
#include "util/strutil.h"

enum {
    /* Raw tokens across every occurrence of include or stats_fields,
     * before duplicates are removed: nobody's list is longer. */
    SCAN_MAX_RAW_TOKENS = 10 * LAKE_MAX_NODES,
    /* Distinct include values (two are known; the cap bounds the 422's
     * list of unknown ones). */
    SCAN_MAX_INCLUDES = 16,
    /* Distinct stats_fields: a table has at most this many columns. */
    SCAN_MAX_STATS_FIELDS = LAKE_MAX_NODES,
    /* Statistics entries one answer may carry. */
    SCAN_MAX_STATS_ENTRIES = 1000000,
};

struct scan_opts {
    bool column_stats, split_offsets;
    const char *unknown[SCAN_MAX_INCLUDES]; /* distinct unknown include values */
    size_t nunknown;
    bool has_fields;
    int64_t *fields; /* distinct, ascending */
    size_t nfields;
};

/* The trimmed token [s, s+n) of a comma-separated list. */
static void trim(const char **s, size_t *n)
{
    while (*n && (**s == ' ' || **s == '\t')) {
        (*s)++;
        (*n)--;
    }
    while (*n && ((*s)[*n - 1] == ' ' || (*s)[*n - 1] == '\t'))
        (*n)--;
}

/* Calls fn on every token of every occurrence of `key`; counts raw tokens
 * against the cap first (400 past it). */
typedef int (*token_fn)(struct srv_req *req, struct scan_opts *o, const char *tok, size_t n,
                        struct api_error *err);

static size_t count_tokens(const struct srv_req *req, const char *key)
{
    size_t total = 0;
    for (size_t i = 0; i < req->nargs; i++) {
        if (strcmp(req->args[i].key, key) != 0)
            continue;
        total++;
        for (const char *p = req->args[i].value; *p; p++)
            total += *p == ',';
    }
    return total;
}

static int each_token(struct srv_req *req, const char *key, struct scan_opts *o, token_fn fn,
                      struct api_error *err)
{
    if (count_tokens(req, key) > SCAN_MAX_RAW_TOKENS)
        return api_bad_request(err, "query parameter '%s' carries more than %d values", key,
                               SCAN_MAX_RAW_TOKENS);
    for (size_t i = 0; i < req->nargs; i++) {
        if (strcmp(req->args[i].key, key) != 0)
            continue;
        const char *p = req->args[i].value;
        for (;;) {
            size_t n = strcspn(p, ",");
            const char *tok = p;
            size_t tn = n;
            trim(&tok, &tn);
            if (fn(req, o, tok, tn, err) != 0)
                return -1;
            if (p[n] == '\0')
                break;
            p += n + 1;
        }
    }
    return 0;
}

static int include_token(struct srv_req *req, struct scan_opts *o, const char *tok, size_t n,
                         struct api_error *err)
{
    if (n == 0)
        return api_bad_request(err, "query parameter 'include' must be a comma-separated list of "
                                    "non-empty values; supported: column_stats, split_offsets");
    if (n == 12 && memcmp(tok, "column_stats", 12) == 0) {
        o->column_stats = true;
        return 0;
    }
    if (n == 13 && memcmp(tok, "split_offsets", 13) == 0) {
        o->split_offsets = true;
        return 0;
    }
    for (size_t i = 0; i < o->nunknown; i++)
        if (strlen(o->unknown[i]) == n && memcmp(o->unknown[i], tok, n) == 0)
            return 0;
    size_t distinct = o->nunknown + 1 + o->column_stats + o->split_offsets;
    if (distinct > SCAN_MAX_INCLUDES)
        return api_bad_request(err, "query parameter 'include' names more than %d distinct values",
                               SCAN_MAX_INCLUDES);
    o->unknown[o->nunknown] = arena_strndup(&req->arena, tok, n);
    if (!o->unknown[o->nunknown])
        return api_nomem(err);
    o->nunknown++;
    return 0;
}

static int field_token(struct srv_req *req, struct scan_opts *o, const char *tok, size_t n,
                       struct api_error *err)
{
    (void)req;
    char text[24];
    int64_t id;
    if (n == 0 || n >= sizeof text)
        goto bad;
    memcpy(text, tok, n);
    text[n] = '\0';
    if (!str_parse_int64(text, &id))
        goto bad;
    o->fields[o->nfields++] = id;
    return 0;
bad:
    return api_bad_request(err, "query parameter 'stats_fields' must be a comma-separated list of "
                                "integer field ids");
}

static int i64_cmp(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Malformed or oversized lists are 400; then well-formed but unusable
 * requests are 422 (an unknown include value is refused, never ignored,
 * so a misspelling cannot pass for "no statistics"). */
static int parse_scan_opts(struct srv_req *req, struct scan_opts *o, struct api_error *err)
{
    memset(o, 0, sizeof *o);
    if (each_token(req, "include", o, include_token, err) != 0)
        return -1;
    size_t raw = count_tokens(req, "stats_fields");
    o->has_fields = raw > 0;
    if (o->has_fields) {
        if (raw > SCAN_MAX_RAW_TOKENS)
            return api_bad_request(err,
                                   "query parameter 'stats_fields' carries more than %d "
                                   "values",
                                   SCAN_MAX_RAW_TOKENS);
        o->fields = arena_calloc(&req->arena, raw, sizeof *o->fields);
        if (!o->fields)
            return api_nomem(err);
        if (each_token(req, "stats_fields", o, field_token, err) != 0)
            return -1;
        qsort(o->fields, o->nfields, sizeof *o->fields, i64_cmp);
        size_t w = 0;
        for (size_t i = 0; i < o->nfields; i++)
            if (w == 0 || o->fields[w - 1] != o->fields[i])
                o->fields[w++] = o->fields[i];
        o->nfields = w;
        if (o->nfields > SCAN_MAX_STATS_FIELDS)
            return api_bad_request(err,
                                   "query parameter 'stats_fields' names more than %d "
                                   "distinct field ids",
                                   SCAN_MAX_STATS_FIELDS);
    }
    if (o->nunknown) {
        char list[1200];
        size_t len = 0;
        list[0] = '\0';
        for (size_t i = 0; i < o->nunknown && len < sizeof list; i++) {
            int w =
                snprintf(list + len, sizeof list - len, "%s'%.64s'", i ? ", " : "", o->unknown[i]);
            if (w > 0)
                len += (size_t)w;
        }
        return api_validation(err,
                              "include: unknown value(s) %s; supported: column_stats, "
                              "split_offsets",
                              list);
    }
    if (o->has_fields && !o->column_stats)
        return api_validation(err, "stats_fields requires include=column_stats");
    return 0;
}

/* ---- assembling the plan ---- */

/* Column positions of the file statement. */
enum {
    SC_SPLITS = DATA_FILE_NCOLS,
    SC_DV = SC_SPLITS + 1,
    SC_NSTATS = SC_DV + DELETE_FILE_NCOLS,
};

struct file_pos {
    int64_t id;
    size_t pos;
};

static int file_pos_cmp(const void *a, const void *b)
{
    int64_t x = ((const struct file_pos *)a)->id, y = ((const struct file_pos *)b)->id;
    return (x > y) - (x < y);
}

static json_t *scan_column_stats_json(const struct lake_column *c, const PGresult *r, int i,
                                      struct buf *scratch)
{
    json_t *o = json_object();
    int bad = 0;
    bad |= file_json_set(o, "field_id", json_integer((json_int_t)c->field_id));
    bad |= file_json_set(o, "value_count", json_integer((json_int_t)db_i64(r, i, 2)));
    bad |= file_json_set(o, "null_count", json_integer((json_int_t)db_i64(r, i, 3)));
    bad |= file_json_set(o, "lower_bound", file_bound_json(c, r, i, 5, scratch));
    bad |= file_json_set(o, "upper_bound", file_bound_json(c, r, i, 6, scratch));
    if (!db_isnull(r, i, 4))
        bad |= file_json_set(o, "nan_count", json_integer((json_int_t)db_i64(r, i, 4)));
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* Reads the statistics rows and appends each to its file's column_stats
 * (stats[pos], NULL for files whose statistics are not provided). */
static int attach_stats(struct srv_req *req, const struct table_read *tr, const char *fields,
                        const PGresult *files, json_t **stats, struct api_error *err)
{
    size_t n = (size_t)PQntuples(files);
    struct file_pos *byid = arena_calloc(&req->arena, n ? n : 1, sizeof *byid);
    if (!byid)
        return api_nomem(err);
    for (size_t i = 0; i < n; i++) {
        byid[i].id = db_i64(files, (int)i, DF_ID);
        byid[i].pos = i;
    }
    qsort(byid, n, sizeof *byid, file_pos_cmp);
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, tr->cat.id);
    db_param_i64(&p, tr->ref.table_id);
    db_param_i64(&p, tr->snapshot);
    db_param_str(&p, fields);
    PGresult *r = req_query(req,
                            "SELECT s.data_file_id, s.field_id, s.value_count, s.null_count,"
                            " s.nan_count, s.lower_bound, s.upper_bound"
                            " FROM hog_data_file d JOIN hog_file_column_stats s"
                            " ON s.catalog_id = d.catalog_id AND s.data_file_id = d.data_file_id"
                            " WHERE d.catalog_id = $1 AND d.table_id = $2"
                            " AND hog_visible(d.begin_snapshot, d.end_snapshot, $3)"
                            " AND d.stats_state = 'provided'"
                            " AND ($4::bigint[] IS NULL OR s.field_id = ANY($4::bigint[]))"
                            " ORDER BY s.data_file_id, s.field_id",
                            &p, "scan statistics", err);
    if (!r)
        return -1;
    struct buf scratch = BUF_INIT;
    int rc = 0;
    int64_t last_id = -1;
    json_t *target = NULL;
    for (int i = 0; i < PQntuples(r); i++) {
        int64_t id = db_i64(r, i, 0);
        if (id != last_id) {
            last_id = id;
            struct file_pos key = {.id = id};
            const struct file_pos *hit = bsearch(&key, byid, n, sizeof *byid, file_pos_cmp);
            target = hit ? stats[hit->pos] : NULL;
        }
        if (!target)
            continue;
        /* Statistics of a column not in the definition at the snapshot (it
         * was dropped) are not part of the plan. */
        const struct lake_column *c = table_read_field(tr, db_i64(r, i, 1));
        if (!c || !bound_type_has_bounds(c->type))
            continue;
        json_t *s = scan_column_stats_json(c, r, i, &scratch);
        if (!s || json_array_append_new(target, s) != 0) {
            rc = api_nomem(err);
            break;
        }
    }
    buf_free(&scratch);
    PQclear(r);
    return rc;
}

static json_t *scan_file_json(const PGresult *r, int i, const struct scan_opts *o,
                              json_t **stats_out)
{
    *stats_out = NULL;
    json_t *df = data_file_json(r, i, 0);
    if (!df)
        return NULL;
    int bad = 0;
    /* Missing column_stats means "do not prune" (pending or failed); an
     * empty array means provided, with no rows for the asked columns. */
    if (o->column_stats && strcmp(db_str(r, i, DF_STATS_STATE), "provided") == 0) {
        json_t *a = json_array();
        bad |= file_json_set(df, "column_stats", a);
        *stats_out = bad ? NULL : a;
    }
    if (o->split_offsets && !db_isnull(r, i, SC_SPLITS)) {
        json_error_t jerr;
        bad |= file_json_set(df, "split_offsets", json_loads(db_str(r, i, SC_SPLITS), 0, &jerr));
    }
    json_t *sf = json_object();
    if (bad || !sf || json_object_set_new(sf, "data_file", df) != 0) {
        if (!sf || bad)
            json_decref(df);
        json_decref(sf);
        return NULL;
    }
    /* No vector visible at the snapshot: no delete_file member. */
    if (!db_isnull(r, i, SC_DV) &&
        file_json_set(sf, "delete_file", delete_file_json(r, i, SC_DV))) {
        json_decref(sf);
        return NULL;
    }
    return sf;
}

/* $1 catalog, $2 table, $3 snapshot, $4 stats_fields (bigint[] or NULL),
 * $5 column_stats wanted, $6 split_offsets wanted. At most one vector per
 * data file is visible at any snapshot (one live DV per file). */
/* clang-format off */
static const char scan_files_sql[] =
    "SELECT " DATA_FILE_COLUMNS ","
    " CASE WHEN $6::boolean THEN array_to_json(d.split_offsets)::text END, "
    DELETE_FILE_COLUMNS("dv") ","
    " CASE WHEN $5::boolean AND d.stats_state = 'provided' THEN"
    "  (SELECT count(*) FROM hog_file_column_stats s"
    "   WHERE s.catalog_id = d.catalog_id AND s.data_file_id = d.data_file_id"
    "   AND ($4::bigint[] IS NULL OR s.field_id = ANY($4::bigint[])))"
    " ELSE 0 END"
    " FROM hog_data_file d LEFT JOIN hog_delete_file dv"
    " ON dv.catalog_id = d.catalog_id AND dv.data_file_id = d.data_file_id"
    " AND hog_visible(dv.begin_snapshot, dv.end_snapshot, $3)"
    " WHERE d.catalog_id = $1 AND d.table_id = $2"
    " AND hog_visible(d.begin_snapshot, d.end_snapshot, $3)"
    " ORDER BY d.begin_snapshot, d.row_id_start, d.data_file_id";
/* clang-format on */

int h_table_scan(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    struct scan_opts o;
    if (parse_scan_opts(req, &o, err) != 0)
        return -1;
    struct table_read tr;
    struct pg_array fields;
    pg_array_init(&fields);
    PGresult *r = NULL;
    json_t *out = NULL;
    int rc = -1;
    if (table_read_open(req, &tr, err) != 0)
        goto done;
    const char *fields_text = NULL;
    if (o.has_fields) {
        for (size_t i = 0; i < o.nfields; i++)
            pg_array_i64(&fields, o.fields[i]);
        if (!(fields_text = pg_array_text(&fields))) {
            api_nomem(err);
            goto done;
        }
    }
    if (o.column_stats &&
        req_exec(req, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", NULL, "begin", err) != 0)
        goto done;
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, tr.cat.id);
    db_param_i64(&p, tr.ref.table_id);
    db_param_i64(&p, tr.snapshot);
    db_param_str(&p, fields_text);
    db_param_bool(&p, o.column_stats);
    db_param_bool(&p, o.split_offsets);
    r = req_query(req, scan_files_sql, &p, "scan files", err);
    if (!r)
        goto done;
    int n = PQntuples(r);
    int64_t entries = 0;
    for (int i = 0; o.column_stats && i < n; i++)
        entries += db_i64(r, i, SC_NSTATS);
    if (entries > SCAN_MAX_STATS_ENTRIES) {
        api_validation(err,
                       "the scan would return %lld column statistics entries, over the limit of "
                       "%d; name the columns you prune on with stats_fields",
                       (long long)entries, SCAN_MAX_STATS_ENTRIES);
        goto done;
    }
    json_t **stats = arena_calloc(&req->arena, n ? (size_t)n : 1, sizeof *stats);
    out = json_array();
    if (!stats || !out) {
        api_nomem(err);
        goto done;
    }
    for (int i = 0; i < n; i++) {
        json_t *sf = scan_file_json(r, i, &o, &stats[i]);
        if (!sf || json_array_append_new(out, sf) != 0) {
            api_nomem(err);
            goto done;
        }
    }
    if (entries > 0 && attach_stats(req, &tr, fields_text, r, stats, err) != 0)
        goto done;
    if (o.column_stats && req_exec(req, "COMMIT", NULL, "commit", err) != 0)
        goto done;
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
    pg_array_free(&fields);
    table_read_release(&tr);
    return rc;
}
