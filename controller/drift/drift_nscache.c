/* drift_nscache.c - the other containers' namespace modes by ID
 * (drift_nscache.h): chained buckets, FNV-1a over the ID. */
#include "drift_nscache.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define BUCKETS 1024 /* a power of two; chains stay short up to the max */

struct entry {
    struct entry *next;
    struct drift_ns_modes modes;
    char id[]; /* then the modes' strings */
};

struct drift_nscache {
    struct entry *buckets[BUCKETS];
    size_t n;
};

static size_t
bucket_of(const char *id)
{
    uint32_t h = 2166136261u;

    for (; *id != '\0'; id++)
        h = (h ^ (unsigned char)*id) * 16777619u;
    return h & (BUCKETS - 1);
}

static void
clear(struct drift_nscache *c)
{
    for (size_t b = 0; b < BUCKETS; b++) {
        while (c->buckets[b] != NULL) {
            struct entry *next = c->buckets[b]->next;

            free(c->buckets[b]);
            c->buckets[b] = next;
        }
    }
    c->n = 0;
}

/* One allocation: the ID, then each mode given, NUL-terminated. */
static struct entry *
entry_new(const char *id, const char *pid_mode, const char *ipc_mode)
{
    size_t li = strlen(id) + 1, lp = pid_mode ? strlen(pid_mode) + 1 : 0,
           lc = ipc_mode ? strlen(ipc_mode) + 1 : 0;
    struct entry *en = malloc(sizeof(*en) + li + lp + lc);
    char *p;

    if (en == NULL)
        return NULL;
    p = memcpy(en->id, id, li);
    p += li;
    en->modes.pid_mode = pid_mode ? memcpy(p, pid_mode, lp) : NULL;
    p += lp;
    en->modes.ipc_mode = ipc_mode ? memcpy(p, ipc_mode, lc) : NULL;
    return en;
}

int
drift_nscache_put(struct drift_nscache **cache, const char *id,
                const char *pid_mode, const char *ipc_mode)
{
    struct drift_nscache *c = *cache;
    struct entry *en;
    size_t b;

    if (c == NULL && (c = *cache = calloc(1, sizeof(*c))) == NULL)
        return -1;
    if (drift_nscache_get(c, id) != NULL)
        return 0; /* create-time values: the first answer stands */
    if (c->n >= CTL_NSCACHE_MAX)
        clear(c);
    if ((en = entry_new(id, pid_mode, ipc_mode)) == NULL)
        return -1;
    b = bucket_of(id);
    en->next = c->buckets[b];
    c->buckets[b] = en;
    c->n++;
    return 0;
}

const struct drift_ns_modes *
drift_nscache_get(const struct drift_nscache *c, const char *id)
{
    if (c == NULL)
        return NULL;
    for (const struct entry *en = c->buckets[bucket_of(id)]; en != NULL;
         en = en->next)
        if (strcmp(en->id, id) == 0)
            return &en->modes;
    return NULL;
}

void
drift_nscache_free(struct drift_nscache *c)
{
    if (c == NULL)
        return;
    clear(c);
    free(c);
}
