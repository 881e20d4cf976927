#!/usr/bin/env bash
# Builds the Python extension the way its README says (pip, offline, no
# build isolation) against this build's libhoglake, installed into a
# temporary prefix and found by pkg-config, and runs its pytest suite
# against a hoglaked of this build (and its hoglake CLI, which writes the
# deletion vectors the binding does not).
#
#   run_pytest.sh BUILD_DIR SOURCE_DIR [SANITIZE_FLAGS [PYTEST_ARGS...]]
#
# PYTEST_ARGS select tests (-m leaks: the leak loop, ctest python.leaks).
# In a sanitized build the extension gets the same -fsanitize flags and the
# interpreter (not instrumented) runs with libasan preloaded and
# PYTHONMALLOC=malloc; Python's own allocations are not leak-checked.
set -euo pipefail
build=$1
src=$2
sanitize=${3:-}
py=/usr/bin/python3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cmake --install "$build" --prefix "$work/prefix" >/dev/null
export PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig"
export HOGLAKE_EXTRA_CFLAGS="$sanitize"
# A copy, so that the build leaves nothing in the source tree.
cp -r "$src/python" "$work/python"
rm -rf "$work/python/build" "$work/python"/*.egg-info "$work/python"/hoglake/*.so
if ! "$py" -m pip install --quiet --no-build-isolation --no-deps --no-index \
  --target "$work/site" "$work/python" >"$work/pip.log" 2>&1; then
  cat "$work/pip.log" >&2
  exit 1
fi

export HOGLAKED="$build/src/hoglaked" HOGLAKE_CLI="$build/src/hoglake"
export PYTHONPATH="$work/site:$work/python/tests"
export PYTHONDONTWRITEBYTECODE=1
if [ -n "$sanitize" ]; then
  LD_PRELOAD=$(gcc -print-file-name=libasan.so)
  export LD_PRELOAD
  export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1"
  # Objects from malloc, so that ASan sees an overrun of a Python object too.
  export PYTHONMALLOC=malloc
fi
cd "$work"
exec "$py" -m pytest -q -p no:cacheprovider "${@:4}" "$work/python/tests"
