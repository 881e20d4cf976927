/* Where hoglake keeps its state when nobody says: the server's --data-dir
 * default, which the CLI also reads to find the local server's admin
 * token. One definition, so the two never disagree. */
#ifndef HL_UTIL_DATADIR_H
#define HL_UTIL_DATADIR_H

#include <stddef.h>
#include <sys/types.h>

/* $HOGLAKE_DATA_DIR when set; else /var/lib/hoglake for root, else
 * $XDG_DATA_HOME/hoglake, else $HOME/.local/share/hoglake, else
 * ./hoglake-data. Returns 0, or -1 when out is too small. */
int datadir_default(char *out, size_t size);

/* mkdir -p: creates the absolute directory dir with `mode` and its missing
 * parents with 0755 (so the embedded cluster's owner can reach what lies
 * below). An existing directory is left as it is. Returns 0 or -1 (errno). */
int datadir_make_dirs(const char *dir, mode_t mode);

#endif
