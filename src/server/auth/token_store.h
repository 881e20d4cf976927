/* The SQL of hog_token: every statement that reads or writes tokens.
 *
 * Functions run on a connection the caller holds (a request's, or one the
 * bootstrap took from the pool) and fail with a db_err; none opens or ends
 * a transaction unless it says so. */
#ifndef HL_SERVER_AUTH_TOKEN_STORE_H
#define HL_SERVER_AUTH_TOKEN_STORE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "server/auth/token.h"

struct db_conn;
struct error;

/* The token whose secret hashes to digest, revoked and expired ones
 * included (the caller tells them apart): 0 with *found, or -1. */
int token_store_lookup(struct db_conn *c, const uint8_t digest[SHA256_BYTES],
                       struct token_grant *out, bool *found, struct error *err);

struct token_new {
    const char *name;
    enum auth_role role;
    int64_t catalog_id;         /* 0: every catalog */
    int64_t expires_in_seconds; /* 0: never */
    const char *created_by;     /* the creating token's id; NULL: the server */
};
/* Inserts a token keyed by digest. Returns the Token object (without the
 * secret; new reference) or NULL with err filled. */
json_t *token_store_insert(struct db_conn *c, const struct token_new *t,
                           const uint8_t digest[SHA256_BYTES], struct error *err);
/* Every token, newest first, as Token objects (new reference). */
json_t *token_store_list(struct db_conn *c, struct error *err);
/* Revokes token_id (a revoked token stays listed). 0 with *found (false:
 * no such token; revoking twice is not an error), or -1. */
int token_store_revoke(struct db_conn *c, const char *token_id, bool *found, struct error *err);
/* Whether a live (unrevoked, unexpired) admin token exists: 0 or -1. */
int token_store_has_live_admin(struct db_conn *c, bool *exists, struct error *err);

#endif
