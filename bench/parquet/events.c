/* The benchmarks' event table generator (see events.h). */
#include "events.h"

#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "parquet/writer.h"
#include "util/arrow.h"
#include "util/hash.h"

const char *const events_column_names[EVENTS_NCOLS] = {"session_id", "event_id", "ts",
                                                       "event",      "value",    "properties"};

const char events_table_json[] = "[{\"name\":\"session_id\",\"type\":\"string\"},"
                                 "{\"name\":\"event_id\",\"type\":\"long\"},"
                                 "{\"name\":\"ts\",\"type\":\"timestamptz\"},"
                                 "{\"name\":\"event\",\"type\":\"string\"},"
                                 "{\"name\":\"value\",\"type\":\"double\"},"
                                 "{\"name\":\"properties\",\"type\":\"string\"}]";

static const int64_t TS_BASE_US = 1704067200LL * 1000000LL; /* 2024-01-01T00:00:00Z */

static const char *const EVENT_NAMES[EVENTS_N_EVENTS] = {"$pageview",
                                                         "$autocapture",
                                                         "$pageleave",
                                                         "$identify",
                                                         "$screen",
                                                         "$feature_flag_called",
                                                         "$rageclick",
                                                         "$exception",
                                                         "$set",
                                                         "$groupidentify",
                                                         "$web_vitals",
                                                         "$dead_click",
                                                         "$opt_in",
                                                         "$survey_shown",
                                                         "$survey_sent",
                                                         "$survey_dismissed",
                                                         "signed_up",
                                                         "logged_in",
                                                         "logged_out",
                                                         "password_reset",
                                                         "invite_sent",
                                                         "invite_accepted",
                                                         "project_created",
                                                         "project_deleted",
                                                         "dashboard_viewed",
                                                         "dashboard_created",
                                                         "insight_viewed",
                                                         "insight_created",
                                                         "insight_saved",
                                                         "query_completed",
                                                         "query_failed",
                                                         "export_started",
                                                         "export_completed",
                                                         "billing_viewed",
                                                         "plan_upgraded",
                                                         "plan_downgraded",
                                                         "payment_succeeded",
                                                         "payment_failed",
                                                         "search",
                                                         "filter_applied",
                                                         "file_uploaded",
                                                         "file_downloaded",
                                                         "comment_added",
                                                         "share_link_created",
                                                         "notification_sent",
                                                         "notification_opened",
                                                         "api_key_created",
                                                         "webhook_delivered",
                                                         "onboarding_step",
                                                         "onboarding_completed"};

static const char *const BROWSERS[] = {"Chrome", "Safari", "Firefox",
                                       "Edge",   "Opera",  "Samsung Internet"};
static const char *const OSES[] = {"Mac OS X", "Windows", "Linux", "iOS", "Android", "Chrome OS"};
static const char *const PATHS[] = {"dashboard", "insights", "settings",      "projects",
                                    "billing",   "events",   "feature_flags", "persons"};
static const char *const PLANS[] = {"free", "paid", "enterprise", "trial"};
static const char *const SOURCES[] = {"google", "twitter", "linkedin", "newsletter",
                                      "direct", "bing",    "reddit",   "hacker_news"};
static const int SCREENS[][2] = {{1920, 1080}, {1440, 900}, {1280, 720}, {2560, 1440},
                                 {390, 844},   {414, 896},  {768, 1024}, {1536, 864}};

#define COUNT(a) (sizeof(a) / sizeof *(a))

int events_table_init(struct arena *a, struct lake_table *t, char *msg, size_t msg_size)
{
    json_error_t jerr;
    arena_init(a, 0);
    lake_table_init(t, a);
    json_t *cols = json_loads(events_table_json, 0, &jerr);
    if (!cols) {
        snprintf(msg, msg_size, "table JSON: %s", jerr.text);
        return -1;
    }
    t->name = "events";
    struct error err = {0};
    int rc = lake_table_add_columns(t, cols, &err);
    json_decref(cols);
    if (rc != 0)
        snprintf(msg, msg_size, "table: %s", err.msg);
    return rc == 0 ? 0 : -1;
}

static uint64_t mix(const struct events_gen *g, uint64_t row, uint64_t col)
{
    return hash_mix64(g->seed ^ hash_mix64(row * 8 + col + 0x9e3779b97f4a7c15ULL));
}

void events_gen_init(struct events_gen *g, uint64_t seed)
{
    g->seed = seed;
    for (int s = 0; s < EVENTS_N_SESSIONS; s++) {
        uint64_t a = mix(g, (uint64_t)s, 7), b = mix(g, (uint64_t)s, 6);
        snprintf(g->sessions[s], sizeof g->sessions[s], "%08x-%04x-4%03x-%04x-%012" PRIx64,
                 (unsigned)(a >> 32), (unsigned)(a >> 16) & 0xffff, (unsigned)a & 0xfff,
                 ((unsigned)(b >> 48) & 0x3fff) | 0x8000, (uint64_t)(b & 0xffffffffffffULL));
    }
    for (int e = 0; e < EVENTS_N_EVENTS; e++) {
        g->event_len[e] = strlen(EVENT_NAMES[e]);
        /* The batch sizes its event buffer by EVENTS_MAX_EVENT_LEN. */
        assert(g->event_len[e] <= EVENTS_MAX_EVENT_LEN);
    }
}

/* Appending to a string buffer known to be large enough. */
static char *put_str(char *p, const char *s)
{
    size_t n = strlen(s);
    memcpy(p, s, n);
    return p + n;
}

static char *put_u(char *p, uint64_t v)
{
    char tmp[24];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        *p++ = tmp[--n];
    return p;
}

static void borrowed_release(struct ArrowArray *a)
{
    a->release = NULL; /* the buffers belong to struct events_batch */
}

void events_batch_free(struct events_batch *b)
{
    free(b->session_off);
    free(b->event_off);
    free(b->props_off);
    free(b->session_data);
    free(b->event_data);
    free(b->props_data);
    free(b->event_id);
    free(b->ts);
    free(b->value_valid);
    free(b->value);
    if (b->schema.release)
        b->schema.release(&b->schema);
    memset(b, 0, sizeof *b);
}

int events_batch_init(struct events_batch *b, int64_t cap, const struct lake_table *t)
{
    memset(b, 0, sizeof *b);
    size_t n = (size_t)cap;
    b->cap = cap;
    b->session_off = malloc((n + 1) * 4);
    b->event_off = malloc((n + 1) * 4);
    b->props_off = malloc((n + 1) * 4);
    b->session_data = malloc(n * EVENTS_SESSION_LEN);
    b->event_data = malloc(n * EVENTS_MAX_EVENT_LEN);
    b->props_data = malloc(n * EVENTS_MAX_PROPS_LEN);
    b->event_id = malloc(n * 8);
    b->ts = malloc(n * 8);
    b->value_valid = malloc(n / 8 + 1);
    b->value = malloc(n * 8);
    b->alloc_bytes =
        3 * (n + 1) * 4 +
        n * (EVENTS_SESSION_LEN + EVENTS_MAX_EVENT_LEN + EVENTS_MAX_PROPS_LEN + 3 * 8) + n / 8 + 1;
    if (!b->session_off || !b->event_off || !b->props_off || !b->session_data || !b->event_data ||
        !b->props_data || !b->event_id || !b->ts || !b->value_valid || !b->value ||
        arrow_schema_init(&b->schema, "+s", "", 0, EVENTS_NCOLS) != 0) {
        events_batch_free(b);
        return -1;
    }
    const void *bufs[EVENTS_NCOLS][3] = {
        {NULL, b->session_off, b->session_data},
        {NULL, b->event_id, NULL},
        {NULL, b->ts, NULL},
        {NULL, b->event_off, b->event_data},
        {b->value_valid, b->value, NULL},
        {NULL, b->props_off, b->props_data},
    };
    memcpy(b->bufs, bufs, sizeof bufs);
    for (int c = 0; c < EVENTS_NCOLS; c++) {
        /* events_table_init made t: its columns are ours, in order. */
        const struct lake_column *col = t->root.children[c];
        char fmt[32];
        if (arrow_schema_init(b->schema.children[c], pq_arrow_format_for(col, fmt, sizeof fmt),
                              col->name, ARROW_FLAG_NULLABLE, 0) != 0) {
            events_batch_free(b);
            return -1;
        }
        struct ArrowArray *k = &b->kids[c];
        k->n_buffers = b->bufs[c][2] ? 3 : 2;
        k->buffers = b->bufs[c];
        k->release = borrowed_release;
        b->kid_ptrs[c] = k;
    }
    b->top.n_buffers = 1;
    b->top.buffers = b->top_bufs;
    b->top.n_children = EVENTS_NCOLS;
    b->top.children = b->kid_ptrs;
    b->top.release = borrowed_release;
    return 0;
}

static char *gen_properties(char *p, uint64_t h, uint64_t h2)
{
    const int *screen = SCREENS[(h >> 20) % COUNT(SCREENS)];
    p = put_str(p, "{\"$browser\":\"");
    p = put_str(p, BROWSERS[h % COUNT(BROWSERS)]);
    p = put_str(p, "\",\"$os\":\"");
    p = put_str(p, OSES[(h >> 4) % COUNT(OSES)]);
    p = put_str(p, "\",\"$current_url\":\"https://app.example.com/");
    p = put_str(p, PATHS[(h >> 12) % COUNT(PATHS)]);
    *p++ = '/';
    p = put_u(p, h2 % 1000000);
    p = put_str(p, "\",\"$screen_width\":");
    p = put_u(p, (uint64_t)screen[0]);
    p = put_str(p, ",\"$screen_height\":");
    p = put_u(p, (uint64_t)screen[1]);
    p = put_str(p, ",\"$lib_version\":\"1.");
    p = put_u(p, (h >> 24) % 200);
    *p++ = '.';
    p = put_u(p, (h >> 32) % 10);
    p = put_str(p, "\",\"plan\":\"");
    p = put_str(p, PLANS[(h >> 36) % COUNT(PLANS)]);
    p = put_str(p, "\",\"utm_source\":\"");
    p = put_str(p, SOURCES[(h >> 40) % COUNT(SOURCES)]);
    p = put_str(p, "\"}");
    return p;
}

void events_gen_batch(const struct events_gen *g, struct events_batch *b, int64_t first, int64_t n)
{
    char *sp = b->session_data, *ep = b->event_data, *pp = b->props_data;
    int64_t nulls = 0;
    memset(b->value_valid, 0, (size_t)n / 8 + 1);
    b->session_off[0] = b->event_off[0] = b->props_off[0] = 0;
    for (int64_t i = 0; i < n; i++) {
        uint64_t row = (uint64_t)(first + i);
        uint64_t h0 = mix(g, row, 0), h1 = mix(g, row, 1), h2 = mix(g, row, 2);
        uint64_t h3 = mix(g, row, 3), h4 = mix(g, row, 4);

        memcpy(sp, g->sessions[h0 % EVENTS_N_SESSIONS], EVENTS_SESSION_LEN);
        sp += EVENTS_SESSION_LEN;
        b->session_off[i + 1] = (int32_t)(sp - b->session_data);

        b->event_id[i] = (int64_t)row + 1;
        b->ts[i] = TS_BASE_US + (int64_t)row * 250 + (int64_t)(h1 % 1000000);

        double u = (double)(h2 >> 11) * 0x1p-53;
        int e = (int)(EVENTS_N_EVENTS * u * u * u);
        memcpy(ep, EVENT_NAMES[e], g->event_len[e]);
        ep += g->event_len[e];
        b->event_off[i + 1] = (int32_t)(ep - b->event_data);

        if (h3 % 10 == 0) {
            b->value[i] = 0;
            nulls++;
        } else {
            b->value[i] = (double)((h3 >> 8) % 10000000) / 100.0;
            arrow_set_bit(b->value_valid, i, true);
        }

        pp = gen_properties(pp, h4, h4 >> 44 ^ h2 >> 17);
        b->props_off[i + 1] = (int32_t)(pp - b->props_data);
    }
    for (int c = 0; c < EVENTS_NCOLS; c++) {
        b->kids[c].length = n;
        b->kids[c].null_count = 0;
    }
    b->kids[4].null_count = nulls;
    b->top.length = n;
}
