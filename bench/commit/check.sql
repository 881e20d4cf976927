-- The history invariants a run must leave (bench/commit/run.sh; psql
-- variables cid, tid): snapshot ids dense from earliest to head; exactly one
-- change row per data snapshot after the table's creation; row-id ranges
-- tiling [0, next_row_id) in file-id order; file ids below next_file_id.
-- Prints one line: ok, or the name of the first broken invariant.
\set ON_ERROR_STOP on
WITH c AS (SELECT * FROM hog_catalog WHERE catalog_id = :cid),
t AS (SELECT created_snapshot FROM hog_table WHERE catalog_id = :cid AND table_id = :tid),
snaps AS (SELECT count(*) AS n, min(snapshot_id) AS lo, max(snapshot_id) AS hi
          FROM hog_snapshot WHERE catalog_id = :cid),
changes AS (SELECT count(*) FILTER (WHERE n <> 1) AS bad
            FROM (SELECT s.snapshot_id, count(x.*) AS n FROM hog_snapshot s
                  LEFT JOIN hog_snapshot_change x
                    ON x.catalog_id = s.catalog_id AND x.snapshot_id = s.snapshot_id
                  WHERE s.catalog_id = :cid AND s.snapshot_id > (SELECT created_snapshot FROM t)
                  GROUP BY s.snapshot_id) q),
files AS (SELECT data_file_id, row_id_start, record_count,
                 lag(row_id_start + record_count) OVER (ORDER BY data_file_id) AS prev_end
          FROM hog_data_file WHERE catalog_id = :cid AND table_id = :tid),
tiles AS (SELECT count(*) FILTER (WHERE row_id_start <> coalesce(prev_end, 0)) AS gaps,
                 coalesce(max(row_id_start + record_count), 0) AS end_row,
                 coalesce(max(data_file_id), 0) AS max_id FROM files)
SELECT CASE
  WHEN snaps.n <> c.last_snapshot_id - c.earliest_snapshot_id + 1
       OR snaps.lo <> c.earliest_snapshot_id OR snaps.hi <> c.last_snapshot_id
    THEN 'snapshot ids not dense'
  WHEN changes.bad > 0 THEN 'snapshots without exactly one change row'
  WHEN tiles.gaps > 0 THEN 'row-id ranges do not tile'
  WHEN tiles.end_row <> (SELECT next_row_id FROM hog_table_stats
                         WHERE catalog_id = :cid AND table_id = :tid)
    THEN 'row ids do not end at next_row_id'
  WHEN tiles.max_id >= c.next_file_id THEN 'file id beyond next_file_id'
  ELSE 'ok' END
FROM c, snaps, changes, tiles;
