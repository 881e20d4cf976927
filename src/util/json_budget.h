/* A budget for a JSON text, checked by one linear scan before it is parsed.
 *
 * jansson turns every value into its own allocations: a body of tiny values
 * ("[1,1,1,...") costs it tens of bytes per byte of text, and a deeply
 * nested one costs it time and stack. The scan counts what a parse would
 * build -- values (scalars, arrays and objects; an object's keys are not
 * values), nesting depth and string bytes -- in O(n) without allocating,
 * and stops as soon as a limit is crossed, so a hostile body is refused
 * before jansson ever sees it.
 *
 * It does not validate JSON (jansson still does); it only has to be right,
 * or err on the high side, about text jansson would accept. Strings are
 * skipped exactly, escapes included, so brackets, quotes and colons inside
 * them count for nothing. Anything malformed either over-counts or is text
 * jansson refuses at its first error, having built no more than the valid
 * prefix the scan already counted.
 *
 * The scan can be fed in chunks (the HTTP transport checks bodies as they
 * arrive) or run over a whole text at once (json_budget_check). */
#ifndef HL_UTIL_JSON_BUDGET_H
#define HL_UTIL_JSON_BUDGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum json_budget_verdict {
    JSON_BUDGET_OK,
    JSON_BUDGET_TOO_DEEP,        /* nesting past max_depth */
    JSON_BUDGET_TOO_MANY_VALUES, /* values past max_values */
};

/* The value budget of a body of len bytes: one value per 8 bytes of text,
 * plus 1024 so that small bodies are never refused by the ratio, and never
 * more than cap. jansson spends roughly 50-100 bytes per value, so a tree
 * within this budget stays within about 10x its text (see docs/limits.md). */
int64_t json_budget_values_for(size_t len, int64_t cap);

/* The state of one scan. Read the counts; set nothing but through the
 * functions below. */
struct json_budget_scan {
    int max_depth;      /* containers nested deeper than this are refused */
    int64_t max_values; /* more values than this are refused */
    int64_t values;
    int64_t string_bytes; /* raw bytes between quotes, keys included */
    int depth;            /* current nesting */
    int deepest;
    size_t offset; /* bytes consumed; where the scan stopped on a refusal */
    enum json_budget_verdict verdict;
    /* Lexer state, carried across chunks. */
    unsigned char lex;   /* between tokens, in a string, after a backslash, in a scalar */
    bool pending_string; /* a string ended: a ':' next makes it a key, anything else a value */
};

void json_budget_begin(struct json_budget_scan *s, int max_depth, int64_t max_values);
/* Scans the next bytes. Once a verdict other than OK is returned, the scan
 * is over and further calls return it again without reading. */
enum json_budget_verdict json_budget_feed(struct json_budget_scan *s, const char *text, size_t len);
/* Ends the text (a string at the very end is a value). */
enum json_budget_verdict json_budget_end(struct json_budget_scan *s);

/* The whole scan of one text; *s holds the counts afterwards. */
enum json_budget_verdict json_budget_check(const char *text, size_t len, int max_depth,
                                           int64_t max_values, struct json_budget_scan *s);

/* A sentence naming the budget a refused scan crossed ("the JSON body nests
 * deeper than 64 levels ..."), for error details. */
void json_budget_describe(const struct json_budget_scan *s, char *out, size_t size);

#endif
