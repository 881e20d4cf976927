/* The parser: tokens into a tree, by recursive descent (expr.h has the
 * grammar), and the tree back into text. */
#include <string.h>
#include <strings.h>

#include "expr/expr_internal.h"

struct parser {
    struct arena *a;
    const struct token *toks;
    size_t n, i;
    int depth;
    struct error *err;
};

/* A growing array of nodes in the arena (the old block stays behind: at
 * most twice the final size), with the operator before each (chains). */
struct list {
    struct expr **items;
    enum expr_op *ops;
    size_t n, cap;
};

static int push_op(struct parser *p, struct list *l, struct expr *e, enum expr_op op)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 4;
        struct expr **items = arena_alloc(p->a, cap * sizeof *items);
        enum expr_op *ops = arena_alloc(p->a, cap * sizeof *ops);
        if (!items || !ops)
            return error_nomem(p->err);
        if (l->n) {
            memcpy(items, l->items, l->n * sizeof *items);
            memcpy(ops, l->ops, l->n * sizeof *ops);
        }
        l->items = items;
        l->ops = ops;
        l->cap = cap;
    }
    l->ops[l->n] = op;
    l->items[l->n++] = e;
    return 0;
}

static int push(struct parser *p, struct list *l, struct expr *e)
{
    return push_op(p, l, e, OP_ADD);
}

static const struct token *cur(const struct parser *p)
{
    return &p->toks[p->i];
}

static const struct token *ahead(const struct parser *p, size_t k)
{
    return &p->toks[p->i + k < p->n ? p->i + k : p->n - 1];
}

static bool word_is(const struct token *t, const char *word)
{
    return t->kind == TK_NAME && strlen(word) == t->vlen && strncasecmp(t->val, word, t->vlen) == 0;
}

static const char *const reserved_words[] = {"AND",  "OR",      "NOT",  "IN",    "IS",
                                             "NULL", "BETWEEN", "TRUE", "FALSE", "CASE",
                                             "WHEN", "THEN",    "ELSE", "END"};
/* Words that start a typed literal when a string follows (quoted in the
 * canonical text all the same, so that it reads unambiguously). */
static const char *const literal_prefixes[] = {"DATE", "TIME", "TIMESTAMP", "TIMESTAMPTZ", "UUID"};

static bool in_words(const struct token *t, const char *const *words, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (word_is(t, words[k]))
            return true;
    return false;
}

static bool is_reserved(const struct token *t)
{
    return in_words(t, reserved_words, sizeof reserved_words / sizeof *reserved_words);
}

static int fail(struct parser *p, const char *msg)
{
    return expr_fail_at(p->err, &cur(p)->at, "%s", msg);
}

static struct expr *node(struct parser *p, enum expr_kind kind, const struct expr_span *at)
{
    struct expr *e = arena_calloc(p->a, 1, sizeof *e);
    if (!e) {
        error_nomem(p->err);
        return NULL;
    }
    e->kind = kind;
    e->at = *at;
    return e;
}

static bool take_word(struct parser *p, const char *word)
{
    if (!word_is(cur(p), word))
        return false;
    p->i++;
    return true;
}

static bool take(struct parser *p, enum tk kind)
{
    if (cur(p)->kind != kind)
        return false;
    p->i++;
    return true;
}

/* Entering a nested construct: '(', NOT, a sign, CASE. */
static int enter(struct parser *p)
{
    if (++p->depth > EXPR_MAX_DEPTH)
        return expr_fail_at(p->err, &cur(p)->at, "nesting deeper than %d", EXPR_MAX_DEPTH);
    return 0;
}

static void set_args(struct expr *e, const struct list *l)
{
    e->args = l->items;
    e->nargs = l->n;
}

/* ---- operands ---- */

/* The span from token `first` to the one before the current. */
static struct expr_span span_from(const struct parser *p, size_t first)
{
    const struct token *a = &p->toks[first], *b = &p->toks[p->i - 1];
    return (struct expr_span){a->at.pos, a->at.src, (size_t)(b->at.src + b->at.len - a->at.src)};
}

static struct expr *literal(struct parser *p, size_t first, enum lit_kind kind, const char *text,
                            size_t len)
{
    struct expr_span at = span_from(p, first);
    struct expr *e = node(p, EK_LITERAL, &at);
    if (e) {
        e->lit = kind;
        e->text = text;
        e->len = len;
    }
    return e;
}

/* A number after its sign ('-' or '+' at token `first`, else none). */
static struct expr *number(struct parser *p, size_t first, bool negative)
{
    const struct token *t = cur(p);
    if (t->kind != TK_NUMBER) {
        fail(p, "expected a number after the sign");
        return NULL;
    }
    p->i++;
    if (!negative)
        return literal(p, first, LIT_NUMBER, t->val, t->vlen);
    char *text = arena_alloc(p->a, t->vlen + 2);
    if (!text) {
        error_nomem(p->err);
        return NULL;
    }
    text[0] = '-';
    memcpy(text + 1, t->val, t->vlen);
    text[t->vlen + 1] = '\0';
    return literal(p, first, LIT_NUMBER, text, t->vlen + 1);
}

static const struct {
    const char *word;
    enum lit_kind kind;
} typed_literals[] = {{"DATE", LIT_DATE},
                      {"TIME", LIT_TIME},
                      {"TIMESTAMP", LIT_TIMESTAMP},
                      {"TIMESTAMPTZ", LIT_TIMESTAMPTZ},
                      {"UUID", LIT_UUID}};

/* A literal at the current token, or NULL with nothing consumed and no
 * error when there is none. *failed tells the two NULLs apart. */
static struct expr *try_literal(struct parser *p, bool *failed)
{
    const struct token *t = cur(p);
    size_t first = p->i;
    *failed = false;
    struct expr *e = NULL;
    switch (t->kind) {
    case TK_NUMBER: return number(p, first, false);
    case TK_STRING:
        p->i++;
        e = literal(p, first, LIT_STRING, t->val, t->vlen);
        break;
    case TK_HEX:
        p->i++;
        e = literal(p, first, LIT_BINARY, t->val, t->vlen);
        break;
    case TK_NAME: {
        static const char *const words[] = {"NULL", "TRUE", "FALSE"};
        static const enum lit_kind kinds[] = {LIT_NULL, LIT_TRUE, LIT_FALSE};
        for (size_t k = 0; k < 3; k++)
            if (word_is(t, words[k])) {
                p->i++;
                e = literal(p, first, kinds[k], NULL, 0);
                goto done;
            }
        if (ahead(p, 1)->kind != TK_STRING)
            return NULL;
        for (size_t k = 0; k < sizeof typed_literals / sizeof *typed_literals; k++)
            if (word_is(t, typed_literals[k].word)) {
                const struct token *s = ahead(p, 1);
                p->i += 2;
                e = literal(p, first, typed_literals[k].kind, s->val, s->vlen);
                goto done;
            }
        return NULL;
    }
    default: return NULL;
    }
done:
    *failed = e == NULL;
    return e;
}

static struct expr *column(struct parser *p)
{
    size_t first = p->i, n = 1;
    while (ahead(p, 2 * n - 1)->kind == TK_DOT)
        n++;
    const char **names = arena_alloc(p->a, n * sizeof *names);
    size_t *lens = arena_alloc(p->a, n * sizeof *lens);
    if (!names || !lens) {
        error_nomem(p->err);
        return NULL;
    }
    for (size_t k = 0; k < n; k++) {
        const struct token *t = cur(p);
        bool name = t->kind == TK_QNAME || (t->kind == TK_NAME && (k > 0 || !is_reserved(t)));
        if (!name) {
            fail(p, k ? "expected a field name after '.'" : "expected a value");
            return NULL;
        }
        names[k] = t->val;
        lens[k] = t->vlen;
        p->i += k + 1 < n ? 2 : 1;
    }
    struct expr_span at = span_from(p, first);
    struct expr *e = node(p, EK_COLUMN, &at);
    if (e) {
        e->names = names;
        e->name_lens = lens;
        e->nnames = n;
    }
    return e;
}

/* A predicate operand: a literal (numbers signed) or a column. */
static struct expr *operand(struct parser *p)
{
    const struct token *t = cur(p);
    if (t->kind == TK_MINUS || t->kind == TK_PLUS) {
        size_t first = p->i++;
        return number(p, first, t->kind == TK_MINUS);
    }
    bool failed;
    struct expr *e = try_literal(p, &failed);
    if (e || failed)
        return e;
    return column(p);
}

/* ---- predicates ---- */

static struct expr *parse_or(struct parser *p);

static const enum tk cmp_tokens[] = {TK_EQ, TK_NE, TK_LT, TK_LE, TK_GT, TK_GE};

static struct expr *in_list(struct parser *p, struct expr *subject, const struct expr_span *at,
                            bool negated)
{
    if (!take(p, TK_LPAREN)) {
        fail(p, "expected '(' after IN");
        return NULL;
    }
    struct list items = {0};
    if (push(p, &items, subject) != 0)
        return NULL;
    do {
        if (items.n > EXPR_MAX_IN_ITEMS) {
            fail(p, "an IN list holds at most 100000 values");
            return NULL;
        }
        struct expr *v = operand(p);
        if (!v || push(p, &items, v) != 0)
            return NULL;
    } while (take(p, TK_COMMA));
    if (!take(p, TK_RPAREN)) {
        fail(p, "expected ',' or ')' in the IN list");
        return NULL;
    }
    struct expr *e = node(p, EK_IN, at);
    if (e) {
        e->negated = negated;
        set_args(e, &items);
    }
    return e;
}

static struct expr *between(struct parser *p, struct expr *subject, const struct expr_span *at,
                            bool negated)
{
    struct list args = {0};
    struct expr *lo, *hi;
    if (push(p, &args, subject) != 0 || !(lo = operand(p)) || push(p, &args, lo) != 0)
        return NULL;
    if (!take_word(p, "AND")) {
        fail(p, "expected AND in BETWEEN");
        return NULL;
    }
    if (!(hi = operand(p)) || push(p, &args, hi) != 0)
        return NULL;
    struct expr *e = node(p, EK_BETWEEN, at);
    if (e) {
        e->negated = negated;
        set_args(e, &args);
    }
    return e;
}

static struct expr *test(struct parser *p)
{
    if (cur(p)->kind == TK_LPAREN) {
        if (enter(p) != 0)
            return NULL;
        p->i++;
        struct expr *e = parse_or(p);
        if (!e)
            return NULL;
        if (!take(p, TK_RPAREN)) {
            fail(p, "expected ')'");
            return NULL;
        }
        p->depth--;
        return e;
    }
    struct expr *lhs = operand(p);
    if (!lhs)
        return NULL;
    const struct token *t = cur(p);
    struct expr_span at = t->at;
    for (size_t k = 0; k < sizeof cmp_tokens / sizeof *cmp_tokens; k++) {
        if (t->kind != cmp_tokens[k])
            continue;
        p->i++;
        struct expr *rhs = operand(p);
        struct list args = {0};
        struct expr *e = rhs ? node(p, EK_CMP, &at) : NULL;
        if (!e || push(p, &args, lhs) != 0 || push(p, &args, rhs) != 0)
            return NULL;
        e->op = (enum expr_op)k;
        set_args(e, &args);
        return e;
    }
    if (take_word(p, "IS")) {
        bool negated = take_word(p, "NOT");
        if (!take_word(p, "NULL")) {
            fail(p, negated ? "expected NULL after IS NOT" : "expected NULL or NOT NULL after IS");
            return NULL;
        }
        struct list args = {0};
        struct expr *e = node(p, EK_ISNULL, &at);
        if (!e || push(p, &args, lhs) != 0)
            return NULL;
        e->negated = negated;
        set_args(e, &args);
        return e;
    }
    bool negated = take_word(p, "NOT");
    if (take_word(p, "IN"))
        return in_list(p, lhs, &at, negated);
    if (take_word(p, "BETWEEN"))
        return between(p, lhs, &at, negated);
    if (negated) {
        fail(p, "expected IN or BETWEEN after NOT");
        return NULL;
    }
    enum tk k = cur(p)->kind;
    if (k == TK_PLUS || k == TK_MINUS || k == TK_STAR || k == TK_SLASH) {
        fail(p, "a predicate compares columns and values; it has no arithmetic");
        return NULL;
    }
    return lhs; /* a boolean column or literal standing alone */
}

static struct expr *parse_not(struct parser *p)
{
    if (!word_is(cur(p), "NOT"))
        return test(p);
    struct expr_span at = cur(p)->at;
    if (enter(p) != 0)
        return NULL;
    p->i++;
    struct expr *inner = parse_not(p);
    struct list args = {0};
    struct expr *e = inner ? node(p, EK_NOT, &at) : NULL;
    if (!e || push(p, &args, inner) != 0)
        return NULL;
    set_args(e, &args);
    p->depth--;
    return e;
}

/* kind's operands joined by `word` (AND, OR), flattened into one node. */
static struct expr *joined(struct parser *p, enum expr_kind kind, const char *word,
                           struct expr *(*operand_fn)(struct parser *))
{
    struct expr_span at = cur(p)->at;
    struct expr *first = operand_fn(p);
    if (!first || !word_is(cur(p), word))
        return first;
    struct list args = {0};
    if (push(p, &args, first) != 0)
        return NULL;
    while (take_word(p, word)) {
        struct expr *next = operand_fn(p);
        if (!next || push(p, &args, next) != 0)
            return NULL;
    }
    struct expr *e = node(p, kind, &at);
    if (e)
        set_args(e, &args);
    return e;
}

static struct expr *parse_and(struct parser *p)
{
    return joined(p, EK_AND, "AND", parse_not);
}

static struct expr *parse_or(struct parser *p)
{
    return joined(p, EK_OR, "OR", parse_and);
}

/* ---- value expressions ---- */

static struct expr *value(struct parser *p);

static struct expr *case_expr(struct parser *p)
{
    struct expr_span at = cur(p)->at;
    if (enter(p) != 0)
        return NULL;
    p->i++;
    struct list args = {0};
    if (!word_is(cur(p), "WHEN")) {
        fail(p, "expected WHEN after CASE");
        return NULL;
    }
    while (take_word(p, "WHEN")) {
        struct expr *when = parse_or(p), *then;
        if (!when || push(p, &args, when) != 0)
            return NULL;
        if (!take_word(p, "THEN")) {
            fail(p, "expected THEN");
            return NULL;
        }
        if (!(then = value(p)) || push(p, &args, then) != 0)
            return NULL;
    }
    bool has_else = take_word(p, "ELSE");
    struct expr *otherwise;
    if (has_else && (!(otherwise = value(p)) || push(p, &args, otherwise) != 0))
        return NULL;
    if (!take_word(p, "END")) {
        fail(p, has_else ? "expected END" : "expected WHEN, ELSE or END");
        return NULL;
    }
    struct expr *e = node(p, EK_CASE, &at);
    if (e) {
        e->has_else = has_else;
        set_args(e, &args);
    }
    p->depth--;
    return e;
}

static struct expr *unary(struct parser *p)
{
    const struct token *t = cur(p);
    if (t->kind == TK_MINUS || t->kind == TK_PLUS) {
        size_t first = p->i;
        if (ahead(p, 1)->kind == TK_NUMBER) {
            p->i++;
            return number(p, first, t->kind == TK_MINUS);
        }
        if (enter(p) != 0)
            return NULL;
        p->i++;
        struct expr *inner = unary(p);
        p->depth--;
        if (!inner || t->kind == TK_PLUS)
            return inner;
        struct list args = {0};
        struct expr *e = node(p, EK_NEG, &t->at);
        if (!e || push(p, &args, inner) != 0)
            return NULL;
        set_args(e, &args);
        return e;
    }
    if (t->kind == TK_LPAREN) {
        if (enter(p) != 0)
            return NULL;
        p->i++;
        struct expr *e = value(p);
        if (e && !take(p, TK_RPAREN)) {
            fail(p, "expected ')'");
            return NULL;
        }
        p->depth--;
        return e;
    }
    if (word_is(t, "CASE"))
        return case_expr(p);
    bool failed;
    struct expr *e = try_literal(p, &failed);
    if (e || failed)
        return e;
    return column(p);
}

/* Operands of unary_fn joined by the operators in ops (+ -, or * /),
 * left to right. */
static struct expr *chain(struct parser *p, enum tk op1, enum tk op2,
                          struct expr *(*operand_fn)(struct parser *))
{
    struct expr *first = operand_fn(p);
    if (!first || (cur(p)->kind != op1 && cur(p)->kind != op2))
        return first;
    struct expr *e = node(p, EK_ARITH, &cur(p)->at);
    struct list args = {0};
    if (!e || push(p, &args, first) != 0)
        return NULL;
    while (cur(p)->kind == op1 || cur(p)->kind == op2) {
        enum tk k = cur(p)->kind;
        enum expr_op op = k == TK_PLUS    ? OP_ADD
                          : k == TK_MINUS ? OP_SUB
                          : k == TK_STAR  ? OP_MUL
                                          : OP_DIV;
        p->i++;
        struct expr *next = operand_fn(p);
        if (!next || push_op(p, &args, next, op) != 0)
            return NULL;
    }
    e->ops = args.ops;
    set_args(e, &args);
    return e;
}

static struct expr *term(struct parser *p)
{
    return chain(p, TK_STAR, TK_SLASH, unary);
}

static struct expr *value(struct parser *p)
{
    return chain(p, TK_PLUS, TK_MINUS, term);
}

/* ---- entry points ---- */

static int start(struct parser *p, struct arena *a, const char *text, size_t len, struct error *err)
{
    memset(p, 0, sizeof *p);
    p->a = a;
    p->err = err;
    struct token *toks;
    if (expr_lex(a, text, len, &toks, &p->n, err) != 0)
        return -1;
    p->toks = toks;
    return 0;
}

int expr_parse_predicate(struct arena *a, const char *text, size_t len, struct expr **out,
                         struct error *err)
{
    struct parser p;
    if (start(&p, a, text, len, err) != 0)
        return -1;
    if (cur(&p)->kind == TK_EOF)
        return fail(&p, "expected a predicate");
    struct expr *e = parse_or(&p);
    if (!e)
        return -1;
    if (cur(&p)->kind != TK_EOF)
        return fail(&p, "expected AND, OR or the end of the predicate");
    *out = e;
    return 0;
}

int expr_parse_assignments(struct arena *a, const char *text, size_t len,
                           struct expr_assignments **out, struct error *err)
{
    struct parser p;
    if (start(&p, a, text, len, err) != 0)
        return -1;
    struct list targets = {0}, values = {0};
    do {
        struct expr *target = column(&p), *v;
        if (!target || push(&p, &targets, target) != 0)
            return -1;
        if (!take(&p, TK_EQ))
            return fail(&p, "expected '=' after the column");
        if (!(v = value(&p)) || push(&p, &values, v) != 0)
            return -1;
    } while (take(&p, TK_COMMA));
    if (cur(&p)->kind != TK_EOF)
        return fail(&p, "expected ',' or the end of the assignments");
    struct expr_assignments *as = arena_alloc(a, sizeof *as);
    struct expr_assignment *items = arena_calloc(a, targets.n, sizeof *items);
    if (!as || !items)
        return error_nomem(err);
    for (size_t k = 0; k < targets.n; k++)
        items[k] = (struct expr_assignment){targets.items[k], values.items[k]};
    as->items = items;
    as->n = targets.n;
    *out = as;
    return 0;
}

/* ---- back to text ---- */

const char *expr_op_text(enum expr_op op)
{
    static const char *const text[] = {"=", "!=", "<", "<=", ">", ">=", "+", "-", "*", "/"};
    return (unsigned)op < sizeof text / sizeof *text ? text[op] : "?";
}

static bool bare_name(const char *s, size_t n)
{
    struct token t = {.kind = TK_NAME, .val = s, .vlen = n};
    if (n == 0 || is_reserved(&t) ||
        in_words(&t, literal_prefixes, sizeof literal_prefixes / sizeof *literal_prefixes))
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
        if (!letter && !(i > 0 && ((c >= '0' && c <= '9') || c == '$')))
            return false;
    }
    return true;
}

static int put_quoted(struct buf *out, char q, const char *s, size_t n)
{
    if (buf_putc(out, q) != 0)
        return -1;
    for (size_t i = 0; i < n; i++)
        if ((s[i] == q && buf_putc(out, q) != 0) || buf_putc(out, s[i]) != 0)
            return -1;
    return buf_putc(out, q);
}

static int put_literal(const struct expr *e, struct buf *out)
{
    static const char *const prefix[] = {
        [LIT_DATE] = "DATE ",           [LIT_TIME] = "TIME ",
        [LIT_TIMESTAMP] = "TIMESTAMP ", [LIT_TIMESTAMPTZ] = "TIMESTAMPTZ ",
        [LIT_UUID] = "UUID ",
    };
    switch (e->lit) {
    case LIT_NULL: return buf_puts(out, "NULL");
    case LIT_TRUE: return buf_puts(out, "TRUE");
    case LIT_FALSE: return buf_puts(out, "FALSE");
    case LIT_NUMBER: return buf_append(out, e->text, e->len);
    case LIT_STRING: return put_quoted(out, '\'', e->text, e->len);
    case LIT_BINARY:
        if (buf_puts(out, "X'") != 0)
            return -1;
        for (size_t i = 0; i < e->len; i++)
            if (buf_printf(out, "%02X", (unsigned char)e->text[i]) != 0)
                return -1;
        return buf_putc(out, '\'');
    default:
        if (buf_puts(out, prefix[e->lit]) != 0)
            return -1;
        return put_quoted(out, '\'', e->text, e->len);
    }
}

static int put_expr(const struct expr *e, struct buf *out);

static int put_joined(const struct expr *e, size_t from, const char *sep, struct buf *out)
{
    for (size_t k = from; k < e->nargs; k++)
        if ((k > from && buf_puts(out, sep) != 0) || put_expr(e->args[k], out) != 0)
            return -1;
    return 0;
}

static int put_expr(const struct expr *e, struct buf *out)
{
    switch (e->kind) {
    case EK_COLUMN:
        for (size_t k = 0; k < e->nnames; k++) {
            int r = k > 0 ? buf_putc(out, '.') : 0;
            if (r == 0)
                r = bare_name(e->names[k], e->name_lens[k])
                        ? buf_append(out, e->names[k], e->name_lens[k])
                        : put_quoted(out, '"', e->names[k], e->name_lens[k]);
            if (r != 0)
                return -1;
        }
        return 0;
    case EK_LITERAL: return put_literal(e, out);
    case EK_CASE:
        if (buf_puts(out, "CASE") != 0)
            return -1;
        for (size_t k = 0; k + 1 < e->nargs + !e->has_else; k += 2)
            if (buf_puts(out, " WHEN ") != 0 || put_expr(e->args[k], out) != 0 ||
                buf_puts(out, " THEN ") != 0 || put_expr(e->args[k + 1], out) != 0)
                return -1;
        if (e->has_else &&
            (buf_puts(out, " ELSE ") != 0 || put_expr(e->args[e->nargs - 1], out) != 0))
            return -1;
        return buf_puts(out, " END");
    default: break;
    }
    if (buf_putc(out, '(') != 0)
        return -1;
    int r = 0;
    switch (e->kind) {
    case EK_AND: r = put_joined(e, 0, " AND ", out); break;
    case EK_OR: r = put_joined(e, 0, " OR ", out); break;
    case EK_NOT: r = buf_puts(out, "NOT ") || put_expr(e->args[0], out); break;
    case EK_NEG: r = buf_puts(out, "-(") || put_expr(e->args[0], out) || buf_putc(out, ')'); break;
    case EK_CMP:
        r = put_expr(e->args[0], out) || buf_printf(out, " %s ", expr_op_text(e->op)) ||
            put_expr(e->args[1], out);
        break;
    case EK_ISNULL:
        r = put_expr(e->args[0], out) || buf_puts(out, e->negated ? " IS NOT NULL" : " IS NULL");
        break;
    case EK_IN:
        r = put_expr(e->args[0], out) || buf_puts(out, e->negated ? " NOT IN (" : " IN (") ||
            put_joined(e, 1, ", ", out) || buf_putc(out, ')');
        break;
    case EK_BETWEEN:
        r = put_expr(e->args[0], out) ||
            buf_puts(out, e->negated ? " NOT BETWEEN " : " BETWEEN ") ||
            put_expr(e->args[1], out) || buf_puts(out, " AND ") || put_expr(e->args[2], out);
        break;
    case EK_ARITH:
        for (size_t k = 0; r == 0 && k < e->nargs; k++)
            r = (k > 0 && buf_printf(out, " %s ", expr_op_text(e->ops[k])) != 0) ||
                put_expr(e->args[k], out);
        break;
    default: break;
    }
    return r || buf_putc(out, ')') ? -1 : 0;
}

int expr_to_text(const struct expr *e, struct buf *out)
{
    return put_expr(e, out);
}

int expr_assignments_to_text(const struct expr_assignments *as, struct buf *out)
{
    for (size_t k = 0; k < as->n; k++)
        if ((k > 0 && buf_puts(out, ", ") != 0) || put_expr(as->items[k].target, out) != 0 ||
            buf_puts(out, " = ") != 0 || put_expr(as->items[k].value, out) != 0)
            return -1;
    return 0;
}
