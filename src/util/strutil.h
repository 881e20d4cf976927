/* Small string helpers with strict, overflow-checked number parsing. */
#ifndef HL_UTIL_STRUTIL_H
#define HL_UTIL_STRUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Whole-string base-10 int64: optional '-', digits only, no whitespace, no
 * leading '+', no overflow. */
bool str_parse_int64(const char *s, int64_t *out);
/* "true" or "false" exactly. */
bool str_parse_bool(const char *s, bool *out);
bool str_starts_with(const char *s, const char *prefix);
bool str_ends_with(const char *s, const char *suffix);
/* Bounded copy that always terminates; returns false when truncated. */
bool str_copy(char *dst, size_t dst_size, const char *src);
/* True when s holds a control character (< 0x20 or 0x7f). */
bool str_has_control(const char *s);
/* True when s holds a control character (< 0x20 or 0x7f) or whitespace. */
bool str_has_space_or_control(const char *s);
/* True when s is a canonical 8-4-4-4-12 hex UUID (either case). */
bool str_is_uuid(const char *s);
/* The 16 bytes of a UUID in its 8-4-4-4-12 hex form (either case) of
 * exactly n bytes, into out (which may be NULL: a check only). */
bool str_parse_uuid(const char *s, size_t n, uint8_t out[16]);
/* The 16 bytes of a UUID as lowercase 8-4-4-4-12, NUL-terminated; 36. */
size_t str_format_uuid(const uint8_t b[16], char out[37]);
/* ASCII lower-casing into dst (dst_size includes the terminator). */
bool str_lower(char *dst, size_t dst_size, const char *src);

/* A hex digit's value, or -1. */
int str_hex_digit(char c);
/* The value of the 4 hex digits at s (4 bytes readable), or -1. */
int str_hex4(const char *s);
/* The n bytes as 2n lower-case hex digits into out, then a terminator
 * (out holds 2n + 1 bytes). */
void str_hex_encode(const void *bytes, size_t n, char *out);
/* The len hex digits at text (either case) as len / 2 bytes into out: 0,
 * or -1 (out partly written) when len is odd or a character is not a hex
 * digit. */
int str_hex_decode(const char *text, size_t len, void *out);

/* Length of the valid UTF-8 sequence at p (at most avail bytes), or 0:
 * overlong forms, surrogates and code points past U+10FFFF are invalid. */
size_t str_utf8_seq(const unsigned char *p, size_t avail);
/* True when s[0..n) is valid UTF-8 (NUL bytes included); *bad, when not
 * NULL, receives the first bad offset. */
bool str_utf8_valid(const char *s, size_t n, size_t *bad);

/* The code point of the n-byte sequence at p (n from str_utf8_seq). */
uint32_t str_utf8_decode(const unsigned char *p, size_t n);
/* The UTF-8 bytes of code point cp (at most U+10FFFF) into out; returns
 * how many (1 to 4). */
size_t str_utf8_encode(uint32_t cp, char out[4]);

/* Number of UTF-8 code points in s (continuation bytes not counted). */
size_t str_utf8_length(const char *s);

/* Replaces every byte that is not part of a valid UTF-8 sequence with '?',
 * in place, so text from outside can always go into a JSON string. */
void str_utf8_sanitize(char *s);

#endif
