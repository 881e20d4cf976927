#!/usr/bin/env bash
# Runs the whole test suite under AddressSanitizer and UndefinedBehaviorSanitizer:
# installs what is missing, builds, starts a throwaway PostgreSQL and the two
# S3 test servers on loopback, runs ctest, and stops everything it started.
#
#   scripts/test.sh [ctest arguments...]     e.g. scripts/test.sh -L unit
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/scripts/deps.sh" test

build="$root/build-test"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Debug -DHOGLAKE_SANITIZE=ON >/dev/null
if ! cmake --build "$build" -j"$(nproc)" >"$build/build.log" 2>&1; then
  grep -E -A5 "error|Error" "$build/build.log" | head -80 >&2
  echo "test.sh: the build failed; full log in $build/build.log" >&2
  exit 1
fi

# The product's own build (scripts/run.sh: Release, the optimiser's extra
# warnings) must stay warning-free too.
release="$root/build-release-check"
cmake -S "$root" -B "$release" -DCMAKE_BUILD_TYPE=Release -DHOGLAKE_TESTS=OFF >/dev/null
if ! cmake --build "$release" -j"$(nproc)" --target hoglaked hoglake_cli >"$release/build.log" 2>&1; then
  grep -E -A5 "error|Error" "$release/build.log" | head -80 >&2
  echo "test.sh: the Release build failed; full log in $release/build.log" >&2
  exit 1
fi

stack=$(mktemp -d /tmp/hoglake-stack.XXXXXX)
chmod 755 "$stack"
cleanup() {
  "$root/scripts/s3.sh" stop "$stack/s3" >/dev/null 2>&1 || true
  "$root/scripts/pg.sh" stop "$stack/pg" >/dev/null 2>&1 || true
  rm -rf "$stack"
}
trap cleanup EXIT

pg_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
HOGLAKE_TEST_PG_URL=$("$root/scripts/pg.sh" start "$stack/pg" "$pg_port")
export HOGLAKE_TEST_PG_URL
s3_env=$("$root/scripts/s3.sh" start "$stack/s3")
eval "$s3_env"

# Sanitizer settings: fail hard on the first report, with leak checking on.
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export TMPDIR="$stack"

cd "$build"
ctest --output-on-failure -j2 --timeout 600 "$@"

# A short, bounded fuzzing run of the Parquet reader (its own clang build
# in build-fuzz/); fails the suite if it finds a crash. Skipped when ctest
# was given a selection, or with HOGLAKE_FUZZ_SECONDS=0.
fuzz_secs=${HOGLAKE_FUZZ_SECONDS:-40}
if [ $# -eq 0 ] && [ "$fuzz_secs" -gt 0 ]; then
  "$root/scripts/fuzz.sh" "$fuzz_secs"
fi
