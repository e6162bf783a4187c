/* ctl_write.c - the status writes of one loop iteration, grouped
 * (ctl_write.h). */
#include "ctl_write.h"

#include <stdlib.h>

#include "ctl_claim.h"
#include "ctl_queue.h"
#include "ctl_status.h"

int
ctl_write_end(struct ctl_inv *inv, struct err *e)
{
    struct ctl *c = inv->ctl;

    if (!store_groups_status(c->store))
        return ctl_status_flush(inv, e);
    if (!inv->write_queued && ctl_status_pending(inv)) {
        inv->write_queued = true;
        inv->wnext = NULL;
        if (c->writes == NULL)
            c->writes = inv;
        else
            c->writes_last->wnext = inv;
        c->writes_last = inv;
    }
    return 0;
}

bool
ctl_write_first(struct ctl_inv *inv)
{
    if (!store_groups_status(inv->ctl->store) || inv->write_failed) {
        inv->write_failed = false;
        return false;
    }
    if (!ctl_status_pending(inv))
        return false;
    (void)ctl_write_end(inv, NULL); /* grouping: it only queues */
    inv->pass_after_write = true;
    return true;
}

/* The pass that waited for the write, now that it is written (or given
 * up: then the pass writes on its own). */
static void
pass_again(struct ctl_inv *inv)
{
    if (!inv->pass_after_write)
        return;
    inv->pass_after_write = false;
    ctl_inv_kick(inv, 0);
}

static void
unlink_write(struct ctl_inv *inv)
{
    struct ctl *c = inv->ctl;
    struct ctl_inv **pp, *prev = NULL;

    for (pp = &c->writes; *pp != NULL; prev = *pp, pp = &(*pp)->wnext)
        if (*pp == inv) {
            *pp = inv->wnext;
            if (c->writes_last == inv)
                c->writes_last = prev;
            break;
        }
    inv->write_queued = false;
    inv->wnext = NULL;
}

void
ctl_write_unqueue(struct ctl_inv *inv)
{
    if (!inv->write_queued)
        return;
    unlink_write(inv);
    (void)ctl_status_flush(inv, NULL);
    ctl_events_release(inv);
    pass_again(inv);
}

/* One item: the status text if it changed (owned by *text) and the
 * events held. false: nothing left (a blocking write got there first,
 * or no memory for the text: still dirty, the next pass writes it). */
static bool
group_item(struct ctl_inv *inv, struct store_status_item *it, char **text)
{
    *text = ctl_status_text(inv);
    *it = (struct store_status_item){ .name = inv->name,
                                      .status = *text,
                                      .len = *text ? strlen(*text) : 0,
                                      .events = inv->events,
                                      .n_events = inv->events_n };
    return *text != NULL || inv->events_n > 0;
}

static void
group_answered(struct ctl_inv *inv, const struct store_status_item *it)
{
    ctl_status_written(inv, it->status != NULL, it->rc == 0 ? NULL : &it->err);
    if (it->rc == -1) {
        inv->write_failed = true; /* its next write reports it as a step */
        inv->pass_after_write = true;
    } else
        ctl_claim_after_pass(inv); /* the work's end is written: let go */
    pass_again(inv);
}

/* A write that may wait for a later iteration: its pass waits for it and
 * has sent nothing (ctl_write_first). The status that ended a pass which
 * started a request goes in this iteration's group, before that request
 * leaves the client. */
static bool
may_wait(const struct ctl_inv *inv)
{
    return inv->pass_after_write && !ctl_inv_in_flight(inv);
}

/* Every queued write that must go now, and the oldest `max` of those that
 * may wait (0: all), as one store_status_write_many(). Out of memory for
 * the arrays: each written on its own. */
static void
write_queued(struct ctl *c, size_t max)
{
    struct store_status_item *items;
    struct ctl_inv **invs, *next;
    char **texts;
    size_t n = 0, k = 0, waiting = 0;

    for (struct ctl_inv *i = c->writes; i != NULL; i = i->wnext)
        n++;
    if (n == 0)
        return;
    items = calloc(n, sizeof(*items));
    invs = calloc(n, sizeof(*invs));
    texts = calloc(n, sizeof(*texts));
    for (struct ctl_inv *inv = c->writes; inv != NULL; inv = next) {
        next = inv->wnext;
        if (may_wait(inv) && max > 0 && waiting++ >= max)
            continue; /* a later iteration's */
        if (items == NULL || invs == NULL || texts == NULL)
            ctl_write_unqueue(inv);
        else {
            unlink_write(inv);
            if (group_item(inv, &items[k], &texts[k]))
                invs[k++] = inv;
            else
                pass_again(inv); /* nothing left to wait for */
        }
    }
    if (k > 0)
        store_status_write_many(c->store, items, k);
    for (size_t j = 0; j < k; j++) {
        group_answered(invs[j], &items[j]);
        cJSON_free(texts[j]);
    }
    free(items);
    free(invs);
    free(texts);
}

static void
on_prepare(struct ev_loop *loop, ev_prepare *w, int revents)
{
    struct ctl *c = container_of(w, struct ctl, status_writer);

    (void)revents;
    if (c->writes == NULL && c->claims == NULL && c->claims_sent == NULL)
        return;
    write_queued(c, CTL_WRITE_GROUP);
    ctl_claim_send(c); /* after the statuses: a release follows its own */
    /* the rest go in the next iterations, each after the watchers that
     * are due (the loop polls without waiting while some are left) */
    if (c->writes != NULL || ctl_claim_ready(c))
        ev_idle_start(loop, &c->writes_left);
    if (c->opts.once && ctl_idle(c))
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
 * iteration's group, at once (no pass waits for it). */
static void
join_group(struct ctl_inv *inv)
{
    (void)ctl_write_end(inv, NULL); /* grouping: it only queues */
}

void
ctl_write_start(struct ctl *c)
{
    if (store_groups_status(c->store))
        c->join_group = join_group;
    ev_prepare_init(&c->status_writer, on_prepare);
    ev_prepare_start(c->loop, &c->status_writer);
    ev_idle_init(&c->writes_left, on_writes_left);
}

void
ctl_write_stop(struct ctl *c)
{
    c->join_group = NULL; /* from now on an event is written at once */
    write_queued(c, 0);
    ev_idle_stop(c->loop, &c->writes_left);
    ev_prepare_stop(c->loop, &c->status_writer);
}
