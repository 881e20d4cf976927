#include "lake/puffin.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/error.h"
#include "util/strutil.h"

static const char puffin_magic[4] = {'P', 'F', 'A', '1'};

enum {
    FOOTER_TAIL = 12,              /* payload size, flags, magic */
    FLAG_FOOTER_COMPRESSED = 1,    /* byte 0, bit 0 */
    FOOTER_MAX = 64 * 1024 * 1024, /* a footer past this is not one we wrote or accept */
};

static int put_le32(struct buf *out, uint32_t v)
{
    uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    return buf_append(out, b, 4);
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The footer entry of one deletion-vector blob. */
static json_t *blob_json(const struct lake_puffin_dv_in *d, const struct lake_puffin_blob_pos *p)
{
    char card[24];
    snprintf(card, sizeof card, "%zu", d->dv->n);
    return json_pack("{s:s,s:[I],s:I,s:I,s:I,s:I,s:{s:s,s:s}}", "type", "deletion-vector-v1",
                     "fields", (json_int_t)LAKE_PUFFIN_POS_FIELD_ID, "snapshot-id", (json_int_t)-1,
                     "sequence-number", (json_int_t)-1, "offset", (json_int_t)p->offset, "length",
                     (json_int_t)p->length, "properties", "referenced-data-file",
                     d->referenced_data_file, "cardinality", card);
}

int lake_puffin_write_dvs(const struct lake_puffin_dv_in *dvs, size_t n, const char *created_by,
                          struct buf *out, struct lake_puffin_blob_pos *pos, struct error *err)
{
    json_t *blobs = json_array();
    int rc = blobs && buf_append(out, puffin_magic, 4) == 0 ? 0 : error_nomem(err);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        pos[i].offset = out->len;
        if (lake_dv_encode(dvs[i].dv, out, err) != 0) {
            rc = -1;
            break;
        }
        pos[i].length = out->len - pos[i].offset;
        if (json_array_append_new(blobs, blob_json(&dvs[i], &pos[i])) != 0)
            rc = error_nomem(err);
    }
    json_t *footer = NULL;
    char *payload = NULL;
    if (rc == 0) {
        footer = json_pack("{s:O,s:{s:s}}", "blobs", blobs, "properties", "created-by",
                           created_by ? created_by : "hoglake");
        payload = footer ? json_dumps(footer, JSON_COMPACT) : NULL;
        size_t plen = payload ? strlen(payload) : 0;
        if (!payload || buf_append(out, puffin_magic, 4) != 0 ||
            buf_append(out, payload, plen) != 0 || put_le32(out, (uint32_t)plen) != 0 ||
            put_le32(out, 0) != 0 || buf_append(out, puffin_magic, 4) != 0)
            rc = error_nomem(err);
    }
    free(payload);
    json_decref(footer);
    json_decref(blobs);
    return rc;
}

void lake_puffin_footer_free(struct lake_puffin_footer *f)
{
    for (size_t i = 0; i < f->ndvs; i++)
        free(f->dvs[i].referenced_data_file);
    free(f->dvs);
    memset(f, 0, sizeof *f);
}

static int bad(struct error *err, const char *what)
{
    return error_fail(err, ERR_CORRUPT, "puffin file: %s", what);
}

/* A non-negative integer member within [0, max]. */
static int member_u64(const json_t *o, const char *key, uint64_t max, uint64_t *out)
{
    const json_t *v = json_object_get(o, key);
    if (!json_is_integer(v) || json_integer_value(v) < 0 || (uint64_t)json_integer_value(v) > max)
        return -1;
    *out = (uint64_t)json_integer_value(v);
    return 0;
}

/* One footer entry of type deletion-vector-v1 into b; `blobs_end` is where
 * the footer starts (no blob may reach into it). */
static int read_dv_entry(const json_t *e, uint64_t blobs_end, struct lake_puffin_dv_blob *b,
                         struct error *err)
{
    if (json_object_get(e, "compression-codec") &&
        !json_is_null(json_object_get(e, "compression-codec")))
        return error_fail(err, ERR_UNSUPPORTED,
                          "puffin file: a compressed deletion vector (the spec stores them "
                          "uncompressed)");
    if (member_u64(e, "offset", blobs_end, &b->offset) != 0 || b->offset < 4 ||
        member_u64(e, "length", blobs_end - b->offset, &b->length) != 0)
        return bad(err, "a blob's offset or length falls outside the blobs");
    const json_t *props = json_object_get(e, "properties");
    const char *file = json_string_value(json_object_get(props, "referenced-data-file"));
    const char *card = json_string_value(json_object_get(props, "cardinality"));
    int64_t c;
    if (!file || !*file || !card || !str_parse_int64(card, &c) || c < 0)
        return bad(err, "a deletion vector without its referenced-data-file or cardinality");
    b->cardinality = (uint64_t)c;
    if (!(b->referenced_data_file = strdup(file)))
        return error_nomem(err);
    return 0;
}

int lake_puffin_read_footer(const uint8_t *file, size_t len, struct lake_puffin_footer *out,
                            struct error *err)
{
    memset(out, 0, sizeof *out);
    if (len < 8 + FOOTER_TAIL || memcmp(file, puffin_magic, 4) != 0 ||
        memcmp(file + len - 4, puffin_magic, 4) != 0)
        return bad(err, "no PFA1 magic at its start and end");
    const uint8_t *tail = file + len - FOOTER_TAIL;
    uint32_t plen = le32(tail), flags = le32(tail + 4);
    if (flags & FLAG_FOOTER_COMPRESSED)
        return error_fail(err, ERR_UNSUPPORTED, "puffin file: a compressed footer");
    if (plen > FOOTER_MAX || (uint64_t)plen + 4 + FOOTER_TAIL + 4 > len)
        return bad(err, "its footer size does not fit the file");
    size_t footer_at = len - FOOTER_TAIL - plen - 4;
    if (memcmp(file + footer_at, puffin_magic, 4) != 0)
        return bad(err, "no PFA1 magic before its footer");
    json_error_t jerr;
    json_t *doc =
        json_loadb((const char *)file + footer_at + 4, plen, JSON_REJECT_DUPLICATES, &jerr);
    const json_t *blobs = json_object_get(doc, "blobs");
    if (!json_is_array(blobs)) {
        json_decref(doc);
        return bad(err, "its footer is not JSON with a blobs list");
    }
    size_t n = json_array_size(blobs);
    int rc = 0;
    if (n && !(out->dvs = calloc(n, sizeof *out->dvs)))
        rc = error_nomem(err);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        const json_t *e = json_array_get(blobs, i);
        const char *type = json_string_value(json_object_get(e, "type"));
        if (!type)
            rc = bad(err, "a blob without its type");
        else if (strcmp(type, "deletion-vector-v1") != 0)
            out->nother++;
        else if ((rc = read_dv_entry(e, footer_at, &out->dvs[out->ndvs], err)) == 0)
            out->ndvs++;
    }
    json_decref(doc);
    if (rc != 0)
        lake_puffin_footer_free(out);
    return rc;
}

int lake_puffin_read_dv(const uint8_t *file, size_t len, const struct lake_puffin_dv_blob *b,
                        uint64_t rows, struct lake_dv *out, struct error *err)
{
    lake_dv_init(out);
    if (b->offset > len || b->length > len - b->offset)
        return bad(err, "a blob falls outside the file");
    if (lake_dv_decode(file + b->offset, b->length, rows, out, err) != 0)
        return -1;
    if (out->n != b->cardinality) {
        uint64_t got = out->n;
        lake_dv_free(out);
        return error_fail(err, ERR_CORRUPT,
                          "puffin file: the deletion vector of %s holds %" PRIu64
                          " positions, its footer says %" PRIu64,
                          b->referenced_data_file, got, b->cardinality);
    }
    return 0;
}

int lake_puffin_load_dv(const uint8_t *file, size_t len, const char *data_file, uint64_t rows,
                        struct lake_dv *out, struct error *err)
{
    lake_dv_init(out);
    struct lake_puffin_footer f;
    if (lake_puffin_read_footer(file, len, &f, err) != 0)
        return -1;
    const struct lake_puffin_dv_blob *found = NULL;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < f.ndvs; i++) {
        if (strcmp(f.dvs[i].referenced_data_file, data_file) != 0)
            continue;
        if (found)
            rc =
                error_fail(err, ERR_CORRUPT, "puffin file: two deletion vectors for %s", data_file);
        found = &f.dvs[i];
    }
    if (rc == 0 && !found)
        rc = error_fail(err, ERR_CORRUPT, "puffin file: no deletion vector for %s", data_file);
    if (rc == 0)
        rc = lake_puffin_read_dv(file, len, found, rows, out, err);
    lake_puffin_footer_free(&f);
    return rc;
}
