/* GET .../tables/{table}/scan: the read plan at a snapshot, one page at a
 * time. Each data file visible there, paired with the deletion vector
 * visible there, and on request each file's column statistics (decoded
 * bounds) and split offsets.
 *
 * Two statements per page whatever the table's size: one for the page's
 * files with their vectors (and, with column statistics, each file's
 * statistics count, so the page can stop before it holds too many), one
 * for the statistics of the files the page keeps. Both run in one
 * REPEATABLE READ transaction so they agree. Pages resume after the last
 * file's (begin_snapshot, row_id_start, data_file_id), an index walk
 * (migration 0005) that reads what the page returns. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lake/bounds.h"
#include "server/catalog/files.h"
#include "server/db/db.h"
#include "server/db/pgarray.h"
#include "server/http/handlers.h"
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
    /* Statistics entries one page may carry: a page stops before the file
     * that would pass it (it always holds one file, and no file has this
     * many columns), so a wide table answers in shorter pages instead of
     * one answer of unbounded size. */
    SCAN_PAGE_STATS_ENTRIES = 100000,
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

static void scan_stats_free(json_t **stats, int n)
{
    for (int i = 0; stats && i < n; i++)
        json_decref(stats[i]);
}

/* Reads the statistics rows of the page's first n files and appends each
 * to its file's column_stats (stats[pos], NULL for files whose statistics
 * are not provided). */
static int attach_stats(struct srv_req *req, const struct table_read *tr, const char *fields,
                        const PGresult *files, int n, json_t **stats, struct api_error *err)
{
    struct file_pos *byid = arena_calloc(&req->arena, n ? (size_t)n : 1, sizeof *byid);
    if (!byid)
        return api_nomem(err);
    struct pg_array ids;
    pg_array_init(&ids);
    for (int i = 0; i < n; i++) {
        byid[i].id = db_i64(files, i, DF_ID);
        byid[i].pos = (size_t)i;
        if (stats[i])
            pg_array_i64(&ids, byid[i].id);
    }
    qsort(byid, (size_t)n, sizeof *byid, file_pos_cmp);
    const char *ids_text = pg_array_text(&ids);
    if (!ids_text) {
        pg_array_free(&ids);
        return api_nomem(err);
    }
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, tr->cat.id);
    db_param_str(&p, ids_text);
    db_param_str(&p, fields);
    PGresult *r = req_query(req,
                            "SELECT s.data_file_id, s.field_id, s.value_count, s.null_count,"
                            " s.nan_count, s.lower_bound, s.upper_bound"
                            " FROM hog_file_column_stats s"
                            " WHERE s.catalog_id = $1 AND s.data_file_id = ANY($2::bigint[])"
                            " AND ($3::bigint[] IS NULL OR s.field_id = ANY($3::bigint[]))"
                            " ORDER BY s.data_file_id, s.field_id",
                            &p, "scan statistics", err);
    pg_array_free(&ids);
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
            const struct file_pos *hit = bsearch(&key, byid, (size_t)n, sizeof *byid, file_pos_cmp);
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

/* A ScanFile: the data file (with its statistics and split offsets when
 * asked) and the deletion vector visible at the snapshot (no delete_file
 * member when there is none). */
static void scan_file_text(struct page_text *w, const PGresult *r, int i, const struct scan_opts *o,
                           const json_t *stats)
{
    pt_open(w, NULL, '{');
    pt_open(w, "data_file", '{');
    data_file_members(w, r, i, 0);
    /* Missing column_stats means "do not prune" (pending or failed); an
     * empty array means provided, with no rows for the asked columns. */
    if (stats)
        pt_json(w, "column_stats", stats);
    if (o->split_offsets && !db_isnull(r, i, SC_SPLITS)) {
        json_error_t jerr;
        json_t *splits = json_loads(db_str(r, i, SC_SPLITS), 0, &jerr);
        pt_json(w, "split_offsets", splits);
        json_decref(splits);
    }
    pt_close(w, '}');
    if (!db_isnull(r, i, SC_DV))
        delete_file_object(w, "delete_file", r, i, SC_DV);
    pt_close(w, '}');
}

/* $1 catalog, $2 table, $3 snapshot, $4 stats_fields (bigint[] or NULL),
 * $5 column_stats wanted, $6 split_offsets wanted; then the keyset and
 * the LIMIT. At most one vector per data file is visible at any snapshot
 * (one live DV per file). */
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
    " AND hog_visible(d.begin_snapshot, d.end_snapshot, $3)";
/* clang-format on */

/* The page's files, one past the page to tell whether another follows. */
static PGresult *scan_files(struct srv_req *req, const struct table_read *tr,
                            const struct scan_opts *o, const char *fields_text,
                            const struct page *pg, struct api_error *err)
{
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, tr->cat.id);
    db_param_i64(&p, tr->ref.table_id);
    db_param_i64(&p, tr->snapshot);
    db_param_str(&p, fields_text);
    db_param_bool(&p, o->column_stats);
    db_param_bool(&p, o->split_offsets);
    struct buf sql = BUF_INIT;
    int bad = buf_puts(&sql, scan_files_sql);
    if (pg->resumed) {
        struct page_key keys[3];
        for (size_t i = 0; i < 3; i++)
            keys[i] = (struct page_key){NULL, pg->from.keys[i]};
        bad |= page_keyset_sql(&sql, &p, data_file_page_columns, keys, 3, false);
    }
    db_param_i64(&p, pg->limit + 1);
    bad |= buf_printf(&sql, " ORDER BY " DATA_FILE_PAGE_ORDER " LIMIT $%d::bigint", p.n);
    PGresult *r = NULL;
    if (bad || !sql.data)
        api_nomem(err);
    else
        r = req_query(req, sql.data, &p, "scan files", err);
    buf_free(&sql);
    return r;
}

/* How many of the rows the page keeps: at most the limit and, with
 * column statistics, no more entries than the page's budget (but always
 * one file, so every page advances). */
static int scan_page_size(const PGresult *r, const struct scan_opts *o, int64_t limit)
{
    int n = PQntuples(r);
    if (n > limit)
        n = (int)limit;
    int64_t entries = 0;
    for (int i = 0; o->column_stats && i < n; i++) {
        entries += db_i64(r, i, SC_NSTATS);
        if (entries > SCAN_PAGE_STATS_ENTRIES && i > 0)
            return i;
    }
    return n;
}

/* The column_stats arrays of the page's first n files (stats[i] NULL for
 * a file whose statistics are not provided, or when none were asked),
 * filled from the statistics rows. */
static json_t **scan_page_stats(struct srv_req *req, const struct table_read *tr,
                                const struct scan_opts *o, const char *fields_text,
                                const PGresult *r, int n, struct api_error *err)
{
    json_t **stats = arena_calloc(&req->arena, n ? (size_t)n : 1, sizeof *stats);
    if (!stats) {
        api_nomem(err);
        return NULL;
    }
    bool any = false;
    for (int i = 0; o->column_stats && i < n; i++) {
        if (strcmp(db_str(r, i, DF_STATS_STATE), "provided") != 0)
            continue;
        if (!(stats[i] = json_array())) {
            scan_stats_free(stats, n);
            api_nomem(err);
            return NULL;
        }
        any |= db_i64(r, i, SC_NSTATS) > 0;
    }
    if (any && attach_stats(req, tr, fields_text, r, n, stats, err) != 0) {
        scan_stats_free(stats, n);
        return NULL;
    }
    return stats;
}

/* {"files": [ScanFile...], "next_page_token"}: the first n rows, and a
 * token resuming after the last of them when rows were left. */
static void scan_page_text(struct page_text *w, const struct table_read *tr,
                           const struct scan_opts *o, const struct page *pg, const PGresult *r,
                           int n, json_t *const *stats)
{
    pt_open(w, NULL, '{');
    pt_open(w, "files", '[');
    for (int i = 0; i < n && !w->bad; i++)
        scan_file_text(w, r, i, o, stats[i]);
    pt_close(w, ']');
    struct page_token next;
    bool more = PQntuples(r) > n;
    if (more) {
        page_token_next(&next, pg, PAGE_SCAN, tr->cat.id, tr->ref.table_id, tr->snapshot);
        next.nkeys = 3;
        data_file_page_key(r, n - 1, 0, next.keys);
    }
    page_token_member(w, more ? &next : NULL);
    pt_close(w, '}');
}

int h_table_scan(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    struct scan_opts o;
    struct page pg;
    if (parse_scan_opts(req, &o, err) != 0 || page_parse(req, PAGE_SCAN, &pg, err) != 0 ||
        (pg.resumed && page_expect_keys(&pg, 0, 3, err) != 0))
        return -1;
    struct table_read tr;
    struct pg_array fields;
    pg_array_init(&fields);
    PGresult *r = NULL;
    json_t **stats = NULL;
    int n = 0;
    int rc = -1;
    if (table_read_open_page(req, &tr, &pg, err) != 0)
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
    if (!(r = scan_files(req, &tr, &o, fields_text, &pg, err)))
        goto done;
    n = scan_page_size(r, &o, pg.limit);
    if (!(stats = scan_page_stats(req, &tr, &o, fields_text, r, n, err)))
        goto done;
    if (o.column_stats && req_exec(req, "COMMIT", NULL, "commit", err) != 0)
        goto done;
    struct page_text w;
    pt_init(&w, (size_t)n * PAGE_TEXT_PER_FILE);
    scan_page_text(&w, &tr, &o, &pg, r, n, stats);
    rc = pt_respond(&w, res, err);
done:
    scan_stats_free(stats, n);
    if (r)
        PQclear(r);
    pg_array_free(&fields);
    table_read_release(&tr);
    return rc;
}
