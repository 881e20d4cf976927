#include "util/sha256.h"

#include <openssl/evp.h>
#include <pthread.h>

#include "util/strutil.h"

/* OpenSSL 3 looks an algorithm up by name on every EVP_Digest given
 * EVP_sha256(); that lookup is half the cost of hashing a short string, and
 * every request hashes (its bearer token, SigV4 payloads). Fetched once. */
static pthread_once_t fetch_once = PTHREAD_ONCE_INIT;
static EVP_MD *fetched;

static void fetch_sha256(void)
{
    fetched = EVP_MD_fetch(NULL, "SHA256", NULL);
}

int sha256(const void *data, size_t len, uint8_t out[SHA256_BYTES])
{
    pthread_once(&fetch_once, fetch_sha256);
    const EVP_MD *md = fetched ? fetched : EVP_sha256();
    unsigned int n = 0;
    return EVP_Digest(data, len, out, &n, md, NULL) == 1 && n == SHA256_BYTES ? 0 : -1;
}

int sha256_hex(const void *data, size_t len, char out[SHA256_HEX_CHARS + 1])
{
    uint8_t d[SHA256_BYTES];
    if (sha256(data, len, d) != 0)
        return -1;
    str_hex_encode(d, SHA256_BYTES, out);
    return 0;
}
