#include "server/store/summary.h"

#include <stdint.h>

#include "server/db/db.h"
#include "util/buf.h"

static const char ensure_sql[] =
    "INSERT INTO hog_summary (catalog_id) SELECT catalog_id FROM hog_catalog"
    " WHERE catalog_id = $1 ON CONFLICT DO NOTHING";

static const char take_sql[] =
    "SELECT s.generation, s.scan_snapshot, s.scan_after, s.published_generation,"
    " s.published_at IS NULL OR s.published_at <= now() - make_interval(secs => $2),"
    " c.last_snapshot_id, c.earliest_snapshot_id, s.published_snapshot"
    " FROM hog_summary s JOIN hog_catalog c ON c.catalog_id = s.catalog_id"
    " WHERE s.catalog_id = $1 FOR NO KEY UPDATE OF s SKIP LOCKED";

static const char start_sql[] =
    "UPDATE hog_summary SET generation = generation + 1, scan_snapshot = $2, scan_after = 0,"
    " scan_started_at = now() WHERE catalog_id = $1 RETURNING generation";

/* The table's namespace and live spec (-1: none) at snapshot `at`, when
 * the table is live there: no row otherwise. For a LATERAL join. */
#define TABLE_AT(table, at)                                                                        \
    " SELECT tv.namespace_id, coalesce((SELECT ps.spec_id FROM hog_partition_spec ps"              \
    "   WHERE ps.catalog_id = $1 AND ps.table_id = " table " AND ps.begin_snapshot <= " at         \
    "   AND (ps.end_snapshot IS NULL OR ps.end_snapshot > " at ") LIMIT 1), -1) AS live_spec"      \
    " FROM hog_table t JOIN hog_table_version tv ON tv.catalog_id = t.catalog_id"                  \
    " AND tv.table_id = t.table_id AND tv.begin_snapshot <= " at                                   \
    " AND (tv.end_snapshot IS NULL OR tv.end_snapshot > " at ")"                                   \
    " WHERE t.catalog_id = $1 AND t.table_id = " table " AND t.created_snapshot <= " at            \
    " AND (t.dropped_snapshot IS NULL OR t.dropped_snapshot > " at ") LIMIT 1"

/* One batch: the next files live at the walk's snapshot ($3) past $4 in id
 * order, with their partition values and live deletion vectors read as
 * two index ranges over the batch's ids (not one probe a file), grouped
 * into buckets; then, a bucket at a time (LATERAL: index probes, not a
 * scan of every table), kept when its table is live at the snapshot, with
 * its namespace and whether its spec is the table's live one there; and
 * added to generation $2. At most one deletion vector of a file is live at
 * a snapshot. Debt: the small files beyond the ones their bytes fill (each
 * is under $6, so never negative), plus the deletion vectors. */
/* clang-format off */
static const char add_sql[] =
    "WITH f AS (SELECT d.data_file_id, d.table_id, coalesce(d.spec_id, -1) AS spec_id,"
    "   d.record_count, d.file_size_bytes, d.begin_snapshot FROM hog_data_file d"
    "   WHERE d.catalog_id = $1 AND d.data_file_id > $4 AND d.begin_snapshot <= $3"
    "   AND (d.end_snapshot IS NULL OR d.end_snapshot > $3)"
    "   ORDER BY d.data_file_id LIMIT $5),"
    " last AS (SELECT max(data_file_id) AS id FROM f),"
    " pv AS (SELECT v.data_file_id, array_agg(v.value ORDER BY v.key_index) AS pv"
    "   FROM hog_file_partition_value v WHERE v.catalog_id = $1 AND v.data_file_id > $4"
    "   AND v.data_file_id <= (SELECT id FROM last) GROUP BY v.data_file_id),"
    " dv AS (SELECT DISTINCT x.data_file_id FROM hog_delete_file x WHERE x.catalog_id = $1"
    "   AND x.data_file_id > $4 AND x.data_file_id <= (SELECT id FROM last)"
    "   AND x.begin_snapshot <= $3 AND (x.end_snapshot IS NULL OR x.end_snapshot > $3)),"
    " agg AS (SELECT f.table_id, f.spec_id, coalesce(pv.pv, '{}') AS pv, count(*) AS files,"
    "   count(*) FILTER (WHERE f.file_size_bytes < $6) AS small,"
    "   sum(f.file_size_bytes)::bigint AS bytes,"
    "   coalesce(sum(f.file_size_bytes) FILTER (WHERE f.file_size_bytes < $6), 0)::bigint"
    "     AS small_bytes,"
    "   count(dv.data_file_id) AS dvs, sum(f.record_count)::bigint AS records,"
    "   max(f.begin_snapshot) AS last_written"
    "   FROM f LEFT JOIN pv ON pv.data_file_id = f.data_file_id"
    "   LEFT JOIN dv ON dv.data_file_id = f.data_file_id"
    "   GROUP BY f.table_id, f.spec_id, coalesce(pv.pv, '{}')),"
    " live AS (SELECT a.*, tbl.namespace_id, tbl.live_spec"
    "   FROM agg a CROSS JOIN LATERAL (" TABLE_AT("a.table_id", "$3") ") tbl),"
    " up AS (INSERT INTO hog_summary_bucket AS b (catalog_id, generation, table_id,"
    "     namespace_id, spec_id, partition_values, stale_spec, file_count, small_count,"
    "     total_bytes, small_bytes, dv_count, record_count, last_written_snapshot, debt_score)"
    "   SELECT $1, $2, l.table_id, l.namespace_id, l.spec_id, l.pv, l.spec_id <> l.live_spec,"
    "     l.files, l.small, l.bytes, l.small_bytes, l.dvs, l.records, l.last_written,"
    "     l.small - (l.small_bytes + $6 - 1) / $6 + l.dvs FROM live l"
    "   ON CONFLICT (catalog_id, generation, table_id, spec_id, partition_values) DO UPDATE SET"
    "     file_count = b.file_count + excluded.file_count,"
    "     small_count = b.small_count + excluded.small_count,"
    "     total_bytes = b.total_bytes + excluded.total_bytes,"
    "     small_bytes = b.small_bytes + excluded.small_bytes,"
    "     dv_count = b.dv_count + excluded.dv_count,"
    "     record_count = b.record_count + excluded.record_count,"
    "     last_written_snapshot = greatest(b.last_written_snapshot,"
    "       excluded.last_written_snapshot),"
    "     debt_score = b.small_count + excluded.small_count"
    "       - (b.small_bytes + excluded.small_bytes + $6 - 1) / $6"
    "       + b.dv_count + excluded.dv_count"
    "   RETURNING 1)"
    " SELECT (SELECT count(*) FROM f), (SELECT id FROM last), (SELECT count(*) FROM up)";
/* clang-format on */

/* ---- refreshing a published generation by its changes ----
 *
 * Between the published snapshot ($3) and the head ($4) a bucket changes
 * only by: files added in a table a change row names (begin in the range,
 * live at the head), files ended (end in the range, begun by the published
 * snapshot: they were counted), and deletion vectors begun in the range on
 * files live at both ends (one live at a snapshot at most, so a file's
 * count moves by has(head) - has(published)). Tables dropped, and tables
 * whose spec or namespace changed, are settled by their change rows.
 * Expiry purges only rows ended at or below the floor, so while the floor
 * is at or below the published snapshot every row the changes need is
 * there. */
#define CHANGED_TABLES(kinds)                                                                      \
    " SELECT DISTINCT c.object_id AS table_id FROM hog_snapshot_change c"                          \
    " WHERE c.catalog_id = $1 AND c.snapshot_id > $3 AND c.snapshot_id <= $4"                      \
    " AND c.kind IN (" kinds ")"
#define DATA_KINDS "'table_inserted_into', 'table_deleted_from', 'table_compacted'"
#define HAS_DV(file, at)                                                                           \
    " (EXISTS (SELECT 1 FROM hog_delete_file x WHERE x.catalog_id = $1"                            \
    "  AND x.data_file_id = " file " AND x.begin_snapshot <= " at                                  \
    "  AND (x.end_snapshot IS NULL OR x.end_snapshot > " at ")))::int"

/* clang-format off */
/* How many rows the changes touch, each count stopped at $2. */
static const char delta_size_sql[] =
    "WITH t AS (" CHANGED_TABLES(DATA_KINDS) ")"
    " SELECT (SELECT count(*) FROM (SELECT 1 FROM hog_data_file d WHERE d.catalog_id = $1"
    "   AND d.end_snapshot > $3 AND d.end_snapshot <= $4 LIMIT $2) e)"
    " + (SELECT count(*) FROM (SELECT 1 FROM t JOIN hog_data_file d ON d.catalog_id = $1"
    "   AND d.table_id = t.table_id AND d.begin_snapshot > $3 AND d.begin_snapshot <= $4"
    "   LIMIT $2) a)"
    " + (SELECT count(*) FROM (SELECT 1 FROM t JOIN hog_delete_file x ON x.catalog_id = $1"
    "   AND x.table_id = t.table_id AND x.begin_snapshot > $3 AND x.begin_snapshot <= $4"
    "   LIMIT $2) v)";

/* The changes, as signed rows per file, summed per bucket of a table live
 * at the head, applied to generation $2: existing buckets updated (or
 * deleted when their last file went), new ones inserted. A change that
 * would leave a bucket it cannot find with fewer than one file means the
 * published counts and the rows disagree: counted in the second column,
 * and the caller walks the catalog again instead. */
static const char delta_sql[] =
    "WITH t AS (" CHANGED_TABLES(DATA_KINDS) "),"
    " added AS (SELECT d.data_file_id, d.table_id, d.spec_id, d.record_count,"
    "   d.file_size_bytes, d.begin_snapshot, 1 AS sign,"
    "   " HAS_DV("d.data_file_id", "$4") " AS dv"
    "   FROM t JOIN hog_data_file d ON d.catalog_id = $1 AND d.table_id = t.table_id"
    "   AND d.begin_snapshot > $3 AND d.begin_snapshot <= $4"
    "   WHERE d.end_snapshot IS NULL OR d.end_snapshot > $4),"
    " ended AS (SELECT d.data_file_id, d.table_id, d.spec_id, d.record_count,"
    "   d.file_size_bytes, NULL::bigint AS begin_snapshot, -1 AS sign,"
    "   -" HAS_DV("d.data_file_id", "$3") " AS dv"
    "   FROM hog_data_file d WHERE d.catalog_id = $1 AND d.end_snapshot > $3"
    "   AND d.end_snapshot <= $4 AND d.begin_snapshot <= $3),"
    " moved AS (SELECT d.data_file_id, d.table_id, d.spec_id, 0::bigint AS record_count,"
    "   0::bigint AS file_size_bytes, NULL::bigint AS begin_snapshot, 0 AS sign,"
    "   " HAS_DV("d.data_file_id", "$4") " -" HAS_DV("d.data_file_id", "$3") " AS dv"
    "   FROM (SELECT DISTINCT x.data_file_id FROM t JOIN hog_delete_file x"
    "     ON x.catalog_id = $1 AND x.table_id = t.table_id"
    "     AND x.begin_snapshot > $3 AND x.begin_snapshot <= $4) m"
    "   JOIN hog_data_file d ON d.catalog_id = $1 AND d.data_file_id = m.data_file_id"
    "   WHERE d.begin_snapshot <= $3 AND (d.end_snapshot IS NULL OR d.end_snapshot > $4)),"
    " f AS (SELECT * FROM added UNION ALL SELECT * FROM ended UNION ALL SELECT * FROM moved),"
    " agg AS (SELECT f.table_id, coalesce(f.spec_id, -1) AS spec_id,"
    "   coalesce((SELECT array_agg(v.value ORDER BY v.key_index)"
    "     FROM hog_file_partition_value v"
    "     WHERE v.catalog_id = $1 AND v.data_file_id = f.data_file_id), '{}') AS pv,"
    "   sum(f.sign)::bigint AS files,"
    "   sum(CASE WHEN f.file_size_bytes < $5 THEN f.sign ELSE 0 END)::bigint AS small,"
    "   sum(f.sign * f.file_size_bytes)::bigint AS bytes,"
    "   sum(CASE WHEN f.file_size_bytes < $5 THEN f.sign * f.file_size_bytes ELSE 0 END)"
    "     ::bigint AS small_bytes,"
    "   sum(f.dv)::bigint AS dvs, sum(f.sign * f.record_count)::bigint AS records,"
    "   max(f.begin_snapshot) AS last_written"
    "   FROM f GROUP BY 1, 2, 3),"
    " live AS (SELECT a.*, tbl.namespace_id, tbl.live_spec, b.file_count AS had"
    "   FROM agg a CROSS JOIN LATERAL (" TABLE_AT("a.table_id", "$4") ") tbl"
    "   LEFT JOIN hog_summary_bucket b ON b.catalog_id = $1 AND b.generation = $2"
    "   AND b.table_id = a.table_id AND b.spec_id = a.spec_id AND b.partition_values = a.pv),"
    " upd AS (UPDATE hog_summary_bucket b SET file_count = b.file_count + l.files,"
    "   small_count = b.small_count + l.small, total_bytes = b.total_bytes + l.bytes,"
    "   small_bytes = b.small_bytes + l.small_bytes, dv_count = b.dv_count + l.dvs,"
    "   record_count = b.record_count + l.records,"
    "   last_written_snapshot = greatest(b.last_written_snapshot, l.last_written),"
    "   namespace_id = l.namespace_id, stale_spec = b.spec_id <> l.live_spec,"
    "   debt_score = b.small_count + l.small - (b.small_bytes + l.small_bytes + $5 - 1) / $5"
    "     + b.dv_count + l.dvs"
    "   FROM live l WHERE b.catalog_id = $1 AND b.generation = $2 AND b.table_id = l.table_id"
    "   AND b.spec_id = l.spec_id AND b.partition_values = l.pv AND l.had + l.files > 0"
    "   RETURNING 1),"
    " del AS (DELETE FROM hog_summary_bucket b USING live l WHERE b.catalog_id = $1"
    "   AND b.generation = $2 AND b.table_id = l.table_id AND b.spec_id = l.spec_id"
    "   AND b.partition_values = l.pv AND l.had + l.files = 0 RETURNING 1),"
    " ins AS (INSERT INTO hog_summary_bucket (catalog_id, generation, table_id, namespace_id,"
    "     spec_id, partition_values, stale_spec, file_count, small_count, total_bytes,"
    "     small_bytes, dv_count, record_count, last_written_snapshot, debt_score)"
    "   SELECT $1, $2, l.table_id, l.namespace_id, l.spec_id, l.pv, l.spec_id <> l.live_spec,"
    "     l.files, l.small, l.bytes, l.small_bytes, l.dvs, l.records, l.last_written,"
    "     l.small - (l.small_bytes + $5 - 1) / $5 + l.dvs"
    "   FROM live l WHERE l.had IS NULL AND l.files > 0 RETURNING 1)"
    " SELECT (SELECT count(*) FROM f),"
    " (SELECT count(*) FROM live WHERE coalesce(had, 0) + files < 0"
    "   OR (had IS NULL AND files <= 0"
    "     AND (files, small, bytes, dvs, records) <> (0, 0, 0, 0, 0))),"
    " (SELECT count(*) FROM ins) - (SELECT count(*) FROM del)";

/* Buckets of tables dropped in the range, and the namespace and spec
 * staleness of tables altered there. */
static const char delta_dropped_sql[] =
    "DELETE FROM hog_summary_bucket b WHERE b.catalog_id = $1 AND b.generation = $2"
    " AND b.table_id IN (" CHANGED_TABLES("'table_dropped'") ")";

static const char delta_altered_sql[] =
    "UPDATE hog_summary_bucket b SET namespace_id = tbl.namespace_id,"
    " stale_spec = b.spec_id <> tbl.live_spec"
    " FROM (" CHANGED_TABLES("'table_altered'") ") t"
    " CROSS JOIN LATERAL (" TABLE_AT("t.table_id", "$4") ") tbl"
    " WHERE b.catalog_id = $1 AND b.generation = $2 AND b.table_id = t.table_id";
/* clang-format on */

/* A generation's totals ($2), for publishing it: a sum over its buckets
 * (cheap next to the walk or the changes before it). */
#define GENERATION_TOTALS                                                                          \
    " live_files = t.files, live_bytes = t.bytes, live_rows = t.records,"                          \
    " buckets = t.buckets, stale_spec_buckets = t.stale"                                           \
    " FROM (SELECT coalesce(sum(file_count), 0)::bigint AS files,"                                 \
    "   coalesce(sum(total_bytes), 0)::bigint AS bytes,"                                           \
    "   coalesce(sum(record_count), 0)::bigint AS records, count(*) AS buckets,"                   \
    "   count(*) FILTER (WHERE stale_spec) AS stale FROM hog_summary_bucket"                       \
    "   WHERE catalog_id = $1 AND generation = $2) t"

/* The refreshed generation counts the head ($3) now. */
static const char delta_publish_sql[] =
    "UPDATE hog_summary s SET published_snapshot = $3, published_started_at = now(),"
    " published_at = clock_timestamp()," GENERATION_TOTALS " WHERE s.catalog_id = $1";

static const char floor_sql[] =
    "SELECT earliest_snapshot_id FROM hog_catalog WHERE catalog_id = $1";

static const char advance_sql[] = "UPDATE hog_summary SET scan_after = $2 WHERE catalog_id = $1";

/* The walked generation ($2) is published. */
static const char publish_sql[] =
    "UPDATE hog_summary s SET published_generation = s.generation,"
    " published_snapshot = s.scan_snapshot, published_started_at = s.scan_started_at,"
    " published_at = now(), scan_snapshot = NULL, scan_after = NULL,"
    " scan_started_at = NULL," GENERATION_TOTALS " WHERE s.catalog_id = $1";

/* Garbage lies below the published generation (older ones) and between it
 * and the one being built (walks restarted); two index ranges. */
static const char purge_sql[] =
    "DELETE FROM hog_summary_bucket WHERE ctid = ANY(ARRAY("
    " SELECT ctid FROM hog_summary_bucket WHERE catalog_id = $1 AND generation < $2"
    " UNION ALL SELECT ctid FROM hog_summary_bucket WHERE catalog_id = $1"
    "   AND generation > $2 AND generation < $3"
    " LIMIT $4))";

#define MICROS(col) " (extract(epoch FROM " col ") * 1000000)::bigint"

/* clang-format off */
static const char info_sql[] =
    "SELECT published_generation, published_snapshot,"
    MICROS("published_started_at") "," MICROS("published_at") ","
    " live_files, live_bytes, live_rows, buckets, stale_spec_buckets,"
    " scan_snapshot," MICROS("scan_started_at")
    " FROM hog_summary WHERE catalog_id = $1";
/* clang-format on */

/* Names at head: a table dropped since the walk has no live version and
 * drops out. The namespace filter is the walk's (indexed) and the head's.
 * Ties in debt keep one order from page to page. */
#define DEBT_FROM                                                                                  \
    " FROM hog_summary_bucket b"                                                                   \
    " JOIN hog_table_version tv ON tv.catalog_id = b.catalog_id AND tv.table_id = b.table_id"      \
    "  AND tv.end_snapshot IS NULL"                                                                \
    " JOIN hog_table t ON t.catalog_id = b.catalog_id AND t.table_id = b.table_id"                 \
    " JOIN hog_namespace n ON n.catalog_id = b.catalog_id AND n.namespace_id = tv.namespace_id"    \
    " WHERE b.catalog_id = $1 AND b.generation = $2"                                               \
    " AND ($3 = 0 OR (b.namespace_id = $3 AND tv.namespace_id = $3))"                              \
    " AND ($4 = 0 OR b.table_id = $4)"

static const char debt_sql[] =
    "SELECT n.name, tv.name, t.table_uuid::text, b.spec_id, array_to_json(b.partition_values),"
    " b.stale_spec, b.file_count, b.small_count, b.total_bytes, b.small_bytes, b.dv_count,"
    " b.record_count, b.last_written_snapshot, b.debt_score" DEBT_FROM " AND b.debt_score > 0"
    " ORDER BY b.debt_score DESC, b.table_id, b.spec_id, b.partition_values LIMIT $5";

static const char stale_sql[] = "SELECT count(*)" DEBT_FROM " AND b.stale_spec";

/* One table's buckets ($1-$3) passing the value filters ($4 keys, $5
 * prefixes; key_index counts from 0, arrays from 1). */
#define LISTING_FROM                                                                               \
    " FROM hog_summary_bucket b WHERE b.catalog_id = $1 AND b.generation = $2"                     \
    " AND b.table_id = $3 AND ($4::int[] IS NULL OR NOT EXISTS ("                                  \
    "  SELECT 1 FROM unnest($4::int[], $5::text[]) AS f(k, prefix) WHERE NOT CASE"                 \
    "   WHEN f.prefix IS NULL THEN b.partition_values[f.k + 1] IS NULL"                            \
    "   ELSE coalesce(starts_with(lower(b.partition_values[f.k + 1]), lower(f.prefix)), false)"    \
    "  END))"

static const char *const listing_orders[] = {
    [SUMMARY_SORT_PARTITION] = "b.partition_values",
    [SUMMARY_SORT_FILES] = "b.file_count",
    [SUMMARY_SORT_SMALL_FILES] = "b.small_count",
    [SUMMARY_SORT_DEBT] = "b.debt_score",
    [SUMMARY_SORT_TOTAL_SIZE] = "b.total_bytes",
    [SUMMARY_SORT_AVG_SIZE] = "b.total_bytes / b.file_count",
    [SUMMARY_SORT_DVS] = "b.dv_count",
    [SUMMARY_SORT_ROWS] = "b.record_count",
    [SUMMARY_SORT_LAST_WRITTEN] = "b.last_written_snapshot",
};

static void listing_params(struct db_params *p, const struct store_summary_listing *q)
{
    DB_PARAMS_IDS(p, q->catalog_id, q->generation, q->table_id);
    db_param_str(p, q->filter_keys);
    db_param_str(p, q->filter_prefixes);
}

int store_summary_partitions(PGconn *pg, const struct store_summary_listing *q,
                             struct store_summary_debt_rows *out, struct error *err)
{
    struct db_params p;
    listing_params(&p, q);
    db_param_i64(&p, q->limit);
    db_param_i64(&p, q->offset);
    const char *dir = q->desc ? "DESC" : "ASC";
    struct buf sql = BUF_INIT;
    int bad = buf_printf(&sql,
                         "SELECT NULL, NULL, NULL, b.spec_id, array_to_json(b.partition_values),"
                         " b.stale_spec, b.file_count, b.small_count, b.total_bytes,"
                         " b.small_bytes, b.dv_count, b.record_count, b.last_written_snapshot,"
                         " b.debt_score" LISTING_FROM
                         " ORDER BY %s %s, b.spec_id %s, b.partition_values %s"
                         " LIMIT $6 OFFSET $7",
                         listing_orders[q->sort], dir, dir, dir);
    out->r = db_exec_built(pg, &sql, bad, &p, err);
    return out->r ? 0 : -1;
}

int store_summary_partitions_total(PGconn *pg, const struct store_summary_listing *q,
                                   int64_t *total, struct error *err)
{
    struct db_params p;
    listing_params(&p, q);
    *total = 0;
    return db_scalar_i64(pg, "SELECT count(*)" LISTING_FROM, &p, total, err) < 0 ? -1 : 0;
}

int store_summary_ensure(PGconn *pg, int64_t catalog_id, struct error *err)
{
    struct db_params p;
    DB_PARAMS_IDS(&p, catalog_id);
    return db_run(pg, ensure_sql, &p, err);
}

int store_summary_take(PGconn *pg, int64_t catalog_id, int64_t refresh_s,
                       struct store_summary_state *out, struct error *err)
{
    /* A step's statements are short; compiling them (the batch's plan is
     * costed past jit_above_cost) took longer than running them. */
    if (db_run(pg, "SET LOCAL jit = off", NULL, err) != 0)
        return -1;
    struct db_params p;
    DB_PARAMS_IDS(&p, catalog_id, refresh_s);
    PGresult *r = db_exec(pg, take_sql, &p, err);
    if (!r)
        return -1;
    int got = PQntuples(r) == 1;
    if (got) {
        *out = (struct store_summary_state){0};
        out->generation = db_i64(r, 0, 0);
        out->scanning = db_i64_opt(r, 0, 1, &out->scan_snapshot);
        out->scan_after = db_i64(r, 0, 2);
        out->published = db_i64_opt(r, 0, 3, &out->published_generation);
        out->refresh_due = db_bool(r, 0, 4);
        out->head_snapshot = db_i64(r, 0, 5);
        out->earliest_snapshot = db_i64(r, 0, 6);
        out->published_snapshot = db_i64(r, 0, 7);
    }
    PQclear(r);
    return got;
}

int store_summary_start(PGconn *pg, int64_t catalog_id, int64_t snapshot,
                        struct store_summary_state *state, struct error *err)
{
    struct db_params p;
    DB_PARAMS_IDS(&p, catalog_id, snapshot);
    int64_t generation;
    if (db_scalar_i64(pg, start_sql, &p, &generation, err) != 1)
        return error_fail(err, ERR_INTERNAL, "the summary row of catalog %lld is gone",
                          (long long)catalog_id);
    state->generation = generation;
    state->scanning = true;
    state->scan_snapshot = snapshot;
    state->scan_after = 0;
    return 0;
}

int store_summary_add(PGconn *pg, int64_t catalog_id, const struct store_summary_state *state,
                      int64_t batch, int64_t small_bytes, int64_t *files, int64_t *last_id,
                      struct error *err)
{
    struct db_params p;
    DB_PARAMS_IDS(&p, catalog_id, state->generation, state->scan_snapshot, state->scan_after, batch,
                  small_bytes);
    PGresult *r = db_exec(pg, add_sql, &p, err);
    if (!r)
        return -1;
    *files = db_i64(r, 0, 0);
    if (!db_isnull(r, 0, 1))
        *last_id = db_i64(r, 0, 1);
    PQclear(r);
    return 0;
}

int store_summary_changes_size(PGconn *pg, int64_t catalog_id,
                               const struct store_summary_state *state, int64_t bound,
                               int64_t *rows, struct error *err)
{
    struct db_params p;
    DB_PARAMS_IDS(&p, catalog_id, bound, state->published_snapshot, state->head_snapshot);
    *rows = 0;
    return db_scalar_i64(pg, delta_size_sql, &p, rows, err) < 0 ? -1 : 0;
}

int store_summary_apply_changes(PGconn *pg, int64_t catalog_id,
                                const struct store_summary_state *state, int64_t small_bytes,
                                int64_t *rows, bool *consistent, struct error *err)
{
    *consistent = false;
    struct db_params p;
    DB_PARAMS_IDS(&p, catalog_id, state->published_generation, state->published_snapshot,
                  state->head_snapshot, small_bytes);
    PGresult *r = db_exec(pg, delta_sql, &p, err);
    if (!r)
        return -1;
    *rows = db_i64(r, 0, 0);
    int64_t lost = db_i64(r, 0, 1);
    PQclear(r);
    if (lost > 0)
        return 0;
    p.n = 4; /* the same ids, without the size */
    struct db_params cat;
    DB_PARAMS_IDS(&cat, catalog_id);
    int64_t floor = 0;
    if (db_run(pg, delta_dropped_sql, &p, err) != 0 ||
        db_run(pg, delta_altered_sql, &p, err) != 0 ||
        db_scalar_i64(pg, floor_sql, &cat, &floor, err) < 0)
        return -1;
    /* Expiry moved the floor past the published snapshot while the
     * changes were read: rows they needed may have gone. */
    if (floor > state->published_snapshot)
        return 0;
    struct db_params pub;
    DB_PARAMS_IDS(&pub, catalog_id, state->published_generation, state->head_snapshot);
    if (db_run(pg, delta_publish_sql, &pub, err) != 0)
        return -1;
    *consistent = true;
    return 0;
}

int store_summary_advance(PGconn *pg, int64_t catalog_id, int64_t last_id, struct error *err)
{
    struct db_params p;
    DB_PARAMS_IDS(&p, catalog_id, last_id);
    return db_run(pg, advance_sql, &p, err);
}

int store_summary_publish(PGconn *pg, int64_t catalog_id, const struct store_summary_state *state,
                          struct error *err)
{
    struct db_params p;
    DB_PARAMS_IDS(&p, catalog_id, state->generation);
    return db_run(pg, publish_sql, &p, err);
}

int store_summary_purge(PGconn *pg, int64_t catalog_id, const struct store_summary_state *state,
                        int64_t limit, int64_t *purged, struct error *err)
{
    /* Without a published generation, everything below the one being
     * built is garbage: the second range is then empty. */
    int64_t kept = state->published ? state->published_generation : state->generation;
    struct db_params p;
    DB_PARAMS_IDS(&p, catalog_id, kept, state->generation, limit);
    return db_run_count(pg, purge_sql, &p, purged, err);
}

int store_summary_info(PGconn *pg, int64_t catalog_id, struct store_summary_info *out,
                       struct error *err)
{
    struct db_params p;
    DB_PARAMS_IDS(&p, catalog_id);
    PGresult *r = db_exec(pg, info_sql, &p, err);
    if (!r)
        return -1;
    *out = (struct store_summary_info){0};
    if (PQntuples(r) == 1) {
        out->published = db_i64_opt(r, 0, 0, &out->generation);
        out->snapshot = db_i64(r, 0, 1);
        out->started_us = db_i64(r, 0, 2);
        out->published_us = db_i64(r, 0, 3);
        out->live_files = db_i64(r, 0, 4);
        out->live_bytes = db_i64(r, 0, 5);
        out->live_rows = db_i64(r, 0, 6);
        out->buckets = db_i64(r, 0, 7);
        out->stale_spec_buckets = db_i64(r, 0, 8);
        out->scanning = db_i64_opt(r, 0, 9, &out->scan_snapshot);
        out->scan_started_us = db_i64(r, 0, 10);
    }
    PQclear(r);
    return 0;
}

static void debt_params(struct db_params *p, const struct store_summary_debt_query *q)
{
    DB_PARAMS_IDS(p, q->catalog_id, q->generation, q->namespace_id, q->table_id, q->limit);
}

int store_summary_debt(PGconn *pg, const struct store_summary_debt_query *q,
                       struct store_summary_debt_rows *out, struct error *err)
{
    struct db_params p;
    debt_params(&p, q);
    out->r = db_exec(pg, debt_sql, &p, err);
    return out->r ? 0 : -1;
}

int store_summary_debt_count(const struct store_summary_debt_rows *v)
{
    return PQntuples(v->r);
}

const char *store_summary_debt_namespace(const struct store_summary_debt_rows *v, int i)
{
    return db_str(v->r, i, 0);
}

const char *store_summary_debt_table(const struct store_summary_debt_rows *v, int i)
{
    return db_str(v->r, i, 1);
}

const char *store_summary_debt_table_uuid(const struct store_summary_debt_rows *v, int i)
{
    return db_str(v->r, i, 2);
}

int64_t store_summary_debt_spec_id(const struct store_summary_debt_rows *v, int i)
{
    return db_i64(v->r, i, 3);
}

const char *store_summary_debt_values_json(const struct store_summary_debt_rows *v, int i)
{
    return db_str(v->r, i, 4);
}

bool store_summary_debt_stale_spec(const struct store_summary_debt_rows *v, int i)
{
    return db_bool(v->r, i, 5);
}

int64_t store_summary_debt_measure(const struct store_summary_debt_rows *v, int i,
                                   enum store_summary_measure m)
{
    return db_i64(v->r, i, 6 + (int)m);
}

void store_summary_debt_free(struct store_summary_debt_rows *v)
{
    PQclear(v->r);
    v->r = NULL;
}

int store_summary_stale_count(PGconn *pg, const struct store_summary_debt_query *q, int64_t *count,
                              struct error *err)
{
    struct db_params p;
    debt_params(&p, q);
    p.n = 4; /* no limit */
    *count = 0;
    return db_scalar_i64(pg, stale_sql, &p, count, err) < 0 ? -1 : 0;
}
