# A benchmark's own PostgreSQL cluster, durable (fsync, synchronous_commit and
# full_page_writes on, unlike scripts/pg.sh, which turns them off for tests),
# on loopback. Sourced by bench/*/run.sh.
#
#   durable_pg_init DIR              initdb into DIR/data, unless it holds a cluster
#   durable_pg_start DIR [SETTINGS]  start it on a free port with extra `-c` SETTINGS;
#                                    sets pgport and pg_pid
#
# Needs pgbin (PostgreSQL's bin directory), as_owner (runs a command as the
# cluster's owner) and log from the caller. Exits 5 when a step fails.
durable_pg_init() {
  local dir=$1 p
  mkdir -p "$dir"
  if [ "$(id -u)" = 0 ]; then
    p=$dir
    while [ "$p" != / ]; do chmod o+x "$p" 2>/dev/null || true; p=$(dirname "$p"); done
    chown postgres:postgres "$dir"
  fi
  [ -f "$dir/data/PG_VERSION" ] && return 0
  as_owner "$pgbin/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 \
    >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; exit 5; }
}

durable_pg_start() {
  local dir=$1 settings=${2:-} tries
  for tries in 1 2 3 4 5; do
    pgport=$((20000 + RANDOM % 20000))
    if as_owner "$pgbin/pg_ctl" -D "$dir/data" -l "$dir/log" -w -t 120 \
      -o "-c listen_addresses=127.0.0.1 -p $pgport -k $dir $settings" start >/dev/null; then
      pg_pid=$(head -1 "$dir/data/postmaster.pid")
      return 0
    fi
  done
  log "PostgreSQL did not start; see $dir/log"
  tail -20 "$dir/log" >&2 || true
  exit 5
}
