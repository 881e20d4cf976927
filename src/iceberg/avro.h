/* Avro: zigzag varints, schemas, and the object container file (writer and
 * reader), as much of Avro 1.11 as Iceberg manifests and manifest lists need
 * plus the rest of the type system.
 *
 * Values are jansson json_t trees, one per record, mapped as follows (the
 * writer checks a value against the schema, the reader produces the same
 * shapes, so a record read back writes the same bytes, unless a union has
 * branches one value fits twice):
 *
 *   null            JSON null
 *   boolean         true / false
 *   int, long       JSON integer (range-checked for int)
 *   float, double   JSON real (an integer is accepted when writing); the
 *                   non-finite values are the strings "NaN", "Infinity" and
 *                   "-Infinity", which JSON cannot hold as numbers
 *   string          JSON string (UTF-8; jansson refuses anything else)
 *   bytes, fixed    JSON string holding the bytes in canonical padded
 *                   base64 (util/base64), e.g. a 4-byte LE day bound
 *                   4e440000 is "TkQAAA=="; fixed must decode to its size
 *   enum            JSON string, one of the symbols
 *   array           JSON array
 *   map             JSON object
 *   record          JSON object keyed by field name; a field left out is
 *                   written from its schema default (an error when it has
 *                   none); a key the record does not have is an error
 *   union           the value itself; the writer takes the FIRST branch the
 *                   value fits, so ["null","long"] takes null for JSON null
 *                   and long for 5. Branches a value could fit twice (string
 *                   and bytes, int and long) resolve to the first one.
 *
 * Why JSON: manifest-list records read from a parent snapshot must be
 * copied into the next list unchanged, and a JSON tree is a complete,
 * inspectable, refcounted copy of a record that the manifest writer can
 * also build with json_pack; bounds are few and small, so base64 costs
 * nothing that matters.
 *
 * Errors: every function taking a struct error fills it on failure
 * (err may be NULL) and returns -1 (or NULL). Nothing read from a file is
 * trusted: lengths, counts, varints, nesting depth, UTF-8, sync markers and
 * decompressed sizes are checked, and a file that does not add up is
 * ERR_CORRUPT. */
#ifndef HL_ICEBERG_AVRO_H
#define HL_ICEBERG_AVRO_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"
#include "util/error.h"

/* ---- zigzag varints ---- */

enum { AVRO_MAX_VARINT = 10 };

/* Write the zigzag varint of v into out and return its length (1..5 for
 * int, 1..10 for long). */
size_t avro_zigzag_encode_int(int32_t v, uint8_t out[5]);
size_t avro_zigzag_encode_long(int64_t v, uint8_t out[AVRO_MAX_VARINT]);
/* Decode a varint at p[0..avail). 0 with *out and *used set, or -1 when it
 * is truncated, longer than the type allows, or out of range. */
int avro_zigzag_decode_int(const uint8_t *p, size_t avail, int32_t *out, size_t *used);
int avro_zigzag_decode_long(const uint8_t *p, size_t avail, int64_t *out, size_t *used);
/* Append the varint to b: 0, or -1 when memory runs out. */
int avro_put_long(struct buf *b, int64_t v);

/* ---- schemas ---- */

enum avro_type {
    AVRO_NULL,
    AVRO_BOOLEAN,
    AVRO_INT,
    AVRO_LONG,
    AVRO_FLOAT,
    AVRO_DOUBLE,
    AVRO_BYTES,
    AVRO_STRING,
    AVRO_RECORD,
    AVRO_ENUM,
    AVRO_ARRAY,
    AVRO_MAP,
    AVRO_UNION,
    AVRO_FIXED,
};

struct avro_node;

struct avro_field {
    const char *name;
    const struct avro_node *type;
    const json_t *default_value; /* NULL when the field has no default */
    bool has_field_id;           /* Iceberg "field-id" */
    int32_t field_id;
    const json_t *json; /* the field object as written */
};

/* One schema node. Named types referenced again by name are the same node,
 * so a recursive schema is a graph: walk it with a depth limit. */
struct avro_node {
    enum avro_type type;
    const char *logical_type; /* "logicalType", or NULL */
    const char *name;         /* full name of a record, enum or fixed */
    const json_t *json;       /* the node's schema JSON as written */
    /* record */
    const struct avro_field *fields;
    size_t nfields;
    /* enum */
    const char *const *symbols;
    size_t nsymbols;
    /* array items, or map values */
    const struct avro_node *items;
    bool has_element_id; /* Iceberg "element-id" on an array */
    int32_t element_id;
    bool has_key_id, has_value_id; /* Iceberg "key-id" / "value-id" on a map */
    int32_t key_id, value_id;
    /* union */
    const struct avro_node *const *branches;
    size_t nbranches;
    /* fixed */
    size_t size;
    /* smallest encoding of any value, to bound counts read from a file
     * (0 for null, empty records and recursive references) */
    size_t min_bytes;
};

struct avro_schema;

/* True when s is an Avro name: [A-Za-z_][A-Za-z0-9_]* (record, field,
 * enum symbol and partition field names must be). */
bool avro_name_valid(const char *s);
/* An Avro name for any UTF-8 text, by Iceberg's rule (what Java's
 * AvroSchemaUtil.makeCompatibleName does): a valid name is kept; otherwise
 * a leading digit d becomes "_d" and every other character that may not
 * stand where it is becomes "_x" and its code point in upper-case hex
 * ("a-b" -> "a_x2Db", "1x" -> "_1x"). malloc'd; NULL when memory runs out
 * or s is empty or not UTF-8. */
char *avro_name_sanitize(const char *s);

/* Parses schema JSON text (len bytes; need not be NUL-terminated). The
 * schema keeps its own copy of the text, which the container writer puts
 * into "avro.schema" exactly as given. */
int avro_schema_parse(const char *text, size_t len, struct avro_schema **out, struct error *err);
void avro_schema_free(struct avro_schema *s);
const struct avro_node *avro_schema_root(const struct avro_schema *s);
/* The text as given (NUL-terminated; *len may be NULL). */
const char *avro_schema_text(const struct avro_schema *s, size_t *len);

/* A record's field by name or by Iceberg field id; NULL when absent (or
 * when rec is not a record). */
const struct avro_field *avro_record_field(const struct avro_node *rec, const char *name);
const struct avro_field *avro_record_field_by_id(const struct avro_node *rec, int32_t field_id);
/* The value of the field with that field id in a record value decoded with
 * rec (borrowed), or NULL. Lets a reader take a parent's manifest-list
 * record by ids whatever the writer named the fields (Java writes
 * added_data_files_count where the spec says added_files_count). */
json_t *avro_record_get_by_id(const struct avro_node *rec, const json_t *value, int32_t field_id);

/* ---- values ---- */

/* Append the binary encoding of value to out. ERR_INVALID names the
 * field path when the value does not fit; out is then left as it was. */
int avro_encode(const struct avro_node *schema, const json_t *value, struct buf *out,
                struct error *err);
/* Decode one value from p[0..avail); *used gets the bytes consumed. */
int avro_decode(const struct avro_node *schema, const uint8_t *p, size_t avail, json_t **out,
                size_t *used, struct error *err);

/* ---- object container files ---- */

enum avro_codec { AVRO_CODEC_NULL, AVRO_CODEC_DEFLATE };

struct avro_writer_options {
    enum avro_codec codec; /* default null; deflate is raw RFC 1951 */
    int deflate_level;     /* 0 = zlib's default */
    size_t block_bytes;    /* a block is closed once its records reach this
                              many (uncompressed) bytes; 0 = 64 KiB */
    const uint8_t *sync;   /* 16 bytes, for reproducible files; NULL = random */
};

struct avro_writer;

/* opts may be NULL for the defaults. The schema text is parsed and then
 * written to "avro.schema" byte for byte. */
int avro_writer_new(const char *schema_text, const struct avro_writer_options *opts,
                    struct avro_writer **out, struct error *err);
void avro_writer_free(struct avro_writer *w);
/* Sets a header metadata entry (any time before finish; setting a key again
 * replaces its value). Keys starting with "avro." are reserved. */
int avro_writer_set_meta(struct avro_writer *w, const char *key, const void *value, size_t len,
                         struct error *err);
int avro_writer_set_meta_str(struct avro_writer *w, const char *key, const char *value,
                             struct error *err);
/* Encodes one record. A value that does not fit is ERR_INVALID and
 * writes nothing; the writer stays usable. */
int avro_writer_append(struct avro_writer *w, const json_t *record, struct error *err);
uint64_t avro_writer_count(const struct avro_writer *w);
/* Appends the whole file (header, blocks) to out. The writer is spent
 * afterwards: only avro_writer_free may follow. A file with no record is
 * valid Avro (a header alone); Iceberg callers must not write one. */
int avro_writer_finish(struct avro_writer *w, struct buf *out, struct error *err);

struct avro_reader_options {
    size_t max_block_bytes; /* largest (decompressed) block; 0 = 64 MiB */
};

struct avro_reader;

/* Reads the header of the file in data[0..len) (the memory must outlive the
 * reader). opts may be NULL. */
int avro_reader_open(const void *data, size_t len, const struct avro_reader_options *opts,
                     struct avro_reader **out, struct error *err);
void avro_reader_free(struct avro_reader *r);
enum avro_codec avro_reader_codec(const struct avro_reader *r);
/* A header entry's value (borrowed from the file's memory, not
 * NUL-terminated), or NULL when absent. */
const void *avro_reader_meta(const struct avro_reader *r, const char *key, size_t *len);
size_t avro_reader_meta_count(const struct avro_reader *r);
/* Entry i in file order: key (NUL-terminated) and value. */
const char *avro_reader_meta_at(const struct avro_reader *r, size_t i, const void **value,
                                size_t *len);
/* The next record: 1 with *out set (caller owns the reference), 0 at the
 * end of the file, -1 on error (the reader is then spent). */
int avro_reader_next(struct avro_reader *r, json_t **out, struct error *err);

#endif
