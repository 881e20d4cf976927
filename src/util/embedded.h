/* Files compiled into the binary by cmake/embed.cmake. */
#ifndef HL_UTIL_EMBEDDED_H
#define HL_UTIL_EMBEDDED_H

#include <stddef.h>

struct embedded_file {
    const char *name; /* base name, e.g. "0001_catalog.sql" */
    const char *data; /* NUL-terminated contents */
    size_t len;       /* length without the terminator */
};

#endif
