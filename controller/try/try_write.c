/* try_write.c - the status writes of one loop iteration, grouped, and
 * sent without blocking the loop (try_write.h). */
#include "try_write.h"

#include <stdlib.h>
#include <string.h>

#include "try_claim.h"
#include "inv_queue.h"
#include "inv_status.h"

/* What one invocation's item holds while etcd answers: the item's name,
 * text and events are the group's own, the invocation may go meanwhile
 * (inv NULL then). */
struct try_write_slot {
    struct ctl_inv *inv;
    char *name;
    char *text;
    char *events[CTL_EVENTS_HELD];
};

/* The group write in flight. At most one: two txns of one name sent at
 * once could land in either order. */
struct try_write_group {
    struct ctl *c;
    size_t n;
    unsigned hold_mark; /* the Docker requests that wait for it */
    struct store_status_item *items;
    struct try_write_slot *slots;
};

int
try_write_end(struct ctl_inv *inv, struct err *e)
{
    struct ctl *c = inv->ctl;

    if (!store_groups_status(c->store))
        return inv_status_flush(inv, e);
    if (!inv->write.queued && inv_status_pending(inv)) {
        inv->write.queued = true;
        inv->write.next = NULL;
        if (c->writes == NULL)
            c->writes = inv;
        else
            c->writes_last->write.next = inv;
        c->writes_last = inv;
    }
    return 0;
}

bool
try_write_in_flight(struct ctl_inv *inv)
{
    if (!inv->write.sent)
        return false;
    inv->write.pass_after = true;
    return true;
}

bool
try_write_waits(struct ctl_inv *inv)
{
    if (!inv->write.queued && !inv->write.sent)
        return false;
    inv->write.pass_after = true;
    return true;
}

int
try_write_first(struct ctl_inv *inv, struct err *e)
{
    if (!store_groups_status(inv->ctl->store))
        return 0;
    if (inv->write.failed != NULL) {
        *e = *inv->write.failed;
        free(inv->write.failed);
        inv->write.failed = NULL;
        return -1;
    }
    if (!inv_status_pending(inv))
        return 0;
    (void)try_write_end(inv, NULL); /* grouping: it only queues */
    inv->write.pass_after = true;
    return 1;
}

/* The pass that waited for the write, now that it is written (or given
 * up: then the pass fails with the error and backs off). */
static void
pass_again(struct ctl_inv *inv)
{
    if (!inv->write.pass_after)
        return;
    inv->write.pass_after = false;
    inv_kick(inv, 0);
}

static void
unlink_write(struct ctl_inv *inv)
{
    struct ctl *c = inv->ctl;
    struct ctl_inv **pp, *prev = NULL;

    for (pp = &c->writes; *pp != NULL; prev = *pp, pp = &(*pp)->write.next)
        if (*pp == inv) {
            *pp = inv->write.next;
            if (c->writes_last == inv)
                c->writes_last = prev;
            break;
        }
    inv->write.queued = false;
    inv->write.next = NULL;
}

void
try_write_unqueue(struct ctl_inv *inv)
{
    struct try_write_group *g = inv->ctl->write_sent;

    for (size_t i = 0; inv->write.sent && g != NULL && i < g->n; i++)
        if (g->slots[i].inv == inv)
            g->slots[i].inv = NULL; /* its answer goes nowhere */
    inv->write.sent = false;
    free(inv->write.failed);
    inv->write.failed = NULL;
    if (!inv->write.queued)
        return;
    unlink_write(inv);
    (void)inv_status_flush(inv, NULL);
    inv_events_release(inv);
    pass_again(inv);
}

/* One item, taken from inv: false when nothing is left to write (a
 * blocking write got there first, or no memory for the text: still
 * dirty, the next pass writes it). */
static bool
group_item(struct ctl_inv *inv, struct store_status_item *it,
           struct try_write_slot *slot)
{
    size_t n = 0;

    slot->name = strdup(inv->name);
    if (slot->name == NULL)
        return false; /* still pending: the next pass queues it again */
    slot->text = inv_status_take(inv, slot->events, &n);
    if (slot->text == NULL && n == 0 &&
        inv->write.removal != CTL_STATUS_REMOVING) {
        free(slot->name);
        return false;
    }
    slot->inv = inv;
    inv->write.sent = true;
    *it =
        (struct store_status_item){ .name = slot->name,
                                    .status = slot->text,
                                    .len = slot->text ? strlen(slot->text) : 0,
                                    .events = slot->events,
                                    .n_events = n,
                                    .remove = inv->write.removal ==
                                              CTL_STATUS_REMOVING };
    return true;
}

static void
item_answered(struct ctl_inv *inv, const struct store_status_item *it)
{
    inv->write.sent = false;
    inv_status_answered(inv, it->status != NULL, it->rc == 0 ? NULL : &it->err);
    if (it->rc == -1) {
        /* its next pass fails with this, then backs off; the trouble is
         * the store's (its error names no peer, so try_result.c does not
         * mark Docker down) */
        try_store_trouble(inv->ctl, &it->err);
        free(inv->write.failed);
        inv->write.failed = malloc(sizeof(*inv->write.failed));
        if (inv->write.failed != NULL)
            err_set(inv->write.failed, it->err.code, "status not written: %s",
                    it->err.msg);
        inv->write.pass_after = true;
    } else {
        if (it->remove) { /* gone: its next pass forgets it */
            inv->write.removal = CTL_STATUS_REMOVED;
        }
        try_claim_after_pass(inv); /* the work's end is written: let go */
    }
    pass_again(inv);
}

static void
group_free(struct try_write_group *g)
{
    for (size_t i = 0; i < g->n; i++) {
        struct try_write_slot *s = &g->slots[i];

        for (size_t j = 0; j < g->items[i].n_events; j++)
            cJSON_free(s->events[j]);
        cJSON_free(s->text);
        free(s->name);
    }
    free(g->items);
    free(g->slots);
    free(g);
}

/* store_done_fn: every item answered. Then the Docker requests made
 * before the group was cut go (record, then act), and the next group may
 * be sent. */
static void
group_answered(void *arg, int rc, const struct err *e)
{
    struct try_write_group *g = arg;
    struct ctl *c = g->c;

    (void)rc;
    (void)e;
    c->write_sent = NULL;
    for (size_t i = 0; i < g->n; i++)
        if (g->slots[i].inv != NULL)
            item_answered(g->slots[i].inv, &g->items[i]);
    dk_hold_release(c->dk, g->hold_mark);
    group_free(g);
    if (c->writes != NULL)
        ev_idle_start(c->loop, &c->writes_left);
    if (c->opts.once && inv_idle(c))
        ev_break(c->loop, EVBREAK_ALL);
}

/* A write that may wait for a later group: its pass waits for it and has
 * sent nothing (try_write_first). The status that ended a pass which
 * started a request goes in the next group: that request waits for it. */
static bool
may_wait(const struct ctl_inv *inv)
{
    return inv->write.pass_after && !inv_in_flight(inv);
}

static size_t
queued_count(const struct ctl *c)
{
    size_t n = 0;

    for (struct ctl_inv *i = c->writes; i != NULL; i = i->write.next)
        n++;
    return n;
}

static struct try_write_group *
group_new(struct ctl *c, size_t n)
{
    struct try_write_group *g = calloc(1, sizeof(*g));

    if (g == NULL)
        return NULL;
    g->c = c;
    g->items = calloc(n, sizeof(*g->items));
    g->slots = calloc(n, sizeof(*g->slots));
    if (g->items == NULL || g->slots == NULL) {
        group_free(g);
        return NULL;
    }
    return g;
}

/* Every queued write that must go now and the oldest `max` of those that
 * may wait (0: all), taken into g. */
static void
group_take(struct ctl *c, struct try_write_group *g, size_t max)
{
    size_t waiting = 0;
    struct ctl_inv *next;

    for (struct ctl_inv *inv = c->writes; inv != NULL; inv = next) {
        next = inv->write.next;
        if (may_wait(inv) && max > 0 && waiting++ >= max)
            continue; /* a later group's */
        unlink_write(inv);
        if (group_item(inv, &g->items[g->n], &g->slots[g->n]))
            g->n++;
        else
            pass_again(inv); /* nothing left to wait for */
    }
}

/* Send the queued writes as one group, the Docker requests made so far
 * held until it is answered; with nothing to write, they go now. Out of
 * memory for the group: each written on its own, the blocking way. */
static void
group_send(struct ctl *c, size_t max)
{
    size_t n = queued_count(c);
    struct try_write_group *g = n > 0 ? group_new(c, n) : NULL;
    struct err e = { 0 };

    if (g == NULL) {
        while (c->writes != NULL)
            try_write_unqueue(c->writes);
        dk_hold_release(c->dk, dk_hold_cut(c->dk));
        return;
    }
    group_take(c, g, max);
    if (g->n == 0) {
        group_free(g);
        dk_hold_release(c->dk, dk_hold_cut(c->dk));
        return;
    }
    g->hold_mark = dk_hold_cut(c->dk);
    c->write_sent = g; /* before the call: it may answer at once */
    if (store_status_write_many_async(c->store, g->items, g->n, group_answered,
                                      g, &e) == -1)
        group_answered(g, -1, &e); /* every item says why */
}

static void
on_prepare(struct ev_loop *loop, ev_prepare *w, int revents)
{
    struct ctl *c = container_of(w, struct ctl, status_writer);

    (void)revents;
    if (c->write_sent == NULL)
        group_send(c, CTL_WRITE_GROUP);
    try_claim_send(c);
    /* the rest go in the next iterations, each after the watchers that
     * are due (the loop polls without waiting while some can go) */
    if ((c->writes != NULL && c->write_sent == NULL) || try_claim_ready(c))
        ev_idle_start(loop, &c->writes_left);
    if (c->opts.once && inv_idle(c))
        ev_break(loop, EVBREAK_ALL);
}

/* Runs only when nothing else is due: the next group goes from the
 * prepare watcher of the iteration it ends. */
static void
on_writes_left(struct ev_loop *loop, ev_idle *w, int revents)
{
    (void)revents;
    ev_idle_stop(loop, w);
}

/* ctl->join_group: what an event outside a pass holds goes with the
 * next group (no pass waits for it). */
static void
join_group(struct ctl_inv *inv)
{
    (void)try_write_end(inv, NULL); /* grouping: it only queues */
}

void
try_write_start(struct ctl *c)
{
    if (store_groups_status(c->store)) {
        c->join_group = join_group;
        dk_hold(c->dk, true); /* record, then act */
    }
    ev_prepare_init(&c->status_writer, on_prepare);
    ev_prepare_start(c->loop, &c->status_writer);
    ev_idle_init(&c->writes_left, on_writes_left);
}

/* How long a stopping controller waits for a group etcd has not
 * answered. */
#define CTL_WRITE_STOP_MS 10000L

/* A group that was never answered: its Docker requests never went. */
static void
group_drop(struct ctl *c)
{
    struct try_write_group *g = c->write_sent;

    for (size_t i = 0; i < g->n; i++)
        if (g->slots[i].inv != NULL)
            g->slots[i].inv->write.sent = false;
    c->write_sent = NULL;
    group_free(g);
}

void
try_write_stop(struct ctl *c)
{
    /* A controller that could not start never started the writer (nor,
     * perhaps, made its Docker client): nothing is queued. */
    if (!ev_is_active(&c->status_writer))
        return;
    c->join_group = NULL; /* from now on an event is written at once */
    /* the group in flight, then what is still queued as one more */
    for (int round = 0; round < 2; round++) {
        if (c->write_sent == NULL && c->writes != NULL)
            group_send(c, 0);
        if (c->write_sent != NULL)
            store_async_wait(c->store, CTL_WRITE_STOP_MS);
    }
    if (c->write_sent != NULL)
        group_drop(c);
    while (c->writes != NULL)
        try_write_unqueue(c->writes);
    dk_hold(c->dk, false);
    ev_idle_stop(c->loop, &c->writes_left);
    ev_prepare_stop(c->loop, &c->status_writer);
}
