#include "objstore/errors.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/strutil.h"
#include "util/error.h"

int os_fail(struct hl_error *err, hl_status status, int http, bool retryable, const char *code,
            const char *fmt, ...)
{
    if (!err)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    error_setv(err, status, http, retryable, code, fmt, ap);
    va_end(ap);
    /* Peer text may carry anything: keep the message printable. */
    for (char *p = err->message; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = ' ';
    return -1;
}

int os_nomem(struct hl_error *err)
{
    return os_fail(err, HL_ERR_NOMEM, 0, false, "out_of_memory", "out of memory");
}

void os_redact_str(char *s, size_t cap, const char *secret)
{
    size_t n = secret ? strlen(secret) : 0;
    if (!s || cap == 0 || n < 4 || !strstr(s, secret))
        return;
    char out[HL_ERROR_MESSAGE_MAX * 4];
    if (cap > sizeof out)
        cap = sizeof out;
    size_t j = 0;
    for (const char *p = s; *p && j + 1 < cap;) {
        if (strncmp(p, secret, n) == 0) {
            j += (size_t)snprintf(out + j, cap - j, "[redacted]");
            if (j >= cap)
                j = cap - 1;
            p += n;
        } else {
            out[j++] = *p++;
        }
    }
    out[j] = '\0';
    memcpy(s, out, j + 1);
}

void os_redact(struct hl_error *err, const char *secret)
{
    if (err)
        os_redact_str(err->message, sizeof err->message, secret);
}
