#include "cli/progress.h"

#include <stdarg.h>
#include <string.h>
#include <time.h>

#include "cli/output.h"

enum { BAR_WIDTH = 24 };

double progress_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void progress_start(struct progress *p, FILE *to, int columns, double now)
{
    memset(p, 0, sizeof *p);
    p->to = to;
    p->columns = columns;
    p->sized = true;
    p->start = now;
}

void progress_add_input(struct progress *p, bool known, uint64_t size)
{
    p->sized = p->sized && known;
    p->total += size;
}

/* Appends to out[*len..size), keeping it terminated when cut. */
static void add(char *out, size_t size, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void add(char *out, size_t size, size_t *len, const char *fmt, ...)
{
    if (*len + 1 >= size)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(out + *len, size - *len, fmt, ap);
    va_end(ap);
    if (n > 0)
        *len += (size_t)n < size - *len ? (size_t)n : size - *len - 1;
}

/* Seconds as "7s", "2m05s", "1h02m". */
static void add_duration(char *out, size_t size, size_t *len, double secs)
{
    long s = secs < 0 ? 0 : (long)(secs + 0.5);
    if (s < 60)
        add(out, size, len, "%lds", s);
    else if (s < 3600)
        add(out, size, len, "%ldm%02lds", s / 60, s % 60);
    else
        add(out, size, len, "%ldh%02ldm", s / 3600, s % 3600 / 60);
}

/* Whether the bytes mean something: a pipe whose position nobody counts
 * has none to show. */
static bool shows_bytes(const struct progress *p)
{
    return p->sized || p->bytes > 0;
}

/* "12,345 rows/s, 1.5 MiB/s" over `elapsed` seconds. */
static void add_rates(const struct progress *p, double elapsed, char *out, size_t size, size_t *len)
{
    char rows[OUT_NUM_MAX], bytes[OUT_NUM_MAX];
    add(out, size, len, "%s rows/s", out_number(rows, (int64_t)((double)p->rows / elapsed)));
    if (shows_bytes(p))
        add(out, size, len, ", %s/s", out_bytes(bytes, (uint64_t)((double)p->bytes / elapsed)));
}

size_t progress_format(const struct progress *p, double now, char *out, size_t size)
{
    size_t len = 0;
    char a[OUT_NUM_MAX], b[OUT_NUM_MAX];
    out[0] = '\0';
    /* A file that grew while read must not push the bar past its end. */
    uint64_t done = p->sized && p->bytes > p->total ? p->total : p->bytes;
    if (p->sized && p->total > 0) {
        int pct = (int)(done * 100 / p->total), fill = (int)(done * BAR_WIDTH / p->total);
        add(out, size, &len, "[%.*s%*s] %3d%%  ", fill, "########################",
            BAR_WIDTH - fill, "", pct);
    }
    add(out, size, &len, "%s", out_count(p->rows, "row", "rows", a, sizeof a));
    if (shows_bytes(p))
        add(out, size, &len, "  %s", out_bytes(b, done));
    if (p->sized)
        add(out, size, &len, " of %s", out_bytes(a, p->total));
    double elapsed = now - p->start;
    if (elapsed > 0) {
        add(out, size, &len, "  ");
        add_rates(p, elapsed, out, size, &len);
    }
    if (p->sized && elapsed > 0 && done > 0 && done < p->total) {
        add(out, size, &len, "  ");
        add_duration(out, size, &len, (double)(p->total - done) * elapsed / (double)done);
        add(out, size, &len, " left");
    }
    if (p->columns > 1 && len >= (size_t)p->columns) {
        len = (size_t)p->columns - 1;
        out[len] = '\0';
    }
    return len;
}

size_t progress_format_final(const struct progress *p, double now, char *out, size_t size)
{
    size_t len = 0;
    char a[OUT_NUM_MAX], b[OUT_NUM_MAX];
    double elapsed = now - p->start;
    add(out, size, &len, "read %s", out_count(p->rows, "row", "rows", a, sizeof a));
    if (shows_bytes(p))
        add(out, size, &len, ", %s", out_bytes(b, p->bytes));
    add(out, size, &len, " in ");
    add_duration(out, size, &len, elapsed);
    if (elapsed > 0) {
        add(out, size, &len, " (");
        add_rates(p, elapsed, out, size, &len);
        add(out, size, &len, ")");
    }
    return len;
}

static void draw(struct progress *p, double now)
{
    char line[512];
    progress_format(p, now, line, sizeof line);
    /* \r and erase to the end: a shorter line leaves nothing behind. */
    fprintf(p->to, "\r%s\033[K", line);
    fflush(p->to);
    p->drawn = true;
    p->last = now;
}

void progress_advance(struct progress *p, uint64_t bytes, int64_t rows, double now)
{
    p->bytes += bytes;
    p->rows += rows;
    if (!p->to || now - p->start < PROGRESS_DELAY ||
        (p->drawn && now - p->last < PROGRESS_INTERVAL))
        return;
    draw(p, now);
}

void progress_finish(struct progress *p, double now)
{
    if (!p->to || !p->drawn)
        return;
    char line[512];
    progress_format_final(p, now, line, sizeof line);
    fprintf(p->to, "\r%s\033[K\n", line);
    fflush(p->to);
    p->drawn = false;
}
