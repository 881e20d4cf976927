/* The client handle and its HTTP transport (libcurl), with the mapping from
 * the server's error envelope to hl_status. */
#include <curl/curl.h>
#include <jansson.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <math.h>
#include <time.h>

#include "client/internal.h"
#include "util/jsonnum.h"
#include "objstore/objstore.h"
#include "util/strutil.h"
#include "util/error.h"

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static void init_curl(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
}

static hl_status set_error(struct hl_error *err, hl_status status, int http, const char *code,
                           const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static hl_status set_error_v(struct hl_error *err, hl_status status, int http, const char *code,
                             const char *fmt, va_list ap)
{
    return error_setv(err, status, http, false, code, fmt, ap);
}

static hl_status set_error(struct hl_error *err, hl_status status, int http, const char *code,
                           const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_error_v(err, status, http, code, fmt, ap);
    va_end(ap);
    return status;
}

hl_status client_fail(struct hl_error *err, hl_status status, const char *code, const char *fmt,
                      ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_error_v(err, status, 0, code, fmt, ap);
    va_end(ap);
    return status;
}

hl_status client_nomem(struct hl_error *err)
{
    return set_error(err, HL_ERR_NOMEM, 0, "out_of_memory", "out of memory");
}

void client_error_prefix(struct hl_error *err, const char *fmt, ...)
{
    if (!err)
        return;
    char prefix[256], old[HL_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    memcpy(old, err->message, sizeof old);
    /* Truncation keeps the front, which says what failed. */
    size_t n = strlen(prefix);
    if (n + 2 >= sizeof err->message)
        n = sizeof err->message - 3;
    memcpy(err->message, prefix, n);
    memcpy(err->message + n, ": ", 2);
    str_copy(err->message + n + 2, sizeof err->message - n - 2, old);
}

double client_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void free_secret(char *s)
{
    if (s)
        explicit_bzero(s, strlen(s));
    free(s);
}

static int copy_opt(char **dst, const char *src)
{
    *dst = NULL;
    if (!src)
        return 0;
    return (*dst = strdup(src)) ? 0 : -1;
}

/* The option, else the environment variable when it is set and not empty. */
static const char *opt_or_env(const char *opt, const char *env)
{
    if (opt)
        return opt;
    const char *v = getenv(env);
    return v && *v ? v : NULL;
}

/* The Authorization header line of token (NULL for none). A token is
 * visible ASCII only: anything else could split the header. */
static hl_status auth_header(const char *token, char **out, struct hl_error *err)
{
    *out = NULL;
    if (!token)
        return HL_OK;
    size_t n = strlen(token);
    if (n == 0 || n > 1024)
        return set_error(err, HL_ERR_INVALID_ARGUMENT, 0, "invalid_argument",
                         "the token must be 1 to 1024 characters");
    for (const char *p = token; *p; p++)
        if (*p < 0x21 || *p > 0x7e)
            return set_error(err, HL_ERR_INVALID_ARGUMENT, 0, "invalid_argument",
                             "the token holds a space or a control character");
    struct buf b = BUF_INIT;
    if (buf_printf(&b, "Authorization: Bearer %s", token) != 0)
        return client_nomem(err);
    *out = buf_take(&b);
    return HL_OK;
}

hl_status hl_client_new(const struct hl_client_options *o, hl_client **out, struct hl_error *err)
{
    *out = NULL;
    if (!o || !o->server_url || !*o->server_url)
        return set_error(err, HL_ERR_INVALID_ARGUMENT, 0, "invalid_argument",
                         "a server URL is required");
    if (!str_starts_with(o->server_url, "http://") && !str_starts_with(o->server_url, "https://"))
        return set_error(err, HL_ERR_INVALID_ARGUMENT, 0, "invalid_argument",
                         "server URL must start with http:// or https://, got '%.200s'",
                         o->server_url);
    if (o->read_threads < 0)
        return set_error(err, HL_ERR_INVALID_ARGUMENT, 0, "invalid_argument",
                         "read_threads is %d: give 0 (the online CPUs) or more", o->read_threads);
    char *authz;
    hl_status st = auth_header(opt_or_env(o->token, "HOGLAKE_TOKEN"), &authz, err);
    if (st != HL_OK)
        return st;
    pthread_once(&curl_once, init_curl);
    hl_client *c = calloc(1, sizeof *c);
    if (!c) {
        free_secret(authz);
        return client_nomem(err);
    }
    pthread_mutex_init(&c->store_lock, NULL);
    c->auth_header = authz;
    if (!(c->base = strdup(o->server_url)) ||
        copy_opt(&c->ca_file, opt_or_env(o->ca_file, "HOGLAKE_CACERT")) != 0 ||
        copy_opt(&c->s3_endpoint, o->s3_endpoint) != 0 ||
        copy_opt(&c->s3_region, o->s3_region) != 0 ||
        copy_opt(&c->s3_access_key, o->s3_access_key) != 0 ||
        copy_opt(&c->s3_secret_key, o->s3_secret_key) != 0 ||
        copy_opt(&c->s3_session_token, o->s3_session_token) != 0) {
        hl_client_free(c);
        return client_nomem(err);
    }
    size_t n = strlen(c->base);
    while (n > 0 && c->base[n - 1] == '/')
        c->base[--n] = '\0';
    c->timeout_ms = o->timeout_ms > 0 ? o->timeout_ms : 60000;
    c->connect_timeout_ms = o->connect_timeout_ms > 0 ? o->connect_timeout_ms : 10000;
    c->storage_retries = o->storage_retries;
    c->upload_flags = o->streaming_uploads ? OBJSTORE_MULTIPART : 0;
    c->read_threads = o->read_threads;
    c->log = o->log;
    c->log_ctx = o->log_ctx;
    c->log_level = o->log_level ? o->log_level : HL_LOG_WARN;
    *out = c;
    return HL_OK;
}

void hl_client_free(hl_client *c)
{
    if (!c)
        return;
    client_store_free(c);
    pthread_mutex_destroy(&c->store_lock);
    free(c->base);
    free_secret(c->auth_header);
    free(c->ca_file);
    free(c->s3_endpoint);
    free(c->s3_region);
    free(c->s3_access_key);
    free_secret(c->s3_secret_key);
    free_secret(c->s3_session_token);
    free(c);
}

size_t hl_url_encode(const char *in, char *out, size_t out_size)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t j = 0;
    for (const unsigned char *p = (const unsigned char *)in; *p; p++) {
        bool keep = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                    (*p >= '0' && *p <= '9') || *p == '-' || *p == '_' || *p == '.' || *p == '~';
        size_t need = keep ? 1 : 3;
        if (j + need >= out_size)
            return 0;
        if (keep) {
            out[j++] = (char)*p;
        } else {
            out[j++] = '%';
            out[j++] = hex[*p >> 4];
            out[j++] = hex[*p & 15];
        }
    }
    if (out_size == 0)
        return 0;
    out[j] = '\0';
    return j;
}

static size_t on_body(char *ptr, size_t size, size_t nmemb, void *ud)
{
    struct buf *b = ud;
    return buf_append(b, ptr, size * nmemb) == 0 ? size * nmemb : 0;
}

/* Maps an HTTP error answer to a status, using the typed code when the
 * body is the server's envelope. */
static hl_status map_http_error(long http, const char *body, struct hl_error *err)
{
    json_t *j = body ? json_loads(body, 0, NULL) : NULL;
    const char *code = j ? json_string_value(json_object_get(j, "error")) : NULL;
    const char *detail = j ? json_string_value(json_object_get(j, "detail")) : NULL;
    const char *retry = j ? json_string_value(json_object_get(j, "retry")) : NULL;
    hl_status st;
    bool retryable = false, re_prepare = retry && strcmp(retry, "re-prepare") == 0;
    if (code && strcmp(code, "ddl_since_read_snapshot") == 0) {
        st = HL_ERR_DDL_SINCE_READ;
        re_prepare = true;
    } else if (code && strcmp(code, "table_recreated") == 0) {
        st = HL_ERR_TABLE_RECREATED;
        re_prepare = true;
    } else if (code && strcmp(code, "table_dropped") == 0) {
        st = HL_ERR_TABLE_DROPPED;
        re_prepare = true;
    } else if (code && strcmp(code, "already_exists") == 0) {
        st = HL_ERR_ALREADY_EXISTS;
    } else if (http == 409) {
        st = HL_ERR_CONFLICT;
        retryable = code && strcmp(code, "commit_conflict") == 0;
    } else if (http == 401) {
        st = HL_ERR_UNAUTHENTICATED;
    } else if (http == 403) {
        st = HL_ERR_FORBIDDEN;
    } else if (http == 404) {
        st = HL_ERR_NOT_FOUND;
    } else if (http == 410) {
        st = HL_ERR_EXPIRED;
    } else if (http == 422) {
        st = HL_ERR_VALIDATION;
    } else if (http == 400 || http == 405 || http == 413) {
        st = HL_ERR_BAD_REQUEST;
    } else if (http == 501) {
        st = HL_ERR_NOT_IMPLEMENTED;
    } else if (http == 503) {
        st = HL_ERR_UNAVAILABLE;
        retryable = true;
    } else {
        st = HL_ERR_INTERNAL;
    }
    char fallback[32];
    snprintf(fallback, sizeof fallback, "http_%ld", http);
    set_error(err, st, (int)http, code ? code : fallback, "%s",
              detail ? detail : (body && *body ? body : "no detail"));
    if (err) {
        err->retryable = retryable;
        err->re_prepare = re_prepare;
    }
    json_decref(j);
    return st;
}

hl_status hl_client_request(hl_client *c, const char *method, const char *path,
                            const char *json_body, char **response, struct hl_error *err)
{
    if (response)
        *response = NULL;
    if (!c || !method || !path || path[0] != '/')
        return set_error(err, HL_ERR_INVALID_ARGUMENT, 0, "invalid_argument",
                         "method and an absolute path are required");
    struct buf url = BUF_INIT, body = BUF_INIT;
    if (buf_printf(&url, "%s%s", c->base, path) != 0)
        return set_error(err, HL_ERR_NOMEM, 0, "out_of_memory", "out of memory");
    CURL *h = curl_easy_init();
    if (!h) {
        buf_free(&url);
        return set_error(err, HL_ERR_NOMEM, 0, "out_of_memory", "cannot create an HTTP handle");
    }
    struct curl_slist *headers = curl_slist_append(NULL, "Accept: application/json");
    headers = curl_slist_append(headers, "Expect:");
    if (json_body)
        headers = curl_slist_append(headers, "Content-Type: application/json");
    if (c->auth_header)
        headers = curl_slist_append(headers, c->auth_header);
    if (c->ca_file)
        curl_easy_setopt(h, CURLOPT_CAINFO, c->ca_file);
    char curl_detail[CURL_ERROR_SIZE] = "";
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, curl_detail);
    curl_easy_setopt(h, CURLOPT_URL, url.data);
    curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
    if (json_body) {
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, json_body);
        curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(json_body));
    }
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &body);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, c->timeout_ms);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, c->connect_timeout_ms);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_USERAGENT, "libhoglake/" HOGLAKE_VERSION);
    CURLcode rc = curl_easy_perform(h);
    long http = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &http);
    curl_slist_free_all(headers);
    curl_easy_cleanup(h);
    hl_status st = HL_OK;
    if (rc == CURLE_OPERATION_TIMEDOUT) {
        st = set_error(err, HL_ERR_TIMEOUT, 0, "timeout",
                       "%s %s: no answer within %ld ms; the outcome is unknown", method, path,
                       c->timeout_ms);
    } else if (rc == CURLE_PEER_FAILED_VERIFICATION || rc == CURLE_SSL_CACERT_BADFILE) {
        st = set_error(err, HL_ERR_IO, 0, "tls_verification",
                       "%s %s: the server's certificate is not trusted (%s); give the authority "
                       "that signed it with --cacert or HOGLAKE_CACERT",
                       method, url.data, curl_detail[0] ? curl_detail : curl_easy_strerror(rc));
    } else if (rc != CURLE_OK) {
        st = set_error(err, HL_ERR_IO, 0, "io", "%s %s: %s", method, url.data,
                       curl_detail[0] ? curl_detail : curl_easy_strerror(rc));
    } else if (http < 200 || http > 299) {
        st = map_http_error(http, body.data, err);
    } else if (response) {
        *response = buf_take(&body);
    }
    buf_free(&body);
    buf_free(&url);
    return st;
}

/* ---- helpers the other modules share ---- */

int client_path_seg(struct buf *path, const char *segment)
{
    /* Every byte may need three characters. */
    size_t cap = strlen(segment) * 3 + 1;
    char *enc = malloc(cap);
    if (!enc)
        return -1;
    hl_url_encode(segment, enc, cap);
    int rc = buf_printf(path, "/%s", enc);
    free(enc);
    return rc;
}

int client_catalog_path(struct buf *path, const hl_catalog *c)
{
    return buf_puts(path, "/v1/catalogs") == 0 && client_path_seg(path, c->name) == 0 ? 0 : -1;
}

int client_namespace_path(struct buf *path, const hl_namespace *ns)
{
    return client_catalog_path(path, ns->catalog) == 0 && buf_puts(path, "/namespaces") == 0 &&
                   client_path_seg(path, ns->name) == 0
               ? 0
               : -1;
}

int client_table_path(struct buf *path, const hl_table *t)
{
    return client_namespace_path(path, t->ns) == 0 && buf_puts(path, "/tables") == 0 &&
                   client_path_seg(path, t->name) == 0
               ? 0
               : -1;
}

hl_status client_check_at(const struct hl_at *at, struct hl_error *err)
{
    if (at && at->snapshot >= 0 && at->at_timestamp)
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                           "give a snapshot or a timestamp, not both");
    if (at && at->snapshot < -1)
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                           "a snapshot id is >= 0 (or -1 for none), got %lld",
                           (long long)at->snapshot);
    return HL_OK;
}

int client_query_at(struct buf *path, const struct hl_at *at, bool *has_query)
{
    if (!at)
        return 0;
    if (at->snapshot >= 0) {
        if (buf_printf(path, "%csnapshot=%lld", *has_query ? '&' : '?', (long long)at->snapshot) !=
            0)
            return -1;
        *has_query = true;
    }
    if (at->at_timestamp) {
        size_t cap = strlen(at->at_timestamp) * 3 + 1;
        char *enc = malloc(cap);
        if (!enc)
            return -1;
        hl_url_encode(at->at_timestamp, enc, cap);
        int rc = buf_printf(path, "%cat_timestamp=%s", *has_query ? '&' : '?', enc);
        free(enc);
        if (rc != 0)
            return -1;
        *has_query = true;
    }
    return 0;
}

hl_status client_json(hl_client *c, const char *method, const char *path, const json_t *body,
                      json_t **out, struct hl_error *err)
{
    if (out)
        *out = NULL;
    char *text = NULL;
    if (body && !(text = json_dumps(body, JSON_COMPACT)))
        return client_nomem(err);
    char *resp = NULL;
    hl_status st = hl_client_request(c, method, path, text, out ? &resp : NULL, err);
    free(text);
    if (st != HL_OK || !out)
        return st;
    json_error_t jerr;
    /* Wide: a uint64 statistic above 2^63-1 is an exact JSON number. */
    *out = jsonnum_loads_wide(resp ? resp : "", &jerr);
    free(resp);
    if (!*out)
        return client_fail(err, HL_ERR_PROTOCOL, "protocol", "%s %s: the answer is not JSON (%s)",
                           method, path, jerr.text);
    return HL_OK;
}

bool client_json_int(const json_t *obj, const char *key, int64_t *out)
{
    json_t *v = json_object_get(obj, key);
    if (!json_is_integer(v))
        return false;
    *out = (int64_t)json_integer_value(v);
    return true;
}

hl_status client_request_text(hl_client *c, const char *method, struct buf *path,
                              const json_t *body, char **json, struct hl_error *err)
{
    if (json)
        *json = NULL;
    char *text = NULL;
    if (body && !(text = json_dumps(body, JSON_COMPACT))) {
        buf_free(path);
        return client_nomem(err);
    }
    hl_status st = hl_client_request(c, method, path->data, text, json, err);
    free(text);
    buf_free(path);
    return st;
}

hl_status client_get_at(hl_client *c, struct buf *path, const struct hl_at *at, char **json,
                        struct hl_error *err)
{
    bool q = strchr(path->data, '?') != NULL;
    hl_status st = client_check_at(at, err);
    if (st == HL_OK && client_query_at(path, at, &q) != 0)
        st = client_nomem(err);
    if (st != HL_OK) {
        buf_free(path);
        return st;
    }
    return client_request_text(c, "GET", path, NULL, json, err);
}
