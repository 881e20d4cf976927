#!/usr/bin/env bash
# Builds hoglaked (release) and runs it. With no arguments it runs on its
# embedded default: a private PostgreSQL cluster and a local warehouse under
# the data dir (/var/lib/hoglake as root), listening on 127.0.0.1:8080.
# Arguments are passed to hoglaked (see `scripts/run.sh --help`).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/scripts/deps.sh" run
build="$root/build-release"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DHOGLAKE_TESTS=OFF >/dev/null
cmake --build "$build" -j"$(nproc)" --target hoglaked hoglake_cli >/dev/null
echo "run.sh: built $build/src/hoglaked and $build/src/hoglake" >&2
exec "$build/src/hoglaked" "$@"
