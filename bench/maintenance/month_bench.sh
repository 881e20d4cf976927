#!/usr/bin/env bash
# A simulated month of a catalog's life, then the storage it holds against
# what its catalog references (issue 16's "done when").
#
#   bench/maintenance/month_bench.sh [--days N] [--rows N] [--orphans N] [--seed N]
#       [--pg-url URL] [--bin-dir DIR] [--keep DIR]
#
# One hoglaked (authentication on, every loop off: the script runs each
# task by hand, in order) on a new database, one file:// catalog with a
# 7-day snapshot retention and four tables: flights (partitioned by
# day(ts), sorted by flight), airports, carriers, delays. Each simulated day:
#   - appends the day's rows to every table (`hoglake append`; --rows
#     flights a day, 10,000 by default, generated here);
#   - every 2nd day an append interrupted by SIGINT at a random point
#     (this and the two below write 20 times the day's rows, so that they
#     are still writing when stopped);
#   - every 3rd day an append refused by the server: a table recreated
#     while the append writes (409 table_recreated, or it lands first);
#   - every 5th day an append killed with SIGKILL (it leaves its objects,
#     its temp file and its active claims: nothing of it runs again);
#   - every 7th day carriers is dropped and recreated;
#   - the Iceberg export of flights, and every 7th day export maintain
#     --compact --expire-snapshots --retain-last 2;
#   - then the day passes: every snapshot, upload-claim lease and object
#     mtime moves one day back, and expiry, retirement, cleanup and the
#     orphan sweep (grace 1 day) run, as their loops would.
# At the end the script checks, with its own listing and psql:
#   unreferenced bytes: the objects under the data path no file row (live or
#     retained history) names -- must be 0;
#   missing referenced objects: file rows whose object is gone -- must be 0;
#   Iceberg: the files under the export's location no snapshot of its
#     current metadata references, and the referenced ones missing, read
#     with icebird's Avro reader (bench/maintenance/iceberg_refs.mjs).
# and times the last orphan sweep (objects listed, seconds per 10,000)
# beside its peer in the same run: `find -type f -mtime +0 -delete` over a
# copy of the warehouse holding as many files, with the same number of
# files to delete as the sweep deleted over the month's last sweep, plus the
# listing of the rest. Exits 1 when a check fails.
#
# Needs HOGLAKE_TEST_PG_URL (or --pg-url), node with tools/node_modules,
# perl and the Release binaries (--bin-dir, default build-release/src).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
days=30
rows=10000
orphans=10000
seed=${RANDOM}
pg_url=${HOGLAKE_TEST_PG_URL:-}
bin="$root/build-release/src"
keep=""
while [ $# -gt 0 ]; do
  case "$1" in
    --days) days=$2; shift 2 ;;
    --rows) rows=$2; shift 2 ;;
    --orphans) orphans=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --pg-url) pg_url=$2; shift 2 ;;
    --bin-dir) bin=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
[ -n "$pg_url" ] || { echo "set --pg-url or HOGLAKE_TEST_PG_URL" >&2; exit 2; }
for b in hoglaked hoglake; do
  [ -x "$bin/$b" ] || { echo "no $b in $bin (build build-release first)" >&2; exit 2; }
done
# As root the server drops to its user (hoglake); the writers run as that
# user too, so both may create and delete what the other wrote, as on a
# shared store. setpriv execs in place: signals reach the writer itself.
as_user=()
if [ "$(id -u)" = 0 ]; then
  id hoglake >/dev/null 2>&1 || { echo "as root this needs the user hoglake" >&2; exit 2; }
  as_user=(setpriv --reuid=hoglake --regid=hoglake --clear-groups --)
fi
RANDOM=$seed
echo "seed $seed, $days days, $rows flights a day"

dbname="hl_month_bench_$$"
db_url="${pg_url%/*}/$dbname"
work=${keep:-$(mktemp -d /tmp/hl-month.XXXXXX)}
mkdir -p "$work"
wh="$work/wh"
ice="$work/iceberg/flights"
pid=""
finish() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true
  if [ -n "$keep" ]; then
    echo "kept: $work and database $db_url"
  else
    psql -q "$pg_url" -c "DROP DATABASE IF EXISTS $dbname" >/dev/null 2>&1 || true
    rm -rf "$work"
  fi
}
trap finish EXIT
psql -q "$pg_url" -c "CREATE DATABASE $dbname" >/dev/null
mkdir -p "$wh" "$work/iceberg" "$work/in" "$work/server"
[ ${#as_user[@]} = 0 ] || chown -R hoglake: "$work"

"$bin/hoglaked" --database-url "$db_url" --port 0 --port-file "$work/port" --data-dir "$work/server" \
  --file-roots "$work" --expiry-interval-ms 0 --cleanup-interval-ms 0 --hydrator-interval-ms 0 \
  --retirement-interval-ms 0 --retirement-pause-ms 0 --orphan-interval-ms 0 \
  --metrics-interval-ms 0 --log-level warn >"$work/hoglaked.log" 2>&1 &
pid=$!
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.1; done
[ -s "$work/port" ] || { cat "$work/hoglaked.log" >&2; exit 1; }
export HOGLAKE_URL="http://127.0.0.1:$(cat "$work/port")"
export HOGLAKE_TOKEN_FILE="$work/server/admin.token"
hl() { "${as_user[@]}" "$bin/hoglake" "$@"; }
q() { psql -tA -v ON_ERROR_STOP=1 "$db_url" -c "$1"; }

hl catalog create m --data-path "file://$wh" >/dev/null
hl catalog set-retention m $((7 * 86400)) >/dev/null
hl namespace create m.ops >/dev/null
mk_flights() {
  hl table create m.ops.$1 --columns 'flight:long!, ts:timestamptz!, carrier:string, origin:string,
    dest:string, delay_min:int, distance:int' --partition-by 'day(ts)' --sort-by flight >/dev/null
}
mk_flights flights
mk_flights scratch
hl table create m.ops.airports --columns 'code:string!, city:string, day:int' >/dev/null
hl table create m.ops.carriers --columns 'code:string!, name:string, day:int' >/dev/null
hl table create m.ops.delays --columns 'flight:long!, cause:string, minutes:int, day:int' >/dev/null

# gen_flights DAY N FILE: N flights over one calendar day (2026-01-DAY+).
gen_flights() {
  awk -v d="$1" -v n="$2" -v s="$seed" 'BEGIN {
    srand(s + d); print "flight,ts,carrier,origin,dest,delay_min,distance"
    split("AA UA DL WN B6 AS NK F9", c, " "); split("SFO JFK LAX ORD ATL DFW SEA BOS DEN MIA", a, " ")
    day = 86400 * (20454 + d)
    for (i = 0; i < n; i++) {
      t = day + int(i * 86400 / n)
      printf "%d,%s,%s,%s,%s,%d,%d\n", d * 10000000 + i, strftime("%Y-%m-%dT%H:%M:%SZ", t, 1),
        c[1 + int(rand() * 8)], a[1 + int(rand() * 10)], a[1 + int(rand() * 10)],
        int(rand() * 180) - 20, 100 + int(rand() * 2500)
    } }' >"$3"
}
gen_small() { # DAY TABLE FILE
  case "$2" in
    airports) awk -v d="$1" 'BEGIN { print "code,city,day"; for (i = 0; i < 50; i++) printf "A%02d,city%d,%d\n", i, i, d }' >"$3" ;;
    carriers) awk -v d="$1" 'BEGIN { print "code,name,day"; for (i = 0; i < 8; i++) printf "C%d,carrier %d,%d\n", i, i, d }' >"$3" ;;
    delays) awk -v d="$1" 'BEGIN { srand(d); print "flight,cause,minutes,day"; for (i = 0; i < 500; i++) printf "%d,cause%d,%d,%d\n", d * 10000000 + i, i % 7, int(rand() * 300), d }' >"$3" ;;
  esac
}

declare -A tally=()
note() { tally[$1]=$((${tally[$1]:-0} + 1)); }

# An append in the background, stopped by signal $2 after $3 seconds.
append_stopped() { # TABLE SIGNAL DELAY FILE
  "${as_user[@]}" "$bin/hoglake" append "m.ops.$1" "$4" --file-bytes 65536 >"$work/bg.out" 2>&1 &
  local p=$!
  sleep "$3"
  kill "-$2" "$p" 2>/dev/null || true
  local rc=0
  { wait "$p"; } 2>/dev/null || rc=$?
  echo "$rc"
}

# One day passes: snapshots, leases and objects age by a day.
age_one_day() {
  q "UPDATE hog_snapshot SET snapshot_time = snapshot_time - interval '1 day';
     UPDATE hog_upload SET expires_at = expires_at - interval '1 day';
     UPDATE hog_file_removal SET scheduled_at = scheduled_at - interval '1 day'" >/dev/null
  find "$wh" "$work/iceberg" -type f -print0 |
    perl -0ne 'chomp; my @s = lstat($_); utime($s[8] - 86400, $s[9] - 86400, $_) if @s'
}

maintain() {
  hl --json maintenance expire m >/dev/null
  hl --json maintenance retire m >>"$work/retire.jsonl"
  hl --json maintenance cleanup m --batch 100000 >>"$work/cleanup.jsonl"
  hl --json maintenance orphans m --older-than 1d >"$work/orphans.json"
  cat "$work/orphans.json" >>"$work/orphans.jsonl"
  hl --json maintenance cleanup m --batch 100000 >>"$work/cleanup.jsonl"
}

t_start=$(date +%s.%N)
for d in $(seq 1 "$days"); do
  f="$work/in/flights.csv"
  gen_flights "$d" "$rows" "$f"
  # The stopped and refused appends write a bigger input (20 days' worth
  # of rows into the same day), so they are still writing when stopped.
  big="$work/in/big.csv"
  gen_flights "$d" $((rows * 20)) "$big"
  hl append m.ops.flights "$f" >/dev/null && note appended
  for t in airports carriers delays; do
    gen_small "$d" "$t" "$work/in/$t.csv"
    hl append "m.ops.$t" "$work/in/$t.csv" >/dev/null && note appended
  done
  if [ $((d % 2)) = 0 ]; then
    rc=$(append_stopped flights INT "$(printf 0.%03d $((RANDOM % 300 + 20)))" "$big")
    case $rc in 130) note interrupted ;; 0) note interrupt_too_late ;; *) note "interrupt_rc_$rc" ;; esac
  fi
  if [ $((d % 3)) = 0 ]; then
    "${as_user[@]}" "$bin/hoglake" append m.ops.scratch "$big" --file-bytes 65536 >"$work/bg.out" 2>&1 &
    p=$!
    sleep "$(printf 0.%03d $((RANDOM % 200 + 20)))"
    hl table drop m.ops.scratch >/dev/null
    mk_flights scratch
    rc=0
    wait "$p" || rc=$?
    case $rc in 4) note refused ;; 0) note refusal_too_late ;; *) note "refused_rc_$rc" ;; esac
  fi
  if [ $((d % 5)) = 0 ]; then
    append_stopped flights KILL "$(printf 0.%03d $((RANDOM % 300 + 20)))" "$big" >/dev/null
    note killed
  fi
  if [ $((d % 7)) = 0 ]; then
    hl table drop m.ops.carriers >/dev/null
    hl table create m.ops.carriers --columns 'code:string!, name:string, day:int' >/dev/null
    note recreated
  fi
  hl export iceberg m.ops.flights --to "file://$ice" >/dev/null && note exported
  if [ $((d % 7)) = 0 ]; then
    hl export maintain m.ops.flights --to "file://$ice" --compact --expire-snapshots \
      --older-than 1s --retain-last 2 >>"$work/export-maintain.txt"
  fi
  age_one_day
  maintain
  printf 'day %2d: %s\n' "$d" "$(q "SELECT count(*) || ' live files, ' ||
    (SELECT count(*) FROM hog_table WHERE dropped_snapshot IS NOT NULL) || ' dropped tables, ' ||
    (SELECT count(*) FROM hog_upload WHERE state = 'active') || ' active claims'
    FROM hog_data_file WHERE end_snapshot IS NULL")"
done
t_month=$(date +%s.%N)

# The month's last sweep, timed, after one more day so everything the
# maintenance left for the grace is due. Before it, --orphans objects of
# 1 KiB that another writer left two days ago (a crashed tool, a copy gone
# wrong), so the sweep's time is over a listing of some size.
junk="$wh/data/ops/junk"
mkdir -p "$junk"
perl -e 'my ($dir, $n) = @ARGV; my $b = "x" x 1024; for my $i (1 .. $n) {
  open(my $f, ">", "$dir/j$i.parquet") or die; print $f $b; close $f }' "$junk" "$orphans"
[ ${#as_user[@]} = 0 ] || chown -R hoglake: "$junk"
age_one_day
hl --json maintenance expire m >/dev/null
hl --json maintenance retire m >/dev/null
hl --json maintenance cleanup m --batch 100000 >/dev/null
s0=$(date +%s.%N)
hl --json maintenance orphans m --older-than 1d >"$work/last-sweep.json"
s1=$(date +%s.%N)
hl --json maintenance cleanup m --batch 100000 >/dev/null
listed=$(jq .listed "$work/last-sweep.json")
swept=$(jq .deleted "$work/last-sweep.json")

# The peer: find + delete over a copy holding as many files, of which as
# many old ones as the sweep deleted.
peer="$work/peer"
mkdir -p "$peer/keep" "$peer/old"
for i in $(seq 1 "$listed"); do : >"$peer/keep/f$i"; done
touch -d '2 days ago' "$peer/old" 2>/dev/null || true
for i in $(seq 1 "$swept"); do : >"$peer/old/o$i"; done
find "$peer/old" -type f -exec touch -d '2 days ago' {} + 2>/dev/null || true
p0=$(date +%s.%N)
find "$peer" -type f -mtime +0 -delete
p1=$(date +%s.%N)

# The checks: every object under the data path is named by a file row, and
# every file row's object is there.
find "$wh" -type f -printf 'file://%p\t%s\n' >"$work/listing.tsv"
psql -q -v ON_ERROR_STOP=1 "$db_url" >"$work/check.txt" <<SQL
CREATE TEMP TABLE listed (path text PRIMARY KEY, size bigint);
\copy listed FROM '$work/listing.tsv'
CREATE TEMP TABLE named AS
  SELECT path, file_size_bytes AS size FROM hog_data_file
  UNION ALL SELECT path, file_size_bytes FROM hog_delete_file;
\pset tuples_only on
\pset format unaligned
SELECT 'objects ' || count(*) || ' bytes ' || coalesce(sum(size), 0) FROM listed;
SELECT 'referenced ' || count(*) || ' bytes ' || coalesce(sum(size), 0) FROM named;
SELECT 'unreferenced ' || count(*) || ' bytes ' || coalesce(sum(size), 0)
  FROM listed l WHERE NOT EXISTS (SELECT 1 FROM named n WHERE n.path = l.path);
SELECT 'missing ' || count(*) FROM named n WHERE NOT EXISTS (SELECT 1 FROM listed l WHERE l.path = n.path);
SQL
read -r _ objects _ object_bytes < <(grep '^objects' "$work/check.txt")
read -r _ referenced _ referenced_bytes < <(grep '^referenced' "$work/check.txt")
read -r _ unref _ unref_bytes < <(grep '^unreferenced' "$work/check.txt")
read -r _ missing < <(grep '^missing' "$work/check.txt")
ice_check=$(HOGLAKE_TOOLS_DIR="$root/tools" node "$here/iceberg_refs.mjs" "$ice")

echo
echo "== the month ($(awk -v a="$t_start" -v b="$t_month" 'BEGIN { printf "%.0f", b - a }') s)"
for k in $(printf '%s\n' "${!tally[@]}" | sort); do printf '  %-20s %d\n' "$k" "${tally[$k]}"; done
jq -s '{tables_retired: (map(.tables_retired) | add), files_retired: (map(.data_files_removed + .delete_files_removed) | add)}' -c "$work/retire.jsonl"
jq -s '{removed: (map(.removed) | add), missing: (map(.missing) | add), still_referenced: (map(.still_referenced) | add), uploads_scheduled: (map(.uploads_scheduled) | add)}' -c "$work/cleanup.jsonl"
jq -s '{listed: (map(.listed) | add), deleted: (map(.deleted) | add), temp_files: (map(.temp_files) | add), bytes_deleted: (map(.bytes_deleted) | add)}' -c "$work/orphans.jsonl"
echo "== storage"
echo "objects under the data path: $objects ($object_bytes bytes)"
echo "file rows (live and retained history): $referenced ($referenced_bytes bytes)"
echo "unreferenced objects: $unref"
echo "unreferenced bytes: $unref_bytes"
echo "missing referenced objects: $missing"
echo "iceberg: $ice_check"
echo "== the last orphan sweep"
awk -v n="$listed" -v del="$swept" -v a="$s0" -v b="$s1" -v c="$p0" -v e="$p1" 'BEGIN {
  sw = b - a; pe = e - c
  printf "sweep: %d objects listed, %d deleted in %.3f s: %.3f s per 10,000 objects\n", n, del, sw, n ? sw * 10000 / n : 0
  printf "peer (find -mtime +0 -delete, same counts): %.3f s: %.3f s per 10,000 objects\n", pe, n ? pe * 10000 / n : 0
  printf "ratio sweep/peer: %.2f\n", (pe > 0 ? sw / pe : 0) }'
echo "load: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
ok=1
[ "$unref_bytes" = 0 ] || ok=0
[ "$missing" = 0 ] || ok=0
grep -q '^unreferenced 0 missing 0' <<<"$ice_check" || ok=0
[ $ok = 1 ] || { echo "FAILED: storage does not match the catalog" >&2; exit 1; }
