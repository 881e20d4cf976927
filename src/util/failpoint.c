/* Fault injection for tests (see failpoint.h). */
#include <stdlib.h>
#include <string.h>

#include "util/failpoint.h"

bool failpoint_on(const char *name)
{
    const char *list = getenv("HOGLAKE_FAILPOINTS");
    size_t n = strlen(name);
    for (const char *p = list; p && *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && strncmp(p, name, n) == 0)
            return true;
        p = end ? end + 1 : NULL;
    }
    return false;
}
