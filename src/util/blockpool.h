/* A pool of large malloc'd blocks kept for reuse.
 *
 * Why: a reader hands out buffers of tens of megabytes per row group and
 * gets them back when the consumer releases the batch. Blocks that large
 * come straight from mmap and go back to the kernel on free, so every row
 * group would otherwise pay for fresh, zeroed pages. Blocks returned here
 * are handed out again instead.
 *
 * Blocks are ordinary malloc blocks: whoever holds one may realloc or free
 * it instead of returning it. The pool is reference-counted (the reader and
 * each batch it produced hold a reference) and thread-safe, since batches
 * may be released on any thread. */
#ifndef HL_UTIL_BLOCKPOOL_H
#define HL_UTIL_BLOCKPOOL_H

#include <stddef.h>

struct block_pool;

/* A pool keeping at most max_bytes in at most max_blocks cached blocks;
 * NULL when out of memory. The caller holds the first reference. */
struct block_pool *block_pool_new(size_t max_blocks, size_t max_bytes);
void block_pool_ref(struct block_pool *p);
/* Drops a reference; the last one frees the cached blocks and the pool. */
void block_pool_unref(struct block_pool *p);

/* A block of at least size bytes (uninitialised): a cached one when one is
 * large enough and not wastefully larger, else a new one. *cap receives
 * its size. NULL when out of memory. A NULL pool just mallocs. */
void *block_pool_get(struct block_pool *p, size_t size, size_t *cap);
/* Gives a block of cap bytes back (NULL is ignored); it is freed when the
 * pool is full or p is NULL. */
void block_pool_put(struct block_pool *p, void *block, size_t cap);

#endif
