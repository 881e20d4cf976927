#!/usr/bin/env bash
# The commit benchmark: POST /commit on the real stack (hoglaked, Release,
# over a fresh PostgreSQL) against pgbench's TPC-B-like transaction on the same
# server. See bench/commit/README.md and docs/benchmarks.md ("Commits").
#
#   bench/commit/run.sh [--duration S] [--warmup N] [--writers "1 8"] [--files "1 100"]
#                       [--preseed N] [--scales "1 8"] [--out DIR] [--profile]
#                       [--strict] [--build-dir DIR] [--hoglaked PATH] [--commit-bench PATH]
#   bench/commit/run.sh --smoke [--hoglaked PATH] [--commit-bench PATH]   (the ctest)
#
#   --duration S      measured seconds of every cell and pgbench run (default 15)
#   --warmup N        unmeasured commits per writer before each cell (default 40)
#   --writers LIST    concurrent writers, also pgbench's clients (default "1 8")
#   --files LIST      files per commit (default "1 100")
#   --preseed N       snapshots preseeded into the history cells (default 10000)
#   --scales LIST     pgbench scales (default "1 8"; the ratios use the first)
#   --out DIR         keep logs, JSON results and profiles in DIR (default: a
#                     temporary directory, removed at the end)
#   --profile         then restart PostgreSQL with pg_stat_statements and rerun the
#                     8-writer single-file cell under perf: hoglaked call graphs,
#                     a system-wide profile and per-statement times, into DIR/profile
#   --strict          exit 2 when a target is missed
#   --build-dir DIR   the Release build (default build-release; configured and built
#                     here unless --hoglaked and --commit-bench are both given)
#   --smoke           a few seconds: every cell with 5 commits per writer on a
#                     200-snapshot history and 1-second pgbench runs; checks that every
#                     commit succeeds and the history invariants hold, judges no speed.
#                     Exits 77 (skipped) when pgbench or the PostgreSQL server is missing.
#
# PostgreSQL runs with its defaults (fsync, synchronous_commit and
# full_page_writes on; shared_buffers 128MB) plus only the listen address,
# port and socket directory; hoglaked and pgbench both reach it over TCP on
# 127.0.0.1. Exit status: 0 ok, 1 commits failed, 2 a target missed (--strict),
# 4 a history invariant broken, 5 harness error.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)

duration=15
warmup=40
writers_list="1 8"
files_list="1 100"
preseed=10000
scales="1 8"
out=""
profile=0
strict=0
smoke=0
build_dir="$root/build-release"
hoglaked=""
commit_bench=""
while [ $# -gt 0 ]; do
  case "$1" in
    --duration) duration=$2; shift 2 ;;
    --warmup) warmup=$2; shift 2 ;;
    --writers) writers_list=$2; shift 2 ;;
    --files) files_list=$2; shift 2 ;;
    --preseed) preseed=$2; shift 2 ;;
    --scales) scales=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --profile) profile=1; shift ;;
    --strict) strict=1; shift ;;
    --build-dir) build_dir=$2; shift 2 ;;
    --hoglaked) hoglaked=$2; shift 2 ;;
    --commit-bench) commit_bench=$2; shift 2 ;;
    --smoke) smoke=1; shift ;;
    -h | --help) sed -n '2,34p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run.sh: unknown argument $1" >&2; exit 5 ;;
  esac
done
if [ "$smoke" = 1 ]; then
  preseed=200
  warmup=2
  scales=1
  profile=0
fi
log() { echo "run.sh: $*" >&2; }
skip_or_die() {
  if [ "$smoke" = 1 ]; then
    log "SKIPPED: $*"
    exit 77
  fi
  log "$*"
  exit 5
}

# ---- tools ----
pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
[ -n "$pgbin" ] && [ -x "$pgbin/initdb" ] ||
  skip_or_die "no PostgreSQL server binaries (apt-get install postgresql)"
[ -x "$pgbin/pgbench" ] || skip_or_die "no pgbench in $pgbin (apt-get install postgresql-contrib)"
command -v curl >/dev/null || skip_or_die "curl is not installed"
if [ "$profile" = 1 ] && ! command -v perf >/dev/null; then
  log "--profile needs perf (apt-get install linux-perf)"
  exit 5
fi

if [ -z "$hoglaked" ] || [ -z "$commit_bench" ]; then
  log "building hoglaked and commit_bench (Release) in $build_dir"
  cmake -S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release >/dev/null
  if ! cmake --build "$build_dir" -j"$(nproc)" --target hoglaked commit_bench >&2; then
    log "the Release build failed; if only warnings stop it, build elsewhere without -Werror:"
    log "  cmake -S $root -B /tmp/commit-bench-build -DCMAKE_BUILD_TYPE=Release -DHOGLAKE_WERROR=OFF"
    log "  bench/commit/run.sh --build-dir /tmp/commit-bench-build"
    exit 5
  fi
  hoglaked=${hoglaked:-$build_dir/src/hoglaked}
  commit_bench=${commit_bench:-$build_dir/bench/commit/commit_bench}
fi
[ -x "$hoglaked" ] || { log "no hoglaked at $hoglaked"; exit 5; }
[ -x "$commit_bench" ] || { log "no commit_bench at $commit_bench"; exit 5; }

# ---- the work directory ----
if [ -n "$out" ]; then
  mkdir -p "$out"
  dir=$(cd "$out" && pwd)
else
  dir=$(mktemp -d "${TMPDIR:-/tmp}/commit-bench.XXXXXX")
fi
pgdir=$dir/pg
pg_pid=""
srv_pid=""
as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
stop_all() {
  if [ -n "$srv_pid" ]; then
    kill -TERM "$srv_pid" 2>/dev/null || true
    wait "$srv_pid" 2>/dev/null || true
    srv_pid=""
  fi
  if [ -n "$pg_pid" ]; then
    as_owner "$pgbin/pg_ctl" -D "$pgdir/data" -m fast -w stop >/dev/null 2>&1 ||
      kill -TERM "$pg_pid" 2>/dev/null || true
    pg_pid=""
  fi
}
cleanup() {
  stop_all
  if [ -z "$out" ]; then rm -rf "$dir"; fi
}
trap cleanup EXIT
trap 'exit 5' INT TERM

# ---- PostgreSQL: defaults, plus the address, port and socket directory ----
mkdir -p "$pgdir"
if [ "$(id -u)" = 0 ]; then
  p=$pgdir
  while [ "$p" != / ]; do chmod o+x "$p" 2>/dev/null || true; p=$(dirname "$p"); done
  chown postgres:postgres "$pgdir"
fi
as_owner "$pgbin/initdb" -D "$pgdir/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 \
  >"$pgdir/initdb.log" 2>&1 || { cat "$pgdir/initdb.log" >&2; exit 5; }
pg_extra=""
start_pg() {
  local tries
  for tries in 1 2 3 4 5; do
    pgport=$((20000 + RANDOM % 20000))
    if as_owner "$pgbin/pg_ctl" -D "$pgdir/data" -l "$pgdir/log" -w -t 60 \
      -o "-c listen_addresses=127.0.0.1 -p $pgport -k $pgdir $pg_extra" start >/dev/null; then
      pg_pid=$(head -1 "$pgdir/data/postmaster.pid")
      return 0
    fi
  done
  log "PostgreSQL did not start; see $pgdir/log"
  tail -20 "$pgdir/log" >&2 || true
  exit 5
}
start_pg
psql_() { "$pgbin/psql" -X -q -At -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$pgport" -U postgres "$@"; }
psql_ -d postgres -c "CREATE DATABASE hoglake" -c "CREATE DATABASE pgbench"
settings=$(psql_ -d postgres -F= -c "SELECT name, setting FROM pg_settings WHERE name IN
  ('fsync', 'synchronous_commit', 'full_page_writes', 'wal_sync_method', 'shared_buffers',
   'max_connections', 'max_wal_size', 'checkpoint_timeout') ORDER BY name" | tr '\n' ' ')
pgversion=$(psql_ -d postgres -c "SHOW server_version")
log "PostgreSQL $pgversion on 127.0.0.1:$pgport: $settings"
db_url="postgresql://postgres@127.0.0.1:$pgport/hoglake"

# ---- hoglaked ----
start_server() {
  rm -f "$dir/port"
  "$hoglaked" --database-url "$db_url" --port 0 --port-file "$dir/port" \
    >>"$dir/hoglaked.log" 2>&1 &
  srv_pid=$!
  local i
  for i in $(seq 1 200); do
    [ -s "$dir/port" ] && break
    kill -0 "$srv_pid" 2>/dev/null || { log "hoglaked exited; see $dir/hoglaked.log"; exit 5; }
    sleep 0.05
  done
  [ -s "$dir/port" ] || { log "hoglaked did not start; see $dir/hoglaked.log"; exit 5; }
  url="http://127.0.0.1:$(cat "$dir/port")"
}
start_server

api() { # api METHOD PATH [JSON]: prints the body; fails on a non-2xx status
  local code
  code=$(curl -sS -o "$dir/api.out" -w '%{http_code}' -X "$1" -H 'Content-Type: application/json' \
    ${3:+--data "$3"} "$url$2")
  case "$code" in
    2??) cat "$dir/api.out" ;;
    *) log "$1 $2 answered $code: $(head -c 500 "$dir/api.out")"; return 1 ;;
  esac
}

columns='[{"name":"id","type":"long","nullable":false},{"name":"ts","type":"timestamptz"},'
columns+='{"name":"team_id","type":"long"},{"name":"name","type":"string"}]'
# make_catalog NAME: a catalog with namespace bench and table events; sets cid, tid
make_catalog() {
  api POST /v1/catalogs "{\"name\":\"$1\",\"data_path\":\"s3://bench/$1\"}" >/dev/null
  api POST "/v1/catalogs/$1/namespaces" '{"name":"bench"}' >/dev/null
  api POST "/v1/catalogs/$1/namespaces/bench/tables" "{\"name\":\"events\",\"columns\":$columns}" \
    >/dev/null
  cid=$(psql_ -d hoglake -c "SELECT catalog_id FROM hog_catalog WHERE name = '$1'")
  tid=$(psql_ -d hoglake -c "SELECT table_id FROM hog_table WHERE catalog_id = $cid")
  local fields
  fields=$(psql_ -d hoglake -c "SELECT string_agg(field_id || ':' || name, ',' ORDER BY field_id)
    FROM hog_column WHERE catalog_id = $cid AND end_snapshot IS NULL")
  [ "$fields" = "1:id,2:ts,3:team_id,4:name" ] ||
    { log "unexpected field ids $fields (commit_bench sends statistics for 1..4)"; exit 5; }
}
head_of() { psql_ -d hoglake -c "SELECT last_snapshot_id FROM hog_catalog WHERE catalog_id = $1"; }
check_history() { # check_history CID TID LABEL
  local r
  r=$(psql_ -d hoglake -v cid="$1" -v tid="$2" -f "$here/check.sql")
  if [ "$r" != ok ]; then
    log "INVARIANT BROKEN in $3: $r"
    exit 4
  fi
}
# Busy share of all CPUs between two /proc/stat readings.
cpu_now() { awk '/^cpu /{print $2+$3+$4+$7+$8+$9, $2+$3+$4+$5+$6+$7+$8+$9}' /proc/stat; }
cpu_busy() { # cpu_busy "BUSY0 TOTAL0" "BUSY1 TOTAL1"
  echo "$1 $2" | awk '{ if ($4 > $2) printf "%.0f", 100 * ($3 - $1) / ($4 - $2); else print 0 }'
}
quiesce() { # statistics fresh, dirty pages written: no checkpoint or autovacuum surprise
  psql_ -d "$1" -c "VACUUM ANALYZE" -c "CHECKPOINT"
}

cat >"$dir/env.txt" <<EOF
cpu: $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) CPUs
postgresql: $pgversion; $settings
hoglaked: $hoglaked (commit sources sha256 $(cat "$root"/src/server/commit*.c | sha256sum | cut -c1-16))
load at start: $(cut -d' ' -f1-3 /proc/loadavg)
EOF

# CPU seconds of hoglaked and of this cluster's postgres processes (the
# postmaster and its children; the pool's backends live through a cell, so
# their deltas are the cell's; exited backends' time is in the postmaster's
# cutime and cstime). Other clusters on the machine are not counted.
hz=$(getconf CLK_TCK)
proc_cpu() {
  local hog pg
  hog=$(awk '{print $14 + $15}' "/proc/$srv_pid/stat" 2>/dev/null || echo 0)
  pg=$(cat /proc/[0-9]*/stat 2>/dev/null | awk -v pm="$pg_pid" \
    '$1 == pm {t += $14 + $15 + $16 + $17} $2 == "(postgres)" && $4 == pm {t += $14 + $15}
     END {print t + 0}')
  echo "$hog $pg"
}
per_commit_ms() { # per_commit_ms "HOG0 PG0" "HOG1 PG1" COMMITS: prints "hog_ms pg_ms"
  echo "$1 $2 $3" | awk -v hz="$hz" '{ n = $5 > 0 ? $5 : 1
    printf "%.2f %.2f", ($3 - $1) * 1000 / hz / n, ($4 - $2) * 1000 / hz / n }'
}

# ---- the commit matrix ----
# Each cell gets a fresh catalog: preseeded (or not), then a warm-up of
# --warmup commits per writer, then VACUUM ANALYZE and CHECKPOINT, then the
# measured run. The extra "stale" cell skips the ANALYZE after the warm-up:
# the planner then still believes the new catalog is empty.
results=$dir/results.tsv
: >"$results"
failed=0
cell=0
cells=()
for w in $writers_list; do
  for f in $files_list; do
    for h in 0 "$preseed"; do cells+=("$w $f $h fresh"); done
  done
done
last_w=$(echo "$writers_list" | awk '{print $NF}')
first_f=$(echo "$files_list" | awk '{print $1}')
cells+=("$last_w $first_f 0 stale")
# One unmeasured run before the matrix, so that the first cell does not pay
# for a cold server (pool connections opening, statements being prepared,
# caches filling) and the history ratio compares like with like.
if [ "$smoke" != 1 ]; then
  make_catalog bench-warmup
  "$commit_bench" --url "$url" --catalog bench-warmup --namespace bench --table events \
    --data-path "s3://bench/bench-warmup" --writers "$last_w" --files "$first_f" --warmup 0 \
    --duration 5 >/dev/null 2>"$dir/bench-warmup.log" || { cat "$dir/bench-warmup.log" >&2; exit 5; }
fi
for spec in "${cells[@]}"; do
  read -r w f h stats <<<"$spec"
  cell=$((cell + 1))
  name="bench-c$cell-w$w-f$f-h$h"
  [ "$stats" = stale ] && name+="-stale"
  make_catalog "$name"
  if [ "$h" -gt 0 ]; then
    t0=$(date +%s.%N)
    psql_ -d hoglake -v cid="$cid" -v tid="$tid" -v n="$h" -v f=1 -f "$here/preseed.sql"
    log "$name: preseeded $h snapshots in $(echo "$t0 $(date +%s.%N)" | awk '{printf "%.1f", $2-$1}') s"
    check_history "$cid" "$tid" "$name (after preseeding)"
  fi
  quiesce hoglake
  bench_args=(--url "$url" --catalog "$name" --namespace bench --table events
    --data-path "s3://bench/$name" --writers "$w" --files "$f")
  if [ "$warmup" -gt 0 ]; then
    "$commit_bench" "${bench_args[@]}" --warmup 0 --commits "$warmup" \
      --start-snapshot "$(head_of "$cid")" --label "$name-warmup" \
      >/dev/null 2>"$dir/$name-warmup.log" || { cat "$dir/$name-warmup.log" >&2; exit 5; }
  fi
  [ "$stats" = stale ] && psql_ -d hoglake -c CHECKPOINT || quiesce hoglake
  head0=$(head_of "$cid")
  if [ "$smoke" = 1 ]; then span=(--commits 5); else span=(--duration "$duration"); fi
  c0=$(cpu_now)
  p0=$(proc_cpu)
  rc=0
  rm -f "$dir/$name.tsv"
  "$commit_bench" "${bench_args[@]}" --warmup 0 --start-snapshot "$head0" --label "$name" \
    --tsv "$dir/$name.tsv" "${span[@]}" >"$dir/$name.json" 2>"$dir/$name.log" || rc=$?
  p1=$(proc_cpu)
  busy=$(cpu_busy "$c0" "$(cpu_now)")
  cat "$dir/$name.log" >&2
  [ "$rc" -le 1 ] && [ -s "$dir/$name.tsv" ] || { log "commit_bench failed ($rc)"; exit 5; }
  [ "$rc" = 0 ] || failed=1
  head1=$(head_of "$cid")
  IFS=$'\t' read -r ok errs werr elapsed cps p50 p99 max ccpu ebs <"$dir/$name.tsv"
  if [ "$rc" = 0 ] && [ "$head1" != "$((head0 + ok))" ]; then
    log "INVARIANT BROKEN in $name: head moved $head0 -> $head1 for $ok commits"
    exit 4
  fi
  check_history "$cid" "$tid" "$name"
  [ "$ebs" = - ] && ebs=""
  read -r hog_ms pg_ms <<<"$(per_commit_ms "$p0" "$p1" "$ok")"
  cli_ms=$(echo "$ccpu $ok" | awk '{printf "%.2f", $1 * 1000 / ($2 > 0 ? $2 : 1)}')
  printf '%s\t' "$w" "$f" "$h" "$stats" "$ok" "$errs" "$elapsed" "$cps" "$p50" "$p99" "$max" \
    "$busy" "$hog_ms" "$pg_ms" "$cli_ms" >>"$results"
  printf '%s\n' "$ebs" >>"$results"
  # Every cell starts from the same database: a cell's rows (a 100-file
  # cell writes over 100,000 file rows) would otherwise make every later
  # cell's indexes larger, and the history ratio would measure the order
  # of the cells rather than the catalog's history.
  psql_ -d hoglake -c "DELETE FROM hog_catalog WHERE catalog_id = $cid" >/dev/null
done

# ---- pgbench on the same server ----
# TPC-B-like, prepared: the physical reference. Then hoglake's own statement
# sequence replayed by pgbench without hoglaked (replay.sql, -M extended as
# hoglaked sends it and -M prepared), and batched (replay_batched.sql).
pgb=$dir/pgbench.tsv
: >"$pgb"
pgwarm=2
pd=$duration
if [ "$smoke" = 1 ]; then pgwarm=1; pd=1; fi
# pgbench_run KIND LABEL DB ARGS...: one warm-up run, one measured, a line in $pgb
pgbench_run() {
  local kind=$1 label=$2 db=$3 c=$4
  shift 4
  "$pgbin/pgbench" -c "$c" -j "$c" -T "$pgwarm" -h 127.0.0.1 -p "$pgport" -U postgres "$@" "$db" \
    >/dev/null 2>&1 || true
  [ "$kind" = replay ] && quiesce "$db"
  local run="pgbench-$label-c$c" c0 p0 p1 busy tps failed_tx n p50 p99 cost
  mkdir -p "$dir/$run"
  c0=$(cpu_now)
  p0=$(proc_cpu)
  (cd "$dir/$run" && "$pgbin/pgbench" -c "$c" -j "$c" -T "$pd" -l -h 127.0.0.1 -p "$pgport" \
    -U postgres "$@" "$db") >"$dir/$run.log" 2>&1 || { cat "$dir/$run.log" >&2; exit 5; }
  p1=$(proc_cpu)
  busy=$(cpu_busy "$c0" "$(cpu_now)")
  tps=$(sed -n 's/^tps = \([0-9.]*\) (without initial connection time)/\1/p' "$dir/$run.log")
  failed_tx=$(sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p' "$dir/$run.log")
  # per-transaction log lines: client tx latency_us script epoch epoch_us
  cat "$dir/$run"/pgbench_log.* | awk '{print $3}' | sort -n >"$dir/$run.lat"
  n=$(wc -l <"$dir/$run.lat")
  p50=$(awk -v n="$n" 'NR == int(n * 0.50 + 0.999999) {printf "%.3f", $1 / 1000}' "$dir/$run.lat")
  p99=$(awk -v n="$n" 'NR == int(n * 0.99 + 0.999999) {printf "%.3f", $1 / 1000}' "$dir/$run.lat")
  # postgres CPU per transaction: pgbench's backends have exited by now, and
  # their time is in the postmaster's cutime/cstime, which proc_cpu counts.
  cost=$(per_commit_ms "$p0" "$p1" "$n" | cut -d' ' -f2)
  rm -rf "${dir:?}/$run" "$dir/$run.lat"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$kind" "$label" "$c" "$tps" "$p50" "$p99" \
    "$busy" "${failed_tx:-0}" "$cost" >>"$pgb"
  log "$run: $tps tps, p50 $p50 ms, p99 $p99 ms, CPU ${busy}% busy"
}
for s in $scales; do
  "$pgbin/pgbench" -i -q -s "$s" -h 127.0.0.1 -p "$pgport" -U postgres pgbench \
    >"$dir/pgbench-init-s$s.log" 2>&1 || { cat "$dir/pgbench-init-s$s.log" >&2; exit 5; }
  quiesce pgbench
  for c in $writers_list; do
    pgbench_run tpcb "s$s" pgbench "$c" -M prepared
  done
done
for variant in extended prepared batched; do
  name="bench-replay-$variant"
  make_catalog "$name"
  quiesce hoglake
  script=$here/replay.sql
  mode=$variant
  if [ "$variant" = batched ]; then script=$here/replay_batched.sql; mode=prepared; fi
  for c in $writers_list; do
    pgbench_run replay "$variant" hoglake "$c" -n -M "$mode" -f "$script" -D cat="$name" \
      -D cid="$cid" -D tid="$tid" -D "tidarr={$tid}" -D lockkey=$(((4740871 << 32) | cid)) \
      -D dp="s3://bench/$name"
  done
  check_history "$cid" "$tid" "$name"
done
echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$dir/env.txt"

# ---- the report ----
status=0
awk -F'\t' -v pgb="$pgb" -v preseed="$preseed" -v first_scale="s${scales%% *}" -v smoke="$smoke" '
  BEGIN {
    while ((getline line < pgb) > 0) {
      split(line, p, "\t"); np++
      for (i = 1; i <= 9; i++) P[np, i] = p[i]
      if (p[1] == "tpcb") {
        tps[p[2], p[3]] = p[4]
        if (!(p[2] in seen_s)) { seen_s[p[2]] = 1; ns++; sc[ns] = p[2] }
      }
    }
  }
  { n++; W[n] = $1; F[n] = $2; H[n] = $3; ST[n] = $4; ok[n] = $5; err[n] = $6; cps[n] = $8
    p50[n] = $9; p99[n] = $10; busy[n] = $12; hog[n] = $13; pgc[n] = $14; cli[n] = $15
    ebs[n] = $16; if (ST[n] == "fresh") key[$1, $2, $3] = n }
  END {
    printf "\nCommits (POST /commit, one table, a fresh catalog per row; history = preseeded snapshots)\n\n"
    printf "| writers | files/commit | history | commits/s | p50 ms | p99 ms | errors |"
    for (i = 1; i <= ns; i++) printf " vs pgbench %s |", sc[i]
    printf " CPU busy | CPU ms/commit: hoglaked, postgres, client |\n|---:|---:|---:|---:|---:|---:|---:|"
    for (i = 1; i <= ns; i++) printf "---:|"
    printf "---:|---|\n"
    for (r = 1; r <= n; r++) {
      printf "| %s | %s | %s%s | %.1f | %.2f | %.2f | %s |", W[r], F[r], H[r],
        ST[r] == "stale" ? " (stale stats)" : "", cps[r], p50[r], p99[r],
        err[r] (ebs[r] != "" ? " (" ebs[r] ")" : "")
      for (i = 1; i <= ns; i++) {
        t = tps[sc[i], W[r]]
        if (t > 0) printf " %.2fx |", cps[r] / t; else printf " - |"
      }
      printf " %s%% | %.2f, %.2f, %.2f |\n", busy[r], hog[r], pgc[r], cli[r]
    }
    printf "\npgbench on the same server (tpcb: TPC-B-like -M prepared at scale s1/s8; replay: hoglake'"'"'s commit SQL without hoglaked)\n\n"
    printf "| script | variant | clients | tps | p50 ms | p99 ms | failed | CPU busy | postgres CPU ms/tx |\n|---|---|---:|---:|---:|---:|---:|---:|---:|\n"
    for (i = 1; i <= np; i++)
      printf "| %s | %s | %s | %.1f | %.2f | %.2f | %s | %s%% | %.2f |\n", P[i, 1], P[i, 2], P[i, 3],
        P[i, 4], P[i, 5], P[i, 6], P[i, 8], P[i, 7], P[i, 9]
    printf "\nHistory: p50 with %s preseeded snapshots / p50 with none (target <= 1.20)\n\n", preseed
    printf "| writers | files/commit | p50 at 0 | p50 at %s | ratio | target |\n|---:|---:|---:|---:|---:|---|\n", preseed
    hist_ok = 1
    for (r = 1; r <= n; r++) {
      if (H[r] != 0 || ST[r] != "fresh") continue
      o = key[W[r], F[r], preseed]
      if (!o) continue
      ratio = p50[r] > 0 ? p50[o] / p50[r] : 0
      met = ratio <= 1.2
      if (!met) hist_ok = 0
      printf "| %s | %s | %.2f | %.2f | %.2fx | %s |\n", W[r], F[r], p50[r], p50[o], ratio,
        met ? "met" : "MISSED"
    }
    printf "\nTargets\n\n"
    t1 = 0
    for (r = 1; r <= n; r++)
      if (W[r] == 8 && F[r] == 1 && ST[r] == "fresh") {
        t = tps[first_scale, 8]
        if (t > 0) {
          x = cps[r] / t
          m = x >= 0.5
          printf "- 8 writers, 1 file/commit, history %s: %.1f commits/s = %.2fx pgbench %s (%.1f tps): %s (target >= 0.50x)\n",
            H[r], cps[r], x, first_scale, t, m ? "met" : "MISSED"
          t1++
          if (!m) t1_missed = 1
        }
      }
    if (!t1) printf "- 8 writers, 1 file/commit vs pgbench: not measured in this run\n"
    printf "- p50 at %s snapshots within 1.2x of p50 at 0, every configuration: %s\n", preseed,
      hist_ok ? "met" : "MISSED"
    if (smoke) printf "\n(smoke run: 5 commits per writer; no speed is judged)\n"
    if (t1_missed || !hist_ok) exit 2
  }' "$results" | tee "$dir/report.md" || status=$?
[ "$smoke" = 1 ] && status=0
if [ "$status" = 2 ] && [ "$strict" = 0 ]; then status=0; fi
[ "$failed" = 1 ] && { log "some commits failed: see $dir/*.log"; status=1; }

# ---- profile: the 8-writer single-file cell under perf and pg_stat_statements ----
if [ "$profile" = 1 ] && [ "$status" != 1 ]; then
  prof=$dir/profile
  mkdir -p "$prof"
  log "profile: restarting PostgreSQL with pg_stat_statements"
  stop_all
  pg_extra="-c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track=all"
  pg_extra+=" -c pg_stat_statements.track_planning=on"
  start_pg
  db_url="postgresql://postgres@127.0.0.1:$pgport/hoglake"
  start_server
  psql_ -d hoglake -c "CREATE EXTENSION IF NOT EXISTS pg_stat_statements"
  pw=$(echo "$writers_list" | awk '{print $NF}')
  make_catalog bench-profile
  quiesce hoglake
  head0=$(head_of "$cid")
  common=(--url "$url" --catalog bench-profile --namespace bench --table events
    --data-path s3://bench/bench-profile --writers "$pw" --files 1)
  # Warm up, then reset the counters and measure under perf.
  "$commit_bench" "${common[@]}" --warmup 0 --commits "$warmup" --start-snapshot "$head0" \
    --label warm >/dev/null 2>&1
  quiesce hoglake
  head0=$(head_of "$cid")
  psql_ -d hoglake -c "SELECT pg_stat_statements_reset()" >/dev/null
  curl -s "$url/metrics" >"$prof/metrics-before.txt"
  perf record -q -F 499 --call-graph dwarf,16384 -p "$srv_pid" -o "$prof/hoglaked.perf.data" \
    -- sleep "$duration" 2>"$prof/perf-hoglaked.log" &
  perf_pid=$!
  perf record -q -a -F 499 -g -o "$prof/system.perf.data" -- sleep "$duration" \
    2>"$prof/perf-system.log" &
  perf_all=$!
  sleep 0.5
  "$commit_bench" "${common[@]}" --warmup 0 --duration "$((duration - 1))" \
    --start-snapshot "$head0" --label profile --tsv "$prof/commit_bench.tsv" >"$prof/commit_bench.json" 2>"$prof/commit_bench.log" || true
  wait "$perf_pid" "$perf_all" || true
  cat "$prof/commit_bench.log" >&2
  curl -s "$url/metrics" >"$prof/metrics-after.txt"
  commits=$(cut -f1 "$prof/commit_bench.tsv")
  psql_ -d hoglake -F $'\t' -c "
    SELECT calls, round(total_exec_time::numeric, 1) AS total_ms,
           round(mean_exec_time::numeric * 1000, 1) AS mean_us,
           round(mean_plan_time::numeric * 1000, 1) AS plan_us,
           round((calls::numeric / greatest($commits, 1)), 2) AS per_commit,
           left(regexp_replace(query, '\s+', ' ', 'g'), 110)
    FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = 'hoglake')
    ORDER BY total_exec_time DESC LIMIT 30" >"$prof/statements.tsv"
  perf report -i "$prof/hoglaked.perf.data" --no-children --sort dso,sym --stdio -g none \
    --percent-limit 0.7 >"$prof/hoglaked.self.txt" 2>/dev/null || true
  perf report -i "$prof/hoglaked.perf.data" --children --sort sym --stdio -g none \
    --percent-limit 2 >"$prof/hoglaked.children.txt" 2>/dev/null || true
  perf report -i "$prof/system.perf.data" --no-children --sort comm --stdio -g none \
    >"$prof/system.comm.txt" 2>/dev/null || true
  perf report -i "$prof/system.perf.data" --no-children --sort comm,dso,sym --stdio -g none \
    --percent-limit 0.5 >"$prof/system.sym.txt" 2>/dev/null || true
  echo
  echo "profile ($pw writers, 1 file/commit, $commits commits): $prof"
  echo "  statements.tsv (calls, total exec ms, mean exec us, mean plan us, calls per commit, query),"
  echo "  hoglaked.self.txt, hoglaked.children.txt, system.comm.txt, system.sym.txt,"
  echo "  metrics-before.txt / metrics-after.txt (hoglake_commit_lock_wait_seconds)"
  echo "statements by total time:"
  head -20 "$prof/statements.tsv" | cut -c1-200
  echo "CPU by process (system-wide):"
  grep -v '^#' "$prof/system.comm.txt" | grep -v '^$' | head -12
fi
[ -n "$out" ] && echo "results: $dir"
exit $status
