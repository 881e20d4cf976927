/* SHA-256 through libcrypto. */
#ifndef HL_UTIL_SHA256_H
#define HL_UTIL_SHA256_H

#include <stddef.h>
#include <stdint.h>

enum { SHA256_BYTES = 32, SHA256_HEX_CHARS = 64 };

/* Returns 0, or -1 if libcrypto failed. */
int sha256(const void *data, size_t len, uint8_t out[SHA256_BYTES]);
/* Lower-case hex of the digest into out (65 bytes with the terminator). */
int sha256_hex(const void *data, size_t len, char out[SHA256_HEX_CHARS + 1]);

#endif
