/* store_kube_informer.c - the API server store's reads served from its
 * informer cache (store_kube_cache.h) while the watch is live, and our
 * writes' answers taken in (write-through). The cache exists only once a
 * watch was asked for (the controller); agentctl never starts one and
 * reads the API server directly. A name the cache never heard of, a
 * broken stream or a list owed: the API server answers, as before. */
#include "store_kube_int.h"

#include <stdlib.h>
#include <string.h>

const struct store_kube_cached *
store__kube_cached(const struct store_kube *s, const char *name)
{
    const struct store_kube_watch *w = s->w;

    if (w == NULL || s->cache_off || w->easy == NULL || w->need_list ||
        !s->cache.listed)
        return NULL;
    return store__kube_cache_get(&s->cache, name);
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
