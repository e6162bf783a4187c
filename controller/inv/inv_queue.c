/* inv_queue.c - the invocation list and its work queue (inv_queue.h). */
#include "inv_queue.h"

#include <stdlib.h>
#include <string.h>

#include "inv_changesjob.h"
#include "inv_egressjob.h"
#include "inv_pinset.h"
#include "ctl_record.h"
#include "inv_resultjob.h"
#include "ctl_testhooks.h"
#include "inv_verify_part.h"
#include "inv_wsjob.h"
#include "log.h"
#include "rc_credential.h"
#include "rc_desired.h"

static void on_kick(struct ev_loop *loop, ev_timer *w, int revents);
static void on_backlog(struct ev_loop *loop, ev_timer *w, int revents);
static void backlog_unlink(struct ctl *c, struct ctl_inv *inv);

void
inv_queue_init(struct ctl *c, inv_pass_fn *pass)
{
    c->pass = pass;
    ev_timer_init(&c->backlog_timer, on_backlog, 0., 0.);
}

/* FNV-1a: names are short, the index only has to spread them. */
static size_t
name_hash(const char *name)
{
    size_t h = 14695981039346656037u;

    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        h = (h ^ *p) * 1099511628211u;
    return h;
}

/* Twice the buckets once there are more invocations than buckets, so a
 * lookup stays O(1) with 10,000 of them. Out of memory keeps the old
 * buckets (longer chains, still right). */
static bool
index_grow(struct ctl *c)
{
    size_t n = c->buckets ? 2 * c->buckets : 64;
    struct ctl_inv **b = calloc(n, sizeof(*b));

    if (b == NULL)
        return false;
    for (struct ctl_inv *i = c->invs; i != NULL; i = i->next) {
        size_t k = name_hash(i->name) % n;

        i->queue.hnext = b[k];
        b[k] = i;
    }
    free(c->by_name);
    c->by_name = b;
    c->buckets = n;
    return true;
}

static void
index_unlink(struct ctl *c, struct ctl_inv *inv)
{
    struct ctl_inv **pp;

    if (c->by_name == NULL)
        return;
    for (pp = &c->by_name[name_hash(inv->name) % c->buckets]; *pp != NULL;
         pp = &(*pp)->queue.hnext)
        if (*pp == inv) {
            *pp = inv->queue.hnext;
            return;
        }
}

struct ctl_inv *
inv_find(struct ctl *c, const char *name)
{
    if (c->by_name == NULL) /* never had the memory for buckets */
        for (struct ctl_inv *i = c->invs; i != NULL; i = i->next)
            if (strcmp(i->name, name) == 0)
                return i;
    if (c->by_name == NULL)
        return NULL;
    for (struct ctl_inv *i = c->by_name[name_hash(name) % c->buckets];
         i != NULL; i = i->queue.hnext)
        if (strcmp(i->name, name) == 0)
            return i;
    return NULL;
}

struct ctl_inv *
inv_by_uid(struct ctl *c, const char *uid)
{
    for (struct ctl_inv *i = c->invs; i != NULL; i = i->next) {
        const char *u = i->rec.uid;

        if (u != NULL && strcmp(u, uid) == 0)
            return i;
    }
    return NULL;
}

void
inv_link(struct ctl *c, struct ctl_inv *inv)
{
    inv->ctl = c;
    ev_timer_init(&inv->queue.kick, on_kick, 0., 0.);
    inv->next = c->invs;
    c->invs = inv;
    if (++c->ninvs > c->buckets && index_grow(c))
        return; /* the new buckets hold inv too */
    if (c->by_name != NULL) {
        size_t k = name_hash(inv->name) % c->buckets;

        inv->queue.hnext = c->by_name[k];
        c->by_name[k] = inv;
    }
}

void
inv_remove(struct ctl_inv *inv)
{
    struct ctl *c = inv->ctl;
    struct ctl_inv **pp;

    for (pp = &c->invs; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == inv) {
            *pp = inv->next;
            break;
        }
    }
    index_unlink(c, inv);
    backlog_unlink(c, inv);
    if (--c->ninvs == 0) { /* the last one: the buckets go with it */
        free(c->by_name);
        c->by_name = NULL;
        c->buckets = 0;
    }
    ev_timer_stop(c->loop, &inv->queue.kick);
    ev_timer_stop(c->loop, &inv->deadline);
    ev_timer_stop(c->loop, &inv->probe.canary);
    for (int i = 0; i < CTL_LANES; i++)
        dk_cancel(inv->lanes[i].call);
    inv_ws_free(inv); /* after the cancel: it closes the upload's fd */
    inv_egress_free(inv);
    inv_changes_free(inv);
    inv_resultread_free(inv);
    dk_cancel(inv->run.logs);
    dk_cancel(inv->run.wait);
    cJSON_Delete(inv->verify.pending_inspect);
    free(inv->verify.ns_queue);
    inv_verify_finding_done(inv, true);
    spec_invocation_free(inv->spec);
    rc_credential_free(inv->credential);
    spec_invocation_free(inv->captured);
    rc_desired_free(inv->desired);
    ctl_record_cleanup(&inv->rec);
    free(inv->invalid.msg);
    free(inv->stuck);
    free(inv->step_err);
    inv_pins_free(inv->capture.pins);
    free(inv);
}

bool
inv_in_flight(const struct ctl_inv *inv)
{
    for (int i = 0; i < CTL_LANES; i++)
        if (inv->lanes[i].call != NULL)
            return true;
    /* a workspace check (out_ws.h), a change set built (out_changes.h),
     * the capture's image inspects (drift_pins.c) */
    return inv_ws_in_flight(inv) || inv_changes_in_flight(inv) ||
           inv_pins_out(inv->capture.pins);
}

void
inv_kick(struct ctl_inv *inv, double after)
{
    struct ev_loop *loop = inv->ctl->loop;

    /* An earlier kick wins: never postpone work already due sooner. */
    if (ev_is_active(&inv->queue.kick) &&
        ev_timer_remaining(loop, &inv->queue.kick) <= after)
        return;
    inv_requeue(inv, after);
}

void
inv_requeue(struct ctl_inv *inv, double after)
{
    struct ev_loop *loop = inv->ctl->loop;

    ev_timer_stop(loop, &inv->queue.kick);
    ev_timer_set(&inv->queue.kick, after, 0.);
    ev_timer_start(loop, &inv->queue.kick);
}

void
inv_resync(struct ctl_inv *inv)
{
    inv->verify.due = true;
    inv_kick(inv, 0);
}

void
inv_revalidate(struct ctl_inv *inv)
{
    if (inv->verify.round_open && !ctl_test_disabled("verify-again"))
        inv->verify.again = true;
    inv_resync(inv);
}

/* Passes due together (a resync, a bulk apply) would all run in one loop
 * iteration, and the loop serves no I/O meanwhile: the watch, /healthz,
 * Docker's answers and the timers of running agents (deadline, drift)
 * would wait for all of them. So one iteration runs passes for at most
 * CTL_PASS_SLICE; the rest wait in the backlog, first in first out, and
 * a pass due while the backlog is not empty joins its end: a bulk's new
 * specs get their first pass (and status) in the order they came, before
 * the passes their own Docker answers queue later. */
static bool
slice_left(struct ctl *c, struct ev_loop *loop)
{
    double now = ev_time();

    if (c->slice_iter != ev_iteration(loop) || c->slice_start == 0) {
        c->slice_iter = ev_iteration(loop);
        c->slice_start = now;
    }
    return now - c->slice_start <= CTL_PASS_SLICE;
}

static void
backlog_push(struct ctl *c, struct ctl_inv *inv)
{
    if (inv->queue.in_backlog)
        return;
    inv->queue.in_backlog = true;
    inv->queue.bnext = NULL;
    if (c->backlog == NULL)
        c->backlog = inv;
    else
        c->backlog_last->queue.bnext = inv;
    c->backlog_last = inv;
    if (!ev_is_active(&c->backlog_timer))
        ev_timer_start(c->loop, &c->backlog_timer);
}

static void
backlog_unlink(struct ctl *c, struct ctl_inv *inv)
{
    struct ctl_inv *prev = NULL;

    if (!inv->queue.in_backlog)
        return;
    for (struct ctl_inv *i = c->backlog; i != NULL; prev = i, i = i->queue.bnext)
        if (i == inv) {
            if (prev == NULL)
                c->backlog = inv->queue.bnext;
            else
                prev->queue.bnext = inv->queue.bnext;
            if (c->backlog_last == inv)
                c->backlog_last = prev;
            break;
        }
    inv->queue.in_backlog = false;
    inv->queue.bnext = NULL;
}

static void
on_backlog(struct ev_loop *loop, ev_timer *w, int revents)
{
    struct ctl *c = container_of(w, struct ctl, backlog_timer);

    (void)revents;
    while (c->backlog != NULL && slice_left(c, loop)) {
        struct ctl_inv *inv = c->backlog;

        backlog_unlink(c, inv);
        /* a kick due by now is this pass; a later one (a backoff) stays */
        if (ev_is_active(&inv->queue.kick) &&
            ev_timer_remaining(loop, &inv->queue.kick) <= 0)
            ev_timer_stop(loop, &inv->queue.kick);
        c->pass(inv);
    }
    if (c->backlog != NULL) /* the next iteration, after the I/O */
        ev_timer_start(loop, &c->backlog_timer);
}

static void
on_kick(struct ev_loop *loop, ev_timer *w, int revents)
{
    struct ctl_inv *inv = container_of(w, struct ctl_inv, queue.kick);
    struct ctl *c = inv->ctl;

    (void)revents;
    if (c->backlog != NULL || !slice_left(c, loop)) {
        backlog_push(c, inv); /* runs in its turn */
        return;
    }
    c->pass(inv);
}

bool
inv_idle(const struct ctl *c)
{
    /* Nothing is known to be idle before the store has been listed. */
    if (!c->listed)
        return false;
    /* A pass waits for the daemon (and its seccomp answer) before it
     * builds anything: until then the invocations' work is pending. */
    if (c->invs != NULL && (c->negotiating || !c->docker_up))
        return false;
    if (c->writes != NULL || c->write_sent != NULL || c->backlog != NULL ||
        c->claims != NULL || c->claims_sent != NULL || c->build_line != NULL)
        /* work still queued */
        return false;
    for (const struct ctl_inv *i = c->invs; i != NULL; i = i->next)
        if (inv_in_flight(i) || ev_is_active(&i->queue.kick) ||
            i->run.logs != NULL || i->run.wait != NULL)
            return false;
    return true;
}

/* A one-shot run (a cron job, a CI step) must end: a daemon or a store
 * that stays away fails it with the reason, and the invocations stay as
 * they are for the next run - nothing is lost, nothing was started. */
bool
inv_once_gave_up(struct ctl *c)
{
    bool docker_wait = c->invs != NULL && !c->docker_up;

    if (!c->opts.once || (c->listed && !docker_wait)) {
        c->once_stalls = 0;
        return false;
    }
    if (++c->once_stalls < CTL_ONCE_STALLS)
        return false;
    if (!c->listed)
        log_kv(LOG_ERROR, "giving up (--once): the store could not be listed",
               "store", c->store->backend, NULL);
    else
        log_kv(LOG_ERROR, "giving up (--once): the Docker daemon is unusable",
               "error", c->docker_error[0] ? c->docker_error : "no answer",
               NULL);
    c->exit_code = 1;
    ev_break(c->loop, EVBREAK_ALL);
    return true;
}
