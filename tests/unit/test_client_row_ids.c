/* Row ids as updates (and the changefeed) read them (client/row_ids.h):
 * where a plan's DataFile says they come from, and a batch's id column
 * made from row_id_start + position or checked when the file carries
 * them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "client/row_ids.h"
#include "parquet/reader.h"
#include "util/arrow.h"

/* A batch of one int64 column of n rows: values[i], null where
 * nulls[i] (nulls may be NULL). */
static void batch_of(struct ArrowArray *b, const int64_t *values, const bool *nulls, int64_t n)
{
    assert_int_equal(arrow_array_init(b, 1, 1), 0);
    b->length = n;
    struct ArrowArray *c = b->children[0];
    assert_int_equal(arrow_array_init(c, 2, 0), 0);
    c->length = n;
    int64_t *v = malloc((size_t)n * sizeof *v + 1);
    uint8_t *valid = calloc((size_t)n / 8 + 1, 1);
    assert_non_null(v);
    assert_non_null(valid);
    for (int64_t i = 0; i < n; i++) {
        v[i] = values ? values[i] : 0;
        bool null = nulls && nulls[i];
        arrow_set_bit(valid, i, !null);
        c->null_count += null;
    }
    arrow_array_own_buffer(c, 0, valid);
    arrow_array_own_buffer(c, 1, v);
}

static int64_t value(const struct ArrowArray *b, int64_t i)
{
    const struct ArrowArray *c = b->children[0];
    return ((const int64_t *)c->buffers[1])[c->offset + i];
}

static void implicit_ids_are_start_plus_position(void **state)
{
    (void)state;
    bool nulls[4] = {true, true, true, true}; /* what a projection reads */
    struct ArrowArray b;
    batch_of(&b, NULL, nulls, 4);
    struct error e;
    struct pq_row_range whole = {0, 4};
    struct client_rows_at at = {30, &whole, 1};
    assert_int_equal(client_row_ids_fill(&b, 0, false, 1000, &at, &e), 0);
    for (int64_t i = 0; i < 4; i++)
        assert_int_equal(value(&b, i), 1030 + i);
    assert_int_equal(b.children[0]->null_count, 0);
    assert_null(b.children[0]->buffers[0]);
    b.release(&b);
}

/* A read that skipped pages: each row's id is row_id_start + its own
 * position, not its place in the batch. */
static void implicit_ids_follow_positions(void **state)
{
    (void)state;
    bool nulls[3] = {true, true, true};
    struct ArrowArray b;
    batch_of(&b, NULL, nulls, 3);
    /* Rows 5, 6 and 4066 of a row group at file position 30. */
    struct pq_row_range ranges[] = {{5, 7}, {4066, 4067}};
    struct client_rows_at at = {30, ranges, 2};
    struct error e;
    assert_int_equal(client_row_ids_fill(&b, 0, false, 1000, &at, &e), 0);
    assert_int_equal(value(&b, 0), 1035);
    assert_int_equal(value(&b, 1), 1036);
    assert_int_equal(value(&b, 2), 5096);
    b.release(&b);
}

static void explicit_ids_are_kept(void **state)
{
    (void)state;
    int64_t ids[3] = {7, 3, 99};
    struct ArrowArray b;
    batch_of(&b, ids, NULL, 3);
    struct error e;
    struct pq_row_range whole = {0, 3};
    struct client_rows_at at = {500, &whole, 1};
    assert_int_equal(client_row_ids_fill(&b, 0, true, -1, &at, &e), 0);
    for (int64_t i = 0; i < 3; i++)
        assert_int_equal(value(&b, i), ids[i]);
    b.release(&b);
    /* One null: the file lies about its ids. */
    bool nulls[3] = {false, true, false};
    batch_of(&b, ids, nulls, 3);
    assert_int_equal(client_row_ids_fill(&b, 0, true, -1, &at, &e), -1);
    assert_int_equal(e.code, ERR_CORRUPT);
    assert_non_null(strstr(e.msg, "_hog_row_id"));
    b.release(&b);
}

static void where_ids_come_from(void **state)
{
    (void)state;
    struct error e;
    bool explicit_ids;
    int64_t start;
    json_t *df = json_pack("{s:s,s:I}", "path", "a.parquet", "row_id_start", (json_int_t)42);
    assert_int_equal(client_row_id_source(df, &explicit_ids, &start, &e), 0);
    assert_false(explicit_ids);
    assert_int_equal(start, 42);
    json_object_set_new(df, "explicit_row_ids", json_true());
    assert_int_equal(client_row_id_source(df, &explicit_ids, &start, &e), 0);
    assert_true(explicit_ids);
    json_object_del(df, "row_id_start");
    assert_int_equal(client_row_id_source(df, &explicit_ids, &start, &e), 0);
    json_object_set_new(df, "explicit_row_ids", json_false());
    assert_int_equal(client_row_id_source(df, &explicit_ids, &start, &e), -1);
    assert_int_equal(e.code, ERR_MALFORMED);
    assert_non_null(strstr(e.msg, "a.parquet"));
    json_decref(df);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(implicit_ids_are_start_plus_position),
        cmocka_unit_test(implicit_ids_follow_positions),
        cmocka_unit_test(explicit_ids_are_kept),
        cmocka_unit_test(where_ids_come_from),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
