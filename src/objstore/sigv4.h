/* AWS Signature Version 4 over HMAC-SHA256 (libcrypto), split into the
 * documented steps so each can be checked against AWS's examples:
 * canonical request -> string to sign -> signature -> Authorization.
 * Pure functions of their inputs; no clock, no I/O. Functions returning
 * int give 0, or -1 when memory runs out or libcrypto fails. */
#ifndef HL_OBJSTORE_SIGV4_H
#define HL_OBJSTORE_SIGV4_H

#include <stdbool.h>
#include <stddef.h>

#include "util/buf.h"

struct sigv4_kv {
    const char *name;
    const char *value;
};

enum { SIGV4_MAX_HEADERS = 16, SIGV4_HEX = 64 };

/* Appends s[0..n) percent-encoded the SigV4 way: A-Z a-z 0-9 - _ . ~ kept,
 * every other byte %XX (upper-case hex); '/' kept when keep_slash (paths),
 * encoded otherwise (query names and values). */
int sigv4_uri_encode(struct buf *out, const char *s, size_t n, bool keep_slash);

/* Appends the canonical query string: names and values encoded, pairs
 * sorted by encoded name then value, joined by '&', an empty value as
 * "name=". The same text goes into the URL, so curl sends what was signed. */
int sigv4_canonical_query(struct buf *out, const struct sigv4_kv *params, size_t n);

struct sigv4_request {
    const char *method;
    const char *path;  /* canonical URI: already encoded, e.g. "/bucket/a%20b" */
    const char *query; /* canonical query, "" for none */
    /* The headers to sign (host and x-amz-date among them): names in any
     * case and order, at most SIGV4_MAX_HEADERS; values are trimmed and
     * inner runs of spaces collapsed. */
    const struct sigv4_kv *headers;
    size_t n_headers;
    const char *payload_hash; /* hex SHA-256 of the body */
};

/* Appends the canonical request; signed_headers (may be NULL) gets the
 * "host;x-amz-date"-style list appended. */
int sigv4_canonical_request(struct buf *out, const struct sigv4_request *r,
                            struct buf *signed_headers);

/* Appends "AWS4-HMAC-SHA256\n<amz_date>\n<scope>\n<hex sha256 of creq>";
 * scope is "<yyyymmdd>/<region>/<service>/aws4_request". */
int sigv4_string_to_sign(struct buf *out, const char *amz_date, const char *scope,
                         const char *canonical_request);

/* The hex signature of string_to_sign under the key derived from secret,
 * date (yyyymmdd), region and service. Intermediate keys are wiped. */
int sigv4_signature(char out[SIGV4_HEX + 1], const char *secret, const char *date8,
                    const char *region, const char *service, const char *string_to_sign);

struct sigv4_credentials {
    const char *access_key;
    const char *secret_key;
    const char *region;
    const char *service; /* "s3" */
};

/* Appends the Authorization header value for r signed at amz_date
 * ("20130524T000000Z"): "AWS4-HMAC-SHA256 Credential=..., SignedHeaders=...,
 * Signature=...". The result is a credential: never log it. */
int sigv4_authorization(struct buf *out, const struct sigv4_credentials *c, const char *amz_date,
                        const struct sigv4_request *r);

#endif
