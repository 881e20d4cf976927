/* The route table: every path hoglaked serves, its method and handler. */
#ifndef HL_SERVER_HTTP_ROUTER_H
#define HL_SERVER_HTTP_ROUTER_H

#include <stdbool.h>
#include <stddef.h>

#include "server/http/api.h"

enum route_flags {
    ROUTE_INLINE = 1,     /* cheap and database-free: answered on the I/O thread */
    ROUTE_NO_SHED = 2,    /* probes: never shed for queueing time */
    ROUTE_LARGE_BODY = 4, /* commits, view creates (1 MiB of SQL): up to --max-body-bytes */
};

/* Who may call a route. auth_gate (server/auth/auth.h) checks it in one place, before
 * anything else about the request is looked at. A role policy on a path
 * under /v1/catalogs/{catalog} applies to that catalog: a token scoped to
 * another catalog is answered 404, as if the catalog did not exist. */
enum route_access {
    ACCESS_UNDECLARED = 0, /* no policy: router_check refuses the table */
    ACCESS_PUBLIC,         /* anyone, without a token (probes) */
    ACCESS_ANY,            /* any valid token */
    ACCESS_METRICS,        /* any token for every catalog; public with --metrics-public */
    ACCESS_READER,
    ACCESS_WRITER,
    ACCESS_OWNER,
    ACCESS_ADMIN,
};

struct route {
    const char *method;
    const char *pattern; /* "/v1/catalogs/{catalog}"; also the metrics label */
    enum route_access access;
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

/* Whether every route declares its access policy. On false, *bad names the
 * first that does not (hoglaked refuses to start; a unit test fails). */
bool router_check(const struct route **bad);

/* Whether the route's path starts with the {catalog} parameter, so that
 * params[0] names the catalog it acts on. */
bool route_in_catalog(const struct route *r);

#endif
