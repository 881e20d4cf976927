/* Plain data's building blocks (plain_scalar.c): the kinds of Python
 * values, the memory of the Arrow nodes plain_data.c builds (each node's
 * release frees its buffers and children), and scalar columns filled from
 * Python values. */
#ifndef HLPY_PLAIN_SCALAR_H
#define HLPY_PLAIN_SCALAR_H

#include "hlpy.h"

enum kind {
    K_NONE,
    K_BOOL,
    K_INT,
    K_UINT64,
    K_FLOAT,
    K_FLOAT32,
    K_STR,
    K_BYTES,
    K_DATE,
    K_TIME,
    K_TS,
    K_TSZ,
    K_DEC,
    K_UUID,
    K_LIST,
    K_STRUCT,
    K_MAP,
};

/* A kind's Arrow format (NULL for a decimal: made per column), and the
 * Python values a column of the kind takes (for messages). */
const char *plain_kind_format(enum kind k);
const char *plain_kind_takes(enum kind k);
/* A value's own kind (K_NONE: no kind plain data knows). */
enum kind plain_kind_of(PyObject *v);
/* Whether a column of kind want takes a value of kind got. */
bool plain_takes(enum kind want, enum kind got);
/* Imports what plain_kind_of tells values by; -1 with an exception. */
int plain_init(void);

/* Where a value is, for messages: the column's dotted path (list elements
 * "[]", map keys and values ".key", ".value") and, per value, the row of
 * the batch it belongs to (NULL: value i is row i). */
struct spot {
    const char *path;
    const Py_ssize_t *rows;
};

static inline Py_ssize_t row_of(const struct spot *at, Py_ssize_t i)
{
    return at->rows ? at->rows[i] : i;
}

/* A node's buffers and children, freed by its release. */
struct built {
    void *buffers[3];
    const void *ptrs[3];
    struct ArrowArray **children;
    int64_t nchildren;
};

/* Makes s and a (zeroed) a node with room for capacity children; on
 * failure their release is NULL or they are releasable. -1 with an
 * exception. */
int plain_node_init(struct ArrowSchema *s, struct ArrowArray *a, const char *format,
                    const char *name, int64_t flags, size_t capacity);
/* Adds a zeroed child to a node made with room for it. */
int plain_node_child(struct ArrowSchema *s, struct ArrowArray *a, struct ArrowSchema **cs,
                     struct ArrowArray **ca);
/* A node's length, validity bitmap and null count, from values' Nones. */
int plain_node_validity(struct ArrowArray *a, PyObject *values);

/* The largest scale of a decimal column's values. */
int plain_decimal_scale(const char *path, PyObject *values, int *scale);
/* Fills a scalar node (of kind k) from values (a list or tuple), each
 * None or of a kind k takes. */
int plain_fill_scalar(const struct spot *at, PyObject *values, enum kind k, int precision,
                      int scale, struct ArrowArray *a);

#endif
