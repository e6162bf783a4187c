/* store_kube_cache.c - the API server store's informer cache (pure; see
 * store_kube_cache.h): a sorted array of compact entries by name. */
#include "store_kube_cache.h"

#include "store_kube_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
cached_free(struct store_kube_cached *it)
{
    if (it == NULL)
        return;
    free(it->spec);
    free(it->base);
    free(it->meta);
    free(it->status);
    free(it->applied);
    free(it);
}

void
store__kube_cache_cleanup(struct store_kube_cache *c)
{
    for (size_t i = 0; i < c->n; i++)
        cached_free(c->items[i]);
    free(c->items);
    memset(c, 0, sizeof(*c));
}

/* The index of name, or where it goes (*found false). */
static size_t
find(const struct store_kube_cache *c, const char *name, bool *found)
{
    size_t lo = 0, hi = c->n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int d = strcmp(c->items[mid]->name, name);

        if (d == 0) {
            *found = true;
            return mid;
        }
        if (d < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    *found = false;
    return lo;
}

const struct store_kube_cached *
store__kube_cache_get(const struct store_kube_cache *c, const char *name)
{
    bool found;
    size_t i = find(c, name, &found);

    return found ? c->items[i] : NULL;
}

static void
remove_at(struct store_kube_cache *c, size_t i)
{
    cached_free(c->items[i]);
    memmove(&c->items[i], &c->items[i + 1],
            (c->n - i - 1) * sizeof(*c->items));
    c->n--;
}

static int
insert_at(struct store_kube_cache *c, size_t i, struct store_kube_cached *it)
{
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 64;
        struct store_kube_cached **v = realloc(c->items, cap * sizeof(*v));

        if (v == NULL)
            return -1;
        c->items = v;
        c->cap = cap;
    }
    memmove(&c->items[i + 1], &c->items[i], (c->n - i) * sizeof(*c->items));
    c->items[i] = it;
    c->n++;
    return 0;
}

static bool
same_text(const char *a, const char *b)
{
    return a != NULL && b != NULL && strcmp(a, b) == 0;
}

/* The texts of obj into it; the spec hash of old is reused when spec and
 * metadata did not change (a status write), so only a spec change parses
 * the spec. -1 when out of memory. */
static int
fill(struct store_kube_cached *it, const cJSON *obj,
     const struct store_kube_cached *old)
{
    const cJSON *status = cJSON_GetObjectItemCaseSensitive(obj, "status");
    const char *applied = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(obj, "metadata"), "annotations"),
        STORE_KUBE_APPLIED_ANNOTATION));

    it->deleting = store__kube_deleting(obj);
    it->spec = store__kube_spec_text(obj);
    it->base = store__kube_meta_doc(obj);
    if (it->spec == NULL)
        return -1;
    if (old != NULL && same_text(old->spec, it->spec) &&
        same_text(old->base, it->base) && old->meta != NULL)
        it->meta = strdup(old->meta);
    else if (it->base != NULL)
        it->meta = store__kube_meta_with_hash(obj);
    if (it->base != NULL && it->meta == NULL)
        return -1;
    if (cJSON_IsObject(status) && status->child != NULL &&
        (it->status = cJSON_PrintUnformatted(status)) == NULL)
        return -1;
    if (applied != NULL && (it->applied = strdup(applied)) == NULL)
        return -1;
    return 0;
}

int
store__kube_cache_take(struct store_kube_cache *c, const cJSON *obj)
{
    const char *name = store__kube_str(obj, "metadata", "name");
    const char *rv = store__kube_str(obj, "metadata", "resourceVersion");
    struct store_kube_cached *it;
    unsigned long long num;
    bool found;
    size_t i;

    if (name == NULL || rv == NULL || strlen(name) > STORE_NAME_MAX ||
        strlen(rv) >= sizeof(it->rv))
        return 0; /* not an object the reads could be served */
    num = strtoull(rv, NULL, 10);
    i = find(c, name, &found);
    if (found && c->items[i]->rv_num >= num)
        return 0; /* what is held is as new or newer */
    if ((it = calloc(1, sizeof(*it))) == NULL)
        goto nomem;
    snprintf(it->name, sizeof(it->name), "%s", name);
    snprintf(it->rv, sizeof(it->rv), "%s", rv);
    it->rv_num = num;
    if (fill(it, obj, found ? c->items[i] : NULL) == -1)
        goto nomem;
    if (found) {
        cached_free(c->items[i]);
        c->items[i] = it;
        return 0;
    }
    if (insert_at(c, i, it) == 0)
        return 0;
nomem:
    cached_free(it);
    if (found)
        remove_at(c, i); /* a miss reads the API server */
    return -1;
}

void
store__kube_cache_drop(struct store_kube_cache *c, const cJSON *obj)
{
    const char *name = store__kube_str(obj, "metadata", "name");

    if (name != NULL)
        store__kube_cache_forget(c, name);
}

void
store__kube_cache_forget(struct store_kube_cache *c, const char *name)
{
    bool found;
    size_t i = find(c, name, &found);

    if (found)
        remove_at(c, i);
}

void
store__kube_cache_relist_begin(struct store_kube_cache *c)
{
    for (size_t i = 0; i < c->n; i++)
        cached_free(c->items[i]);
    c->n = 0;
    c->listed = false;
}

void
store__kube_cache_relist_end(struct store_kube_cache *c)
{
    c->listed = true;
}
