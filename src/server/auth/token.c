#include "server/auth/token.h"

#include <string.h>
#include <strings.h>

#include "util/random.h"
#include "util/strutil.h"

static const char *const role_names[] = {"none", "reader", "writer", "owner", "admin"};

const char *role_name(enum auth_role role)
{
    return (unsigned)role <= ROLE_ADMIN ? role_names[role] : "none";
}

enum auth_role role_parse(const char *s)
{
    for (int r = ROLE_READER; r <= ROLE_ADMIN; r++)
        if (s && strcmp(s, role_names[r]) == 0)
            return (enum auth_role)r;
    return ROLE_NONE;
}

int token_secret_new(char out[TOKEN_SECRET_LEN + 1])
{
    uint8_t bytes[TOKEN_SECRET_RANDOM_BYTES];
    if (random_bytes(bytes, sizeof bytes) != 0)
        return -1;
    memcpy(out, TOKEN_SECRET_PREFIX, 4);
    str_hex_encode(bytes, sizeof bytes, out + 4);
    explicit_bzero(bytes, sizeof bytes);
    return 0;
}

bool token_secret_wellformed(const char *s, size_t n)
{
    if (n != TOKEN_SECRET_LEN || memcmp(s, TOKEN_SECRET_PREFIX, 4) != 0)
        return false;
    for (size_t i = 4; i < n; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return false;
    return true;
}

int token_secret_hash(const char *s, size_t n, uint8_t out[SHA256_BYTES])
{
    return sha256(s, n, out);
}

bool token_digest_equal(const uint8_t a[SHA256_BYTES], const uint8_t b[SHA256_BYTES])
{
    volatile uint8_t diff = 0;
    for (size_t i = 0; i < SHA256_BYTES; i++)
        diff |= (uint8_t)(a[i] ^ b[i]);
    return diff == 0;
}

const char *token_bearer(const char *header, size_t *len)
{
    if (!header || strncasecmp(header, "Bearer", 6) != 0 || header[6] != ' ')
        return NULL;
    const char *p = header + 6;
    while (*p == ' ')
        p++;
    size_t n = strlen(p);
    while (n > 0 && p[n - 1] == ' ')
        n--;
    if (n == 0)
        return NULL;
    *len = n;
    return p;
}
