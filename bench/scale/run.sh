#!/usr/bin/env bash
# The scale benchmark: builds a production-sized catalog through hoglaked's
# real API (bench/scale/scale_gen), then times the catalog's operations on it
# (bench/scale/scale_probe) at each size, checks the plans of their queries
# with EXPLAIN (ANALYZE, BUFFERS), and plots latency against catalog size.
# See bench/scale/README.md and docs/benchmarks.md ("Scale").
#
#   bench/scale/run.sh [--scales "0.01 0.1 1"] [--out DIR] [--ops N] [--writers N]
#                      [--wide-tables N] [--duration S] [--no-commit-bench]
#                      [--no-maintenance]
#                      [--build-dir DIR | --bin-dir DIR]
#   bench/scale/run.sh --smoke [--bin-dir DIR]      (the ctest: a tiny catalog)
#
#   --scales LIST    catalog sizes, as fractions of the 1x catalog (10M data files
#                    with 20-column statistics, 1M snapshots, 500 tables); default
#                    "0.01 0.1". Each size is its own database, built once and kept
#                    in DIR: a second run with the same --out resumes or reuses it.
#   --out DIR        where the cluster, logs and results live (default: a temporary
#                    directory, removed at the end; a 1x catalog needs ~40 GB)
#   --ops N          measured operations per figure (default 50; scans of a whole
#                    huge table use N/10, at least 5)
#   --writers N      the generator's parallel writers (default 8)
#   --wide-tables N  empty tables in namespace `wide` (default 54000)
#   --tables N       tables in namespace `lake` (default 500; at least 24)
#   --duration S     seconds of each 8-writer commit run and of pgbench (default 15)
#   --no-commit-bench  skip the commit runs and pgbench
#   --no-maintenance skip the maintenance runs (expiry of the whole history,
#                    retirement of the dropped table t001, cleanup of the paths it
#                    queued and the hydrator at 10,000 pending files, on a copy of
#                    the database)
#   --build-dir DIR  the Release build to make and use (default build-release)
#   --bin-dir DIR    a build tree that already holds src/hoglaked, src/hoglake,
#                    bench/scale/scale_gen, bench/scale/scale_probe and
#                    bench/commit/commit_bench (nothing is built)
#   --smoke          a 0.0005x catalog (500 commits) in 24 tables, 20 wide tables, 3
#                    operations per figure and no commit runs: checks that every step
#                    runs and every answer is 200, judges no speed. Exits 77 when the
#                    PostgreSQL server is missing.
#
# PostgreSQL runs durably (fsync, synchronous_commit and full_page_writes on)
# with shared_buffers 4GB, effective_cache_size 16GB and max_wal_size 16GB (the
# 1x catalog is tens of GB; the defaults are sized for a laptop). Exit status:
# 0 ok, 1 an operation failed, 5 harness error.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)

scales="0.01 0.1"
out=""
ops=50
summary_batch=10000 # hoglaked's default
writers=8
wide=54000
tables=500
duration=15
commit_bench_on=1
maintenance_on=1
build_dir=$root/build-release
bin_dir=""
smoke=0
while [ $# -gt 0 ]; do
  case "$1" in
    --scales) scales=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --ops) ops=$2; shift 2 ;;
    --writers) writers=$2; shift 2 ;;
    --wide-tables) wide=$2; shift 2 ;;
    --tables) tables=$2; shift 2 ;;
    --duration) duration=$2; shift 2 ;;
    --no-commit-bench) commit_bench_on=0; shift ;;
    --no-maintenance) maintenance_on=0; shift ;;
    --build-dir) build_dir=$2; shift 2 ;;
    --bin-dir) bin_dir=$2; shift 2 ;;
    --smoke) smoke=1; shift ;;
    -h | --help) sed -n '2,40p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run.sh: unknown argument $1" >&2; exit 5 ;;
  esac
done
if [ "$smoke" = 1 ]; then
  scales=0.0005
  ops=3
  wide=20
  tables=24
  commit_bench_on=0
fi
log() { echo "[scale $(date -u +%H:%M:%S)] $*" >&2; }

# ---- tools ----
pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
if [ -z "$pgbin" ] || [ ! -x "$pgbin/initdb" ]; then
  log "no PostgreSQL server binaries (apt-get install postgresql)"
  [ "$smoke" = 1 ] && exit 77
  exit 5
fi
if [ "$smoke" = 0 ] && ! command -v gnuplot >/dev/null; then
  if [ "$(id -u)" = 0 ]; then
    log "installing gnuplot-nox (the growth plots)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends gnuplot-nox >/dev/null
  else
    log "no gnuplot: the plots are skipped (apt-get install gnuplot-nox)"
  fi
fi
if [ -z "$bin_dir" ]; then
  log "building (Release) in $build_dir"
  cmake -S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$build_dir" -j"$(nproc)" --target hoglaked hoglake_cli scale_gen scale_probe \
    commit_bench >&2 ||
    { log "the Release build failed"; exit 5; }
  bin_dir=$build_dir
fi
hoglaked=$bin_dir/src/hoglaked
hoglake=$bin_dir/src/hoglake
gen=$bin_dir/bench/scale/scale_gen
probe=$bin_dir/bench/scale/scale_probe
commit_bench=$bin_dir/bench/commit/commit_bench
for b in "$hoglaked" "$hoglake" "$gen" "$probe" "$commit_bench"; do
  [ -x "$b" ] || { log "no $b"; exit 5; }
done

# ---- the work directory and PostgreSQL ----
if [ -n "$out" ]; then
  mkdir -p "$out"
  dir=$(cd "$out" && pwd)
else
  dir=$(mktemp -d "${TMPDIR:-/tmp}/scale-bench.XXXXXX")
fi
chmod 755 "$dir" # hoglaked runs as its own user when started as root
pgdir=$dir/pg
srv_pid=""
as_owner() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
stop_server() {
  if [ -n "$srv_pid" ]; then
    kill -TERM "$srv_pid" 2>/dev/null || true
    wait "$srv_pid" 2>/dev/null || true
    srv_pid=""
  fi
}
cleanup() {
  stop_server
  as_owner "$pgbin/pg_ctl" -D "$pgdir/data" -m fast -w stop >/dev/null 2>&1 || true
  if [ -z "$out" ]; then rm -rf "$dir"; fi
}
trap cleanup EXIT
trap 'exit 5' INT TERM

source "$root/bench/common/durable_pg.sh"
durable_pg_init "$pgdir"
durable_pg_start "$pgdir" "-c shared_buffers=4GB -c effective_cache_size=16GB \
  -c max_wal_size=16GB -c max_connections=200"
psql_() { "$pgbin/psql" -X -q -At -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$pgport" -U postgres "$@"; }
log "PostgreSQL $(psql_ -d postgres -c 'SHOW server_version') on :$pgport:" \
  "$(psql_ -d postgres -F= -c "SELECT name, setting FROM pg_settings WHERE name IN ('fsync',
   'synchronous_commit', 'shared_buffers', 'effective_cache_size', 'max_wal_size')
   ORDER BY name" | tr '\n' ' ')"

results=$dir/results.tsv # scale files snapshots op ops p50 p90 p99 max bytes rss_kb hit_ratio
[ -s "$results" ] || printf 'scale\tfiles\tsnapshots\top\tops\tp50_ms\tp90_ms\tp99_ms\tmax_ms\tbytes_per_op\tserver_rss_kb\tbuffer_hit\n' >"$results"
failed=0

# ---- one scale ----
# start_server DB NAME [OPTION...]: hoglaked on database DB, data dir
# DIR/NAME, with these extra options; sets url
start_server() {
  local db=$1 name=$2
  shift 2
  rm -f "$dir/$name.port"
  "$hoglaked" --database-url "postgresql://postgres@127.0.0.1:$pgport/$db" \
    --data-dir "$dir/$name" --port 0 --port-file "$dir/$name.port" \
    --warehouse "file://$dir/warehouse-$name" --log-level warn "$@" >>"$dir/$name.log" 2>&1 &
  srv_pid=$!
  # Up to 30 minutes: a new build's migrations run before it listens, and
  # at 1x one can rewrite 10M rows (migration 15: about two minutes).
  local t0=$SECONDS
  for _ in $(seq 1 36000); do
    [ -s "$dir/$name.port" ] && break
    kill -0 "$srv_pid" 2>/dev/null || { log "hoglaked exited; see $dir/$name.log"; exit 5; }
    sleep 0.05
  done
  [ -s "$dir/$name.port" ] || { log "hoglaked did not start; see $dir/$name.log"; exit 5; }
  if [ $((SECONDS - t0)) -ge 5 ]; then
    log "hoglaked on $db listened after $((SECONDS - t0)) s (migrations included)"
  fi
  url="http://127.0.0.1:$(cat "$dir/$name.port")"
  token_file=$dir/$name/admin.token
}

rss_kb() { awk '/^VmRSS/{print $2}' "/proc/$srv_pid/status"; }
hits() { psql_ -d "$db" -F' ' -c "SELECT blks_hit, blks_read FROM pg_stat_database WHERE datname = current_database()"; }

# measure OP N REQUESTS [probe options...]: times one operation, appends a row
# to results.tsv and prints it
measure() {
  local op=$1 n=$2 reqs=$3
  shift 3
  local h0 h1 r0 r1 res
  read -r h0 r0 < <(hits)
  if ! res=$("$probe" --url "$url" --token-file "$token_file" --requests "$reqs" --ops "$n" \
    --warmup "$(( n < 5 ? 1 : 5 ))" --label "$op" "$@" 2>>"$dir/probe.log"); then
    log "FAILED: $op (see $dir/probe.log)"
    failed=1
    return 0
  fi
  read -r h1 r1 < <(hits)
  echo "$res" >>"$sdir/probes.jsonl"
  local hit
  hit=$(awk -v a=$((h1 - h0)) -v b=$((r1 - r0)) 'BEGIN { printf "%.4f", (a + b) ? a / (a + b) : 1 }')
  # one interpreter: the results row on stdout, the log line on stderr
  python3 - "$res" "$scale" "$files" "$snaps" "$(rss_kb)" "$hit" >>"$results" <<'EOF'
import json, sys, time
r = json.loads(sys.argv[1])
print("\t".join([sys.argv[2], sys.argv[3], sys.argv[4], r["label"], str(r["ops"]),
                 "%.3f" % r["p50_ms"], "%.3f" % r["p90_ms"], "%.3f" % r["p99_ms"],
                 "%.3f" % r["max_ms"], "%.0f" % r["bytes_per_op"], sys.argv[5], sys.argv[6]]))
print("[scale %s] %-24s p50 %8.2f ms  p99 %8.2f ms  (%d ops, %d bytes/op, hit %s)" % (
    time.strftime("%H:%M:%S", time.gmtime()), r["label"], r["p50_ms"], r["p99_ms"], r["ops"],
    int(r["bytes_per_op"]), sys.argv[6]), file=sys.stderr)
EOF
}

# explain OP REQUESTS [probe options...]: one operation with auto_explain on,
# its plans (ANALYZE, BUFFERS) into DIR/<scale>/explain/OP.txt; flags any
# sequential scan that read more than 10,000 rows of a catalog table
explain() {
  local op=$1 reqs=$2
  shift 2
  local before
  before=$(wc -c <"$pgdir/log")
  "$probe" --url "$url" --token-file "$token_file" --requests "$reqs" --ops 1 --warmup 0 \
    --label "$op" "$@" >/dev/null 2>>"$dir/probe.log" || true
  sleep 0.2
  tail -c +"$((before + 1))" "$pgdir/log" >"$sdir/explain/$op.txt"
  local seq
  seq=$(grep -E "Seq Scan on hog_[a-z_]+ .*actual time=[0-9.]+\.\.[0-9.]+ rows=[0-9]{5,}" \
    "$sdir/explain/$op.txt" | sed -E 's/.*Seq Scan on (hog_[a-z_]+).* rows=([0-9]+) .*/\1 (\2 rows)/' |
    sort -u | tr '\n' ' ' || true)
  local worst
  worst=$(grep -oE "duration: [0-9.]+ ms" "$sdir/explain/$op.txt" | awk '{print $2}' | sort -n | tail -1)
  printf '%s\t%s\t%s\n' "$op" "${worst:-0}" "${seq:-none}" >>"$sdir/explain.tsv"
}

run_scale() {
  scale=$1
  local name=s${scale//./_}
  db=$name
  sdir=$dir/$name
  mkdir -p "$sdir/explain"
  chmod 755 "$sdir"
  : >"$sdir/probes.jsonl"
  : >"$sdir/explain.tsv"
  psql_ -d postgres -c "SELECT 1 FROM pg_database WHERE datname = '$db'" | grep -q 1 ||
    psql_ -d postgres -c "CREATE DATABASE $db"
  local size0
  size0=$(psql_ -d "$db" -c "SELECT pg_database_size(current_database())")
  start_server "$db" "hoglaked-$name"

  log "scale $scale: building (resumes what an earlier run built)"
  local t0
  t0=$(date +%s.%N)
  "$gen" --url "$url" --token-file "$token_file" --catalog lake --scale "$scale" \
    --tables "$tables" --writers "$writers" --wide-tables "$wide" --progress 30 >"$sdir/build.json" \
    2> >(tee -a "$sdir/build.log" | grep -E "planned|commits [0-9]+/" | tail -n +1 >&2) ||
    { log "the build failed; see $sdir/build.log"; exit 5; }
  log "built: $(cat "$sdir/build.json")"
  psql_ -d "$db" -c "VACUUM ANALYZE"
  psql_ -d "$db" -c "CHECKPOINT"

  # What the catalog holds, and what PostgreSQL spends on it.
  # The built catalog's own files (the commit runs below add files to
  # other namespaces and catalogs of the database).
  files=$(psql_ -d "$db" -c "SELECT count(*) FROM hog_data_file d JOIN hog_table_version v
    USING (catalog_id, table_id) JOIN hog_namespace n ON n.catalog_id = v.catalog_id
    AND n.namespace_id = v.namespace_id JOIN hog_catalog c ON c.catalog_id = d.catalog_id
    WHERE c.name = 'lake' AND n.name = 'lake' AND v.end_snapshot IS NULL")
  local big_files wide_tables
  big_files=$(psql_ -d "$db" -c "SELECT count(*) FROM hog_data_file d JOIN hog_table_version v
    USING (catalog_id, table_id) WHERE v.name = 't000' AND v.end_snapshot IS NULL AND d.end_snapshot IS NULL")
  wide_tables=$(psql_ -d "$db" -c "SELECT count(*) FROM hog_table_version v JOIN hog_namespace n
    USING (catalog_id, namespace_id) WHERE n.name = 'wide' AND v.end_snapshot IS NULL")
  snaps=$(psql_ -d "$db" -c "SELECT count(*) FROM hog_snapshot JOIN hog_catalog USING (catalog_id)
    WHERE name = 'lake'")
  psql_ -d "$db" -F$'\t' -c "
    SELECT c.relname, pg_total_relation_size(c.oid), pg_relation_size(c.oid),
           pg_indexes_size(c.oid), c.reltuples::bigint
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'public' AND c.relkind = 'r' ORDER BY 2 DESC" >"$sdir/sizes.tsv"
  # Statistics live in each file's row (hog_data_file.column_stats,
  # migration 11): the file row's size includes them; stats_bytes is their
  # share, and the generator writes 20 columns of them per file.
  local stats_rows file_bytes stats_bytes db_bytes
  stats_rows=$(psql_ -d "$db" -c "SELECT 20 * count(*) FROM hog_data_file
    WHERE column_stats IS NOT NULL")
  file_bytes=$(psql_ -d "$db" -c "SELECT pg_total_relation_size('hog_data_file')
    + pg_total_relation_size('hog_file_partition_value')")
  stats_bytes=$(psql_ -d "$db" -c "SELECT coalesce(sum(pg_column_size(column_stats)), 0)
    FROM hog_data_file")
  db_bytes=$(psql_ -d "$db" -c "SELECT pg_database_size(current_database())")
  # Sizes are the build's: a run that resumes a finished build keeps them
  # (the commit runs of an earlier run have added rows of their own since).
  if [ -s "$sdir/size.json" ] && grep -q '"commits_this_run":0,' "$sdir/build.json"; then
    log "sizes (kept from the build): $(cat "$sdir/size.json")"
  else
  python3 - "$scale" "$files" "$snaps" "$stats_rows" "$file_bytes" "$stats_bytes" "$db_bytes" \
    "$size0" "$big_files" "$wide_tables" >"$sdir/size.json" <<'EOF'
import json, sys
s, files, snaps, stats, fb, sb, db, db0, big, wide = sys.argv[1:]
files, snaps, stats, fb, sb, db, db0 = map(int, (files, snaps, stats, fb, sb, db, db0))
print(json.dumps({"scale": float(s), "files": files, "snapshots": snaps, "stats_rows": stats,
    "t000_files": int(big), "wide_tables": int(wide),
    "file_bytes": fb, "stats_bytes": sb, "database_bytes": db,
    "bytes_per_file_row": round(fb / files, 1) if files else None,
    "bytes_per_stats_row": round(sb / stats, 1) if stats else None,
    # the statistics are inside the file rows (file_bytes counts them)
    "bytes_per_file_with_stats": round(fb / files, 1) if files else None,
    # public hoglake: 60-80 GB for 8M file rows and 400M stats rows (50 per file)
    "public_bytes_per_file_with_50_stats": [60e9 / 8e6, 80e9 / 8e6],
    "public_bytes_per_stats_row": [60e9 / 400e6, 80e9 / 400e6]}))
EOF
  log "sizes: $(cat "$sdir/size.json")"
  fi

  # ---- the requests each operation cycles through ----
  local api=/v1/catalogs/lake head
  head=$(psql_ -d "$db" -c "SELECT last_snapshot_id FROM hog_catalog WHERE name = 'lake'")
  local q=$sdir/requests
  mkdir -p "$q"
  echo "$api/namespaces/lake/tables/t000?totals=true" >"$q/get_table_totals"
  echo "$api/namespaces/lake/tables/t000?totals=false" >"$q/get_table"
  echo "$api/namespaces/wide/tables" >"$q/list_wide"
  echo "$api/namespaces/lake/tables" >"$q/list_lake"
  python3 - "$head" >"$q/snapshots_page" <<'EOF'
import random, sys
head = int(sys.argv[1]); random.seed(1)
for _ in range(200):
    print("/v1/catalogs/lake/snapshots?before=%d&limit=100" % random.randint(2, head + 1))
EOF
  psql_ -d "$db" -c "SELECT to_char(snapshot_time AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')
    FROM hog_snapshot s JOIN hog_catalog c USING (catalog_id) WHERE c.name = 'lake'
    ORDER BY random() LIMIT 200" | sed 's#^#/v1/catalogs/lake/snapshots/resolve?at_timestamp=#' >"$q/resolve"
  local scan=$api/namespaces/lake/tables/t000/scan
  echo "$scan?limit=10000" >"$q/scan_whole"
  psql_ -d "$db" -c "SELECT DISTINCT pv.value FROM hog_file_partition_value pv
    JOIN hog_data_file d USING (catalog_id, data_file_id) WHERE d.table_id = (SELECT table_id
    FROM hog_table_version WHERE name = 't000' AND end_snapshot IS NULL) ORDER BY 1" >"$sdir/days"
  local t000_range
  t000_range=$(psql_ -d "$db" -F' ' -c "SELECT min(d.begin_snapshot), max(d.begin_snapshot)
    FROM hog_data_file d JOIN hog_table_version v USING (catalog_id, table_id)
    WHERE v.name = 't000' AND v.end_snapshot IS NULL")
  # shellcheck disable=SC2086 # two numbers
  python3 - "$sdir/days" "$scan" "$head" "$scale" "$q" $t000_range <<'EOF'
import random, sys
days = open(sys.argv[1]).read().split(); scan = sys.argv[2]; head = int(sys.argv[3])
scale = float(sys.argv[4]); q = sys.argv[5]; random.seed(2)
pick = [random.choice(days) for _ in range(200)]
open(q + "/scan_day", "w").write("".join("%s?partition=0:%s&limit=10000\n" % (scan, d) for d in pick))
open(q + "/scan_day_stats", "w").write("".join(
    "%s?partition=0:%s&limit=10000&include=column_stats&stats_fields=1,2,3\n" % (scan, d) for d in pick))
back = max(1, min(head - 1, int(500000 * scale)))
open(q + "/scan_day_travel", "w").write("".join(
    "%s?partition=0:%s&limit=10000&snapshot=%d\n" % (scan, d, head - back) for d in pick))
ch = scan.replace("/scan", "/changes")
lines = []
# windows inside the build's own history (later commit runs add snapshots
# that do not touch t000)
first, last = int(sys.argv[6]), int(sys.argv[7])
for _ in range(200):
    lo = random.randint(first, max(first, last - 1000))
    lines.append("%s?from_snapshot=%d&to_snapshot=%d&limit=10000\n" % (ch, lo, min(lo + 1000, head)))
open(q + "/changes_1000", "w").write("".join(lines))
EOF
  psql_ -d "$db" -c "SELECT table_uuid FROM hog_table t JOIN hog_table_version v USING (catalog_id, table_id)
    WHERE v.end_snapshot IS NULL AND v.name LIKE 't%' ORDER BY v.name LIMIT 50" |
    awk -v h="$head" '{printf "/v1/catalogs/lake/consumers/bench%02d/offsets/%s\t{\"snapshot_id\":%d}\n", NR % 10, $1, h}' \
    >"$q/consumer_offset"

  log "scale $scale: $files files, $snaps snapshots; timing operations"
  local whole=$(( ops / 10 < 5 ? 5 : ops / 10 ))
  measure get_table "$ops" "$q/get_table"
  measure get_table_totals "$ops" "$q/get_table_totals"
  measure list_wide_54k "$ops" "$q/list_wide"
  measure list_lake_500 "$ops" "$q/list_lake"
  measure snapshots_page "$ops" "$q/snapshots_page"
  measure resolve_timestamp "$ops" "$q/resolve"
  measure scan_whole_t000 "$whole" "$q/scan_whole" --pages
  measure scan_day "$ops" "$q/scan_day" --pages
  measure scan_day_stats3 "$ops" "$q/scan_day_stats" --pages
  measure scan_day_travel "$ops" "$q/scan_day_travel" --pages
  measure changes_1000 "$ops" "$q/changes_1000" --pages
  measure consumer_offset_put "$ops" "$q/consumer_offset" --method PUT
  summary_runs

  log "scale $scale: EXPLAIN (ANALYZE, BUFFERS) of every operation's queries"
  stop_server
  psql_ -d postgres -c "ALTER DATABASE $db SET session_preload_libraries = 'auto_explain'" \
    -c "ALTER DATABASE $db SET auto_explain.log_min_duration = 0" \
    -c "ALTER DATABASE $db SET auto_explain.log_analyze = on" \
    -c "ALTER DATABASE $db SET auto_explain.log_buffers = on"
  # No samplers: their statements would land among the operation's.
  start_server "$db" "hoglake-$name-explain" --metrics-interval-ms 0 --summary-interval-ms 0
  token_file=$dir/hoglaked-$name/admin.token
  for op in get_table get_table_totals list_wide list_lake snapshots_page resolve scan_day \
    scan_day_stats scan_day_travel changes_1000 stats_partitions stats_partitions_wide; do
    case $op in scan_* | changes_*) explain "$op" "$q/$op" --pages ;; *) explain "$op" "$q/$op" ;; esac
  done
  explain consumer_offset "$q/consumer_offset" --method PUT
  stop_server
  psql_ -d postgres -c "ALTER DATABASE $db RESET ALL"
  start_server "$db" "hoglaked-$name"
  log "plans: $(awk -F'\t' '{printf "%s %s ms [%s]; ", $1, $2, $3}' "$sdir/explain.tsv")"

  if [ "$commit_bench_on" = 1 ]; then
    commit_runs
  fi
  if [ "$maintenance_on" = 1 ]; then
    maintenance_runs "$name"
  fi
  stop_server
}

# auth_header: the admin token as a header file for curl ($sdir/auth.header)
auth_header() {
  printf 'Authorization: Bearer %s\n' "$(head -1 "$token_file")" >"$sdir/auth.header"
  chmod 600 "$sdir/auth.header"
}
# events_table CATALOG NAMESPACE: the namespace and commit_bench's 4-column
# table `events` in it (an existing one is kept)
events_table() {
  curl -s -o /dev/null -H @"$sdir/auth.header" -H 'Content-Type: application/json' \
    -X POST "$url/v1/catalogs/$1/namespaces" -d "{\"name\":\"$2\"}"
  curl -s -o /dev/null -H @"$sdir/auth.header" -H 'Content-Type: application/json' \
    -X POST "$url/v1/catalogs/$1/namespaces/$2/tables" -d '{"name":"events","columns":[
    {"name":"id","type":"long","nullable":false},{"name":"ts","type":"timestamptz"},
    {"name":"team_id","type":"long"},{"name":"name","type":"string"}]}'
}
# bench_commits CATALOG NAMESPACE WRITERS FILES WARMUP SECONDS LABEL:
# commit_bench into CATALOG.NAMESPACE.events, its JSON line on stdout
bench_commits() {
  "$commit_bench" --url "$url" --token-file "$token_file" --catalog "$1" --namespace "$2" \
    --table events --data-path "$(curl -s -H @"$sdir/auth.header" "$url/v1/catalogs/$1" |
      python3 -c 'import json,sys; print(json.load(sys.stdin)["data_path"])')" \
    --writers "$3" --files "$4" --warmup "$5" --duration "$6" --label "$7" 2>>"$sdir/commit.log"
}

# ---- the partition summary: one whole walk, then GET .../stats/partitions ----
# The sampler at its default pace walks 10,000 files a second; here it steps
# back to back (--summary-interval-ms 1) so one walk of the catalog is
# timed, then the server restarts without it and the report (which reads
# the published summary, not the file rows) is timed like any operation.
summary_runs() {
  local api=/v1/catalogs/lake published=0 walk
  stop_server
  # A walk from the first file: the summaries an earlier run (or the
  # server's own default-paced sampler) published or began are dropped.
  psql_ -d "$db" -c "DELETE FROM hog_summary" >/dev/null
  start_server "$db" "hoglaked-$name" --summary-interval-ms 1 --summary-refresh-seconds 3600 \
    --summary-batch "$summary_batch" --metrics-interval-ms 0
  log "scale $scale: the summary sampler walks the catalog"
  for _ in $(seq 1 7200); do
    published=$(psql_ -d "$db" -c "SELECT coalesce(s.published_generation, 0) FROM hog_summary s
      JOIN hog_catalog c USING (catalog_id) WHERE c.name = 'lake'")
    [ "${published:-0}" -gt 0 ] && break
    sleep 0.5
  done
  walk=$(psql_ -d "$db" -F' ' -c "SELECT s.live_files, s.buckets,
    (extract(epoch FROM s.published_at - s.published_started_at) * 1000)::bigint
    FROM hog_summary s JOIN hog_catalog c USING (catalog_id) WHERE c.name = 'lake'")
  stop_server
  start_server "$db" "hoglaked-$name" --summary-interval-ms 0
  if [ "${published:-0}" -le 0 ]; then
    log "FAILED: no walk of the summary published within an hour"
    failed=1
    return 0
  fi
  # shellcheck disable=SC2086 # three numbers
  python3 - $walk "$summary_batch" >"$sdir/summary.json" <<'EOF2'
import json, sys
files, buckets, ms, batch = map(int, sys.argv[1:])
print(json.dumps({"live_files": files, "buckets": buckets, "walk_ms": ms, "batch": batch,
    "steps": -(-files // batch), "ms_per_step": round(ms / max(1, -(-files // batch)), 2),
    "files_per_s": round(files * 1000 / ms) if ms else None}))
EOF2
  log "summary walk: $(cat "$sdir/summary.json")"
  summary_refresh
  echo "$api/stats/partitions" >"$q/stats_partitions"
  echo "$api/stats/partitions?namespace=lake&table=t000" >"$q/stats_partitions_t000"
  echo "$api/stats/partitions?namespace=wide" >"$q/stats_partitions_wide"
  echo "$api/stats/partitions?limit=500" >"$q/stats_partitions_500"
  echo "$api/namespaces/lake/tables/t000/partitions?sort=files" >"$q/table_partitions_t000"
  measure stats_partitions "$ops" "$q/stats_partitions"
  measure stats_partitions_t000 "$ops" "$q/stats_partitions_t000"
  measure stats_partitions_wide "$ops" "$q/stats_partitions_wide"
  measure stats_partitions_500 "$ops" "$q/stats_partitions_500"
  measure table_partitions_t000 "$ops" "$q/table_partitions_t000"
}

# summary_refresh: commits land after the walk (8 writers, 5 files each, 5 s
# into lake.refresh.events), then one refresh applies them to the published
# summary instead of walking again; prints what it took beside the walk.
summary_refresh() {
  local before after took rows gen0 gen1
  auth_header
  events_table lake refresh
  read -r before gen0 < <(psql_ -d "$db" -F' ' -c "SELECT s.published_snapshot,
    s.published_generation FROM hog_summary s JOIN hog_catalog c USING (catalog_id)
    WHERE c.name = 'lake'")
  bench_commits lake refresh 8 5 0 5 summary_refresh >"$sdir/summary_commits.json" ||
    { log "FAILED: the commits before the refresh"; failed=1; return 0; }
  stop_server
  start_server "$db" "hoglaked-$name" --summary-interval-ms 1000 --summary-refresh-seconds 0 \
    --summary-batch "$summary_batch" --metrics-interval-ms 0
  local head
  head=$(psql_ -d "$db" -c "SELECT last_snapshot_id FROM hog_catalog WHERE name = 'lake'")
  for _ in $(seq 1 600); do
    after=$(psql_ -d "$db" -c "SELECT s.published_snapshot FROM hog_summary s
      JOIN hog_catalog c USING (catalog_id) WHERE c.name = 'lake'")
    [ "${after:-0}" -ge "$head" ] && break
    sleep 0.1
  done
  read -r took rows gen1 < <(psql_ -d "$db" -F' ' -c "SELECT
    (extract(epoch FROM s.published_at - s.published_started_at) * 1000)::bigint,
    (SELECT count(*) FROM hog_data_file d WHERE d.catalog_id = s.catalog_id
      AND d.begin_snapshot > $before AND d.begin_snapshot <= s.published_snapshot),
    s.published_generation FROM hog_summary s JOIN hog_catalog c USING (catalog_id) WHERE c.name = 'lake'")
  stop_server
  start_server "$db" "hoglaked-$name" --summary-interval-ms 0
  python3 - "$sdir/summary.json" "$before" "$after" "$took" "$rows" "$gen0" "$gen1" <<'EOF2'
import json, sys
path, before, after, took, rows, gen0, gen1 = sys.argv[1:]
s = json.load(open(path))
# the same generation: the changes were applied; a new one: it walked
s.update({"refresh_by": "changes" if gen0 == gen1 else "walk",
          "refresh_from": int(before), "refresh_to": int(after or 0),
          "refresh_snapshots": int(after or 0) - int(before), "refresh_files": int(rows),
          "refresh_ms": int(took)})
json.dump(s, open(path, "w"))
EOF2
  log "summary refresh: $(cat "$sdir/summary.json")"
}

# ---- maintenance on a copy: the whole history expired, a huge table retired ----
# A copy of the scale's database (CREATE DATABASE ... TEMPLATE), so the built
# catalog stays as it was (resumable, and every run measures the same rows).
maint_post() { # maint_post PATH: POSTs, prints the answer
  curl -s -f -X POST -H @"$sdir/auth.header" "$url$1"
}
# hydrator_at_scale DB API: the hydrator at 10,000 pending files (100 in
# the smoke) in the big catalog: one 20-column Parquet object written by
# `hoglake append` into a table of its own, linked that many times under the
# catalog's data path and registered without statistics; one pass settles
# them. Prints "files seconds".
hydrator_at_scale() {
  local copy=$1 api=$2 n=$(( smoke ? 100 : 10000 )) rows=2000 t0 t1 answer
  export HOGLAKE_TOKEN_FILE=$token_file
  # shellcheck source=bench/maintenance/wide_rows.sh
  . "$root/bench/maintenance/wide_rows.sh"
  "$hoglake" --server "$url" table create lake.lake.hydrated --columns "$(wide_columns)" \
    >/dev/null || { log "FAILED: the hydrator's table"; failed=1; echo "0 0"; return 0; }
  wide_rows "$rows" >"$sdir/hydrate.jsonl"
  "$hoglake" --server "$url" append lake.lake.hydrated "$sdir/hydrate.jsonl" >/dev/null ||
    { log "FAILED: the hydrator's file"; failed=1; echo "0 0"; return 0; }
  local src size footer
  read -r src size footer < <(psql_ -d "$copy" -c "SELECT d.path, d.file_size_bytes, d.footer_size
    FROM hog_data_file d JOIN hog_table_version v USING (catalog_id, table_id)
    WHERE v.name = 'hydrated' AND v.end_snapshot IS NULL" | tr '|' ' ')
  local local_src=${src#file://} dirp
  dirp=$(dirname "$local_src")/pending
  mkdir -p "$dirp"
  for i in $(seq 1 "$n"); do ln -f "$local_src" "$dirp/$i.parquet"; done
  for first in $(seq 1 1000 "$n"); do
    awk -v a="$first" -v z="$(( first + 999 < n ? first + 999 : n ))" -v d="file://$dirp" \
      -v r="$rows" -v s="$size" -v f="$footer" 'BEGIN {
      printf "{\"appends\":[{\"namespace\":\"lake\",\"table\":\"hydrated\",\"files\":["
      for (i = a; i <= z; i++)
        printf "%s{\"path\":\"%s/%d.parquet\",\"record_count\":%d,\"file_size_bytes\":%d,\"footer_size\":%d}",
          (i > a ? "," : ""), d, i, r, s, f
      printf "]}]}" }' >"$sdir/hydrate-commit.json"
    curl -s -f -o /dev/null -X POST -H @"$sdir/auth.header" -H 'Content-Type: application/json' \
      --data-binary @"$sdir/hydrate-commit.json" "$url$api/commit" ||
      { log "FAILED: registering pending files"; failed=1; echo "0 0"; return 0; }
  done
  t0=$(date +%s.%N)
  answer=$(maint_post "$api/maintenance/hydrate?batch=$n") ||
    { log "FAILED: the hydrator"; failed=1; echo "0 0"; return 0; }
  t1=$(date +%s.%N)
  rm -rf "$dirp" "$sdir/hydrate.jsonl" "$sdir/hydrate-commit.json"
  echo "$(python3 -c 'import json,sys; print(json.load(sys.stdin)["hydrated"])' <<<"$answer")" \
    "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')"
}

maintenance_runs() {
  local name=$1 copy=${db}_maint api=/v1/catalogs/lake
  stop_server
  psql_ -d postgres -c "DROP DATABASE IF EXISTS $copy" -c "CREATE DATABASE $copy TEMPLATE $db"
  # Loops off: only the passes asked for run. No budgets: one retirement
  # run takes the whole table (in pages of the default 8,000 files).
  # --file-roots: the cleanup pass reaches the catalog's data path, which
  # the building server's warehouse holds.
  start_server "$copy" "hoglake-$name-maint" --file-roots "$dir" --metrics-interval-ms 0 \
    --expiry-interval-ms 0 \
    --retirement-interval-ms 0 --cleanup-interval-ms 0 --hydrator-interval-ms 0 \
    --retirement-pause-ms 0 --retirement-budget-ms 3600000 --expiry-purge-budget-ms 3600000
  token_file=$dir/hoglaked-$name/admin.token # the copy's tokens are the original's
  auth_header
  curl -s -f -o /dev/null -X PATCH -H @"$sdir/auth.header" -H 'Content-Type: application/json' \
    "$url$api/options" -d '{"snapshot_retention_seconds":1,"consumer_floor":false}' ||
    { log "FAILED: the retention change"; failed=1; return 0; }
  sleep 1.1
  local snaps t0 t1 answer expired=0 n
  snaps=$(psql_ -d "$copy" -c "SELECT count(*) FROM hog_snapshot JOIN hog_catalog USING (catalog_id)
    WHERE name = 'lake'")
  t0=$(date +%s.%N)
  while answer=$(maint_post "$api/maintenance/expire?batch=100000"); do
    n=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["snapshots_expired"])' <<<"$answer")
    [ "$n" = 0 ] && break
    expired=$((expired + n))
  done
  t1=$(date +%s.%N)
  [ -n "$answer" ] || { log "FAILED: expiry"; failed=1; }
  local expire_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
  # The largest table after t000, dropped, then out of every readable
  # snapshot (one more expiry), then retired.
  local rows retire_s retired lock_us=0
  rows=$(psql_ -d "$copy" -c "SELECT count(*) FROM hog_data_file d JOIN hog_table_version v
    USING (catalog_id, table_id) WHERE v.name = 't001' AND v.end_snapshot IS NULL")
  # Its paths, queued again after the retirement for the cleanup figure.
  psql_ -d "$copy" -c "CREATE TABLE bench_t001_paths AS SELECT d.catalog_id, d.path
    FROM hog_data_file d JOIN hog_table_version v USING (catalog_id, table_id)
    WHERE v.name = 't001' AND v.end_snapshot IS NULL" >/dev/null
  curl -s -f -o /dev/null -X DELETE -H @"$sdir/auth.header" "$url$api/namespaces/lake/tables/t001" ||
    { log "FAILED: dropping t001"; failed=1; }
  sleep 1.1
  maint_post "$api/maintenance/expire" >/dev/null || { log "FAILED: expiry to the drop"; failed=1; }
  t0=$(date +%s.%N)
  answer=$(maint_post "$api/maintenance/retire") || { log "FAILED: retirement"; failed=1; }
  t1=$(date +%s.%N)
  retire_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
  retired=0
  [ -n "$answer" ] && read -r retired lock_us < <(python3 -c 'import json,sys
a = json.load(sys.stdin); print(a["data_files_removed"], a["lock_held_us"])' <<<"$answer")
  # Cleanup of 1.2M queued paths (at 1x): t001's, queued as a large expiry
  # would (scale_gen never wrote their objects, so each is `missing`):
  # claiming the queue and checking each path against every file row of
  # the catalog, at scale.
  local queued cleaned=0 clean_s
  psql_ -d "$copy" -c "INSERT INTO hog_file_removal (catalog_id, path, file_kind, reason)
    SELECT catalog_id, path, 'data', 'snapshot_expiry' FROM bench_t001_paths" \
    -c "DROP TABLE bench_t001_paths" -c "ANALYZE hog_file_removal" >/dev/null
  queued=$(psql_ -d "$copy" -c "SELECT count(*) FROM hog_file_removal WHERE drained_at IS NULL")
  t0=$(date +%s.%N)
  while answer=$(maint_post "$api/maintenance/cleanup?batch=100000"); do
    n=$(python3 -c 'import json,sys; a=json.load(sys.stdin)
print(sum(a[k] for k in ("removed", "missing", "still_referenced", "refused", "failed")))' \
      <<<"$answer")
    [ "$n" = 0 ] && break
    cleaned=$((cleaned + n))
  done
  t1=$(date +%s.%N)
  [ -n "$answer" ] || { log "FAILED: cleanup"; failed=1; }
  clean_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
  local hydrate_s hydrated
  read -r hydrated hydrate_s < <(hydrator_at_scale "$copy" "$api")
  [ "${hydrated:-0}" -gt 0 ] || { log "FAILED: the hydrator at scale"; failed=1; }
  python3 - "$snaps" "$expired" "$expire_s" "$rows" "$retired" "$retire_s" "$lock_us" "$queued" \
    "$cleaned" "$clean_s" "$hydrated" "$hydrate_s" >"$sdir/maintenance.json" <<'EOF2'
import json, sys
snaps, expired, es, rows, retired, rs, lock_us, queued, cleaned, cs, hydrated, hs = sys.argv[1:]
expired, es, retired, rs, lock_us = int(expired), float(es), int(retired), float(rs), int(lock_us)
cleaned, cs, hydrated, hs = int(cleaned), float(cs), int(hydrated), float(hs)
print(json.dumps({"snapshots": int(snaps), "snapshots_expired": expired, "expire_s": es,
    "snapshots_per_s": round(expired / es) if es else None,
    "t001_files": int(rows), "files_retired": retired, "retire_s": rs,
    "us_per_file_row": round(rs * 1e6 / retired, 2) if retired else None,
    "lock_held_us": lock_us,
    "lock_us_per_file_row": round(lock_us / retired, 4) if retired else None,
    "paths_queued": int(queued), "paths_cleaned": cleaned, "cleanup_s": cs,
    "paths_per_s": round(cleaned / cs) if cs and cleaned else None,
    "files_hydrated": hydrated, "hydrate_s": hs,
    "hydrated_per_s": round(hydrated / hs) if hs and hydrated else None}))
EOF2
  log "maintenance: $(cat "$sdir/maintenance.json")"
  stop_server
  psql_ -d postgres -c "DROP DATABASE $copy"
  start_server "$db" "hoglaked-$name"
}

# ---- commits on the big catalog against an empty one, and pgbench ----
commit_cell() { # commit_cell CATALOG WRITERS FILES LABEL
  bench_commits "$1" bench "$2" "$3" 20 "$duration" "$4"
}
commit_runs() {
  auth_header
  local c
  for c in lake empty; do
    curl -s -o /dev/null -H @"$sdir/auth.header" -H 'Content-Type: application/json' \
      -X POST "$url/v1/catalogs" -d "{\"name\":\"$c\"}"
    events_table "$c" bench
  done
  psql_ -d "$db" -c "ANALYZE"
  local w f
  for w in 1 8; do
    for f in 1 100; do
      [ "$w" = 1 ] && [ "$f" = 100 ] && continue
      for c in empty lake; do
        commit_cell "$c" "$w" "$f" "commit_${c}_w${w}_f${f}" >>"$sdir/commits.jsonl" ||
          { log "FAILED: commits into $c ($w writers, $f files)"; failed=1; }
      done
    done
  done
  psql_ -d postgres -c "DROP DATABASE IF EXISTS pgbench" -c "CREATE DATABASE pgbench"
  "$pgbin/pgbench" -h 127.0.0.1 -p "$pgport" -U postgres -i -s 1 -q pgbench >/dev/null 2>&1
  "$pgbin/pgbench" -h 127.0.0.1 -p "$pgport" -U postgres -c 8 -j 8 -T "$duration" -M prepared \
    pgbench 2>/dev/null | awk '/^tps/ {print $3}' | head -1 >"$sdir/pgbench_tps"
  log "commits: $(python3 -c 'import json,sys
for l in open(sys.argv[1]):
    r = json.loads(l); print("%s %.0f/s p50 %.2f ms;" % (r.get("label"), r.get("commits_per_s", 0), r.get("p50_ms", 0)), end=" ")' "$sdir/commits.jsonl")" \
    "pgbench 8 clients $(cat "$sdir/pgbench_tps") tps"
}

for s in $scales; do run_scale "$s"; done

python3 "$here/report.py" "$dir" $scales >"$dir/report.md" || { log "the report failed"; exit 5; }
cat "$dir/report.md"
if [ "$smoke" = 0 ] && command -v gnuplot >/dev/null; then
  bash "$here/plot.sh" "$results" "$dir/plots" || log "the plots failed"
fi
exit "$failed"
