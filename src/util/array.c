#include "util/array.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int array_reserve(void *items, size_t *cap, size_t need, size_t size, size_t first)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : (first ? first : 1);
    while (n < need) {
        if (n > SIZE_MAX / 2)
            return -1;
        n *= 2;
    }
    if (size && n > SIZE_MAX / size)
        return -1;
    /* items points at a T*; its bytes are read and written with memcpy so
     * that no T* is accessed through a void* lvalue. */
    void *old;
    memcpy(&old, items, sizeof old);
    void *grown = realloc(old, n * size);
    if (!grown)
        return -1;
    memcpy(items, &grown, sizeof grown);
    *cap = n;
    return 0;
}
