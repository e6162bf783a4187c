/* store_kube.c - the Kubernetes API server store (docs/store-kube.md):
 * open, close and the ops table. Specs are AgentInvocation objects
 * (store_kube_spec.c), their documents parts of the object
 * (store_kube_docs.c), events Kubernetes Events (store_kube_events.c);
 * captured output stays in the local state directory, as on etcd.
 *
 * The store lock is a no-op that counts: every write here carries a
 * resourceVersion precondition (or is create-only), so a read-compare-
 * write that lost a race fails with ERR_CONFLICT instead of needing a
 * lock; the generation it protects elsewhere is the API server's. */
#include "store_kube_int.h"

#include "store_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/stat.h>

#include <curl/curl.h>

#define KUBE_OF(s) ((struct store_kube *)(s))

static int
kube_lock(struct store *st, struct err *e)
{
    (void)e;
    KUBE_OF(st)->lock_depth++;
    return 0;
}

static void
kube_unlock(struct store *st)
{
    KUBE_OF(st)->lock_depth--;
}

static int
kube_output_path(struct store *st, const char *name, char *path, size_t size,
                 struct err *e)
{
    char dir[4096];

    if (store__path(dir, sizeof(dir), e, "%s/output", KUBE_OF(st)->state) == -1)
        return -1;
    /* created on demand (mkdir -p), as on etcd: agentctl may run where
     * it cannot */
    for (char *p = strchr(dir + 1, '/'); p != NULL; p = strchr(p + 1, '/')) {
        *p = '\0';
        (void)mkdir(dir, 0755);
        *p = '/';
    }
    (void)mkdir(dir, 0755);
    return store__path(path, size, e, "%s/%s.log", dir, name);
}

static void
kube_close(struct store *st)
{
    struct store_kube *s = KUBE_OF(st);

    store__kube_async_drop(s);
    store__kube_watch_free(s);
    cJSON_Delete(s->own);
    cJSON_Delete(s->own_ok);
    if (s->curl != NULL)
        curl_easy_cleanup(s->curl);
    store_kube_config_cleanup(&s->cfg);
    free(s->state);
    free(s);
}

static const struct store_ops kube_ops = {
    .list = store__kube_list,
    .get = store__kube_get,
    .put = store__kube_put,
    .del = store__kube_del,
    .watch_fd = store__kube_watch_fd,
    .watch_read = store__kube_watch_read,
    .lock = kube_lock,
    .unlock = kube_unlock,
    .doc_get = store__kube_doc_get,
    .doc_put = store__kube_doc_put,
    .doc_create = store__kube_doc_create,
    .doc_del = store__kube_doc_del,
    .doc_names = store__kube_doc_names,
    .event_append = store__kube_event_append,
    .event_read = store__kube_event_read,
    .output_path = kube_output_path,
    .lease_grant = store__kube_lease_grant,
    .lease_keepalive = store__kube_lease_keepalive,
    .lease_keepalive_async = store__kube_lease_keepalive_async,
    .lease_grant_async = store__kube_lease_grant_async,
    .claim = store__kube_claim,
    .claim_holder = store__kube_claim_holder,
    .release = store__kube_release,
    .claim_many = store__kube_claim_many,
    .claim_many_async = store__kube_claim_many_async,
    .close = kube_close,
};

struct store *
store_kube_open(const char *kubeconfig, const char *context,
                const char *state_dir, struct err *e)
{
    struct store_kube *s = calloc(1, sizeof(*s));
    int rc;

    if (s == NULL) {
        err_set(e, ERR_NOMEM, "out of memory");
        return NULL;
    }
    s->base.ops = &kube_ops;
    s->base.backend = "kube";
    s->check_holders = true;
    rc = kubeconfig != NULL && kubeconfig[0] != '\0'
             ? store_kube_config_load(kubeconfig, context, &s->cfg, e)
             : store_kube_config_in_cluster(NULL, &s->cfg, e);
    if (rc == -1)
        goto fail;
    /* the negative control of the cache's tests and benchmark */
    s->cache_off = getenv("AGENTCTL_KUBE_CACHE") != NULL &&
                   strcmp(getenv("AGENTCTL_KUBE_CACHE"), "off") == 0;
    s->state = strdup(state_dir ? state_dir : "/var/lib/agentctl/kube");
    s->curl = curl_easy_init();
    if (s->state == NULL || s->curl == NULL) {
        err_set(e, ERR_NOMEM, "out of memory");
        goto fail;
    }
    return &s->base;
fail:
    kube_close(&s->base);
    return NULL;
}
