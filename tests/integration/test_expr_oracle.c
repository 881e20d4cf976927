/* The expression language against an independent engine: random
 * predicates (seeded; the seed is printed, HOGLAKE_TEST_SEED replays one)
 * over a random table written to Parquet by our writer. DuckDB runs the
 * same WHERE over the same file; our evaluation of the rows read back must
 * select as many rows, and every row group, file and partition our pruning
 * drops must hold none of DuckDB's rows (pruning is never wrong). */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "expr/expr.h"
#include "expr_testlib.h"
#include "harness.h"
#include "lake/bounds.h"
#include "lake/partition.h"
#include "parquet/colstats.h"
#include "pq_testlib.h"
#include "rows/rows_project.h"
#include "util/arrow.h"
#include "util/jsonnum.h"
#include "util/timefmt.h"

enum { ROWS = 20000, GROUP_ROWS = 1000, GROUPS = ROWS / GROUP_ROWS, PREDICATES = 400 };
_Static_assert(GROUPS < 63, "DuckDB answers the row groups as the bits of a BIGINT");

static const char columns[] =
    "[{'name':'id','type':'long','nullable':false},{'name':'a','type':'int'},"
    "{'name':'b','type':'long'},{'name':'c','type':'double'},"
    "{'name':'d','type':'decimal','type_params':{'precision':10,'scale':2}},"
    "{'name':'s','type':'string'},{'name':'dt','type':'date'},{'name':'ts','type':'timestamp'},"
    "{'name':'tz','type':'timestamptz'},{'name':'flag','type':'boolean'},"
    "{'name':'u','type':'uuid'},{'name':'u8','type':'uint8'},{'name':'u64','type':'uint64'},"
    "{'name':'st','type':'struct','children':[{'name':'x','type':'int'},"
    "  {'name':'y','type':'string'}]}]";

static const char *const words[] = {"",   "a", "ab", "abc", "b", "\xc3\xa9t\xc3\xa9",
                                    "zz", "A", "a b"};
static const char *const uuids[] = {
    "00000000-0000-0000-0000-000000000000", "00000000-0000-0000-0000-000000000001",
    "7f000000-0000-0000-0000-000000000000", "80000000-0000-0000-0000-000000000000",
    "ffffffff-ffff-ffff-ffff-ffffffffffff"};
#define NWORDS (sizeof words / sizeof *words)
#define NUUIDS (sizeof uuids / sizeof *uuids)

/* One row's values, as literal text in both grammars (NULL: null). */
struct row {
    char *v[16];
};

enum col {
    C_ID,
    C_A,
    C_B,
    C_C,
    C_D,
    C_S,
    C_DT,
    C_TS,
    C_TZ,
    C_FLAG,
    C_U,
    C_U8,
    C_U64,
    C_X,
    C_Y,
    C_ST
};

static const char *const names[] = {"id", "a",    "b", "c",  "d",   "s",    "dt",   "ts",
                                    "tz", "flag", "u", "u8", "u64", "st.x", "st.y", "st"};

static struct rng g;
static struct row data[ROWS];

static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...)
{
    struct buf b = BUF_INIT;
    va_list ap;
    va_start(ap, f);
    assert_int_equal(buf_vprintf(&b, f, ap), 0);
    va_end(ap);
    return buf_take(&b);
}

static bool chance(int per_mille)
{
    return (int)rng_below(&g, 1000) < per_mille;
}

static int64_t between(int64_t lo, int64_t hi)
{
    return lo + (int64_t)rng_below(&g, (uint64_t)(hi - lo + 1));
}

static void civil(int64_t days, char *out, size_t n)
{
    int64_t y;
    unsigned m, d;
    time_civil_from_days(days, &y, &m, &d);
    snprintf(out, n, "%04lld-%02u-%02u", (long long)y, m, d);
}

static char *stamp(int64_t micros)
{
    int64_t days = micros >= 0 ? micros / 86400000000 : -((-micros + 86399999999) / 86400000000);
    int64_t rest = micros - days * 86400000000;
    char date[32];
    civil(days, date, sizeof date);
    return fmt("%s %02lld:%02lld:%02lld.%06lld", date, (long long)(rest / 3600000000),
               (long long)(rest / 60000000 % 60), (long long)(rest / 1000000 % 60),
               (long long)(rest % 1000000));
}

/* Values clustered by id, so that row groups have narrow ranges. */
static void make_row(int64_t id, struct row *r)
{
    memset(r, 0, sizeof *r);
    r->v[C_ID] = fmt("%lld", (long long)id);
    if (!chance(100))
        r->v[C_A] = fmt("%lld", (long long)(id / 400 - 25 + between(-1, 1)));
    if (!chance(100))
        r->v[C_B] = chance(500)
                        ? fmt("%lld", (long long)between(-5, 5))
                        : fmt("%lld", (long long)between(-1000000000000000, 1000000000000000));
    if (!chance(100)) {
        int k = (int)rng_below(&g, 40);
        r->v[C_C] = k == 0   ? fmt("'NaN'")
                    : k == 1 ? fmt("'Infinity'")
                    : k == 2 ? fmt("'-Infinity'")
                    : k == 3 ? fmt("-0.0")
                             : fmt("%.2f", (double)(id / 500 - 20) + 0.25 * (double)between(-3, 3));
    }
    if (!chance(100)) {
        int64_t cents = id - 10000 + between(-300, 300);
        r->v[C_D] = fmt("%s%lld.%02lld", cents < 0 ? "-" : "", (long long)(llabs(cents) / 100),
                        (long long)(llabs(cents) % 100));
    }
    if (!chance(100))
        r->v[C_S] = fmt("'%s'", words[chance(800) ? (id / 2500) % NWORDS : rng_below(&g, NWORDS)]);
    char date[32];
    if (!chance(100)) {
        civil(-30 + id / 50 + between(0, 2), date, sizeof date);
        r->v[C_DT] = fmt("DATE '%s'", date);
    }
    int64_t base = INT64_C(-86400000000) * 3;
    if (!chance(100)) {
        char *s = stamp(base + id * 60000000 + between(0, 59999999));
        r->v[C_TS] = fmt("TIMESTAMP '%s'", s);
        free(s);
    }
    if (!chance(100)) {
        char *s = stamp(base + id * 90000000 + between(-5000000, 5000000));
        r->v[C_TZ] = fmt("TIMESTAMPTZ '%s+00:00'", s);
        free(s);
    }
    if (!chance(100))
        r->v[C_FLAG] = fmt("%s", id % 3 == 0 || chance(200) ? "TRUE" : "FALSE");
    if (!chance(100))
        r->v[C_U] = fmt("'%s'", uuids[chance(700) ? (id / 4000) % NUUIDS : rng_below(&g, NUUIDS)]);
    if (!chance(100))
        r->v[C_U8] = fmt("%lld", (long long)(chance(900) ? (id / 80) % 256 : between(0, 255)));
    if (!chance(100))
        r->v[C_U64] = chance(500) ? fmt("%lld", (long long)between(0, 20))
                                  : fmt("%llu", 18446744073709551615ULL - rng_below(&g, 20));
    if (!chance(100)) {
        r->v[C_ST] = fmt("{}");
        if (!chance(150))
            r->v[C_X] = fmt("%lld", (long long)(id / 2000 + between(-1, 1)));
        if (!chance(150))
            r->v[C_Y] = fmt("'%s'", words[rng_below(&g, NWORDS)]);
    }
}

/* A literal's JSON Lines form. */
static void json_value(struct buf *b, enum col c, const char *lit)
{
    if (!lit) {
        buf_puts(b, "null");
        return;
    }
    if (c == C_FLAG) {
        buf_puts(b, strcmp(lit, "TRUE") == 0 ? "true" : "false");
        return;
    }
    const char *q = strchr(lit, '\'');
    if (!q) {
        buf_puts(b, lit);
        return;
    }
    const char *e = strrchr(lit, '\'');
    buf_putc(b, '"');
    buf_append(b, q + 1, (size_t)(e - q - 1));
    buf_putc(b, '"');
}

static char *rows_jsonl(void)
{
    struct buf b = BUF_INIT;
    for (int r = 0; r < ROWS; r++) {
        buf_putc(&b, '{');
        for (int c = C_ID; c <= C_U64; c++) {
            buf_printf(&b, "%s\"%s\":", c ? "," : "", names[c]);
            json_value(&b, (enum col)c, data[r].v[c]);
        }
        buf_puts(&b, ",\"st\":");
        if (!data[r].v[C_ST]) {
            buf_puts(&b, "null");
        } else {
            buf_puts(&b, "{\"x\":");
            json_value(&b, C_X, data[r].v[C_X]);
            buf_puts(&b, ",\"y\":");
            json_value(&b, C_Y, data[r].v[C_Y]);
            buf_putc(&b, '}');
        }
        buf_puts(&b, "}\n");
    }
    return buf_take(&b);
}

/* ---- random predicates ---- */

static const enum col comparable[] = {C_A,  C_B,    C_C, C_D,  C_S,   C_DT, C_TS,
                                      C_TZ, C_FLAG, C_U, C_U8, C_U64, C_X,  C_Y};
#define NCOMPARABLE (sizeof comparable / sizeof *comparable)

/* A literal for column c: a value some row has, now and then NULL. */
static const char *literal(enum col c)
{
    if (chance(30))
        return "NULL";
    for (int tries = 0; tries < 50; tries++) {
        const char *v = data[rng_below(&g, ROWS)].v[c];
        if (v)
            return v;
    }
    return "NULL";
}

/* A column of c's family, for column-to-column comparisons. */
static enum col partner(enum col c)
{
    static const enum col numbers[] = {C_A, C_B, C_C, C_D, C_U8, C_U64, C_X};
    static const enum col texts[] = {C_S, C_Y};
    static const enum col instants[] = {C_DT, C_TS, C_TZ};
    switch (c) {
    case C_S:
    case C_Y: return texts[rng_below(&g, 2)];
    case C_DT:
    case C_TS:
    case C_TZ: return instants[rng_below(&g, 3)];
    case C_FLAG:
    case C_U: return c;
    default: return numbers[rng_below(&g, 7)];
    }
}

static const char *const ops[] = {"=", "!=", "<", "<=", ">", ">=", "<>"};

static void test_leaf(struct buf *b)
{
    enum col c = comparable[rng_below(&g, NCOMPARABLE)];
    const char *name = names[c];
    switch (rng_below(&g, 10)) {
    case 0:
        buf_printf(b, "%s IS %sNULL", rng_below(&g, 5) == 0 ? "st" : name,
                   chance(500) ? "NOT " : "");
        return;
    case 1: {
        buf_printf(b, "%s %sIN (", name, chance(300) ? "NOT " : "");
        int n = (int)between(1, 5);
        for (int k = 0; k < n; k++)
            buf_printf(b, "%s%s", k ? ", " : "", chance(50) ? "NULL" : literal(c));
        buf_putc(b, ')');
        return;
    }
    case 2:
        buf_printf(b, "%s %sBETWEEN %s AND %s", name, chance(300) ? "NOT " : "", literal(c),
                   literal(c));
        return;
    case 3: buf_printf(b, "%s %s %s", name, ops[rng_below(&g, 7)], names[partner(c)]); return;
    case 4: buf_printf(b, "%s %s %s", literal(c), ops[rng_below(&g, 7)], name); return;
    case 5: buf_printf(b, "%sflag", chance(500) ? "NOT " : ""); return;
    default: buf_printf(b, "%s %s %s", name, ops[rng_below(&g, 7)], literal(c)); return;
    }
}

static void predicate(struct buf *b, int depth)
{
    if (depth == 0 || chance(350)) {
        test_leaf(b);
        return;
    }
    switch (rng_below(&g, 3)) {
    case 0:
        buf_puts(b, "NOT (");
        predicate(b, depth - 1);
        buf_putc(b, ')');
        return;
    default: {
        const char *join = rng_below(&g, 2) ? " AND " : " OR ";
        int n = (int)between(2, 3);
        buf_putc(b, '(');
        for (int k = 0; k < n; k++) {
            if (k)
                buf_puts(b, join);
            predicate(b, depth - 1);
        }
        buf_putc(b, ')');
    }
    }
}

/* ---- what we compute ---- */

struct verdict {
    int64_t count;                /* rows our evaluation selects */
    bool group_kept[GROUPS];      /* row-group statistics */
    bool group_kept_json[GROUPS]; /* the same statistics through the scan plan's JSON */
    bool file_kept;
    bool partition_ok; /* no selected row lies in a partition pruning drops */
};

struct ours {
    struct arena arena;
    struct test_table tt;
    struct buf file;
    struct pq_write_result written;
    struct ArrowSchema schema; /* the table's shape, as the projection reads it */
    struct ArrowArray batch[GROUPS];
    struct expr_field_stats *group_stats[GROUPS], *group_json[GROUPS], *file_stats;
    size_t ngroup_stats[GROUPS], ngroup_json[GROUPS], nfile_stats;
    struct lake_partition_field spec[4];
    struct lake_partition_groups parts[GROUPS];
};

/* A row group's statistics rendered as the scan plan renders them, and
 * read back through the adapter. */
static void stats_through_json(struct ours *o, size_t rg)
{
    struct pq_col_stats *cs;
    size_t n;
    struct error err;
    assert_int_equal(pq_row_group_column_stats(&o->written.meta, &o->written.schema, &o->tt.t, rg,
                                               &o->arena, &cs, &n, &err),
                     0);
    json_t *all = json_array();
    for (size_t k = 0; k < n; k++) {
        const struct lake_column *c = lake_table_find_field(&o->tt.t, cs[k].field_id);
        json_t *lo = cs[k].lower ? bound_to_json(c->type, c->precision, c->scale, cs[k].lower,
                                                 cs[k].lower_len, &err)
                                 : json_null();
        json_t *hi = cs[k].upper ? bound_to_json(c->type, c->precision, c->scale, cs[k].upper,
                                                 cs[k].upper_len, &err)
                                 : json_null();
        assert_non_null(lo);
        assert_non_null(hi);
        json_array_append_new(
            all, json_pack("{s:I,s:I,s:I,s:o,s:o}", "field_id", (json_int_t)cs[k].field_id,
                           "value_count", (json_int_t)cs[k].value_count, "null_count",
                           (json_int_t)cs[k].null_count, "lower_bound", lo, "upper_bound", hi));
    }
    /* Through text, as a client receives it: jansson refuses integers past
     * int64 (a uint64 bound) unless it reads every integer as a real. */
    char *text = jsonnum_dumps(all, JSON_COMPACT);
    assert_non_null(text);
    json_decref(all);
    all = json_loads(text, 0, NULL);
    if (!all)
        all = json_loads(text, JSON_DECODE_INT_AS_REAL, NULL);
    free(text);
    assert_non_null(all);
    assert_int_equal(expr_stats_from_json(&o->tt.t, all, &o->arena, &o->group_json[rg],
                                          &o->ngroup_json[rg], &err),
                     0);
    json_decref(all);
}

static void prepare(struct ours *o, const char *dir)
{
    arena_init(&o->arena, 0);
    test_table_init(&o->tt, columns);
    char *jsonl = rows_jsonl();
    struct ArrowSchema schema;
    struct ArrowArray batch;
    xt_batch(&o->tt.t, jsonl, &schema, &batch);
    free(jsonl);
    struct pq_write_options wo;
    pq_write_options_default(&wo);
    wo.row_group_rows = GROUP_ROWS;
    write_batches(&o->tt.t, &wo, &schema, &batch, 1, &o->file, &o->written);
    assert_int_equal(o->written.meta.nrow_groups, GROUPS);
    schema.release(&schema);
    batch.release(&batch);
    char path[700];
    snprintf(path, sizeof path, "%s/t.parquet", dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(o->file.data, 1, o->file.len, f), o->file.len);
    fclose(f);
    /* Read back through the reader and the table's projection, as a scan does. */
    struct pq_source src;
    struct pq_reader *r;
    struct rows_projection proj = {0};
    struct error err;
    pq_source_memory(&src, o->file.data, o->file.len);
    assert_int_equal(pq_reader_open(&src, &r, &err), 0);
    assert_int_equal(rows_project_open(r, &o->tt.t, &proj, &err), 0);
    const struct lake_table *t = &o->tt.t;
    /* A partition spec over the columns the predicates use. */
    o->spec[0] = (struct lake_partition_field){t->root.children[C_TS]->field_id, LTR_DAY, 0};
    o->spec[1] = (struct lake_partition_field){t->root.children[C_A]->field_id, LTR_BUCKET, 4};
    o->spec[2] = (struct lake_partition_field){t->root.children[C_S]->field_id, LTR_TRUNCATE, 1};
    o->spec[3] = (struct lake_partition_field){t->root.children[C_FLAG]->field_id, LTR_IDENTITY, 0};
    struct lake_table partitioned = *t;
    partitioned.partitioned = true;
    partitioned.spec_fields = o->spec;
    partitioned.nspec_fields = 4;
    for (size_t rg = 0; rg < GROUPS; rg++) {
        if (rows_project_read(r, rg, &proj, t, &o->batch[rg], &err) != 0)
            fail_msg("read: %s", err.msg);
        assert_int_equal(expr_stats_from_row_group(t, &o->written.meta, &o->written.schema, rg,
                                                   &o->arena, &o->group_stats[rg],
                                                   &o->ngroup_stats[rg], &err),
                         0);
        stats_through_json(o, rg);
        if (lake_partition_group_rows(&partitioned, &proj.projected, &o->batch[rg], &o->parts[rg],
                                      &err) != 0)
            fail_msg("partitions: %s", err.msg);
    }
    arrow_schema_move(&proj.projected, &o->schema);
    rows_project_free(&proj);
    pq_reader_free(r);
    struct pq_col_stats *cs;
    size_t n;
    assert_int_equal(
        pq_footer_column_stats(&o->written.meta, &o->written.schema, t, &o->arena, &cs, &n, &err),
        0);
    o->file_stats = arena_calloc(&o->arena, n, sizeof *o->file_stats);
    for (size_t k = 0; k < n; k++)
        o->file_stats[k] = (struct expr_field_stats){
            cs[k].field_id,  cs[k].lower,       cs[k].upper,      cs[k].lower_len,
            cs[k].upper_len, cs[k].value_count, cs[k].null_count, -1};
    o->nfile_stats = n;
}

static void release(struct ours *o)
{
    o->schema.release(&o->schema);
    for (size_t rg = 0; rg < GROUPS; rg++) {
        o->batch[rg].release(&o->batch[rg]);
        lake_partition_groups_free(&o->parts[rg]);
    }
    pq_write_result_release(&o->written);
    buf_free(&o->file);
    test_table_release(&o->tt);
    arena_free(&o->arena);
}

static void judge(struct ours *o, const struct expr_pred *p, struct verdict *v)
{
    memset(v, 0, sizeof *v);
    v->file_kept = expr_pred_may_match(p, o->file_stats, o->nfile_stats);
    v->partition_ok = true;
    struct error err;
    uint8_t *sel = malloc(GROUP_ROWS);
    assert_non_null(sel);
    for (size_t rg = 0; rg < GROUPS; rg++) {
        int64_t n;
        if (expr_pred_eval(p, &o->schema, &o->batch[rg], sel, &n, &err) != 0)
            fail_msg("eval: %s", err.msg);
        v->count += n;
        v->group_kept[rg] = expr_pred_may_match(p, o->group_stats[rg], o->ngroup_stats[rg]);
        v->group_kept_json[rg] = expr_pred_may_match(p, o->group_json[rg], o->ngroup_json[rg]);
        /* Every selected row's partition must be kept. */
        const struct lake_partition_groups *pg = &o->parts[rg];
        bool *kept = calloc(pg->ngroups + 1, sizeof *kept);
        assert_non_null(kept);
        for (size_t k = 0; k < pg->ngroups; k++)
            kept[k] = expr_pred_may_match_partition(p, o->spec, 4,
                                                    (const char *const *)pg->values + k * 4, 4);
        for (int64_t r = 0; r < GROUP_ROWS; r++)
            if (sel[r] && !kept[pg->group_of_row[r]])
                v->partition_ok = false;
        free(kept);
    }
    free(sel);
}

/* ---- DuckDB ---- */

static void test_oracle(void **state)
{
    (void)state;
    uint64_t seed = (uint64_t)time(NULL);
    const char *env = getenv("HOGLAKE_TEST_SEED");
    if (env)
        seed = strtoull(env, NULL, 10);
    fprintf(stderr, "test_expr_oracle: seed %" PRIu64 " (HOGLAKE_TEST_SEED replays it)\n", seed);
    g.state = seed;
    for (int r = 0; r < ROWS; r++)
        make_row(r, &data[r]);
    char dir[600];
    test_scratch_dir(dir, sizeof dir, "expr-oracle");
    static struct ours o;
    prepare(&o, dir);
    /* The predicates, each bound and judged by us. */
    static char *texts[PREDICATES];
    static struct verdict ours_v[PREDICATES];
    struct buf sql = BUF_INIT;
    buf_puts(&sql, "SELECT ");
    int n = 0;
    while (n < PREDICATES) {
        struct buf b = BUF_INIT;
        predicate(&b, 3);
        struct expr_pred *p;
        struct error err;
        if (expr_compile_predicate(&o.arena, &o.tt.t, b.data, b.len, &p, &err) != 0)
            fail_msg("seed %" PRIu64 ": predicate '%s': %s", seed, b.data, err.msg);
        texts[n] = buf_take(&b);
        judge(&o, p, &ours_v[n]);
        /* The count, and the row groups with a selected row as bits. */
        buf_printf(&sql,
                   "%scount(*) FILTER (WHERE %s), "
                   "bit_or(1::BIGINT << (file_row_number // %d)::INTEGER) FILTER (WHERE %s)",
                   n ? ", " : "", texts[n], GROUP_ROWS, texts[n]);
        n++;
    }
    buf_printf(&sql, " FROM read_parquet('%s/t.parquet', file_row_number = true)", dir);
    char *out = test_duckdb(HL_NODE, HL_INTEROP_DIR, dir, sql.data);
    /* One row, tab-separated: count, groups, count, groups... */
    char *save = NULL, *field = strtok_r(out, "\t\n", &save);
    int64_t total_selected = 0, groups_pruned = 0, files_pruned = 0;
    for (int k = 0; k < n; k++) {
        assert_non_null(field);
        int64_t want = strtoll(field, NULL, 10);
        field = strtok_r(NULL, "\t\n", &save);
        assert_non_null(field);
        int64_t has = strcmp(field, "\\N") == 0 ? 0 : strtoll(field, NULL, 10);
        field = strtok_r(NULL, "\t\n", &save);
        const struct verdict *v = &ours_v[k];
        if (v->count != want)
            fail_msg("seed %" PRIu64 ": '%s' selects %lld rows, DuckDB %lld", seed, texts[k],
                     (long long)v->count, (long long)want);
        if (want > 0 && !v->file_kept)
            fail_msg("seed %" PRIu64 ": '%s' pruned the file", seed, texts[k]);
        for (int rg = 0; rg < GROUPS; rg++) {
            if ((has >> rg & 1) && (!v->group_kept[rg] || !v->group_kept_json[rg]))
                fail_msg("seed %" PRIu64 ": '%s' pruned row group %d (%s statistics)", seed,
                         texts[k], rg, v->group_kept[rg] ? "JSON" : "footer");
            groups_pruned += !v->group_kept[rg];
        }
        if (!v->partition_ok)
            fail_msg("seed %" PRIu64 ": '%s' pruned a partition holding a selected row", seed,
                     texts[k]);
        files_pruned += !v->file_kept;
        total_selected += want;
        free(texts[k]);
    }
    fprintf(stderr,
            "test_expr_oracle: %d predicates, %lld rows selected, %lld of %d row groups and %lld "
            "files pruned\n",
            n, (long long)total_selected, (long long)groups_pruned, n * GROUPS,
            (long long)files_pruned);
    /* The data is clustered: pruning must have had something to do. */
    assert_true(groups_pruned > n);
    free(out);
    buf_free(&sql);
    release(&o);
    for (int r = 0; r < ROWS; r++)
        for (int c = 0; c < 16; c++)
            free(data[r].v[c]);
    test_remove_tree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_oracle)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
