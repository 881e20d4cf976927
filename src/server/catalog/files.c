/* Data files of a table at a snapshot: the listing (GET .../files) and one
 * file's column statistics (GET .../files/{file_id}/stats), plus the pieces
 * the scan and changefeed handlers share (files.h). */
#include "server/catalog/files.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lake/bounds.h"
#include "server/db/db.h"
#include "server/db/pgarray.h"
#include "server/http/handlers.h"
#include "server/server.h"
#include "server/store/tables.h"
#include "util/jsonx.h"
#include "util/bytes.h"
#include "util/jsonnum.h"
#include "util/log.h"
#include "util/sha256.h"
#include "util/strutil.h"

/* ---- the table at a snapshot ---- */

static void index_column(struct lake_column *c, void *ctx)
{
    struct table_read *tr = ctx;
    tr->fields[tr->nfields].field_id = c->field_id;
    tr->fields[tr->nfields].col = c;
    tr->nfields++;
}

static void count_column(struct lake_column *c, void *ctx)
{
    (void)c;
    (*(size_t *)ctx)++;
}

static int field_slot_cmp(const void *a, const void *b)
{
    int64_t x = ((const struct field_slot *)a)->field_id;
    int64_t y = ((const struct field_slot *)b)->field_id;
    return (x > y) - (x < y);
}

int table_read_open_at(struct srv_req *req, struct table_read *tr, int64_t snapshot,
                       bool time_travel, struct api_error *err)
{
    tr->snapshot = snapshot;
    tr->time_travel = time_travel;
    int64_t ns_id;
    if (namespace_resolve(req, &tr->cat, req->params[1], snapshot, time_travel, &ns_id, err) != 0 ||
        table_resolve(req, &tr->cat, req->params[1], ns_id, req->params[2], snapshot, time_travel,
                      &tr->ref, err) != 0)
        return -1;
    lake_table_init(&tr->t, &req->arena);
    tr->loaded = true;
    struct srv_ctx ctx;
    if (req_ctx(req, &ctx, err) != 0)
        return -1;
    struct error e;
    if (store_table_load(&ctx, &tr->cat, &tr->ref, snapshot, false, &tr->t, &e) != 0)
        return api_from_error(err, &e, "table load");
    /* Stats rows are looked up by field id per row: index the columns once
     * (lake_table_find_field walks the tree). */
    size_t n = 0;
    lake_table_walk(&tr->t, count_column, &n);
    tr->fields = arena_calloc(&req->arena, n ? n : 1, sizeof *tr->fields);
    if (!tr->fields)
        return api_nomem(err);
    tr->nfields = 0;
    lake_table_walk(&tr->t, index_column, tr);
    qsort(tr->fields, tr->nfields, sizeof *tr->fields, field_slot_cmp);
    return 0;
}

int table_read_open(struct srv_req *req, struct table_read *tr, struct api_error *err)
{
    memset(tr, 0, sizeof *tr);
    bool at_head;
    int64_t snapshot;
    if (catalog_load(req, req->params[0], &tr->cat, err) != 0 ||
        timetravel_resolve(req, &tr->cat, &snapshot, &at_head, err) != 0)
        return -1;
    return table_read_open_at(req, tr, snapshot, !at_head, err);
}

void table_read_release(struct table_read *tr)
{
    if (tr->loaded)
        lake_table_release(&tr->t);
    tr->loaded = false;
}

const struct lake_column *table_read_field(const struct table_read *tr, int64_t field_id)
{
    struct field_slot key = {.field_id = field_id};
    const struct field_slot *hit =
        bsearch(&key, tr->fields, tr->nfields, sizeof *tr->fields, field_slot_cmp);
    return hit ? hit->col : NULL;
}

/* ---- bounds ---- */

json_t *file_bound_json(const struct lake_column *c, const uint8_t *b, size_t n)
{
    if (!b || !c || !bound_type_has_bounds(c->type))
        return json_null();
    struct error why;
    json_t *v = bound_to_json(c->type, c->precision, c->scale, b, n, &why);
    if (!v) {
        uint8_t w[8];
        size_t wn;
        if (bound_adapt_width(c->type, b, n, w, &wn))
            v = bound_to_json(c->type, c->precision, c->scale, w, wn, &why);
    }
    return v ? v : json_null();
}

/* ---- response shapes ---- */

int file_json_set(json_t *o, const char *key, json_t *value)
{
    if (!value)
        return -1;
    if (!o) {
        json_decref(value);
        return -1;
    }
    return json_object_set_new(o, key, value) == 0 ? 0 : -1;
}

/* ---- page text ---- */

void pt_init(struct page_text *w, size_t expect)
{
    memset(w, 0, sizeof *w);
    w->first = true;
    /* One allocation for the usual page instead of a doubling series. */
    w->bad = buf_reserve(&w->out, expect) != 0;
}

void pt_free(struct page_text *w)
{
    buf_free(&w->out);
}

void pt_key(struct page_text *w, const char *key)
{
    /* Keys are this file's literals: plain ASCII, nothing to escape. One
     * reservation for the separator and the key: a listing writes some
     * 400,000 of them. */
    size_t n = key ? strlen(key) : 0;
    if (buf_reserve(&w->out, n + 4) != 0) {
        w->bad = 1;
        return;
    }
    char *p = w->out.data + w->out.len;
    if (!w->first)
        *p++ = ',';
    w->first = false;
    if (key) {
        *p++ = '"';
        memcpy(p, key, n);
        p += n;
        *p++ = '"';
        *p++ = ':';
    }
    *p = '\0';
    w->out.len = (size_t)(p - w->out.data);
}

void pt_open(struct page_text *w, const char *key, char bracket)
{
    pt_key(w, key);
    w->bad |= buf_putc(&w->out, bracket);
    w->first = true;
}

void pt_close(struct page_text *w, char bracket)
{
    w->bad |= buf_putc(&w->out, bracket);
    w->first = false;
}

void pt_i64(struct page_text *w, const char *key, int64_t v)
{
    pt_key(w, key);
    /* By hand: printf's machinery costs more than the rest of a member. */
    char digits[24];
    size_t n = sizeof digits;
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    do {
        digits[--n] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        digits[--n] = '-';
    w->bad |= buf_append(&w->out, digits + n, sizeof digits - n);
}

void pt_bool(struct page_text *w, const char *key, bool v)
{
    pt_key(w, key);
    w->bad |= buf_puts(&w->out, v ? "true" : "false");
}

void pt_null(struct page_text *w, const char *key)
{
    pt_key(w, key);
    w->bad |= buf_puts(&w->out, "null");
}

/* A JSON string escaped as json_dumps escapes it: quote, backslash and
 * control characters only, the rest as UTF-8. */
void pt_str(struct page_text *w, const char *key, const char *s)
{
    pt_key(w, key);
    w->bad |= jsonx_put_string(&w->out, s, strlen(s));
}

void pt_json(struct page_text *w, const char *key, const json_t *v)
{
    /* The exact serializer: decoded bounds hold raw numbers. */
    char *text = v ? jsonnum_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
    pt_key(w, key);
    w->bad |= !text || buf_puts(&w->out, text) != 0;
    free(text);
}

int pt_respond(struct page_text *w, struct srv_res *res, struct api_error *err)
{
    if (w->bad || !w->out.data) {
        pt_free(w);
        return api_nomem(err);
    }
    res->status = 200;
    res->content_type = "application/json";
    res->text = buf_take(&w->out);
    return 0;
}

/* ---- response shapes ---- */

/* How a member is read from its struct. */
enum member_kind {
    M_INT,
    M_TEXT,
    M_BOOL,
    M_INT_OR_ABSENT,  /* no member unless the bool at `present` is set */
    M_JSON_OR_ABSENT, /* JSON text (no member for NULL), reparsed so it prints as the serializer
                         does */
};

struct member_field {
    const char *key;
    enum member_kind kind;
    size_t at, present; /* offsets in the struct */
};

/* A member's offset in a DataFile or a DeleteFile. */
#define DF(field) offsetof(struct store_data_file, field)
#define DV(field) offsetof(struct store_delete_file, field)

/* DataFile. */
static const struct member_field data_file_fields[] = {
    {"data_file_id", M_INT, DF(data_file_id), 0},
    {"path", M_TEXT, DF(path), 0},
    {"file_format", M_TEXT, DF(file_format), 0},
    {"record_count", M_INT, DF(record_count), 0},
    {"file_size_bytes", M_INT, DF(file_size_bytes), 0},
    {"row_id_start", M_INT, DF(row_id_start), 0},
    {"stats_state", M_TEXT, DF(stats_state), 0},
    {"begin_snapshot", M_INT, DF(begin_snapshot), 0},
    {"footer_size", M_INT_OR_ABSENT, DF(footer_size), DF(has_footer_size)},
    {"spec_id", M_INT_OR_ABSENT, DF(spec_id), DF(has_spec_id)},
    {"partition_values", M_JSON_OR_ABSENT, DF(partition_values), 0},
    {"explicit_row_ids", M_BOOL, DF(explicit_row_ids), 0},
};

/* DeleteFile. */
static const struct member_field delete_file_fields[] = {
    {"delete_file_id", M_INT, DV(delete_file_id), 0},
    {"data_file_id", M_INT, DV(data_file_id), 0},
    {"path", M_TEXT, DV(path), 0},
    {"file_format", M_TEXT, DV(file_format), 0},
    {"delete_count", M_INT, DV(delete_count), 0},
    {"file_size_bytes", M_INT, DV(file_size_bytes), 0},
    {"begin_snapshot", M_INT, DV(begin_snapshot), 0},
};

static void struct_members(struct page_text *w, const struct member_field *m, size_t n,
                           const void *base)
{
    const char *b = base;
    for (size_t i = 0; i < n; i++) {
        const void *at = b + m[i].at;
        switch (m[i].kind) {
        case M_INT: pt_i64(w, m[i].key, *(const int64_t *)at); break;
        case M_TEXT: pt_str(w, m[i].key, *(const char *const *)at); break;
        case M_BOOL: pt_bool(w, m[i].key, *(const bool *)at); break;
        case M_INT_OR_ABSENT:
            if (*(const bool *)(b + m[i].present))
                pt_i64(w, m[i].key, *(const int64_t *)at);
            break;
        case M_JSON_OR_ABSENT: {
            const char *text = *(const char *const *)at;
            if (text) {
                json_error_t jerr;
                json_t *v = json_loads(text, 0, &jerr);
                pt_json(w, m[i].key, v);
                json_decref(v);
            }
            break;
        }
        }
    }
}

void data_file_members(struct page_text *w, const struct store_data_file *f)
{
    struct_members(w, data_file_fields, sizeof data_file_fields / sizeof data_file_fields[0], f);
}

void delete_file_members(struct page_text *w, const struct store_delete_file *v)
{
    struct_members(w, delete_file_fields, sizeof delete_file_fields / sizeof delete_file_fields[0],
                   v);
}

void delete_file_object(struct page_text *w, const char *key, const struct store_delete_file *v)
{
    pt_open(w, key, '{');
    delete_file_members(w, v);
    pt_close(w, '}');
}

/* ---- pages ---- */

enum {
    PAGE_TOKEN_VERSION = 1,
    PAGE_CHECK_BYTES = 8,
    /* version, kind, variant, key count; catalog, table, snapshot; digest */
    PAGE_HEAD_BYTES = 4 + 3 * 8 + PAGE_DIGEST_BYTES,
    PAGE_TOKEN_MAX_BYTES = PAGE_HEAD_BYTES + PAGE_MAX_KEYS * 8 + PAGE_CHECK_BYTES,
};

/* Query parameters that say where a page starts or how long it is rather
 * than what the listing holds: they may change from page to page. */
static bool page_position_arg(const char *key)
{
    return strcmp(key, "page_token") == 0 || strcmp(key, "limit") == 0 ||
           strcmp(key, "offset") == 0;
}

/* A digest of the listing's identity: its kind and every other query
 * parameter in request order, so a token continues only the listing that
 * issued it (same filters, sort, include, snapshot or window). */
static int page_digest(const struct srv_req *req, enum page_kind kind,
                       uint8_t out[PAGE_DIGEST_BYTES])
{
    struct buf text = BUF_INIT;
    int bad = buf_printf(&text, "hoglake-page-v%d:%d", PAGE_TOKEN_VERSION, (int)kind);
    for (size_t i = 0; i < req->nargs; i++) {
        if (page_position_arg(req->args[i].key))
            continue;
        /* NUL-separated: no key or value holds a NUL (see server/http/api.h). */
        bad |= buf_putc(&text, '\0');
        bad |= buf_puts(&text, req->args[i].key);
        bad |= buf_putc(&text, '\0');
        bad |= buf_puts(&text, req->args[i].value);
    }
    uint8_t d[SHA256_BYTES];
    if (!bad)
        bad = sha256(text.data, text.len, d);
    buf_free(&text);
    if (bad)
        return -1;
    memcpy(out, d, PAGE_DIGEST_BYTES);
    return 0;
}

static void put_be64(uint8_t *b, int64_t v)
{
    for (int i = 0; i < 8; i++)
        b[i] = (uint8_t)((uint64_t)v >> (56 - 8 * i));
}

static int64_t get_be64(const uint8_t *b)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | b[i];
    return (int64_t)v;
}

/* The check that closes a token: a truncated, edited or mistyped token
 * fails it (it is a checksum, not a signature; see files.h). */
static int page_check(const uint8_t *b, size_t n, uint8_t out[PAGE_CHECK_BYTES])
{
    uint8_t d[SHA256_BYTES];
    if (sha256(b, n, d) != 0)
        return -1;
    memcpy(out, d, PAGE_CHECK_BYTES);
    return 0;
}

static size_t page_token_bytes(const struct page_token *t, uint8_t b[PAGE_TOKEN_MAX_BYTES])
{
    b[0] = PAGE_TOKEN_VERSION;
    b[1] = t->kind;
    b[2] = t->variant;
    b[3] = (uint8_t)t->nkeys;
    put_be64(b + 4, t->catalog_id);
    put_be64(b + 12, t->table_id);
    put_be64(b + 20, t->snapshot);
    memcpy(b + 28, t->digest, PAGE_DIGEST_BYTES);
    size_t n = PAGE_HEAD_BYTES;
    for (size_t i = 0; i < t->nkeys; i++, n += 8)
        put_be64(b + n, t->keys[i]);
    return n;
}

void page_token_member(struct page_text *w, const struct page_token *t)
{
    if (!t) {
        pt_null(w, "next_page_token");
        return;
    }
    uint8_t b[PAGE_TOKEN_MAX_BYTES];
    size_t n = page_token_bytes(t, b);
    if (page_check(b, n, b + n) != 0) {
        w->bad = 1;
        return;
    }
    n += PAGE_CHECK_BYTES;
    char text[2 * PAGE_TOKEN_MAX_BYTES + 1];
    str_hex_encode(b, n, text);
    pt_str(w, "next_page_token", text);
}

static int page_token_invalid(struct api_error *err)
{
    return api_bad_request(err, "query parameter 'page_token' is not a page token this server "
                                "issued (send next_page_token back exactly as received)");
}

static const char *page_kind_name(int kind)
{
    switch (kind) {
    case PAGE_FILES: return "a file listing";
    case PAGE_SCAN: return "a scan plan";
    case PAGE_CHANGES: return "a changes plan";
    default: return "an unknown listing";
    }
}

/* Decodes and checks a token's form; what it names is checked by its
 * users against the request. */
static int page_token_decode(const char *text, enum page_kind kind, struct page_token *t,
                             struct api_error *err)
{
    size_t len = strlen(text);
    if (len % 2 != 0 || len / 2 < PAGE_HEAD_BYTES + PAGE_CHECK_BYTES ||
        len / 2 > PAGE_TOKEN_MAX_BYTES)
        return page_token_invalid(err);
    uint8_t b[PAGE_TOKEN_MAX_BYTES];
    size_t n = len / 2;
    if (str_hex_decode(text, len, b) != 0)
        return page_token_invalid(err);
    uint8_t check[PAGE_CHECK_BYTES];
    n -= PAGE_CHECK_BYTES;
    if (page_check(b, n, check) != 0)
        return api_nomem(err);
    if (memcmp(check, b + n, PAGE_CHECK_BYTES) != 0 || b[0] != PAGE_TOKEN_VERSION ||
        b[3] > PAGE_MAX_KEYS || n != PAGE_HEAD_BYTES + (size_t)b[3] * 8)
        return page_token_invalid(err);
    if (b[1] != kind)
        return api_bad_request(err, "page_token continues %s, not %s", page_kind_name(b[1]),
                               page_kind_name(kind));
    memset(t, 0, sizeof *t);
    t->kind = b[1];
    t->variant = b[2];
    t->nkeys = b[3];
    t->catalog_id = get_be64(b + 4);
    t->table_id = get_be64(b + 12);
    t->snapshot = get_be64(b + 20);
    memcpy(t->digest, b + 28, PAGE_DIGEST_BYTES);
    for (size_t i = 0; i < t->nkeys; i++)
        t->keys[i] = get_be64(b + PAGE_HEAD_BYTES + 8 * i);
    return 0;
}

int page_parse(struct srv_req *req, enum page_kind kind, struct page *pg, struct api_error *err)
{
    memset(pg, 0, sizeof *pg);
    if (req_page_limit(req, PAGE_DEFAULT_LIMIT, req->srv->cfg.page_size_max, &pg->limit, err) != 0)
        return -1;
    pg->budget_bytes = req->srv->cfg.page_bytes_max;
    if (page_digest(req, kind, pg->digest) != 0)
        return api_nomem(err);
    const char *text = req_arg(req, "page_token");
    if (!text)
        return 0;
    pg->resumed = true;
    if (page_token_decode(text, kind, &pg->from, err) != 0)
        return -1;
    if (memcmp(pg->from.digest, pg->digest, PAGE_DIGEST_BYTES) != 0)
        return api_bad_request(err, "page_token was issued for a listing with other query "
                                    "parameters; send it with the first page's parameters "
                                    "unchanged (only limit may differ)");
    return 0;
}

int page_expect_keys(const struct page *pg, uint8_t variant, size_t nkeys, struct api_error *err)
{
    if (pg->from.variant != variant || pg->from.nkeys != nkeys)
        return page_token_invalid(err);
    return 0;
}

int page_pinned_snapshot(const struct page *pg, const struct catalog_row *cat, int64_t *snapshot,
                         struct api_error *err)
{
    int64_t s = pg->from.snapshot;
    if (pg->from.catalog_id != cat->id)
        return api_bad_request(err, "page_token was issued for another catalog");
    if (s < 0 || s > cat->head)
        return page_token_invalid(err);
    /* The listing's snapshot has been expired since the first page: the
     * rest of it is gone, as for any read below the floor. */
    if (s < cat->earliest)
        return timetravel_expired(err, cat, s, "the page_token's snapshot");
    *snapshot = s;
    return 0;
}

int page_check_table(const struct page *pg, int64_t table_id, struct api_error *err)
{
    if (pg->resumed && pg->from.table_id != table_id)
        return api_bad_request(err, "page_token was issued for another table");
    return 0;
}

int table_read_open_page(struct srv_req *req, struct table_read *tr, const struct page *pg,
                         struct api_error *err)
{
    if (!pg->resumed)
        return table_read_open(req, tr, err);
    memset(tr, 0, sizeof *tr);
    int64_t snapshot = 0;
    if (catalog_load(req, req->params[0], &tr->cat, err) != 0 ||
        page_pinned_snapshot(pg, &tr->cat, &snapshot, err) != 0)
        return -1;
    /* The same parameters as the first page (the digest says so): under
     * time travel, messages name the snapshot. */
    bool travel = req_arg(req, "snapshot") || req_arg(req, "at_timestamp");
    if (table_read_open_at(req, tr, snapshot, travel, err) != 0)
        return -1;
    return page_check_table(pg, tr->ref.table_id, err);
}

void page_token_next(struct page_token *t, const struct page *pg, enum page_kind kind,
                     int64_t catalog_id, int64_t table_id, int64_t snapshot)
{
    memset(t, 0, sizeof *t);
    t->kind = (uint8_t)kind;
    t->catalog_id = catalog_id;
    t->table_id = table_id;
    t->snapshot = snapshot;
    memcpy(t->digest, pg->digest, PAGE_DIGEST_BYTES);
}

void data_file_page_key(const struct store_data_file *f, int64_t keys[3])
{
    keys[0] = f->begin_snapshot;
    keys[1] = f->row_id_start;
    keys[2] = f->data_file_id;
}

/* ---- GET .../files ---- */

enum { MAX_PARTITION_FILTERS = LAKE_MAX_SPEC_FIELDS };

/* The sorts' wire names. */
static const char *const file_sorts[] = {
    [STORE_FILES_BY_ID] = "id",
    [STORE_FILES_BY_PATH] = "path",
    [STORE_FILES_BY_RECORDS] = "record_count",
    [STORE_FILES_BY_SIZE] = "size",
    [STORE_FILES_BY_STATS] = "stats",
    [STORE_FILES_BY_BEGIN] = "begin_snapshot",
};
enum { NSORTS = sizeof file_sorts / sizeof file_sorts[0] };

/* stats_state values in their (C collation) order: a token holds the rank. */
static const char *const stats_states[] = {"failed", "pending", "provided"};

/* How many keys a token of this sort carries: the sort's columns, except
 * that a path sort names the file alone (paths are unbounded; the next
 * page looks the path up). */
static size_t token_nkeys(enum store_file_sort sort)
{
    return sort == STORE_FILES_BY_PATH ? 1 : store_files_sort_nkeys(sort);
}

struct files_query {
    enum store_file_sort sort;
    bool desc;
    bool has_offset;
    int64_t offset;
    struct page page;
    struct partition_filters partition;
};

bool partition_arg_split(const char *arg, int64_t *key, const char **value)
{
    const char *colon = strchr(arg, ':');
    size_t klen = colon ? (size_t)(colon - arg) : strlen(arg);
    char text[24];
    if (klen == 0 || klen >= sizeof text)
        return false;
    memcpy(text, arg, klen);
    text[klen] = '\0';
    if (!str_parse_int64(text, key) || *key < 0 || *key > INT32_MAX)
        return false;
    *value = colon ? colon + 1 : NULL;
    return true;
}

/* partition=K:V matches files whose stored value at key index K is
 * exactly V (V may be empty: the empty string); partition=K (no colon)
 * matches a NULL value there. */
static int parse_partition_filter(struct partition_filters *f, const char *arg,
                                  struct api_error *err)
{
    if (f->n == MAX_PARTITION_FILTERS)
        return api_bad_request(err, "at most %d partition filters may be given",
                               MAX_PARTITION_FILTERS);
    int64_t k;
    const char *value;
    if (!partition_arg_split(arg, &k, &value))
        return api_bad_request(err,
                               "query parameter 'partition' must be key_index:value (or key_index "
                               "alone for a NULL value) with a non-negative integer key_index, "
                               "got '%.80s'",
                               arg);
    if (f->n++ == 0)
        f->first_is_null = value == NULL;
    pg_array_i64(&f->keys, k);
    pg_array_str(&f->values, value);
    return 0;
}

void partition_filters_init(struct partition_filters *f)
{
    memset(f, 0, sizeof *f);
    pg_array_init(&f->keys);
    pg_array_init(&f->values);
}

void partition_filters_free(struct partition_filters *f)
{
    pg_array_free(&f->keys);
    pg_array_free(&f->values);
}

int partition_filters_parse(struct srv_req *req, struct partition_filters *f, struct api_error *err)
{
    for (size_t i = 0; i < req->nargs; i++)
        if (strcmp(req->args[i].key, "partition") == 0 &&
            parse_partition_filter(f, req->args[i].value, err) != 0)
            return -1;
    return 0;
}

int partition_filters_store(struct partition_filters *f, struct store_partition_filter *out,
                            struct api_error *err)
{
    memset(out, 0, sizeof *out);
    if (!f->n)
        return 0;
    out->keys = pg_array_text(&f->keys);
    out->values = pg_array_text(&f->values);
    out->first_is_null = f->first_is_null;
    return out->keys && out->values ? 0 : api_nomem(err);
}

/* The token's variant for a file listing: the sort and its direction. */
static uint8_t files_variant(const struct files_query *q)
{
    return (uint8_t)(q->sort | (q->desc ? 8u : 0u));
}

static int parse_files_query(struct srv_req *req, struct files_query *q, struct api_error *err)
{
    static const char *const orders[] = {"asc", "desc"};
    bool has_sort, has_order;
    size_t sort, order;
    if (req_arg_word(req, "sort", file_sorts, NSORTS, &has_sort, &sort, err) != 0 ||
        req_arg_word(req, "order", orders, 2, &has_order, &order, err) != 0)
        return -1;
    q->sort = has_sort ? (enum store_file_sort)sort : STORE_FILES_BY_BEGIN;
    q->desc = has_order && order == 1;
    if (req_arg_i64(req, "offset", &q->has_offset, &q->offset, err) != 0 ||
        page_parse(req, PAGE_FILES, &q->page, err) != 0)
        return -1;
    if (!q->has_offset)
        q->offset = 0;
    if (q->offset < 0)
        return api_validation(err, "offset must be >= 0, got %lld", (long long)q->offset);
    if (q->has_offset && q->page.resumed)
        return api_validation(err, "offset and page_token are mutually exclusive; a page_token "
                                   "already says where the page starts");
    if (q->page.resumed &&
        page_expect_keys(&q->page, files_variant(q), token_nkeys(q->sort), err) != 0)
        return -1;
    return partition_filters_parse(req, &q->partition, err);
}

/* The key a token carries for a listed row: its sort columns, a path as
 * its file (see token_nkeys) and a stats state as its rank. */
static void file_row_keys(const struct files_query *q, const struct store_data_file *f,
                          struct page_token *t)
{
    t->nkeys = token_nkeys(q->sort);
    switch (q->sort) {
    case STORE_FILES_BY_ID:
    case STORE_FILES_BY_PATH: t->keys[0] = f->data_file_id; return;
    case STORE_FILES_BY_STATS: {
        int64_t rank = 0;
        while (rank < 2 && strcmp(stats_states[rank], f->stats_state) != 0)
            rank++;
        t->keys[0] = rank;
        t->keys[1] = f->data_file_id;
        return;
    }
    case STORE_FILES_BY_RECORDS: t->keys[0] = f->record_count; break;
    case STORE_FILES_BY_SIZE: t->keys[0] = f->file_size_bytes; break;
    case STORE_FILES_BY_BEGIN: data_file_page_key(f, t->keys); return;
    }
    t->keys[1] = f->data_file_id;
}

/* The path of the file a path-sorted token resumes after: a file of this
 * table visible at the listing's snapshot, else the token is not this
 * listing's. */
static int resume_path(struct srv_req *req, const struct table_read *tr, int64_t file_id,
                       const char **path, struct api_error *err)
{
    struct db_conn *db = req_db(req, err);
    if (!db)
        return -1;
    struct error dberr;
    int found = store_file_path(db, &req->arena, tr->cat.id, tr->ref.table_id, file_id,
                                tr->snapshot, path, &dberr);
    if (found < 0)
        return api_from_error(err, &dberr, "page resume");
    if (!found)
        return api_bad_request(err, "page_token names no file of this listing");
    return 0;
}

/* The keyset a resumed page starts after, as SQL values. */
static int resume_keys(struct srv_req *req, const struct table_read *tr,
                       const struct files_query *q, struct store_key out[3], struct api_error *err)
{
    const struct page_token *t = &q->page.from;
    memset(out, 0, 3 * sizeof *out);
    for (size_t i = 0; i < t->nkeys; i++)
        out[i].num = t->keys[i];
    if (q->sort == STORE_FILES_BY_PATH) {
        out[1].num = t->keys[0];
        return resume_path(req, tr, t->keys[0], &out[0].text, err);
    }
    if (q->sort == STORE_FILES_BY_STATS) {
        if (t->keys[0] < 0 || t->keys[0] > 2)
            return page_token_invalid(err);
        out[0].text = stats_states[t->keys[0]];
    }
    return 0;
}

/* FileOrderingBounds: the leading sort field's decoded bounds when the
 * table is sorted at the snapshot, else the file's row-id span. */
static void ordering_bounds_member(struct page_text *w, const struct store_file_rows *rows, int row,
                                   const struct store_data_file *f, const struct lake_column *lead,
                                   struct buf *scratch)
{
    pt_open(w, "ordering_bounds", '{');
    if (lead) {
        /* No statistics for the field (or unreadable ones): null bounds,
         * which readers take as "anything". */
        struct store_column_stats s = {0};
        struct error why;
        if (store_file_row_lead(rows, row, lead->field_id, scratch, &s, &why) < 0)
            log_warn("data file %lld: %s", (long long)f->data_file_id, why.msg);
        json_t *lo = file_bound_json(lead, s.lower, s.lower_len);
        pt_json(w, "lower_bound", lo);
        json_decref(lo);
        json_t *hi = file_bound_json(lead, s.upper, s.upper_len);
        pt_json(w, "upper_bound", hi);
        json_decref(hi);
        pt_i64(w, "field_id", lead->field_id);
    } else {
        int64_t start = f->row_id_start, records = f->record_count;
        pt_i64(w, "lower_bound", start);
        /* Compaction outputs carry explicit row ids: only the minimum is
         * known. An empty file has no last row id. */
        if (f->explicit_row_ids || records == 0)
            pt_null(w, "upper_bound");
        else
            pt_i64(w, "upper_bound", start + records - 1);
    }
    pt_close(w, '}');
}

/* The leading sort field whose bounds order the files, or NULL. */
static const struct lake_column *ordering_field(const struct table_read *tr)
{
    if (!tr->t.sorted || tr->t.nsort_fields == 0)
        return NULL;
    const struct lake_column *lead = table_read_field(tr, tr->t.sort_fields[0].source_field_id);
    return lead && bound_type_has_bounds(lead->type) ? lead : NULL;
}

/* Reads the listing's page: the files after the token's key (or the
 * offset), one past the page telling whether another follows. */
static int files_read(struct srv_req *req, const struct table_read *tr, struct files_query *q,
                      const struct lake_column *lead, struct store_file_rows *rows,
                      struct api_error *err)
{
    struct store_files_query sq = {
        .catalog_id = tr->cat.id,
        .table_id = tr->ref.table_id,
        .snapshot = tr->snapshot,
        .has_lead = lead != NULL,
        .lead_field_id = lead ? lead->field_id : 0,
        .sort = q->sort,
        .desc = q->desc,
        .limit = q->page.limit,
        .offset = q->offset,
        .budget_bytes = q->page.budget_bytes,
    };
    if (partition_filters_store(&q->partition, &sq.partition, err) != 0)
        return -1;
    struct store_key keys[3];
    if (q->page.resumed) {
        if (resume_keys(req, tr, q, keys, err) != 0)
            return -1;
        sq.after = keys;
    }
    struct db_conn *db = req_db(req, err);
    if (!db)
        return -1;
    struct error dberr;
    if (store_files_page(db, &sq, rows, &dberr) != 0)
        return api_from_error(err, &dberr, "file listing");
    return 0;
}

/* {"files": [DataFile...], "next_page_token"} from the listing's rows. */
static void files_page_text(struct page_text *w, const struct table_read *tr,
                            const struct files_query *q, const struct store_file_rows *rows,
                            const struct lake_column *lead)
{
    int n = store_file_rows_page_length(rows, q->page.limit);
    bool more = n < store_file_rows_count(rows);
    struct buf scratch = BUF_INIT;
    pt_open(w, NULL, '{');
    pt_open(w, "files", '[');
    for (int i = 0; i < n && !w->bad; i++) {
        struct store_data_file f;
        store_file_row(rows, i, &f);
        pt_open(w, NULL, '{');
        data_file_members(w, &f);
        ordering_bounds_member(w, rows, i, &f, lead, &scratch);
        pt_close(w, '}');
    }
    pt_close(w, ']');
    buf_free(&scratch);
    struct page_token next;
    if (more) {
        page_token_next(&next, &q->page, PAGE_FILES, tr->cat.id, tr->ref.table_id, tr->snapshot);
        next.variant = files_variant(q);
        struct store_data_file last;
        store_file_row(rows, n - 1, &last);
        file_row_keys(q, &last, &next);
    }
    page_token_member(w, more ? &next : NULL);
    pt_close(w, '}');
}

int h_table_files(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    struct files_query q;
    memset(&q, 0, sizeof q);
    partition_filters_init(&q.partition);
    struct table_read tr;
    memset(&tr, 0, sizeof tr);
    struct store_file_rows rows = {NULL};
    int rc = -1;
    if (parse_files_query(req, &q, err) != 0 || table_read_open_page(req, &tr, &q.page, err) != 0)
        goto done;
    const struct lake_column *lead = ordering_field(&tr);
    if (files_read(req, &tr, &q, lead, &rows, err) != 0)
        goto done;
    struct page_text w;
    pt_init(&w, (size_t)store_file_rows_count(&rows) * PAGE_TEXT_PER_FILE);
    files_page_text(&w, &tr, &q, &rows, lead);
    rc = pt_respond(&w, res, err);
done:
    store_file_rows_free(&rows);
    partition_filters_free(&q.partition);
    table_read_release(&tr);
    return rc;
}

/* ---- GET .../files/{file_id}/stats ---- */

static const char *no_stats_reason(const char *state, bool any)
{
    if (strcmp(state, "pending") == 0)
        return "pending: the file was registered without column statistics and they have not "
               "been collected from its footer yet";
    if (strcmp(state, "failed") == 0)
        return "failed: collecting column statistics from the file's footer failed";
    if (!any)
        return "provided: the writer registered no column statistics for the table's columns";
    return NULL;
}

static json_t *file_column_json(const struct lake_column *c, const struct store_column_stats *s)
{
    char path[1200];
    lake_column_path(c, path, sizeof path);
    json_t *o = json_object();
    int bad = 0;
    bad |= file_json_set(o, "field_id", json_integer((json_int_t)c->field_id));
    bad |= file_json_set(o, "name", json_string(c->name));
    bad |= file_json_set(o, "path", json_string(path));
    bad |= file_json_set(o, "type", json_string(lake_type_name(c->type)));
    bad |= file_json_set(o, "value_count", json_integer((json_int_t)s->value_count));
    bad |= file_json_set(o, "null_count", json_integer((json_int_t)s->null_count));
    bad |= file_json_set(o, "lower_bound", file_bound_json(c, s->lower, s->lower_len));
    bad |= file_json_set(o, "upper_bound", file_bound_json(c, s->upper, s->upper_len));
    json_t *params = lake_column_type_params(c);
    if (params)
        bad |= file_json_set(o, "type_params", params);
    if (s->has_nan_count)
        bad |= file_json_set(o, "nan_count", json_integer((json_int_t)s->nan_count));
    if (s->has_size_bytes)
        bad |= file_json_set(o, "size_bytes", json_integer((json_int_t)s->size_bytes));
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* Appends the file's statistics to cols, a column of the definition at
 * the snapshot at a time: a column dropped since the file was written has
 * no name or type there. */
static int file_columns_json(const struct table_read *tr, struct store_file_stats_rows *rows,
                             json_t *cols, struct error *err)
{
    struct store_column_stats_reader rd;
    if (store_file_stats_read(rows, &rd, err) != 0)
        return -1;
    struct store_column_stats s;
    int got;
    while ((got = store_column_stats_next(&rd, &s, err)) > 0) {
        const struct lake_column *c = table_read_field(tr, s.field_id);
        if (!c || !bound_type_has_bounds(c->type))
            continue;
        json_t *col = file_column_json(c, &s);
        if (!col || json_array_append_new(cols, col) != 0)
            return error_nomem(err);
    }
    return got;
}

int h_table_file_stats(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    int64_t file_id;
    if (!str_parse_int64(req->params[3], &file_id))
        return api_bad_request(err, "path parameter {file_id} must be an integer, got '%.40s'",
                               req->params[3]);
    struct table_read tr;
    if (table_read_open(req, &tr, err) != 0) {
        table_read_release(&tr);
        return -1;
    }
    struct store_file_stats_rows rows = {NULL};
    json_t *o = NULL;
    int rc = -1;
    struct db_conn *db = req_db(req, err);
    if (!db)
        goto done;
    struct error dberr;
    if (store_file_stats(db, tr.cat.id, tr.ref.table_id, tr.snapshot, file_id, &rows, &dberr) !=
        0) {
        api_from_error(err, &dberr, "file stats");
        goto done;
    }
    if (!store_file_stats_found(&rows)) {
        if (tr.time_travel)
            api_not_found(err, "data file %lld in table '%.200s.%.200s' at snapshot %lld",
                          (long long)file_id, req->params[1], req->params[2],
                          (long long)tr.snapshot);
        else
            api_not_found(err, "data file %lld in table '%.200s.%.200s'", (long long)file_id,
                          req->params[1], req->params[2]);
        goto done;
    }
    const char *state = store_file_stats_state(&rows);
    json_t *cols = json_array();
    o = json_object();
    int bad = 0;
    bad |= file_json_set(o, "data_file_id", json_integer((json_int_t)file_id));
    bad |= file_json_set(o, "stats_state", json_string(state));
    bad |= file_json_set(o, "columns", cols);
    if (!bad && file_columns_json(&tr, &rows, cols, &dberr) != 0) {
        api_from_error(err, &dberr, "file stats");
        goto done;
    }
    const char *why = bad ? NULL : no_stats_reason(state, json_array_size(cols) > 0);
    if (why)
        bad |= file_json_set(o, "no_stats_reason", json_string(why));
    if (bad) {
        api_nomem(err);
        goto done;
    }
    if (api_json(res, 200, o) != 0) {
        o = NULL;
        api_nomem(err);
        goto done;
    }
    o = NULL;
    rc = 0;
done:
    json_decref(o);
    store_file_stats_free(&rows);
    table_read_release(&tr);
    return rc;
}
