#include "objstore/sigv4.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/sha256.h"

static const char HEX_UPPER[] = "0123456789ABCDEF";
static const char HEX_LOWER[] = "0123456789abcdef";

static bool unreserved(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_' || c == '.' || c == '~';
}

int sigv4_uri_encode(struct buf *out, const char *s, size_t n, bool keep_slash)
{
    if (buf_reserve(out, n * 3) != 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (unreserved(c) || (keep_slash && c == '/')) {
            out->data[out->len++] = (char)c;
        } else {
            out->data[out->len++] = '%';
            out->data[out->len++] = HEX_UPPER[c >> 4];
            out->data[out->len++] = HEX_UPPER[c & 15];
        }
    }
    out->data[out->len] = '\0';
    return 0;
}

struct encoded_pair {
    char *name;
    char *value;
};

static int cmp_pair(const void *a, const void *b)
{
    const struct encoded_pair *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : strcmp(x->value, y->value);
}

static char *encode_dup(const char *s)
{
    struct buf b = BUF_INIT;
    if (sigv4_uri_encode(&b, s, strlen(s), false) != 0 || buf_putc(&b, '\0') != 0) {
        buf_free(&b);
        return NULL;
    }
    return buf_take(&b);
}

int sigv4_canonical_query(struct buf *out, const struct sigv4_kv *params, size_t n)
{
    if (n == 0)
        return 0;
    struct encoded_pair *p = calloc(n, sizeof *p);
    if (!p)
        return -1;
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        p[i].name = encode_dup(params[i].name);
        p[i].value = encode_dup(params[i].value ? params[i].value : "");
        if (!p[i].name || !p[i].value)
            rc = -1;
    }
    if (rc == 0) {
        qsort(p, n, sizeof *p, cmp_pair);
        for (size_t i = 0; i < n && rc == 0; i++)
            rc = buf_printf(out, "%s%s=%s", i ? "&" : "", p[i].name, p[i].value);
    }
    for (size_t i = 0; i < n; i++) {
        free(p[i].name);
        free(p[i].value);
    }
    free(p);
    return rc;
}

struct lower_header {
    char name[64];
    const char *value;
};

static int cmp_header(const void *a, const void *b)
{
    return strcmp(((const struct lower_header *)a)->name, ((const struct lower_header *)b)->name);
}

/* Value with leading/trailing blanks trimmed and inner runs collapsed. */
static int put_header_value(struct buf *out, const char *v)
{
    while (*v == ' ' || *v == '\t')
        v++;
    bool pending_space = false;
    for (; *v; v++) {
        if (*v == ' ' || *v == '\t') {
            pending_space = true;
            continue;
        }
        if (pending_space && buf_putc(out, ' ') != 0)
            return -1;
        pending_space = false;
        if (buf_putc(out, *v) != 0)
            return -1;
    }
    return 0;
}

int sigv4_canonical_request(struct buf *out, const struct sigv4_request *r,
                            struct buf *signed_headers)
{
    if (r->n_headers > SIGV4_MAX_HEADERS)
        return -1;
    struct lower_header h[SIGV4_MAX_HEADERS];
    for (size_t i = 0; i < r->n_headers; i++) {
        size_t len = strlen(r->headers[i].name);
        if (len >= sizeof h[i].name)
            return -1;
        for (size_t j = 0; j <= len; j++) {
            char c = r->headers[i].name[j];
            h[i].name[j] = (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
        }
        h[i].value = r->headers[i].value;
    }
    qsort(h, r->n_headers, sizeof h[0], cmp_header);
    if (buf_printf(out, "%s\n%s\n%s\n", r->method, r->path, r->query) != 0)
        return -1;
    struct buf names = BUF_INIT;
    int rc = 0;
    for (size_t i = 0; i < r->n_headers && rc == 0; i++) {
        rc = buf_printf(out, "%s:", h[i].name);
        if (rc == 0)
            rc = put_header_value(out, h[i].value);
        if (rc == 0)
            rc = buf_putc(out, '\n');
        if (rc == 0)
            rc = buf_printf(&names, "%s%s", i ? ";" : "", h[i].name);
    }
    if (rc == 0)
        rc = buf_printf(out, "\n%s\n%s", names.data ? names.data : "", r->payload_hash);
    if (rc == 0 && signed_headers)
        rc = buf_puts(signed_headers, names.data ? names.data : "");
    buf_free(&names);
    return rc;
}

int sigv4_string_to_sign(struct buf *out, const char *amz_date, const char *scope,
                         const char *canonical_request)
{
    char hash[SHA256_HEX_CHARS + 1];
    if (sha256_hex(canonical_request, strlen(canonical_request), hash) != 0)
        return -1;
    return buf_printf(out, "AWS4-HMAC-SHA256\n%s\n%s\n%s", amz_date, scope, hash);
}

static int hmac(const uint8_t *key, size_t key_len, const char *msg, uint8_t out[32])
{
    unsigned int n = 0;
    return HMAC(EVP_sha256(), key, (int)key_len, (const unsigned char *)msg, strlen(msg), out,
                &n) &&
                   n == 32
               ? 0
               : -1;
}

int sigv4_signature(char out[SIGV4_HEX + 1], const char *secret, const char *date8,
                    const char *region, const char *service, const char *string_to_sign)
{
    /* kSecret = "AWS4" + secret; then date, region, service, "aws4_request". */
    size_t slen = strlen(secret);
    uint8_t *k0 = malloc(slen + 4);
    if (!k0)
        return -1;
    memcpy(k0, "AWS4", 4);
    memcpy(k0 + 4, secret, slen);
    uint8_t a[32], b[32];
    int rc = hmac(k0, slen + 4, date8, a);
    OPENSSL_cleanse(k0, slen + 4);
    free(k0);
    if (rc == 0)
        rc = hmac(a, 32, region, b);
    if (rc == 0)
        rc = hmac(b, 32, service, a);
    if (rc == 0)
        rc = hmac(a, 32, "aws4_request", b);
    if (rc == 0)
        rc = hmac(b, 32, string_to_sign, a);
    if (rc == 0) {
        for (int i = 0; i < 32; i++) {
            out[2 * i] = HEX_LOWER[a[i] >> 4];
            out[2 * i + 1] = HEX_LOWER[a[i] & 15];
        }
        out[SIGV4_HEX] = '\0';
    }
    OPENSSL_cleanse(a, sizeof a);
    OPENSSL_cleanse(b, sizeof b);
    return rc;
}

int sigv4_authorization(struct buf *out, const struct sigv4_credentials *c, const char *amz_date,
                        const struct sigv4_request *r)
{
    char date8[9];
    if (strlen(amz_date) < 8)
        return -1;
    memcpy(date8, amz_date, 8);
    date8[8] = '\0';
    struct buf creq = BUF_INIT, names = BUF_INIT, scope = BUF_INIT, sts = BUF_INIT;
    char sig[SIGV4_HEX + 1];
    int rc = sigv4_canonical_request(&creq, r, &names);
    if (rc == 0)
        rc = buf_printf(&scope, "%s/%s/%s/aws4_request", date8, c->region, c->service);
    if (rc == 0)
        rc = sigv4_string_to_sign(&sts, amz_date, scope.data, creq.data);
    if (rc == 0)
        rc = sigv4_signature(sig, c->secret_key, date8, c->region, c->service, sts.data);
    if (rc == 0)
        rc = buf_printf(out, "AWS4-HMAC-SHA256 Credential=%s/%s, SignedHeaders=%s, Signature=%s",
                        c->access_key, scope.data, names.data ? names.data : "", sig);
    OPENSSL_cleanse(sig, sizeof sig);
    buf_free(&creq);
    buf_free(&names);
    buf_free(&scope);
    buf_free(&sts);
    return rc;
}
