#!/usr/bin/env bash
# Installs the build into a temporary prefix and builds a small program
# against libhoglake the way a user would: through pkg-config, once against
# the shared library and once against the static one. The program defines
# functions named as libhoglake's internals are (buf_append, log_msg), which
# must not clash. Also checks that both libraries define the hl_ API as
# their only globals.
#
#   check_install.sh BUILD_DIR [EXTRA_CFLAGS]   (EXTRA_CFLAGS: the build's sanitizer flags)
set -euo pipefail
build=$1
extra=${2:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
export PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig"
pkg-config --exists hoglake
# The CLI's man page and completion scripts, generated from its help tables.
grep -q '^\.TH HOGLAKE 1' "$work/prefix/share/man/man1/hoglake.1"
grep -q '^complete -o default -F _hoglake hoglake$' \
  "$work/prefix/share/bash-completion/completions/hoglake"
head -1 "$work/prefix/share/zsh/site-functions/_hoglake" | grep -qx '#compdef hoglake'

cat >"$work/use.c" <<'C'
#include <stdio.h>
#include <string.h>
#include <hoglake/hoglake.h>

/* The program's own functions, named as libhoglake's internals are. */
int buf_append(const char *s);
int buf_append(const char *s)
{
    return (int)strlen(s);
}
void log_msg(int level, const char *fmt, ...);
void log_msg(int level, const char *fmt, ...)
{
    (void)level, (void)fmt;
}

int main(void)
{
    if (buf_append("abc") != 3)
        return 3;
    log_msg(0, "");
    struct hl_client_options o = {.server_url = "http://127.0.0.1:1", .connect_timeout_ms = 2000};
    hl_client *c;
    struct hl_error err;
    if (hl_client_new(&o, &c, &err) != HL_OK)
        return 1;
    hl_catalog *cat;
    /* Nothing listens on port 1: a transport error, typed. */
    hl_status st = hl_catalog_open(c, "demo", &cat, &err);
    hl_client_free(c);
    if (st != HL_ERR_IO || strcmp(hl_status_name(st), "io") != 0)
        return 2;
    puts("ok");
    return 0;
}
C

# shellcheck disable=SC2086
cc $extra -o "$work/use_shared" "$work/use.c" $(pkg-config --cflags --libs hoglake)
LD_LIBRARY_PATH="$work/prefix/lib" "$work/use_shared" | grep -qx ok

# libhoglake.a itself, its dependencies as the system has them (shared: a
# distribution's libcurl has no static closure).
deps=$(pkg-config --print-requires-private hoglake | awk '{print $1}')
# shellcheck disable=SC2086
libs_static="$(pkg-config --libs $deps) -lpthread -lm"
# shellcheck disable=SC2086
cc $extra -o "$work/use_static" "$work/use.c" $(pkg-config --cflags hoglake) \
  "$work/prefix/lib/libhoglake.a" $libs_static
"$work/use_static" | grep -qx ok
if ldd "$work/use_static" | grep -q libhoglake; then
  echo "check_install: the static build links libhoglake.so" >&2
  exit 1
fi

leaked=$(nm -g --defined-only "$work/prefix/lib/libhoglake.a" | awk 'NF == 3 {print $3}' |
  grep -v '^hl_' || true)
if [ -n "$leaked" ]; then
  echo "check_install: libhoglake.a defines globals outside the hl_ API:" >&2
  echo "$leaked" | head -20 >&2
  exit 1
fi

leaked=$(nm -D --defined-only "$work/prefix/lib/libhoglake.so" | awk '{print $3}' | grep -v '^hl_' || true)
if [ -n "$leaked" ]; then
  echo "check_install: libhoglake.so exports more than the hl_ API:" >&2
  echo "$leaked" | head -20 >&2
  exit 1
fi
echo "check_install: shared and static builds work; $(nm -D --defined-only "$work/prefix/lib/libhoglake.so" | grep -c ' hl_') hl_ symbols exported"
