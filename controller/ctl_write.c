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
        inv->wnext = c->writes;
        c->writes = inv;
    }
    return 0;
}

static void
unlink_write(struct ctl_inv *inv)
{
    struct ctl_inv **pp;

    for (pp = &inv->ctl->writes; *pp != NULL; pp = &(*pp)->wnext)
        if (*pp == inv) {
            *pp = inv->wnext;
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
    if (it->rc == -1)
        ctl_inv_kick(inv, 0); /* its first write reports it as a step */
    else
        ctl_claim_after_pass(inv); /* the work's end is written: let go */
}

/* Everything queued, as one store_status_write_many(). Out of memory for
 * the arrays: each written on its own. */
static void
write_queued(struct ctl *c)
{
    struct store_status_item *items;
    struct ctl_inv **invs;
    char **texts;
    size_t n = 0, k = 0;

    for (struct ctl_inv *i = c->writes; i != NULL; i = i->wnext)
        n++;
    if (n == 0)
        return;
    items = calloc(n, sizeof(*items));
    invs = calloc(n, sizeof(*invs));
    texts = calloc(n, sizeof(*texts));
    while (c->writes != NULL) {
        struct ctl_inv *inv = c->writes;

        if (items == NULL || invs == NULL || texts == NULL)
            ctl_write_unqueue(inv);
        else {
            unlink_write(inv);
            if (group_item(inv, &items[k], &texts[k]))
                invs[k++] = inv;
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
    if (c->writes == NULL && c->claims == NULL)
        return;
    write_queued(c);
    ctl_claim_send(c); /* after the statuses: a release follows its own */
    if (c->opts.once && ctl_idle(c))
        ev_break(loop, EVBREAK_ALL);
}

void
ctl_write_start(struct ctl *c)
{
    ev_prepare_init(&c->status_writer, on_prepare);
    ev_prepare_start(c->loop, &c->status_writer);
}

void
ctl_write_stop(struct ctl *c)
{
    write_queued(c);
    ev_prepare_stop(c->loop, &c->status_writer);
}
