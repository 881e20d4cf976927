/* The CLI's text tables: alignment, cutting long cells, whole columns, and
 * one row per line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/output.h"

/* Prints the table and returns what reached stdout (caller frees). */
static char *printed(const struct out_table *t)
{
    fflush(stdout);
    FILE *tmp = tmpfile();
    assert_non_null(tmp);
    int saved = dup(STDOUT_FILENO);
    assert_true(saved >= 0);
    assert_true(dup2(fileno(tmp), STDOUT_FILENO) >= 0);
    out_table_print(t);
    fflush(stdout);
    assert_true(dup2(saved, STDOUT_FILENO) >= 0);
    close(saved);
    long n = ftell(tmp);
    assert_true(n >= 0);
    char *text = calloc(1, (size_t)n + 1);
    assert_non_null(text);
    rewind(tmp);
    assert_int_equal(fread(text, 1, (size_t)n, tmp), (size_t)n);
    fclose(tmp);
    return text;
}

static void aligns_columns(void **state)
{
    (void)state;
    static const char *const headers[] = {"ID", "NAME", "PATH"};
    struct out_table t;
    out_table_init(&t, 3, headers);
    out_table_row(&t, "1", "a", "x");
    out_table_row(&t, "12345", NULL, "two\nlines");
    char *text = printed(&t);
    assert_string_equal(text, "ID     NAME  PATH\n"
                              "1      a     x\n"
                              "12345        two lines\n");
    free(text);
    out_table_free(&t);
}

static void cuts_long_cells_unless_whole(void **state)
{
    (void)state;
    char long_cell[300];
    memset(long_cell, 'p', sizeof long_cell - 1);
    long_cell[sizeof long_cell - 1] = '\0';
    static const char *const headers[] = {"CUT", "WHOLE"};
    struct out_table t;
    out_table_init(&t, 2, headers);
    out_table_keep_whole(&t, 1);
    const char *cells[] = {long_cell, long_cell};
    out_table_add(&t, cells);
    assert_int_equal(t.nrows, 1);
    /* The cut cell keeps OUT_CELL_MAX - 4 characters and "...". */
    assert_int_equal(strlen(t.cells[0][0]), OUT_CELL_MAX - 1);
    assert_string_equal(t.cells[0][0] + OUT_CELL_MAX - 4, "...");
    assert_int_equal(strncmp(t.cells[0][0], long_cell, OUT_CELL_MAX - 4), 0);
    assert_string_equal(t.cells[0][1], long_cell);
    char *text = printed(&t);
    assert_non_null(strstr(text, long_cell));
    free(text);
    out_table_free(&t);
    assert_int_equal(t.nrows, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(aligns_columns),
        cmocka_unit_test(cuts_long_cells_unless_whole),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
