/* Variant shredding declarations checked before any request: the server's
 * grammar (lake/shredding.h) in the server's words, so a declaration the
 * server would refuse costs no round trip and no snapshot. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "client/internal.h"
#include "lake/shredding.h"
#include "rows/rows_variant.h"
#include "rows/rows_variant_verify.h"
#include "util/jsonx.h"

/* The check's refusal as the server's 422 says it. */
static hl_status refuse(struct hl_error *err, const char *column, const struct error *e)
{
    if (e->code == ERR_NOMEM)
        return client_nomem(err);
    /* A lone surrogate the message quotes reads as its escape. */
    char *msg = jsonx_escape_stand_ins(strdup(e->msg));
    hl_status st = client_fail(err, HL_ERR_VALIDATION, "validation",
                               "variant column '%s' has an invalid type_params.shredding: %s",
                               column, msg ? msg : e->msg);
    free(msg);
    return st;
}

static bool is_variant(const json_t *def)
{
    const char *type = json_string_value(json_object_get(def, "type"));
    return type && strcasecmp(type, "variant") == 0;
}

/* The declaration a ColumnDef carries, or NULL. */
static const json_t *declaration(const json_t *def)
{
    const json_t *decl = json_object_get(json_object_get(def, "type_params"), "shredding");
    return json_is_null(decl) ? NULL : decl;
}

static hl_status check_def(const json_t *def, const char *parent, int depth, struct hl_error *err)
{
    const char *name = json_string_value(json_object_get(def, "name"));
    if (!name || depth > 64)
        return HL_OK; /* the server names what is wrong with it */
    char path[1024];
    int len = snprintf(path, sizeof path, "%s%s%s", parent, parent[0] ? "." : "", name);
    if (len < 0 || (size_t)len >= sizeof path)
        return HL_OK; /* no valid column path is this long: the server names it */
    const json_t *decl = declaration(def);
    if (decl && is_variant(def)) {
        if (parent[0])
            return client_fail(err, HL_ERR_VALIDATION, "validation",
                               "variant column '%s' is nested in a struct, list or map: only a "
                               "top-level variant column declares type_params.shredding",
                               path);
        struct error e;
        if (lake_shredding_check(decl, &e) != 0)
            return refuse(err, path, &e);
    }
    size_t i;
    const json_t *child;
    json_array_foreach (json_object_get(def, "children"), i, child) {
        hl_status st = check_def(child, path, depth + 1, err);
        if (st != HL_OK)
            return st;
    }
    return HL_OK;
}

hl_status client_check_columns(const json_t *columns, const char *parent, struct hl_error *err)
{
    size_t i;
    const json_t *def;
    json_array_foreach (columns, i, def) {
        hl_status st = check_def(def, parent ? parent : "", 0, err);
        if (st != HL_OK)
            return st;
    }
    return HL_OK;
}

hl_status client_check_unstorable(const json_t *v, bool lone, const char *what,
                                  struct hl_error *err)
{
    char where[256];
    switch (jsonx_find_unstorable(v, lone, NULL, NULL, where, sizeof where)) {
    case JSONX_STORABLE: return HL_OK;
    case JSONX_NUL:
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                           "%s: the text at %s contains a NUL character", what, where);
    case JSONX_LONE_SURROGATE: break;
    }
    return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                       "%s: the text at %s holds a lone UTF-16 surrogate, which is not Unicode",
                       what, where);
}

/* A caller's declaration text as the server reads a request's (lone
 * surrogates kept as stand-ins, integers past int64 as reals). */
static hl_status load_declaration(const char *text, json_t **decl, struct hl_error *err)
{
    json_error_t jerr;
    *decl = jsonx_loadb_lenient(text, strlen(text), JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr, NULL);
    if (!*decl)
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                           "the declaration is not JSON: %s", jerr.text);
    return HL_OK;
}

hl_status hl_shredding_validate(const char *column, const char *declaration_json,
                                struct hl_error *err)
{
    if (!column || !declaration_json)
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                           "hl_shredding_validate needs a column name and a declaration");
    json_t *decl;
    hl_status loaded = load_declaration(declaration_json, &decl, err);
    if (loaded != HL_OK)
        return loaded;
    struct error e;
    hl_status st =
        json_is_null(decl) || lake_shredding_check(decl, &e) == 0 ? HL_OK : refuse(err, column, &e);
    json_decref(decl);
    return st;
}

hl_status hl_shredding_unshreddable_paths(const char *declaration_json, char **paths_json,
                                          struct hl_error *err)
{
    if (!declaration_json || !paths_json)
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                           "hl_shredding_unshreddable_paths needs a declaration and an output");
    *paths_json = NULL;
    json_t *decl;
    hl_status loaded = load_declaration(declaration_json, &decl, err);
    if (loaded != HL_OK)
        return loaded;
    struct error e;
    json_t *paths = NULL;
    hl_status st = HL_OK;
    if (lake_shredding_unshreddable(decl, &paths, &e) != 0)
        st = e.code == ERR_NOMEM ? client_nomem(err)
                                 : client_fail(err, HL_ERR_VALIDATION, "validation",
                                               "invalid shredding declaration: %s", e.msg);
    else if (!(*paths_json = json_dumps(paths, JSON_COMPACT)))
        st = client_nomem(err);
    json_decref(paths);
    json_decref(decl);
    return st;
}

/* The declaration as rows_variant_verify takes it: *text NULL for none
 * ("null"), else its compact JSON (the caller's to free()). */
static hl_status verify_declaration(const char *column, const char *json, char **text,
                                    struct hl_error *err)
{
    *text = NULL;
    json_t *decl;
    hl_status st = load_declaration(json, &decl, err);
    if (st != HL_OK)
        return st;
    struct error e;
    if (!json_is_null(decl) && lake_shredding_check(decl, &e) != 0)
        st = refuse(err, column, &e);
    else if (!json_is_null(decl) && !(*text = json_dumps(decl, JSON_COMPACT | JSON_ENCODE_ANY)))
        st = client_nomem(err);
    json_decref(decl);
    return st;
}

hl_status hl_variant_verify(const struct ArrowSchema *storage_schema,
                            const struct ArrowArray *storage, const char *shredding_json,
                            const struct hl_variant_verify_options *options, struct hl_error *err)
{
    if (!storage_schema || !storage || !storage_schema->format ||
        strcmp(storage_schema->format, "+s") != 0 || !rows_variant_is_storage(storage_schema) ||
        storage->n_children != storage_schema->n_children)
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                           "hl_variant_verify needs a VARIANT's storage struct (binary metadata, "
                           "value and/or typed_value) and its array");
    struct rows_variant_verify_options o = {
        .check_form = shredding_json != NULL,
        .canonical = !(options && options->no_canonical),
        .not_null = options && options->not_null,
    };
    char *text = NULL;
    if (shredding_json) {
        hl_status st = verify_declaration(
            storage_schema->name && *storage_schema->name ? storage_schema->name : "variant",
            shredding_json, &text, err);
        if (st != HL_OK)
            return st;
    }
    o.shredding = text;
    struct error e = {0};
    hl_status st = rows_variant_verify(storage_schema, storage, &o, &e) == 0
                       ? HL_OK
                       : error_publish(err, HL_ERR_VALIDATION, &e, NULL);
    free(text);
    return st;
}
