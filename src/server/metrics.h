/* Prometheus metrics for hoglaked: counters, gauges and histograms keyed by
 * a family name and a label set, rendered in text format 0.0.4.
 *
 * Every family is declared once in metrics.c's table (name, type, help,
 * buckets); using an undeclared name is a programming error and aborts.
 * Thread-safe: every call takes the registry's mutex. Recording never
 * fails the request that records (memory failure drops the sample). */
#ifndef HL_SERVER_METRICS_H
#define HL_SERVER_METRICS_H

#include "util/buf.h"

struct metrics;

struct metrics *metrics_create(void);
void metrics_destroy(struct metrics *m);

/* `labels` is the inside of the braces, already escaped ("route=\"/x\"",
 * or "" for none); see metrics_label_escape. */
void metrics_counter_add(struct metrics *m, const char *family, const char *labels, double delta);
void metrics_gauge_set(struct metrics *m, const char *family, const char *labels, double value);
void metrics_observe(struct metrics *m, const char *family, const char *labels, double value);

/* Replaces every series of a gauge family with the n given ones, at once
 * (a scrape sees the old set or the new), so series of things that went
 * away disappear. On memory failure the family is left as it was. */
void metrics_gauge_replace(struct metrics *m, const char *family, const char *const *labels,
                           const double *values, size_t n);

/* Escapes a label value (backslash, quote, newline) into out. */
void metrics_label_escape(const char *value, char *out, size_t out_size);

/* Appends the exposition text to out. Returns 0, or -1 when out of memory. */
int metrics_render(struct metrics *m, struct buf *out);

#endif
