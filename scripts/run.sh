#!/usr/bin/env bash
# Builds hoglaked (release) and runs it. With no arguments it runs on its
# embedded default: a private PostgreSQL cluster and a local warehouse under
# the data dir (/var/lib/hoglake as root), listening on 127.0.0.1:8080.
# Arguments are passed to hoglaked (see `scripts/run.sh --help`).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/scripts/deps.sh" run
build="$root/build-release"
# Warnings never stop a user's build (another compiler may warn where ours
# does not); CI builds the same targets with -Werror (scripts/test.sh).
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DHOGLAKE_TESTS=OFF \
  -DHOGLAKE_WERROR=OFF >/dev/null
cmake --build "$build" -j"$(nproc)" --target hoglaked hoglake_cli >/dev/null
echo "run.sh: built $build/src/hoglaked and $build/src/hoglake" >&2
exec "$build/src/hoglaked" "$@"
