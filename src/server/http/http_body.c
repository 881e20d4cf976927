/* The memory a request body is held in while it arrives and while it is
 * handled (struct body, http_internal.h): mapped at its declared size when
 * that is large, else grown on the heap. The limits and budgets a body is
 * held to are the exchange's (http.c). */
#include "server/http/http_internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

enum {
    BODY_MAP_MIN = 1 << 20, /* bodies declared this large are mapped (struct body) */
};

void http_body_free(struct body *b)
{
    if (b->mapped)
        munmap(b->data, b->cap);
    else
        free(b->data);
    *b = (struct body){0};
}

/* Room for the declared length at once: growing by doubling would hold
 * two copies at the end. */
int http_body_reserve_declared(struct body *b, size_t declared)
{
    size_t cap = declared + 1;
    if (cap >= BODY_MAP_MIN) {
        void *p = mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            return -1;
        b->data = p;
        b->mapped = true;
    } else if (!(b->data = malloc(cap))) {
        return -1;
    }
    b->cap = cap;
    return 0;
}

int http_body_append(struct body *b, const char *data, size_t n)
{
    if (n > SIZE_MAX / 2 - b->len)
        return -1;
    size_t need = b->len + n + 1;
    if (need > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < need)
            cap *= 2;
        char *p = b->mapped ? NULL : realloc(b->data, cap);
        if (!p)
            return -1; /* a mapped body was sized to its declared length */
        b->data = p;
        b->cap = cap;
    }
    memcpy(b->data + b->len, data, n);
    b->len += n;
    b->data[b->len] = '\0';
    return 0;
}
