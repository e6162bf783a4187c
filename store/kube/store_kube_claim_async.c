/* store_kube_claim_async.c - store_claim_many_async() on the API server
 * (docs/store-kube.md "Leases and claims"): the same reads and writes as
 * the blocking claim and release of store_kube_lease.c, with the same
 * preconditions (each write a PUT of the object as read, or a
 * create-only POST), sent one after another on the watch's multi handle
 * (store_kube_async.c) so the controller's loop does not wait for them.
 * The items go in order, one request out at a time: a name's claim and
 * release keep their order, and the API server gets no flood. Steps of
 * a claim: read the claim; if none, read its invocation (the owner's
 * uid) and create it; if held, read the holder's Lease, and when it has
 * expired fence it (that read's resourceVersion the precondition: a
 * renewal that landed since makes the fence, and the claim, fail), then
 * write the claim. A release reads the claim and frees it when it is
 * ours of this term. */
#include "store_kube_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KUBE_OF(s) ((struct store_kube *)(s))

struct claims {
    struct store_claim_item *it;
    size_t n, i; /* i: the item under way */
    char holder[64];
    int64_t lease;
    store_done_fn *done;
    void *arg;
    double started; /* of item i */
    cJSON *claim;   /* item i's, as read (or new: create) */
    bool create;
};

static void next_item(struct store_kube *s, struct claims *b);

static void
claims_free(struct claims *b)
{
    cJSON_Delete(b->claim);
    free(b);
}

/* The store closes (an answer dropped): nobody to tell, b freed. */
static bool
store_closing(struct store_kube *s, struct claims *b)
{
    if (s->closing)
        claims_free(b);
    return s->closing;
}

/* Item i is done with rc (e when -1): on to the next one. */
static void
item_done(struct store_kube *s, struct claims *b, int rc, const struct err *e)
{
    struct store_claim_item *it = &b->it[b->i];

    it->rc = rc;
    if (rc == -1)
        it->err = *e;
    cJSON_Delete(b->claim);
    b->claim = NULL;
    store__kube_observe(s, it->release ? "release" : "claim", b->started, rc,
                        false);
    b->i++;
    next_item(s, b);
}

/* Send one step of item i; when it cannot be sent, item i fails. */
static void
send_step(struct store_kube *s, struct claims *b, const char *method,
          const char *prefix, const char *name, const cJSON *body,
          const char *what, store_kube_answer_fn *answered)
{
    char path[512];
    struct err e = { 0 };

    if (store__kube_lease_path(s, path, sizeof(path), prefix, name, &e) == -1 ||
        store__kube_send_async(s, method, path, body, what, answered, b, &e) ==
            -1)
        item_done(s, b, -1, &e);
}

/* The invocation whose claim item i won, read into the cache (or
 * forgotten there): what its new holder does next needs a status at
 * least as new as the claim (store__kube_claimed_read). */
static void
claimed_read(struct store_kube *s, void *arg, int rc, const cJSON *ans,
             const struct err *e)
{
    struct claims *b = arg;

    (void)e;
    if (store_closing(s, b))
        return;
    store__kube_claimed_take(s, b->it[b->i].name, rc == 0 ? ans : NULL);
    item_done(s, b, 0, NULL);
}

static void
read_claimed(struct store_kube *s, struct claims *b)
{
    const char *name = b->it[b->i].name;
    struct err e = { 0 };
    char path[512];

    if (store__kube_path(path, sizeof(path), name, NULL, &e) == -1 ||
        store__kube_send_async(s, "GET", path, NULL, "reading an invocation",
                               claimed_read, b, &e) == -1)
        claimed_read(s, b, -1, NULL, &e);
}

static void
written(struct store_kube *s, void *arg, int rc, const cJSON *ans,
        const struct err *e)
{
    struct claims *b = arg;
    struct store_claim_item *it;
    struct err mine = { 0 };

    (void)ans;
    if (store_closing(s, b))
        return;
    it = &b->it[b->i];
    if (rc == 0 && !it->release) {
        read_claimed(s, b);
        return;
    }
    if (rc == 0) {
        item_done(s, b, 0, NULL);
        return;
    }
    if (e->code == ERR_CONFLICT && it->release) {
        item_done(s, b, 0, NULL); /* changed meanwhile: not ours any more */
        return;
    }
    mine = *e;
    if (mine.code == ERR_CONFLICT) /* another claim won the race */
        err_prefix(&mine,
                   "%s: claimed by another controller meanwhile: ", it->name);
    item_done(s, b, -1, &mine);
}

/* Write item i's claim, taken by the holder (released for a release). */
static void
write_claim(struct store_kube *s, struct claims *b)
{
    struct store_claim_item *it = &b->it[b->i];
    struct err e = { 0 };

    if (store__kube_claim_set(b->claim, it->release ? NULL : b->holder,
                              b->lease, store__kube_now(), &e) == -1) {
        item_done(s, b, -1, &e);
        return;
    }
    send_step(s, b, b->create ? "POST" : "PUT",
              b->create ? NULL : STORE_KUBE_CLAIM_PREFIX, it->name, b->claim,
              it->release ? "releasing a claim" : "writing a claim", written);
}

static void
fenced(struct store_kube *s, void *arg, int rc, const cJSON *ans,
       const struct err *e)
{
    struct claims *b = arg;
    struct err mine;

    (void)ans;
    if (store_closing(s, b))
        return;
    if (rc == 0 || e->code == ERR_NOTFOUND) { /* gone: nothing to fence */
        write_claim(s, b);
        return;
    }
    mine = *e;
    if (mine.code == ERR_CONFLICT) /* renewed since we read it */
        err_prefix(&mine,
                   "%s: its holder renewed its Lease: ", b->it[b->i].name);
    item_done(s, b, -1, &mine);
}

/* The holder's Lease as read (NULL: none): take, fence or give up. */
static void
decide(struct store_kube *s, struct claims *b, const cJSON *holder_lease)
{
    struct store_claim_item *it = &b->it[b->i];
    int64_t term = 0;
    const char *who =
        b->create ? NULL : store__kube_claim_holder_of(b->claim, &term);
    struct err e = { 0 };
    cJSON *fence;
    int rc;

    switch (store__kube_claim_verdict(holder_lease, who, term, b->holder,
                                      s->check_holders, store__kube_now(),
                                      &it->was_free)) {
    case STORE_KUBE_CLAIM_HELD:
        err_set(&e, ERR_CONFLICT, "%s is claimed by controller %s", it->name,
                who);
        item_done(s, b, -1, &e);
        return;
    case STORE_KUBE_CLAIM_TAKE:
        write_claim(s, b);
        return;
    case STORE_KUBE_CLAIM_FENCE:
        break;
    }
    if (holder_lease == NULL) { /* no Lease left to fence */
        write_claim(s, b);
        return;
    }
    if ((fence = cJSON_Duplicate(holder_lease, true)) == NULL) {
        err_set(&e, ERR_NOMEM, "out of memory");
        item_done(s, b, -1, &e);
        return;
    }
    rc = store__kube_fence_lease(fence, who, term, store__kube_now(), &e);
    if (rc == -1)
        item_done(s, b, -1, &e);
    else if (rc == 0)
        write_claim(s, b);
    else
        send_step(s, b, "PUT", STORE_KUBE_LEASE_PREFIX, who, fence,
                  "fencing an expired holder's Lease", fenced);
    cJSON_Delete(fence);
}

static void
holder_read(struct store_kube *s, void *arg, int rc, const cJSON *ans,
            const struct err *e)
{
    struct claims *b = arg;

    if (store_closing(s, b))
        return;
    if (rc == -1 && e->code != ERR_NOTFOUND)
        item_done(s, b, -1, e);
    else
        decide(s, b, rc == 0 ? ans : NULL);
}

/* The invocation read (its uid: the new claim's owner), or not. */
static void
owner_read(struct store_kube *s, void *arg, int rc, const cJSON *ans,
           const struct err *e)
{
    struct claims *b = arg;
    const char *name, *uid;
    char lname[256];
    struct err mine = { 0 };

    (void)e; /* unreadable: a claim without an owner, as the blocking way */
    if (store_closing(s, b))
        return;
    name = b->it[b->i].name;
    uid =
        rc == 0
            ? store__kube_str(cJSON_GetObjectItemCaseSensitive(ans, "metadata"),
                              "uid", NULL)
            : NULL;
    snprintf(lname, sizeof(lname), "%s%s", STORE_KUBE_CLAIM_PREFIX, name);
    if ((b->claim = store__kube_lease_new(lname)) == NULL) {
        err_set(&mine, ERR_NOMEM, "out of memory");
        item_done(s, b, -1, &mine);
    } else if (store__kube_claim_owner(b->claim, name, uid, &mine) == -1)
        item_done(s, b, -1, &mine);
    else
        decide(s, b, NULL);
}

static void
claim_read(struct store_kube *s, void *arg, int rc, const cJSON *ans,
           const struct err *e)
{
    struct claims *b = arg;
    struct store_claim_item *it;
    struct err mine = { 0 };
    char path[512];
    int64_t term;
    const char *who;

    if (store_closing(s, b))
        return;
    it = &b->it[b->i];
    if (rc == -1 && (e->code != ERR_NOTFOUND || it->release)) {
        /* a release of no claim: nothing to free */
        item_done(s, b, e->code == ERR_NOTFOUND ? 0 : -1, e);
        return;
    }
    if (rc == -1) { /* none yet: created, owned by its invocation */
        b->create = true;
        if (store__kube_path(path, sizeof(path), it->name, NULL, &mine) == -1 ||
            store__kube_send_async(s, "GET", path, NULL,
                                   "reading an invocation", owner_read, b,
                                   &mine) == -1)
            owner_read(s, b, -1, NULL, &mine);
        return;
    }
    if ((b->claim = cJSON_Duplicate(ans, true)) == NULL) {
        err_set(&mine, ERR_NOMEM, "out of memory");
        item_done(s, b, -1, &mine);
        return;
    }
    if (it->release) {
        if (store__kube_claim_ours(b->claim, s->holder, b->lease))
            write_claim(s, b);
        else
            item_done(s, b, 0, NULL);
        return;
    }
    who = store__kube_claim_holder_of(b->claim, &term);
    if (who == NULL || !s->check_holders)
        decide(s, b, NULL);
    else
        send_step(s, b, "GET", STORE_KUBE_LEASE_PREFIX, who, NULL,
                  "reading a claim holder's Lease", holder_read);
}

/* Start item i, or answer the group when every item is done. */
static void
next_item(struct store_kube *s, struct claims *b)
{
    struct err e = { 0 };

    while (b->i < b->n && b->it[b->i].rc == -1)
        b->i++; /* not a valid name (store_claim_many_async said so) */
    if (b->i == b->n) {
        b->done(b->arg, 0, NULL);
        claims_free(b);
        return;
    }
    b->started = store__kube_now();
    b->create = false;
    /* our Lease may expire before this claim lands (store_kube_own.c) */
    if (!b->it[b->i].release && store__kube_own_fresh(s, b->lease, &e) == -1) {
        item_done(s, b, -1, &e);
        return;
    }
    send_step(s, b, "GET", STORE_KUBE_CLAIM_PREFIX, b->it[b->i].name, NULL,
              "reading a claim", claim_read);
}

int
store__kube_claim_many_async(struct store *st, const char *holder,
                             int64_t lease, struct store_claim_item *it,
                             size_t n, store_done_fn *done, void *arg,
                             struct err *e)
{
    struct store_kube *s = KUBE_OF(st);
    struct claims *b;
    char path[512];

    size_t first = 0;

    while (first < n && it[first].rc == -1)
        first++; /* not a valid name (store_claim_many_async said so) */
    if (s->holder[0] == '\0' || first == n)
        return err_set(e, ERR_INVALID, "no controller ID or no claim");
    if (store__kube_blocking_asked(s, e) ||
        store__kube_lease_path(s, path, sizeof(path), STORE_KUBE_CLAIM_PREFIX,
                               it[first].name, e) == -1)
        return -1;
    if ((b = calloc(1, sizeof(*b))) == NULL)
        return err_set(e, ERR_NOMEM, "out of memory");
    *b = (struct claims){ .it = it,
                          .n = n,
                          .i = first,
                          .lease = lease,
                          .done = done,
                          .arg = arg,
                          .started = store__kube_now() };
    snprintf(b->holder, sizeof(b->holder), "%s", holder);
    /* the first request here: when it cannot go, the blocking way does */
    if (store__kube_send_async(s, "GET", path, NULL, "reading a claim",
                               claim_read, b, e) == -1) {
        claims_free(b);
        return -1;
    }
    return 0;
}
