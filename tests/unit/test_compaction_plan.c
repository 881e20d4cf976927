/* cpt_plan_bucket: compaction's grouping rule over one bucket's file sizes
 * (ascending): a group closes at the target bytes or the file cap and is
 * kept with at least max(2, min(min_files, target / largest)) files, or
 * when it holds a file most of whose rows are deleted
 * (cpt_worth_reclaiming). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "server/maintenance/compaction_plan.h"

enum { MB = 1024 * 1024 };

static size_t plan(const int64_t *sizes, size_t n, int64_t target, size_t max_files,
                   struct cpt_span *out)
{
    return cpt_plan_bucket(sizes, NULL, n, target, max_files, 5, out);
}

static void five_small_files_make_a_group(void **state)
{
    (void)state;
    const int64_t sizes[] = {1, 2, 3, 4, 5};
    struct cpt_span out[5];
    assert_int_equal(plan(sizes, 5, 512 * MB, 64, out), 1);
    assert_int_equal(out[0].start, 0);
    assert_int_equal(out[0].count, 5);
}

static void four_small_files_do_not(void **state)
{
    (void)state;
    const int64_t sizes[] = {1, 2, 3, 4};
    struct cpt_span out[4];
    assert_int_equal(plan(sizes, 4, 512 * MB, 64, out), 0);
}

/* Large inputs need fewer files: target / largest of them. */
static void large_files_need_fewer(void **state)
{
    (void)state;
    /* 200 MiB files: 512 / 200 = 2, so two are enough. */
    const int64_t two[] = {200 * MB, 200 * MB};
    struct cpt_span out[3];
    assert_int_equal(plan(two, 2, 512 * MB, 64, out), 1);
    assert_int_equal(out[0].count, 2);
    /* 150 MiB: 512 / 150 = 3; two files are not enough. */
    const int64_t three[] = {150 * MB, 150 * MB};
    assert_int_equal(plan(three, 2, 512 * MB, 64, out), 0);
    /* A single file is never a group, however large. */
    const int64_t one[] = {500 * MB};
    assert_int_equal(plan(one, 1, 512 * MB, 64, out), 0);
}

/* A group closes when it reaches the target: the next file starts another. */
static void closes_at_the_target(void **state)
{
    (void)state;
    const int64_t sizes[] = {100 * MB, 100 * MB, 100 * MB, 100 * MB, 100 * MB, 100 * MB,
                             100 * MB, 100 * MB, 100 * MB, 100 * MB, 100 * MB, 100 * MB};
    struct cpt_span out[12];
    /* 512 / 100 = 5 files needed; 6 x 100 MiB reach 512 MiB. */
    size_t n = plan(sizes, 12, 512 * MB, 64, out);
    assert_int_equal(n, 2);
    assert_int_equal(out[0].start, 0);
    assert_int_equal(out[0].count, 6);
    assert_int_equal(out[1].start, 6);
    assert_int_equal(out[1].count, 6);
}

/* ... or its file cap; a trailing short group is dropped. */
static void closes_at_the_file_cap(void **state)
{
    (void)state;
    int64_t sizes[150];
    for (size_t i = 0; i < 150; i++)
        sizes[i] = 1000 + (int64_t)i;
    struct cpt_span out[150];
    size_t n = plan(sizes, 150, 512 * MB, 64, out);
    assert_int_equal(n, 3);
    assert_int_equal(out[0].count, 64);
    assert_int_equal(out[1].start, 64);
    assert_int_equal(out[1].count, 64);
    assert_int_equal(out[2].start, 128);
    assert_int_equal(out[2].count, 22);
    /* 131 files: the last three do not make a group. */
    assert_int_equal(plan(sizes, 131, 512 * MB, 64, out), 2);
}

/* Empty files count as small (target / 0 is taken as "many"). */
static void empty_files(void **state)
{
    (void)state;
    const int64_t sizes[] = {0, 0, 0, 0, 0};
    struct cpt_span out[5];
    assert_int_equal(plan(sizes, 5, 512 * MB, 64, out), 1);
    assert_int_equal(plan(sizes, 4, 512 * MB, 64, out), 0);
    assert_int_equal(plan(sizes, 0, 512 * MB, 64, out), 0);
}

/* Half of a file's rows deleted, or more: worth rewriting. */
static void worth_reclaiming(void **state)
{
    (void)state;
    assert_true(cpt_worth_reclaiming(10, 5));
    assert_true(cpt_worth_reclaiming(10, 10));
    assert_true(cpt_worth_reclaiming(1, 1));
    assert_false(cpt_worth_reclaiming(10, 4));
    assert_false(cpt_worth_reclaiming(10, 0));
    assert_false(cpt_worth_reclaiming(0, 0));
}

/* A group holding a file marked for reclaim is kept below the file count,
 * even alone; the others still need theirs. */
static void reclaim_keeps_a_short_group(void **state)
{
    (void)state;
    const int64_t sizes[] = {1, 2, 3};
    const bool none[] = {false, false, false}, one[] = {false, true, false};
    struct cpt_span out[3];
    assert_int_equal(cpt_plan_bucket(sizes, none, 3, 512 * MB, 64, 5, out), 0);
    assert_int_equal(cpt_plan_bucket(sizes, one, 3, 512 * MB, 64, 5, out), 1);
    assert_int_equal(out[0].start, 0);
    assert_int_equal(out[0].count, 3);
    /* Alone, however large its live bytes. */
    const int64_t big[] = {400 * MB};
    const bool marked[] = {true};
    assert_int_equal(cpt_plan_bucket(big, marked, 1, 512 * MB, 64, 5, out), 1);
    assert_int_equal(out[0].count, 1);
    /* The mark keeps only its own group: of 8 x 100 MiB the first 6 close
     * at the target (kept: 6 >= 5); the 2 left are kept for a mark, not
     * without one. */
    int64_t hundreds[8];
    bool mark[8] = {false};
    for (size_t i = 0; i < 8; i++)
        hundreds[i] = 100 * MB;
    struct cpt_span spans[8];
    assert_int_equal(cpt_plan_bucket(hundreds, mark, 8, 512 * MB, 64, 5, spans), 1);
    mark[7] = true;
    assert_int_equal(cpt_plan_bucket(hundreds, mark, 8, 512 * MB, 64, 5, spans), 2);
    assert_int_equal(spans[0].count, 6);
    assert_int_equal(spans[1].start, 6);
    assert_int_equal(spans[1].count, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(five_small_files_make_a_group),
        cmocka_unit_test(four_small_files_do_not),
        cmocka_unit_test(large_files_need_fewer),
        cmocka_unit_test(closes_at_the_target),
        cmocka_unit_test(closes_at_the_file_cap),
        cmocka_unit_test(empty_files),
        cmocka_unit_test(worth_reclaiming),
        cmocka_unit_test(reclaim_keeps_a_short_group),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
