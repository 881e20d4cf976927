/* The request gate: who is calling, and whether the route lets them.
 *
 * Every routed request passes auth_gate before anything else about it is
 * looked at (its parameters, its body, its handler). The route's declared
 * access (server/http/router.h) is the whole policy:
 *  - no, malformed, unknown, revoked or expired token: 401 unauthenticated
 *    with WWW-Authenticate: Bearer;
 *  - a token scoped to another catalog on a catalog's route: 404, the same
 *    answer as for a catalog that does not exist;
 *  - a valid token with too little role: 403 forbidden with required_role.
 * Each refusal is counted (hoglake_auth_refusals_total{reason}) and
 * audited (action access_denied).
 *
 * With auth off (development only) every request acts as "anonymous" with
 * the admin role, but only requests whose Host is a loopback name are
 * answered, so a web page cannot reach the server through DNS rebinding.
 *
 * Thread-safety: auth_gate and auth_forget may be called from any thread. */
#ifndef HL_SERVER_AUTH_AUTH_H
#define HL_SERVER_AUTH_AUTH_H

#include <stdbool.h>

#include "server/http/api.h"

struct auth;

/* How long a token lookup is trusted before the store is asked again:
 * the most a revocation on another replica goes unseen here. */
enum { AUTH_CACHE_TTL_MS = 2000 };

/* NULL when memory runs out. */
struct auth *auth_new(bool enabled, bool metrics_public);
void auth_free(struct auth *a);

/* Checks the routed request (req->route and req->params set) and fills
 * req->caller. 0 to go on; -1 refused (401, 403 or 404 in err, already
 * counted and audited); -2 undecided (err holds the 503 of a token store
 * that could not be asked). */
int auth_gate(struct srv_req *req, const char *authorization, const char *host,
              struct api_error *err);

/* Whether checking a request of `route` may need the token store (a
 * database query): such requests cannot be answered on an I/O thread. */
struct route;
bool auth_may_query(const struct auth *a, const struct route *route);

/* Drops what this replica cached of token_id (after revoking it here). */
void auth_forget(struct auth *a, const char *token_id);

/* Whether a Host header value names the loopback interface: localhost,
 * 127.0.0.1, [::1], each with an optional port. */
bool auth_host_is_loopback(const char *host);
/* Whether a listen address is a loopback address (127.0.0.0/8, ::1). */
bool auth_listen_is_loopback(const char *address);

#endif
