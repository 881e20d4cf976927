/* expiry_floor: the minimum of the retention window, head, the consumer
 * floor and earliest + batch, never below the current floor. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "server/maintenance/expiry.h"

static struct expiry_floor_in base(void)
{
    return (struct expiry_floor_in){
        .earliest = 10, .head = 100, .batch = 1000, .retention_enabled = true};
}

static void retention_off_keeps_the_floor(void **state)
{
    (void)state;
    struct expiry_floor_in in = base();
    in.retention_enabled = false;
    in.consumer_floor = true;
    in.consumer_present = true;
    in.consumer_min = 50;
    bool by;
    assert_int_equal(expiry_floor(&in, &by), 10);
    assert_false(by);
}

static void head_bounds_when_everything_is_old(void **state)
{
    (void)state;
    struct expiry_floor_in in = base();
    bool by;
    assert_int_equal(expiry_floor(&in, &by), 100);
    assert_false(by);
}

static void window_and_batch(void **state)
{
    (void)state;
    struct expiry_floor_in in = base();
    in.window_present = true;
    in.window_first = 60;
    bool by;
    assert_int_equal(expiry_floor(&in, &by), 60);
    in.batch = 5;
    assert_int_equal(expiry_floor(&in, &by), 15);
    in.batch = 0; /* treated as 1: progress, never a stall */
    assert_int_equal(expiry_floor(&in, &by), 11);
    in.batch = INT64_MAX; /* no overflow */
    assert_int_equal(expiry_floor(&in, &by), 60);
}

static void consumer_binds_only_when_on_and_lowest(void **state)
{
    (void)state;
    struct expiry_floor_in in = base();
    in.consumer_present = true;
    in.consumer_min = 40;
    bool by;
    assert_int_equal(expiry_floor(&in, &by), 100); /* consumer_floor off */
    assert_false(by);
    in.consumer_floor = true;
    assert_int_equal(expiry_floor(&in, &by), 40);
    assert_true(by);
    in.window_present = true;
    in.window_first = 30; /* the window binds first */
    assert_int_equal(expiry_floor(&in, &by), 30);
    assert_false(by);
    in.window_present = false;
    in.consumer_min = 3; /* a stale offset below the floor never lowers it */
    assert_int_equal(expiry_floor(&in, &by), 10);
    assert_false(by);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(retention_off_keeps_the_floor),
        cmocka_unit_test(head_bounds_when_everything_is_old),
        cmocka_unit_test(window_and_batch),
        cmocka_unit_test(consumer_binds_only_when_on_and_lowest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
