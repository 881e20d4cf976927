/* The store of API tokens: owns hog_token (and reads hog_catalog for a
 * token's scope name). Every statement that reads or writes tokens, plus
 * the instance-wide lock the first admin's bootstrap takes.
 *
 * Functions run on a connection the caller holds (a request's, or one the
 * bootstrap took from the pool) and fail with a struct error; none opens
 * or ends a transaction. */
#ifndef HL_SERVER_STORE_TOKENS_H
#define HL_SERVER_STORE_TOKENS_H

#include <libpq-fe.h>
#include <stdbool.h>
#include <stdint.h>

#include "server/auth/token.h"

struct db_conn;
struct error;

/* The grant of the token whose secret hashes to digest, revoked and
 * expired ones included (the caller tells them apart): 1 found, 0 no such
 * token, -1. */
int store_token_lookup(struct db_conn *c, const uint8_t digest[SHA256_BYTES],
                       struct token_grant *out, struct error *err);

struct store_token_new {
    const char *name;
    enum auth_role role;
    int64_t catalog_id;         /* 0: every catalog */
    int64_t expires_in_seconds; /* 0: never */
    const char *created_by;     /* the creating token's id; NULL: the server */
};

/* Token rows as the API shows them (no secret), over the query's result. */
struct store_token_rows {
    PGresult *r;
};
enum store_token_time { STORE_TOKEN_CREATED, STORE_TOKEN_EXPIRES, STORE_TOKEN_REVOKED };
int store_token_rows_count(const struct store_token_rows *v);
const char *store_token_rows_id(const struct store_token_rows *v, int i);
const char *store_token_rows_name(const struct store_token_rows *v, int i);
const char *store_token_rows_role(const struct store_token_rows *v, int i);
/* The scope's catalog name; NULL for a token of every catalog. */
const char *store_token_rows_catalog(const struct store_token_rows *v, int i);
/* Whether the row has that time (expiry and revocation may be absent);
 * *us the time in microseconds since the epoch. */
bool store_token_rows_time(const struct store_token_rows *v, int i, enum store_token_time which,
                           int64_t *us);
/* The creating token's id; NULL when the server created it. */
const char *store_token_rows_created_by(const struct store_token_rows *v, int i);
void store_token_rows_free(struct store_token_rows *v);

/* Inserts a token keyed by digest; *out the new row (one). 0 or -1. */
int store_token_insert(struct db_conn *c, const struct store_token_new *t,
                       const uint8_t digest[SHA256_BYTES], struct store_token_rows *out,
                       struct error *err);
/* Every token, newest first. 0 or -1. */
int store_token_list(struct db_conn *c, struct store_token_rows *out, struct error *err);
/* Revokes token_id (a revoked token stays listed; revoking twice is not an
 * error): 1 done, 0 no such token, -1. */
int store_token_revoke(struct db_conn *c, const char *token_id, struct error *err);
/* Whether a live (unrevoked, unexpired) admin token exists: 1, 0, or -1. */
int store_token_has_live_admin(struct db_conn *c, struct error *err);

/* The bootstrap's instance-wide transaction lock, so that replicas
 * starting together create one first admin. Inside a transaction. */
int store_token_lock_bootstrap(struct db_conn *c, struct error *err);
/* Revokes the live admin tokens the server created (a bootstrap reset). */
int store_token_revoke_bootstrap_admins(struct db_conn *c, struct error *err);

#endif
