#include "util/sha256.h"

#include <openssl/evp.h>

int sha256(const void *data, size_t len, uint8_t out[SHA256_BYTES])
{
    unsigned int n = 0;
    return EVP_Digest(data, len, out, &n, EVP_sha256(), NULL) == 1 && n == SHA256_BYTES ? 0 : -1;
}

int sha256_hex(const void *data, size_t len, char out[SHA256_HEX_CHARS + 1])
{
    static const char hex[] = "0123456789abcdef";
    uint8_t d[SHA256_BYTES];
    if (sha256(data, len, d) != 0)
        return -1;
    for (int i = 0; i < SHA256_BYTES; i++) {
        out[2 * i] = hex[d[i] >> 4];
        out[2 * i + 1] = hex[d[i] & 15];
    }
    out[SHA256_HEX_CHARS] = '\0';
    return 0;
}
