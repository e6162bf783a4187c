/* store_etcd_lease.c - the controller's lease (docs/store-etcd.md
 * "Claims and leases"): granted once, kept alive on a timer (the blocking
 * way, or on the watch's connection pool without blocking the loop). The
 * claims bound to it are store_etcd_claim.c's.
 *
 * Gateway shapes (etcd 3.4, checked against a live etcd):
 *   /v3/lease/grant {"TTL":5} -> {"ID":"...","TTL":"5"}
 *   /v3/lease/keepalive {"ID":"..."} -> {"result":{"ID":"...","TTL":"5"}};
 *     an expired lease answers a result without TTL (0)
 */
#include "store_etcd_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#define ETCD_OF(s) ((struct store_etcd *)(s))

static int
nomem(struct err *e)
{
    return err_set(e, ERR_NOMEM, "out of memory");
}

int
store__etcd_lease_grant(struct store *st, int ttl_s, int64_t *lease,
                        struct err *e)
{
    cJSON *req = cJSON_CreateObject(), *ans = NULL;
    int rc;

    if (req == NULL || !cJSON_AddNumberToObject(req, "TTL", ttl_s)) {
        cJSON_Delete(req);
        return nomem(e);
    }
    rc = store__etcd_call(ETCD_OF(st), "/v3/lease/grant", req, &ans, e);
    cJSON_Delete(req);
    if (rc == 0) {
        *lease = store__etcd_int(ans, "ID");
        if (*lease == 0)
            rc = err_set(e, ERR_REMOTE, "etcd granted no lease ID");
    }
    cJSON_Delete(ans);
    return rc;
}

int
store__etcd_lease_keepalive(struct store *st, int64_t lease, struct err *e)
{
    cJSON *req = cJSON_CreateObject(), *ans = NULL;
    char id[24];
    int rc;

    snprintf(id, sizeof(id), "%" PRId64, lease);
    if (req == NULL || !cJSON_AddStringToObject(req, "ID", id)) {
        cJSON_Delete(req);
        return nomem(e);
    }
    rc = store__etcd_call(ETCD_OF(st), "/v3/lease/keepalive", req, &ans, e);
    cJSON_Delete(req);
    if (rc == 0 &&
        store__etcd_int(cJSON_GetObjectItemCaseSensitive(ans, "result"),
                        "TTL") <= 0)
        rc = err_set(e, ERR_NOTFOUND, "etcd lease %s has expired", id);
    cJSON_Delete(ans);
    return rc;
}

/* The caller of an async keep-alive, until its answer. */
struct keepalive {
    store_done_fn *done;
    void *arg;
    char id[24];
};

static void
keepalive_done(void *arg, int rc, const cJSON *ans, const struct err *e)
{
    struct keepalive *k = arg;
    struct err mine = { 0 };

    if (rc == -1 && e != NULL)
        mine = *e;
    else if (store__etcd_int(cJSON_GetObjectItemCaseSensitive(ans, "result"),
                             "TTL") <= 0)
        rc = err_set(&mine, ERR_NOTFOUND, "etcd lease %s has expired", k->id);
    k->done(k->arg, rc, &mine);
    free(k);
}

int
store__etcd_lease_keepalive_async(struct store *st, int64_t lease,
                                  store_done_fn *done, void *arg, struct err *e)
{
    struct keepalive *k = calloc(1, sizeof(*k));
    cJSON *req = cJSON_CreateObject();
    int rc;

    if (k == NULL || req == NULL) {
        free(k);
        cJSON_Delete(req);
        return nomem(e);
    }
    k->done = done;
    k->arg = arg;
    snprintf(k->id, sizeof(k->id), "%" PRId64, lease);
    if (!cJSON_AddStringToObject(req, "ID", k->id))
        rc = nomem(e);
    else
        rc = store__etcd_call_async(ETCD_OF(st), "/v3/lease/keepalive", req,
                                    keepalive_done, k, e);
    cJSON_Delete(req);
    if (rc == -1)
        free(k);
    return rc;
}
