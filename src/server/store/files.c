/* hog_data_file and hog_delete_file reads (see files.h). */
#include "server/store/files.h"

#include <string.h>

#include "server/db/db.h"
#include "server/store/page_budget.h"
#include "util/strutil.h"

/* ---- shapes ---- */

/* Every paged statement picks its page in an inner statement, aliased x,
 * and weighs it in an outer one over the window `page` in the page's
 * order (STORE_PAGE_FITS): an entry weighs its path and its partition
 * values' JSON text (writers choose both: up to 2,048 bytes each, and 64
 * values a file) and whatever else the page carries (statistics, split
 * offsets, a vector's path). An entry past the budget comes back with
 * every weighed column NULL, and ends the page, so hoglaked holds the
 * budget and one entry however large a page's entries are. */

/* The DataFile columns of `hog_data_file d`, in the order data_file_from
 * reads them: a paged statement's inner one starts with them. */
#define DATA_FILE_COLUMNS                                                                          \
    "d.data_file_id, d.path, d.file_format, d.record_count, d.file_size_bytes,"                    \
    " d.row_id_start, d.stats_state, d.begin_snapshot, d.footer_size, d.spec_id,"                  \
    " d.explicit_row_ids,"                                                                         \
    " CASE WHEN d.spec_id IS NULL THEN NULL ELSE (SELECT json_agg(pv.value ORDER BY"               \
    "  pv.key_index)::text FROM hog_file_partition_value pv WHERE pv.catalog_id = d.catalog_id"    \
    "  AND pv.data_file_id = d.data_file_id) END AS partition_values"
enum { DATA_FILE_NCOLS = 12 };
/* The same columns read from the page x, the weighed ones only when
 * `fits` (SQL text) holds. */
#define DATA_FILE_FITTING(fits)                                                                    \
    "x.data_file_id, CASE WHEN " fits " THEN x.path END, x.file_format, x.record_count,"           \
    " x.file_size_bytes, x.row_id_start, x.stats_state, x.begin_snapshot, x.footer_size,"          \
    " x.spec_id, x.explicit_row_ids, CASE WHEN " fits " THEN x.partition_values END"
/* What a data file of the page x weighs of itself. */
#define DATA_FILE_WEIGHT "octet_length(x.path) + coalesce(octet_length(x.partition_values), 0)"

/* The DeleteFile columns of a hog_delete_file alias, in the order
 * delete_file_from reads them, named with prefix `n` for the page x. */
#define DELETE_FILE_COLUMNS(a, n)                                                                  \
    a ".delete_file_id AS " n "id, " a ".data_file_id AS " n "target, " a ".path AS " n "path, " a \
      ".file_format AS " n "format, " a ".delete_count AS " n "count, " a ".file_size_bytes AS " n \
      "size, " a ".begin_snapshot AS " n "begin"
enum { DELETE_FILE_NCOLS = 7 };
/* The same columns read from the page x, the path only when `fits`. */
#define DELETE_FILE_FITTING(n, fits)                                                               \
    "x." n "id, x." n "target, CASE WHEN " fits " THEN x." n "path END, x." n "format, x." n       \
    "count, x." n "size, x." n "begin"
/* What a vector of the page x weighs (none: 0). */
#define DELETE_FILE_WEIGHT(n) "coalesce(octet_length(x." n "path), 0)"

enum { DF_ID = 0, DF_STATS_STATE = 6 };
/* Columns of a listing or changefeed file row past the data file's: the
 * lead field's statistics (a listing's), whether the row is past the
 * budget, and the page's weight up to and with the row. */
enum { FR_LEAD = DATA_FILE_NCOLS, FR_PAST, FR_WEIGHT };

static void data_file_from(const PGresult *r, int row, struct store_data_file *f)
{
    f->data_file_id = db_i64(r, row, DF_ID);
    f->path = db_str(r, row, 1);
    f->file_format = db_str(r, row, 2);
    f->record_count = db_i64(r, row, 3);
    f->file_size_bytes = db_i64(r, row, 4);
    f->row_id_start = db_i64(r, row, 5);
    f->stats_state = db_str(r, row, DF_STATS_STATE);
    f->begin_snapshot = db_i64(r, row, 7);
    f->has_footer_size = db_i64_opt(r, row, 8, &f->footer_size);
    f->has_spec_id = db_i64_opt(r, row, 9, &f->spec_id);
    f->explicit_row_ids = db_bool(r, row, 10);
    f->partition_values = db_str(r, row, 11);
}

static void delete_file_from(const PGresult *r, int row, int col0, struct store_delete_file *v)
{
    v->delete_file_id = db_i64(r, row, col0);
    v->data_file_id = db_i64(r, row, col0 + 1);
    v->path = db_str(r, row, col0 + 2);
    v->file_format = db_str(r, row, col0 + 3);
    v->delete_count = db_i64(r, row, col0 + 4);
    v->file_size_bytes = db_i64(r, row, col0 + 5);
    v->begin_snapshot = db_i64(r, row, col0 + 6);
}

/* Decodes a bytea's text form into scratch: the bytes (n in *len), or
 * NULL for SQL NULL or an unreadable value. */
static const uint8_t *bytea_decode(const char *text, struct buf *scratch, size_t *len)
{
    if (!text)
        return NULL;
    buf_reset(scratch);
    if (text[0] == '\\' && text[1] == 'x') {
        size_t digits = strlen(text + 2);
        if (digits % 2 != 0 || buf_reserve(scratch, digits / 2) != 0 ||
            str_hex_decode(text + 2, digits, scratch->data) != 0)
            return NULL;
        scratch->len = digits / 2;
        scratch->data[scratch->len] = '\0';
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
    /* A zero-length value is valid: never hand back NULL for it. */
    return scratch->data ? (const uint8_t *)scratch->data : (const uint8_t *)"";
}

/* A reader over the column_stats value at (row, col), decoded into
 * scratch; SQL NULL reads as no columns. */
static int stats_open(const PGresult *r, int row, int col, struct buf *scratch,
                      struct store_column_stats_reader *rd, struct error *err)
{
    const char *text = db_str(r, row, col);
    size_t n = 0;
    const uint8_t *bytes = text ? bytea_decode(text, scratch, &n) : NULL;
    if (text && !bytes)
        return error_fail(err, ERR_CORRUPT, "column statistics: an unreadable bytea");
    return store_column_stats_open(rd, bytes, bytes ? n : 0, err);
}

/* ---- building a page's statement ---- */

/* Appends " AND (columns...) > ($n, ...)" (< when desc) with the keys as
 * parameters: the rows after the key in the order the columns give. */
static int keyset_sql(struct buf *sql, struct db_params *p, const char *const *columns,
                      const struct store_key *keys, size_t n, bool desc)
{
    int bad = buf_puts(sql, " AND (");
    for (size_t i = 0; i < n; i++)
        bad |= buf_printf(sql, "%s%s", i ? ", " : "", columns[i]);
    bad |= buf_printf(sql, ") %s (", desc ? "<" : ">");
    for (size_t i = 0; i < n; i++) {
        if (keys[i].text)
            db_param_str(p, keys[i].text);
        else
            db_param_i64(p, keys[i].num);
        bad |= buf_printf(sql, "%s$%d::%s", i ? ", " : "", p->n, keys[i].text ? "text" : "bigint");
    }
    bad |= buf_putc(sql, ')');
    return bad ? -1 : 0;
}

/* keyset_sql for integer keys (NULL: none, from the start). */
static int keyset_nums(struct buf *sql, struct db_params *p, const char *const *columns,
                       const int64_t *after, size_t n)
{
    if (!after)
        return 0;
    struct store_key k[3];
    for (size_t i = 0; i < n; i++)
        k[i] = (struct store_key){NULL, after[i]};
    return keyset_sql(sql, p, columns, k, n, false);
}

/* Whether a row's heavy columns (`bytes` weigh them) fit the budget held
 * in parameter `budget`, over the statement's window `page`. */
#define PAGE_FITS_AT(bytes, budget) STORE_PAGE_FITS(bytes, "page", budget)

/* The order every paged data-file statement but a sorted listing uses. */
#define DATA_FILE_PAGE_ORDER "d.begin_snapshot, d.row_id_start, d.data_file_id"
static const char *const data_file_page_columns[3] = {"d.begin_snapshot", "d.row_id_start",
                                                      "d.data_file_id"};

/* ---- the file listing ---- */

static const struct {
    const char *columns[3]; /* each followed by the direction */
    size_t nkeys;
} file_sorts[] = {
    [STORE_FILES_BY_ID] = {{"d.data_file_id"}, 1},
    [STORE_FILES_BY_PATH] = {{"d.path COLLATE \"C\"", "d.data_file_id"}, 2},
    [STORE_FILES_BY_RECORDS] = {{"d.record_count", "d.data_file_id"}, 2},
    [STORE_FILES_BY_SIZE] = {{"d.file_size_bytes", "d.data_file_id"}, 2},
    [STORE_FILES_BY_STATS] = {{"d.stats_state", "d.data_file_id"}, 2},
    [STORE_FILES_BY_BEGIN] = {{"d.begin_snapshot", "d.row_id_start", "d.data_file_id"}, 3},
};

size_t store_files_sort_nkeys(enum store_file_sort sort)
{
    return file_sorts[sort].nkeys;
}

int store_file_rows_count(const struct store_file_rows *rows)
{
    return PQntuples(rows->r);
}

void store_file_row(const struct store_file_rows *rows, int i, struct store_data_file *out)
{
    data_file_from(rows->r, i, out);
}

int store_file_row_lead(const struct store_file_rows *rows, int i, int64_t lead_field_id,
                        struct buf *scratch, struct store_column_stats *out, struct error *err)
{
    struct store_column_stats_reader rd;
    if (stats_open(rows->r, i, FR_LEAD, scratch, &rd, err) != 0)
        return -1;
    struct store_column_stats s;
    int got;
    while ((got = store_column_stats_next(&rd, &s, err)) > 0)
        if (s.field_id == lead_field_id) {
            *out = s;
            return 1;
        }
    return got;
}

void store_file_rows_free(struct store_file_rows *rows)
{
    if (rows->r)
        PQclear(rows->r);
    rows->r = NULL;
}

/* The partition filters' condition on `hog_data_file d` ($1 the catalog,
 * $2 the table). The first pair picks the table's candidates from
 * hog_file_partition_value_in_table (an IN the planner drives from the
 * index); every pair is then checked on each candidate. */
static int partition_filter_sql(struct buf *sql, struct db_params *p,
                                const struct store_partition_filter *f)
{
    if (!f->keys)
        return 0;
    db_param_str(p, f->keys);
    db_param_str(p, f->values);
    int k = p->n - 1, v = p->n;
    int bad = buf_printf(sql,
                         " AND d.data_file_id IN (SELECT pv.data_file_id"
                         " FROM hog_file_partition_value pv WHERE pv.catalog_id = $1"
                         " AND pv.table_id = $2 AND pv.key_index = ($%d::int[])[1]",
                         k);
    if (f->first_is_null)
        bad |= buf_puts(sql, " AND pv.value IS NULL)");
    else
        bad |= buf_printf(sql, " AND pv.value = ($%d::text[])[1])", v);
    bad |= buf_printf(sql,
                      " AND NOT EXISTS (SELECT 1 FROM unnest($%d::int[], $%d::text[]) AS f(k, v)"
                      "  WHERE NOT EXISTS (SELECT 1 FROM hog_file_partition_value pv"
                      "   WHERE pv.catalog_id = d.catalog_id"
                      "   AND pv.data_file_id = d.data_file_id"
                      "   AND pv.key_index = f.k AND pv.value IS NOT DISTINCT FROM f.v))",
                      k, v);
    return bad;
}

/* " ORDER BY k1 DIR, k2 DIR..." over `columns`, or over the subquery's
 * x.hog_k1.. copies of them when `columns` is NULL. */
static int files_order_sql(struct buf *sql, const char *const *columns, size_t nkeys, bool desc)
{
    int bad = buf_puts(sql, " ORDER BY ");
    for (size_t i = 0; i < nkeys; i++) {
        bad |= columns ? buf_printf(sql, "%s%s", i ? ", " : "", columns[i])
                       : buf_printf(sql, "%sx.hog_k%zu", i ? ", " : "", i + 1);
        bad |= buf_puts(sql, desc ? " DESC" : " ASC");
    }
    return bad;
}

/* What a listing row weighs: the file, and the lead field's statistics
 * it carries (their stored size: a TOAST pointer's header). */
#define LISTING_WEIGHT DATA_FILE_WEIGHT " + coalesce(octet_length(x.hog_stats), 0)"
#define LISTING_FITS PAGE_FITS_AT(LISTING_WEIGHT, "$4")
/* clang-format off */
static const char files_listing_head[] =
    "SELECT " DATA_FILE_FITTING(LISTING_FITS) ", CASE WHEN " LISTING_FITS " THEN x.hog_stats END,"
    " NOT " LISTING_FITS ", sum(" LISTING_WEIGHT ") OVER page"
    " FROM (SELECT " DATA_FILE_COLUMNS;
/* clang-format on */

/* $1 catalog, $2 table, $3 snapshot, $4 the page's byte budget; then the
 * filters, the keyset, LIMIT and OFFSET. Only a sorted table's files
 * carry their statistics (for the lead field's bounds). The inner
 * statement picks the page (its plan, top-N sort or index walk, is the
 * listing's alone) and passes each file's statistics as a TOAST pointer;
 * the outer one weighs the rows in page order and reads the heavy
 * columns of the rows under the budget only. */
int store_files_page(struct db_conn *db, const struct store_files_query *q,
                     struct store_file_rows *out, struct error *err)
{
    struct db_params p;
    DB_PARAMS_IDS(&p, q->catalog_id, q->table_id, q->snapshot, q->budget_bytes);
    const char *const *columns = file_sorts[q->sort].columns;
    size_t nkeys = file_sorts[q->sort].nkeys;
    struct buf sql = BUF_INIT;
    int bad = buf_puts(&sql, files_listing_head);
    bad |= buf_puts(&sql,
                    q->has_lead ? ", d.column_stats AS hog_stats" : ", NULL::bytea AS hog_stats");
    for (size_t i = 0; i < nkeys; i++)
        bad |= buf_printf(&sql, ", %s AS hog_k%zu", columns[i], i + 1);
    bad |= buf_puts(&sql, " FROM hog_data_file d WHERE d.catalog_id = $1 AND d.table_id = $2"
                          " AND hog_visible(d.begin_snapshot, d.end_snapshot, $3)");
    bad |= partition_filter_sql(&sql, &p, &q->partition);
    if (q->after)
        bad |= keyset_sql(&sql, &p, columns, q->after, nkeys, q->desc);
    bad |= files_order_sql(&sql, columns, nkeys, q->desc);
    db_param_i64(&p, q->limit + 1);
    db_param_i64(&p, q->offset);
    bad |= buf_printf(&sql, " LIMIT $%d::bigint OFFSET $%d::bigint", p.n - 1, p.n);
    bad |= buf_puts(&sql, ") x WINDOW page AS (");
    bad |= files_order_sql(&sql, NULL, nkeys, q->desc);
    bad |= buf_puts(&sql, " ROWS UNBOUNDED PRECEDING)");
    bad |= files_order_sql(&sql, NULL, nkeys, q->desc);
    out->r = db_exec_built(db->pg, &sql, bad, &p, err);
    return out->r ? 0 : -1;
}

/* The rows of a page to answer: at most `limit`, ending before the first
 * row (never the first) whose boolean column `past` says the rows before
 * it hold the page's byte budget. */
static int page_length(const PGresult *r, int past, int64_t limit)
{
    int n = PQntuples(r);
    if (n > limit)
        n = (int)limit;
    for (int i = 1; i < n; i++)
        if (db_bool(r, i, past))
            return i;
    return n;
}

int store_file_rows_page_length(const struct store_file_rows *rows, int64_t limit)
{
    return page_length(rows->r, FR_PAST, limit);
}

int64_t store_file_rows_weight(const struct store_file_rows *rows, int n)
{
    return n > 0 ? db_i64(rows->r, n - 1, FR_WEIGHT) : 0;
}

int store_file_path(struct db_conn *db, struct arena *arena, int64_t catalog_id, int64_t table_id,
                    int64_t data_file_id, int64_t snapshot, const char **path, struct error *err)
{
    struct db_params p;
    DB_PARAMS_IDS(&p, catalog_id, table_id, data_file_id, snapshot);
    PGresult *r = db_exec(db->pg,
                          "SELECT d.path FROM hog_data_file d WHERE d.catalog_id = $1"
                          " AND d.table_id = $2 AND d.data_file_id = $3"
                          " AND hog_visible(d.begin_snapshot, d.end_snapshot, $4)",
                          &p, err);
    if (!r)
        return -1;
    int rc = PQntuples(r) == 1;
    if (rc && !(*path = arena_strdup(arena, db_str(r, 0, 0))))
        rc = error_nomem(err);
    PQclear(r);
    return rc;
}

/* ---- one file's statistics ---- */

int store_file_stats(struct db_conn *db, int64_t catalog_id, int64_t table_id, int64_t snapshot,
                     int64_t data_file_id, struct store_file_stats_rows *out, struct error *err)
{
    struct db_params p;
    DB_PARAMS_IDS(&p, catalog_id, table_id, snapshot, data_file_id);
    out->bytes = (struct buf)BUF_INIT;
    out->r = db_exec(db->pg,
                     "SELECT d.stats_state, d.column_stats FROM hog_data_file d"
                     " WHERE d.catalog_id = $1 AND d.table_id = $2 AND d.data_file_id = $4"
                     " AND hog_visible(d.begin_snapshot, d.end_snapshot, $3)",
                     &p, err);
    return out->r ? 0 : -1;
}

bool store_file_stats_found(const struct store_file_stats_rows *rows)
{
    return PQntuples(rows->r) == 1;
}

const char *store_file_stats_state(const struct store_file_stats_rows *rows)
{
    return db_str(rows->r, 0, 0);
}

int store_file_stats_read(struct store_file_stats_rows *rows, struct store_column_stats_reader *rd,
                          struct error *err)
{
    return stats_open(rows->r, 0, 1, &rows->bytes, rd, err);
}

void store_file_stats_free(struct store_file_stats_rows *rows)
{
    if (rows->r)
        PQclear(rows->r);
    rows->r = NULL;
    buf_free(&rows->bytes);
}

/* ---- the scan plan ---- */

/* Column positions of the scan statement. */
enum {
    SC_SPLITS = DATA_FILE_NCOLS,
    SC_DV = SC_SPLITS + 1,
    SC_STATS = SC_DV + DELETE_FILE_NCOLS,
    SC_PAST_BUDGET = SC_STATS + 1,
};

/* What a scan row weighs: the file, its vector, and its statistics ($4)
 * and split offsets ($5) when asked, as stored (octet_length reads a
 * TOAST pointer's header, not the value), 8 bytes an offset. */
/* clang-format off */
#define SCAN_WEIGHT                                                                                \
    DATA_FILE_WEIGHT " + " DELETE_FILE_WEIGHT("dv_")                                               \
    " + coalesce(octet_length(x.hog_stats), 0) + 8 * coalesce(cardinality(x.hog_splits), 0)"
/* clang-format on */
#define SCAN_FITS PAGE_FITS_AT(SCAN_WEIGHT, "$6")

/* $1 catalog, $2 table, $3 snapshot, $4 and $5 whether statistics and
 * split offsets are asked, $6 the page's byte budget; then the partition
 * filters, the keyset and the LIMIT. At most one vector per data file is
 * visible at any snapshot (one live DV per file). The page's order is its
 * index's, so the window adds no sort and the walk still stops at the
 * LIMIT; it costs under 1 us a file (measured at 1x: one day of a
 * 1M-file table, 1,090 files, 7.2 -> 7.9 ms). */
/* clang-format off */
static const char scan_head[] =
    "SELECT " DATA_FILE_FITTING(SCAN_FITS) ","
    " CASE WHEN " SCAN_FITS " THEN array_to_json(x.hog_splits)::text END, "
    DELETE_FILE_FITTING("dv_", SCAN_FITS) ", CASE WHEN " SCAN_FITS " THEN x.hog_stats END,"
    " NOT " SCAN_FITS
    " FROM (SELECT " DATA_FILE_COLUMNS ","
    " CASE WHEN $5::boolean THEN d.split_offsets END AS hog_splits, "
    DELETE_FILE_COLUMNS("dv", "dv_") ","
    " CASE WHEN $4::boolean AND d.stats_state = 'provided' THEN d.column_stats END AS hog_stats"
    " FROM hog_data_file d LEFT JOIN hog_delete_file dv"
    " ON dv.catalog_id = d.catalog_id AND dv.data_file_id = d.data_file_id"
    " AND hog_visible(dv.begin_snapshot, dv.end_snapshot, $3)"
    " WHERE d.catalog_id = $1 AND d.table_id = $2"
    " AND hog_visible(d.begin_snapshot, d.end_snapshot, $3)";
/* clang-format on */

/* The window and order over the page x of a statement in
 * (begin_snapshot, row_id_start, data_file_id) order. */
#define DATA_FILE_PAGE_TAIL                                                                        \
    ") x WINDOW page AS (ORDER BY x.begin_snapshot, x.row_id_start, x.data_file_id"                \
    " ROWS UNBOUNDED PRECEDING) ORDER BY x.begin_snapshot, x.row_id_start, x.data_file_id"

int store_files_page_scan(struct db_conn *db, const struct store_scan_query *q,
                          struct store_scan_rows *out, struct error *err)
{
    struct db_params p;
    DB_PARAMS_IDS(&p, q->catalog_id, q->table_id, q->snapshot);
    db_param_bool(&p, q->column_stats);
    db_param_bool(&p, q->split_offsets);
    db_param_i64(&p, q->budget_bytes);
    struct buf sql = BUF_INIT;
    int bad = buf_puts(&sql, scan_head);
    bad |= partition_filter_sql(&sql, &p, &q->partition);
    bad |= keyset_nums(&sql, &p, data_file_page_columns, q->after, 3);
    db_param_i64(&p, q->limit + 1);
    bad |= buf_printf(&sql, " ORDER BY " DATA_FILE_PAGE_ORDER " LIMIT $%d::bigint", p.n);
    bad |= buf_puts(&sql, DATA_FILE_PAGE_TAIL);
    out->r = db_exec_built(db->pg, &sql, bad, &p, err);
    return out->r ? 0 : -1;
}

int store_scan_rows_count(const struct store_scan_rows *rows)
{
    return PQntuples(rows->r);
}

void store_scan_row(const struct store_scan_rows *rows, int i, struct store_data_file *out)
{
    data_file_from(rows->r, i, out);
}

const char *store_scan_row_stats_state(const struct store_scan_rows *rows, int i)
{
    return db_str(rows->r, i, DF_STATS_STATE);
}

int store_scan_rows_page_length(const struct store_scan_rows *rows, int64_t limit)
{
    return page_length(rows->r, SC_PAST_BUDGET, limit);
}

const char *store_scan_row_split_offsets(const struct store_scan_rows *rows, int i)
{
    return db_str(rows->r, i, SC_SPLITS);
}

bool store_scan_row_delete_file(const struct store_scan_rows *rows, int i,
                                struct store_delete_file *out)
{
    if (db_isnull(rows->r, i, SC_DV))
        return false;
    delete_file_from(rows->r, i, SC_DV, out);
    return true;
}

int store_scan_row_stats(const struct store_scan_rows *rows, int i, struct buf *scratch,
                         struct store_column_stats_reader *rd, struct error *err)
{
    return stats_open(rows->r, i, SC_STATS, scratch, rd, err);
}

void store_scan_rows_free(struct store_scan_rows *rows)
{
    if (rows->r)
        PQclear(rows->r);
    rows->r = NULL;
}

/* ---- the changefeed plan ---- */

/* The window predicate: a row appended in (from, to] is one whose
 * begin_snapshot is visible at `to` but not at `from` (its end does not
 * matter: a file retired inside the window was still appended there). */
#define IN_WINDOW(alias)                                                                           \
    " hog_visible(" alias ".begin_snapshot, NULL, $4) AND NOT hog_visible(" alias                  \
    ".begin_snapshot, NULL, $3)"

/* The data files of the window are weighed as a listing's are, with the
 * budget in $5. */
#define CHANGED_FILE_FITS PAGE_FITS_AT(DATA_FILE_WEIGHT, "$5")

/* $1 catalog, $2 table, $3 from, $4 to, $5 the page's byte budget.
 * Compaction outputs are the files whose begin_snapshot wrote
 * table_compacted for this table (they rewrite rows the feed already
 * delivered). */
/* clang-format off */
static const char changed_files_head[] =
    "SELECT " DATA_FILE_FITTING(CHANGED_FILE_FITS) ", NULL::bytea, NOT " CHANGED_FILE_FITS ","
    " sum(" DATA_FILE_WEIGHT ") OVER page"
    " FROM (SELECT " DATA_FILE_COLUMNS " FROM hog_data_file d"
    " WHERE d.catalog_id = $1 AND d.table_id = $2 AND" IN_WINDOW("d")
    " AND NOT EXISTS (SELECT 1 FROM hog_snapshot_change c WHERE c.catalog_id = $1"
    "  AND c.object_id = $2 AND c.kind = 'table_compacted'"
    "  AND c.snapshot_id = d.begin_snapshot)";
/* clang-format on */

/* Column positions of the vectors' statement. */
enum {
    CD_DV = DATA_FILE_NCOLS,
    CD_SUPERSEDED = CD_DV + DELETE_FILE_NCOLS,
    CD_PAST = CD_SUPERSEDED + DELETE_FILE_NCOLS,
};

/* A vector's row weighs its target, itself and the vector it superseded. */
#define CHANGED_DV_WEIGHT                                                                          \
    DATA_FILE_WEIGHT " + " DELETE_FILE_WEIGHT("v_") " + " DELETE_FILE_WEIGHT("p_")
#define CHANGED_DV_FITS PAGE_FITS_AT(CHANGED_DV_WEIGHT, "$5")

/* $1 catalog, $2 table, $3 from, $4 to, $5 the page's byte budget. Each
 * vector comes with its target (d, through the primary key) and the
 * vector it superseded (p): a file has at most one live vector, and a
 * vector's span never shares a snapshot with another's, so the only
 * vector of the target that can end where this one begins is the one
 * begun last before it. The lateral walks hog_delete_file_target
 * backwards from this vector's begin and reads that one row, however many
 * vectors the target has had; it is the superseded one when it ended
 * exactly there, else (the target's first vector) none. */
/* clang-format off */
static const char changed_dvs_head[] =
    "SELECT " DATA_FILE_FITTING(CHANGED_DV_FITS) ", " DELETE_FILE_FITTING("v_", CHANGED_DV_FITS)
    ", " DELETE_FILE_FITTING("p_", CHANGED_DV_FITS) ", NOT " CHANGED_DV_FITS
    " FROM (SELECT " DATA_FILE_COLUMNS ", " DELETE_FILE_COLUMNS("v", "v_") ", "
    DELETE_FILE_COLUMNS("p", "p_")
    " FROM hog_delete_file v"
    " JOIN hog_data_file d ON d.catalog_id = v.catalog_id AND d.data_file_id = v.data_file_id"
    " LEFT JOIN LATERAL (SELECT o.* FROM hog_delete_file o WHERE o.catalog_id = v.catalog_id"
    "  AND o.data_file_id = v.data_file_id AND o.begin_snapshot < v.begin_snapshot"
    "  ORDER BY o.begin_snapshot DESC LIMIT 1) p ON p.end_snapshot = v.begin_snapshot"
    " WHERE v.catalog_id = $1 AND v.table_id = $2 AND" IN_WINDOW("v");
/* clang-format on */

static const char *const vector_page_columns[2] = {"v.begin_snapshot", "v.delete_file_id"};
#define VECTOR_PAGE_TAIL                                                                           \
    ") x WINDOW page AS (ORDER BY x.v_begin, x.v_id ROWS UNBOUNDED PRECEDING)"                     \
    " ORDER BY x.v_begin, x.v_id"

/* Up to limit + 1 rows of one of the window's listings: `head`, the
 * inner statement ordered by its page columns after `after` when given,
 * then `tail`, the outer one's window and order. */
static PGresult *window_rows(struct db_conn *db, const struct store_window *w,
                             const struct store_window_page *pg, const char *head,
                             const char *const *columns, size_t ncolumns, const char *tail,
                             struct error *err)
{
    struct db_params p;
    DB_PARAMS_IDS(&p, w->catalog_id, w->table_id, w->from, w->to, pg->budget_bytes);
    struct buf sql = BUF_INIT;
    int bad = buf_puts(&sql, head);
    bad |= keyset_nums(&sql, &p, columns, pg->after, ncolumns);
    bad |= buf_puts(&sql, " ORDER BY ");
    for (size_t i = 0; i < ncolumns; i++)
        bad |= buf_printf(&sql, "%s%s", i ? ", " : "", columns[i]);
    db_param_i64(&p, pg->limit + 1);
    bad |= buf_printf(&sql, " LIMIT $%d::bigint", p.n);
    bad |= buf_puts(&sql, tail);
    return db_exec_built(db->pg, &sql, bad, &p, err);
}

int store_files_page_changed(struct db_conn *db, const struct store_window *w,
                             const struct store_window_page *pg, struct store_file_rows *out,
                             struct error *err)
{
    out->r = window_rows(db, w, pg, changed_files_head, data_file_page_columns, 3,
                         DATA_FILE_PAGE_TAIL, err);
    return out->r ? 0 : -1;
}

int store_files_page_changed_dvs(struct db_conn *db, const struct store_window *w,
                                 const struct store_window_page *pg, struct store_dv_rows *out,
                                 struct error *err)
{
    out->r =
        window_rows(db, w, pg, changed_dvs_head, vector_page_columns, 2, VECTOR_PAGE_TAIL, err);
    return out->r ? 0 : -1;
}

int store_dv_rows_page_length(const struct store_dv_rows *rows, int64_t limit)
{
    return page_length(rows->r, CD_PAST, limit);
}

int store_dv_rows_count(const struct store_dv_rows *rows)
{
    return PQntuples(rows->r);
}

void store_dv_row(const struct store_dv_rows *rows, int i, struct store_changed_dv *out)
{
    data_file_from(rows->r, i, &out->target);
    delete_file_from(rows->r, i, CD_DV, &out->dv);
    out->has_superseded = !db_isnull(rows->r, i, CD_SUPERSEDED);
    if (out->has_superseded)
        delete_file_from(rows->r, i, CD_SUPERSEDED, &out->superseded);
    else
        out->superseded = (struct store_delete_file){0};
}

void store_dv_rows_free(struct store_dv_rows *rows)
{
    if (rows->r)
        PQclear(rows->r);
    rows->r = NULL;
}
