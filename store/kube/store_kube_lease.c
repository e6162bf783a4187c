/* store_kube_lease.c - claims and leases on the API server
 * (docs/store-kube.md "Leases and claims"; the JSON is
 * store_kube_lease_obj.c's). Both are coordination.k8s.io/v1 Leases in
 * the controller's namespace. Every write is create-only (POST) or a PUT
 * of the object as read, whose metadata.resourceVersion the API server
 * checks: of two controllers taking the same claim from one read, one
 * gets 409 Conflict. A claim whose holder's Lease expired, or was taken
 * under an older term, is free; etcd deletes such a claim, here the
 * next claimant overwrites it (and learns it was free: NodeLost). */
#include "store_kube_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define KUBE_OF(s) ((struct store_kube *)(s))

double
store__kube_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* (the controller's metrics count the ones its loop waited for) */
void
store__kube_observe(struct store_kube *s, const char *op, double started,
                    int rc, bool blocking)
{
    if (s->base.observe != NULL)
        s->base.observe(s->base.observe_arg, op, store__kube_now() - started,
                        rc == 0, blocking);
}

static void
observe_renewal(struct store_kube *s, double started, int rc, bool blocking)
{
    store__kube_observe(s, "lease_keepalive", started, rc, blocking);
}

bool
store__kube_blocking_asked(const struct store_kube *s, struct err *e)
{
    if (!s->loop_blocking)
        return false;
    (void)err_set(e, ERR_INVALID, "blocking way asked for (test hook)");
    return true;
}

void
store_kube_set_loop_blocking(struct store *st, bool on)
{
    if (strcmp(st->backend, "kube") == 0)
        KUBE_OF(st)->loop_blocking = on;
}

int
store__kube_lease_path(const struct store_kube *s, char *buf, size_t size,
                       const char *prefix, const char *name, struct err *e)
{
    int n = prefix == NULL
                ? snprintf(buf, size,
                           "/apis/coordination.k8s.io/v1/namespaces/%s/leases",
                           s->cfg.namespace)
                : snprintf(buf, size,
                           "/apis/coordination.k8s.io/v1/namespaces/%s/leases/"
                           "%s%s",
                           s->cfg.namespace, prefix, name);

    if (n < 0 || (size_t)n >= size)
        return err_set(e, ERR_LIMIT, "Lease path too long");
    return 0;
}

static int
get_lease(struct store_kube *s, const char *prefix, const char *name,
          cJSON **out, struct err *e)
{
    char path[512];

    if (store__kube_lease_path(s, path, sizeof(path), prefix, name, e) == -1)
        return -1;
    return store__kube_request(s, "GET", path, NULL, NULL, out, NULL, e);
}

/* PUT obj (as read: its resourceVersion is the precondition), or POST a
 * new one (create-only). 409: ERR_CONFLICT. */
static int
write_lease(struct store_kube *s, const char *prefix, const char *name,
            const cJSON *obj, bool create, struct err *e)
{
    char path[512], *body = cJSON_PrintUnformatted(obj);
    bool own = strcmp(prefix, STORE_KUBE_LEASE_PREFIX) == 0 &&
               strcmp(name, s->holder) == 0;
    cJSON *ans = NULL;
    int rc;

    if (body == NULL)
        return err_set(e, ERR_NOMEM, "out of memory");
    rc = store__kube_lease_path(s, path, sizeof(path), create ? NULL : prefix,
                                name, e);
    if (rc == 0)
        rc = store__kube_request(s, create ? "POST" : "PUT", path, body, NULL,
                                 own ? &ans : NULL, NULL, e);
    free(body);
    if (own) { /* the next renewal PUTs it without reading it first */
        if (rc == 0)
            store__kube_own_renewed(s, ans);
        cJSON_Delete(s->own);
        s->own = ans;
    }
    return rc;
}

static int
no_holder(struct err *e)
{
    return err_set(e, ERR_INVALID,
                   "the API server store's claims need the controller ID "
                   "(store_kube_set_holder)");
}

static int
lease_grant(struct store_kube *s, int ttl_s, int64_t *lease, struct err *e)
{
    cJSON *read = NULL, *l;
    bool create;
    int rc;

    if (s->holder[0] == '\0')
        return no_holder(e);
    if (get_lease(s, STORE_KUBE_LEASE_PREFIX, s->holder, &read, e) == -1 &&
        e->code != ERR_NOTFOUND)
        return -1;
    l = store__kube_grant_next(read, s->holder, ttl_s, store__kube_now(), lease,
                               &create, e);
    cJSON_Delete(read);
    if (l == NULL)
        return -1;
    rc = write_lease(s, STORE_KUBE_LEASE_PREFIX, s->holder, l, create, e);
    cJSON_Delete(l);
    return rc;
}

int
store__kube_lease_grant(struct store *st, int ttl_s, int64_t *lease,
                        struct err *e)
{
    double started = store__kube_now();
    int64_t term = 0;
    int rc = lease_grant(KUBE_OF(st), ttl_s, &term, e);

    store__kube_observe(KUBE_OF(st), "lease_grant", started, rc, true);
    if (rc == 0)
        *lease = term;
    return rc;
}

static int lease_keepalive(struct store_kube *s, int64_t lease, struct err *e);

int
store__kube_lease_keepalive(struct store *st, int64_t lease, struct err *e)
{
    double started = store__kube_now();
    int rc = lease_keepalive(KUBE_OF(st), lease, e);

    observe_renewal(KUBE_OF(st), started, rc, true);
    return rc;
}

/* Read the Lease; renew it when it is still ours and live. */
static int
lease_keepalive(struct store_kube *s, int64_t lease, struct err *e)
{
    double now = store__kube_now();
    const cJSON *ttl;
    cJSON *l;
    int rc;

    if (s->holder[0] == '\0')
        return no_holder(e);
    if (get_lease(s, STORE_KUBE_LEASE_PREFIX, s->holder, &l, e) == -1)
        return -1; /* gone: ERR_NOTFOUND, the controller's lease is lost */
    /* expired (by this host's clock): the other controllers may already
     * have taken its claims, so it is not renewed but lost */
    if (!store__kube_lease_live(l, s->holder, lease, now)) {
        cJSON_Delete(l);
        return err_set(e, ERR_NOTFOUND,
                       "Lease %s/%s%s of term %lld has expired",
                       s->cfg.namespace, STORE_KUBE_LEASE_PREFIX, s->holder,
                       (long long)lease);
    }
    ttl = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(l, "spec"), "leaseDurationSeconds");
    rc = store__kube_lease_hold(l, s->holder, (int)ttl->valuedouble, lease, now,
                                false, e);
    if (rc == 0)
        rc = write_lease(s, STORE_KUBE_LEASE_PREFIX, s->holder, l, false, e);
    if (rc == -1) /* 409: fenced since the read, lost */
        store__kube_renewal_refused(s, e);
    cJSON_Delete(l);
    return rc;
}

/* Whether who holds a claim taken under term: its Lease has that term and
 * has not expired. -1 when the API server did not say. */
static int
holder_live(struct store_kube *s, const char *who, int64_t term, bool *live,
            struct err *e)
{
    cJSON *l;

    *live = false;
    if (!s->check_holders) /* the negative control: every claim free */
        return 0;
    if (get_lease(s, STORE_KUBE_LEASE_PREFIX, who, &l, e) == -1)
        return e->code == ERR_NOTFOUND ? 0 : -1;
    *live = store__kube_lease_live(l, who, term, store__kube_now());
    cJSON_Delete(l);
    return 0;
}

static int
claim_holder(struct store_kube *s, const char *name, char *holder, size_t size,
             struct err *e)
{
    cJSON *c;
    const char *who;
    int64_t term;
    bool live = false;
    int rc = 0;

    if (!s->check_holders)
        return err_set(e, ERR_NOTFOUND, "claim checks are off (test hook)");
    if (get_lease(s, STORE_KUBE_CLAIM_PREFIX, name, &c, e) == -1)
        return -1;
    who = store__kube_claim_holder_of(c, &term);
    if (who != NULL)
        rc = holder_live(s, who, term, &live, e);
    if (rc == 0 && live)
        snprintf(holder, size, "%s", who);
    else if (rc == 0)
        rc = err_set(e, ERR_NOTFOUND, "nobody holds %s", name);
    cJSON_Delete(c);
    return rc;
}

/* Blocking: the controller's claim gate asks at each pass of an
 * invocation it has not claimed (no informer of the Leases yet), and the
 * metrics show the loop waited for it (operation claim_holder). */
int
store__kube_claim_holder(struct store *st, const char *name, char *holder,
                         size_t size, struct err *e)
{
    double started = store__kube_now();
    int rc = claim_holder(KUBE_OF(st), name, holder, size, e);

    /* nobody holds it: an answer, not a failed request (the test hook's
     * unchecked holders ask nothing) */
    if (KUBE_OF(st)->check_holders)
        store__kube_observe(KUBE_OF(st), "claim_holder", started,
                            rc == 0 || e->code == ERR_NOTFOUND ? 0 : -1, true);
    return rc;
}

/* who's Lease of term has expired: before one of its claims is taken,
 * the Lease is fenced (holderIdentity "", a PUT with the resourceVersion
 * read), so a renewal of who's still on its way fails with 409 and its
 * controller learns it lost the Lease (the API server does not check
 * expiry itself, as etcd does); a renewal that landed first makes this
 * PUT fail instead, and the claim is not taken. */
static int
fence(struct store_kube *s, const char *who, int64_t term, struct err *e)
{
    cJSON *l;
    int rc;

    if (get_lease(s, STORE_KUBE_LEASE_PREFIX, who, &l, e) == -1)
        return e->code == ERR_NOTFOUND ? 0 : -1;
    rc = store__kube_fence_lease(l, who, term, store__kube_now(), e);
    if (rc == 1)
        rc = write_lease(s, STORE_KUBE_LEASE_PREFIX, who, l, false, e);
    cJSON_Delete(l);
    return rc;
}

/* A new claim Lease, owned by its invocation when that can be read. */
static cJSON *
new_claim(struct store_kube *s, const char *name, struct err *e)
{
    char lname[256];
    cJSON *c, *inv = NULL;
    const char *uid = NULL;
    struct err ignored;

    snprintf(lname, sizeof(lname), "%s%s", STORE_KUBE_CLAIM_PREFIX, name);
    if ((c = store__kube_lease_new(lname)) == NULL) {
        err_set(e, ERR_NOMEM, "out of memory");
        return NULL;
    }
    if (store__kube_get_object(s, name, &inv, &ignored) == 0)
        uid = store__kube_str(cJSON_GetObjectItemCaseSensitive(inv, "metadata"),
                              "uid", NULL);
    if (store__kube_claim_owner(c, name, uid, e) == -1) {
        cJSON_Delete(c);
        c = NULL;
    }
    cJSON_Delete(inv);
    return c;
}

/* who's Lease (*out NULL: none, or the holders are not checked). */
static int
holder_lease(struct store_kube *s, const char *who, cJSON **out, struct err *e)
{
    *out = NULL;
    if (who == NULL || !s->check_holders)
        return 0;
    if (get_lease(s, STORE_KUBE_LEASE_PREFIX, who, out, e) == -1)
        return e->code == ERR_NOTFOUND ? 0 : -1;
    return 0;
}

/* store_claim() telling whether nobody held name before (*was_free). */
static int
claim(struct store_kube *s, const char *name, const char *holder, int64_t lease,
      bool *was_free, struct err *e)
{
    cJSON *c = NULL, *hl = NULL;
    const char *who;
    int64_t term = 0;
    bool create = false;
    int rc = -1;

    *was_free = false;
    if (store__kube_own_fresh(s, lease, e) == -1)
        return -1; /* it may expire before this claim lands */
    if (get_lease(s, STORE_KUBE_CLAIM_PREFIX, name, &c, e) == -1) {
        if (e->code != ERR_NOTFOUND)
            return -1;
        create = true;
        if ((c = new_claim(s, name, e)) == NULL)
            return -1;
    }
    who = create ? NULL : store__kube_claim_holder_of(c, &term);
    if (holder_lease(s, who, &hl, e) == -1)
        goto out;
    switch (store__kube_claim_verdict(hl, who, term, holder, s->check_holders,
                                      store__kube_now(), was_free)) {
    case STORE_KUBE_CLAIM_HELD:
        err_set(e, ERR_CONFLICT, "%s is claimed by controller %s", name, who);
        goto out;
    case STORE_KUBE_CLAIM_FENCE: /* read again: the last word before ours */
        if (fence(s, who, term, e) == -1)
            goto out;
        break;
    case STORE_KUBE_CLAIM_TAKE:
        break;
    }
    rc = store__kube_claim_set(c, holder, lease, store__kube_now(), e);
    if (rc == 0)
        rc = write_lease(s, STORE_KUBE_CLAIM_PREFIX, name, c, create, e);
    if (rc == 0) /* the status the claimant acts on: not older than this */
        store__kube_claimed_read(s, name);
    if (rc == -1 && e->code == ERR_CONFLICT) /* another claim won the race */
        err_prefix(e, "%s: claimed by another controller meanwhile: ", name);
out:
    cJSON_Delete(hl);
    cJSON_Delete(c);
    return rc;
}

int
store__kube_claim(struct store *st, const char *name, const char *holder,
                  int64_t lease, struct err *e)
{
    bool was_free;

    return claim(KUBE_OF(st), name, holder, lease, &was_free, e);
}

int
store__kube_release(struct store *st, const char *name, int64_t lease,
                    struct err *e)
{
    struct store_kube *s = KUBE_OF(st);
    cJSON *c;
    int rc = 0;

    if (get_lease(s, STORE_KUBE_CLAIM_PREFIX, name, &c, e) == -1)
        return e->code == ERR_NOTFOUND ? 0 : -1;
    if (store__kube_claim_ours(c, s->holder, lease) &&
        (rc = store__kube_claim_set(c, NULL, 0, 0, e)) == 0)
        rc = write_lease(s, STORE_KUBE_CLAIM_PREFIX, name, c, false, e);
    cJSON_Delete(c);
    if (rc == -1 && e->code == ERR_CONFLICT)
        rc = 0; /* changed meanwhile: not ours to release any more */
    return rc;
}

/* The keep-alive sent without blocking answered. */
struct renewal {
    store_done_fn *done;
    void *arg;
    double started;
};

static void
renewed(struct store_kube *s, void *arg, int rc, const cJSON *ans,
        const struct err *e)
{
    struct renewal r = *(struct renewal *)arg;
    struct err mine = { 0 };

    free(arg);
    if (s->closing)
        return;
    observe_renewal(s, r.started, rc, false);
    cJSON_Delete(s->own);
    s->own = rc == 0 ? cJSON_Duplicate(ans, true) : NULL;
    if (rc == 0)
        store__kube_own_renewed(s, ans);
    if (rc == -1) {
        mine = *e;
        /* 409: written by someone else meanwhile (a fence): lost now,
         * not one renewal later */
        store__kube_renewal_refused(s, &mine);
    }
    r.done(r.arg, rc, &mine);
}

int
store__kube_lease_keepalive_async(struct store *st, int64_t lease,
                                  store_done_fn *done, void *arg, struct err *e)
{
    struct store_kube *s = KUBE_OF(st);
    const cJSON *ttl = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(s->own, "spec"),
        "leaseDurationSeconds");
    struct renewal *r;
    char path[512];
    cJSON *l;
    int rc;

    /* nothing written yet, or expired by now: the blocking way reads the
     * Lease and says so (ERR_INVALID: store.c falls back to it) */
    if (s->own == NULL || !cJSON_IsNumber(ttl) || s->holder[0] == '\0' ||
        !store__kube_lease_live(s->own, s->holder, lease, store__kube_now()))
        return err_set(e, ERR_INVALID, "renewal needs a read first");
    if (store__kube_lease_path(s, path, sizeof(path), STORE_KUBE_LEASE_PREFIX,
                               s->holder, e) == -1)
        return -1;
    if ((l = cJSON_Duplicate(s->own, true)) == NULL ||
        (r = calloc(1, sizeof(*r))) == NULL) {
        cJSON_Delete(l);
        return err_set(e, ERR_NOMEM, "out of memory");
    }
    r->done = done;
    r->arg = arg;
    r->started = store__kube_now();
    rc = store__kube_lease_hold(l, s->holder, (int)ttl->valuedouble, lease,
                                store__kube_now(), false, e);
    if (rc ==
        0) /* its resourceVersion, the one we wrote, is the precondition */
        rc = store__kube_send_async(s, "PUT", path, l, "renewing the Lease",
                                    renewed, r, e);
    cJSON_Delete(l);
    if (rc == -1)
        free(r);
    return rc;
}

/* A grant sent without blocking: the Lease read, then written. */
struct granting {
    int ttl_s;
    store_lease_fn *done;
    void *arg;
    double started;
    int64_t term;
};

static void
granted(struct store_kube *s, struct granting *g, int rc, int64_t term,
        const struct err *e)
{
    if (!s->closing) {
        store__kube_observe(s, "lease_grant", g->started, rc, false);
        g->done(g->arg, rc, term, e);
    }
    free(g);
}

static void
grant_written(struct store_kube *s, void *arg, int rc, const cJSON *ans,
              const struct err *e)
{
    struct granting *g = arg;

    if (!s->closing) { /* the next renewal PUTs it without reading it */
        cJSON_Delete(s->own);
        s->own = rc == 0 ? cJSON_Duplicate(ans, true) : NULL;
    }
    granted(s, g, rc, g->term, e);
}

static void
grant_read(struct store_kube *s, void *arg, int rc, const cJSON *ans,
           const struct err *e)
{
    struct granting *g = arg;
    struct err mine = { 0 };
    char path[512];
    bool create;
    cJSON *l = NULL;

    if (s->closing || (rc == -1 && e->code != ERR_NOTFOUND)) {
        granted(s, g, -1, 0, e);
        return;
    }
    l = store__kube_grant_next(rc == 0 ? ans : NULL, s->holder, g->ttl_s,
                               store__kube_now(), &g->term, &create, &mine);
    if (l == NULL ||
        store__kube_lease_path(s, path, sizeof(path),
                               create ? NULL : STORE_KUBE_LEASE_PREFIX,
                               s->holder, &mine) == -1 ||
        store__kube_send_async(s, create ? "POST" : "PUT", path, l,
                               "granting the Lease", grant_written, g,
                               &mine) == -1)
        granted(s, g, -1, 0, &mine);
    cJSON_Delete(l);
}

int
store__kube_lease_grant_async(struct store *st, int ttl_s, store_lease_fn *done,
                              void *arg, struct err *e)
{
    struct store_kube *s = KUBE_OF(st);
    struct granting *g;
    char path[512];

    if (s->holder[0] == '\0')
        return no_holder(e);
    if (store__kube_blocking_asked(s, e) ||
        store__kube_lease_path(s, path, sizeof(path), STORE_KUBE_LEASE_PREFIX,
                               s->holder, e) == -1)
        return -1;
    if ((g = calloc(1, sizeof(*g))) == NULL)
        return err_set(e, ERR_NOMEM, "out of memory");
    *g = (struct granting){
        .ttl_s = ttl_s, .done = done, .arg = arg, .started = store__kube_now()
    };
    if (store__kube_send_async(s, "GET", path, NULL, "reading the Lease",
                               grant_read, g, e) == -1) {
        free(g);
        return -1;
    }
    return 0;
}

void
store__kube_claim_many(struct store *st, const char *holder, int64_t lease,
                       struct store_claim_item *it, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        double started = store__kube_now();

        if (it[i].rc == -1)
            continue; /* not a valid name (store_claim_many said so) */
        it[i].rc = it[i].release
                       ? store__kube_release(st, it[i].name, lease, &it[i].err)
                       : claim(KUBE_OF(st), it[i].name, holder, lease,
                               &it[i].was_free, &it[i].err);
        /* the loop waited for it (store_claim_many_async's fallback) */
        store__kube_observe(KUBE_OF(st), it[i].release ? "release" : "claim",
                            started, it[i].rc, true);
    }
}

void
store_kube_set_holder(struct store *st, const char *holder, bool check_holders)
{
    struct store_kube *s = KUBE_OF(st);

    if (strcmp(st->backend, "kube") != 0)
        return;
    snprintf(s->holder, sizeof(s->holder), "%s", holder);
    s->check_holders = check_holders;
}
