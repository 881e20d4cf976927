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

static json_t *scan_column_stats_json(const struct lake_column *c,
                                      const struct store_column_stats *s)
{
    json_t *o = json_object();
    int bad = 0;
    bad |= file_json_set(o, "field_id", json_integer((json_int_t)c->field_id));
    bad |= file_json_set(o, "value_count", json_integer((json_int_t)s->value_count));
    bad |= file_json_set(o, "null_count", json_integer((json_int_t)s->null_count));
    bad |= file_json_set(o, "lower_bound", file_bound_json(c, s->lower, s->lower_len));
    bad |= file_json_set(o, "upper_bound", file_bound_json(c, s->upper, s->upper_len));
    if (s->has_nan_count)
        bad |= file_json_set(o, "nan_count", json_integer((json_int_t)s->nan_count));
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

static bool field_asked(const struct scan_opts *o, int64_t field_id)
{
    return !o->has_fields || bsearch(&field_id, o->fields, o->nfields, sizeof *o->fields, i64_cmp);
}

/* Walks row i's statistics of the fields asked: counts them into *n and,
 * with a target, appends those of columns in the definition at the
 * snapshot (statistics of a dropped column are not part of the plan). */
static int scan_row_stats(const struct table_read *tr, const struct scan_opts *o,
                          const struct store_scan_rows *r, int i, struct buf *scratch,
                          json_t *target, int64_t *n, struct error *err)
{
    struct store_column_stats_reader rd;
    if (store_scan_row_stats(r, i, scratch, &rd, err) != 0)
        return -1;
    struct store_column_stats st;
    int got;
    while ((got = store_column_stats_next(&rd, &st, err)) > 0) {
        if (!field_asked(o, st.field_id))
            continue;
        ++*n;
        const struct lake_column *c = target ? table_read_field(tr, st.field_id) : NULL;
        if (!c || !bound_type_has_bounds(c->type))
            continue;
        json_t *s = scan_column_stats_json(c, &st);
        if (!s || json_array_append_new(target, s) != 0)
            return error_nomem(err);
    }
    return got;
}

/* A ScanFile: the data file (with its statistics and split offsets when
 * asked) and the deletion vector visible at the snapshot (no delete_file
 * member when there is none). */
static void scan_file_text(struct page_text *w, const struct store_scan_rows *r, int i,
                           const struct scan_opts *o, const json_t *stats)
{
    struct store_data_file f;
    store_scan_row(r, i, &f);
    pt_open(w, NULL, '{');
    pt_open(w, "data_file", '{');
    data_file_members(w, &f);
    /* Missing column_stats means "do not prune" (pending or failed); an
     * empty array means provided, with no rows for the asked columns. */
    if (stats)
        pt_json(w, "column_stats", stats);
    const char *split_offsets = o->split_offsets ? store_scan_row_split_offsets(r, i) : NULL;
    if (split_offsets) {
        json_error_t jerr;
        json_t *splits = json_loads(split_offsets, 0, &jerr);
        pt_json(w, "split_offsets", splits);
        json_decref(splits);
    }
    pt_close(w, '}');
    struct store_delete_file dv;
    if (store_scan_row_delete_file(r, i, &dv))
        delete_file_object(w, "delete_file", &dv);
    pt_close(w, '}');
}

/* The page's files, one past the page to tell whether another follows. */
static int scan_files(struct srv_req *req, const struct table_read *tr, const struct scan_opts *o,
                      struct partition_filters *partition, const struct page *pg,
                      struct store_scan_rows *rows, struct api_error *err)
{
    struct store_scan_query q = {
        .catalog_id = tr->cat.id,
        .table_id = tr->ref.table_id,
        .snapshot = tr->snapshot,
        .column_stats = o->column_stats,
        .split_offsets = o->split_offsets,
        .after = pg->resumed ? pg->from.keys : NULL,
        .limit = pg->limit,
        .budget_bytes = pg->budget_bytes,
    };
    if (partition_filters_store(partition, &q.partition, err) != 0)
        return -1;
    struct db_conn *db = req_db(req, err);
    if (!db)
        return -1;
    struct error dberr;
    if (store_files_page_scan(db, &q, rows, &dberr) != 0)
        return api_from_error(err, &dberr, "scan files");
    return 0;
}

/* The page's rows and their column_stats arrays, in one walk: at most
 * the limit, no file past the page's byte budget and, with column
 * statistics, no more entries than the page's entry budget (but always one
 * file, so every page advances); *n gets how many.
 * stats[i] is NULL for a file whose statistics are not provided, or when
 * none were asked. */
static json_t **scan_page_stats(struct srv_req *req, const struct table_read *tr,
                                const struct scan_opts *o, const struct store_scan_rows *r,
                                int64_t limit, int *n, struct buf *scratch, struct api_error *err)
{
    int rows = store_scan_rows_page_length(r, limit);
    *n = rows;
    json_t **stats = arena_calloc(&req->arena, rows ? (size_t)rows : 1, sizeof *stats);
    if (!stats) {
        api_nomem(err);
        return NULL;
    }
    int64_t entries = 0;
    for (int i = 0; o->column_stats && i < rows; i++) {
        bool provided = strcmp(store_scan_row_stats_state(r, i), "provided") == 0;
        if (provided && !(stats[i] = json_array())) {
            api_nomem(err);
            scan_stats_free(stats, rows);
            return NULL;
        }
        struct error why;
        if (scan_row_stats(tr, o, r, i, scratch, stats[i], &entries, &why) != 0) {
            api_from_error(err, &why, "scan statistics");
            scan_stats_free(stats, rows);
            return NULL;
        }
        if (entries > SCAN_PAGE_STATS_ENTRIES && i > 0) {
            json_decref(stats[i]);
            stats[i] = NULL;
            *n = i;
            break;
        }
    }
    return stats;
}

/* {"files": [ScanFile...], "next_page_token"}: the first n rows, and a
 * token resuming after the last of them when rows were left. */
static void scan_page_text(struct page_text *w, const struct table_read *tr,
                           const struct scan_opts *o, const struct page *pg,
                           const struct store_scan_rows *r, int n, json_t *const *stats)
{
    pt_open(w, NULL, '{');
    pt_open(w, "files", '[');
    for (int i = 0; i < n && !w->bad; i++)
        scan_file_text(w, r, i, o, stats[i]);
    pt_close(w, ']');
    struct page_token next;
    bool more = store_scan_rows_count(r) > n;
    if (more) {
        page_token_next(&next, pg, PAGE_SCAN, tr->cat.id, tr->ref.table_id, tr->snapshot);
        next.nkeys = 3;
        struct store_data_file last;
        store_scan_row(r, n - 1, &last);
        data_file_page_key(&last, next.keys);
    }
    page_token_member(w, more ? &next : NULL);
    pt_close(w, '}');
}

int h_table_scan(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    struct scan_opts o;
    struct page pg;
    struct partition_filters partition;
    partition_filters_init(&partition);
    if (parse_scan_opts(req, &o, err) != 0 || page_parse(req, PAGE_SCAN, &pg, err) != 0 ||
        (pg.resumed && page_expect_keys(&pg, 0, 3, err) != 0) ||
        partition_filters_parse(req, &partition, err) != 0) {
        partition_filters_free(&partition);
        return -1;
    }
    struct table_read tr;
    struct store_scan_rows r = {NULL};
    struct buf scratch = BUF_INIT;
    json_t **stats = NULL;
    int n = 0;
    int rc = -1;
    if (table_read_open_page(req, &tr, &pg, err) != 0)
        goto done;
    if (scan_files(req, &tr, &o, &partition, &pg, &r, err) != 0)
        goto done;
    if (!(stats = scan_page_stats(req, &tr, &o, &r, pg.limit, &n, &scratch, err)))
        goto done;
    struct page_text w;
    pt_init(&w, (size_t)n * PAGE_TEXT_PER_FILE);
    scan_page_text(&w, &tr, &o, &pg, &r, n, stats);
    rc = pt_respond(&w, res, err);
done:
    scan_stats_free(stats, n);
    store_scan_rows_free(&r);
    buf_free(&scratch);
    partition_filters_free(&partition);
    table_read_release(&tr);
    return rc;
}
