/* Binary search over a sorted range: the one loop every lookup shares.
 *
 *   size_t at = LOWER_BOUND(v->n, i, v->pos[i] < pos);
 *   bool found = at < v->n && v->pos[at] == pos;
 */
#ifndef HL_UTIL_SEARCH_H
#define HL_UTIL_SEARCH_H

#include <stddef.h>

/* The first index in [0, n) for which `below`, an expression of the index
 * variable named `i`, is false; n when there is none. `below` must hold
 * for a prefix of the range and fail for the rest (a sorted array
 * compared with a key), and is evaluated about log2(n) times. A macro, not
 * a function taking a comparator: hot loops (IN lists, deletion vectors)
 * keep their comparison inline. */
#define LOWER_BOUND(n, i, below)                                                                   \
    __extension__({                                                                                \
        size_t lo_ = 0, hi_ = (n);                                                                 \
        while (lo_ < hi_) {                                                                        \
            size_t i = lo_ + (hi_ - lo_) / 2;                                                      \
            if (below)                                                                             \
                lo_ = i + 1;                                                                       \
            else                                                                                   \
                hi_ = i;                                                                           \
        }                                                                                          \
        lo_;                                                                                       \
    })

#endif
