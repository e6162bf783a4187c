/* loop_events.c - follow Docker's event stream so that a change made behind
 * the controller's back (a container updated, killed or removed, an
 * endpoint connected to an invocation's network, a volume removed)
 * triggers a pass of the owning invocation at once; the resync timer
 * stays as the backstop.
 *
 * Two streams, because Docker filters AND their keys and only container
 * events carry labels (docs/docker-notes.md section 5; on 20.10 volume events
 * carry none either): containers by this controller's managed-by label,
 * and every network and volume event, matched to an invocation by the IDs
 * and names its status records. After a broken stream the controller
 * reconnects with `since` set to the last event seen, so nothing between
 * is missed.
 */
#include "loop_events.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "buf.h"
#include "box_canary.h"
#include "loop_docker.h"
#include "drift_neighbours.h"
#include "box_pool.h"
#include "inv_queue.h"
#include "ctl_record.h"
#include "dk_event.h"
#include "log.h"

#define EVENTS_RETRY_S 1.0

/* The invocation recording an object with this ID or name, if any. */
static struct ctl_inv *
inv_by_object(struct ctl *c, const char *id, const char *name)
{
    for (struct ctl_inv *i = c->invs; i != NULL; i = i->next)
        if (ctl_record_holds(&i->rec, id, name))
            return i;
    return NULL;
}

/* The invocation an event is about: by the uid label (container events),
 * by a recorded ID or name, or for a network event about another network
 * (the agent connected to a route out) by the container it names. */
static struct ctl_inv *
inv_of_event(struct ctl *c, const struct dk_event *ev)
{
    struct ctl_inv *inv = NULL;
    bool volume = ev->type != NULL && strcmp(ev->type, "volume") == 0;

    if (ev->uid != NULL)
        inv = inv_by_uid(c, ev->uid);
    if (inv == NULL && ev->id != NULL)
        inv = inv_by_object(c, ev->id, volume ? ev->id : NULL);
    if (inv == NULL && ev->name != NULL)
        inv = inv_by_object(c, NULL, ev->name);
    if (inv == NULL && ev->type != NULL && strcmp(ev->type, "network") == 0 &&
        ev->container != NULL)
        inv = inv_by_object(c, ev->container, NULL);
    return inv;
}

static void
on_event_line(struct dk_req *req, const char *data, size_t len, void *arg)
{
    struct ctl *c = arg;
    struct dk_event ev;
    struct ctl_inv *inv;

    (void)req;
    if (dk_event_parse(data, len, &ev) == -1)
        return;
    if (ev.has_time && ev.time > c->events_since)
        c->events_since = ev.time;
    inv = inv_of_event(c, &ev);
    if (inv == NULL) {
        /* a box of the warm pool, not handed yet */
        box_pool_event(c, ev.uid, ev.id);
    } else {
        c->events_seen++;
        /* an exec ends before the next inspect can show it in ExecIDs, and
         * a docker cp leaves no trace in any inspect */
        if (ev.action != NULL && ev.id != NULL)
            drift_neighbours_event_seen(inv, ev.id, ev.action);
        box_canary_event(inv, ev.type, ev.id, ev.role, ev.container);
        inv_revalidate(inv);
    }
    dk_event_cleanup(&ev);
}

static void events_schedule(struct ctl *c);

static void
on_events_done(struct dk_req *req, struct dk_response *r, void *arg)
{
    struct ctl *c = arg;

    if (req == c->events[0])
        c->events[0] = NULL;
    else
        c->events[1] = NULL;
    if (r->err != NULL)
        log_kv(LOG_DEBUG, "Docker event stream ended", "error", r->err->msg,
               NULL);
    /* A stream ends when the daemon goes away: ask it now, so that
     * /healthz says so even with no invocation's call failing. */
    loop_check_docker(c);
    events_schedule(c);
}

static struct dk_req *
events_open(struct ctl *c, const cJSON *filters, struct err *e)
{
    return dk_events(c->dk, c->events_since, filters, on_event_line,
                     on_events_done, c, e);
}

/* (Re)open whichever stream is not running. */
static void
events_start(struct ctl *c)
{
    char label[128];
    cJSON *f;
    struct err e;

    if (c->stopping)
        return;
    if (c->events[0] == NULL) {
        f = cJSON_CreateObject();
        snprintf(label, sizeof(label), "agentctl.dev/managed-by=%s",
                 c->opts.controller_id);
        cJSON_AddItemToObject(
            f, "label",
            cJSON_CreateStringArray((const char *const[]){ label }, 1));
        c->events[0] = events_open(c, f, &e);
        cJSON_Delete(f);
    }
    if (c->events[1] == NULL) {
        f = cJSON_CreateObject();
        cJSON_AddItemToObject(
            f, "type",
            cJSON_CreateStringArray(
                (const char *const[]){ "network", "volume" }, 2));
        c->events[1] = events_open(c, f, &e);
        cJSON_Delete(f);
    }
    if (c->events[0] == NULL || c->events[1] == NULL)
        events_schedule(c);
}

static void
on_events_retry(struct ev_loop *loop, ev_timer *w, int revents)
{
    struct ctl *c = w->data;

    (void)loop;
    (void)revents;
    events_start(c);
}

static void
events_schedule(struct ctl *c)
{
    if (c->stopping || ev_is_active(&c->events_retry))
        return;
    ev_timer_set(&c->events_retry, EVENTS_RETRY_S, 0.);
    ev_timer_start(c->loop, &c->events_retry);
}

void
loop_events_start(struct ctl *c)
{
    if (c->events_since == 0)
        c->events_since = (long)time(NULL);
    ev_timer_init(&c->events_retry, on_events_retry, 0., 0.);
    c->events_retry.data = c;
    events_start(c);
}

void
loop_events_stop(struct ctl *c)
{
    ev_timer_stop(c->loop, &c->events_retry);
    dk_cancel(c->events[0]);
    dk_cancel(c->events[1]);
    c->events[0] = c->events[1] = NULL;
}
