#include "cli/convert_rename.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/cli.h"
#include "lake/ident.h"
#include "parquet/schema.h"
#include "util/buf.h"

enum { IDENT_MAX = 128, MAX_DEPTH = 64 };

/* ---- parsing --rename values ---- */

/* Reads OLD from *p up to an unescaped '=' (or the end of the pair),
 * splitting it at unescaped dots. Returns false with *why set. */
static bool parse_old(const char **p, const char *end, struct arena *a, struct convert_rename *r,
                      const char **why)
{
    char *seg[MAX_DEPTH];
    size_t depth = 0;
    struct buf cur = BUF_INIT;
    bool ok = false;
    const char *s = *p;
    for (;; s++) {
        bool at_end = s == end || *s == '=' || *s == '.';
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

static bool same_path(const struct convert_rename *x, const struct convert_rename *y)
{
    if (x->depth != y->depth)
        return false;
    for (size_t i = 0; i < x->depth; i++)
        if (strcmp(x->path[i], y->path[i]) != 0)
            return false;
    return true;
}

/* One OLD=NEW pair, [start, end) of a value. */
static int parse_pair(const char *start, const char *end, struct arena *a,
                      struct convert_renames *out)
{
    struct convert_rename *r = &out->items[out->n];
    memset(r, 0, sizeof *r);
    r->old_text = arena_strndup(a, start, (size_t)(end - start));
    const char *why = NULL, *p = start;
    if (!r->old_text)
        return cli_usage_error("out of memory");
    if (!parse_old(&p, end, a, r, &why))
        return cli_usage_error("--rename '%s': %s", r->old_text, why);
    r->new_name = arena_strndup(a, p, (size_t)(end - p));
    if (!r->new_name)
        return cli_usage_error("out of memory");
    char shown[80];
    lake_ident_shown(r->new_name, shown, sizeof shown);
    if (!r->new_name[0])
        return cli_usage_error("--rename '%s': NEW is empty", r->old_text);
    if (!lake_ident_valid(r->new_name))
        return cli_usage_error("--rename '%s': '%s' is not a valid column name (must match %s)",
                               r->old_text, shown, LAKE_IDENT_PATTERN);
    if (lake_ident_reserved(r->new_name))
        return cli_usage_error("--rename '%s': '%s' starts with the reserved prefix '%s'",
                               r->old_text, shown, LAKE_RESERVED_PREFIX);
    for (size_t i = 0; i < out->n; i++)
        if (same_path(&out->items[i], r))
            return cli_usage_error("--rename '%s': that column is renamed twice", r->old_text);
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

int convert_renames_parse(const char *const *values, size_t nvalues, struct arena *a,
                          struct convert_renames *out)
{
    size_t cap = 0;
    for (size_t i = 0; i < nvalues; i++)
        cap += count_pairs(values[i]);
    out->n = 0;
    out->items = arena_calloc(a, cap ? cap : 1, sizeof *out->items);
    if (!out->items)
        return cli_usage_error("out of memory");
    for (size_t i = 0; i < nvalues; i++) {
        if (!values[i][0])
            return cli_usage_error("--rename takes OLD=NEW[,OLD=NEW...], not an empty value");
        for (const char *s = values[i];; s++) {
            const char *e = pair_end(s);
            if (e == s)
                return cli_usage_error("--rename '%s': an empty OLD=NEW pair", values[i]);
            int rc = parse_pair(s, e, a, out);
            if (rc != EXIT_OK)
                return rc;
            if (!*e)
                break;
            s = e;
        }
    }
    return EXIT_OK;
}

/* ---- applying renames to the input's names ---- */

/* The walk's position: the names from the top down to the current field. */
struct walk {
    struct convert_renames *r;
    const char *path[MAX_DEPTH];
    size_t depth;
};

static struct convert_rename *rename_for(struct convert_renames *r, const char *const *path,
                                         size_t depth)
{
    for (size_t i = 0; i < r->n; i++) {
        struct convert_rename *x = &r->items[i];
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

/* Appends a name as OLD is written: dots, commas, '=' and backslashes
 * escaped. */
static void put_escaped(struct buf *b, const char *name)
{
    for (const char *s = name; *s; s++) {
        if (strchr(".,=\\", *s))
            buf_putc(b, '\\');
        buf_putc(b, *s);
    }
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
        struct convert_rename *x = rename_for(w->r, w->path, w->depth);
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

static int report_unused(const struct convert_renames *r, const char *in_path)
{
    struct buf b = BUF_INIT;
    size_t n = 0;
    for (size_t i = 0; i < r->n; i++) {
        if (r->items[i].used)
            continue;
        buf_printf(&b, "%s'", n++ ? ", " : "");
        put_path(&b, (const char *const *)r->items[i].path, r->items[i].depth);
        buf_putc(&b, '\'');
    }
    int rc = EXIT_OK;
    if (n)
        rc = cli_usage_error("--rename: %s has no column %s", in_path, b.data ? b.data : "");
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

/* A usable name derived from `name`: other characters become '_' (a
 * UTF-8 sequence one '_'), a leading digit or '-' gets '_' before it, the
 * reserved prefix gets 'x' before it. */
static char *suggest_base(const char *name, struct arena *a)
{
    char out[IDENT_MAX + 2];
    size_t n = 0;
    bool lead = name[0] == '-' || (name[0] >= '0' && name[0] <= '9');
    if (lead || lake_ident_reserved(name))
        out[n++] = lead ? '_' : 'x';
    for (const unsigned char *s = (const unsigned char *)name; *s && n < IDENT_MAX; s++) {
        bool plain = (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
                     (*s >= '0' && *s <= '9') || *s == '_' || *s == '-';
        if (plain)
            out[n++] = (char)*s;
        else if (*s < 0x80 || *s >= 0xC0) /* not a UTF-8 continuation byte */
            if (n == 0 || out[n - 1] != '_')
                out[n++] = '_';
    }
    if (n == 0)
        return arena_strdup(a, "column");
    return arena_strndup(a, out, n);
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
        if (twin)
            add_problem(w, rep, f, i, "differs from another name only in case");
        else if (!lake_ident_valid(k->name))
            add_problem(w, rep, f, i, "not a valid identifier");
        else if (lake_ident_reserved(k->name))
            add_problem(w, rep, f, i, "starts with the reserved prefix " LAKE_RESERVED_PREFIX);
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

static void print_report(const struct report *rep, const char *in_path)
{
    fprintf(stderr,
            "hoglake: %s: column names a catalog table cannot have (names must match %s and not "
            "start with %s; names at one level must differ beyond case):%s\n"
            "hoglake: rename them, for example with --rename '",
            in_path, LAKE_IDENT_PATTERN, LAKE_RESERVED_PREFIX,
            rep->problems.data ? rep->problems.data : "");
    /* Quoted for a POSIX shell: a quote inside is written '\''. */
    for (const char *s = rep->fix.data ? rep->fix.data : ""; *s; s++)
        if (*s == '\'')
            fputs("'\\''", stderr);
        else
            fputc(*s, stderr);
    fputs("'\n", stderr);
}

int convert_renames_apply(struct convert_renames *r, struct rename_field *root, bool check_names,
                          const char *in_path, struct arena *a)
{
    struct walk w = {.r = r};
    int rc = rename_kids(&w, root);
    if (rc == EXIT_OK)
        rc = report_unused(r, in_path);
    if (rc != EXIT_OK || !check_names)
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

const char *convert_renames_source_of(const struct convert_renames *r, const char *new_name)
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
        const struct convert_rename *x = is_struct ? rename_for(w->r, w->path, w->depth) : NULL;
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

int convert_renames_arrow(const struct convert_renames *r, struct ArrowSchema *s, struct arena *a)
{
    struct walk w = {.r = (struct convert_renames *)r};
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

int convert_renames_parquet(struct convert_renames *r, const struct pq_schema *s, bool check_names,
                            const char *in_path, struct arena *a, struct pq_schema *out)
{
    struct rename_field root = {0};
    if (pq_field(s, s->root, "", false, &root, a) != 0) {
        fprintf(stderr, "hoglake: out of memory\n");
        return EXIT_FAILURE_OTHER;
    }
    int rc = convert_renames_apply(r, &root, check_names, in_path, a);
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

int convert_renames_header(struct convert_renames *r, const char *const *names, size_t n,
                           const char *in_path, struct arena *a, const char ***out)
{
    struct rename_field root = {0};
    root.nkids = n;
    root.kids = arena_calloc(a, n ? n : 1, sizeof *root.kids);
    *out = arena_calloc(a, n ? n : 1, sizeof **out);
    if (!root.kids || !*out) {
        fprintf(stderr, "hoglake: out of memory\n");
        return EXIT_FAILURE_OTHER;
    }
    for (size_t i = 0; i < n; i++) {
        root.kids[i].in_name = root.kids[i].name = names[i];
        root.kids[i].renamable = true;
    }
    int rc = convert_renames_apply(r, &root, true, in_path, a);
    for (size_t i = 0; rc == EXIT_OK && i < n; i++)
        (*out)[i] = root.kids[i].name;
    return rc;
}
