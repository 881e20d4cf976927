#!/usr/bin/env bash
# The commit benchmark: POST /commit on the real stack (hoglaked, Release,
# over a fresh PostgreSQL) against pgbench's TPC-B-like transaction on the same
# server. See bench/commit/README.md and docs/benchmarks.md ("Commits").
#
#   bench/commit/run.sh [--duration S] [--warmup N] [--writers "1 8"] [--files "1 100"]
#                       [--preseed N] [--scales "1 8"] [--out DIR] [--profile]
#                       [--auth-repeats N] [--auth-duration S]
#                       [--no-auth-compare | --auth-compare-only] [--auth-control]
#                       [--baseline PATH] [--alternate N] [--alternate-duration S]
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
#   --auth-repeats N  the authentication comparison: for every --writers count, the
#                     single-file no-history cell against an --auth on hoglaked (bearer
#                     token) and an --auth off one, as N pairs of back-to-back slices,
#                     one per server, in ABBA order (default 10; even balances the order)
#   --auth-duration S measured seconds of each slice of the comparison (default 5)
#   --no-auth-compare     skip the authentication comparison
#   --auth-compare-only   only the authentication comparison (no matrix, no pgbench)
#   --baseline PATH   the comparison as a before/after: its "off" server is the
#                     hoglaked at PATH (another build) with --auth on too, so on/off
#                     reads this build / the baseline; implies --auth-compare-only
#   --auth-control    a control of the comparison: its "on" server runs --auth off
#                     too, so on/off measures the method's own bias and noise
#   --alternate N     then N pairs of the 8-writer single-file cell (fresh catalog,
#                     no history) and pgbench TPC-B at the first scale, alternated in
#                     ABBA order on the same server: the ratio of each pair, and their
#                     median and range (pgbench alone moves 10-15% between runs here,
#                     so one run of each does not give the ratio; default 0: none)
#   --alternate-duration S  measured seconds of each slice of a pair (default 5)
#   --strict          exit 2 when a target is missed
#   --build-dir DIR   the Release build (default build-release; configured and built
#                     here unless --hoglaked and --commit-bench are both given)
#   --smoke           a few seconds: every cell with 5 commits per writer on a
#                     200-snapshot history and 1-second pgbench runs; checks that every
#                     commit succeeds and the history invariants hold, judges no speed;
#                     the authentication comparison runs once (both modes, 5 commits
#                     per writer). Exits 77 (skipped) when pgbench or the PostgreSQL
#                     server is missing.
#
# PostgreSQL runs with its defaults (fsync, synchronous_commit and
# full_page_writes on; shared_buffers 128MB) plus only the listen address,
# port and socket directory; hoglaked and pgbench both reach it over TCP on
# 127.0.0.1. hoglaked runs with authentication on (its default) and
# --data-dir DIR/<server>; the bootstrap admin secret it writes there
# (admin.token) reaches curl through a header file and commit_bench through
# --token-file, never through a command line. Exit status: 0 ok, 1 commits
# failed, 2 a target missed (--strict), 4 a history invariant broken,
# 5 harness error.
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
auth_compare=1
auth_repeats=10
auth_duration=5
auth_control=0
baseline=""
matrix=1
alternate=0
alternate_duration=5
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
    --auth-repeats) auth_repeats=$2; shift 2 ;;
    --auth-duration) auth_duration=$2; shift 2 ;;
    --no-auth-compare) auth_compare=0; shift ;;
    --auth-compare-only) auth_compare=1; matrix=0; shift ;;
    --auth-control) auth_control=1; shift ;;
    --baseline) baseline=$2; auth_compare=1; matrix=0; shift 2 ;;
    --alternate) alternate=$2; shift 2 ;;
    --alternate-duration) alternate_duration=$2; shift 2 ;;
    -h | --help) sed -n '2,55p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run.sh: unknown argument $1" >&2; exit 5 ;;
  esac
done
if [ "$smoke" = 1 ]; then
  preseed=200
  warmup=2
  scales=1
  profile=0
  auth_compare=1
  auth_repeats=1
fi
case "$auth_repeats" in
  '' | *[!0-9]* | 0) echo "run.sh: --auth-repeats wants a count >= 1" >&2; exit 5 ;;
esac
case "$auth_duration" in
  '' | *[!0-9.]* | 0) echo "run.sh: --auth-duration wants seconds > 0" >&2; exit 5 ;;
esac
case "$alternate" in
  '' | *[!0-9]*) echo "run.sh: --alternate wants a count >= 0" >&2; exit 5 ;;
esac
case "$alternate_duration" in
  '' | *[!0-9.]* | 0) echo "run.sh: --alternate-duration wants seconds > 0" >&2; exit 5 ;;
esac
[ "$matrix" = 1 ] || profile=0
[ "$matrix" = 1 ] && [ "$smoke" = 0 ] || alternate=0
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
  chmod 755 "$dir" # hoglaked runs as its own user when started as root
fi
pgdir=$dir/pg
pg_pid=""
srv_pid=""   # the hoglaked the cells talk to (url, srv_auth), for its CPU time
srv_pids=()  # every hoglaked started, for stop_all
as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
stop_server() { # stop_server PID
  kill -TERM "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}
stop_all() {
  local p
  for p in "${srv_pids[@]}"; do stop_server "$p"; done
  srv_pids=()
  srv_pid=""
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
source "$root/bench/common/durable_pg.sh"
durable_pg_init "$pgdir"
pg_extra=""
start_pg() { durable_pg_start "$pgdir" "$pg_extra"; }
start_pg
psql_() { "$pgbin/psql" -X -q -At -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$pgport" -U postgres "$@"; }
psql_ -d postgres -c "CREATE DATABASE hoglake" -c "CREATE DATABASE pgbench"
settings=$(psql_ -d postgres -F= -c "SELECT name, setting FROM pg_settings WHERE name IN
  ('fsync', 'synchronous_commit', 'full_page_writes', 'wal_sync_method', 'shared_buffers',
   'max_connections', 'max_wal_size', 'checkpoint_timeout') ORDER BY name" | tr '\n' ' ')
pgversion=$(psql_ -d postgres -c "SHOW server_version")
log "PostgreSQL $pgversion on 127.0.0.1:$pgport: $settings"

# ---- hoglaked ----
# Authentication is on unless a server is started with AUTH off. The first
# --auth on start on a fresh database writes the bootstrap admin secret to
# <data-dir>/admin.token before it listens; later starts on that database
# find the admin token and write nothing, so that first file serves every
# server of the database. The secret never goes on a command line: curl
# reads the header from a 0600 file (DIR/<database>.auth.header, -H @file),
# commit_bench reads --token-file.
declare -A token_of hdr_of # database -> its admin.token, its header file
token_file=""
auth_hdr=""
# launch NAME AUTH DB [BINARY]: hoglaked (or BINARY) on database DB with
# --data-dir DIR/NAME and --auth AUTH, its log in DIR/NAME.log; sets
# launched_pid and launched_url
launch() {
  local name=$1 auth=$2 db=$3 bin=${4:-$hoglaked} sd=$dir/$1 pid i
  mkdir -p "$sd"
  rm -f "$sd/port"
  [ -n "${token_of[$db]:-}" ] || rm -f "$sd/admin.token"
  "$bin" --database-url "postgresql://postgres@127.0.0.1:$pgport/$db" --data-dir "$sd" \
    --auth "$auth" --port 0 --port-file "$sd/port" >>"$dir/$name.log" 2>&1 &
  pid=$!
  srv_pids+=("$pid")
  for i in $(seq 1 200); do
    [ -s "$sd/port" ] && break
    kill -0 "$pid" 2>/dev/null || { log "hoglaked exited; see $dir/$name.log"; exit 5; }
    sleep 0.05
  done
  [ -s "$sd/port" ] || { log "hoglaked did not start; see $dir/$name.log"; exit 5; }
  if [ "$auth" = on ] && [ -z "${token_of[$db]:-}" ]; then
    [ -s "$sd/admin.token" ] ||
      { log "hoglaked --auth on wrote no $sd/admin.token; see $dir/$name.log"; exit 5; }
    token_of[$db]=$sd/admin.token
    hdr_of[$db]=$dir/$db.auth.header
    (umask 077 && printf 'Authorization: Bearer %s\n' "$(head -1 "$sd/admin.token")" \
      >"${hdr_of[$db]}")
  fi
  launched_pid=$pid
  launched_url="http://127.0.0.1:$(cat "$sd/port")"
}
# use_server PID URL AUTH DB: the server later cells and api calls talk to
# (srv_pid, url, srv_auth, srv_db; token_file, auth_hdr and token_args for
# an --auth on one)
use_server() {
  srv_pid=$1
  url=$2
  srv_auth=$3
  srv_db=$4
  token_file=${token_of[$srv_db]:-}
  auth_hdr=${hdr_of[$srv_db]:-}
  token_args=()
  if [ "$srv_auth" = on ]; then token_args=(--token-file "$token_file"); fi
}
# start_server: the main server (authentication on, as deployed)
start_server() {
  launch hoglaked on hoglake
  use_server "$launched_pid" "$launched_url" on hoglake
}
srv_auth=""
srv_db=hoglake
token_args=()
if [ "$matrix" = 1 ]; then start_server; fi

api() { # api METHOD PATH [JSON]: prints the body; fails on a non-2xx status
  local code hdr=()
  if [ "$srv_auth" = on ]; then hdr=(-H "@$auth_hdr"); fi
  code=$(curl -sS -o "$dir/api.out" -w '%{http_code}' -X "$1" -H 'Content-Type: application/json' \
    "${hdr[@]}" ${3:+--data "$3"} "$url$2")
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
  cid=$(psql_ -d "$srv_db" -c "SELECT catalog_id FROM hog_catalog WHERE name = '$1'")
  tid=$(psql_ -d "$srv_db" -c "SELECT table_id FROM hog_table WHERE catalog_id = $cid")
  local fields
  fields=$(psql_ -d "$srv_db" -c "SELECT string_agg(field_id || ':' || name, ',' ORDER BY field_id)
    FROM hog_column WHERE catalog_id = $cid AND end_snapshot IS NULL")
  [ "$fields" = "1:id,2:ts,3:team_id,4:name" ] ||
    { log "unexpected field ids $fields (commit_bench sends statistics for 1..4)"; exit 5; }
}
head_of() { psql_ -d "$srv_db" -c "SELECT last_snapshot_id FROM hog_catalog WHERE catalog_id = $1"; }
check_history() { # check_history CID TID LABEL
  local r
  r=$(psql_ -d "$srv_db" -v cid="$1" -v tid="$2" -f "$here/check.sql")
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
hoglaked: $hoglaked (commit sources sha256 $(cat "$root"/src/server/commit/commit.c "$root"/src/server/commit/commit_*.c | sha256sum | cut -c1-16); auth sources sha256 $(cat "$root"/src/server/auth/auth*.c "$root"/src/server/auth/token.c "$root"/src/server/auth/token_*.c 2>/dev/null | sha256sum | cut -c1-16))
hoglaked authentication: on (bearer token) for the matrix and the profile; $([ "$auth_control" = 1 ] && echo "off and off in the comparison (--auth-control)" || echo "on and off in the comparison")
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
    printf "%.3f %.3f", ($3 - $1) * 1000 / hz / n, ($4 - $2) * 1000 / hz / n }'
}

# ---- one cell ----
# measure_cell NAME W F H STATS: W writers x F files per commit in a fresh
# catalog NAME on the server in use (use_server): preseeded with H
# snapshots (or not), then a warm-up of --warmup commits per writer, then
# VACUUM ANALYZE and CHECKPOINT (only CHECKPOINT when STATS is "stale": the
# planner then still believes the new catalog is empty), then the measured
# run, the checks, and the catalog is deleted. Sets ok errs elapsed cps p50
# p99 max busy hog_ms pg_ms cli_ms ebs; sets failed=1 when commits failed.
# groups_now: hoglake_commit_groups_total of the server in use (the
# transactions its group commit sent), from /metrics (which needs a token
# when authentication is on)
groups_now() {
  local hdr=()
  if [ "$srv_auth" = on ]; then hdr=(-H "@$auth_hdr"); fi
  curl -sf "${hdr[@]}" "$url/metrics" | awk '$1 == "hoglake_commit_groups_total" {n = $2} END {print n + 0}'
}
# rounds_now: the sum and count of hoglake_commit_round_seconds (each group
# round from its batch's sending to its COMMIT's answer)
rounds_now() {
  local hdr=()
  if [ "$srv_auth" = on ]; then hdr=(-H "@$auth_hdr"); fi
  curl -sf "${hdr[@]}" "$url/metrics" | awk '$1 == "hoglake_commit_round_seconds_sum" {s = $2}
    $1 == "hoglake_commit_round_seconds_count" {n = $2} END {print s + 0, n + 0}'
}
# round_ms "SUM0 COUNT0" "SUM1 COUNT1": the mean round in ms between two
# rounds_now readings
round_ms() {
  echo "$1 $2" | awk '{printf "%.3f", ($4 > $2 ? 1000 * ($3 - $1) / ($4 - $2) : 0)}'
}
# commits_per_group COMMITS GROUPS0 GROUPS1: commits per group-commit
# transaction between two groups_now readings (1.00: none waited for
# another and shared its transaction, lock and WAL flush)
commits_per_group() {
  echo "$1 $2 $3" | awk '{printf "%.2f", ($3 > $2 ? $1 / ($3 - $2) : 0)}'
}
measure_cell() {
  local name=$1 w=$2 f=$3 h=$4 stats=$5 t0 head0 head1 c0 p0 p1 g0 g1 rc werr ccpu span
  local bench_args
  make_catalog "$name"
  if [ "$h" -gt 0 ]; then
    t0=$(date +%s.%N)
    psql_ -d "$srv_db" -v cid="$cid" -v tid="$tid" -v n="$h" -v f=1 -f "$here/preseed.sql"
    log "$name: preseeded $h snapshots in $(echo "$t0 $(date +%s.%N)" | awk '{printf "%.1f", $2-$1}') s"
    check_history "$cid" "$tid" "$name (after preseeding)"
  fi
  quiesce "$srv_db"
  bench_args=(--url "$url" --catalog "$name" --namespace bench --table events
    --data-path "s3://bench/$name" --writers "$w" --files "$f" "${token_args[@]}")
  if [ "$warmup" -gt 0 ]; then
    "$commit_bench" "${bench_args[@]}" --warmup 0 --commits "$warmup" \
      --start-snapshot "$(head_of "$cid")" --label "$name-warmup" \
      >/dev/null 2>"$dir/$name-warmup.log" || { cat "$dir/$name-warmup.log" >&2; exit 5; }
  fi
  if [ "$stats" = stale ]; then psql_ -d "$srv_db" -c CHECKPOINT; else quiesce "$srv_db"; fi
  head0=$(head_of "$cid")
  if [ "$smoke" = 1 ]; then span=(--commits 5); else span=(--duration "$duration"); fi
  g0=$(groups_now)
  r0=$(rounds_now)
  c0=$(cpu_now)
  p0=$(proc_cpu)
  rc=0
  rm -f "$dir/$name.tsv"
  "$commit_bench" "${bench_args[@]}" --warmup 0 --start-snapshot "$head0" --label "$name" \
    --tsv "$dir/$name.tsv" "${span[@]}" >"$dir/$name.json" 2>"$dir/$name.log" || rc=$?
  p1=$(proc_cpu)
  g1=$(groups_now)
  round=$(round_ms "$r0" "$(rounds_now)")
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
  cpg=$(commits_per_group "$ok" "$g0" "$g1")
  # Every cell starts from the same database: a cell's rows (a 100-file
  # cell writes over 100,000 file rows) would otherwise make every later
  # cell's indexes larger, and the history ratio would measure the order
  # of the cells rather than the catalog's history.
  psql_ -d "$srv_db" -c "DELETE FROM hog_catalog WHERE catalog_id = $cid" >/dev/null
}
# server_warmup NAME W F: 5 seconds of unmeasured commits in a throwaway
# catalog on the server in use, so that a cell does not pay for a cold
# server (pool connections opening, statements being prepared, caches
# filling); skipped in smoke runs
server_warmup() {
  [ "$smoke" = 1 ] && return 0
  make_catalog "$1"
  "$commit_bench" --url "$url" --catalog "$1" --namespace bench --table events \
    --data-path "s3://bench/$1" --writers "$2" --files "$3" --warmup 0 --duration 5 \
    "${token_args[@]}" >/dev/null 2>"$dir/$1.log" || { cat "$dir/$1.log" >&2; exit 5; }
}

# ---- the commit matrix ----
# Each cell gets a fresh catalog (measure_cell). The extra "stale" cell
# skips the ANALYZE after the warm-up.
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
[ "$matrix" = 1 ] || cells=()
# One unmeasured run before the matrix, so that the first cell does not pay
# for a cold server and the history ratio compares like with like.
if [ "$matrix" = 1 ]; then server_warmup bench-warmup "$last_w" "$first_f"; fi
for spec in "${cells[@]}"; do
  read -r w f h stats <<<"$spec"
  cell=$((cell + 1))
  name="bench-c$cell-w$w-f$f-h$h"
  [ "$stats" = stale ] && name+="-stale"
  measure_cell "$name" "$w" "$f" "$h" "$stats"
  printf '%s\t' "$w" "$f" "$h" "$stats" "$ok" "$errs" "$elapsed" "$cps" "$p50" "$p99" "$max" \
    "$busy" "$hog_ms" "$pg_ms" "$cli_ms" "$cpg" "$round" >>"$results"
  printf '%s\n' "$ebs" >>"$results"
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
pg_scales=$scales
replay_variants="extended prepared batched"
if [ "$matrix" = 0 ]; then pg_scales=""; replay_variants=""; fi
for s in $pg_scales; do
  "$pgbin/pgbench" -i -q -s "$s" -h 127.0.0.1 -p "$pgport" -U postgres pgbench \
    >"$dir/pgbench-init-s$s.log" 2>&1 || { cat "$dir/pgbench-init-s$s.log" >&2; exit 5; }
  quiesce pgbench
  for c in $writers_list; do
    pgbench_run tpcb "s$s" pgbench "$c" -M prepared
  done
done
for variant in $replay_variants; do
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

# ---- the 8-writer ratio, alternated ----
# Pair k runs the commit cell first when k is 1 or 0 modulo 4 and pgbench
# first otherwise (ABBA), each a slice of --alternate-duration seconds;
# pgbench's database is the one initialized above at the first scale.
alt=$dir/alternate.tsv
: >"$alt"
if [ "$alternate" -gt 0 ]; then
  # The scale loop above left pgbench's database at the last scale.
  "$pgbin/pgbench" -i -q -s "${scales%% *}" -h 127.0.0.1 -p "$pgport" -U postgres pgbench \
    >"$dir/pgbench-init-alternate.log" 2>&1 || { cat "$dir/pgbench-init-alternate.log" >&2; exit 5; }
  quiesce pgbench
  saved=("$duration" "$pd" "$pgb")
  duration=$alternate_duration
  pd=$alternate_duration
  pgb=$dir/pgbench-alternate.tsv
  : >"$pgb"
  for k in $(seq 1 "$alternate"); do
    first=commits
    if [ $((k % 4)) = 2 ] || [ $((k % 4)) = 3 ]; then first=pgbench; fi
    for side in $first $([ "$first" = commits ] && echo pgbench || echo commits); do
      if [ "$side" = commits ]; then
        measure_cell "bench-alt$k-w8-f1" 8 1 0 fresh
        alt_cps=$cps
      else
        pgbench_run tpcb "alt$k" pgbench 8 -M prepared
        alt_tps=$(tail -1 "$pgb" | cut -f4)
      fi
    done
    printf '%s\t%s\t%s\t%s\n' "$k" "$first" "$alt_cps" "$alt_tps" >>"$alt"
    log "alternation $k ($first first): $alt_cps commits/s, $alt_tps tps"
  done
  duration=${saved[0]}
  pd=${saved[1]}
  pgb=${saved[2]}
fi

# ---- authentication: the same cells against --auth on and --auth off ----
# Two servers on the same PostgreSQL with the same (default) settings, one
# with authentication on (commit_bench sends the admin bearer token) and one
# with it off (no header), started and warmed alike; the main server stops
# first. Each server has its own new database in that PostgreSQL
# (hoglake_auth_on, hoglake_auth_off): two catalogs growing side by side in
# the same tables are not alike, since the one with the higher catalog_id
# appends at the right edge of every (catalog_id, ...) index and the other
# inserts inside it, so the comparison would also measure which catalog
# was created first.
# For every writer count (single-file commits, no history) each
# server gets a fresh catalog, warmed up and analyzed like a matrix cell;
# then --auth-repeats pairs of --auth-duration-second slices run back to
# back, one slice per server, in ABBA order (on, off; off, on; ...), so
# that the machine's drift, which on a shared 2-core machine moves the
# throughput by tens of percent within minutes, falls on both modes alike
# and the two halves of a pair are seconds apart.
auth_results=$dir/auth.tsv
: >"$auth_results"
# auth_use MODE: talk to the on or the off server
on_mode=on
off_mode=off
if [ "$auth_control" = 1 ]; then on_mode=off; fi
if [ -n "$baseline" ]; then off_mode=on; fi
auth_use() {
  if [ "$1" = on ]; then
    use_server "$on_pid" "$on_url" "$on_mode" hoglake_auth_on
  else
    use_server "$off_pid" "$off_url" "$off_mode" hoglake_auth_off
  fi
}
# auth_cell W F: the pairs of slices of one cell, into $auth_results
auth_cell() {
  local w=$1 f=$2 mode k order name head0 head1 c0 p0 p1 rc werr ccpu span g0 g1 cpg
  local -A acid atid
  for mode in on off; do
    auth_use "$mode"
    make_catalog "bench-auth-w$w-f$f-$mode"
    acid[$mode]=$cid
    atid[$mode]=$tid
    quiesce "$srv_db"
  done
  for mode in on off; do
    auth_use "$mode"
    name="bench-auth-w$w-f$f-$mode"
    if [ "$warmup" -gt 0 ]; then
      "$commit_bench" --url "$url" --catalog "$name" --namespace bench --table events \
        --data-path "s3://bench/$name" --writers "$w" --files "$f" "${token_args[@]}" \
        --warmup 0 --commits "$warmup" --start-snapshot "$(head_of "${acid[$mode]}")" \
        --label "$name-warmup" >/dev/null 2>"$dir/$name-warmup.log" ||
        { cat "$dir/$name-warmup.log" >&2; exit 5; }
    fi
    quiesce "$srv_db"
  done
  if [ "$smoke" = 1 ]; then span=(--commits 5); else span=(--duration "$auth_duration"); fi
  for k in $(seq 1 "$auth_repeats"); do
    if [ $((k % 2)) = 1 ]; then order="on off"; else order="off on"; fi
    for mode in $order; do
      auth_use "$mode"
      name="bench-auth-w$w-f$f-$mode"
      head0=$(head_of "${acid[$mode]}")
      g0=$(groups_now)
      c0=$(cpu_now)
      p0=$(proc_cpu)
      rc=0
      rm -f "$dir/$name-p$k.tsv"
      "$commit_bench" --url "$url" --catalog "$name" --namespace bench --table events \
        --data-path "s3://bench/$name" --writers "$w" --files "$f" "${token_args[@]}" \
        --warmup 0 --start-snapshot "$head0" --label "$name-p$k" --tsv "$dir/$name-p$k.tsv" \
        "${span[@]}" >"$dir/$name-p$k.json" 2>"$dir/$name-p$k.log" || rc=$?
      p1=$(proc_cpu)
      busy=$(cpu_busy "$c0" "$(cpu_now)")
      g1=$(groups_now)
      cat "$dir/$name-p$k.log" >&2
      [ "$rc" -le 1 ] && [ -s "$dir/$name-p$k.tsv" ] || { log "commit_bench failed ($rc)"; exit 5; }
      [ "$rc" = 0 ] || failed=1
      head1=$(head_of "${acid[$mode]}")
      IFS=$'\t' read -r ok errs werr elapsed cps p50 p99 max ccpu ebs <"$dir/$name-p$k.tsv"
      if [ "$rc" = 0 ] && [ "$head1" != "$((head0 + ok))" ]; then
        log "INVARIANT BROKEN in $name-p$k: head moved $head0 -> $head1 for $ok commits"
        exit 4
      fi
      [ "$ebs" = - ] && ebs=""
      read -r hog_ms pg_ms <<<"$(per_commit_ms "$p0" "$p1" "$ok")"
      cli_ms=$(echo "$ccpu $ok" | awk '{printf "%.3f", $1 * 1000 / ($2 > 0 ? $2 : 1)}')
      # commits per transaction of the group commit (more: PostgreSQL's
      # lock, BEGIN, COMMIT and WAL flush shared by more commits)
      cpg=$(commits_per_group "$ok" "$g0" "$g1")
      printf '%s\t' "$k" "$w" "$f" "$mode" "${order%% *}" "$ok" "$errs" "$elapsed" "$cps" \
        "$p50" "$p99" "$busy" "$hog_ms" "$pg_ms" "$cli_ms" "$cpg" >>"$auth_results"
      printf '%s\n' "$ebs" >>"$auth_results"
    done
  done
  for mode in on off; do
    auth_use "$mode"
    check_history "${acid[$mode]}" "${atid[$mode]}" "bench-auth-w$w-f$f-$mode"
    psql_ -d "$srv_db" -c "DELETE FROM hog_catalog WHERE catalog_id = ${acid[$mode]}" >/dev/null
  done
}
if [ "$auth_compare" = 1 ]; then
  for p in "${srv_pids[@]}"; do stop_server "$p"; done
  srv_pids=()
  psql_ -d postgres -c "CREATE DATABASE hoglake_auth_on" -c "CREATE DATABASE hoglake_auth_off"
  launch hoglaked-auth-on "$on_mode" hoglake_auth_on
  on_pid=$launched_pid
  on_url=$launched_url
  launch hoglaked-auth-off "$off_mode" hoglake_auth_off "${baseline:-$hoglaked}"
  off_pid=$launched_pid
  off_url=$launched_url
  auth_use on
  # The modes are what they claim: without the token the on server refuses
  # (401), with it answers; the off server answers without one.
  http_code() { curl -s -o /dev/null -w '%{http_code}' "$@"; }
  a1=$(http_code "$on_url/v1/catalogs")
  a2=200
  [ "$auth_control" = 1 ] || a2=$(http_code -H "@$auth_hdr" "$on_url/v1/catalogs")
  if [ -n "$baseline" ]; then
    a3=$(http_code -H "@${hdr_of[hoglake_auth_off]}" "$off_url/v1/catalogs")
  else
    a3=$(http_code "$off_url/v1/catalogs")
  fi
  if [ -n "$baseline" ] && [ "$a1" = 401 ] && [ "$a2" = 200 ] && [ "$a3" = 200 ]; then
    log "BASELINE run: on = $hoglaked, off = $baseline, both --auth on"
  elif [ "$auth_control" = 1 ] && [ "$a1" = 200 ] && [ "$a3" = 200 ]; then
    log "authentication CONTROL run: both servers --auth off"
  elif [ "$a1" != 401 ] || [ "$a2" != 200 ] || [ "$a3" != 200 ]; then
    log "authentication modes not as expected: on server $a1 without a token (want 401)," \
      "$a2 with it (want 200); off server $a3 without (want 200)"
    exit 5
  fi
  [ "$auth_control" = 1 ] || [ -n "$baseline" ] ||
    log "authentication: on server ($on_url) 401 without a token, 200 with; off server ($off_url) 200"
  auth_f=$(echo "$files_list" | awk '{print $1}')
  auth_writers=$(echo "$writers_list" | tr ' ' '\n' | sed '/^$/d' | sort -rn | tr '\n' ' ')
  auth_w_max=$(echo "$auth_writers" | awk '{print $1}')
  for mode in on off; do
    auth_use "$mode"
    server_warmup "bench-auth-warmup-$mode" "$auth_w_max" "$auth_f"
  done
  for w in $auth_writers; do
    auth_cell "$w" "$auth_f"
  done
fi
echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$dir/env.txt"

# ---- the report ----
status=0
: >"$dir/report.md"
if [ "$matrix" = 1 ]; then
awk -F'\t' -v pgb="$pgb" -v preseed="$preseed" -v first_scale="s${scales%% *}" -v smoke="$smoke" \
  -v cores="$(nproc)" '
  BEGIN {
    while ((getline line < pgb) > 0) {
      split(line, p, "\t"); np++
      for (i = 1; i <= 9; i++) P[np, i] = p[i]
      if (p[1] == "tpcb") {
        tps[p[2], p[3]] = p[4]
        pgbcpu[p[2], p[3]] = p[9]
        if (!(p[2] in seen_s)) { seen_s[p[2]] = 1; ns++; sc[ns] = p[2] }
      }
    }
  }
  { n++; W[n] = $1; F[n] = $2; H[n] = $3; ST[n] = $4; ok[n] = $5; err[n] = $6; cps[n] = $8
    p50[n] = $9; p99[n] = $10; busy[n] = $12; hog[n] = $13; pgc[n] = $14; cli[n] = $15
    cpg[n] = $16; rnd[n] = $17; ebs[n] = $18; if (ST[n] == "fresh") key[$1, $2, $3] = n }
  END {
    printf "\nCommits (POST /commit, one table, a fresh catalog per row; history = preseeded snapshots)\n\n"
    printf "| writers | files/commit | history | commits/s | p50 ms | p99 ms | errors |"
    for (i = 1; i <= ns; i++) printf " vs pgbench %s |", sc[i]
    printf " CPU busy | CPU ms/commit: hoglaked, postgres, client | commits per group |\n|---:|---:|---:|---:|---:|---:|---:|"
    for (i = 1; i <= ns; i++) printf "---:|"
    printf "---:|---|---:|\n"
    for (r = 1; r <= n; r++) {
      printf "| %s | %s | %s%s | %.1f | %.2f | %.2f | %s |", W[r], F[r], H[r],
        ST[r] == "stale" ? " (stale stats)" : "", cps[r], p50[r], p99[r],
        err[r] (ebs[r] != "" ? " (" ebs[r] ")" : "")
      for (i = 1; i <= ns; i++) {
        t = tps[sc[i], W[r]]
        if (t > 0) printf " %.2fx |", cps[r] / t; else printf " - |"
      }
      printf " %s%% | %.2f, %.2f, %.2f | %.2f |\n", busy[r], hog[r], pgc[r], cli[r], cpg[r]
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
          m = x >= 1.0
          printf "- 8 writers, 1 file/commit, history %s: %.1f commits/s = %.2fx pgbench %s (%.1f tps): %s (target >= 1.00x, issue 21)\n",
            H[r], cps[r], x, first_scale, t, m ? "met" : "MISSED"
          # What the machine allows at that CPU cost: every core busy, no
          # wait anywhere (the group round is serial, so less in fact).
          c = hog[r] + pgc[r] + cli[r]
          if (c > 0)
            printf "  CPU per commit %.2f ms (hoglaked %.2f, postgres %.2f, client %.2f): %d cores at 100%% allow at most %.0f commits/s = %.2fx; pgbench used %.2f ms of postgres CPU a transaction\n",
              c, hog[r], pgc[r], cli[r], cores, cores * 1000 / c, cores * 1000 / c / t, pgbcpu[first_scale, 8]
          # The catalog lock serialises the group rounds: at this group
          # size, the pgbench rate needs a round every (group / tps) seconds.
          if (cpg[r] > 0)
            printf "  group rounds (serial under the catalog lock): %.0f a second, one every %.3f ms (%.3f of it from the batch'"'"'s sending to the COMMIT'"'"'s answer), %.2f commits each; pgbench'"'"'s rate at that size needs one every %.3f ms\n",
              cps[r] / cpg[r], 1000 * cpg[r] / cps[r], rnd[r], cpg[r], 1000 * cpg[r] / t
          t1++
          if (!m) t1_missed = 1
        }
      }
    if (!t1) printf "- 8 writers, 1 file/commit vs pgbench: not measured in this run\n"
    printf "- p50 at %s snapshots within 1.2x of p50 at 0, every configuration: %s\n", preseed,
      hist_ok ? "met" : "MISSED"
    if (smoke) printf "\n(smoke run: 5 commits per writer; no speed is judged)\n"
    if (t1_missed || !hist_ok) exit 2
  }' "$results" | tee -a "$dir/report.md" || status=$?
fi
if [ -s "$alt" ]; then
awk -F'\t' -v slice="$alternate_duration" -v scale="s${scales%% *}" '
  { n++; K[n] = $1; O[n] = $2; C[n] = $3; T[n] = $4; X[n] = $4 > 0 ? $3 / $4 : 0 }
  END {
    printf "\n8 writers, 1 file/commit, no history, against pgbench TPC-B (%s, 8 clients, -M prepared): %d pair(s) of %s-second slices in ABBA order\n\n", scale, n, slice
    printf "| pair | first | commits/s | pgbench tps | ratio |\n|---:|---|---:|---:|---:|\n"
    for (i = 1; i <= n; i++) {
      printf "| %d | %s | %.1f | %.1f | %.2fx |\n", K[i], O[i], C[i], T[i], X[i]
      s[i] = X[i]
    }
    for (i = 2; i <= n; i++) for (j = i; j > 1 && s[j - 1] > s[j]; j--) { t = s[j]; s[j] = s[j - 1]; s[j - 1] = t }
    med = n % 2 ? s[(n + 1) / 2] : (s[n / 2] + s[n / 2 + 1]) / 2
    printf "\n- 8 writers vs pgbench, alternated: median %.2fx (pairs %.2f-%.2fx): %s (target >= 1.00x, issue 21)\n",
      med, s[1], s[n], (med >= 1.0 ? "met" : "MISSED")
    if (med < 1.0) exit 2
  }' "$alt" | tee -a "$dir/report.md" || status=$?
fi
if [ "$auth_compare" = 1 ]; then
awk -F'\t' -v smoke="$smoke" -v slice="$auth_duration" -v control="$auth_control" \
  -v baseline="$baseline" -v build="$hoglaked" '
  function fmt_range(lo, hi, f) { return sprintf(f ".." f, lo, hi) }
  { n++; R[n] = $1; W[n] = $2; F[n] = $3; M[n] = $4; FIRST[n] = $5; ok[n] = $6; err[n] = $7
    cps[n] = $9; p50[n] = $10; p99[n] = $11; busy[n] = $12; hog[n] = $13 * 1000; pgc[n] = $14 * 1000
    cli[n] = $15 * 1000; cpg[n] = $16; ebs[n] = $17
    row[$1, $2, $4] = n
    if (!($2 in seen)) { seen[$2] = 1; nw++; WS[nw] = $2; FS_[$2] = $3 }
    if ($1 > nr) nr = $1 }
  END {
    if (!n) { printf "\nAuthentication: no runs\n"; exit 0 }
    if (control) printf "\nCONTROL RUN (--auth-control): the \"on\" server below runs --auth off too"
    if (baseline != "") printf "\nBASELINE RUN (--baseline): \"on\" is %s and \"off\" is %s, both --auth on: on/off is this build / the baseline", build, baseline
    printf "\nAuthentication: the same cell against hoglaked --auth on (a bearer token on every request) and --auth off (no header), each with its own database in the same PostgreSQL; %d pair(s) of %s back-to-back slices in ABBA order; a fresh catalog per server and cell, no history\n\n", nr, smoke ? "5-commit" : slice "-second"
    printf "| writers | files/commit | pair | order | on commits/s | off commits/s | on/off | p50 ms on, off | CPU busy on, off | hoglaked CPU us/commit on, off | postgres CPU us/commit on, off | commits per group on, off | errors on, off |\n"
    printf "|---:|---:|---:|---|---:|---:|---:|---|---|---|---|---|---|\n"
    for (i = 1; i <= nw; i++) {
      w = WS[i]
      for (r = 1; r <= nr; r++) {
        a = row[r, w, "on"]; b = row[r, w, "off"]
        if (!a || !b) continue
        ratio = cps[b] > 0 ? cps[a] / cps[b] : 0
        printf "| %s | %s | %d | %s first | %.1f | %.1f | %.3f | %.2f, %.2f | %s%%, %s%% | %.0f, %.0f | %.0f, %.0f | %.2f, %.2f | %s, %s |\n",
          w, FS_[w], r, FIRST[a], cps[a], cps[b], ratio, p50[a], p50[b], busy[a], busy[b],
          hog[a], hog[b], pgc[a], pgc[b], cpg[a], cpg[b], err[a], err[b]
      }
    }
    printf "\nPer cell over the pairs (mean, and range over slices or pairs)\n\n"
    printf "| writers | on commits/s | off commits/s | on/off (of the means) | on/off range over pairs | hoglaked CPU us/commit on | off | on - off per pair | postgres CPU us/commit on, off | commits per group on, off |\n"
    printf "|---:|---|---|---:|---|---|---|---|---|---|\n"
    all_met = 1; summary = ""
    for (i = 1; i <= nw; i++) {
      w = WS[i]; np = 0
      son = soff = shon = shoff = spon = spoff = sd = sgon = sgoff = 0
      for (r = 1; r <= nr; r++) {
        a = row[r, w, "on"]; b = row[r, w, "off"]
        if (!a || !b) continue
        np++
        ratio = cps[b] > 0 ? cps[a] / cps[b] : 0
        d = hog[a] - hog[b]
        if (np == 1) { lon = hon = cps[a]; loff = hoff = cps[b]; lr = hr = ratio; lha = hha = hog[a]
                       lhb = hhb = hog[b]; ld = hd = d }
        if (cps[a] < lon) lon = cps[a]; if (cps[a] > hon) hon = cps[a]
        if (cps[b] < loff) loff = cps[b]; if (cps[b] > hoff) hoff = cps[b]
        if (ratio < lr) lr = ratio; if (ratio > hr) hr = ratio
        if (hog[a] < lha) lha = hog[a]; if (hog[a] > hha) hha = hog[a]
        if (hog[b] < lhb) lhb = hog[b]; if (hog[b] > hhb) hhb = hog[b]
        if (d < ld) ld = d; if (d > hd) hd = d
        son += cps[a]; soff += cps[b]; shon += hog[a]; shoff += hog[b]; spon += pgc[a]; spoff += pgc[b]
        sgon += cpg[a]; sgoff += cpg[b]
        sd += d
      }
      if (!np) continue
      mr = soff > 0 ? son / soff : 0
      met = mr >= 0.95
      if (!met) all_met = 0
      printf "| %s | %.1f (%s) | %.1f (%s) | %.3f | %s | %.0f (%s) | %.0f (%s) | %+.0f (%s) | %.0f, %.0f | %.2f, %.2f |\n",
        w, son / np, fmt_range(lon, hon, "%.1f"), soff / np, fmt_range(loff, hoff, "%.1f"), mr,
        fmt_range(lr, hr, "%.3f"), shon / np, fmt_range(lha, hha, "%.0f"), shoff / np,
        fmt_range(lhb, hhb, "%.0f"), sd / np, fmt_range(ld, hd, "%+.0f"), spon / np, spoff / np,
        sgon / np, sgoff / np
      summary = summary sprintf("%s%s writer(s): on/off %.3f (pairs %s)", summary == "" ? "" : "; ",
        w, mr, fmt_range(lr, hr, "%.3f"))
      CPU[w] = sprintf("%s writer(s): hoglaked %.0f us/commit on, %.0f off (on - off %+.0f us, pairs %s); postgres %.0f on, %.0f off; %.2f commits per group on, %.2f off",
        w, shon / np, shoff / np, sd / np, fmt_range(ld, hd, "%+.0f"), spon / np, spoff / np,
        sgon / np, sgoff / np)
    }
    printf "\nWith authentication on, a request hashes its bearer secret (one SHA-256) and looks the digest\n"
    printf "up in the token cache under a mutex; the token store (one query) is asked when the cached\n"
    printf "entry is older than 2 s, so at most once per 2 s per token and replica. CPU per commit:\n"
    for (i = 1; i <= nw; i++) if (WS[i] in CPU) printf "- %s\n", CPU[WS[i]]
    printf "\nTargets (authentication)\n\n"
    if (smoke) {
      printf "- auth overhead < 5%% of commit throughput: not judged (smoke run: 5 commits per writer)\n"
      exit 0
    }
    if (control) {
      printf "- auth overhead < 5%% of commit throughput: not judged (control run: both servers --auth off; on/off %s)\n", summary
      exit 0
    }
    printf "- auth overhead < 5%% of commit throughput (on/off of the mean commits/s >= 0.95, every cell): %s (%s)\n",
      all_met ? "met" : "MISSED", summary
    if (!all_met) exit 2
  }' "$auth_results" | tee -a "$dir/report.md" || status=$?
fi
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
    start_server
  psql_ -d hoglake -c "CREATE EXTENSION IF NOT EXISTS pg_stat_statements"
  pw=$(echo "$writers_list" | awk '{print $NF}')
  make_catalog bench-profile
  quiesce hoglake
  head0=$(head_of "$cid")
  common=(--url "$url" --catalog bench-profile --namespace bench --table events
    --data-path s3://bench/bench-profile --writers "$pw" --files 1 "${token_args[@]}")
  # Warm up, then reset the counters and measure under perf.
  "$commit_bench" "${common[@]}" --warmup 0 --commits "$warmup" --start-snapshot "$head0" \
    --label warm >/dev/null 2>&1
  quiesce hoglake
  head0=$(head_of "$cid")
  psql_ -d hoglake -c "SELECT pg_stat_statements_reset()" >/dev/null
  curl -s -H "@$auth_hdr" "$url/metrics" >"$prof/metrics-before.txt"
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
  curl -s -H "@$auth_hdr" "$url/metrics" >"$prof/metrics-after.txt"
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
