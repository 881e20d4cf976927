/* Typed answers: a JSON object's members decoded into a public struct by a
 * table of member names, kinds and offsets, so that each struct of
 * include/hoglake/hoglake.h the server's answers fill is described once. */
#ifndef HL_CLIENT_DECODE_H
#define HL_CLIENT_DECODE_H

#include <stddef.h>

#include "client/internal.h"

enum client_member_kind {
    CM_I64,    /* int64_t */
    CM_BOOL,   /* bool */
    CM_STRING, /* char *, a copy the struct's owner frees */
};

struct client_member {
    const char *name;
    size_t offset;
    enum client_member_kind kind;
    bool required; /* else left 0 (NULL, false) when absent or null */
};

/* clang-format off */
#define CM(type, field, kind, required) {#field, offsetof(type, field), kind, required}
/* clang-format on */

/* Fills out (size bytes, zeroed first) from obj's members. A required
 * member that is missing, or any member of the wrong type, is
 * HL_ERR_PROTOCOL naming `what` and the member; out is then zeroed, the
 * strings decoded so far freed. */
hl_status client_decode(const json_t *obj, const char *what, const struct client_member *members,
                        size_t nmembers, void *out, size_t size, struct hl_error *err);
/* Frees the strings client_decode put in out. */
void client_decode_free(const struct client_member *members, size_t nmembers, void *out);

#endif
