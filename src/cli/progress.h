/* One progress line for a long job over several inputs (hoglake append):
 * rows and bytes so far, the rate, and, when the total size is known, a
 * bar, the percentage and the time left.
 *
 * Callers report what each input consumed as it goes (progress_advance
 * takes increments, so the line never goes backwards whatever order the
 * inputs are read and released in). The line appears only once the job
 * has run PROGRESS_DELAY seconds, so quick jobs do not flash, and is
 * redrawn at most every PROGRESS_INTERVAL seconds. progress_finish leaves
 * a final line in its place when one was drawn. Not thread-safe. */
#ifndef HL_CLI_PROGRESS_H
#define HL_CLI_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PROGRESS_DELAY 1.0
#define PROGRESS_INTERVAL 0.1

struct progress {
    FILE *to;       /* NULL: nothing is drawn (not a terminal, --quiet) */
    int columns;    /* the terminal's width */
    bool sized;     /* every input's size is known */
    uint64_t total; /* the inputs' bytes, when sized */
    uint64_t bytes; /* consumed so far, all inputs */
    int64_t rows;
    double start, last; /* seconds on the monotonic clock; last: the last draw */
    bool drawn;         /* a line is on screen */
};

/* Seconds on the monotonic clock. */
double progress_now(void);

/* Starts a job drawn on `to` (NULL: not drawn) of `columns` columns; the
 * inputs are added as they open. */
void progress_start(struct progress *p, FILE *to, int columns, double now);
/* Adds an input of `size` bytes; unknown (a pipe) makes the total
 * unknown. */
void progress_add_input(struct progress *p, bool known, uint64_t size);
/* `bytes` more bytes and `rows` more rows consumed; redraws when due. */
void progress_advance(struct progress *p, uint64_t bytes, int64_t rows, double now);
/* Replaces a drawn line with the final one ("1,024 rows, 1.5 MiB in 2.0 s
 * ..."); nothing when no line was drawn. */
void progress_finish(struct progress *p, double now);

/* The running line, cut to `columns - 1` characters (a line as wide as
 * the terminal wraps on some). Exposed for tests. */
size_t progress_format(const struct progress *p, double now, char *out, size_t size);
/* The final line, as progress_finish prints it. */
size_t progress_format_final(const struct progress *p, double now, char *out, size_t size);

#endif
