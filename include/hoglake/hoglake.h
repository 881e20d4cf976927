/* libhoglake: the C client of a hoglake catalog server.
 *
 * This header is the library's public API. Every function returns an
 * hl_status (include/hoglake/error.h) and, on failure, fills a caller-owned
 * struct hl_error; nothing is allocated on the error path.
 *
 * Thread-safety: an hl_client may be shared by threads; each call uses its
 * own connection state. Strings returned to the caller are malloc'd and
 * owned by the caller (free()). */
#ifndef HOGLAKE_H
#define HOGLAKE_H

#include <stddef.h>

#include "hoglake/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hl_client hl_client;

struct hl_client_options {
    const char *server_url;  /* "http://127.0.0.1:8080"; required */
    long timeout_ms;         /* whole-request timeout; 0 = 60000 */
    long connect_timeout_ms; /* 0 = 10000 */
};

/* Creates a client. The options are copied. */
hl_status hl_client_new(const struct hl_client_options *options, hl_client **out,
                        struct hl_error *err);
void hl_client_free(hl_client *client);

/* The raw JSON interface: sends `json_body` (NULL for none) to `path`
 * (e.g. "/v1/catalogs", query string included, already URL-encoded) and
 * returns the response body of a 2xx answer in *response (caller frees; may
 * be NULL when the caller does not want it). A non-2xx answer becomes the
 * matching hl_status, with the server's error code, detail and retry
 * advice in err. */
hl_status hl_client_request(hl_client *client, const char *method, const char *path,
                            const char *json_body, char **response, struct hl_error *err);

/* Percent-encodes a path segment or query value into out (RFC 3986
 * unreserved characters are kept). Returns the length written, or 0 when
 * out is too small. */
size_t hl_url_encode(const char *in, char *out, size_t out_size);

#ifdef __cplusplus
}
#endif

#endif
