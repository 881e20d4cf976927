/* The one internal error type, and filling the public record from it.
 *
 * Every module below the public edge fails the same way (nanoarrow's
 * ArrowError, with a code): a function returns -1 (or NULL) and fills a
 * caller-owned struct error with what kind of failure it was, an optional
 * static typed reason the API answers with ("idless_files_present"), and a
 * message. Nothing allocates on the error path. The public edge (libhoglake,
 * the exporter) turns a struct error into a struct hl_error; the server
 * turns it into an HTTP answer where the response is written. */
#ifndef HL_UTIL_ERROR_H
#define HL_UTIL_ERROR_H

#include <stdarg.h>
#include <stdbool.h>

#include "hoglake/error.h"

enum error_code {
    ERR_OK = 0,
    ERR_INVALID,     /* the caller's input is wrong: a value, a schema, an argument */
    ERR_MALFORMED,   /* the caller's input is not well formed (JSON shape, grammar) */
    ERR_CORRUPT,     /* stored bytes that do not add up (a Parquet or Avro file) */
    ERR_UNSUPPORTED, /* valid, but uses something this code does not implement */
    ERR_CONFLICT,    /* the state forbids it now; the reason says which state */
    ERR_NOT_FOUND,
    ERR_EXPIRED,     /* it existed, but is past retention: re-read, never replay */
    ERR_IO,          /* a read, write or transfer failed */
    ERR_UNAVAILABLE, /* a dependency is down or busy: retrying may succeed */
    ERR_NOMEM,
    ERR_LIMIT,    /* a size or count limit was reached */
    ERR_INTERNAL, /* a bug, or a failure with nothing the caller can do */
};

enum { ERROR_MESSAGE_MAX = 1024 };

struct error {
    enum error_code code;
    const char *reason; /* static typed reason, or NULL for the code's default */
    char msg[ERROR_MESSAGE_MAX];
};

/* Fills e (when not NULL) and returns -1, so callers `return error_fail(...)`. */
int error_fail(struct error *e, enum error_code code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int error_failv(struct error *e, enum error_code code, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
/* error_fail with a typed reason (a static string). */
int error_fail_reason(struct error *e, enum error_code code, const char *reason, const char *fmt,
                      ...) __attribute__((format(printf, 4, 5)));
int error_nomem(struct error *e);
/* Puts "<context>: " in front of e's message (what the failing step was
 * doing, added by a caller that knows it). Returns -1. */
int error_prefix(struct error *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "invalid", "malformed", "corrupt", ..., "limit" ("ok" for ERR_OK). */
const char *error_code_name(enum error_code code);

/* The public status a code means when the edge has nothing more specific
 * to say: INVALID -> VALIDATION, MALFORMED and CORRUPT -> PROTOCOL (what a
 * peer or a stored file said cannot be parsed), UNSUPPORTED ->
 * NOT_IMPLEMENTED, LIMIT -> VALIDATION, ... */
hl_status error_status(enum error_code code);

/* The public edge: fills out from e, prefixed with the formatted context
 * (fmt NULL: none). `status` says how a failure of the input (INVALID,
 * MALFORMED, CORRUPT, UNSUPPORTED, CONFLICT, NOT_FOUND, LIMIT) reads to this
 * edge's callers (HL_OK: error_status); out of memory, I/O, an
 * unavailable dependency and bugs keep their own. The public code is e's
 * reason, else the status's name. Returns the status. */
hl_status error_publish(struct hl_error *out, hl_status status, const struct error *e,
                        const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Clears *err (when not NULL) and sets its status, HTTP status (0: no
 * answer), retry advice, code and formatted message; returns status. */
hl_status error_setv(struct hl_error *err, hl_status status, int http, bool retryable,
                     const char *code, const char *fmt, va_list ap)
    __attribute__((format(printf, 6, 0)));
hl_status error_set(struct hl_error *err, hl_status status, int http, bool retryable,
                    const char *code, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

#endif
