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

struct arrow_zeros {
    size_t refs; /* atomic: arrays may be released on any thread */
    size_t size;
    void *bytes;
};

void arrow_zeros_unref(struct arrow_zeros *z)
{
    if (z && __atomic_sub_fetch(&z->refs, 1, __ATOMIC_ACQ_REL) == 0) {
        free(z->bytes);
        free(z);
    }
}

int arrow_zeros_reserve(struct arrow_zeros **z, size_t size)
{
    if (*z && (*z)->size >= size)
        return 0;
    struct arrow_zeros *fresh = malloc(sizeof *fresh);
    void *bytes = calloc(size ? size : 1, 1);
    if (!fresh || !bytes) {
        free(fresh);
        free(bytes);
        return -1;
    }
    *fresh = (struct arrow_zeros){1, size, bytes};
    arrow_zeros_unref(*z);
    *z = fresh;
    return 0;
}

struct array_private {
    const void *buffers[ARROW_MAX_BUFFERS];
    size_t caps[ARROW_MAX_BUFFERS]; /* pooled buffers' sizes; 0: free() it */
    unsigned borrowed;              /* bit i: buffers[i] is in zeros, not owned */
    struct arrow_zeros *zeros;      /* a reference, when any buffer is in it */
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
            if (p->borrowed & (1u << i))
                continue;
            if (p->caps[i])
                block_pool_put(p->pool, (void *)p->buffers[i], p->caps[i]);
            else
                free((void *)p->buffers[i]);
        }
        block_pool_unref(p->pool);
        arrow_zeros_unref(p->zeros);
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
    if (p->borrowed & (1u << i))
        p->borrowed &= ~(1u << i);
    else if (p->caps[i])
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

/* What an array of nulls of format f is made of (false: unsupported). */
struct nulls_shape {
    bool nested, struct_like, list_like, var, is_bool;
    size_t width, off_width;
};

static bool nulls_shape(const char *f, struct nulls_shape *k)
{
    memset(k, 0, sizeof *k);
    k->nested = f[0] == '+';
    if (k->nested && strcmp(f, "+s") != 0 && strcmp(f, "+l") != 0 && strcmp(f, "+L") != 0 &&
        strcmp(f, "+m") != 0)
        return false;
    k->var = !k->nested && (strcmp(f, "u") == 0 || strcmp(f, "z") == 0 || strcmp(f, "U") == 0 ||
                            strcmp(f, "Z") == 0);
    k->is_bool = strcmp(f, "b") == 0;
    k->width = k->nested || k->var || k->is_bool ? 0 : fixed_width(f);
    k->struct_like = strcmp(f, "+s") == 0;
    k->list_like = k->nested && !k->struct_like;
    k->off_width = strcmp(f, "U") == 0 || strcmp(f, "Z") == 0 || strcmp(f, "+L") == 0 ? 8 : 4;
    return k->nested || k->var || k->is_bool || k->width > 0;
}

/* The bytes of the values (or offsets) buffer of n nulls. */
static size_t values_size(const struct nulls_shape *k, int64_t n)
{
    size_t bitmap = (size_t)(n + 7) / 8;
    return k->is_bool               ? bitmap
           : k->var || k->list_like ? ((size_t)n + 1) * k->off_width
                                    : (size_t)n * k->width;
}

size_t arrow_nulls_size(const struct ArrowSchema *s, int64_t n)
{
    struct nulls_shape k;
    if (n < 0 || !nulls_shape(s->format, &k))
        return 0;
    size_t size = (size_t)(n + 7) / 8;
    if (!k.struct_like && values_size(&k, n) > size)
        size = values_size(&k, n);
    for (int64_t i = 0; k.nested && i < s->n_children; i++) {
        size_t child = arrow_nulls_size(s->children[i], k.struct_like ? n : 0);
        size = child > size ? child : size;
    }
    return size;
}

/* Buffer i of out: zeroed bytes, in z when they fit. */
static bool zero_buffer(struct ArrowArray *out, int i, size_t bytes, struct arrow_zeros *z)
{
    struct array_private *p = out->private_data;
    if (!z || bytes > z->size) {
        void *own = calloc(bytes ? bytes : 1, 1);
        arrow_array_own_buffer(out, i, own);
        return own != NULL;
    }
    if (!p->zeros) {
        __atomic_add_fetch(&z->refs, 1, __ATOMIC_RELAXED);
        p->zeros = z;
    }
    drop_buffer(p, i);
    p->buffers[i] = z->bytes;
    p->borrowed |= 1u << i;
    return true;
}

int arrow_array_nulls_in(const struct ArrowSchema *s, int64_t n, struct arrow_zeros *z,
                         struct ArrowArray *out)
{
    struct nulls_shape k;
    if (n < 0 || !nulls_shape(s->format, &k))
        return -1;
    int64_t nbuf = k.struct_like ? 1 : k.var ? 3 : 2;
    int64_t nkids = k.nested ? s->n_children : 0;
    if (arrow_array_init(out, nbuf, nkids) != 0)
        return -1;
    out->length = n;
    out->null_count = n;
    /* Zeroed validity, values or offsets: every slot is null and empty. */
    bool ok = zero_buffer(out, 0, (size_t)(n + 7) / 8, z);
    if (ok && !k.struct_like)
        ok = zero_buffer(out, 1, values_size(&k, n), z);
    if (ok && k.var)
        ok = zero_buffer(out, 2, 1, z);
    /* A struct's children have its length; a list's child holds nothing. */
    for (int64_t i = 0; ok && i < nkids; i++)
        ok = arrow_array_nulls_in(s->children[i], k.struct_like ? n : 0, z, out->children[i]) == 0;
    if (!ok) {
        out->release(out);
        return -1;
    }
    return 0;
}

int arrow_array_nulls(const struct ArrowSchema *s, int64_t n, struct ArrowArray *out)
{
    return arrow_array_nulls_in(s, n, NULL, out);
}

bool arrow_schema_same_shape(const struct ArrowSchema *a, const struct ArrowSchema *b)
{
    if (!a->format || !b->format || strcmp(a->format, b->format) != 0 ||
        strcmp(a->name ? a->name : "", b->name ? b->name : "") != 0 ||
        (a->flags & ARROW_FLAG_NULLABLE) != (b->flags & ARROW_FLAG_NULLABLE) ||
        a->n_children != b->n_children)
        return false;
    for (int64_t i = 0; i < a->n_children; i++)
        if (!arrow_schema_same_shape(a->children[i], b->children[i]))
            return false;
    return true;
}

/* ---- views of a shared batch ---- */

struct arrow_share {
    size_t refs; /* atomic: views may be released on any thread */
    struct ArrowArray batch;
};

struct arrow_share *arrow_share_new(struct ArrowArray *batch)
{
    struct arrow_share *s = malloc(sizeof *s);
    if (!s) {
        batch->release(batch);
        return NULL;
    }
    s->refs = 1;
    arrow_array_move(batch, &s->batch);
    return s;
}

const struct ArrowArray *arrow_share_batch(const struct arrow_share *s)
{
    return &s->batch;
}

void arrow_share_unref(struct arrow_share *s)
{
    if (s && __atomic_sub_fetch(&s->refs, 1, __ATOMIC_ACQ_REL) == 0) {
        s->batch.release(&s->batch);
        free(s);
    }
}

/* A view node: the buffer pointers and children of its source, its own. */
struct view_private {
    struct arrow_share *share;
    const void **buffers;
    struct ArrowArray *kids;
    struct ArrowArray **children;
    struct ArrowArray dictionary;
};

static void release_view(struct ArrowArray *a)
{
    struct view_private *p = a->private_data;
    CHILDREN_RELEASE(p, a->n_children);
    if (p->dictionary.release)
        p->dictionary.release(&p->dictionary);
    free(p->buffers);
    arrow_share_unref(p->share);
    free(p);
    a->release = NULL;
    a->private_data = NULL;
}

/* out: a view of src (a node of s's batch), recursively. */
static int view_node(struct arrow_share *s, const struct ArrowArray *src, struct ArrowArray *out)
{
    memset(out, 0, sizeof *out);
    struct view_private *p = calloc(1, sizeof *p);
    if (!p)
        return -1;
    if (!CHILDREN_ALLOC(p, src->n_children) ||
        (src->n_buffers > 0 &&
         !(p->buffers = calloc((size_t)src->n_buffers, sizeof *p->buffers)))) {
        free(p->kids);
        free(p->children);
        free(p);
        return -1;
    }
    CHILDREN_LINK(p, src->n_children);
    for (int64_t i = 0; i < src->n_buffers; i++)
        p->buffers[i] = src->buffers[i];
    __atomic_add_fetch(&s->refs, 1, __ATOMIC_ACQ_REL);
    p->share = s;
    *out = (struct ArrowArray){.length = src->length,
                               .null_count = src->null_count,
                               .offset = src->offset,
                               .n_buffers = src->n_buffers,
                               .n_children = src->n_children,
                               .buffers = p->buffers,
                               .children = p->children,
                               .private_data = p,
                               .release = release_view};
    int rc = 0;
    for (int64_t i = 0; i < src->n_children && rc == 0; i++)
        rc = view_node(s, src->children[i], &p->kids[i]);
    if (rc == 0 && src->dictionary) {
        rc = view_node(s, src->dictionary, &p->dictionary);
        out->dictionary = &p->dictionary;
    }
    if (rc != 0)
        out->release(out);
    return rc;
}

int arrow_share_view(struct arrow_share *s, int64_t c, int64_t start, int64_t n,
                     struct ArrowArray *out)
{
    const struct ArrowArray *b = &s->batch;
    if (c < 0 || c >= b->n_children || start < 0 || n < 0 || start + n > b->length ||
        view_node(s, b->children[c], out) != 0)
        return -1;
    out->offset += b->offset + start;
    out->length = n;
    if (out->null_count != 0)
        out->null_count = -1; /* unknown within the rows */
    return 0;
}

/* ---- reading string and binary arrays in place ---- */

bool arrow_bytes_open(struct arrow_bytes *in, const char *format, const struct ArrowArray *a)
{
    bool large = strcmp(format, "U") == 0 || strcmp(format, "Z") == 0;
    if (!large && strcmp(format, "u") != 0 && strcmp(format, "z") != 0)
        return false;
    if (a->n_buffers != 3 || a->n_children != 0 || (a->length > 0 && !a->buffers[1]))
        return false;
    in->a = a;
    in->o32 = large ? NULL : a->buffers[1];
    in->o64 = large ? a->buffers[1] : NULL;
    in->data = a->buffers[2] ? a->buffers[2] : (const uint8_t *)"";
    return true;
}

bool arrow_bytes_valid(const struct arrow_bytes *in, int64_t i)
{
    const uint8_t *v = in->a->buffers[0];
    return !v || in->a->null_count == 0 || arrow_bit(v, in->a->offset + i);
}

void arrow_bytes_at(const struct arrow_bytes *in, int64_t i, const uint8_t **p, size_t *n)
{
    int64_t k = in->a->offset + i;
    int64_t b = in->o64 ? in->o64[k] : in->o32[k];
    int64_t e = in->o64 ? in->o64[k + 1] : in->o32[k + 1];
    *p = in->data + b;
    *n = (size_t)(e - b);
}

size_t arrow_bytes_span(const struct arrow_bytes *in, int64_t first, int64_t n)
{
    if (n <= 0)
        return 0;
    const uint8_t *p0, *p1;
    size_t n0, n1;
    arrow_bytes_at(in, first, &p0, &n0);
    arrow_bytes_at(in, first + n - 1, &p1, &n1);
    return p1 + n1 >= p0 ? (size_t)(p1 + n1 - p0) : 0;
}

double arrow_approx_bytes(const struct ArrowSchema *s, const struct ArrowArray *a)
{
    struct arrow_bytes in;
    double n;
    if (arrow_bytes_open(&in, s->format, a))
        n = (double)arrow_bytes_span(&in, 0, a->length) + (in.o64 ? 8.0 : 4.0) * (double)a->length;
    else
        n = (a->n_children == 0 ? 8.0 : 4.0) * (double)a->length;
    for (int64_t c = 0; c < a->n_children && c < s->n_children; c++)
        n += arrow_approx_bytes(s->children[c], a->children[c]);
    return n;
}
