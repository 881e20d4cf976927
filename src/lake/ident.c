#include "lake/ident.h"

#include <stdio.h>
#include <string.h>

static bool is_alpha(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

bool lake_ident_valid(const char *s)
{
    if (!(is_alpha(s[0]) || s[0] == '_'))
        return false;
    size_t n = 1;
    for (; s[n]; n++) {
        char c = s[n];
        if (!(is_alpha(c) || is_digit(c) || c == '_' || c == '-'))
            return false;
    }
    return n <= 128;
}

bool lake_catalog_name_valid(const char *s)
{
    char c0 = s[0];
    if (!((c0 >= 'a' && c0 <= 'z') || is_digit(c0)))
        return false;
    size_t n = 1;
    for (; s[n]; n++) {
        char c = s[n];
        if (!((c >= 'a' && c <= 'z') || is_digit(c) || c == '_' || c == '-'))
            return false;
    }
    return n <= 63;
}

bool lake_ident_reserved(const char *s)
{
    return strncmp(s, LAKE_RESERVED_PREFIX, strlen(LAKE_RESERVED_PREFIX)) == 0;
}

bool lake_property_key_valid(const char *key)
{
    static const char *const reserved_keys[] = {"partitioning", "sorted_by", "location", "format",
                                                "comment"};
    if (!(key[0] >= 'a' && key[0] <= 'z'))
        return false;
    size_t n = 1;
    for (; key[n]; n++) {
        char c = key[n];
        if (!((c >= 'a' && c <= 'z') || is_digit(c) || c == '_' || c == '.' || c == '-'))
            return false;
    }
    if (n > 128)
        return false;
    if (strncmp(key, "hoglake.", 8) == 0 || strncmp(key, "trino.", 6) == 0)
        return false;
    for (size_t i = 0; i < sizeof reserved_keys / sizeof reserved_keys[0]; i++)
        if (strcmp(key, reserved_keys[i]) == 0)
            return false;
    return true;
}

void lake_ident_shown(const char *s, char *out, size_t out_size)
{
    size_t n = strlen(s);
    if (n > 64)
        snprintf(out, out_size, "%.61s...", s);
    else
        snprintf(out, out_size, "%s", s);
}

void lake_ident_sanitize(const char *name, char out[LAKE_IDENT_MAX + 2])
{
    size_t n = 0;
    bool lead = name[0] == '-' || (name[0] >= '0' && name[0] <= '9');
    if (lead || lake_ident_reserved(name))
        out[n++] = lead ? '_' : 'x';
    for (const unsigned char *s = (const unsigned char *)name; *s && n < LAKE_IDENT_MAX; s++) {
        bool plain = (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
                     (*s >= '0' && *s <= '9') || *s == '_' || *s == '-';
        if (plain)
            out[n++] = (char)*s;
        else if (*s < 0x80 || *s >= 0xC0) /* not a UTF-8 continuation byte */
            if (n == 0 || out[n - 1] != '_')
                out[n++] = '_';
    }
    snprintf(out + n, LAKE_IDENT_MAX + 2 - n, "%s", n ? "" : "column");
}
