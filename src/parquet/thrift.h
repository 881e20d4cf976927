/* The Thrift compact protocol, the encoding of Parquet's metadata.
 *
 * The writer appends to a buffer and remembers the last field id per open
 * struct (compact field headers are deltas). The reader walks a byte range
 * and never trusts a length: every length, count and nesting level is
 * checked against what is left, and a failure is sticky (every later call
 * returns zero values and the first error is kept). */
#ifndef HL_PARQUET_THRIFT_H
#define HL_PARQUET_THRIFT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

/* Compact-protocol type codes. */
enum tc_type {
    TC_STOP = 0,
    TC_TRUE = 1,
    TC_FALSE = 2,
    TC_BYTE = 3,
    TC_I16 = 4,
    TC_I32 = 5,
    TC_I64 = 6,
    TC_DOUBLE = 7,
    TC_BINARY = 8,
    TC_LIST = 9,
    TC_SET = 10,
    TC_MAP = 11,
    TC_STRUCT = 12,
};

enum { TC_MAX_DEPTH = 32 };

/* ---- writing ---- */

struct tc_writer {
    struct buf *out;
    int16_t last_id[TC_MAX_DEPTH];
    int depth;
    bool failed; /* out of memory or nesting too deep */
};

void tcw_init(struct tc_writer *w, struct buf *out);
/* Top-level struct: begin before the first field, end after the last. */
void tcw_struct_begin(struct tc_writer *w);
void tcw_struct_end(struct tc_writer *w);

void tcw_field_i32(struct tc_writer *w, int16_t id, int32_t v);
void tcw_field_i64(struct tc_writer *w, int16_t id, int64_t v);
void tcw_field_i16(struct tc_writer *w, int16_t id, int16_t v);
void tcw_field_byte(struct tc_writer *w, int16_t id, int8_t v);
void tcw_field_bool(struct tc_writer *w, int16_t id, bool v);
void tcw_field_double(struct tc_writer *w, int16_t id, double v);
void tcw_field_binary(struct tc_writer *w, int16_t id, const void *data, size_t len);
void tcw_field_string(struct tc_writer *w, int16_t id, const char *s);
/* A struct-valued field: follow with its fields, then tcw_struct_end. */
void tcw_field_struct_begin(struct tc_writer *w, int16_t id);
/* A list-valued field of n elements of elem_type; follow with exactly n
 * elements written by the tcw_elem_* functions (structs by
 * tcw_struct_begin/end). */
void tcw_field_list_begin(struct tc_writer *w, int16_t id, enum tc_type elem_type, size_t n);

void tcw_elem_i32(struct tc_writer *w, int32_t v);
void tcw_elem_i64(struct tc_writer *w, int64_t v);
void tcw_elem_bool(struct tc_writer *w, bool v);
void tcw_elem_binary(struct tc_writer *w, const void *data, size_t len);

/* ---- reading ---- */

struct tc_reader {
    const uint8_t *p;
    const uint8_t *end;
    int16_t last_id[TC_MAX_DEPTH];
    int depth;
    bool failed;
    const char *error; /* static text of the first failure */
    bool bool_value;   /* the value of a bool field whose header was just read */
};

void tcr_init(struct tc_reader *r, const void *data, size_t len);
/* Enters a struct (top level, a struct field, or a struct list element). */
void tcr_struct_begin(struct tc_reader *r);
void tcr_struct_end(struct tc_reader *r);
/* Reads the next field header of the current struct. Returns false at the
 * struct's STOP (or on failure). */
bool tcr_field(struct tc_reader *r, int16_t *id, enum tc_type *type);
/* Skips a value of the given type (after its field or list header). */
void tcr_skip(struct tc_reader *r, enum tc_type type);

int32_t tcr_i32(struct tc_reader *r);
int64_t tcr_i64(struct tc_reader *r);
int16_t tcr_i16(struct tc_reader *r);
int8_t tcr_byte(struct tc_reader *r);
double tcr_double(struct tc_reader *r);
/* A bool: the field's value (from its header) or, inside a list, a byte. */
bool tcr_bool_field(struct tc_reader *r);
bool tcr_bool_elem(struct tc_reader *r);
/* Binary/string: points into the input; *len is bounded by what is left. */
const uint8_t *tcr_binary(struct tc_reader *r, size_t *len);
/* A list header: element type and count. The count is bounded by the bytes
 * left (every element takes at least one byte). */
size_t tcr_list(struct tc_reader *r, enum tc_type *elem_type);

/* Marks the reader failed with a static message (for semantic checks made
 * by the caller, e.g. a field of the wrong type). */
void tcr_fail(struct tc_reader *r, const char *why);
/* Whether a field's wire type matches what the caller expects; fails the
 * reader when it does not. */
bool tcr_expect(struct tc_reader *r, enum tc_type got, enum tc_type want);

#endif
