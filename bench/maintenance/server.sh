# shellcheck shell=bash disable=SC2154,SC2034 # pg_url and hoglaked are the caller's; db_url, base its
# Sourced by the maintenance benchmarks that drive one hoglaked over a fresh
# database (compact_bench.sh, hydrate_bench.sh).
#
#   bench_up NAME [hoglaked option...]
#
# Needs $pg_url and $hoglaked. Creates database hl_NAME_bench_PID on the
# PostgreSQL at $pg_url and a work directory, starts hoglaked on them
# (authentication on, its default; --data-dir the work directory, which is
# also its one --file-roots: catalogs go under $work/warehouse) with the
# options given, and removes all three at exit. Sets db_url, work, pid and
# base (the server's URL); exports HOGLAKE_TOKEN_FILE (the bootstrap admin
# secret the server wrote, for `hoglake`) and writes it as a curl header
# file, $work/auth.header (0600), so the secret never goes on a command line.

bench_down() {
  [ -n "${pid:-}" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true
  psql -q "$pg_url" -c "DROP DATABASE IF EXISTS $dbname" >/dev/null 2>&1 || true
  rm -rf "$work"
}

bench_up() {
  local name=$1
  shift
  dbname="hl_${name}_bench_$$"
  db_url="${pg_url%/*}/$dbname"
  work=$(mktemp -d)
  chmod 755 "$work" # hoglaked runs as its own user when started as root
  pid=""
  trap bench_down EXIT
  psql -q "$pg_url" -c "CREATE DATABASE $dbname" >/dev/null
  "$hoglaked" --database-url "$db_url" --port 0 --port-file "$work/port" --data-dir "$work" \
    --file-roots "$work" --log-level warn "$@" >"$work/log" 2>&1 &
  pid=$!
  for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.1; done
  [ -s "$work/port" ] || { cat "$work/log" >&2; exit 1; }
  base="http://127.0.0.1:$(cat "$work/port")"
  # The database is new: hoglaked wrote the bootstrap admin secret before listening.
  [ -s "$work/admin.token" ] || { echo "hoglaked wrote no admin.token" >&2; exit 1; }
  export HOGLAKE_TOKEN_FILE="$work/admin.token"
  (umask 077 && printf 'Authorization: Bearer %s\n' "$(head -1 "$work/admin.token")" >"$work/auth.header")
}
