/* Growing a heap array by doubling: the one place that does it.
 *
 *   if (ARRAY_RESERVE(x->files, x->file_cap, x->nfiles + 1, 16) != 0)
 *       return nomem(err);
 *   x->files[x->nfiles++] = *f;
 */
#ifndef HL_UTIL_ARRAY_H
#define HL_UTIL_ARRAY_H

#include <stddef.h>

/* Makes *items (a pointer to the array's pointer, capacity *cap elements of
 * `size` bytes) hold at least `need` elements: the capacity doubles from
 * `first` until it does. Returns 0, or -1 on overflow or out of memory with
 * the array and *cap untouched. */
int array_reserve(void *items, size_t *cap, size_t need, size_t size, size_t first);

/* The check that needs no growth stays inline, as hot loops (a Parquet
 * column's dictionary indexes) reserve once per value. cap and need are
 * evaluated twice: pass plain lvalues. */
#define ARRAY_RESERVE(items, cap, need, first)                                                     \
    ((need) <= (cap) ? 0 : array_reserve(&(items), &(cap), (need), sizeof *(items), (first)))

#endif
