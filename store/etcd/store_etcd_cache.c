/* store_etcd_cache.c - the etcd store's informer cache (store_etcd_cache.h):
 * a name-sorted array of entries, each with the last known value of its
 * spec, status, metadata and claim key and the revision of each. Sorted so
 * a lookup is a binary search and a list comes out in name order, as etcd
 * itself answers. */
#include "store_etcd_cache.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_etcd_int.h"

static const char *const part_dirs[STORE_ETCD_PARTS] = {
    [STORE_ETCD_SPECS] = "specs",
    [STORE_ETCD_STATUS] = "status",
    [STORE_ETCD_META] = "meta",
    [STORE_ETCD_CLAIMS] = "claims",
};

const char *
store__etcd_part_dir(enum store_etcd_part part)
{
    return part_dirs[part];
}

void
store__etcd_cache_init(struct store_etcd_cache *c, const char *root)
{
    memset(c, 0, sizeof(*c));
    snprintf(c->root, sizeof(c->root), "%s", root);
}

static void
val_clear(struct store_etcd_val *v)
{
    free(v->data);
    memset(v, 0, sizeof(*v));
}

static void
entry_free(struct store_etcd_entry *en)
{
    for (int p = 0; p < STORE_ETCD_PARTS; p++)
        val_clear(&en->v[p]);
    free(en);
}

void
store__etcd_cache_cleanup(struct store_etcd_cache *c)
{
    for (size_t i = 0; i < c->n; i++)
        entry_free(c->items[i]);
    free(c->items);
    c->items = NULL;
    c->n = c->cap = 0;
}

bool
store__etcd_cache_key(const struct store_etcd_cache *c, const char *key,
                      size_t klen, enum store_etcd_part *part,
                      char name[STORE_NAME_MAX + 1])
{
    size_t rl = strlen(c->root);

    if (klen <= rl || strncmp(key, c->root, rl) != 0 ||
        memchr(key, '\0', klen) != NULL)
        return false;
    for (int p = 0; p < STORE_ETCD_PARTS; p++) {
        size_t dl = strlen(part_dirs[p]);
        const char *rest = key + rl;
        size_t left = klen - rl;

        if (left <= dl + 1 || strncmp(rest, part_dirs[p], dl) != 0 ||
            rest[dl] != '/' || left - dl - 1 > STORE_NAME_MAX)
            continue;
        memcpy(name, rest + dl + 1, left - dl - 1);
        name[left - dl - 1] = '\0';
        if (!store_name_ok(name))
            return false;
        *part = (enum store_etcd_part)p;
        return true;
    }
    return false;
}

/* Index of name, or where it would go (*found false). */
static size_t
find(const struct store_etcd_cache *c, const char *name, bool *found)
{
    size_t lo = 0, hi = c->n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int cmp = strcmp(c->items[mid]->name, name);

        if (cmp == 0) {
            *found = true;
            return mid;
        }
        if (cmp < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    *found = false;
    return lo;
}

static struct store_etcd_entry *
entry_add(struct store_etcd_cache *c, size_t at, const char *name)
{
    struct store_etcd_entry *en = calloc(1, sizeof(*en));

    if (en == NULL)
        return NULL;
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 64;
        struct store_etcd_entry **v = realloc(c->items, cap * sizeof(*v));

        if (v == NULL) {
            free(en);
            return NULL;
        }
        c->items = v;
        c->cap = cap;
    }
    memmove(&c->items[at + 1], &c->items[at], (c->n - at) * sizeof(*c->items));
    snprintf(en->name, sizeof(en->name), "%s", name);
    c->items[at] = en;
    c->n++;
    return en;
}

int
store__etcd_cache_set(struct store_etcd_cache *c, enum store_etcd_part part,
                      const char *name, const char *data, size_t len,
                      int64_t rev, int64_t lease, bool *changed,
                      struct err *e)
{
    struct store_etcd_entry *en;
    struct store_etcd_val *v;
    bool found;
    size_t at = find(c, name, &found);
    char *copy = NULL;

    if (changed != NULL)
        *changed = false;
    if (found)
        en = c->items[at];
    else if (data == NULL)
        return 0; /* a delete of something never held: nothing to forget */
    else if ((en = entry_add(c, at, name)) == NULL)
        return err_set(e, ERR_NOMEM, "out of memory");
    v = &en->v[part];
    /* older news than what is held (our own write-through came first) */
    if (rev < v->rev || (rev == v->rev && !v->stale))
        return 0;
    if (data != NULL) {
        copy = malloc(len + 1);
        if (copy == NULL)
            return err_set(e, ERR_NOMEM, "out of memory");
        memcpy(copy, data, len);
        copy[len] = '\0';
    }
    free(v->data);
    v->data = copy;
    v->len = data != NULL ? len : 0;
    v->rev = rev;
    v->lease = data != NULL ? lease : 0;
    v->stale = false;
    if (changed != NULL)
        *changed = true;
    return 0;
}

int
store__etcd_cache_apply_kv(struct store_etcd_cache *c, const cJSON *kv,
                           bool del, bool *held, enum store_etcd_part *part,
                           char name[STORE_NAME_MAX + 1], struct err *e)
{
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(kv, "key");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(kv, "value");
    char nm[STORE_NAME_MAX + 1], *key = NULL, *val = NULL;
    enum store_etcd_part p;
    size_t klen, vlen = 0;
    int rc = 0;

    if (held != NULL)
        *held = false;
    if (!cJSON_IsString(k) ||
        store__etcd_b64_dec(k->valuestring, &key, &klen, e) == -1)
        return err_set(e, ERR_SYNTAX, "etcd kv without a key");
    if (store__etcd_cache_key(c, key, klen, &p, nm)) {
        if (!del && store__etcd_b64_dec(cJSON_IsString(v) ? v->valuestring : "",
                                        &val, &vlen, e) == -1)
            rc = -1;
        else
            rc = store__etcd_cache_set(
                c, p, nm, del ? NULL : val, vlen,
                store__etcd_int(kv, "mod_revision"),
                store__etcd_int(kv, "lease"), NULL, e);
        if (rc == 0 && held != NULL)
            *held = true;
        if (part != NULL)
            *part = p;
        if (name != NULL)
            memcpy(name, nm, sizeof(nm));
    }
    free(key);
    free(val);
    return rc;
}

void
store__etcd_cache_relist_begin(struct store_etcd_cache *c,
                               enum store_etcd_part part)
{
    for (size_t i = 0; i < c->n; i++)
        val_clear(&c->items[i]->v[part]);
}

void
store__etcd_cache_relist_end(struct store_etcd_cache *c,
                             enum store_etcd_part part)
{
    size_t k = 0;

    for (size_t i = 0; i < c->n; i++) {
        struct store_etcd_entry *en = c->items[i];
        bool any = false;

        for (int p = 0; p < STORE_ETCD_PARTS; p++)
            any = any || en->v[p].data != NULL || en->v[p].stale;
        if (any)
            c->items[k++] = en;
        else
            entry_free(en);
    }
    c->n = k;
    c->listed[part] = true;
}

const struct store_etcd_val *
store__etcd_cache_get(const struct store_etcd_cache *c,
                      enum store_etcd_part part, const char *name)
{
    bool found;
    size_t at = find(c, name, &found);

    if (!found || c->items[at]->v[part].data == NULL)
        return NULL;
    return &c->items[at]->v[part];
}

bool
store__etcd_cache_stale(const struct store_etcd_cache *c,
                        enum store_etcd_part part, const char *name)
{
    bool found;
    size_t at = find(c, name, &found);

    return found && c->items[at]->v[part].stale;
}

void
store__etcd_cache_mark_stale(struct store_etcd_cache *c,
                             enum store_etcd_part part, const char *name)
{
    bool found;
    size_t at = find(c, name, &found);

    if (found)
        c->items[at]->v[part].stale = true;
    else if (entry_add(c, at, name) != NULL)
        c->items[at]->v[part].stale = true;
}

int
store__etcd_cache_names(const struct store_etcd_cache *c,
                        enum store_etcd_part part, char ***names, size_t *n,
                        struct err *e)
{
    char **v = NULL;
    size_t k = 0;

    if (c->n > 0 && (v = calloc(c->n, sizeof(*v))) == NULL)
        return err_set(e, ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < c->n; i++) {
        if (c->items[i]->v[part].data == NULL)
            continue;
        if ((v[k] = strdup(c->items[i]->name)) == NULL) {
            store_names_free(v, k);
            return err_set(e, ERR_NOMEM, "out of memory");
        }
        k++;
    }
    *names = v;
    *n = k;
    return 0;
}
