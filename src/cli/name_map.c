#include "cli/name_map.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/cli.h"
#include "lake/ident.h"
#include "parquet/schema.h"
#include "util/buf.h"

enum { IDENT_MAX = LAKE_IDENT_MAX, MAX_DEPTH = 64 };

/* ---- parsing --rename and --map values ---- */

/* Reads OLD from *p up to an unescaped '=' (or the end of the pair),
 * splitting it at unescaped dots when `paths`. Returns false with *why
 * set. */
static bool parse_old(const char **p, const char *end, bool paths, struct arena *a,
                      struct name_map_entry *r, const char **why)
{
    char *seg[MAX_DEPTH];
    size_t depth = 0;
    struct buf cur = BUF_INIT;
    bool ok = false;
    const char *s = *p;
    for (;; s++) {
        bool at_end = s == end || *s == '=' || (paths && *s == '.');
        if (at_end) {
            if (cur.len == 0) {
                *why = "an empty name in OLD";
                goto out;
            }
            if (depth == MAX_DEPTH) {
                *why = "OLD is nested too deep";
                goto out;
            }
            seg[depth] = arena_strndup(a, cur.data, cur.len);
            if (!seg[depth++]) {
                *why = "out of memory";
                goto out;
            }
            buf_reset(&cur);
            if (s == end || *s == '=')
                break;
            continue;
        }
        if (*s == '\\' && ++s == end) {
            *why = "a backslash at the end of OLD";
            goto out;
        }
        if (buf_putc(&cur, *s) != 0) {
            *why = "out of memory";
            goto out;
        }
    }
    if (s == end) {
        *why = "no '=' (expected OLD=NEW)";
        goto out;
    }
    r->path = arena_calloc(a, depth, sizeof *r->path);
    if (!r->path) {
        *why = "out of memory";
        goto out;
    }
    memcpy(r->path, seg, depth * sizeof *seg);
    r->depth = depth;
    *p = s + 1;
    ok = true;
out:
    buf_free(&cur);
    return ok;
}

static bool same_path(const struct name_map_entry *x, const struct name_map_entry *y)
{
    if (x->depth != y->depth)
        return false;
    for (size_t i = 0; i < x->depth; i++)
        if (strcmp(x->path[i], y->path[i]) != 0)
            return false;
    return true;
}

/* One OLD=NEW pair, [start, end) of a value of option o. */
static int parse_pair(const struct name_map_option *o, const char *start, const char *end,
                      struct arena *a, struct name_map *out)
{
    struct name_map_entry *r = &out->items[out->n];
    memset(r, 0, sizeof *r);
    r->option = o->option;
    r->old_text = arena_strndup(a, start, (size_t)(end - start));
    const char *why = NULL, *p = start;
    if (!r->old_text)
        return cli_usage_error("out of memory");
    const char *opt = o->option, *old = r->old_text;
    if (!parse_old(&p, end, o->paths, a, r, &why))
        return cli_usage_error("%s '%s': %s", opt, old, why);
    r->new_name = arena_strndup(a, p, (size_t)(end - p));
    if (!r->new_name)
        return cli_usage_error("out of memory");
    char shown[80];
    lake_ident_shown(r->new_name, shown, sizeof shown);
    if (!r->new_name[0])
        return cli_usage_error("%s '%s': NEW is empty", opt, old);
    if (!lake_ident_valid(r->new_name))
        return cli_usage_error("%s '%s': '%s' is not a valid column name (must match %s)", opt, old,
                               shown, LAKE_IDENT_PATTERN);
    if (lake_ident_reserved(r->new_name))
        return cli_usage_error("%s '%s': '%s' starts with the reserved prefix '%s'", opt, old,
                               shown, LAKE_RESERVED_PREFIX);
    for (size_t i = 0; i < out->n; i++)
        if (same_path(&out->items[i], r))
            return cli_usage_error("%s '%s': that column is renamed twice", opt, old);
    out->n++;
    return EXIT_OK;
}

/* Where the pair starting at s ends: the first unescaped ',' or the end. */
static const char *pair_end(const char *s)
{
    for (; *s && *s != ','; s++)
        if (*s == '\\' && s[1])
            s++;
    return s;
}

static size_t count_pairs(const char *s)
{
    size_t n = 1;
    for (s = pair_end(s); *s; s = pair_end(s + 1))
        n++;
    return n;
}

/* The pairs of one value of option o. */
static int parse_value(const struct name_map_option *o, const char *value, struct arena *a,
                       struct name_map *out)
{
    if (!value[0])
        return cli_usage_error("%s takes OLD=NEW[,OLD=NEW...], not an empty value", o->option);
    for (const char *s = value;; s++) {
        const char *e = pair_end(s);
        if (e == s)
            return cli_usage_error("%s '%s': an empty OLD=NEW pair", o->option, value);
        int rc = parse_pair(o, s, e, a, out);
        if (rc != EXIT_OK || !*e)
            return rc;
        s = e;
    }
}

int name_map_parse(const struct name_map_option *opts, size_t nopts, struct arena *a,
                   struct name_map *out)
{
    size_t cap = 0;
    for (size_t k = 0; k < nopts; k++)
        for (size_t i = 0; i < opts[k].nvalues; i++)
            cap += count_pairs(opts[k].values[i]);
    out->n = 0;
    out->items = arena_calloc(a, cap ? cap : 1, sizeof *out->items);
    if (!out->items)
        return cli_usage_error("out of memory");
    for (size_t k = 0; k < nopts; k++) {
        for (size_t i = 0; i < opts[k].nvalues; i++) {
            int rc = parse_value(&opts[k], opts[k].values[i], a, out);
            if (rc != EXIT_OK)
                return rc;
        }
    }
    return EXIT_OK;
}

/* ---- applying renames to the input's names ---- */

/* The walk's position: the names from the top down to the current field. */
struct walk {
    struct name_map *r;
    const char *path[MAX_DEPTH];
    size_t depth;
};

static struct name_map_entry *rename_for(struct name_map *r, const char *const *path, size_t depth)
{
    for (size_t i = 0; i < r->n; i++) {
        struct name_map_entry *x = &r->items[i];
        if (x->depth != depth)
            continue;
        size_t k = 0;
        while (k < depth && strcmp(x->path[k], path[k]) == 0)
            k++;
        if (k == depth)
            return x;
    }
    return NULL;
}

/* Appends a name as OLD is written: commas, '=', backslashes and, where
 * dots separate names (--rename), dots escaped. */
static void put_name(struct buf *b, const char *name, bool paths)
{
    for (const char *s = name; *s; s++) {
        if (strchr(",=\\", *s) || (paths && *s == '.'))
            buf_putc(b, '\\');
        buf_putc(b, *s);
    }
}

static void put_escaped(struct buf *b, const char *name)
{
    put_name(b, name, true);
}

static void put_path(struct buf *b, const char *const *path, size_t depth)
{
    for (size_t i = 0; i < depth; i++) {
        if (i)
            buf_putc(b, '.');
        put_escaped(b, path[i]);
    }
}

/* Renames field f's kids (and theirs). Returns EXIT_OK, or EXIT_USAGE
 * when a rename names a list element or map key/value. */
static int rename_kids(struct walk *w, struct rename_field *f)
{
    if (w->depth == MAX_DEPTH)
        return EXIT_OK; /* deeper than any OLD can reach */
    for (size_t i = 0; i < f->nkids; i++) {
        struct rename_field *k = &f->kids[i];
        w->path[w->depth++] = k->in_name;
        struct name_map_entry *x = rename_for(w->r, w->path, w->depth);
        k->name = k->in_name;
        if (x) {
            x->used = true;
            if (!k->renamable)
                return cli_usage_error("--rename '%s': a list element or map key/value keeps "
                                       "its name",
                                       x->old_text);
            k->name = x->new_name;
            k->renamed = true;
        }
        int rc = rename_kids(w, k);
        w->depth--;
        if (rc != EXIT_OK)
            return rc;
    }
    return EXIT_OK;
}

static int report_unused(const struct name_map *r, const char *in_path)
{
    struct buf b = BUF_INIT;
    size_t n = 0;
    const char *option = "--rename";
    for (size_t i = 0; i < r->n; i++) {
        if (r->items[i].used)
            continue;
        if (!n)
            option = r->items[i].option;
        buf_printf(&b, "%s'", n++ ? ", " : "");
        put_path(&b, (const char *const *)r->items[i].path, r->items[i].depth);
        buf_putc(&b, '\'');
    }
    int rc = EXIT_OK;
    if (n)
        rc = cli_usage_error("%s: %s has no column %s", option, in_path, b.data ? b.data : "");
    buf_free(&b);
    return rc;
}

/* ---- checking the final names ---- */

/* What is wrong with the names, and the --rename that would fix it. */
struct report {
    struct buf problems;
    struct buf fix;
    size_t nfixes;
    struct arena *a;
    bool nomem;
};

static char *suggest_base(const char *name, struct arena *a)
{
    char out[IDENT_MAX + 2];
    lake_ident_sanitize(name, out);
    return arena_strdup(a, out);
}

/* Whether `name` equals, ignoring case, a final name of f's kids other
 * than kid `except`. */
static bool taken(const struct rename_field *f, size_t except, const char *name)
{
    for (size_t i = 0; i < f->nkids; i++)
        if (i != except && strcasecmp(f->kids[i].name, name) == 0)
            return true;
    return false;
}

/* A suggestion for kid i of f that no sibling has: base, base_2, ... The
 * suggestion becomes the kid's name, so later siblings avoid it too. */
static const char *suggest(struct rename_field *f, size_t i, struct arena *a)
{
    char *base = suggest_base(f->kids[i].in_name, a);
    if (!base)
        return NULL;
    char *s = base;
    for (int k = 2; s && taken(f, i, s); k++) {
        size_t keep = strlen(base) > IDENT_MAX - 8 ? IDENT_MAX - 8 : strlen(base);
        s = arena_sprintf(a, "%.*s_%d", (int)keep, base, k);
    }
    if (s)
        f->kids[i].name = s;
    return s;
}

static void add_problem(struct walk *w, struct report *rep, struct rename_field *f, size_t i,
                        const char *why)
{
    char shown[80];
    lake_ident_shown(f->kids[i].in_name, shown, sizeof shown);
    buf_puts(&rep->problems, "\n  '");
    put_path(&rep->problems, w->path, w->depth);
    buf_printf(&rep->problems, "%s%s': %s", w->depth ? "." : "", shown, why);
    const char *fix = suggest(f, i, rep->a);
    if (!fix) {
        rep->nomem = true;
        return;
    }
    buf_puts(&rep->fix, rep->nfixes++ ? "," : "");
    put_path(&rep->fix, w->path, w->depth);
    if (w->depth)
        buf_putc(&rep->fix, '.');
    put_escaped(&rep->fix, f->kids[i].in_name);
    buf_printf(&rep->fix, "=%s", fix);
}

/* The first earlier sibling of kid i with the same name but for case. */
static const struct rename_field *case_twin(const struct rename_field *f, size_t i)
{
    for (size_t j = 0; j < i; j++)
        if (strcasecmp(f->kids[j].name, f->kids[i].name) == 0)
            return &f->kids[j];
    return NULL;
}

/* Why kid i of f, as named now, cannot be a column's name, or NULL. */
static const char *name_problem(const struct rename_field *f, size_t i)
{
    const char *name = f->kids[i].name;
    if (case_twin(f, i))
        return "differs from another name only in case";
    if (!lake_ident_valid(name))
        return "not a valid identifier";
    if (lake_ident_reserved(name))
        return "starts with the reserved prefix " LAKE_RESERVED_PREFIX;
    return NULL;
}

static int check_kids(struct walk *w, struct report *rep, struct rename_field *f);

/* Renames that make two fields' names equal but for case. */
static int collision(const struct walk *w, const struct rename_field *x,
                     const struct rename_field *y)
{
    const char *in = w->depth ? " in " : "", *parent = w->depth ? w->path[w->depth - 1] : "";
    if (strcmp(x->name, y->name) == 0)
        return cli_usage_error("--rename: '%s' and '%s' would both be named '%s'%s%s", x->in_name,
                               y->in_name, x->name, in, parent);
    return cli_usage_error("--rename: '%s' and '%s' would be named '%s' and '%s', equal but for "
                           "case%s%s",
                           x->in_name, y->in_name, x->name, y->name, in, parent);
}

/* Checks kid i of f; EXIT_USAGE when renames made it collide. */
static int check_kid(struct walk *w, struct report *rep, struct rename_field *f, size_t i)
{
    struct rename_field *k = &f->kids[i];
    if (k->renamable) {
        const struct rename_field *twin = case_twin(f, i);
        if (twin && (twin->renamed || k->renamed))
            return collision(w, twin, k);
        const char *why = name_problem(f, i);
        if (why)
            add_problem(w, rep, f, i, why);
    }
    if (w->depth == MAX_DEPTH)
        return EXIT_OK;
    w->path[w->depth++] = k->in_name;
    int rc = check_kids(w, rep, k);
    w->depth--;
    return rc;
}

static int check_kids(struct walk *w, struct report *rep, struct rename_field *f)
{
    for (size_t i = 0; i < f->nkids; i++) {
        int rc = check_kid(w, rep, f, i);
        if (rc != EXIT_OK)
            return rc;
    }
    return EXIT_OK;
}

/* Prints text quoted for a POSIX shell ('...', a quote inside written
 * '\''), then a line end. */
static void print_shell_quoted(const char *text)
{
    fputc('\'', stderr);
    for (const char *s = text; *s; s++)
        if (*s == '\'')
            fputs("'\\''", stderr);
        else
            fputc(*s, stderr);
    fputs("'\n", stderr);
}

static void print_report(const struct report *rep, const char *in_path)
{
    fprintf(stderr,
            "hoglake: %s: column names a catalog table cannot have (names must match %s and not "
            "start with %s; names at one level must differ beyond case):%s\n"
            "hoglake: rename them, for example with --rename ",
            in_path, LAKE_IDENT_PATTERN, LAKE_RESERVED_PREFIX,
            rep->problems.data ? rep->problems.data : "");
    print_shell_quoted(rep->fix.data ? rep->fix.data : "");
}

int name_map_apply(struct name_map *r, struct rename_field *root, int checks, const char *in_path,
                   struct arena *a)
{
    struct walk w = {.r = r};
    int rc = rename_kids(&w, root);
    if (rc == EXIT_OK && (checks & NAME_MAP_CHECK_UNUSED))
        rc = report_unused(r, in_path);
    if (rc != EXIT_OK || !(checks & NAME_MAP_CHECK_IDENTS))
        return rc;
    struct report rep = {BUF_INIT, BUF_INIT, 0, a, false};
    rc = check_kids(&w, &rep, root);
    if (rc == EXIT_OK && (rep.nomem || rep.nfixes)) {
        if (rep.nomem)
            fprintf(stderr, "hoglake: out of memory\n");
        else
            print_report(&rep, in_path);
        rc = EXIT_FAILURE_OTHER;
    }
    buf_free(&rep.problems);
    buf_free(&rep.fix);
    return rc;
}

const char *name_map_source_of(const struct name_map *r, const char *new_name)
{
    for (size_t i = 0; i < r->n; i++)
        if (r->items[i].depth == 1 && strcmp(r->items[i].new_name, new_name) == 0)
            return r->items[i].path[0];
    return new_name;
}

/* ---- Arrow schemas read from the input ---- */

/* Renames the children of s whose paths (under w's) a rename names. The
 * synthetic levels take the names the renames use for them. */
static int arrow_kids(struct walk *w, struct ArrowSchema *s, struct arena *a)
{
    bool is_struct = strcmp(s->format, "+s") == 0;
    bool is_list = strcmp(s->format, "+l") == 0 || strcmp(s->format, "+L") == 0;
    bool is_map = strcmp(s->format, "+m") == 0 && s->n_children == 1;
    if (!(is_struct || is_list || is_map) || w->depth == MAX_DEPTH)
        return 0;
    if (is_map) {
        s = s->children[0]; /* the entries struct: key and value */
        if (s->n_children != 2)
            return 0;
    }
    static const char *const kv[] = {"key", "value"};
    for (int64_t i = 0; i < s->n_children; i++) {
        struct ArrowSchema *k = s->children[i];
        const char *seg = is_struct ? k->name : is_list ? "element" : kv[i];
        w->path[w->depth++] = seg ? seg : "";
        const struct name_map_entry *x = is_struct ? rename_for(w->r, w->path, w->depth) : NULL;
        int rc = arrow_kids(w, k, a);
        w->depth--;
        if (rc != 0)
            return rc;
        if (x) {
            /* The producer's release frees its own copy of the name (its
             * private data), never this pointer, which the arena keeps
             * alive for as long as the schema is used. */
            k->name = arena_strdup(a, x->new_name);
            if (!k->name)
                return -1;
        }
    }
    return 0;
}

int name_map_arrow(const struct name_map *r, struct ArrowSchema *s, struct arena *a)
{
    struct walk w = {.r = (struct name_map *)r};
    return arrow_kids(&w, s, a);
}

/* ---- Parquet schemas ---- */

static int pq_kids(const struct pq_schema *s, const struct pq_node *x, struct rename_field *f,
                   struct arena *a);

static int pq_field(const struct pq_schema *s, const struct pq_node *x, const char *name,
                    bool renamable, struct rename_field *f, struct arena *a)
{
    f->in_name = f->name = name;
    f->renamable = renamable;
    f->tag = (size_t)(x->el - s->elements);
    return pq_kids(s, x, f, a);
}

/* f's kids as the catalog sees them: struct fields by name, a list's
 * element, a map's key and value (its key_value group is no column). */
static int pq_kids(const struct pq_schema *s, const struct pq_node *x, struct rename_field *f,
                   struct arena *a)
{
    const struct pq_node *one[1] = {x->element};
    const struct pq_node *const *kids = (const struct pq_node *const *)x->children;
    size_t n = (size_t)x->nchildren;
    if (x->kind == PQN_LIST)
        kids = one, n = 1;
    else if (x->kind == PQN_MAP)
        kids = (const struct pq_node *const *)x->element->children,
        n = x->element->nchildren == 2 ? 2 : 0;
    else if (x->kind != PQN_STRUCT || x->el->logical.kind == PQ_LT_VARIANT)
        n = 0; /* a leaf, or storage that is no column of its own */
    f->nkids = n;
    f->kids = arena_calloc(a, n ? n : 1, sizeof *f->kids);
    if (!f->kids)
        return -1;
    static const char *const kv[] = {"key", "value"};
    for (size_t i = 0; i < n; i++) {
        bool named = x->kind == PQN_STRUCT;
        const char *name = named ? kids[i]->el->name : x->kind == PQN_LIST ? "element" : kv[i];
        if (pq_field(s, kids[i], name, named, &f->kids[i], a) != 0)
            return -1;
    }
    return 0;
}

/* A LIST whose repeated group is named "<list>_tuple" reads that group as
 * its element (the backward-compatibility rule in src/parquet/schema.c):
 * renaming the list renames the group with it, or the file would read in
 * another shape. */
static int rename_tuple(struct pq_schema_element *el, size_t n, size_t at, const char *old_name,
                        const char *new_name, struct arena *a)
{
    if (at + 1 >= n || el[at].num_children != 1 || el[at + 1].repetition != PQ_REPEATED)
        return 0;
    const char *tuple = arena_sprintf(a, "%s_tuple", old_name);
    if (!tuple)
        return -1;
    if (strcmp(el[at + 1].name, tuple) != 0)
        return 0;
    const char *renamed = arena_sprintf(a, "%s_tuple", new_name);
    if (!renamed)
        return -1;
    el[at + 1].name = renamed;
    return 0;
}

/* Sets the names of the renamed fields in the element list el. */
static int put_names(const struct rename_field *f, struct pq_schema_element *el, size_t n,
                     struct arena *a)
{
    for (size_t i = 0; i < f->nkids; i++) {
        const struct rename_field *k = &f->kids[i];
        if (k->renamed) {
            if (rename_tuple(el, n, k->tag, el[k->tag].name, k->name, a) != 0)
                return -1;
            el[k->tag].name = k->name;
        }
        if (put_names(k, el, n, a) != 0)
            return -1;
    }
    return 0;
}

/* Whether the renamed schema reads in the same shape as the file's: every
 * node the same kind over the same element. The reader's rules look at a
 * few names ("array", "<list>_tuple"); a rename must never change what a
 * file reads as. */
static bool same_shape(const struct pq_schema *a, const struct pq_node *x,
                       const struct pq_schema *b, const struct pq_node *y)
{
    if (x->kind != y->kind || x->nchildren != y->nchildren ||
        x->el - a->elements != y->el - b->elements)
        return false;
    if ((x->element == NULL) != (y->element == NULL) ||
        (x->element && x->element->el - a->elements != y->element->el - b->elements))
        return false;
    for (int i = 0; i < x->nchildren; i++)
        if (!same_shape(a, x->children[i], b, y->children[i]))
            return false;
    return true;
}

int name_map_parquet(struct name_map *r, const struct pq_schema *s, bool check_names,
                     const char *in_path, struct arena *a, struct pq_schema *out)
{
    struct rename_field root = {0};
    if (pq_field(s, s->root, "", false, &root, a) != 0) {
        fprintf(stderr, "hoglake: out of memory\n");
        return EXIT_FAILURE_OTHER;
    }
    int checks = NAME_MAP_CHECK_UNUSED | (check_names ? NAME_MAP_CHECK_IDENTS : 0);
    int rc = name_map_apply(r, &root, checks, in_path, a);
    if (rc != EXIT_OK)
        return rc;
    struct pq_schema_element *el = arena_calloc(a, s->nelements, sizeof *el);
    if (!el) {
        fprintf(stderr, "hoglake: out of memory\n");
        return EXIT_FAILURE_OTHER;
    }
    memcpy(el, s->elements, s->nelements * sizeof *el);
    if (put_names(&root, el, s->nelements, a) != 0) {
        fprintf(stderr, "hoglake: out of memory\n");
        return EXIT_FAILURE_OTHER;
    }
    struct pq_file_meta m = {0};
    m.schema = el;
    m.nschema = s->nelements;
    struct error err = {0};
    if (pq_schema_from_file(&m, a, out, &err) != 0) {
        fprintf(stderr, "hoglake: %s: %s\n", in_path, err.msg);
        return EXIT_FAILURE_OTHER;
    }
    if (!same_shape(s, s->root, out, out->root)) {
        fprintf(stderr,
                "hoglake: %s: these renames would change how the file's lists read (their "
                "names take part in Parquet's rules for old list layouts); rename another way\n",
                in_path);
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

/* ---- CSV headers ---- */

/* The root of a header's names, each renamable. NULL out of memory
 * (printed). */
static struct rename_field *header_root(const char *const *names, size_t n, struct arena *a)
{
    struct rename_field *root = arena_calloc(a, 1, sizeof *root);
    if (root)
        root->kids = arena_calloc(a, n ? n : 1, sizeof *root->kids);
    if (!root || !root->kids) {
        fprintf(stderr, "hoglake: out of memory\n");
        return NULL;
    }
    root->nkids = n;
    for (size_t i = 0; i < n; i++) {
        root->kids[i].in_name = root->kids[i].name = names[i];
        root->kids[i].renamable = true;
    }
    return root;
}

/* The final names of root's kids into a new array *out. */
static int final_names(const struct rename_field *root, struct arena *a, const char ***out)
{
    *out = arena_calloc(a, root->nkids ? root->nkids : 1, sizeof **out);
    if (!*out) {
        fprintf(stderr, "hoglake: out of memory\n");
        return EXIT_FAILURE_OTHER;
    }
    for (size_t i = 0; i < root->nkids; i++)
        (*out)[i] = root->kids[i].name;
    return EXIT_OK;
}

int name_map_header(struct name_map *r, const char *const *names, size_t n, int checks,
                    const char *in_path, struct arena *a, const char ***out)
{
    struct rename_field *root = header_root(names, n, a);
    if (!root)
        return EXIT_FAILURE_OTHER;
    int rc = name_map_apply(r, root, checks, in_path, a);
    return rc == EXIT_OK ? final_names(root, a, out) : rc;
}

/* Adds the --map entry OLD=new_name to r. */
static int add_entry(struct name_map *r, const char *old, const char *new_name, struct arena *a)
{
    struct name_map_entry *items = arena_calloc(a, r->n + 1, sizeof *items);
    char **path = arena_calloc(a, 1, sizeof *path);
    if (!items || !path)
        return -1;
    if (r->n)
        memcpy(items, r->items, r->n * sizeof *items);
    path[0] = (char *)old;
    items[r->n] = (struct name_map_entry){path, 1, old, "--map", new_name, true};
    r->items = items;
    r->n++;
    return 0;
}

int name_map_header_fixed(struct name_map *r, const char *const *names, size_t n, int checks,
                          const char *in_path, struct arena *a, const char ***out)
{
    struct rename_field *root = header_root(names, n, a);
    if (!root)
        return EXIT_FAILURE_OTHER;
    int rc = name_map_apply(r, root, checks & NAME_MAP_CHECK_UNUSED, in_path, a);
    for (size_t i = 0; rc == EXIT_OK && i < n; i++) {
        struct rename_field *k = &root->kids[i];
        const struct rename_field *twin = case_twin(root, i);
        struct walk w = {.r = r};
        if (twin && (twin->renamed || k->renamed))
            return collision(&w, twin, k);
        if (!name_problem(root, i))
            continue;
        const char *fix = suggest(root, i, a);
        if (!fix || add_entry(r, k->in_name, fix, a) != 0) {
            fprintf(stderr, "hoglake: out of memory\n");
            return EXIT_FAILURE_OTHER;
        }
    }
    return rc == EXIT_OK ? final_names(root, a, out) : rc;
}

int name_map_text(const struct name_map *r, struct buf *out)
{
    size_t n = 0;
    for (size_t i = 0; i < r->n; i++) {
        const struct name_map_entry *x = &r->items[i];
        if (x->depth != 1)
            continue;
        if (n++)
            buf_putc(out, ',');
        put_name(out, x->path[0], false);
        if (buf_printf(out, "=%s", x->new_name) != 0)
            return -1;
    }
    return 0;
}

/* ---- names against a table's columns ---- */

static const struct lake_column *column_named(const struct lake_table *t, const char *name)
{
    for (size_t k = 0; k < t->root.nchildren; k++)
        if (strcmp(t->root.children[k]->name, name) == 0)
            return t->root.children[k];
    return NULL;
}

int name_map_check_targets(const struct name_map *r, const struct lake_table *t, const char *what)
{
    struct buf b = BUF_INIT;
    size_t n = 0;
    for (size_t i = 0; i < r->n; i++) {
        const struct name_map_entry *x = &r->items[i];
        if (x->depth == 1 && !column_named(t, x->new_name))
            buf_printf(&b, "%s'%s' (%s '%s')", n++ ? ", " : "", x->new_name, x->option,
                       x->old_text);
    }
    int rc = EXIT_OK;
    if (n)
        rc = cli_usage_error("%s has no column%s %s", what, n > 1 ? "s" : "",
                             b.data ? b.data : "out of memory");
    buf_free(&b);
    return rc;
}

/* Whether two names have the same letters and digits, ignoring case and
 * everything else ("Flight Date" and flight_date): a likely mapping. */
static bool same_letters(const char *x, const char *y)
{
    for (;;) {
        while (*x && (unsigned char)*x < 0x80 && !isalnum((unsigned char)*x))
            x++;
        while (*y && (unsigned char)*y < 0x80 && !isalnum((unsigned char)*y))
            y++;
        if (!*x || !*y)
            return !*x && !*y;
        if (tolower((unsigned char)*x++) != tolower((unsigned char)*y++))
            return false;
    }
}

/* Whether some input name (final) is already the column's. */
static bool bound(const char *const *names, size_t n, const char *column)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(names[i], column) == 0)
            return true;
    return false;
}

/* A column of t, not bound yet, that in_name likely means; or NULL. */
static const char *likely_column(const char *in_name, const char *const *names, size_t n,
                                 const struct lake_table *t)
{
    for (size_t k = 0; k < t->root.nchildren; k++) {
        const char *c = t->root.children[k]->name;
        if (same_letters(in_name, c) && !bound(names, n, c))
            return c;
    }
    return NULL;
}

static void print_columns(const struct lake_table *t, const char *what)
{
    fprintf(stderr, "hoglake: %s's columns:", what);
    for (size_t k = 0; k < t->root.nchildren; k++)
        fprintf(stderr, "%s %s", k ? "," : "", t->root.children[k]->name);
    fputc('\n', stderr);
}

/* The column of t, not bound yet, named as `name` sanitized (how table
 * create --from names a header that cannot be a column's), or NULL. */
static const char *sanitized_column(const char *name, const char *const *names, size_t n,
                                    const struct lake_table *t)
{
    char s[IDENT_MAX + 2];
    lake_ident_sanitize(name, s);
    const struct lake_column *c = column_named(t, s);
    return c && !bound(names, n, c->name) ? c->name : NULL;
}

int name_map_check_known(const char *const *in_names, const char **names, size_t n,
                         const struct lake_table *t, const char *what, const char *in_path)
{
    struct buf unknown = BUF_INIT, fix = BUF_INIT;
    size_t nunknown = 0;
    for (size_t i = 0; i < n; i++) {
        if (column_named(t, names[i]))
            continue;
        const char *own = sanitized_column(names[i], names, n, t);
        if (own) {
            names[i] = own;
            continue;
        }
        const char *to = likely_column(in_names[i], names, n, t);
        buf_printf(&unknown, "%s'%s'", nunknown++ ? ", " : "", in_names[i]);
        buf_puts(&fix, nunknown > 1 ? "," : "");
        put_name(&fix, in_names[i], false);
        buf_printf(&fix, "=%s", to ? to : "COLUMN");
    }
    int rc = EXIT_OK;
    if (nunknown && (!unknown.data || !fix.data)) {
        fprintf(stderr, "hoglake: out of memory\n");
        rc = EXIT_FAILURE_OTHER;
    } else if (nunknown) {
        fprintf(stderr, "hoglake: %s: the header names %zu column%s %s lacks: %s\n", in_path,
                nunknown, nunknown > 1 ? "s" : "", what, unknown.data);
        print_columns(t, what);
        fputs("hoglake: map them to columns with --map ", stderr);
        print_shell_quoted(fix.data);
        rc = EXIT_FAILURE_OTHER;
    }
    buf_free(&unknown);
    buf_free(&fix);
    return rc;
}

int name_map_columns_sources(const struct name_map *r, const struct lake_table *t, struct arena *a,
                             const char *const **out)
{
    size_t n = t->root.nchildren;
    const char **names = arena_calloc(a, n ? n : 1, sizeof *names);
    if (!names)
        return -1;
    for (size_t k = 0; k < n; k++) {
        const char *own = t->root.children[k]->name;
        const char *src = name_map_source_of(r, own);
        names[k] = src == own ? NULL : src;
    }
    *out = names;
    return 0;
}
