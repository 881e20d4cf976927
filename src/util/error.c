#include "util/error.h"

#include <stdio.h>
#include <string.h>

#include "util/strutil.h"

int error_failv(struct error *e, enum error_code code, const char *fmt, va_list ap)
{
    if (e) {
        e->code = code;
        e->reason = NULL;
        vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    }
    return -1;
}

int error_fail(struct error *e, enum error_code code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    error_failv(e, code, fmt, ap);
    va_end(ap);
    return -1;
}

int error_fail_reason(struct error *e, enum error_code code, const char *reason, const char *fmt,
                      ...)
{
    va_list ap;
    va_start(ap, fmt);
    error_failv(e, code, fmt, ap);
    va_end(ap);
    if (e)
        e->reason = reason;
    return -1;
}

int error_nomem(struct error *e)
{
    return error_fail(e, ERR_NOMEM, "out of memory");
}

int error_prefix(struct error *e, const char *fmt, ...)
{
    if (!e)
        return -1;
    char joined[ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(joined, sizeof joined, fmt, ap);
    va_end(ap);
    size_t used = n < 0 ? 0 : (size_t)n < sizeof joined ? (size_t)n : sizeof joined - 1;
    str_copy(joined + used, sizeof joined - used, ": ");
    used += strlen(joined + used);
    str_copy(joined + used, sizeof joined - used, e->msg);
    memcpy(e->msg, joined, sizeof e->msg);
    return -1;
}

const char *error_code_name(enum error_code code)
{
    switch (code) {
    case ERR_OK: return "ok";
    case ERR_INVALID: return "invalid";
    case ERR_MALFORMED: return "malformed";
    case ERR_CORRUPT: return "corrupt";
    case ERR_UNSUPPORTED: return "unsupported";
    case ERR_CONFLICT: return "conflict";
    case ERR_NOT_FOUND: return "not_found";
    case ERR_EXPIRED: return "expired";
    case ERR_IO: return "io";
    case ERR_UNAVAILABLE: return "unavailable";
    case ERR_NOMEM: return "nomem";
    case ERR_LIMIT: return "limit";
    case ERR_INTERNAL: break;
    }
    return "internal";
}

hl_status error_status(enum error_code code)
{
    switch (code) {
    case ERR_OK: return HL_OK;
    case ERR_INVALID: return HL_ERR_VALIDATION;
    case ERR_MALFORMED: return HL_ERR_PROTOCOL;
    case ERR_CORRUPT: return HL_ERR_PROTOCOL;
    case ERR_UNSUPPORTED: return HL_ERR_NOT_IMPLEMENTED;
    case ERR_CONFLICT: return HL_ERR_CONFLICT;
    case ERR_NOT_FOUND: return HL_ERR_NOT_FOUND;
    case ERR_EXPIRED: return HL_ERR_EXPIRED;
    case ERR_IO: return HL_ERR_IO;
    case ERR_UNAVAILABLE: return HL_ERR_UNAVAILABLE;
    case ERR_NOMEM: return HL_ERR_NOMEM;
    case ERR_LIMIT: return HL_ERR_VALIDATION;
    case ERR_INTERNAL: break;
    }
    return HL_ERR_INTERNAL;
}

const char *hl_status_name(hl_status s)
{
    switch (s) {
    case HL_OK: return "ok";
    case HL_ERR_INVALID_ARGUMENT: return "invalid_argument";
    case HL_ERR_NOT_FOUND: return "not_found";
    case HL_ERR_ALREADY_EXISTS: return "already_exists";
    case HL_ERR_CONFLICT: return "conflict";
    case HL_ERR_DDL_SINCE_READ: return "ddl_since_read_snapshot";
    case HL_ERR_TABLE_RECREATED: return "table_recreated";
    case HL_ERR_TABLE_DROPPED: return "table_dropped";
    case HL_ERR_EXPIRED: return "expired";
    case HL_ERR_VALIDATION: return "validation";
    case HL_ERR_BAD_REQUEST: return "bad_request";
    case HL_ERR_UNAVAILABLE: return "unavailable";
    case HL_ERR_TIMEOUT: return "timeout";
    case HL_ERR_IO: return "io";
    case HL_ERR_PROTOCOL: return "protocol";
    case HL_ERR_NOMEM: return "out_of_memory";
    case HL_ERR_INTERNAL: return "internal";
    case HL_ERR_NOT_IMPLEMENTED: return "not_implemented";
    case HL_ERR_UNAUTHENTICATED: return "unauthenticated";
    case HL_ERR_FORBIDDEN: return "forbidden";
    case HL_ERR_CANCELLED: return "cancelled";
    }
    return "unknown";
}

/* An input failure reads as `status` when the edge gives one (HL_OK: what
 * the code means); running out of memory, I/O, an unavailable dependency
 * and bugs keep their own status whatever the edge says. */
static hl_status published_status(hl_status status, enum error_code code)
{
    switch (code) {
    case ERR_INVALID:
    case ERR_MALFORMED:
    case ERR_CORRUPT:
    case ERR_UNSUPPORTED:
    case ERR_CONFLICT:
    case ERR_NOT_FOUND:
    case ERR_EXPIRED:
    case ERR_LIMIT: return status != HL_OK ? status : error_status(code);
    default: return error_status(code);
    }
}

hl_status error_publish(struct hl_error *out, hl_status status, const struct error *e,
                        const char *fmt, ...)
{
    hl_status st = published_status(status, e->code);
    if (!out)
        return st;
    char context[ERROR_MESSAGE_MAX / 2] = "";
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(context, sizeof context, fmt, ap);
        va_end(ap);
    }
    return error_set(out, st, 0, false, e->reason ? e->reason : hl_status_name(st), "%s%s%.*s",
                     context, context[0] ? ": " : "", (int)(sizeof out->message / 2), e->msg);
}

hl_status error_setv(struct hl_error *err, hl_status status, int http, bool retryable,
                     const char *code, const char *fmt, va_list ap)
{
    if (!err)
        return status;
    memset(err, 0, sizeof *err);
    err->status = status;
    err->http_status = http;
    err->retryable = retryable;
    str_copy(err->code, sizeof err->code, code);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    return status;
}

hl_status error_set(struct hl_error *err, hl_status status, int http, bool retryable,
                    const char *code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    error_setv(err, status, http, retryable, code, fmt, ap);
    va_end(ap);
    return status;
}
