/* try_claim.c - scale-out: which controller works on which invocation
 * (docs/design.md "Scale-out", docs/store-etcd.md "Claims and leases").
 *
 * On a store with claims (etcd) the controller holds one lease, renewed by
 * a libev timer every third of --lease-ttl, and works on an invocation
 * only while its claim key is bound to that lease. The rules, applied at
 * the start of every pass (try_claim_gate):
 *   - An unclaimed invocation's status is re-read from the store: another
 *     controller may have written it; nothing is written without a claim.
 *   - New or Pending invocations are claimed first come, first served, up
 *     to --max-running unfinished ones per controller.
 *   - Preparing or Running with no claim means its controller's lease
 *     expired: the first controller to claim it marks it Failed, stopReason
 *     node-lost, condition NodeLost naming the lost controller, and never
 *     reruns it (the attempt ID stays in usedAttempts). The Docker objects
 *     stay recorded in the status: they carry the lost controller's
 *     managed-by label and are its to remove (it claims the invocation back
 *     and cleans up when it runs again).
 *   - A controller told by etcd that its lease is gone stops its own
 *     unfinished attempts the same way (fail closed) and gets a new lease.
 * The claim is released once the attempt is terminal and cleaned up, or
 * the invocation is forgotten. The directory store has no claims: this
 * file then does nothing and one controller owns everything, as before.
 *
 * Claims and releases are not sent one by one from the pass that wants
 * them: they wait in c->claims, and the loop iteration's group write
 * (try_write.c, before the loop waits, after the statuses) sends the
 * oldest 64 as one etcd txn without blocking (store_claim_many_async,
 * answered from the watch's read; the next 64 after that answer), so a
 * bulk of 1,000 new specs costs 16 requests, none of them waited for. A
 * claim won queues the invocation's next pass, which acts on it
 * (claimed_now); a release goes after the status that ended the work, in
 * the same group or a later one. An invocation has at most one request
 * out at a time.
 */
#include "try_claim.h"

#include <stdlib.h>
#include <string.h>

#include "try_attempt.h"
#include "inv_queue.h"
#include "ctl_record.h"
#include "inv_status.h"
#include "inv_stop.h"
#include "log.h"
#include "rc_credential.h"

/* One group on its way to etcd: the requests and the store's items. */
struct try_claim_batch {
    struct ctl *c;
    int64_t lease; /* the lease the claims were bound to */
    size_t n;
    struct try_claim_req *group[CTL_CLAIM_GROUP];
    struct store_claim_item items[CTL_CLAIM_GROUP];
};
_Static_assert(CTL_CLAIM_GROUP <= STORE_CLAIMS_ASYNC_MAX,
               "a group is one store_claim_many_async() call");

static void
batch_free(struct try_claim_batch *b)
{
    for (size_t i = 0; i < b->n; i++)
        free(b->group[i]);
    free(b);
}

void
try_store_trouble(struct ctl *c, const struct err *e)
{
    if (e->code == ERR_UNAVAIL || e->code == ERR_TIMEOUT) {
        if (c->store_error[0] == '\0')
            log_kv(LOG_WARN, "etcd unreachable", "error", e->msg, NULL);
        snprintf(c->store_error, sizeof(c->store_error), "%s", e->msg);
    }
}

static void
store_fine(struct ctl *c)
{
    if (c->store_error[0] != '\0')
        log_kv(LOG_INFO, "etcd reachable again", NULL);
    c->store_error[0] = '\0';
}

/* Re-read the status another controller may have written. */
static bool
refresh_status(struct ctl_inv *inv)
{
    struct err e;

    if (inv_status_load(inv, &e) == -1) {
        try_store_trouble(inv->ctl, &e);
        return false;
    }
    inv->rec.dirty = false;
    return true;
}

static unsigned
unfinished_claims(const struct ctl *c)
{
    unsigned n = 0;

    for (const struct ctl_inv *i = c->invs; i != NULL; i = i->next)
        if ((i->claim.hold != CTL_CLAIM_UNHELD ||
             i->claim.op == CTL_CLAIM_TAKE) &&
            (!i->rec.present || !ctl_phase_terminal(i->rec.phase)))
            n++;
    return n;
}

static bool
cleaned_up(const struct ctl_inv *inv)
{
    return inv->rec.cleaned_up;
}

/* A finished attempt needs a claim only for work: removing its objects
 * (ours only), forgetting a deleted name, or starting a new attempt ID. */
static bool
terminal_has_work(const struct ctl_inv *inv, bool ours)
{
    const char *attempt = inv->rec.attempt;

    if (inv->deleted)
        return true;
    if (!cleaned_up(inv))
        return ours;
    return inv->spec != NULL && !inv->spec->cancel &&
           (attempt == NULL || strcmp(attempt, inv->spec->attempt) != 0);
}

/* The attempt's controller lost its lease: Failed/NodeLost, never rerun. */
static void
mark_node_lost(struct ctl_inv *inv, const char *lost)
{
    const char *self = inv->ctl->opts.controller_id;
    const char *attempt = inv->rec.attempt;
    char msg[400];

    if (strcmp(lost, self) == 0)
        snprintf(msg, sizeof(msg),
                 "controller %s lost its etcd lease while attempt %s was %s; "
                 "it stops its agent (fail closed); the attempt is not run "
                 "again",
                 lost, attempt ? attempt : "?", ctl_phase_name(inv->rec.phase));
    else
        snprintf(msg, sizeof(msg),
                 "controller %s lost its etcd lease while attempt %s was %s "
                 "(seen by controller %s); the attempt is not run again",
                 lost, attempt ? attempt : "?", ctl_phase_name(inv->rec.phase),
                 self);
    ctl_record_set_stop(&inv->rec, CTL_STOP_NODE_LOST);
    inv_status_set_condition(inv, "Ready", false, "NodeLost", msg);
    inv_status_set_condition(inv, "NodeLost", true, "LeaseExpired", msg);
    inv_event(inv, true, "NodeLost", "%s", msg);
    inv_stop_detach(inv);
    inv_status_set_phase(inv, CTL_FAILED);
    ev_timer_stop(inv->ctl->loop, &inv->deadline);
    log_kv(LOG_WARN, "node lost", "invocation", inv->name, "controller", lost,
           NULL);
}

/* --- the group's requests --------------------------------------------- */

struct try_claim_req {
    struct try_claim_req *next;
    struct ctl_inv *inv; /* NULL once forgotten (a release still goes) */
    bool release;
    char name[STORE_NAME_MAX + 1];
};

/* Queue a claim or release of inv's name for the group. false: out of
 * memory (nothing queued). */
static bool
queue_req(struct ctl *c, struct ctl_inv *inv, const char *name, bool release)
{
    struct try_claim_req *r = calloc(1, sizeof(*r));

    if (r == NULL)
        return false;
    r->inv = inv;
    r->release = release;
    snprintf(r->name, sizeof(r->name), "%s", name);
    if (c->claims == NULL)
        c->claims_tail = &c->claims;
    *c->claims_tail = r;
    c->claims_tail = &r->next;
    if (inv != NULL)
        inv->claim.op = release ? CTL_CLAIM_RELEASE : CTL_CLAIM_TAKE;
    return true;
}

static void
release_name(struct ctl *c, struct ctl_inv *inv, const char *name)
{
    struct err e;

    if (queue_req(c, inv, name, true))
        return;
    if (store_release(c->store, name, c->lease, &e) == -1)
        try_store_trouble(c, &e); /* the lease's expiry frees it */
}

static void
release(struct ctl_inv *inv)
{
    inv->claim.hold = CTL_CLAIM_UNHELD;
    release_name(inv->ctl, inv, inv->name);
}

/* Another controller's attempt, marked NodeLost: its status goes with
 * the loop's group write (not the blocking way: etcd may be slow right
 * now), the claim after it is written (try_claim_after_pass). A write
 * that failed is queued again a second later. */
static void
lost_status_send(struct ctl_inv *inv)
{
    if (inv->write.queued || inv->write.sent)
        return; /* its answer comes */
    if (inv->write.failed != NULL) {
        free(inv->write.failed);
        inv->write.failed = NULL;
        inv_kick(inv, 1.0);
        return;
    }
    if (inv_status_pending(inv)) {
        struct err e;

        if (inv->ctl->join_group != NULL)
            inv->ctl->join_group(inv); /* grouping: it only queues */
        else if (inv_status_flush(inv, &e) == -1) /* a store without */
            try_store_trouble(inv->ctl, &e);
        else
            lost_status_send(inv);
        return;
    }
    inv->claim.release_after_write = false;
    release(inv);
}

/* We hold the claim now: act on what the status says. false when the
 * pass has nothing to do (another controller's attempt marked lost). */
static bool
claimed_now(struct ctl_inv *inv, bool was_free)
{
    const char *self = inv->ctl->opts.controller_id;
    const char *owner;
    enum ctl_phase phase;

    if (!refresh_status(inv)) {
        release(inv);
        return false;
    }
    try_inv_reset_attempt(inv, CTL_RESET_CLAIMED);
    if (!inv->rec.present)
        return true;
    owner = inv->rec.controller;
    phase = inv->rec.phase;
    if (was_free && (phase == CTL_PREPARING || phase == CTL_RUNNING)) {
        char lost[CTL_ID_MAX + 1];

        snprintf(lost, sizeof(lost), "%s", owner ? owner : "?");
        mark_node_lost(inv, lost);
        if (owner == NULL || strcmp(lost, self) != 0) {
            /* Its objects are the lost controller's: leave them recorded
             * for it and let the invocation go, once that is written. */
            inv->claim.release_after_write = true;
            lost_status_send(inv);
            return false;
        }
        return true;
    }
    if (ctl_phase_terminal(phase) && !cleaned_up(inv) && owner != NULL &&
        strcmp(owner, self) != 0) {
        /* deleted or a new attempt: the lost controller's objects are its
         * own to remove (its garbage collector, by label) */
        inv_event(inv, true, "ObjectsLeft",
                  "Docker objects of attempt %s stay with controller %s, "
                  "which removes them when it runs again",
                  inv->rec.attempt ? inv->rec.attempt : "?", owner);
        ctl_record_drop_all_roles(&inv->rec);
    }
    return true;
}

bool
try_claim_gate(struct ctl_inv *inv)
{
    struct ctl *c = inv->ctl;
    const char *self = c->opts.controller_id, *owner;
    char holder[CTL_ID_MAX + 1];
    enum ctl_phase phase;
    bool ours;
    struct err e;

    if (!store_has_claims(c->store) || inv->claim.lease_lost)
        return true; /* lease_lost: stop and clean our own (fail closed) */
    if (inv->claim.hold != CTL_CLAIM_UNHELD && inv->claim.release_after_write) {
        lost_status_send(inv); /* nothing else of it is ours to do */
        return false;
    }
    if (inv->claim.hold != CTL_CLAIM_UNHELD) {
        if (inv->claim.hold != CTL_CLAIM_WON)
            return true;
        inv->claim.hold = CTL_CLAIM_HELD; /* won in the last group: act on it */
        return claimed_now(inv, inv->claim.was_free);
    }
    if (inv->claim.op != CTL_CLAIM_NONE) {
        inv->claim.waiting = true; /* its answer queues the pass again */
        return false;
    }
    if (c->lease == 0 || !refresh_status(inv))
        return false; /* no lease (etcd down): the timer retries */
    if (!inv->rec.present && (inv->deleted || inv->spec == NULL))
        return true; /* the pass writes nothing: forget it, or wait */
    if (store_claim_holder(c->store, inv->name, holder, sizeof(holder), &e) ==
        0) {
        if (strcmp(holder, self) != 0)
            return false; /* another controller's */
        /* ours under an older lease: the claim takes it over */
    } else if (e.code != ERR_NOTFOUND) {
        try_store_trouble(c, &e);
        return false;
    }
    owner = inv->rec.controller;
    ours = owner == NULL || strcmp(owner, self) == 0;
    phase = inv->rec.phase;
    if (ctl_phase_terminal(phase) && !terminal_has_work(inv, ours))
        return false;
    if (phase == CTL_PENDING && !inv->deleted && c->opts.max_running > 0 &&
        unfinished_claims(c) >= c->opts.max_running)
        return false; /* at --max-running: the resync asks again */
    /* out of memory: the resync asks again */
    (void)queue_req(c, inv, inv->name, false);
    return false; /* the group's answer queues the pass that acts */
}

void
try_claim_after_pass(struct ctl_inv *inv)
{
    enum ctl_phase phase;

    if (!store_has_claims(inv->ctl->store) || inv->rec.dirty ||
        inv->write.queued || inv->write.sent)
        return; /* a release follows the status that ended the work */
    phase = inv->rec.phase;
    if (inv->claim.lease_lost && ctl_phase_terminal(phase) && cleaned_up(inv))
        inv->claim.lease_lost =
            false; /* stopped and cleaned: back to the rules */
    if (inv->claim.hold == CTL_CLAIM_UNHELD || inv_in_flight(inv))
        return;
    if (inv->claim.release_after_write) { /* its NodeLost status is written */
        inv->claim.release_after_write = false;
        release(inv);
        return;
    }
    if (inv->freeing || (ctl_phase_terminal(phase) && cleaned_up(inv) &&
                         !ev_is_active(&inv->queue.kick)))
        release(inv);
}

/* etcd says our lease is gone: our claims went with it. */
static void
lease_lost(struct ctl *c)
{
    log_kv(LOG_ERROR,
           "etcd lease expired: stopping this controller's "
           "unfinished attempts (fail closed)",
           NULL);
    c->lease = 0;
    for (struct ctl_inv *i = c->invs; i != NULL; i = i->next) {
        enum ctl_phase p = i->rec.phase;
        bool fresh = i->claim.hold == CTL_CLAIM_WON;

        if (i->claim.hold == CTL_CLAIM_UNHELD)
            continue;
        i->claim.hold = CTL_CLAIM_UNHELD;
        /* won by the last group and never acted on: nothing of ours runs
         * (the status may be another controller's attempt); the next
         * claim finds the key free and claimed_now() decides */
        if (fresh)
            continue;
        if (p == CTL_PREPARING || p == CTL_RUNNING) {
            i->claim.lease_lost = true;
            mark_node_lost(i, c->opts.controller_id);
            inv_kick(i, 0);
        }
    }
}

/* etcd granted a lease (from the watch's read, inside the loop). The
 * passes the claim gate turned away for want of one go again. */
static void
on_granted(void *arg, int rc, int64_t lease, const struct err *e)
{
    struct ctl *c = arg;

    c->grant_busy = false;
    if (rc == -1) {
        try_store_trouble(c, e); /* the lease timer asks again */
        return;
    }
    c->lease = lease;
    store_fine(c);
    for (struct ctl_inv *i = c->invs; i != NULL; i = i->next)
        if (i->claim.hold == CTL_CLAIM_UNHELD &&
            i->claim.op == CTL_CLAIM_NONE && !i->deleted)
            inv_kick(i, 0);
}

/* No lease (the first, or the last one expired): get one, without
 * blocking - a grant waits on etcd like any request, and the loop must
 * not (an etcd restart held it 2.8 s when it was a blocking request). */
static void
grant(struct ctl *c)
{
    struct err e;

    if (c->grant_busy)
        return;
    c->grant_busy = true;
    if (store_lease_grant_async(c->store, (int)c->opts.lease_ttl_s,
                                on_granted, c, &e) == -1) {
        c->grant_busy = false;
        try_store_trouble(c, &e);
    }
}

/* etcd answered a keep-alive (from the watch's read, inside the loop). */
static void
on_keepalive(void *arg, int rc, const struct err *e)
{
    struct ctl *c = arg;

    c->keepalive_busy = false;
    if (c->keepalive_of != c->lease)
        return; /* about a lease already given up */
    if (rc == 0) {
        store_fine(c);
        return;
    }
    if (e->code != ERR_NOTFOUND) {
        try_store_trouble(c, e);
        return;
    }
    lease_lost(c);
    grant(c);
}

static void
on_lease_timer(struct ev_loop *loop, ev_timer *w, int revents)
{
    struct ctl *c = container_of(w, struct ctl, lease_timer);
    struct err e;

    (void)loop;
    (void)revents;
    if (c->lease == 0) {
        grant(c);
        return;
    }
    /* the last one not answered yet (curl's timeout ends it): not two */
    if (c->keepalive_busy)
        return;
    c->keepalive_busy = true;
    c->keepalive_of = c->lease;
    /* without blocking: a slow etcd must not stall the loop's other
     * watchers (Docker events, deadlines, drift) */
    if (store_lease_keepalive_async(c->store, c->lease, on_keepalive, c, &e) ==
        -1) {
        c->keepalive_busy = false;
        try_store_trouble(c, &e);
    }
}

void
try_claim_start(struct ctl *c)
{
    double every = c->opts.lease_ttl_s / 3;

    if (!store_has_claims(c->store))
        return;
    ev_timer_init(&c->lease_timer, on_lease_timer, 0., every);
    on_lease_timer(c->loop, &c->lease_timer, 0); /* the first lease now */
    ev_timer_again(c->loop, &c->lease_timer);
}

/* A request that will not be answered (the controller stops): its
 * invocation no longer waits for it; the lease's expiry frees the name. */
static void
req_dropped(struct try_claim_req *r)
{
    if (r->inv != NULL)
        r->inv->claim.op = CTL_CLAIM_NONE;
    free(r);
}

void
try_claim_stop(struct ctl *c)
{
    ev_timer_stop(c->loop, &c->lease_timer);
    /* sent and unanswered: the loop has ended, and the store drops the
     * request unanswered as it closes */
    if (c->claims_sent != NULL) {
        for (size_t i = 0; i < c->claims_sent->n; i++)
            req_dropped(c->claims_sent->group[i]);
        free(c->claims_sent);
        c->claims_sent = NULL;
    }
    while (c->claims != NULL) { /* unsent */
        struct try_claim_req *r = c->claims;

        c->claims = r->next;
        req_dropped(r);
    }
}

void
try_claim_forget(struct ctl_inv *inv)
{
    struct try_claim_batch *b = inv->ctl->claims_sent;

    for (struct try_claim_req *r = inv->ctl->claims; r != NULL; r = r->next)
        if (r->inv == inv)
            r->inv = NULL;
    for (size_t i = 0; b != NULL && i < b->n; i++)
        if (b->group[i]->inv == inv)
            b->group[i]->inv = NULL;
}

/* A claim the group won: the invocation's next pass acts on it. */
static void
claim_won(struct ctl *c, struct try_claim_req *r,
          const struct store_claim_item *it)
{
    struct ctl_inv *inv = r->inv;

    if (inv == NULL) { /* forgotten meanwhile: let it go again */
        release_name(c, NULL, r->name);
        return;
    }
    inv->claim.hold = CTL_CLAIM_WON;
    inv->claim.waiting = false;
    inv->claim.was_free = it->was_free;
    log_kv(LOG_DEBUG, "claimed", "invocation", inv->name, NULL);
    inv_kick(inv, 0);
}

static void
req_answered(struct ctl *c, struct try_claim_req *r,
             const struct store_claim_item *it)
{
    struct ctl_inv *inv = r->inv;
    bool answered = it->rc == 0 || it->err.code == ERR_CONFLICT;

    if (answered)
        store_fine(c);
    else
        try_store_trouble(c, &it->err); /* a release: the lease's expiry frees
                                       it; a claim: the resync asks again */
    if (inv != NULL)
        inv->claim.op = CTL_CLAIM_NONE;
    if (!r->release && it->rc == 0) {
        claim_won(c, r, it);
        return;
    }
    /* a pass turned away meanwhile runs now - not on an etcd that did
     * not answer, which it would only ask again at once */
    if (inv != NULL && inv->claim.waiting && answered) {
        inv->claim.waiting = false;
        inv_kick(inv, 0);
    }
}

/* The next group from the head of c->claims, unlinked into out: up to max
 * requests of distinct names. A name forgotten and seen again can have
 * two; the later one waits for the next group, so they go in order. */
static size_t
take_group(struct ctl *c, struct try_claim_req **out, size_t max)
{
    struct try_claim_req **pp = &c->claims;
    size_t n = 0;

    while (*pp != NULL && n < max) {
        struct try_claim_req *r = *pp;
        bool dup = false;

        for (size_t i = 0; i < n && !dup; i++)
            dup = strcmp(out[i]->name, r->name) == 0;
        if (dup) {
            pp = &r->next;
            continue;
        }
        *pp = r->next;
        out[n++] = r;
    }
    for (c->claims_tail = &c->claims; *c->claims_tail != NULL;
         c->claims_tail = &(*c->claims_tail)->next)
        ;
    return n;
}

/* The group's answer (every item has its rc): each request answered. */
static void
on_claims(void *arg, int rc, const struct err *e)
{
    struct try_claim_batch *b = arg;
    struct ctl *c = b->c;

    (void)rc;
    (void)e;
    if (c->claims_sent == b)
        c->claims_sent = NULL;
    for (size_t i = 0; i < b->n; i++) {
        /* The lease was lost while etcd answered: a claim won went with
         * it (lease_lost() has already let go of ours), so it is not won
         * now; the resync asks again under the new lease. */
        if (b->lease != c->lease && !b->items[i].release && b->items[i].rc == 0)
            b->items[i].rc = err_set(&b->items[i].err, ERR_NOTFOUND,
                                     "etcd lease %lld lost while claiming",
                                     (long long)b->lease);
        req_answered(c, b->group[i], &b->items[i]);
    }
    batch_free(b);
}

bool
try_claim_ready(const struct ctl *c)
{
    return c->claims != NULL && c->claims_sent == NULL;
}

void
try_claim_send(struct ctl *c)
{
    struct try_claim_batch *b;
    struct err e;

    /* one group at a time, the rest after its answer: the order of a
     * name's claim and release is kept, and etcd is not flooded */
    if (!try_claim_ready(c) || (b = calloc(1, sizeof(*b))) == NULL)
        return; /* out of memory: the next iteration tries again */
    b->c = c;
    b->lease = c->lease;
    b->n = take_group(c, b->group, CTL_CLAIM_GROUP);
    for (size_t i = 0; i < b->n; i++)
        b->items[i] =
            (struct store_claim_item){ .name = b->group[i]->name,
                                       .release = b->group[i]->release };
    /* no lease (it expired meanwhile): our claims went with it, and a
     * claim waits for the next lease (the resync asks again) */
    if (c->lease == 0) {
        for (size_t i = 0; i < b->n; i++)
            b->items[i].rc =
                err_set(&b->items[i].err, ERR_NOTFOUND, "no etcd lease yet");
        on_claims(b, 0, NULL);
        return;
    }
    c->claims_sent = b; /* before the call: it may answer at once */
    if (store_claim_many_async(c->store, c->opts.controller_id, c->lease,
                               b->items, b->n, on_claims, b, &e) == -1) {
        for (size_t i = 0; i < b->n; i++) {
            b->items[i].rc = -1;
            b->items[i].err = e;
        }
        on_claims(b, 0, NULL);
    }
}
