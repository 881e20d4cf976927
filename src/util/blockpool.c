#include "util/blockpool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

struct cached_block {
    void *p;
    size_t cap;
};

struct block_pool {
    atomic_int refs;
    pthread_mutex_t mu;
    size_t max_blocks, max_bytes;
    size_t nblocks, bytes;
    struct cached_block *blocks; /* max_blocks slots */
};

/* A cached block serves a request up to this many times smaller, so a
 * small request does not pin a huge block. */
enum { WASTE_FACTOR = 4 };

struct block_pool *block_pool_new(size_t max_blocks, size_t max_bytes)
{
    struct block_pool *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->blocks = calloc(max_blocks ? max_blocks : 1, sizeof *p->blocks);
    if (!p->blocks || pthread_mutex_init(&p->mu, NULL) != 0) {
        free(p->blocks);
        free(p);
        return NULL;
    }
    atomic_init(&p->refs, 1);
    p->max_blocks = max_blocks;
    p->max_bytes = max_bytes;
    return p;
}

void block_pool_ref(struct block_pool *p)
{
    if (p)
        atomic_fetch_add(&p->refs, 1);
}

void block_pool_unref(struct block_pool *p)
{
    if (!p || atomic_fetch_sub(&p->refs, 1) != 1)
        return;
    for (size_t i = 0; i < p->nblocks; i++)
        free(p->blocks[i].p);
    pthread_mutex_destroy(&p->mu);
    free(p->blocks);
    free(p);
}

void *block_pool_get(struct block_pool *p, size_t size, size_t *cap)
{
    if (size == 0)
        size = 1;
    if (p) {
        pthread_mutex_lock(&p->mu);
        size_t best = p->nblocks;
        for (size_t i = 0; i < p->nblocks; i++) {
            size_t c = p->blocks[i].cap;
            if (c >= size && c / WASTE_FACTOR <= size &&
                (best == p->nblocks || c < p->blocks[best].cap))
                best = i;
        }
        if (best < p->nblocks) {
            struct cached_block b = p->blocks[best];
            p->blocks[best] = p->blocks[--p->nblocks];
            p->bytes -= b.cap;
            pthread_mutex_unlock(&p->mu);
            *cap = b.cap;
            return b.p;
        }
        pthread_mutex_unlock(&p->mu);
    }
    void *b = malloc(size);
    *cap = b ? size : 0;
    return b;
}

void block_pool_put(struct block_pool *p, void *block, size_t cap)
{
    if (!block)
        return;
    if (p) {
        pthread_mutex_lock(&p->mu);
        if (p->nblocks < p->max_blocks && cap <= p->max_bytes - p->bytes) {
            p->blocks[p->nblocks++] = (struct cached_block){block, cap};
            p->bytes += cap;
            block = NULL;
        }
        pthread_mutex_unlock(&p->mu);
    }
    free(block);
}
