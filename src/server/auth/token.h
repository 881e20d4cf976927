/* API tokens: roles, secrets and what a token grants.
 *
 * A secret is "hlk_" and 64 hex digits of 32 random bytes. The server keeps
 * only its SHA-256 (the secret is random, so a plain hash is as good as a
 * slow one and costs a microsecond per request); digests are compared in
 * constant time. The prefix makes a leaked secret easy to recognise for
 * secret scanners and lets a malformed credential be refused without a
 * database lookup. */
#ifndef HL_SERVER_AUTH_TOKEN_H
#define HL_SERVER_AUTH_TOKEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/sha256.h"

#define TOKEN_SECRET_PREFIX "hlk_"
enum {
    TOKEN_SECRET_RANDOM_BYTES = 32,
    TOKEN_SECRET_LEN = 4 + 2 * TOKEN_SECRET_RANDOM_BYTES,
    TOKEN_ID_LEN = 36, /* a UUID */
    TOKEN_NAME_MAX = 128,
    TOKEN_CATALOG_MAX = 63,
};

/* Ordered: each role can do everything the ones below it can. */
enum auth_role { ROLE_NONE = 0, ROLE_READER, ROLE_WRITER, ROLE_OWNER, ROLE_ADMIN };

/* "reader", "writer", "owner", "admin" ("none" for ROLE_NONE). */
const char *role_name(enum auth_role role);
/* The role named s, or ROLE_NONE. */
enum auth_role role_parse(const char *s);

/* What a token grants, as the store holds it. */
struct token_grant {
    char token_id[TOKEN_ID_LEN + 1];
    char name[TOKEN_NAME_MAX + 1];
    enum auth_role role;
    int64_t catalog_id;                  /* 0: every catalog */
    char catalog[TOKEN_CATALOG_MAX + 1]; /* catalog_id's name, "" for every catalog */
    int64_t expires_us;                  /* 0: never */
    bool revoked;
};

/* A new secret into out. 0, or -1 when the system has no randomness to
 * give (getrandom failed): never a weak secret. */
int token_secret_new(char out[TOKEN_SECRET_LEN + 1]);
/* Whether s[0..n) has a secret's shape (prefix, 64 lower-case hex digits). */
bool token_secret_wellformed(const char *s, size_t n);
/* The digest the store keys a secret by. 0, or -1 when libcrypto failed. */
int token_secret_hash(const char *s, size_t n, uint8_t out[SHA256_BYTES]);
/* Equality of two digests in time independent of where they differ. */
bool token_digest_equal(const uint8_t a[SHA256_BYTES], const uint8_t b[SHA256_BYTES]);

/* The credential of an Authorization header value: "Bearer" (any case),
 * one or more spaces, then the credential up to the end (trailing spaces
 * dropped). Returns a pointer into header with *len, or NULL when the
 * header is not a bearer credential. */
const char *token_bearer(const char *header, size_t *len);

#endif
