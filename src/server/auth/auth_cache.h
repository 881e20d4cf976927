/* A small cache of token lookups, keyed by the secret's digest, so a
 * request with a known token costs a hash and a mutex instead of a
 * database round trip.
 *
 * Entries live `ttl_ns`: that bounds how long a revocation made on another
 * replica goes unseen here (the store is the only place replicas share).
 * Unknown digests are cached too, so a client sending garbage tokens
 * cannot turn every request into a query. The cache is direct-mapped with a
 * fixed number of slots: its memory is bounded whatever callers send, and a
 * collision only costs a lookup.
 *
 * Thread-safety: every function may be called from any thread. */
#ifndef HL_SERVER_AUTH_AUTH_CACHE_H
#define HL_SERVER_AUTH_AUTH_CACHE_H

#include <stdint.h>

#include "server/auth/token.h"

struct auth_cache;

enum auth_cache_hit {
    AUTH_CACHE_MISS,    /* nothing fresh: ask the store */
    AUTH_CACHE_GRANT,   /* *out holds the token's grant */
    AUTH_CACHE_UNKNOWN, /* the store had no such token a moment ago */
};

/* NULL when memory runs out. */
struct auth_cache *auth_cache_new(int64_t ttl_ns);
void auth_cache_free(struct auth_cache *c);

enum auth_cache_hit auth_cache_get(struct auth_cache *c, const uint8_t digest[SHA256_BYTES],
                                   int64_t now_ns, struct token_grant *out);
/* Remembers the store's answer for digest: grant NULL for "no such token". */
void auth_cache_put(struct auth_cache *c, const uint8_t digest[SHA256_BYTES],
                    const struct token_grant *grant, int64_t now_ns);
/* Drops every entry of token_id (a revocation made by this replica takes
 * effect here at once). */
void auth_cache_forget(struct auth_cache *c, const char *token_id);

#endif
