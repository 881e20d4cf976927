#include "server/auth/auth_cache.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Enough for every token a deployment has in use; a power of two. */
enum { AUTH_CACHE_SLOTS = 1024 };

struct slot {
    bool used;
    bool known; /* grant is meaningful */
    uint8_t digest[SHA256_BYTES];
    int64_t stored_ns;
    struct token_grant grant;
};

struct auth_cache {
    pthread_mutex_t mu;
    int64_t ttl_ns;
    struct slot slots[AUTH_CACHE_SLOTS];
};

struct auth_cache *auth_cache_new(int64_t ttl_ns)
{
    struct auth_cache *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    pthread_mutex_init(&c->mu, NULL);
    c->ttl_ns = ttl_ns;
    return c;
}

void auth_cache_free(struct auth_cache *c)
{
    if (!c)
        return;
    pthread_mutex_destroy(&c->mu);
    explicit_bzero(c->slots, sizeof c->slots);
    free(c);
}

/* The digest is uniformly random: any of its bytes index well. */
static struct slot *slot_of(struct auth_cache *c, const uint8_t digest[SHA256_BYTES])
{
    unsigned i = ((unsigned)digest[0] << 8 | digest[1]) & (AUTH_CACHE_SLOTS - 1);
    return &c->slots[i];
}

enum auth_cache_hit auth_cache_get(struct auth_cache *c, const uint8_t digest[SHA256_BYTES],
                                   int64_t now_ns, struct token_grant *out)
{
    enum auth_cache_hit hit = AUTH_CACHE_MISS;
    pthread_mutex_lock(&c->mu);
    struct slot *s = slot_of(c, digest);
    if (s->used && now_ns - s->stored_ns < c->ttl_ns && now_ns >= s->stored_ns &&
        token_digest_equal(s->digest, digest)) {
        hit = s->known ? AUTH_CACHE_GRANT : AUTH_CACHE_UNKNOWN;
        if (s->known)
            *out = s->grant;
    }
    pthread_mutex_unlock(&c->mu);
    return hit;
}

void auth_cache_put(struct auth_cache *c, const uint8_t digest[SHA256_BYTES],
                    const struct token_grant *grant, int64_t now_ns)
{
    pthread_mutex_lock(&c->mu);
    struct slot *s = slot_of(c, digest);
    memset(s, 0, sizeof *s);
    s->used = true;
    s->known = grant != NULL;
    memcpy(s->digest, digest, SHA256_BYTES);
    s->stored_ns = now_ns;
    if (grant)
        s->grant = *grant;
    pthread_mutex_unlock(&c->mu);
}

void auth_cache_forget(struct auth_cache *c, const char *token_id)
{
    pthread_mutex_lock(&c->mu);
    for (size_t i = 0; i < AUTH_CACHE_SLOTS; i++)
        if (c->slots[i].used && c->slots[i].known &&
            strcmp(c->slots[i].grant.token_id, token_id) == 0)
            memset(&c->slots[i], 0, sizeof c->slots[i]);
    pthread_mutex_unlock(&c->mu);
}
