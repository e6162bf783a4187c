/* store_kube_own.c - this controller's own Lease as the claims see it
 * (docs/store-kube.md "Leases and claims"). On etcd a claim attached to
 * an expired lease fails by itself; the API server checks no expiry, so
 * the store keeps the Lease as the API server last took it and claims
 * only while that is fresh, and a renewal the API server refused with
 * 409 (a fence) loses the Lease at once. */
#include "store_kube_int.h"

#include <stdio.h>
#include <string.h>

void
store__kube_own_renewed(struct store_kube *s, const cJSON *ans)
{
    cJSON *copy = ans != NULL ? cJSON_Duplicate(ans, true) : NULL;

    /* out of memory: no claims until the next renewal (fail closed) */
    cJSON_Delete(s->own_ok);
    s->own_ok = copy;
}

/* lease (as the API server took it) is live for term at now + a third of
 * its duration. */
static bool
fresh(const cJSON *lease, const char *holder, int64_t term, double now)
{
    const cJSON *ttl = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(lease, "spec"),
        "leaseDurationSeconds");

    return lease != NULL && cJSON_IsNumber(ttl) &&
           store__kube_lease_live(lease, holder, term,
                                  now + ttl->valuedouble / 3);
}

int
store__kube_own_fresh(const struct store_kube *s, int64_t lease,
                      struct err *e)
{
    double now = store__kube_now();

    /* Another controller takes our claims once renewTime + duration is
     * past by its clock (clocks in sync): a claim written within the last
     * third could land after that. A renewal is due every third, so a
     * Lease this old missed one. s->own is the last write when it went
     * (NULL after a failed one, which own_ok outlives). */
    if (fresh(s->own_ok, s->holder, lease, now) ||
        fresh(s->own, s->holder, lease, now))
        return 0;
    return err_set(e, ERR_NOTFOUND,
                   "Lease %s/%s%s of term %lld was not renewed within the "
                   "last two thirds of its duration: no claim under it until "
                   "it is",
                   s->cfg.namespace, STORE_KUBE_LEASE_PREFIX, s->holder,
                   (long long)lease);
}

void
store__kube_renewal_refused(struct store_kube *s, struct err *e)
{
    char was[sizeof(e->msg)];

    if (e->code != ERR_CONFLICT)
        return;
    /* only a fence writes our Lease but us, and only once it expired */
    snprintf(was, sizeof(was), "%s", e->msg);
    err_set(e, ERR_NOTFOUND,
            "Lease %s/%s%s was fenced by another controller (it had "
            "expired): lost (%s)",
            s->cfg.namespace, STORE_KUBE_LEASE_PREFIX, s->holder, was);
    store__kube_own_renewed(s, NULL);
}
