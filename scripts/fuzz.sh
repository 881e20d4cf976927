#!/usr/bin/env bash
# Fuzzes the Parquet reader for a bounded time, then the deletion-vector
# decoder, the expression language, the Variant codec and Variant
# shredding: builds the libFuzzer targets
# with clang, ASan and UBSan in build-fuzz/, writes the seed corpus (valid
# files of several shapes, and metadata structures cut from them), and runs
# the target on it and on the regression inputs in tests/unit/corpus/.
#
#   scripts/fuzz.sh [SECONDS]          default 60
#
# Environment:
#   FUZZ_CORPUS  directory the fuzzer grows, kept between runs
#                (default build-fuzz/corpus)
#   FUZZ_JOBS    parallel fuzzing processes (default 1)
#
# Exits 0 when nothing was found. On a crash, leak, sanitizer report,
# timeout or out-of-memory it exits 1; the input is in build-fuzz/artifacts/
# (reproduce with build-fuzz/fuzz/fuzz_pq_reader FILE). Needs clang and
# libclang-rt-14-dev (scripts/deps.sh test installs them).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
secs=${1:-60}
jobs=${FUZZ_JOBS:-1}
build="$root/build-fuzz"
mkdir -p "$build"

if ! command -v clang >/dev/null 2>&1; then
  echo "fuzz.sh: clang is missing (scripts/deps.sh test installs it)" >&2
  exit 1
fi
# Warnings are not errors here: clang's set differs from the gcc build's,
# which is where -Werror is enforced.
cmake -S "$root" -B "$build" -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DHOGLAKE_FUZZ=ON -DHOGLAKE_TESTS=OFF -DHOGLAKE_WERROR=OFF >"$build/configure.log" 2>&1 || {
  tail -30 "$build/configure.log" >&2
  echo "fuzz.sh: configuring failed; log in $build/configure.log" >&2
  exit 1
}
if ! cmake --build "$build" -j"$(nproc)" --target fuzz_pq_reader fuzz_pq_seeds fuzz_dv_reader \
  fuzz_expr_parse fuzz_variant fuzz_variant_shred >"$build/build.log" 2>&1; then
  grep -E -A5 "error" "$build/build.log" | head -60 >&2
  echo "fuzz.sh: the build failed; log in $build/build.log" >&2
  exit 1
fi

export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=0:strict_string_checks=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

seeds="$build/seeds"
rm -rf "$seeds"
"$build/fuzz/fuzz_pq_seeds" "$seeds"
corpus=${FUZZ_CORPUS:-$build/corpus}
artifacts="$build/artifacts"
mkdir -p "$corpus" "$artifacts"

# Inputs up to twice the largest seed, and never under 16 KiB: room to grow
# a file, small enough to keep executions fast.
largest=$(find "$seeds" "$corpus" "$root/tests/unit/corpus" -type f -printf '%s\n' |
  sort -n | tail -1)
max_len=$((largest * 2 > 16384 ? largest * 2 : 16384))

args=("$corpus" "$seeds" "$root/tests/unit/corpus"
  -max_total_time="$secs" -rss_limit_mb=2048 -max_len="$max_len" -timeout=30
  -artifact_prefix="$artifacts/" -print_final_stats=1 -print_pcs=0)
if [ "$jobs" -gt 1 ]; then
  args+=(-fork="$jobs")
fi
log="$build/fuzz.log"
echo "fuzz.sh: fuzzing the Parquet reader for ${secs}s (max_len $max_len, $jobs job(s))" >&2
rc=0
"$build/fuzz/fuzz_pq_reader" "${args[@]}" >"$log" 2>&1 || rc=$?
grep -E "^stat::|^#[0-9]+.*(DONE|cov:)" "$log" | tail -8 >&2 || true
if [ "$rc" -ne 0 ] || grep -q -E "ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:" "$log"; then
  grep -E -B2 -A30 "ERROR:|runtime error:" "$log" | head -80 >&2 || tail -40 "$log" >&2
  echo "fuzz.sh: the fuzzer found a bug (exit $rc); inputs in $artifacts, log in $log" >&2
  exit 1
fi
echo "fuzz.sh: no crash in ${secs}s; corpus $(find "$corpus" -type f | wc -l) inputs" >&2

# The small decoders share a quarter of the time (at least 8 s): the
# deletion-vector decoder, the expression language, the Variant codec and
# Variant shredding, each from its own corpus (their inputs are small: the
# fuzzer finds the shapes itself).
small_secs=$((secs / 4 > 8 ? secs / 4 : 8))
expr_secs=$((small_secs / 4))
variant_secs=$((small_secs / 4))
shred_secs=$((small_secs / 4))
dv_secs=$((small_secs - expr_secs - variant_secs - shred_secs))

# run_small NAME LABEL TARGET SECONDS MAX_LEN CORPUS [SEEDS]: log fuzz-NAME.log,
# artifacts NAME-*.
run_small() {
  local name=$1 label=$2 target=$3 t=$4 len=$5 dir=$6 seeds=${7:-}
  local slog="$build/fuzz-$name.log" src=()
  mkdir -p "$dir"
  [ -n "$seeds" ] && src=("$seeds")
  echo "fuzz.sh: fuzzing the $label for ${t}s" >&2
  local status=0
  "$build/fuzz/$target" "$dir" ${src[@]+"${src[@]}"} -max_total_time="$t" -rss_limit_mb=2048 \
    -max_len="$len" -timeout=30 -artifact_prefix="$artifacts/$name-" -print_final_stats=1 \
    >"$slog" 2>&1 || status=$?
  if [ "$status" -ne 0 ] || grep -q -E "ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:" "$slog"; then
    grep -E -B2 -A30 "ERROR:|runtime error:" "$slog" | head -80 >&2 || tail -40 "$slog" >&2
    echo "fuzz.sh: the $label fuzzer found a bug (exit $status); log in $slog" >&2
    exit 1
  fi
  echo "fuzz.sh: $label: no crash in ${t}s" >&2
}

run_small dv "deletion-vector decoder" fuzz_dv_reader "$dv_secs" 65536 "$build/corpus-dv"

# write_seeds DIR PREFIX: one seed file per line of stdin, PREFIX before it.
write_seeds() {
  local dir=$1 prefix=$2 k=0 line
  rm -rf "$dir"
  mkdir -p "$dir"
  while IFS= read -r line; do
    printf '%s%s' "$prefix" "$line" >"$dir/seed-$k"
    k=$((k + 1))
  done
}

# Seeds for the expression language: one of each construct.
expr_seeds="$build/seeds-expr"
write_seeds "$expr_seeds" "" <<'SEEDS'
i = 1 AND (s != 'x' OR NOT d > 1.5e3)
st.x IN (1, 2, NULL) OR u8 NOT BETWEEN 1 AND 200
ts >= TIMESTAMP '2026-01-02 03:04:05.5+01:00' AND "dec" IS NOT NULL
u = UUID '00000000-0000-0000-0000-000000000001' OR b
i = i * 2 - 1, s = CASE WHEN b THEN 'y' ELSE NULL END, dec = dec / 3
SEEDS
run_small expr "expression language" fuzz_expr_parse "$expr_secs" 4096 "$build/corpus-expr" \
  "$expr_seeds"

# Seeds for the Variant codec: JSON texts to encode (a first byte that is
# odd); the fuzzer reaches the decoder's side from there.
variant_seeds="$build/seeds-variant"
write_seeds "$variant_seeds" 1 <<'SEEDS'
{"$browser":"Chrome","price":9.99,"tags":["a","b"],"n":{"x":null,"y":[1,-129,70000]}}
[true,false,null,18446744073709551616,1e300,"\u00e9\ud83d\ude00"]
"0123456789012345678901234567890123456789012345678901234567890123"
SEEDS
run_small variant "Variant codec" fuzz_variant "$variant_secs" 8192 "$build/corpus-variant" \
  "$variant_seeds"

# Seeds for shredding: JSON rows that fill the fuzz target's layout, and
# some that do not.
shred_seeds="$build/seeds-shred"
write_seeds "$shred_seeds" 1 <<'SEEDS'
{"a":1,"s":"x","d":1.5,"l":[{"x":2.5,"i":3},{"x":"no"},7],"b":true,"v":{"k":[null]},"z":0}
{"a":"one","s":99,"l":{"x":1},"b":null}
[{"a":1},"0123456789012345678901234567890123456789012345678901234567890123"]
SEEDS
run_small shred "Variant shredding" fuzz_variant_shred "$shred_secs" 8192 "$build/corpus-shred" \
  "$shred_seeds"
