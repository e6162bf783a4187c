/* store_kube_lease_obj.c - the coordination.k8s.io/v1 Leases of the API
 * server store's claims as JSON (pure; docs/store-kube.md "Leases and
 * claims"):
 *   the controller's Lease  agentctl-controller-<id>: holderIdentity the
 *       controller ID, leaseDurationSeconds --lease-ttl, renewTime
 *       renewed every third of it, leaseTransitions the term (store.h's
 *       int64 lease: a new term once the Lease has expired)
 *   an invocation's claim   agentctl-claim-<name>: holderIdentity the
 *       controller ID ("" when released) and annotation
 *       agentctl.dev/lease-term the term it was taken under
 * A claim is held while its holder's Lease has that term and has not
 * expired (renewTime + leaseDurationSeconds >= now). */
#include "store_kube_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int
nomem(struct err *e)
{
    return err_set(e, ERR_NOMEM, "out of memory");
}

int
store__kube_microtime(double t, char *out, size_t size)
{
    time_t secs = (time_t)t; /* after 1970: truncation is the floor */
    long usec = (long)((t - (double)secs) * 1e6);
    struct tm tm;
    char day[32];

    if (gmtime_r(&secs, &tm) == NULL ||
        strftime(day, sizeof(day), "%Y-%m-%dT%H:%M:%S", &tm) == 0)
        return -1;
    return snprintf(out, size, "%s.%06ldZ", day, usec) >= (int)size ? -1 : 0;
}

int
store__kube_parse_time(const char *s, double *t)
{
    struct tm tm = { 0 };
    const char *rest;
    double frac = 0;

    if (s == NULL || (rest = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm)) == NULL)
        return -1;
    if (*rest == '.') {
        char *end;

        frac = strtod(rest, &end);
        rest = end;
    }
    if (strcmp(rest, "Z") != 0)
        return -1; /* the API server writes UTC */
    *t = (double)timegm(&tm) + frac;
    return 0;
}

static cJSON *
child(cJSON *obj, const char *key)
{
    cJSON *c = cJSON_GetObjectItemCaseSensitive(obj, key);

    if (cJSON_IsObject(c))
        return c;
    cJSON_DeleteItemFromObjectCaseSensitive(obj, key);
    return cJSON_AddObjectToObject(obj, key);
}

/* obj.key = v (owned), replacing what was there; false: out of memory */
static bool
set_item(cJSON *obj, const char *key, cJSON *v)
{
    if (v == NULL)
        return false;
    cJSON_DeleteItemFromObjectCaseSensitive(obj, key);
    cJSON_AddItemToObject(obj, key, v);
    return true;
}

static bool
set_str(cJSON *obj, const char *key, const char *value)
{
    return set_item(obj, key, cJSON_CreateString(value));
}

static bool
set_num(cJSON *obj, const char *key, double value)
{
    return set_item(obj, key, cJSON_CreateNumber(value));
}

static bool
set_time(cJSON *obj, const char *key, double t)
{
    char when[48];

    return store__kube_microtime(t, when, sizeof(when)) == 0 &&
           set_str(obj, key, when);
}

cJSON *
store__kube_lease_new(const char *name)
{
    cJSON *l = cJSON_CreateObject(), *md;

    if (l == NULL || !set_str(l, "apiVersion", "coordination.k8s.io/v1") ||
        !set_str(l, "kind", "Lease") || (md = child(l, "metadata")) == NULL ||
        !set_str(md, "name", name) || child(l, "spec") == NULL) {
        cJSON_Delete(l);
        return NULL;
    }
    return l;
}

int
store__kube_lease_hold(cJSON *lease, const char *holder, int ttl_s,
                       int64_t term, double now, bool new_term, struct err *e)
{
    cJSON *spec = child(lease, "spec");

    if (spec == NULL || !set_str(spec, "holderIdentity", holder) ||
        !set_num(spec, "leaseDurationSeconds", ttl_s) ||
        !set_num(spec, "leaseTransitions", (double)term) ||
        !set_time(spec, "renewTime", now) ||
        (new_term && !set_time(spec, "acquireTime", now)))
        return nomem(e);
    return 0;
}

int64_t
store__kube_lease_term(const cJSON *lease)
{
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(lease, "spec"), "leaseTransitions");

    return cJSON_IsNumber(t) ? (int64_t)t->valuedouble : 0;
}

bool
store__kube_lease_live(const cJSON *lease, const char *holder, int64_t term,
                       double now)
{
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(lease, "spec");
    const char *who = store__kube_str(spec, "holderIdentity", NULL);
    const cJSON *ttl =
        cJSON_GetObjectItemCaseSensitive(spec, "leaseDurationSeconds");
    double renewed;

    if (who == NULL || strcmp(who, holder) != 0 ||
        store__kube_lease_term(lease) != term || !cJSON_IsNumber(ttl) ||
        store__kube_parse_time(store__kube_str(spec, "renewTime", NULL),
                               &renewed) == -1)
        return false;
    return renewed + ttl->valuedouble >= now;
}

int
store__kube_claim_set(cJSON *claim, const char *holder, int64_t term,
                      double now, struct err *e)
{
    cJSON *spec = child(claim, "spec"), *md = child(claim, "metadata");
    cJSON *notes = md ? child(md, "annotations") : NULL;
    char t[24];

    snprintf(t, sizeof(t), "%lld", (long long)term);
    if (spec == NULL || notes == NULL ||
        !set_str(spec, "holderIdentity", holder ? holder : ""))
        return nomem(e);
    if (holder == NULL) { /* released: free for the next claim */
        cJSON_DeleteItemFromObjectCaseSensitive(notes,
                                                STORE_KUBE_TERM_ANNOTATION);
        return 0;
    }
    if (!set_str(notes, STORE_KUBE_TERM_ANNOTATION, t) ||
        !set_time(spec, "acquireTime", now))
        return nomem(e);
    return 0;
}

const char *
store__kube_claim_holder_of(const cJSON *claim, int64_t *term)
{
    const cJSON *md = cJSON_GetObjectItemCaseSensitive(claim, "metadata");
    const char *who =
        store__kube_str(cJSON_GetObjectItemCaseSensitive(claim, "spec"),
                        "holderIdentity", NULL);
    const char *t =
        store__kube_str(cJSON_GetObjectItemCaseSensitive(md, "annotations"),
                        STORE_KUBE_TERM_ANNOTATION, NULL);

    *term = t != NULL ? strtoll(t, NULL, 10) : 0;
    return who != NULL && who[0] != '\0' && *term > 0 ? who : NULL;
}

int
store__kube_claim_owner(cJSON *claim, const char *inv_name, const char *uid,
                        struct err *e)
{
    cJSON *md = child(claim, "metadata"), *refs, *ref, *labels;

    if (md == NULL || (labels = child(md, "labels")) == NULL ||
        !set_str(labels, "app.kubernetes.io/managed-by", "agent-controller") ||
        !set_str(labels, "agentctl.dev/invocation", inv_name))
        return nomem(e);
    if (uid == NULL)
        return 0; /* no owner: the claim outlives a deleted invocation */
    /* the API server's garbage collector deletes the claim with its
     * invocation (a namespaced dependent of a cluster-scoped owner) */
    refs = cJSON_AddArrayToObject(md, "ownerReferences");
    ref = cJSON_CreateObject();
    if (refs == NULL || ref == NULL) {
        cJSON_Delete(ref);
        return nomem(e);
    }
    cJSON_AddItemToArray(refs, ref);
    if (!set_str(ref, "apiVersion", "agentctl.dev/v1alpha1") ||
        !set_str(ref, "kind", "AgentInvocation") ||
        !set_str(ref, "name", inv_name) || !set_str(ref, "uid", uid))
        return nomem(e);
    return 0;
}

cJSON *
store__kube_grant_next(const cJSON *read, const char *holder, int ttl_s,
                       double now, int64_t *term, bool *create, struct err *e)
{
    char name[256];
    cJSON *l;
    bool same = false;

    *create = read == NULL;
    *term = 1;
    if (read != NULL) {
        *term = store__kube_lease_term(read);
        /* still live (a restart within the TTL): its claims are taken
         * over, as an etcd lease's keys are; expired: a new term, and
         * every claim of the old one is free */
        same = *term > 0 && store__kube_lease_live(read, holder, *term, now);
        if (!same)
            (*term)++;
    }
    snprintf(name, sizeof(name), "%s%s", STORE_KUBE_LEASE_PREFIX, holder);
    l = read != NULL ? cJSON_Duplicate(read, true)
                     : store__kube_lease_new(name);
    if (l == NULL) {
        nomem(e);
        return NULL;
    }
    if (store__kube_lease_hold(l, holder, ttl_s, *term, now, !same, e) == -1) {
        cJSON_Delete(l);
        return NULL;
    }
    return l;
}

enum store_kube_verdict
store__kube_claim_verdict(const cJSON *holder_lease, const char *who,
                          int64_t term, const char *holder, bool check_holders,
                          double now, bool *was_free)
{
    bool live = who != NULL && check_holders && holder_lease != NULL &&
                store__kube_lease_live(holder_lease, who, term, now);

    *was_free = !live; /* live and ours: a restarted controller's own */
    if (live && strcmp(who, holder) != 0)
        return STORE_KUBE_CLAIM_HELD;
    if (!live && who != NULL && strcmp(who, holder) != 0 && check_holders)
        return STORE_KUBE_CLAIM_FENCE;
    return STORE_KUBE_CLAIM_TAKE;
}

int
store__kube_fence_lease(cJSON *lease, const char *who, int64_t term, double now,
                        struct err *e)
{
    cJSON *spec = cJSON_GetObjectItemCaseSensitive(lease, "spec");
    const char *now_who = store__kube_str(spec, "holderIdentity", NULL);

    /* another holder or term by now: nothing of who's left to fence */
    if (now_who == NULL || strcmp(now_who, who) != 0 ||
        store__kube_lease_term(lease) != term)
        return 0;
    if (store__kube_lease_live(lease, who, term, now))
        return err_set(e, ERR_CONFLICT, "controller %s renewed its Lease", who);
    if (!set_str(spec, "holderIdentity", ""))
        return nomem(e);
    return 1;
}

bool
store__kube_claim_ours(const cJSON *claim, const char *holder, int64_t lease)
{
    int64_t term;
    const char *who = store__kube_claim_holder_of(claim, &term);

    /* only our claim of this term: a newer holder's stays */
    return who != NULL && strcmp(who, holder) == 0 && term == lease;
}
