/* store_etcd_informer.c - the etcd store's informer cache fed from etcd:
 * one list per key directory (specs, status, meta, claims), the watch of
 * each (store_etcd_watch.c) from that list's revision on, and our own
 * writes taken in as soon as etcd answers them (write-through), so a
 * read right after a write sees it without waiting for its event.
 *
 * The cache exists only once a watch was asked for (the controller);
 * agentctl never starts one and reads etcd directly. */
#include "store_etcd_int.h"

#include <stdlib.h>
#include <string.h>

void
store_etcd_set_cache(struct store *st, bool on)
{
    if (strcmp(st->backend, "etcd") == 0)
        ((struct store_etcd *)st)->cache_off = !on;
}

bool
store__etcd_cached(const struct store_etcd *s, enum store_etcd_part part)
{
    return s->cache != NULL && !s->cache_off && s->cache->listed[part] &&
           s->lock_depth == 0;
}

/* The range over part's directory: its body (NULL: e says why). */
cJSON *
store__etcd_relist_body(struct store_etcd *s, enum store_etcd_part part,
                        struct err *e)
{
    char dir[512], end[512];
    cJSON *body;

    if (store__etcd_key(s, dir, sizeof(dir), e, "%s/",
                        store__etcd_part_dir(part)) == -1)
        return NULL;
    store__etcd_prefix_end(dir, end, sizeof(end));
    body = store__etcd_range(dir, end, false);
    if (body == NULL)
        (void)err_set(e, ERR_NOMEM, "out of memory");
    return body;
}

int
store__etcd_relist_take(struct store_etcd *s, enum store_etcd_part part,
                        const cJSON *ans, int64_t *rev, struct err *e)
{
    const cJSON *kv;
    int rc = 0;

    store__etcd_cache_relist_begin(s->cache, part);
    cJSON_ArrayForEach(kv, cJSON_GetObjectItemCaseSensitive(ans, "kvs"))
    {
        if (rc == 0)
            rc = store__etcd_cache_apply_kv(s->cache, kv, false, NULL, NULL,
                                            NULL, e);
    }
    *rev = store__etcd_int(cJSON_GetObjectItemCaseSensitive(ans, "header"),
                           "revision");
    if (rc == 0)
        store__etcd_cache_relist_end(s->cache, part);
    else
        s->cache->listed[part] = false; /* half a list: read etcd */
    return rc;
}

int
store__etcd_relist(struct store_etcd *s, enum store_etcd_part part,
                   int64_t *rev, struct err *e)
{
    cJSON *body = store__etcd_relist_body(s, part, e), *ans = NULL;
    int rc;

    if (body == NULL)
        return -1;
    if (store__etcd_call_take(s, "/v3/kv/range", body, &ans, e) == -1)
        return -1;
    rc = store__etcd_relist_take(s, part, ans, rev, e);
    cJSON_Delete(ans);
    return rc;
}

void
store__etcd_write_through(struct store_etcd *s, enum store_etcd_part part,
                          const char *name, const char *data, size_t len,
                          int64_t lease, const cJSON *ans)
{
    store__etcd_write_through_at(
        s, part, name, data, len, lease,
        store__etcd_int(cJSON_GetObjectItemCaseSensitive(ans, "header"),
                        "revision"));
}

void
store__etcd_write_through_at(struct store_etcd *s, enum store_etcd_part part,
                             const char *name, const char *data, size_t len,
                             int64_t lease, int64_t rev)
{
    if (s->cache == NULL)
        return;
    /* out of memory: the value is missing until its event comes; a
     * missing value reads as absent, so say the part is not to be
     * trusted until the next relist */
    if (store__etcd_cache_set(s->cache, part, name, data, len, rev, lease, NULL,
                              NULL) == -1)
        s->cache->listed[part] = false;
}

void
store__etcd_take_readback(struct store_etcd *s, const cJSON *ans)
{
    const cJSON *r = cJSON_GetArrayItem(
        cJSON_GetObjectItemCaseSensitive(ans, "responses"), 0);
    const cJSON *rr = cJSON_GetObjectItemCaseSensitive(r, "response_range");
    const cJSON *kv =
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(rr, "kvs"), 0);

    if (s->cache != NULL && kv != NULL)
        (void)store__etcd_cache_apply_kv(s->cache, kv, false, NULL, NULL, NULL,
                                         NULL);
}
