#include "util/arrow.h"

#include <stdlib.h>
#include <string.h>

#include "util/blockpool.h"

/* Both private structs own their children the same way: the children's
 * structs in one block (kids) and the pointer array the parent hands out
 * (children[i] = &kids[i]). Macros, as the two differ only in type. */
#define CHILDREN_ALLOC(p, n)                                                                       \
    ((n) == 0 || (((p)->kids = calloc((size_t)(n), sizeof *(p)->kids)) != NULL &&                  \
                  ((p)->children = calloc((size_t)(n), sizeof *(p)->children)) != NULL))
#define CHILDREN_LINK(p, n)                                                                        \
    do {                                                                                           \
        for (int64_t i_ = 0; i_ < (n); i_++)                                                       \
            (p)->children[i_] = &(p)->kids[i_];                                                    \
    } while (0)
#define CHILDREN_RELEASE(p, n)                                                                     \
    do {                                                                                           \
        for (int64_t i_ = 0; i_ < (n); i_++)                                                       \
            if ((p)->children[i_] && (p)->children[i_]->release)                                   \
                (p)->children[i_]->release((p)->children[i_]);                                     \
        free((p)->kids);                                                                           \
        free((p)->children);                                                                       \
    } while (0)

struct array_private {
    const void *buffers[ARROW_MAX_BUFFERS];
    size_t caps[ARROW_MAX_BUFFERS]; /* pooled buffers' sizes; 0: free() it */
    struct block_pool *pool;
    struct ArrowArray *kids;
    struct ArrowArray **children;
};

static void release_array(struct ArrowArray *a)
{
    struct array_private *p = a->private_data;
    if (p) {
        CHILDREN_RELEASE(p, a->n_children);
        for (int i = 0; i < ARROW_MAX_BUFFERS; i++) {
            if (p->caps[i])
                block_pool_put(p->pool, (void *)p->buffers[i], p->caps[i]);
            else
                free((void *)p->buffers[i]);
        }
        block_pool_unref(p->pool);
        free(p);
    }
    a->release = NULL;
    a->private_data = NULL;
}

int arrow_array_init(struct ArrowArray *a, int64_t n_buffers, int64_t n_children)
{
    memset(a, 0, sizeof *a);
    if (n_buffers < 0 || n_buffers > ARROW_MAX_BUFFERS || n_children < 0)
        return -1;
    struct array_private *p = calloc(1, sizeof *p);
    if (!p)
        return -1;
    if (!CHILDREN_ALLOC(p, n_children)) {
        free(p->kids);
        free(p);
        return -1;
    }
    CHILDREN_LINK(p, n_children);
    a->n_buffers = n_buffers;
    a->n_children = n_children;
    a->buffers = p->buffers;
    a->children = p->children;
    a->private_data = p;
    a->release = release_array;
    return 0;
}

static void drop_buffer(struct array_private *p, int i)
{
    if (p->caps[i])
        block_pool_put(p->pool, (void *)p->buffers[i], p->caps[i]);
    else
        free((void *)p->buffers[i]);
    p->caps[i] = 0;
}

void arrow_array_own_buffer(struct ArrowArray *a, int i, void *buf)
{
    struct array_private *p = a->private_data;
    drop_buffer(p, i);
    p->buffers[i] = buf;
}

void arrow_array_use_pool(struct ArrowArray *a, struct block_pool *pool)
{
    struct array_private *p = a->private_data;
    block_pool_ref(pool);
    block_pool_unref(p->pool);
    p->pool = pool;
}

void arrow_array_own_pooled(struct ArrowArray *a, int i, void *buf, size_t cap)
{
    struct array_private *p = a->private_data;
    drop_buffer(p, i);
    p->buffers[i] = buf;
    p->caps[i] = buf && p->pool ? cap : 0;
}

struct schema_private {
    char *format;
    char *name;
    char *metadata;
    struct ArrowSchema *kids;
    struct ArrowSchema **children;
};

static void release_schema(struct ArrowSchema *s)
{
    struct schema_private *p = s->private_data;
    if (p) {
        CHILDREN_RELEASE(p, s->n_children);
        free(p->format);
        free(p->name);
        free(p->metadata);
        free(p);
    }
    s->release = NULL;
    s->private_data = NULL;
}

int arrow_schema_init(struct ArrowSchema *s, const char *format, const char *name, int64_t flags,
                      int64_t n_children)
{
    memset(s, 0, sizeof *s);
    struct schema_private *p = calloc(1, sizeof *p);
    if (!p)
        return -1;
    p->format = strdup(format);
    p->name = name ? strdup(name) : NULL;
    if (n_children < 0 || !p->format || (name && !p->name) || !CHILDREN_ALLOC(p, n_children)) {
        free(p->format);
        free(p->name);
        free(p->kids);
        free(p);
        return -1;
    }
    CHILDREN_LINK(p, n_children);
    s->format = p->format;
    s->name = p->name;
    s->flags = flags;
    s->n_children = n_children;
    s->children = p->children;
    s->private_data = p;
    s->release = release_schema;
    return 0;
}

int arrow_schema_set_metadata(struct ArrowSchema *s, const char *const *keys,
                              const char *const *values, int n)
{
    struct schema_private *p = s->private_data;
    size_t len = 4;
    for (int i = 0; i < n; i++)
        len += 8 + strlen(keys[i]) + strlen(values[i]);
    char *m = malloc(len);
    if (!m)
        return -1;
    char *w = m;
    int32_t count = n;
    memcpy(w, &count, 4);
    w += 4;
    for (int i = 0; i < n; i++) {
        const char *parts[2] = {keys[i], values[i]};
        for (int k = 0; k < 2; k++) {
            int32_t l = (int32_t)strlen(parts[k]);
            memcpy(w, &l, 4);
            memcpy(w + 4, parts[k], (size_t)l);
            w += 4 + l;
        }
    }
    free(p->metadata);
    p->metadata = m;
    s->metadata = m;
    return 0;
}

bool arrow_metadata_get(const char *metadata, const char *key, char *out, size_t out_size)
{
    if (!metadata)
        return false;
    const char *p = metadata;
    int32_t n;
    memcpy(&n, p, 4);
    p += 4;
    size_t klen = strlen(key);
    for (int32_t i = 0; i < n; i++) {
        int32_t kl, vl;
        memcpy(&kl, p, 4);
        const char *k = p + 4;
        p = k + kl;
        memcpy(&vl, p, 4);
        const char *v = p + 4;
        p = v + vl;
        if ((size_t)kl == klen && memcmp(k, key, klen) == 0) {
            size_t m = (size_t)vl < out_size - 1 ? (size_t)vl : out_size - 1;
            memcpy(out, v, m);
            out[m] = '\0';
            return true;
        }
    }
    return false;
}

void arrow_array_move(struct ArrowArray *src, struct ArrowArray *dst)
{
    *dst = *src;
    src->release = NULL;
}

void arrow_schema_move(struct ArrowSchema *src, struct ArrowSchema *dst)
{
    *dst = *src;
    src->release = NULL;
}

/* Bytes per value of a fixed-width Arrow format; 0 when it is not one. */
static size_t fixed_width(const char *f)
{
    switch (f[0]) {
    case 'c':
    case 'C': return 1;
    case 's':
    case 'S':
    case 'e': return 2;
    case 'i':
    case 'I':
    case 'f': return 4;
    case 'l':
    case 'L':
    case 'g': return 8;
    case 'd': return strstr(f, ",256") ? 32 : 16;
    case 'w': return f[1] == ':' ? (size_t)strtoul(f + 2, NULL, 10) : 0;
    case 't':
        if (f[1] == 'd')
            return f[2] == 'D' ? 4 : 8;
        if (f[1] == 't')
            return f[2] == 's' || f[2] == 'm' ? 4 : 8;
        if (f[1] == 's')
            return 8;
        return 0;
    default: return 0;
    }
}

int arrow_array_nulls(const struct ArrowSchema *s, int64_t n, struct ArrowArray *out)
{
    const char *f = s->format;
    bool nested = f[0] == '+';
    if (n < 0 || (nested && strcmp(f, "+s") != 0 && strcmp(f, "+l") != 0 && strcmp(f, "+L") != 0 &&
                  strcmp(f, "+m") != 0))
        return -1;
    bool var = !nested && (strcmp(f, "u") == 0 || strcmp(f, "z") == 0 || strcmp(f, "U") == 0 ||
                           strcmp(f, "Z") == 0);
    bool is_bool = strcmp(f, "b") == 0;
    size_t width = nested || var || is_bool ? 0 : fixed_width(f);
    if (!nested && !var && !is_bool && width == 0)
        return -1;
    bool struct_like = strcmp(f, "+s") == 0;
    bool list_like = nested && !struct_like;
    int64_t nbuf = struct_like ? 1 : var ? 3 : 2;
    int64_t nkids = nested ? s->n_children : 0;
    if (arrow_array_init(out, nbuf, nkids) != 0)
        return -1;
    out->length = n;
    out->null_count = n;
    size_t bitmap = (size_t)(n + 7) / 8;
    void *validity = calloc(bitmap ? bitmap : 1, 1);
    arrow_array_own_buffer(out, 0, validity);
    bool ok = validity != NULL;
    if (ok && !struct_like) {
        /* Zeroed values or offsets: every slot is empty. */
        size_t off_width =
            strcmp(f, "U") == 0 || strcmp(f, "Z") == 0 || strcmp(f, "+L") == 0 ? 8 : 4;
        size_t bytes = is_bool            ? bitmap
                       : var || list_like ? ((size_t)n + 1) * off_width
                                          : (size_t)n * width;
        void *values = calloc(bytes ? bytes : 1, 1);
        arrow_array_own_buffer(out, 1, values);
        ok = values != NULL;
        if (ok && var) {
            void *data = calloc(1, 1);
            arrow_array_own_buffer(out, 2, data);
            ok = data != NULL;
        }
    }
    /* A struct's children have its length; a list's child holds nothing. */
    for (int64_t i = 0; ok && i < nkids; i++)
        ok = arrow_array_nulls(s->children[i], struct_like ? n : 0, out->children[i]) == 0;
    if (!ok) {
        out->release(out);
        return -1;
    }
    return 0;
}
