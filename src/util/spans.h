/* Tracing spans written as OpenTelemetry-shaped JSON lines (the shape of
 * the SDK's console exporter: name, context {trace_id, span_id}, parent_id,
 * kind, start_time / end_time, status, attributes, resource), one line per
 * finished span, to a file or to stderr. A disabled tracer (NULL) accepts
 * every call and writes nothing, so callers need no conditions.
 *
 * A tracer may be shared by threads (lines are written whole, under a
 * lock); a span belongs to one thread. */
#ifndef HL_UTIL_SPANS_H
#define HL_UTIL_SPANS_H

#include <stdint.h>

struct tracer;
struct span;

/* dest: a file path (appended to), "-" for stderr, or NULL/"" for no
 * tracing (*out = NULL). 0, or -1 with errno when the file cannot be
 * opened. `service` names the resource ("hoglake"). */
int tracer_open(const char *dest, const char *service, struct tracer **out);
void tracer_close(struct tracer *t);

/* Starts a span (NULL when tracing is off or memory runs out; every span_*
 * call accepts NULL). A child shares its parent's trace. */
struct span *span_start(struct tracer *t, const char *name, const struct span *parent);
void span_attr_str(struct span *s, const char *key, const char *value);
void span_attr_int(struct span *s, const char *key, int64_t value);
/* Marks the span failed: status ERROR with the description, and an
 * `error_kind` attribute (a stable, machine-readable kind). */
void span_fail(struct span *s, const char *error_kind, const char *description);
/* Ends the span, writes its line and frees it. */
void span_end(struct span *s);

#endif
