#include "client/decode.h"

#include <stdlib.h>
#include <string.h>

static bool kind_ok(enum client_member_kind kind, const json_t *v)
{
    switch (kind) {
    case CM_I64: return json_is_integer(v);
    case CM_BOOL: return json_is_boolean(v);
    case CM_STRING: return json_is_string(v);
    }
    return false;
}

static const char *kind_name(enum client_member_kind kind)
{
    return kind == CM_I64 ? "an integer" : kind == CM_BOOL ? "a boolean" : "a string";
}

void client_decode_free(const struct client_member *members, size_t nmembers, void *out)
{
    for (size_t i = 0; i < nmembers; i++)
        if (members[i].kind == CM_STRING) {
            char **at = (char **)((char *)out + members[i].offset);
            free(*at);
            *at = NULL;
        }
}

hl_status client_decode(const json_t *obj, const char *what, const struct client_member *members,
                        size_t nmembers, void *out, size_t size, struct hl_error *err)
{
    memset(out, 0, size);
    if (!json_is_object(obj))
        return client_fail(err, HL_ERR_PROTOCOL, "protocol", "the %s answer is not an object",
                           what);
    hl_status st = HL_OK;
    for (size_t i = 0; i < nmembers && st == HL_OK; i++) {
        const struct client_member *m = &members[i];
        json_t *v = json_object_get(obj, m->name);
        if ((!v || json_is_null(v)) && !m->required)
            continue;
        if (!kind_ok(m->kind, v)) {
            st = client_fail(err, HL_ERR_PROTOCOL, "protocol",
                             "the %s answer's '%s' is missing or not %s", what, m->name,
                             kind_name(m->kind));
            break;
        }
        char *at = (char *)out + m->offset;
        switch (m->kind) {
        case CM_I64: *(int64_t *)at = (int64_t)json_integer_value(v); break;
        case CM_BOOL: *(bool *)at = json_is_true(v); break;
        case CM_STRING:
            if (!(*(char **)at = strdup(json_string_value(v))))
                st = client_nomem(err);
            break;
        }
    }
    if (st != HL_OK) {
        client_decode_free(members, nmembers, out);
        memset(out, 0, size);
    }
    return st;
}
