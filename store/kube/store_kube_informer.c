/* store_kube_informer.c - the API server store's reads served from its
 * informer cache (store_kube_cache.h) while the watch is live, and our
 * writes' answers taken in (write-through). The cache exists only once a
 * watch was asked for (the controller); agentctl never starts one and
 * reads the API server directly. A name the cache never heard of, a
 * broken stream or a list owed: the API server answers, as before. */
#include "store_kube_int.h"

#include <stdlib.h>
#include <string.h>

bool
store__kube_cache_live(const struct store_kube *s)
{
    const struct store_kube_watch *w = s->w;

    return w != NULL && !s->cache_off && w->easy != NULL && !w->need_list &&
           s->cache.listed;
}

const struct store_kube_cached *
store__kube_cached(const struct store_kube *s, const char *name)
{
    return store__kube_cache_live(s) ? store__kube_cache_get(&s->cache, name)
                                     : NULL;
}

int
store__kube_cached_list(const struct store_kube *s, struct store_list *out,
                        struct err *e)
{
    const struct store_kube_cache *c = &s->cache;
    struct store_list l = { 0 };

    if ((l.items = calloc(c->n + 1, sizeof(*l.items))) == NULL)
        return err_set(e, ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < c->n; i++) {
        if (c->items[i]->deleting)
            continue; /* gone for the controller: it cleans up */
        if (store__kube_spec_from_text(c->items[i]->name, c->items[i]->rv,
                                       c->items[i]->spec, &l.items[l.n],
                                       e) == -1) {
            store_list_cleanup(&l);
            return -1;
        }
        l.n++;
    }
    *out = l;
    return 0;
}

int
store__kube_cached_names(const struct store_kube *s, enum store_doc kind,
                         char ***names, size_t *n, struct err *e)
{
    const struct store_kube_cache *c = &s->cache;
    char **v = calloc(c->n + 1, sizeof(*v));
    size_t k = 0;

    if (v == NULL)
        return err_set(e, ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < c->n; i++) {
        const struct store_kube_cached *it = c->items[i];

        if ((kind == STORE_DOC_STATUS ? it->status : it->applied) == NULL)
            continue;
        if ((v[k] = strdup(it->name)) == NULL) {
            store_names_free(v, k);
            return err_set(e, ERR_NOMEM, "out of memory");
        }
        k++;
    }
    *names = v;
    *n = k;
    return 0;
}

void
store__kube_write_through(struct store_kube *s, const cJSON *ans)
{
    if (s->w == NULL || ans == NULL)
        return;
    /* out of memory: the name's entry is gone, and a miss reads the
     * API server */
    (void)store__kube_cache_take(&s->cache, ans);
}

/* A claim of name was just written. What its holder does next (run,
 * mark NodeLost, or nothing) depends on the status, which must be at
 * least as new as the claim: the old holder wrote its last status before
 * it let the claim go, but the watch may not have brought that yet (it
 * lags under load). So the object is read from the API server into the
 * cache; when it cannot be read, the entry is forgotten and the next
 * read asks the API server. etcd does the same with its claim txn's read
 * (docs/store-kube.md "The controller's cache"). */
void
store__kube_claimed_read(struct store_kube *s, const char *name)
{
    struct err ignored;
    cJSON *obj = NULL;

    if (s->w == NULL)
        return; /* no cache: every read asks the API server */
    store__kube_claimed_take(
        s, name, store__kube_get_object(s, name, &obj, &ignored) == 0 ? obj : NULL);
    cJSON_Delete(obj);
}

void
store__kube_claimed_take(struct store_kube *s, const char *name,
                         const cJSON *obj)
{
    if (obj == NULL || store__kube_cache_take(&s->cache, obj) == -1)
        store__kube_cache_forget(&s->cache, name);
}
