#!/usr/bin/env bash
# A throwaway PostgreSQL cluster on loopback for tests and development.
#
#   scripts/pg.sh start DIR PORT   create (first time) and start; prints the URL
#   scripts/pg.sh stop DIR         stop the cluster started in DIR, by its pid
#
# As root, the cluster runs as the 'postgres' user (initdb refuses root).
# Settings favour speed over durability (fsync off): tests only.
set -euo pipefail

pg_bin() {
  local d
  d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
  [ -n "$d" ] || { echo "pg.sh: PostgreSQL server binaries not found (apt-get install postgresql)" >&2; exit 1; }
  echo "$d"
}

as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

cmd=${1:-}
dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || { echo "usage: $0 start DIR PORT | stop DIR" >&2; exit 2; }
bin=$(pg_bin)

case "$cmd" in
start)
  port=${3:?port required}
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  if [ "$(id -u)" = 0 ]; then
    # Every parent must be traversable by the postgres user.
    p=$dir
    while [ "$p" != / ]; do chmod o+x "$p" 2>/dev/null || true; p=$(dirname "$p"); done
    chown postgres:postgres "$dir"
  fi
  if [ ! -f "$dir/data/PG_VERSION" ]; then
    as_owner "$bin/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 --no-sync >"$dir/initdb.log"
  fi
  # pg_stat_statements: tests count the buffers a server statement touched
  # (a plan that walks a table's history fails them; no timing involved).
  as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200 -c shared_preload_libraries=pg_stat_statements" \
    start >/dev/null
  head -1 "$dir/data/postmaster.pid" >"$dir/pid"
  echo "postgresql://postgres@127.0.0.1:$port/postgres"
  ;;
stop)
  [ -d "$dir/data" ] || exit 0
  as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || {
    # pg_ctl could not stop it: fall back to the pid we recorded.
    if [ -f "$dir/pid" ]; then kill -TERM "$(cat "$dir/pid")" 2>/dev/null || true; fi
  }
  ;;
*)
  echo "usage: $0 start DIR PORT | stop DIR" >&2; exit 2 ;;
esac
