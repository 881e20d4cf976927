/* The route table: every path hoglaked serves, its method and handler. */
#ifndef HL_SERVER_ROUTER_H
#define HL_SERVER_ROUTER_H

#include <stdbool.h>
#include <stddef.h>

#include "server/api.h"

enum route_flags {
    ROUTE_INLINE = 1,  /* cheap and database-free: answered on the I/O thread */
    ROUTE_NO_SHED = 2, /* probes: never shed for queueing time */
};

struct route {
    const char *method;
    const char *pattern; /* "/v1/catalogs/{catalog}"; also the metrics label */
    api_handler_fn handler;
    unsigned flags;
    /* The query parameters the route reads (NULL-terminated); any other
     * is a 400, so a typo never silently changes a read. NULL: unchecked
     * (probes and stubs). */
    const char *const *args;
};

enum route_match_result { ROUTE_FOUND, ROUTE_NO_PATH, ROUTE_BAD_METHOD };

/* Matches method and path. On ROUTE_FOUND, params[] point into `scratch`
 * (a copy of path, scratch_size bytes). On ROUTE_BAD_METHOD, `allow`
 * receives the methods the path does accept ("GET, POST"). */
enum route_match_result router_match(const char *method, const char *path, char *scratch,
                                     size_t scratch_size, const struct route **out,
                                     const char *params[API_MAX_PATH_PARAMS], char *allow,
                                     size_t allow_size);

/* The whole table, for the OpenAPI parity test and /openapi.yaml checks. */
const struct route *router_routes(size_t *count);

#endif
