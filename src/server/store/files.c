/* hog_data_file and hog_delete_file reads (see files.h). */
#include "server/store/files.h"

#include "server/db/db.h"
#include "server/store/page_budget.h"
#include "util/strutil.h"

/* ---- shapes ---- */

/* The DataFile columns of `hog_data_file d`, in the order data_file_from
 * reads them; every data-file statement starts with them. */
#define DATA_FILE_COLUMNS                                                                          \
    "d.data_file_id, d.path, d.file_format, d.record_count, d.file_size_bytes,"                    \
    " d.row_id_start, d.stats_state, d.begin_snapshot, d.footer_size, d.spec_id,"                  \
    " d.explicit_row_ids,"                                                                         \
    " CASE WHEN d.spec_id IS NULL THEN NULL ELSE (SELECT json_agg(pv.value ORDER BY"               \
    "  pv.key_index)::text FROM hog_file_partition_value pv WHERE pv.catalog_id = d.catalog_id"    \
    "  AND pv.data_file_id = d.data_file_id) END AS partition_values"
enum { DATA_FILE_NCOLS = 12 };
/* The same columns by name, read from a subquery aliased x. */
#define DATA_FILE_NAMES                                                                            \
    "x.data_file_id, x.path, x.file_format, x.record_count, x.file_size_bytes, x.row_id_start,"    \
    " x.stats_state, x.begin_snapshot, x.footer_size, x.spec_id, x.explicit_row_ids,"              \
    " x.partition_values"

/* The DeleteFile columns of a hog_delete_file alias, in the order
 * delete_file_from reads them. */
#define DELETE_FILE_COLUMNS(a)                                                                     \
    a ".delete_file_id, " a ".data_file_id, " a ".path, " a ".file_format, " a ".delete_count, " a \
      ".file_size_bytes, " a ".begin_snapshot"
enum { DELETE_FILE_NCOLS = 7 };

enum { DF_ID = 0, DF_STATS_STATE = 6 };

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

/* Runs a statement built in sql (bad: building it failed), then frees sql. */
static PGresult *run_built(struct db_conn *db, struct buf *sql, int bad, const struct db_params *p,
                           struct error *err)
{
    PGresult *r = NULL;
    if (bad || !sql->data)
        error_nomem(err);
    else
        r = db_exec(db->pg, sql->data, p, err);
    buf_free(sql);
    return r;
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
    if (stats_open(rows->r, i, DATA_FILE_NCOLS, scratch, &rd, err) != 0)
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

/* The listing's outer select over the page x, and the start of its
 * inner one (the sort keys follow as x.hog_k1..): see store_files_page. */
#define LEAD_FITS PAGE_FITS_AT("x.hog_bytes", "$4")
/* clang-format off */
static const char files_lead_head[] =
    "SELECT " DATA_FILE_NAMES ", CASE WHEN " LEAD_FITS " THEN x.hog_stats END, NOT " LEAD_FITS
    " FROM (SELECT " DATA_FILE_COLUMNS ", d.column_stats AS hog_stats,"
    " coalesce(octet_length(d.column_stats), 0) AS hog_bytes";
/* clang-format on */

/* $1 catalog, $2 table, $3 snapshot, then with the lead field's
 * statistics ($4 the page's byte budget) or without; then the filters,
 * the keyset, LIMIT and OFFSET. Only a sorted table's files carry their
 * statistics (for the lead field's bounds), and only while the page's
 * statistics so far are under the budget: the inner statement picks the
 * page (its plan, top-N sort or index walk, is the listing's alone) and
 * passes each file's statistics as a TOAST pointer with their size; the
 * outer one sums the sizes in page order and reads the statistics of the
 * files under the budget only. */
int store_files_page(struct db_conn *db, const struct store_files_query *q,
                     struct store_file_rows *out, struct error *err)
{
    struct db_params p;
    DB_PARAMS_IDS(&p, q->catalog_id, q->table_id, q->snapshot);
    const char *const *columns = file_sorts[q->sort].columns;
    size_t nkeys = file_sorts[q->sort].nkeys;
    struct buf sql = BUF_INIT;
    int bad;
    if (q->has_lead) {
        db_param_i64(&p, q->budget_bytes);
        bad = buf_puts(&sql, files_lead_head);
        for (size_t i = 0; i < nkeys; i++)
            bad |= buf_printf(&sql, ", %s AS hog_k%zu", columns[i], i + 1);
    } else {
        bad = buf_puts(&sql, "SELECT " DATA_FILE_COLUMNS ", NULL::bytea, false");
    }
    bad |= buf_puts(&sql, " FROM hog_data_file d WHERE d.catalog_id = $1 AND d.table_id = $2"
                          " AND hog_visible(d.begin_snapshot, d.end_snapshot, $3)");
    bad |= partition_filter_sql(&sql, &p, &q->partition);
    if (q->after)
        bad |= keyset_sql(&sql, &p, columns, q->after, nkeys, q->desc);
    bad |= files_order_sql(&sql, columns, nkeys, q->desc);
    db_param_i64(&p, q->limit + 1);
    db_param_i64(&p, q->offset);
    bad |= buf_printf(&sql, " LIMIT $%d::bigint OFFSET $%d::bigint", p.n - 1, p.n);
    if (q->has_lead) {
        bad |= buf_puts(&sql, ") x WINDOW page AS (");
        bad |= files_order_sql(&sql, NULL, nkeys, q->desc);
        bad |= buf_puts(&sql, " ROWS UNBOUNDED PRECEDING)");
        bad |= files_order_sql(&sql, NULL, nkeys, q->desc);
    }
    out->r = run_built(db, &sql, bad, &p, err);
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
    return page_length(rows->r, DATA_FILE_NCOLS + 1, limit);
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

/* What a scan row's statistics and split offsets weigh: their stored
 * bytes (octet_length reads a TOAST pointer's header, not the value) and
 * 8 bytes an offset. */
#define SCAN_HEAVY_BYTES                                                                           \
    "CASE WHEN $4::boolean AND d.stats_state = 'provided'"                                         \
    " THEN coalesce(octet_length(d.column_stats), 0) ELSE 0 END"                                   \
    " + CASE WHEN $5::boolean THEN 8 * coalesce(cardinality(d.split_offsets), 0) ELSE 0 END"
#define SCAN_FITS PAGE_FITS_AT(SCAN_HEAVY_BYTES, "$6")

/* $1 catalog, $2 table, $3 snapshot; then the partition filters, the
 * keyset and the LIMIT. At most one vector per data file is visible at any
 * snapshot (one live DV per file). */
#define SCAN_FROM                                                                                  \
    " FROM hog_data_file d LEFT JOIN hog_delete_file dv"                                           \
    " ON dv.catalog_id = d.catalog_id AND dv.data_file_id = d.data_file_id"                        \
    " AND hog_visible(dv.begin_snapshot, dv.end_snapshot, $3)"                                     \
    " WHERE d.catalog_id = $1 AND d.table_id = $2"                                                 \
    " AND hog_visible(d.begin_snapshot, d.end_snapshot, $3)"

/* The plan's files alone: nothing weighs, no budget. */
static const char scan_plain_sql[] =
    "SELECT " DATA_FILE_COLUMNS
    ", NULL::text, " DELETE_FILE_COLUMNS("dv") ", NULL::bytea, false" SCAN_FROM;

/* With statistics ($4) or split offsets ($5) asked, $6 the page's byte
 * budget, and the window `page` after the keyset: a file past the budget
 * comes without them and ends the page. The page's order is its index's,
 * so the window adds no sort and the walk still stops at the LIMIT; it
 * costs about 1.5 us a file (measured: 1,000 files with statistics, 6.9
 * to 8.4 ms), which is why a plan without them does without it. */
/* clang-format off */
static const char scan_budgeted_sql[] =
    "SELECT " DATA_FILE_COLUMNS ","
    " CASE WHEN $5::boolean AND " SCAN_FITS " THEN array_to_json(d.split_offsets)::text END, "
    DELETE_FILE_COLUMNS("dv") ","
    " CASE WHEN $4::boolean AND d.stats_state = 'provided' AND " SCAN_FITS
    " THEN d.column_stats END, NOT " SCAN_FITS
    SCAN_FROM;
/* clang-format on */

int store_files_page_scan(struct db_conn *db, const struct store_scan_query *q,
                          struct store_scan_rows *out, struct error *err)
{
    bool budgeted = q->column_stats || q->split_offsets;
    struct db_params p;
    DB_PARAMS_IDS(&p, q->catalog_id, q->table_id, q->snapshot);
    if (budgeted) {
        db_param_bool(&p, q->column_stats);
        db_param_bool(&p, q->split_offsets);
        db_param_i64(&p, q->budget_bytes);
    }
    struct buf sql = BUF_INIT;
    int bad = buf_puts(&sql, budgeted ? scan_budgeted_sql : scan_plain_sql);
    bad |= partition_filter_sql(&sql, &p, &q->partition);
    bad |= keyset_nums(&sql, &p, data_file_page_columns, q->after, 3);
    if (budgeted)
        bad |= buf_puts(&sql, " WINDOW page AS (ORDER BY " DATA_FILE_PAGE_ORDER
                              " ROWS UNBOUNDED PRECEDING)");
    db_param_i64(&p, q->limit + 1);
    bad |= buf_printf(&sql, " ORDER BY " DATA_FILE_PAGE_ORDER " LIMIT $%d::bigint", p.n);
    out->r = run_built(db, &sql, bad, &p, err);
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

/* $1 catalog, $2 table, $3 from, $4 to. Compaction outputs are the files
 * whose begin_snapshot wrote table_compacted for this table (they rewrite
 * rows the feed already delivered). */
/* clang-format off */
static const char changed_files_sql[] =
    "SELECT " DATA_FILE_COLUMNS " FROM hog_data_file d"
    " WHERE d.catalog_id = $1 AND d.table_id = $2 AND" IN_WINDOW("d")
    " AND NOT EXISTS (SELECT 1 FROM hog_snapshot_change c WHERE c.catalog_id = $1"
    "  AND c.object_id = $2 AND c.kind = 'table_compacted'"
    "  AND c.snapshot_id = d.begin_snapshot)";
/* clang-format on */

/* Column positions of the vectors' statement. */
enum { CD_DV = DATA_FILE_NCOLS, CD_SUPERSEDED = CD_DV + DELETE_FILE_NCOLS };

/* $1 catalog, $2 table, $3 from, $4 to. Each vector comes with its target
 * (d, through the primary key) and the vector it superseded (p): a file
 * has at most one live vector, and a vector's span never shares a
 * snapshot with another's, so the only vector of the target that can end
 * where this one begins is the one begun last before it. The lateral walks
 * hog_delete_file_target backwards from this vector's begin and reads that
 * one row, however many vectors the target has had; it is the superseded
 * one when it ended exactly there, else (the target's first vector) none. */
/* clang-format off */
static const char changed_dvs_sql[] =
    "SELECT " DATA_FILE_COLUMNS ", " DELETE_FILE_COLUMNS("v") ", " DELETE_FILE_COLUMNS("p")
    " FROM hog_delete_file v"
    " JOIN hog_data_file d ON d.catalog_id = v.catalog_id AND d.data_file_id = v.data_file_id"
    " LEFT JOIN LATERAL (SELECT " DELETE_FILE_COLUMNS("o") ", o.end_snapshot"
    "  FROM hog_delete_file o WHERE o.catalog_id = v.catalog_id"
    "  AND o.data_file_id = v.data_file_id AND o.begin_snapshot < v.begin_snapshot"
    "  ORDER BY o.begin_snapshot DESC LIMIT 1) p ON p.end_snapshot = v.begin_snapshot"
    " WHERE v.catalog_id = $1 AND v.table_id = $2 AND" IN_WINDOW("v");
/* clang-format on */

static const char *const vector_page_columns[2] = {"v.begin_snapshot", "v.delete_file_id"};

/* Up to limit + 1 rows of one of the window's listings, ordered by its
 * page columns, after `after` when given. */
static PGresult *window_rows(struct db_conn *db, const struct store_window *w, const char *base,
                             const char *const *columns, size_t ncolumns, const int64_t *after,
                             int64_t limit, struct error *err)
{
    struct db_params p;
    DB_PARAMS_IDS(&p, w->catalog_id, w->table_id, w->from, w->to);
    struct buf sql = BUF_INIT;
    int bad = buf_puts(&sql, base);
    bad |= keyset_nums(&sql, &p, columns, after, ncolumns);
    bad |= buf_puts(&sql, " ORDER BY ");
    for (size_t i = 0; i < ncolumns; i++)
        bad |= buf_printf(&sql, "%s%s", i ? ", " : "", columns[i]);
    db_param_i64(&p, limit + 1);
    bad |= buf_printf(&sql, " LIMIT $%d::bigint", p.n);
    return run_built(db, &sql, bad, &p, err);
}

int store_files_page_changed(struct db_conn *db, const struct store_window *w, const int64_t *after,
                             int64_t limit, struct store_file_rows *out, struct error *err)
{
    out->r = window_rows(db, w, changed_files_sql, data_file_page_columns, 3, after, limit, err);
    return out->r ? 0 : -1;
}

int store_files_page_changed_dvs(struct db_conn *db, const struct store_window *w,
                                 const int64_t *after, int64_t limit, struct store_dv_rows *out,
                                 struct error *err)
{
    out->r = window_rows(db, w, changed_dvs_sql, vector_page_columns, 2, after, limit, err);
    return out->r ? 0 : -1;
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
