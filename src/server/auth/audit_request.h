/* The audit lines of requests (audit.h has the log itself): which routes
 * are consequential, and the one line per such request that the dispatcher
 * writes once the handler returned and the request's connection was
 * released, so any transaction has resolved and no handler can forget a
 * failure path. Reads are never audited. */
#ifndef HL_SERVER_AUTH_AUDIT_REQUEST_H
#define HL_SERVER_AUTH_AUDIT_REQUEST_H

#include <stddef.h>

#include "server/auth/audit.h"
#include "server/http/api.h"

struct server;

/* Writes the request's audit line when its route is audited: action from
 * the table, outcome from the status (audit_outcome), catalog and object
 * from the path (a create adds the body's "name"), detail per route (or
 * req->audit.detail), the error envelope on failure, and the request id. */
void audit_request(struct server *srv, const struct srv_req *req, int rc, const struct srv_res *res,
                   const struct api_error *err);

/* The request's caller as an audit actor (borrowing from req). */
struct audit_actor audit_actor_of(const struct srv_req *req);

/* The audit action of a route, or NULL. */
const char *audit_action_of(const char *method, const char *pattern);
/* The i-th audited route's pattern (and *method), NULL past the end: a
 * test checks every one is a real route. */
const char *audit_route_at(size_t i, const char **method);

#endif
