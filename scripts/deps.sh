#!/usr/bin/env bash
# Installs the Debian packages hoglake needs, only those missing.
#
#   scripts/deps.sh build    compilers' libraries and headers
#   scripts/deps.sh run      build + the PostgreSQL server (embedded default)
#   scripts/deps.sh test     run + cmocka, clang and its libFuzzer runtime (scripts/fuzz.sh),
#                            tmux (the progress line on a terminal, test_cli_progress),
#                            Node.js/npm for the test-only tools, and the Python
#                            extension's headers, setuptools, pip and pytest (tests/python,
#                            bench/python)
set -euo pipefail

build_pkgs=(build-essential cmake pkg-config libpq-dev libmicrohttpd-dev libjansson-dev
            libcurl4-openssl-dev libssl-dev libzstd-dev libsnappy-dev zlib1g-dev liblz4-dev
            libbrotli-dev libicu-dev
            curl ca-certificates)
run_pkgs=(postgresql)
test_pkgs=(libcmocka-dev python3 clang-format clang libclang-rt-14-dev bash zsh groff-base bsdextrautils
           tmux python3-dev python3-setuptools python3-pip python3-pytest)

case "${1:-}" in
  build) want=("${build_pkgs[@]}") ;;
  run) want=("${build_pkgs[@]}" "${run_pkgs[@]}") ;;
  test) want=("${build_pkgs[@]}" "${run_pkgs[@]}" "${test_pkgs[@]}") ;;
  *) echo "usage: $0 build|run|test" >&2; exit 2 ;;
esac

missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${1}" = test ] && ! command -v npm >/dev/null 2>&1; then
  missing+=(nodejs npm)
fi
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "deps.sh: missing packages: ${missing[*]} (run as root to install them)" >&2
    exit 1
  fi
  echo "deps.sh: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
