/* rows_sort and rows_take speed on the exporter's shape: rows of an
 * "ai-gateway messages" table arriving in many batches, sorted by
 * (session_id, conversation_id, message_created_at) and gathered into one
 * batch.
 *
 *   sort_bench [ROWS [BATCH_ROWS [uuid [SESSIONS]]]]   (defaults: 1000000 rows, 10000 a batch)
 *
 * session_id: one of 20,000 "session-XXXXXXXX"; conversation_id: one of
 * 200,000 "conv-XXXXXXXXXXXX", 10% null; message_created_at: microseconds
 * over 30 days; payload: 64 bytes. With "uuid", both ids are UUID text;
 * SESSIONS sets the number of distinct sessions (default 20,000).
 * Prints seconds per step (CPU time). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rows/rows_sort.h"
#include "util/arrow.h"

static uint64_t next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Ids as UUID text (36 characters, random-looking) instead of short
 * prefixed hex: the harder case, where the first bytes do not settle ties. */
static int uuid_ids;
static uint64_t sessions;

/* A string column of n values: prefix, then a random draw below
 * `distinct` in `digits` hex digits (or as a UUID); null_pct percent
 * null. */
static int string_column(struct ArrowArray *a, int64_t n, const char *prefix, int digits,
                         uint64_t distinct, int null_pct, uint64_t *seed)
{
    if (arrow_array_init(a, 3, 0) != 0)
        return -1;
    int32_t *off = malloc(((size_t)n + 1) * sizeof *off);
    uint8_t *valid = calloc((size_t)n / 8 + 1, 1);
    char *data = malloc((size_t)n * 40 + 1);
    arrow_array_own_buffer(a, 0, valid);
    arrow_array_own_buffer(a, 1, off);
    arrow_array_own_buffer(a, 2, data);
    if (!off || !valid || !data)
        return -1;
    a->length = n;
    int32_t at = 0;
    for (int64_t i = 0; i < n; i++) {
        off[i] = at;
        if ((int)(next(seed) % 100) < null_pct) {
            a->null_count++;
            continue;
        }
        arrow_set_bit(valid, i, true);
        uint64_t v = next(seed) % distinct;
        if (uuid_ids) {
            uint64_t h = v, x = next(&h), y = next(&h);
            at += snprintf(data + at, 40, "%08llx-%04llx-%04llx-%04llx-%012llx",
                           (unsigned long long)(x >> 32), (unsigned long long)(x >> 16 & 0xffff),
                           (unsigned long long)(x & 0xffff), (unsigned long long)(y >> 48),
                           (unsigned long long)(y & 0xffffffffffffULL));
        } else {
            at += snprintf(data + at, 40, "%s%0*llx", prefix, digits, (unsigned long long)v);
        }
    }
    off[n] = at;
    return 0;
}

static int batch(struct ArrowArray *b, int64_t n, uint64_t *seed)
{
    if (arrow_array_init(b, 1, 4) != 0)
        return -1;
    b->length = n;
    struct ArrowArray *ts = b->children[2], *pay = b->children[3];
    if (string_column(b->children[0], n, "session-", 8, sessions ? sessions : 1, 0, seed) != 0 ||
        string_column(b->children[1], n, "conv-", 12, 200000, 10, seed) != 0 ||
        arrow_array_init(ts, 2, 0) != 0 || arrow_array_init(pay, 2, 0) != 0)
        return -1;
    int64_t *t = malloc((size_t)n * sizeof *t);
    uint8_t *p = malloc((size_t)n * 64);
    arrow_array_own_buffer(ts, 1, t);
    arrow_array_own_buffer(pay, 1, p);
    if (!t || !p)
        return -1;
    ts->length = pay->length = n;
    const int64_t start = 1764547200000000LL, span = 30LL * 86400 * 1000000;
    for (int64_t i = 0; i < n; i++)
        t[i] = start + (int64_t)(next(seed) % (uint64_t)span);
    memset(p, 'x', (size_t)n * 64);
    return 0;
}

static double seconds_since(clock_t t0)
{
    return (double)(clock() - t0) / CLOCKS_PER_SEC;
}

int main(int argc, char **argv)
{
    int64_t rows = argc > 1 ? atoll(argv[1]) : 1000000;
    int64_t per = argc > 2 ? atoll(argv[2]) : 10000;
    uuid_ids = argc > 3 && strcmp(argv[3], "uuid") == 0;
    sessions = argc > 4 ? strtoull(argv[4], NULL, 10) : 20000;
    if (rows <= 0 || per <= 0 || rows / per + 1 > UINT32_MAX) {
        fprintf(stderr, "usage: sort_bench [ROWS [BATCH_ROWS [uuid [SESSIONS]]]]\n");
        return 2;
    }
    struct ArrowSchema schema;
    const char *names[] = {"session_id", "conversation_id", "message_created_at", "payload"};
    const char *formats[] = {"u", "u", "tsu:UTC", "w:64"};
    if (arrow_schema_init(&schema, "+s", "", 0, 4) != 0)
        return 1;
    for (int i = 0; i < 4; i++)
        if (arrow_schema_init(schema.children[i], formats[i], names[i], ARROW_FLAG_NULLABLE, 0))
            return 1;
    size_t nb = (size_t)((rows + per - 1) / per);
    struct ArrowArray *batches = calloc(nb, sizeof *batches);
    const struct ArrowArray **bp = calloc(nb, sizeof *bp);
    struct rows_ref *refs = malloc((size_t)rows * sizeof *refs);
    if (!batches || !bp || !refs)
        return 1;
    uint64_t seed = 1;
    size_t at = 0;
    for (size_t b = 0; b < nb; b++) {
        int64_t n = rows - (int64_t)b * per < per ? rows - (int64_t)b * per : per;
        if (batch(&batches[b], n, &seed) != 0)
            return 1;
        bp[b] = &batches[b];
        for (int64_t r = 0; r < n; r++)
            refs[at++] = (struct rows_ref){(uint32_t)b, (uint32_t)r};
    }
    struct rows_sort_key keys[] = {
        {{0}, 1, false, false}, {{1}, 1, false, false}, {{2}, 1, false, false}};
    struct error err;
    clock_t t0 = clock();
    if (rows_sort(&schema, bp, nb, keys, 3, refs, (size_t)rows, &err) != 0) {
        fprintf(stderr, "sort: %s\n", err.msg);
        return 1;
    }
    double sort_s = seconds_since(t0);
    struct ArrowArray out;
    t0 = clock();
    if (rows_take(&schema, bp, nb, refs, (size_t)rows, &out, &err) != 0) {
        fprintf(stderr, "take: %s\n", err.msg);
        return 1;
    }
    double take_s = seconds_since(t0);
    printf("%lld rows in %zu batches: sort %.3f s (%.1f M rows/s), take %.3f s\n", (long long)rows,
           nb, sort_s, (double)rows / sort_s / 1e6, take_s);
    out.release(&out);
    for (size_t b = 0; b < nb; b++)
        batches[b].release(&batches[b]);
    free(batches);
    free(bp);
    free(refs);
    schema.release(&schema);
    return 0;
}
