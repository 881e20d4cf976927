# A benchmark's private stack, sourced by bench/*/run.sh: a PostgreSQL
# cluster (scripts/pg.sh: fsync off), hoglaked (authentication on, its
# default; --data-dir DIR/hoglaked, where it writes the bootstrap admin
# secret admin.token) and, when asked, moto and s3rver (scripts/s3.sh).
#
#   bench_stack_up DIR HOGLAKED [s3]   sets url, db_url, HOGLAKE_TOKEN (exported)
#                                      and, with s3, the HOGLAKE_TEST_S3_* variables
#   bench_stack_down                   stops what bench_stack_up started
#
# Needs root (the repository), pgbin (PostgreSQL's bin directory) and a log
# function from the caller. Exits 5 when a part does not start.
bench_srv_pid=""
bench_pg_dir=""
bench_s3_dir=""

bench_stack_up() {
  local dir=$1 hoglaked=$2 with_s3=${3:-}
  local pg_url="" try pgport
  for try in 1 2 3 4 5; do
    pgport=$((20000 + RANDOM % 20000))
    if pg_url=$("$root/scripts/pg.sh" start "$dir/pg" "$pgport" 2>>"$dir/pg-start.log"); then
      bench_pg_dir=$dir/pg
      break
    fi
  done
  [ -n "$bench_pg_dir" ] || { log "PostgreSQL did not start; see $dir/pg-start.log $dir/pg/log"; exit 5; }
  "$pgbin/psql" -X -q -v ON_ERROR_STOP=1 "$pg_url" -c "CREATE DATABASE hoglake" >/dev/null
  db_url=${pg_url%/postgres}/hoglake
  if [ "$with_s3" = s3 ]; then
    local s3_env
    s3_env=$("$root/scripts/s3.sh" start "$dir/s3") || { log "moto did not start: see $dir/s3/*.log"; exit 5; }
    bench_s3_dir=$dir/s3
    eval "$s3_env"
  fi
  "$hoglaked" --database-url "$db_url" --data-dir "$dir/hoglaked" --port 0 --port-file "$dir/port" \
    --warehouse "file://$dir/warehouse" >"$dir/hoglaked.log" 2>&1 &
  bench_srv_pid=$!
  for _ in $(seq 1 200); do
    [ -s "$dir/port" ] && break
    kill -0 "$bench_srv_pid" 2>/dev/null || { log "hoglaked exited; see $dir/hoglaked.log"; exit 5; }
    sleep 0.05
  done
  [ -s "$dir/port" ] || { log "hoglaked did not start; see $dir/hoglaked.log"; exit 5; }
  url="http://127.0.0.1:$(cat "$dir/port")"
  # The admin secret hoglaked wrote before listening (the database is new):
  # libhoglake and the CLI send HOGLAKE_TOKEN as the bearer token.
  [ -s "$dir/hoglaked/admin.token" ] ||
    { log "hoglaked wrote no $dir/hoglaked/admin.token; see $dir/hoglaked.log"; exit 5; }
  HOGLAKE_TOKEN=$(head -1 "$dir/hoglaked/admin.token")
  export HOGLAKE_TOKEN
}

bench_stack_down() {
  if [ -n "$bench_srv_pid" ]; then
    kill -TERM "$bench_srv_pid" 2>/dev/null || true
    wait "$bench_srv_pid" 2>/dev/null || true
  fi
  [ -z "$bench_s3_dir" ] || "$root/scripts/s3.sh" stop "$bench_s3_dir" || true
  [ -z "$bench_pg_dir" ] || "$root/scripts/pg.sh" stop "$bench_pg_dir" || true
}
