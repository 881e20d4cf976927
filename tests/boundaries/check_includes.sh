#!/usr/bin/env bash
# The module boundaries are the build's to enforce (src/CMakeLists.txt,
# hl_modules): a target's include root holds only the module folders it may
# use. This compiles, against each target's root, one header it may include
# (which must compile) and headers of modules it may not (which must fail),
# so a root that lets everything through fails this test. It also refuses
# a relative include climbing out of its folder, the one way around a root.
#
#   check_includes.sh CC SRC_DIR TARGET=ROOT...
set -euo pipefail
cc=$1
src=$2
shift 2
declare -A root
for kv in "$@"; do root[${kv%%=*}]=${kv#*=}; done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0

compiles() { # target header
  printf '#include "%s"\n' "$2" >"$work/t.c"
  "$cc" -fsyntax-only -I"${root[$1]}" -I"$src/../include" "$work/t.c" 2>"$work/err"
}

check() { # target allowed-header forbidden-header...
  local t=$1 ok=$2
  shift 2
  if [ -z "${root[$t]:-}" ]; then
    echo "check_includes: no include root for $t" >&2
    fails=$((fails + 1))
    return
  fi
  if ! compiles "$t" "$ok"; then
    echo "check_includes: $t cannot include its own $ok:" >&2
    cat "$work/err" >&2
    fails=$((fails + 1))
  fi
  for h in "$@"; do
    if compiles "$t" "$h"; then
      echo "check_includes: $t may include $h, which its modules do not allow" >&2
      fails=$((fails + 1))
    fi
  done
}

check hl_util util/buf.h lake/schema.h parquet/pq.h server/auth/auth_cache.h expr/expr.h
check hl_lake lake/schema.h parquet/pq.h objstore/objstore.h rows/rows_value.h textio/csv.h expr/expr.h
check hl_parquet parquet/reader.h rows/rows_value.h textio/csv.h objstore/objstore.h server/auth/auth_cache.h client/internal.h expr/expr.h
check hl_objstore objstore/objstore.h parquet/pq.h lake/schema.h server/auth/auth_cache.h
check hl_rows rows/rows_adapt.h textio/textio_text.h textio/csv.h objstore/objstore.h client/internal.h server/auth/auth_cache.h iceberg/avro.h expr/expr.h
check hl_expr expr/expr.h objstore/objstore.h iceberg/avro.h textio/csv.h client/internal.h server/auth/auth_cache.h
check hl_textio textio/textio_parse.h objstore/objstore.h client/internal.h server/auth/auth_cache.h iceberg/avro.h cli/cli.h
check hl_iceberg iceberg/avro.h rows/rows_schema.h textio/textio_parse.h client/internal.h server/auth/auth_cache.h export/export_core.h expr/expr.h
check hl_client client/internal.h server/auth/auth_cache.h iceberg/avro.h cli/cli.h textio/textio_parse.h textio/csv.h
check hl_client expr/expr.h
check hl_server server/auth/auth_cache.h client/internal.h iceberg/avro.h cli/cli.h textio/textio_parse.h textio/csv.h expr/expr.h
check hoglaked server/auth/auth_cache.h client/internal.h cli/cli.h textio/textio_parse.h expr/expr.h
check hl_export export/export_core.h server/auth/auth_cache.h cli/cli.h client/internal.h client/tableinfo.h textio/textio_parse.h textio/csv.h
check hl_export hoglake/sys/table.h
check hl_cli textio/textio_parse.h
check hl_cli cli/cli.h server/auth/auth_cache.h client/internal.h client/tableinfo.h objstore/objstore.h iceberg/avro.h
check hoglake_cli cli/cli.h util/buf.h client/internal.h textio/textio_parse.h
# Every header named above as forbidden compiles where it is allowed, so
# its refusal above came from the boundary, not from the header itself.
check hl_rows rows/rows_value.h
check hl_textio textio/textio_text.h
check hl_textio textio/csv.h
check hl_rows rows/rows_schema.h
check hl_lake lake/schema.h
check hl_parquet parquet/pq.h
check hl_client client/tableinfo.h

climbing=$(grep -rn '#include "\.\./' "$src" || true)
if [ -n "$climbing" ]; then
  echo "check_includes: relative includes out of a module folder:" >&2
  echo "$climbing" >&2
  fails=$((fails + 1))
fi
[ "$fails" -eq 0 ] || exit 1
echo "check_includes: ${#root[@]} include roots hold their boundaries"
