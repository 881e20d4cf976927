/* Rows of a binary COPY out, one at a time (db.h: db_copy_each_row). */
#include <string.h>

#include "server/db/db.h"

#include "util/buf.h"
#include "util/bytes.h"
#include "util/strutil.h"

/* The binary COPY header: its fixed signature, then a flags word and the
 * length of an extension area (PostgreSQL's COPY documentation). */
static const char copy_signature[11] = "PGCOPY\n\377\r\n";

/* The fields of one tuple message (after the header, on the first).
 * PostgreSQL sends one CopyData message per row and the trailer (a field
 * count of -1) in its own. Returns 1 for a row, 0 for the trailer, -1 for
 * bytes that are neither. Values are NUL-terminated in place: the byte
 * after a value is the next one's length word, already read, or the
 * message's own terminator libpq adds. */
static int parse_tuple(char *msg, size_t n, int nfields, struct db_copy_row *row)
{
    unsigned char *p = (unsigned char *)msg, *end = p + n;
    if (end - p < 2)
        return -1;
    int16_t count = (int16_t)((uint16_t)p[0] << 8 | p[1]);
    p += 2;
    if (count == -1)
        return p == end ? 0 : -1;
    if (count != nfields)
        return -1;
    char *ends[DB_COPY_MAX_FIELDS];
    for (int i = 0; i < count; i++) {
        if (end - p < 4)
            return -1;
        int32_t len = (int32_t)be_load32(p);
        p += 4;
        if (len < -1 || (len > 0 && end - p < len))
            return -1;
        row->len[i] = len;
        row->value[i] = len < 0 ? NULL : (const char *)p;
        p += len < 0 ? 0 : len;
        ends[i] = len < 0 ? NULL : (char *)p;
    }
    if (p != end)
        return -1;
    for (int i = 0; i < count; i++)
        if (ends[i])
            *ends[i] = '\0';
    row->n = count;
    return 1;
}

/* Skips the header on the first message: 0 with *at its end, -1. */
static int skip_header(const char *msg, size_t n, size_t *at)
{
    if (n < sizeof copy_signature + 8 || memcmp(msg, copy_signature, sizeof copy_signature) != 0)
        return -1;
    const unsigned char *p = (const unsigned char *)msg + sizeof copy_signature;
    uint32_t ext = be_load32(p + 4);
    if (ext > n - sizeof copy_signature - 8)
        return -1;
    *at = sizeof copy_signature + 8 + ext;
    return 0;
}

int db_copy_each_row(PGconn *pg, const char *sql, int nfields, db_copy_row_fn *fn, void *ctx,
                     struct error *err)
{
    if (nfields < 1 || nfields > DB_COPY_MAX_FIELDS)
        return error_fail(err, ERR_INTERNAL, "a COPY of %d fields", nfields);
    PGresult *r = PQexec(pg, sql);
    if (PQresultStatus(r) != PGRES_COPY_OUT) {
        db_error_from(pg, r, err);
        PQclear(r);
        return -1;
    }
    PQclear(r);
    int rc = 0;
    bool first = true, trailer = false;
    char *msg;
    int n;
    /* Every message is read, also after a failure, so the connection
     * leaves COPY mode and stays usable. */
    while ((n = PQgetCopyData(pg, &msg, 0)) > 0) {
        size_t at = 0;
        if (rc == 0 && first && skip_header(msg, (size_t)n, &at) != 0)
            rc = error_fail(err, ERR_INTERNAL, "COPY data without its header");
        first = false;
        if (rc == 0 && at < (size_t)n) {
            struct db_copy_row row;
            int t = trailer ? -1 : parse_tuple(msg + at, (size_t)n - at, nfields, &row);
            if (t < 0)
                rc = error_fail(err, ERR_INTERNAL, "malformed COPY data");
            else if (t == 0)
                trailer = true;
            else
                rc = fn(ctx, &row, err);
        }
        PQfreemem(msg);
    }
    if (n == -2 && rc == 0) {
        db_error_from(pg, NULL, err);
        rc = -1;
    }
    while ((r = PQgetResult(pg)) != NULL) {
        if (PQresultStatus(r) != PGRES_COMMAND_OK && rc == 0) {
            db_error_from(pg, r, err);
            rc = -1;
        }
        PQclear(r);
    }
    if (rc == 0 && !trailer)
        rc = error_fail(err, ERR_INTERNAL, "COPY data without its trailer");
    return rc;
}

bool db_copy_i64(const struct db_copy_row *row, int i, int64_t *out)
{
    if (i >= row->n || row->len[i] != 8)
        return false;
    *out = (int64_t)be_load64((const uint8_t *)row->value[i]);
    return true;
}

bool db_copy_uuid(const struct db_copy_row *row, int i, char out[37])
{
    if (i >= row->n || row->len[i] != 16)
        return false;
    str_format_uuid((const uint8_t *)row->value[i], out);
    return true;
}

char *db_copy_statement(const char *select, size_t n, const int64_t *ids)
{
    struct buf b = {0};
    int bad = buf_puts(&b, "COPY (");
    for (const char *p = select; *p && !bad;) {
        if (p[0] != '$' || p[1] < '1' || p[1] > '9') {
            bad = buf_putc(&b, *p++);
            continue;
        }
        size_t k = 0;
        for (p++; *p >= '0' && *p <= '9' && k <= n; p++)
            k = k * 10 + (size_t)(*p - '0');
        bad = k > n ? -1 : buf_printf(&b, "%lld", (long long)ids[k - 1]);
    }
    bad |= buf_puts(&b, ") TO STDOUT (FORMAT binary)");
    if (bad) {
        buf_free(&b);
        return NULL;
    }
    return buf_take(&b);
}
