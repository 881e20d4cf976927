/* The lexer: text into tokens, each with its character position. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "expr/expr_internal.h"
#include "util/strutil.h"

enum { SHOWN_MAX = 40 };

/* The token as a message shows it: at most SHOWN_MAX bytes, cut on a
 * character boundary, control characters as '?'. */
static void shown_token(const struct expr_span *at, char *out, size_t size)
{
    size_t n = at->len;
    bool cut = false;
    if (n > SHOWN_MAX) {
        n = SHOWN_MAX;
        while (n > 0 && ((unsigned char)at->src[n] & 0xc0) == 0x80)
            n--;
        cut = true;
    }
    if (n + 4 > size)
        n = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)at->src[i];
        out[i] = c < 0x20 || c == 0x7f ? '?' : (char)c;
    }
    strcpy(out + n, cut ? "..." : "");
    str_utf8_sanitize(out); /* an invalid byte the error is about */
}

int expr_fail_at(struct error *err, const struct expr_span *at, const char *fmt, ...)
{
    char msg[ERROR_MESSAGE_MAX / 2];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (at->len == 0)
        return error_fail(err, ERR_INVALID, "at %u (end of input): %s", at->pos, msg);
    char tok[SHOWN_MAX + 8];
    shown_token(at, tok, sizeof tok);
    return error_fail(err, ERR_INVALID, "at %u ('%s'): %s", at->pos, tok, msg);
}

struct lexer {
    struct arena *a;
    const char *text;
    size_t len, at;
    uint32_t cpos; /* characters before `at` */
    struct error *err;
};

static void advance(struct lexer *lx, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (((unsigned char)lx->text[lx->at + i] & 0xc0) != 0x80)
            lx->cpos++;
    lx->at += n;
}

static bool is_name_start(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
}

static bool is_name_char(unsigned char c)
{
    return is_name_start(c) || (c >= '0' && c <= '9') || c == '$';
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static int fail_here(struct lexer *lx, size_t len, const char *msg)
{
    struct expr_span at = {lx->cpos + 1, lx->text + lx->at, len};
    return expr_fail_at(lx->err, &at, "%s", msg);
}

/* A quoted run ('...' or "..."), the quote doubled inside; the decoded
 * text into the arena. Returns the source length, or 0 on failure. */
static size_t quoted(struct lexer *lx, size_t start, char q, const char **val, size_t *vlen)
{
    const char *s = lx->text;
    size_t end = start + 1, n = 0;
    for (;; end++, n++) {
        if (end >= lx->len) {
            fail_here(lx, lx->len - lx->at,
                      q == '\'' ? "unterminated string" : "unterminated quoted name");
            return 0;
        }
        if (s[end] == q) {
            if (end + 1 >= lx->len || s[end + 1] != q)
                break;
            end++;
        }
    }
    char *out = arena_alloc(lx->a, n + 1);
    if (!out) {
        error_nomem(lx->err);
        return 0;
    }
    for (size_t i = start + 1, k = 0; i < end; i++) {
        out[k++] = s[i];
        if (s[i] == q)
            i++;
    }
    out[n] = '\0';
    *val = out;
    *vlen = n;
    return end + 1 - lx->at;
}

/* digits [. digits] [e [+-] digits], or . digits ...; 0 when none. */
static size_t number_len(const char *s, size_t n)
{
    size_t i = 0, digits = 0;
    while (i < n && is_digit(s[i]))
        i++, digits++;
    if (i < n && s[i] == '.') {
        i++;
        while (i < n && is_digit(s[i]))
            i++, digits++;
    }
    if (digits == 0)
        return 0;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        size_t j = i + 1;
        if (j < n && (s[j] == '+' || s[j] == '-'))
            j++;
        if (j < n && is_digit(s[j])) {
            while (j < n && is_digit(s[j]))
                j++;
            i = j;
        }
    }
    return i;
}

static int hex_literal(struct lexer *lx, struct token *t)
{
    const char *v;
    size_t vlen, srclen = quoted(lx, lx->at + 1, '\'', &v, &vlen);
    if (srclen == 0)
        return -1;
    if (vlen % 2 != 0)
        return fail_here(lx, srclen, "a hex literal needs an even number of digits");
    uint8_t *bytes = arena_alloc(lx->a, vlen / 2 + 1);
    if (!bytes)
        return error_nomem(lx->err);
    if (str_hex_decode(v, vlen, bytes) != 0)
        return fail_here(lx, srclen, "a hex literal holds hex digits only");
    t->kind = TK_HEX;
    t->val = (const char *)bytes;
    t->vlen = vlen / 2;
    t->at.len = srclen;
    return 0;
}

static enum tk operator_kind(const char *s, size_t avail, size_t *len)
{
    *len = 1;
    if (avail >= 2) {
        *len = 2;
        if (s[0] == '!' && s[1] == '=')
            return TK_NE;
        if (s[0] == '<' && s[1] == '>')
            return TK_NE;
        if (s[0] == '<' && s[1] == '=')
            return TK_LE;
        if (s[0] == '>' && s[1] == '=')
            return TK_GE;
        if (s[0] == '=' && s[1] == '=')
            return TK_EQ;
        *len = 1;
    }
    switch (s[0]) {
    case '=': return TK_EQ;
    case '<': return TK_LT;
    case '>': return TK_GT;
    case '(': return TK_LPAREN;
    case ')': return TK_RPAREN;
    case ',': return TK_COMMA;
    case '.': return TK_DOT;
    case '+': return TK_PLUS;
    case '-': return TK_MINUS;
    case '*': return TK_STAR;
    case '/': return TK_SLASH;
    default: *len = 0; return TK_EOF;
    }
}

static int next_token(struct lexer *lx, struct token *t)
{
    const char *s = lx->text;
    while (lx->at < lx->len &&
           (s[lx->at] == ' ' || s[lx->at] == '\t' || s[lx->at] == '\n' || s[lx->at] == '\r'))
        advance(lx, 1);
    memset(t, 0, sizeof *t);
    t->at.pos = lx->cpos + 1;
    t->at.src = s + lx->at;
    if (lx->at >= lx->len) {
        t->kind = TK_EOF;
        return 0;
    }
    const char *p = s + lx->at;
    size_t avail = lx->len - lx->at, n;
    unsigned char c = (unsigned char)*p;
    if ((c == 'x' || c == 'X') && avail > 1 && p[1] == '\'') {
        if (hex_literal(lx, t) != 0)
            return -1;
    } else if (is_name_start(c)) {
        n = 1;
        while (n < avail && is_name_char((unsigned char)p[n]))
            n++;
        t->kind = TK_NAME;
        t->val = p;
        t->vlen = n;
        t->at.len = n;
    } else if (c == '\'' || c == '"') {
        if (!(n = quoted(lx, lx->at, (char)c, &t->val, &t->vlen)))
            return -1;
        t->kind = c == '\'' ? TK_STRING : TK_QNAME;
        t->at.len = n;
        if (c == '"' && (t->vlen == 0 || memchr(t->val, '\0', t->vlen)))
            return fail_here(lx, n, "a quoted name must be non-empty and hold no NUL");
    } else if ((n = number_len(p, avail)) > 0) {
        t->kind = TK_NUMBER;
        t->val = p;
        t->vlen = n;
        t->at.len = n;
        if (n < avail && is_name_char((unsigned char)p[n]))
            return fail_here(lx, n + 1, "a number runs into a name");
    } else {
        t->kind = operator_kind(p, avail, &n);
        if (n == 0) {
            size_t seq = str_utf8_seq((const unsigned char *)p, avail);
            return fail_here(lx, seq ? seq : 1, "unexpected character");
        }
        t->at.len = n;
    }
    advance(lx, t->at.len);
    return 0;
}

int expr_lex(struct arena *a, const char *text, size_t len, struct token **out, size_t *n,
             struct error *err)
{
    if (len > EXPR_MAX_TEXT)
        return error_fail(err, ERR_INVALID, "an expression is at most %d bytes, not %zu",
                          EXPR_MAX_TEXT, len);
    size_t bad = len;
    const char *nul = memchr(text, '\0', len);
    bool utf8 = str_utf8_valid(text, len, &bad);
    if (!utf8 || nul) {
        if (utf8 || (nul && (size_t)(nul - text) < bad))
            bad = (size_t)(nul - text);
        struct lexer lx = {a, text, len, 0, 0, err};
        advance(&lx, bad);
        struct expr_span at = {lx.cpos + 1, text + bad, 1};
        return expr_fail_at(err, &at, "%s",
                            text[bad] ? "invalid UTF-8" : "a NUL character in an expression");
    }
    /* At most one token per byte, and the end. */
    struct token *toks = arena_calloc(a, len + 1, sizeof *toks);
    if (!toks)
        return error_nomem(err);
    struct lexer lx = {a, text, len, 0, 0, err};
    size_t k = 0;
    do {
        if (next_token(&lx, &toks[k]) != 0)
            return -1;
    } while (toks[k++].kind != TK_EOF);
    *out = toks;
    *n = k;
    return 0;
}
