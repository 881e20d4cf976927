/* Filling struct hl_error inside the object store. */
#ifndef HL_OBJSTORE_ERRORS_H
#define HL_OBJSTORE_ERRORS_H

#include <stdbool.h>
#include <stddef.h>

#include "hoglake/error.h"

/* Fills *err (when not NULL) and returns -1, so a failing path can
 * `return os_fail(...)`. `code` is a short local code or the S3 error
 * code; `http` 0 when there was no HTTP answer. */
int os_fail(struct hl_error *err, hl_status status, int http, bool retryable, const char *code,
            const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* Out of memory, the common case. */
int os_nomem(struct hl_error *err);

/* Replaces every occurrence of `secret` (when at least 4 bytes long) in
 * err->message with "[redacted]": a last guard so that a peer echoing a
 * credential back can never put it into a message. */
void os_redact(struct hl_error *err, const char *secret);
/* The same on any string in a buffer of cap bytes (at most 4096 are kept). */
void os_redact_str(char *s, size_t cap, const char *secret);

#endif
