/* hoglake status codes and the caller-owned error record.
 *
 * Every libhoglake function returns an hl_status: HL_OK (0) on success, a
 * negative code otherwise, one per thing a caller can act on. Detail goes
 * into a caller-owned struct hl_error; the library never allocates on the
 * error path and keeps no global error state, so the functions are safe to
 * call from many threads with separate error records. */
#ifndef HOGLAKE_ERROR_H
#define HOGLAKE_ERROR_H

#include <stdbool.h>

/* What the shared library exports: the hl_ API and nothing else. */
#if defined(__GNUC__)
#define HL_API __attribute__((visibility("default")))
#else
#define HL_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef enum hl_status {
    HL_OK = 0,
    HL_ERR_INVALID_ARGUMENT = -1, /* the caller passed something unusable */
    HL_ERR_NOT_FOUND = -2,        /* 404 not_found */
    HL_ERR_ALREADY_EXISTS = -3,   /* 409 already_exists */
    HL_ERR_CONFLICT = -4,         /* 409 commit_conflict and other 409s: refresh, retry */
    HL_ERR_DDL_SINCE_READ = -5,   /* 409 ddl_since_read_snapshot: re-prepare */
    HL_ERR_TABLE_RECREATED = -6,  /* 409 table_recreated: re-prepare */
    HL_ERR_TABLE_DROPPED = -7,    /* 409 table_dropped */
    HL_ERR_EXPIRED = -8,          /* 410 expired: re-read, never replay */
    HL_ERR_VALIDATION = -9,       /* 422 validation */
    HL_ERR_BAD_REQUEST = -10,     /* 400 bad_request */
    HL_ERR_UNAVAILABLE =
        -11,               /* 503 (commit_queue_timeout, probe failure): retry the same request */
    HL_ERR_TIMEOUT = -12,  /* no answer in time; the outcome is unknown */
    HL_ERR_IO = -13,       /* transport or storage failure */
    HL_ERR_PROTOCOL = -14, /* the peer answered something we cannot parse */
    HL_ERR_NOMEM = -15,
    HL_ERR_INTERNAL = -16,        /* 5xx from the server, or a bug */
    HL_ERR_NOT_IMPLEMENTED = -17, /* 501 not_implemented */
    HL_ERR_UNAUTHENTICATED = -18, /* 401: no token, or one that is unknown, revoked or expired */
    HL_ERR_FORBIDDEN = -19,       /* 403: the token's role does not allow the request */
    HL_ERR_CANCELLED = -20,       /* the caller's cancel callback stopped the call */
} hl_status;

enum { HL_ERROR_CODE_MAX = 48, HL_ERROR_MESSAGE_MAX = 1024 };

/* Filled by a failing call. `code` is the server's typed error code when
 * there was one ("commit_conflict"), else a short local code. */
struct hl_error {
    hl_status status;
    int http_status; /* 0 when no HTTP answer was received */
    bool retryable;  /* replaying the identical request may succeed */
    bool re_prepare; /* the payload must be rebuilt before any retry */
    char code[HL_ERROR_CODE_MAX];
    char message[HL_ERROR_MESSAGE_MAX];
};

/* A static, human-readable name for a status ("not_found"). Never NULL. */
HL_API const char *hl_status_name(hl_status status);

#ifdef __cplusplus
}
#endif

#endif
