#include "server/catalog/catalog_idents.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* More than the catalogs one deployment commits to; a power of two. A
 * collision only costs the commit a lookup. */
enum { IDENT_SLOTS = 512 };

/* Longer names or paths than this are not kept: their commits look the
 * catalog up as before. */
enum { IDENT_TEXT_MAX = 4096 };

struct slot {
    char *name; /* NULL: empty; name and data_path are one allocation */
    const char *data_path;
    int64_t id;
};

struct catalog_idents {
    pthread_mutex_t mu;
    struct slot slots[IDENT_SLOTS];
};

struct catalog_idents *catalog_idents_new(void)
{
    struct catalog_idents *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    pthread_mutex_init(&c->mu, NULL);
    return c;
}

void catalog_idents_free(struct catalog_idents *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < IDENT_SLOTS; i++)
        free(c->slots[i].name);
    pthread_mutex_destroy(&c->mu);
    free(c);
}

/* FNV-1a: names are short and chosen by people, not attackers' keys to a
 * table that grows (a collision evicts, nothing more). */
static struct slot *slot_of(struct catalog_idents *c, const char *name)
{
    uint32_t h = 2166136261u;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        h = (h ^ *p) * 16777619u;
    return &c->slots[h & (IDENT_SLOTS - 1)];
}

int catalog_idents_get(struct catalog_idents *c, const char *name, struct arena *arena,
                       struct catalog_ident *out)
{
    int rc = 0;
    pthread_mutex_lock(&c->mu);
    const struct slot *s = slot_of(c, name);
    if (s->name && strcmp(s->name, name) == 0) {
        out->id = s->id;
        out->name = arena_strdup(arena, s->name);
        out->data_path = arena_strdup(arena, s->data_path);
        rc = out->name && out->data_path ? 1 : -1;
    }
    pthread_mutex_unlock(&c->mu);
    return rc;
}

void catalog_idents_put(struct catalog_idents *c, const struct catalog_ident *ident)
{
    size_t nl = strlen(ident->name), pl = strlen(ident->data_path);
    if (nl > IDENT_TEXT_MAX || pl > IDENT_TEXT_MAX)
        return;
    char *text = malloc(nl + pl + 2);
    if (!text)
        return;
    memcpy(text, ident->name, nl + 1);
    memcpy(text + nl + 1, ident->data_path, pl + 1);
    pthread_mutex_lock(&c->mu);
    struct slot *s = slot_of(c, ident->name);
    char *old = s->name;
    *s = (struct slot){.name = text, .data_path = text + nl + 1, .id = ident->id};
    pthread_mutex_unlock(&c->mu);
    free(old);
}

void catalog_idents_forget(struct catalog_idents *c, const char *name)
{
    char *old = NULL;
    pthread_mutex_lock(&c->mu);
    struct slot *s = slot_of(c, name);
    if (s->name && strcmp(s->name, name) == 0) {
        old = s->name;
        *s = (struct slot){0};
    }
    pthread_mutex_unlock(&c->mu);
    free(old);
}
