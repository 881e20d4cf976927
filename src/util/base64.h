/* Standard base64 (RFC 4648 alphabet, '=' padding), appended to a buffer. */
#ifndef HL_UTIL_BASE64_H
#define HL_UTIL_BASE64_H

#include <stddef.h>

#include "util/buf.h"

/* Appends the padded encoding of data[0..len). 0, or -1 when memory runs
 * out (out keeps its previous contents). */
int base64_encode(struct buf *out, const void *data, size_t len);

/* Decodes s[0..n) (padded, canonical: the unused bits of the last group must
 * be zero; no whitespace) and appends the bytes. NULL on success, else a
 * static sentence saying what is wrong; out may then hold a partial tail. */
const char *base64_decode(const char *s, size_t n, struct buf *out);

#endif
