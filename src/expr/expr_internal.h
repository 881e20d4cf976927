/* What the files of src/expr/ share: the parse tree, the bound forms, the
 * lexer, literal conversion and the column views evaluation reads
 * batches through. Not part of the module's API (expr.h). */
#ifndef HL_EXPR_INTERNAL_H
#define HL_EXPR_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "expr/expr.h"
#include "lake/partition.h"
#include "variant/access.h"

__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

/* ---- tokens ---- */

enum tk {
    TK_EOF,
    TK_NAME,   /* bare identifier or keyword */
    TK_QNAME,  /* "quoted" identifier: val holds the name */
    TK_STRING, /* 'text': val holds the text */
    TK_NUMBER,
    TK_HEX, /* X'..': val holds the bytes */
    TK_EQ,
    TK_NE,
    TK_LT,
    TK_LE,
    TK_GT,
    TK_GE,
    TK_LPAREN,
    TK_RPAREN,
    TK_COMMA,
    TK_DOT,
    TK_PLUS,
    TK_MINUS,
    TK_STAR,
    TK_SLASH
};

/* Where something is in the text: the 1-based character position of its
 * first character and its source text, for messages. */
struct expr_span {
    uint32_t pos;
    const char *src;
    size_t len;
};

struct token {
    enum tk kind;
    struct expr_span at;
    const char *val; /* decoded value (NAME: the source text) */
    size_t vlen;
};

/* Splits text into tokens (arena-allocated, TK_EOF last). */
int expr_lex(struct arena *a, const char *text, size_t len, struct token **out, size_t *n,
             struct error *err);
/* Fails with "at <pos> ('<token>'): <message>" ("(end of input)" for an
 * empty span at the end). Returns -1. */
int expr_fail_at(struct error *err, const struct expr_span *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ---- the parse tree ---- */

enum expr_kind {
    EK_AND,
    EK_OR,
    EK_NOT,
    EK_CMP,     /* args[0] op args[1] */
    EK_IN,      /* args[0] [NOT] IN (args[1..]) */
    EK_BETWEEN, /* args[0] [NOT] BETWEEN args[1] AND args[2] */
    EK_ISNULL,  /* args[0] IS [NOT] NULL */
    EK_COLUMN,
    EK_LITERAL,
    EK_ARITH, /* args[0] ops[1] args[1] ops[2] args[2] ... (left to right) */
    EK_NEG,   /* - args[0] */
    EK_CASE   /* WHEN args[0] THEN args[1] ... [ELSE args[n-1]] */
};

enum expr_op { OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE, OP_ADD, OP_SUB, OP_MUL, OP_DIV };

enum lit_kind {
    LIT_NULL,
    LIT_TRUE,
    LIT_FALSE,
    LIT_NUMBER, /* text: the number with its sign ("-12.5e3") */
    LIT_STRING,
    LIT_DATE,
    LIT_TIME,
    LIT_TIMESTAMP,
    LIT_TIMESTAMPTZ,
    LIT_UUID,
    LIT_BINARY
};

struct expr {
    enum expr_kind kind;
    struct expr_span at; /* operators: the operator; others: the first token */
    enum expr_op op;     /* EK_CMP */
    bool negated;        /* EK_IN, EK_BETWEEN, EK_ISNULL */
    bool has_else;       /* EK_CASE */
    struct expr **args;
    size_t nargs;
    enum expr_op *ops; /* EK_ARITH: ops[i] stands before args[i] (i >= 1) */
    /* EK_COLUMN */
    const char **names;
    size_t *name_lens;
    size_t nnames;
    /* EK_LITERAL */
    enum lit_kind lit;
    const char *text; /* decoded text, bytes for LIT_BINARY */
    size_t len;
};

struct expr_assignment {
    struct expr *target; /* EK_COLUMN */
    struct expr *value;
};

struct expr_assignments {
    struct expr_assignment *items;
    size_t n;
};

const char *expr_op_text(enum expr_op op);

/* ---- values ---- */

/* How a type's values are held in a struct lake_value (lake/partition.h). */
enum vkind { VK_BOOL, VK_INT, VK_UINT64, VK_FLOAT, VK_DEC, VK_BYTES, VK_NONE };
enum vkind expr_vkind(enum lake_type t);

/* A monotone integer key of a double in the order the language compares
 * floats in: -0.0 as 0.0, NaN above +Infinity. */
int64_t expr_float_key(double d);

/* Nanoseconds per tick of a date, time or timestamp type. */
int64_t expr_nanos_per_tick(enum lake_type t);
/* 10^n for 0 <= n <= 38. */
i128 expr_pow10(int n);

/* A literal of a column's type: the native value and the column's Iceberg
 * single-value bound bytes. */
struct bval {
    struct lake_value v;
    const uint8_t *bound;
    size_t bound_len;
};

/* The type a literal converts to: a column's, or a partition transform's
 * result. */
struct expr_type {
    enum lake_type type;
    int precision, scale;
    const char *column; /* for messages: the column's path */
};

/* Converts a literal (not NULL) to t, exactly, or fails pointing at it. */
int expr_literal_convert(struct arena *a, const struct expr *lit, const struct expr_type *t,
                         struct bval *out, struct error *err);
/* Sets out->bound from out->v for type t. 0, or -1 out of memory. */
int expr_value_bound(struct arena *a, const struct expr_type *t, struct bval *out);
/* A partition value's wire string (lake_partition_render) as a value of
 * type t; false when it does not parse. Bytes point into text or arena. */
bool expr_parse_wire(struct arena *a, const struct expr_type *t, const char *text,
                     struct lake_value *out);
/* A decoded bound (bound_to_json's text forms: dates, times, timestamps,
 * uuids, base64, strings, decimal numbers, "Infinity") as type t. */
bool expr_parse_bound_text(struct arena *a, const struct expr_type *t, const char *text, size_t len,
                           struct lake_value *out);
/* <0, 0, >0 comparing two values of one vkind in the language's order. */
int expr_value_compare(enum vkind k, const struct lake_value *x, const struct lake_value *y);

/* The range of an integer type (int8 ... uint64); false for the others. */
bool expr_int_range(enum lake_type t, i128 *lo, i128 *hi);
/* An exact decimal number's digits: value = unscaled * 10^-scale, scale in
 * 0..38 (numbers with more digits are refused). */
bool expr_number_exact(const char *text, size_t len, i128 *unscaled, int *scale);
/* Rescales v from scale `from` to scale `to` exactly (to >= from) or with
 * rounding half away from zero (to < from); false on overflow of i128. */
bool expr_rescale(i128 v, int from, int to, i128 *out);

/* ---- bound columns ---- */

struct colref {
    int64_t field_id;
    enum lake_type type;
    int precision, scale;
    bool required; /* the leaf and every struct above it are required */
    uint32_t depth;
    uint32_t path[LAKE_MAX_DEPTH]; /* child indexes, path[0] the top-level column */
    const char *name;              /* dotted path */
    /* A path into a variant column (props."$os"): the object keys after
     * the column, matched exactly; none for any other column. */
    const char *const *vkeys;
    const size_t *vkey_lens;
    size_t nvkeys;
};

struct colset {
    struct colref *refs;
    size_t n, cap;
    struct expr_columns used;
};

/* Resolves a column node against t and registers it (deduplicated);
 * *index receives its place in cs. */
int expr_resolve_column(struct arena *a, const struct lake_table *t, struct colset *cs,
                        const struct expr *col, size_t *index, struct error *err);
/* Fills cs->used from the registered columns. */
int expr_colset_finish(struct arena *a, struct colset *cs, struct error *err);

/* ---- bound predicates ---- */

enum pn_kind { PN_CONST, PN_AND, PN_OR, PN_CMP, PN_CMP_COLS, PN_IN, PN_NULL, PN_VCMP };

/* What a variant path is compared with (PN_VCMP): a string, a number or a
 * boolean literal. A value of another family never compares (unknown). */
struct vlit {
    enum variant_scalar_kind kind; /* VS_STRING, VS_DECIMAL (any number) or VS_BOOL */
    const char *s;                 /* VS_STRING */
    size_t len;
    bool exact; /* VS_DECIMAL: unscaled and scale hold the number exactly */
    i128 unscaled;
    int scale;
    double d; /* VS_DECIMAL as a double */
    bool b;
};

/* Compares a variant scalar with a literal: true with *c (<0, 0, >0) when
 * they are of one family (strings as unsigned bytes; numbers exactly, as
 * doubles when either is a float; booleans false < true). */
bool expr_vlit_compare(const struct variant_scalar *x, const struct vlit *l, int *c);

/* The statistics id of colref k's variant path leaf (expr_stats_variant_leaves). */
static inline int64_t expr_variant_leaf_id(size_t k)
{
    return -1 - (int64_t)k;
}

/* How two columns compare (PN_CMP_COLS). */
enum cmp_family {
    CF_INT,   /* integers and decimals as exact numbers, at the larger scale */
    CF_FLOAT, /* doubles */
    CF_TIME,  /* dates and timestamps as nanoseconds since the epoch; times */
    CF_BYTES,
    CF_BOOL
};

struct in_set {
    size_t n;
    const struct bval *items; /* ascending, distinct */
    const int64_t *keys;      /* VK_INT values, VK_FLOAT float keys, VK_BOOL 0/1 */
    /* VK_INT keys spanning less than EXPR_IN_BITMAP_SPAN: a bit per value
     * from keys[0] to keys[n - 1] (NULL otherwise). */
    const uint8_t *bitmap;
};

enum { EXPR_IN_BITMAP_SPAN = 1 << 20 };

/* Predicates are bound in negation normal form: NOT is pushed down to the
 * tests (comparisons inverted, IN / IS NULL negated), where SQL's
 * three-valued logic makes the rewrite exact. In that form a row is
 * selected exactly when the AND/OR tree over each test's "is TRUE" is
 * true, so evaluation and pruning work in two-valued logic. */
struct pnode {
    enum pn_kind kind;
    bool value;      /* PN_CONST */
    bool negated;    /* PN_IN: NOT IN; PN_NULL: IS NOT NULL */
    enum expr_op op; /* PN_CMP (column op literal), PN_CMP_COLS */
    size_t col, col2;
    struct bval lit;
    enum cmp_family family;
    struct in_set in;
    struct vlit vlit;    /* PN_VCMP */
    struct pnode **kids; /* PN_AND, PN_OR */
    size_t nkids;
};

/* Binds a predicate tree into cs's columns; negate binds NOT e. */
int expr_bind_pnode(struct arena *a, const struct lake_table *t, struct colset *cs,
                    const struct expr *e, bool negate, struct pnode **out, struct error *err);
/* Scratch levels (of EXPR_CHUNK bytes) evaluating n needs. */
size_t expr_pnode_levels(const struct pnode *n);

struct expr_pred {
    struct colset cols;
    struct pnode *root;
    size_t levels;
};

/* ---- reading batches ---- */

enum { EXPR_CHUNK = 4096 };

enum store {
    ST_BOOL,
    ST_I8,
    ST_I16,
    ST_I32,
    ST_I64,
    ST_U8,
    ST_U16,
    ST_U32,
    ST_U64,
    ST_F32,
    ST_F64,
    ST_D128,
    ST_STR32,
    ST_STR64,
    ST_FIX16,
    ST_VARIANT, /* a variant path: the storage struct's metadata and value */
    ST_NONE     /* a struct, list, map or whole variant: its validity only */
};

/* A binary child array read in place (ST_VARIANT's metadata and value). */
struct binview {
    const uint8_t *offsets, *data;
    bool wide; /* 64-bit offsets */
    int64_t off;
};

/* One column of a batch: its leaf array's buffers, the physical index of
 * batch row 0 in them, and the validity bitmaps along its path. */
struct colview {
    enum store st;
    const uint8_t *values; /* fixed-width values, bits or offsets */
    const uint8_t *data;   /* variable-size bytes */
    int64_t off;
    int nvalid;
    const uint8_t *valid[LAKE_MAX_DEPTH + 1];
    int64_t valid_off[LAKE_MAX_DEPTH + 1];
    struct binview vmeta, vvalue; /* ST_VARIANT */
};

/* The store a column of r's type has in an array of format f; false when
 * the format does not fit the type. */
bool expr_store_of(const struct colref *r, const char *f, enum store *st);
/* Bytes per value of a fixed-width store; 0 for bits and variable sizes. */
size_t expr_store_width(enum store st);

/* Finds every column of cs in the batch and checks its format. */
int expr_views_open(const struct colset *cs, const struct ArrowSchema *schema,
                    const struct ArrowArray *batch, struct colview *views, struct error *err);
/* Rows r0..r0+n: ok[i] = 1 when row r0+i is not null. False (ok untouched)
 * when no row can be null. */
bool expr_view_valid(const struct colview *v, int64_t r0, int64_t n, uint8_t *ok);
/* One variable-size or fixed-size binary value. */
const uint8_t *expr_view_bytes(const struct colview *v, int64_t row, size_t *len);
/* An integer-like value (every store but floats, decimals and bytes). */
int64_t expr_view_int(const struct colview *v, int64_t row);
uint64_t expr_view_u64(const struct colview *v, int64_t row);
double expr_view_double(const struct colview *v, int64_t row);
i128 expr_view_dec(const struct colview *v, int64_t row);

/* Whether a comparison's result c (<0, 0, >0) satisfies op. */
bool expr_op_holds(enum expr_op op, int c);

/* Evaluates a bound predicate over rows r0..r0+n into out (0/1), with
 * scratch holding expr_pnode_levels(p) chunks. */
void expr_pnode_eval(const struct pnode *p, const struct colref *refs, const struct colview *views,
                     int64_t r0, int64_t n, uint8_t *out, uint8_t *scratch);

#endif
