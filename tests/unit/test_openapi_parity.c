/* docs/openapi.yaml and the router must describe the same API: the same
 * (path, method) pairs, for every route that checks its query parameters
 * the same parameter names, and for every route the same access policy
 * (the operation's x-hoglake-access) with the 401 and 403 answers of every
 * route that needs a token.
 *
 * The document is read with a small indentation-based reader that knows
 * just the shapes the file uses (paths -> methods -> parameters, inline or
 * as $ref to components/parameters, and responses by status, inline or as
 * $ref to components/responses). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/http/router.h"

#ifndef HL_OPENAPI_PATH
#error "HL_OPENAPI_PATH must be defined by the build"
#endif

enum { MAX_OPS = 128, MAX_PARAMS = 16, MAX_RESPONSES = 16, MAX_COMPONENTS = 64 };

struct param_ref {
    char name[64];
    char in[16];
    char ref[128]; /* component name when given by $ref */
};

struct response_ref {
    int status;
    char ref[128]; /* component name when given by $ref */
};

struct op {
    char path[160];
    char method[8];
    struct param_ref params[MAX_PARAMS];
    int nparams;
    char access[16];   /* x-hoglake-access */
    char security[16]; /* the operation's own security, "[]" for none */
    struct response_ref responses[MAX_RESPONSES];
    int nresponses;
};

struct component {
    char key[64];
    char name[64];
    char in[16];
};

static struct op ops[MAX_OPS];
static int nops;
static struct component comps[MAX_COMPONENTS];
static int ncomps;
static char response_comps[MAX_COMPONENTS][64]; /* components/responses keys */
static int nresponse_comps;

static int indent_of(const char *line)
{
    int n = 0;
    while (line[n] == ' ')
        n++;
    return n;
}

/* "key: value" at the current line, after indentation: copies value. */
static bool field(const char *line, const char *key, char *out, size_t size)
{
    const char *p = line + indent_of(line);
    if (*p == '-')
        p += 2;
    size_t k = strlen(key);
    if (strncmp(p, key, k) != 0 || p[k] != ':')
        return false;
    p += k + 1;
    while (*p == ' ')
        p++;
    size_t n = strcspn(p, "\r\n");
    if (n >= 2 && (p[0] == '\'' || p[0] == '"')) {
        p++;
        n -= 2;
    }
    snprintf(out, size, "%.*s", (int)n, p);
    return true;
}

static void load(void)
{
    FILE *f = fopen(HL_OPENAPI_PATH, "r");
    if (!f)
        fail_msg("cannot open %s", HL_OPENAPI_PATH);
    char line[1024];
    enum { NONE, PATHS, COMPONENT_PARAMS, COMPONENT_RESPONSES } section = NONE;
    char path[160] = "";
    struct op *cur = NULL;
    bool in_params = false;
    bool in_responses = false;
    int params_indent = 0;
    struct component *comp = NULL;
    bool in_components = false;
    while (fgets(line, sizeof line, f)) {
        int ind = indent_of(line);
        const char *p = line + ind;
        if (*p == '\n' || *p == '#')
            continue;
        if (ind == 0) {
            section = strncmp(p, "paths:", 6) == 0 ? PATHS : NONE;
            in_components = strncmp(p, "components:", 11) == 0;
            cur = NULL;
            continue;
        }
        if (in_components && ind == 2) {
            section = strncmp(p, "parameters:", 11) == 0  ? COMPONENT_PARAMS
                      : strncmp(p, "responses:", 10) == 0 ? COMPONENT_RESPONSES
                                                          : NONE;
            continue;
        }
        if (section == COMPONENT_RESPONSES) {
            if (ind == 4) {
                assert_true(nresponse_comps < MAX_COMPONENTS);
                snprintf(response_comps[nresponse_comps++], sizeof response_comps[0], "%.*s",
                         (int)strcspn(p, ":"), p);
            }
            continue;
        }
        if (section == COMPONENT_PARAMS) {
            if (ind == 4) {
                assert_true(ncomps < MAX_COMPONENTS);
                comp = &comps[ncomps++];
                snprintf(comp->key, sizeof comp->key, "%.*s", (int)strcspn(p, ":"), p);
            } else if (ind == 6 && comp) {
                field(line, "name", comp->name, sizeof comp->name);
                field(line, "in", comp->in, sizeof comp->in);
            }
            continue;
        }
        if (section != PATHS)
            continue;
        if (ind == 2 && p[0] == '/') {
            snprintf(path, sizeof path, "%.*s", (int)strcspn(p, ":"), p);
            cur = NULL;
            continue;
        }
        static const char *const methods[] = {"get", "post", "put", "patch", "delete", "head"};
        if (ind == 4) {
            cur = NULL;
            in_params = false;
            in_responses = false;
            for (size_t m = 0; m < sizeof methods / sizeof methods[0]; m++) {
                size_t k = strlen(methods[m]);
                if (strncmp(p, methods[m], k) == 0 && p[k] == ':') {
                    assert_true(nops < MAX_OPS);
                    cur = &ops[nops++];
                    memset(cur, 0, sizeof *cur);
                    snprintf(cur->path, sizeof cur->path, "%s", path);
                    for (size_t i = 0; i < k; i++)
                        cur->method[i] = (char)(methods[m][i] - 'a' + 'A');
                }
            }
            continue;
        }
        if (!cur)
            continue;
        if (ind == 6) {
            in_params = strncmp(p, "parameters:", 11) == 0;
            in_responses = strncmp(p, "responses:", 10) == 0;
            params_indent = 8;
            field(line, "x-hoglake-access", cur->access, sizeof cur->access);
            field(line, "security", cur->security, sizeof cur->security);
            continue;
        }
        /* responses: '401': then, one level deeper, its $ref if any */
        if (in_responses && ind == 8) {
            const char *q = p + (*p == '\'' || *p == '"');
            char *end;
            long status = strtol(q, &end, 10);
            if (end - q == 3) {
                assert_true(cur->nresponses < MAX_RESPONSES);
                struct response_ref *rr = &cur->responses[cur->nresponses++];
                memset(rr, 0, sizeof *rr);
                rr->status = (int)status;
            }
            continue;
        }
        if (in_responses && ind == 10 && cur->nresponses > 0) {
            struct response_ref *rr = &cur->responses[cur->nresponses - 1];
            char ref[128];
            if (field(line, "$ref", ref, sizeof ref)) {
                const char *slash = strrchr(ref, '/');
                snprintf(rr->ref, sizeof rr->ref, "%s", slash ? slash + 1 : ref);
            }
            continue;
        }
        if (in_params && ind == params_indent && p[0] == '-') {
            assert_true(cur->nparams < MAX_PARAMS);
            struct param_ref *pr = &cur->params[cur->nparams++];
            memset(pr, 0, sizeof *pr);
            char ref[128];
            if (field(line, "$ref", ref, sizeof ref)) {
                const char *slash = strrchr(ref, '/');
                snprintf(pr->ref, sizeof pr->ref, "%s", slash ? slash + 1 : ref);
            }
            field(line, "name", pr->name, sizeof pr->name);
            continue;
        }
        if (in_params && ind == params_indent + 2 && cur->nparams > 0) {
            struct param_ref *pr = &cur->params[cur->nparams - 1];
            field(line, "name", pr->name, sizeof pr->name);
            field(line, "in", pr->in, sizeof pr->in);
        }
    }
    fclose(f);
    /* Resolve $refs to their component's name and location. */
    for (int i = 0; i < nops; i++) {
        for (int k = 0; k < ops[i].nparams; k++) {
            struct param_ref *pr = &ops[i].params[k];
            if (!pr->ref[0])
                continue;
            bool found = false;
            for (int c = 0; c < ncomps; c++) {
                if (strcmp(comps[c].key, pr->ref) == 0) {
                    snprintf(pr->name, sizeof pr->name, "%s", comps[c].name);
                    snprintf(pr->in, sizeof pr->in, "%s", comps[c].in);
                    found = true;
                }
            }
            if (!found)
                fail_msg("%s %s: unresolved parameter $ref %s", ops[i].method, ops[i].path,
                         pr->ref);
        }
    }
    /* Response $refs must name a component of components/responses. */
    for (int i = 0; i < nops; i++) {
        for (int k = 0; k < ops[i].nresponses; k++) {
            const struct response_ref *rr = &ops[i].responses[k];
            bool found = !rr->ref[0];
            for (int c = 0; c < nresponse_comps && !found; c++)
                found = strcmp(response_comps[c], rr->ref) == 0;
            if (!found)
                fail_msg("%s %s: response %d: unresolved $ref %s", ops[i].method, ops[i].path,
                         rr->status, rr->ref);
        }
    }
}

static const struct op *find_op(const char *method, const char *path)
{
    for (int i = 0; i < nops; i++)
        if (strcmp(ops[i].method, method) == 0 && strcmp(ops[i].path, path) == 0)
            return &ops[i];
    return NULL;
}

/* The operation documenting route r; fails the test when there is none. */
static const struct op *documented_op(const struct route *r)
{
    const struct op *o = find_op(r->method, r->pattern);
    if (!o)
        fail_msg("%s %s is not documented", r->method, r->pattern);
    return o;
}

static void same_routes(void **state)
{
    (void)state;
    load();
    assert_true(nops > 0);
    size_t n;
    const struct route *routes = router_routes(&n);
    for (size_t i = 0; i < n; i++)
        if (!find_op(routes[i].method, routes[i].pattern))
            fail_msg("the router serves %s %s, which docs/openapi.yaml does not describe",
                     routes[i].method, routes[i].pattern);
    for (int k = 0; k < nops; k++) {
        bool served = false;
        for (size_t i = 0; i < n; i++)
            served |= strcmp(routes[i].method, ops[k].method) == 0 &&
                      strcmp(routes[i].pattern, ops[k].path) == 0;
        if (!served)
            fail_msg("docs/openapi.yaml describes %s %s, which the router does not serve",
                     ops[k].method, ops[k].path);
    }
    assert_int_equal((size_t)nops, n);
}

static bool documents_query(const struct op *o, const char *name)
{
    for (int k = 0; k < o->nparams; k++)
        if (strcmp(o->params[k].in, "query") == 0 && strcmp(o->params[k].name, name) == 0)
            return true;
    return false;
}

static void same_query_parameters(void **state)
{
    (void)state;
    size_t n;
    const struct route *routes = router_routes(&n);
    for (size_t i = 0; i < n; i++) {
        const struct op *o = documented_op(&routes[i]);
        if (!routes[i].args)
            continue;
        int route_args = 0;
        for (const char *const *a = routes[i].args; *a; a++, route_args++)
            if (!documents_query(o, *a))
                fail_msg("%s %s accepts ?%s, which docs/openapi.yaml does not document",
                         routes[i].method, routes[i].pattern, *a);
        int doc_args = 0;
        for (int k = 0; k < o->nparams; k++) {
            if (strcmp(o->params[k].in, "query") != 0)
                continue;
            doc_args++;
            bool accepted = false;
            for (const char *const *a = routes[i].args; *a; a++)
                accepted |= strcmp(*a, o->params[k].name) == 0;
            if (!accepted)
                fail_msg("docs/openapi.yaml documents ?%s on %s %s, which the server refuses",
                         o->params[k].name, routes[i].method, routes[i].pattern);
        }
        assert_int_equal(route_args, doc_args);
    }
}

/* Every path parameter of a pattern is documented as a path parameter. */
static void path_parameters_documented(void **state)
{
    (void)state;
    size_t n;
    const struct route *routes = router_routes(&n);
    for (size_t i = 0; i < n; i++) {
        const struct op *o = documented_op(&routes[i]);
        for (const char *p = strchr(routes[i].pattern, '{'); p; p = strchr(p + 1, '{')) {
            char name[64];
            snprintf(name, sizeof name, "%.*s", (int)strcspn(p + 1, "}"), p + 1);
            bool found = false;
            for (int k = 0; k < o->nparams; k++)
                found |=
                    strcmp(o->params[k].in, "path") == 0 && strcmp(o->params[k].name, name) == 0;
            if (!found)
                fail_msg("%s %s: path parameter {%s} is not documented", routes[i].method,
                         routes[i].pattern, name);
        }
    }
}

/* The x-hoglake-access value of each access policy. */
static const char *access_name(enum route_access access)
{
    switch (access) {
    case ACCESS_PUBLIC: return "public";
    case ACCESS_ANY: return "any";
    case ACCESS_METRICS: return "metrics";
    case ACCESS_READER: return "reader";
    case ACCESS_WRITER: return "writer";
    case ACCESS_OWNER: return "owner";
    case ACCESS_ADMIN: return "admin";
    case ACCESS_UNDECLARED: break;
    }
    return NULL;
}

/* Every operation states the router's access policy of its route. */
static void same_access(void **state)
{
    (void)state;
    size_t n;
    const struct route *routes = router_routes(&n);
    for (size_t i = 0; i < n; i++) {
        const struct op *o = documented_op(&routes[i]);
        const char *want = access_name(routes[i].access);
        if (!want)
            fail_msg("%s %s declares no access policy in the router", routes[i].method,
                     routes[i].pattern);
        if (!o->access[0])
            fail_msg("%s %s: docs/openapi.yaml gives no x-hoglake-access (the router says %s)",
                     routes[i].method, routes[i].pattern, want);
        if (strcmp(o->access, want) != 0)
            fail_msg("%s %s: docs/openapi.yaml says x-hoglake-access: %s, the router says %s",
                     routes[i].method, routes[i].pattern, o->access, want);
    }
}

static bool documents_status(const struct op *o, int status)
{
    for (int k = 0; k < o->nresponses; k++)
        if (o->responses[k].status == status)
            return true;
    return false;
}

/* A route that needs a token documents its 401 and 403 and inherits the
 * document's bearer security; a public one opts out with security: []. */
static void auth_responses_documented(void **state)
{
    (void)state;
    size_t n;
    const struct route *routes = router_routes(&n);
    for (size_t i = 0; i < n; i++) {
        const struct op *o = documented_op(&routes[i]);
        bool is_public = routes[i].access == ACCESS_PUBLIC;
        if (is_public && strcmp(o->security, "[]") != 0)
            fail_msg("%s %s needs no token, but docs/openapi.yaml does not say security: []",
                     routes[i].method, routes[i].pattern);
        if (is_public)
            continue;
        if (o->security[0])
            fail_msg("%s %s needs a token, but docs/openapi.yaml overrides its security (%s)",
                     routes[i].method, routes[i].pattern, o->security);
        static const int needed[] = {401, 403};
        for (size_t k = 0; k < sizeof needed / sizeof needed[0]; k++)
            if (!documents_status(o, needed[k]))
                fail_msg("%s %s needs a token, but docs/openapi.yaml lists no %d response",
                         routes[i].method, routes[i].pattern, needed[k]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(same_routes),
        cmocka_unit_test(same_query_parameters),
        cmocka_unit_test(path_parameters_documented),
        cmocka_unit_test(same_access),
        cmocka_unit_test(auth_responses_documented),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
