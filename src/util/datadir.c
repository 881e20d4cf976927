#include "util/datadir.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

int datadir_default(char *out, size_t size)
{
    const char *env = getenv("HOGLAKE_DATA_DIR");
    const char *xdg = getenv("XDG_DATA_HOME");
    const char *home = getenv("HOME");
    int n;
    if (env && *env)
        n = snprintf(out, size, "%s", env);
    else if (geteuid() == 0)
        n = snprintf(out, size, "/var/lib/hoglake");
    else if (xdg && xdg[0] == '/')
        n = snprintf(out, size, "%s/hoglake", xdg);
    else if (home && home[0] == '/')
        n = snprintf(out, size, "%s/.local/share/hoglake", home);
    else
        n = snprintf(out, size, "./hoglake-data");
    return n < 0 || (size_t)n >= size ? -1 : 0;
}

int datadir_make_dirs(const char *dir, mode_t mode)
{
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(path, 0755) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    return mkdir(path, mode) != 0 && errno != EEXIST ? -1 : 0;
}
