#include "objstore/s3http.h"

#include <curl/curl.h>
#include <openssl/crypto.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "objstore/errors.h"
#include "objstore/s3xml.h"
#include "util/log.h"
#include "util/sha256.h"
#include "util/strutil.h"
#include "util/random.h"

enum {
    ERROR_BODY_MAX = 64 * 1024, /* of an error answer we keep this much */
    BACKOFF_BASE_MS = 100,
    BACKOFF_CAP_MS = 10000,
};

struct s3_client {
    char *scheme;   /* "http" / "https" */
    char *hostport; /* the endpoint's host[:port]; NULL for AWS */
    char *region;
    char *access_key, *secret_key, *session_token;
    long connect_timeout_ms, timeout_ms;
    int max_retries;
    struct log_sink log;
    CURLSH *share;
    pthread_mutex_t locks[CURL_LOCK_DATA_LAST];
};

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static void init_curl(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
}

static void share_lock(CURL *h, curl_lock_data data, curl_lock_access access, void *ud)
{
    (void)h;
    (void)access;
    struct s3_client *c = ud;
    pthread_mutex_lock(&c->locks[data]);
}

static void share_unlock(CURL *h, curl_lock_data data, void *ud)
{
    (void)h;
    struct s3_client *c = ud;
    pthread_mutex_unlock(&c->locks[data]);
}

/* "http[s]://host[:port]" with at most a trailing '/': nothing else. */
static int parse_endpoint(struct s3_client *c, const char *ep, struct hl_error *err)
{
    const char *rest;
    if (str_starts_with(ep, "http://")) {
        rest = ep + 7;
        c->scheme = strdup("http");
    } else if (str_starts_with(ep, "https://")) {
        rest = ep + 8;
        c->scheme = strdup("https");
    } else {
        return os_fail(err, HL_ERR_INVALID_ARGUMENT, 0, false, "invalid_config",
                       "S3 endpoint '%.200s' must start with http:// or https://", ep);
    }
    if (!c->scheme)
        return os_nomem(err);
    size_t n = strlen(rest);
    if (n > 0 && rest[n - 1] == '/')
        n--;
    if (n == 0 || n > 255 || str_has_space_or_control(rest) || memchr(rest, '/', n) ||
        memchr(rest, '?', n) || memchr(rest, '#', n) || memchr(rest, '@', n))
        return os_fail(err, HL_ERR_INVALID_ARGUMENT, 0, false, "invalid_config",
                       "S3 endpoint '%.200s' must be scheme://host[:port] with no path", ep);
    c->hostport = strndup(rest, n);
    return c->hostport ? 0 : os_nomem(err);
}

static bool str_is_region(const char *s)
{
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-'))
            return false;
    return true;
}

static char *dup_or_null(const char *s, bool *oom)
{
    if (!s)
        return NULL;
    char *d = strdup(s);
    if (!d)
        *oom = true;
    return d;
}

int s3_client_new(const struct s3_settings *st, struct s3_client **out, struct hl_error *err)
{
    *out = NULL;
    pthread_once(&curl_once, init_curl);
    struct s3_client *c = calloc(1, sizeof *c);
    if (!c)
        return os_nomem(err);
    for (int i = 0; i < CURL_LOCK_DATA_LAST; i++)
        pthread_mutex_init(&c->locks[i], NULL);
    bool oom = false;
    c->region = dup_or_null(st->region ? st->region : "us-east-1", &oom);
    c->access_key = dup_or_null(st->access_key, &oom);
    c->secret_key = dup_or_null(st->secret_key, &oom);
    c->session_token = dup_or_null(st->session_token, &oom);
    c->connect_timeout_ms = st->connect_timeout_ms;
    c->timeout_ms = st->timeout_ms;
    c->max_retries = st->max_retries;
    c->log = st->log;
    int rc = oom ? os_nomem(err) : 0;
    if (rc == 0 && (!*c->region || strlen(c->region) > 64 || !str_is_region(c->region)))
        rc = os_fail(err, HL_ERR_INVALID_ARGUMENT, 0, false, "invalid_config",
                     "S3 region '%.64s' is not a region name (a-z, 0-9, '-')", c->region);
    if (rc == 0 && st->endpoint)
        rc = parse_endpoint(c, st->endpoint, err);
    if (rc == 0 && !st->endpoint && !(c->scheme = strdup("https")))
        rc = os_nomem(err);
    if (rc == 0) {
        c->share = curl_share_init();
        if (!c->share)
            rc = os_nomem(err);
    }
    if (rc == 0) {
        curl_share_setopt(c->share, CURLSHOPT_LOCKFUNC, share_lock);
        curl_share_setopt(c->share, CURLSHOPT_UNLOCKFUNC, share_unlock);
        curl_share_setopt(c->share, CURLSHOPT_USERDATA, c);
        curl_share_setopt(c->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_CONNECT);
        curl_share_setopt(c->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
        curl_share_setopt(c->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
    }
    if (rc != 0) {
        s3_client_free(c);
        return rc;
    }
    *out = c;
    return 0;
}

static void wipe_free(char *s)
{
    if (s) {
        OPENSSL_cleanse(s, strlen(s));
        free(s);
    }
}

void s3_client_free(struct s3_client *c)
{
    if (!c)
        return;
    if (c->share)
        curl_share_cleanup(c->share);
    for (int i = 0; i < CURL_LOCK_DATA_LAST; i++)
        pthread_mutex_destroy(&c->locks[i]);
    free(c->scheme);
    free(c->hostport);
    free(c->region);
    free(c->access_key);
    wipe_free(c->secret_key);
    wipe_free(c->session_token);
    free(c);
}

void s3_client_warn(struct s3_client *c, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    /* Messages quote what the service said, which may echo a credential. */
    os_redact_str(line, sizeof line, c->secret_key);
    os_redact_str(line, sizeof line, c->session_token);
    log_to(&c->log, LOG_WARN, "%s", line);
}

/* ---- one request ---- */

struct sink {
    CURL *h;
    struct buf *out;
    size_t out_base;
    uint64_t out_max;
    struct buf errbody;
    bool oom, too_long;
    char etag[128];
};

static size_t on_header(char *ptr, size_t size, size_t nmemb, void *ud)
{
    struct sink *k = ud;
    size_t n = size * nmemb;
    if (n > 5 && strncasecmp(ptr, "etag:", 5) == 0) {
        size_t i = 5, end = n;
        while (i < end && (ptr[i] == ' ' || ptr[i] == '\t'))
            i++;
        while (end > i && (ptr[end - 1] == '\r' || ptr[end - 1] == '\n' || ptr[end - 1] == ' '))
            end--;
        if (end - i < sizeof k->etag) {
            memcpy(k->etag, ptr + i, end - i);
            k->etag[end - i] = '\0';
        }
    }
    return n;
}

/* True when the XML document's root element is <Error>. */
static bool root_is_error(const char *doc, size_t len)
{
    size_t i = 0;
    while (i < len) {
        while (i < len && (doc[i] == ' ' || doc[i] == '\t' || doc[i] == '\r' || doc[i] == '\n'))
            i++;
        if (i + 1 < len && doc[i] == '<' && doc[i + 1] == '?') {
            const char *end = s3xml_find(doc + i, len - i, "?>", 2);
            if (!end)
                return false;
            i = (size_t)(end - doc) + 2;
            continue;
        }
        break;
    }
    return len - i >= 7 && memcmp(doc + i, "<Error>", 7) == 0;
}

static size_t on_body(char *ptr, size_t size, size_t nmemb, void *ud)
{
    struct sink *k = ud;
    size_t n = size * nmemb;
    long http = 0;
    curl_easy_getinfo(k->h, CURLINFO_RESPONSE_CODE, &http);
    if (http < 200 || http > 299 || !k->out) {
        size_t room = k->errbody.len < ERROR_BODY_MAX ? ERROR_BODY_MAX - k->errbody.len : 0;
        if (buf_append(&k->errbody, ptr, n < room ? n : room) != 0)
            k->oom = true;
        return k->oom ? 0 : n;
    }
    size_t got = k->out->len - k->out_base;
    if (k->out_max && (uint64_t)got + n > k->out_max) {
        k->too_long = true;
        return 0;
    }
    if (got == 0) {
        /* One allocation for the whole body when its length is known. */
        curl_off_t cl = -1;
        curl_easy_getinfo(k->h, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &cl);
        if (cl > 0 && (!k->out_max || (uint64_t)cl <= k->out_max) && (uint64_t)cl <= SIZE_MAX / 2)
            buf_reserve(k->out, (size_t)cl);
    }
    if (buf_append(k->out, ptr, n) != 0) {
        k->oom = true;
        return 0;
    }
    return n;
}

struct prepared {
    struct buf url, path, query, display, auth;
    char host[320];
    char payload_hash[SHA256_HEX_CHARS + 1];
};

static void prepared_free(struct prepared *p)
{
    buf_free(&p->url);
    buf_free(&p->path);
    buf_free(&p->query);
    buf_free(&p->display);
    if (p->auth.data)
        OPENSSL_cleanse(p->auth.data, p->auth.len);
    buf_free(&p->auth);
}

/* Host, canonical path, query and URL of r; the same text is signed and
 * sent (CURLOPT_PATH_AS_IS keeps curl from rewriting the path). */
static int prepare(const struct s3_client *c, const struct s3_request *r, struct prepared *p)
{
    bool path_style = c->hostport || strchr(r->bucket, '.');
    if (c->hostport)
        snprintf(p->host, sizeof p->host, "%s", c->hostport);
    else if (path_style)
        snprintf(p->host, sizeof p->host, "s3.%s.amazonaws.com", c->region);
    else
        snprintf(p->host, sizeof p->host, "%s.s3.%s.amazonaws.com", r->bucket, c->region);
    int rc = 0;
    if (path_style)
        rc = buf_printf(&p->path, "/%s%s", r->bucket, *r->key ? "/" : "");
    else
        rc = buf_putc(&p->path, '/');
    if (rc == 0)
        rc = sigv4_uri_encode(&p->path, r->key, strlen(r->key), true);
    if (rc == 0)
        rc = buf_puts(&p->query, "");
    if (rc == 0)
        rc = sigv4_canonical_query(&p->query, r->query, r->n_query);
    if (rc == 0)
        rc = buf_printf(&p->url, "%s://%s%s%s%s", c->scheme, p->host, p->path.data,
                        p->query.len ? "?" : "", p->query.data);
    if (rc == 0)
        rc = buf_printf(&p->display, "%s s3://%s/%.300s%s", r->method, r->bucket, r->key,
                        strlen(r->key) > 300 ? "..." : "");
    if (rc == 0)
        rc = sha256_hex(r->body ? r->body : "", r->body ? r->body_len : 0, p->payload_hash);
    return rc;
}

static void amz_now(char out[17])
{
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(out, 17, "%Y%m%dT%H%M%SZ", &tm);
}

/* Signs the request at this moment: fills p->auth and the header list. */
static struct curl_slist *sign_headers(const struct s3_client *c, const struct s3_request *r,
                                       struct prepared *p, const char *content_type)
{
    char amz_date[17];
    amz_now(amz_date);
    struct sigv4_kv h[SIGV4_MAX_HEADERS];
    size_t n = 0;
    h[n++] = (struct sigv4_kv){"host", p->host};
    h[n++] = (struct sigv4_kv){"x-amz-date", amz_date};
    h[n++] = (struct sigv4_kv){"x-amz-content-sha256", p->payload_hash};
    if (c->session_token)
        h[n++] = (struct sigv4_kv){"x-amz-security-token", c->session_token};
    if (r->range)
        h[n++] = (struct sigv4_kv){"range", r->range};
    if (r->if_none_match)
        h[n++] = (struct sigv4_kv){"if-none-match", "*"};
    if (r->content_md5)
        h[n++] = (struct sigv4_kv){"content-md5", r->content_md5};
    if (content_type)
        h[n++] = (struct sigv4_kv){"content-type", content_type};
    struct sigv4_request sr = {r->method, p->path.data, p->query.data, h, n, p->payload_hash};
    struct sigv4_credentials cr = {c->access_key, c->secret_key, c->region, "s3"};
    if (p->auth.data)
        OPENSSL_cleanse(p->auth.data, p->auth.len);
    buf_reset(&p->auth);
    if (buf_puts(&p->auth, "Authorization: ") != 0 ||
        sigv4_authorization(&p->auth, &cr, amz_date, &sr) != 0)
        return NULL;
    struct curl_slist *list = NULL, *next;
    struct buf line = BUF_INIT;
    bool ok = true;
    for (size_t i = 0; i < n && ok; i++) {
        buf_reset(&line);
        ok = buf_printf(&line, "%s: %s", h[i].name, h[i].value) == 0 &&
             (next = curl_slist_append(list, line.data)) != NULL;
        if (ok)
            list = next;
    }
    /* No 100-continue round trip; the body follows the headers at once. */
    ok = ok && (next = curl_slist_append(list, "Expect:")) != NULL;
    if (ok)
        list = next;
    ok = ok && (next = curl_slist_append(list, p->auth.data)) != NULL;
    if (ok)
        list = next;
    if (line.data)
        OPENSSL_cleanse(line.data, line.len);
    buf_free(&line);
    if (!ok) {
        curl_slist_free_all(list);
        return NULL;
    }
    return list;
}

static void free_headers(struct curl_slist *list)
{
    /* The list holds the signature and maybe the session token. */
    for (struct curl_slist *l = list; l; l = l->next)
        OPENSSL_cleanse(l->data, strlen(l->data));
    curl_slist_free_all(list);
}

bool s3_retryable_code(const char *code)
{
    static const char *const codes[] = {"RequestTimeout", "SlowDown", "InternalError",
                                        "ServiceUnavailable"};
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
        if (strcmp(code, codes[i]) == 0)
            return true;
    return false;
}

/* Maps an S3 error answer to *err. Returns whether to retry it here. */
static bool http_error(const struct s3_client *c, const struct s3_request *r,
                       const struct prepared *p, long http, const struct buf *body,
                       struct hl_error *err)
{
    struct buf code = BUF_INIT, msg = BUF_INIT;
    const char *doc = body->data ? body->data : "";
    if (s3xml_first(doc, body->len, "Code", &code) != S3XML_OK)
        buf_reset(&code);
    if (s3xml_first(doc, body->len, "Message", &msg) != S3XML_OK)
        buf_reset(&msg);
    char code_s[HL_ERROR_CODE_MAX], msg_s[512];
    if (code.len && !str_has_space_or_control(code.data))
        str_copy(code_s, sizeof code_s, code.data);
    else
        snprintf(code_s, sizeof code_s, "http_%ld", http);
    /* The peer's words, minus anything of ours it may have echoed back;
     * redacted whole, before they are cut short. */
    if (msg.len) {
        const char *auth = p->auth.data ? strchr(p->auth.data, ' ') : NULL;
        const char *sig = p->auth.data ? strstr(p->auth.data, "Signature=") : NULL;
        os_redact_str(msg.data, msg.len + 1, auth ? auth + 1 : NULL);
        os_redact_str(msg.data, msg.len + 1, sig ? sig + strlen("Signature=") : NULL);
        os_redact_str(msg.data, msg.len + 1, c->secret_key);
        os_redact_str(msg.data, msg.len + 1, c->session_token);
    }
    str_copy(msg_s, sizeof msg_s, msg.len ? msg.data : "no detail");
    buf_free(&code);
    buf_free(&msg);
    hl_status st = HL_ERR_IO;
    bool retry = false, retryable = false;
    if (http == 404) {
        st = HL_ERR_NOT_FOUND;
    } else if (http == 412 && r->if_none_match) {
        st = HL_ERR_ALREADY_EXISTS;
    } else if (http == 416) {
        st = HL_ERR_INVALID_ARGUMENT;
    } else if (http == 409) {
        st = HL_ERR_CONFLICT; /* e.g. a racing conditional write: the caller decides */
        retryable = true;
    } else if (http >= 500 || http == 429 || s3_retryable_code(code_s)) {
        retry = retryable = true;
    }
    const char *hint = "";
    if (strcmp(code_s, "SignatureDoesNotMatch") == 0 || strcmp(code_s, "InvalidAccessKeyId") == 0)
        hint = " (check the S3 access key and secret key)";
    os_fail(err, st, (int)http, retryable, code_s, "%s: HTTP %ld %s: %s%s", p->display.data, http,
            code_s, msg_s, hint);
    return retry;
}

/* A curl failure into *err. Returns whether to retry it. */
static bool transport_error(const struct s3_client *c, const struct prepared *p, CURLcode rc,
                            const struct sink *k, struct hl_error *err)
{
    if (k->oom) {
        os_nomem(err);
        return false;
    }
    if (k->too_long) {
        os_fail(err, HL_ERR_PROTOCOL, 0, false, "protocol",
                "%s: the answer is longer than requested", p->display.data);
        return false;
    }
    switch (rc) {
    case CURLE_OPERATION_TIMEDOUT:
        os_fail(err, HL_ERR_TIMEOUT, 0, true, "timeout",
                "%s: no answer within %ld ms; the outcome is unknown", p->display.data,
                c->timeout_ms);
        return true;
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
        os_fail(err, HL_ERR_IO, 0, true, "io", "%s: %s", p->display.data, curl_easy_strerror(rc));
        return true;
    default:
        os_fail(err, HL_ERR_IO, 0, false, "io", "%s: %s", p->display.data, curl_easy_strerror(rc));
        return false;
    }
}

/* The delay before retry number `attempt` (0-based): half of the
 * exponential step fixed, half random, so clients spread out. */
static long backoff_ms(int attempt)
{
    long d = BACKOFF_BASE_MS;
    for (int i = 0; i < attempt && d < BACKOFF_CAP_MS; i++)
        d *= 2;
    if (d > BACKOFF_CAP_MS)
        d = BACKOFF_CAP_MS;
    unsigned int rnd = 0;
    if (random_bytes(&rnd, sizeof rnd) != 0)
        rnd = 0;
    return d / 2 + (long)(rnd % (unsigned)(d / 2 + 1));
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

/* One attempt. 0, or -1 with *err set and *retry saying whether to go on. */
static int attempt_once(struct s3_client *c, const struct s3_request *r, struct prepared *p,
                        struct s3_response *resp, bool *retry, struct hl_error *err)
{
    *retry = false;
    const char *ctype =
        r->body ? (r->content_type ? r->content_type : "application/octet-stream") : NULL;
    struct curl_slist *headers = sign_headers(c, r, p, ctype);
    if (!headers)
        return os_nomem(err);
    CURL *h = curl_easy_init();
    if (!h) {
        free_headers(headers);
        return os_nomem(err);
    }
    struct sink k = {.h = h,
                     .out = r->out,
                     .out_base = r->out ? r->out->len : 0,
                     .out_max = r->out_max,
                     .errbody = BUF_INIT};
    curl_easy_setopt(h, CURLOPT_URL, p->url.data);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_PATH_AS_IS, 1L);
    curl_easy_setopt(h, CURLOPT_SHARE, c->share);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, c->timeout_ms);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, c->connect_timeout_ms);
    curl_easy_setopt(h, CURLOPT_USERAGENT, "hoglake/" HOGLAKE_VERSION);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &k);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, &k);
    if (r->head) {
        curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
    } else {
        curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, r->method);
        if (r->body) {
            /* Not copied: the caller's bytes are sent as they are, again on a retry. */
            curl_easy_setopt(h, CURLOPT_POSTFIELDS, r->body_len ? r->body : "");
            curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)r->body_len);
        }
    }
    CURLcode rc = curl_easy_perform(h);
    long http = 0;
    curl_off_t cl = -1;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &http);
    curl_easy_getinfo(h, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &cl);
    curl_easy_cleanup(h);
    free_headers(headers);
    int ret = 0;
    if (rc != CURLE_OK) {
        *retry = transport_error(c, p, rc, &k, err);
        ret = -1;
    } else if (http < 200 || http > 299) {
        *retry = http_error(c, r, p, http, &k.errbody, err);
        ret = -1;
    } else if (strcmp(r->method, "POST") == 0 && r->out &&
               root_is_error(r->out->data + k.out_base, r->out->len - k.out_base)) {
        struct buf b = {r->out->data + k.out_base, r->out->len - k.out_base, 0};
        *retry = http_error(c, r, p, http >= 300 ? http : 500, &b, err);
        ret = -1;
    }
    buf_free(&k.errbody);
    if (ret != 0 && r->out) {
        r->out->len = k.out_base;
        if (r->out->data)
            r->out->data[r->out->len] = '\0';
    }
    if (resp) {
        resp->http = http;
        resp->content_length = cl;
        memcpy(resp->etag, k.etag, sizeof k.etag);
    }
    return ret;
}

int s3_call(struct s3_client *c, const struct s3_request *r, struct s3_response *resp,
            struct hl_error *err)
{
    if (!c->access_key || !c->secret_key)
        return os_fail(err, HL_ERR_INVALID_ARGUMENT, 0, false, "no_credentials",
                       "no S3 credentials: set them in the config or in AWS_ACCESS_KEY_ID and "
                       "AWS_SECRET_ACCESS_KEY");
    struct hl_error local;
    if (!err)
        err = &local; /* the retry log line needs the message */
    struct prepared p = {BUF_INIT, BUF_INIT, BUF_INIT, BUF_INIT, BUF_INIT, "", ""};
    if (prepare(c, r, &p) != 0) {
        prepared_free(&p);
        return os_nomem(err);
    }
    int rc = -1;
    for (int attempt = 0;; attempt++) {
        bool retry = false;
        rc = attempt_once(c, r, &p, resp, &retry, err);
        if (rc == 0 || !retry || attempt >= c->max_retries)
            break;
        long delay = backoff_ms(attempt);
        s3_client_warn(c, "objstore: %s; retry %d of %d in %ld ms", err->message, attempt + 1,
                       c->max_retries, delay);
        sleep_ms(delay);
    }
    if (rc != 0) {
        os_redact(err, c->secret_key);
        os_redact(err, c->session_token);
    }
    prepared_free(&p);
    return rc;
}
