/* box_pool.c - the warm pool (docs/warm-pool.md): per vendor of the
 * config's warmPool, a few boxes made ahead - the internal network, the
 * egress proxy on it (created, joined to the egress network, started) and
 * a boundary probe that passed - so that an invocation takes one instead
 * of building its own, and goes on from its storage and agent.
 *
 * A box (box.c) is its own owner until it is handed: its objects
 * carry the labels invocation=pool.<vendor>, its own uid and attempt. The
 * hand-over records the box in the
 * invocation's status before anything uses it; a round of every drift
 * rule then inspects it as the invocation's own, and a box is never given
 * twice. A box nobody recorded is not this process's memory after a
 * restart: garbage collection removes it (loop_gc.c), it is never adopted.
 *
 * While a box waits, a Docker event about it or the pool's timer (every
 * --resync) inspects its network and proxy by ID against the drift rules;
 * drift, a failed step, or an age past the config's probeInterval (its
 * probe's verdict is that old) removes it by ID and a new one is made.
 * Boxes are built at most CTL_POOL_BUILDING at a time and never while an
 * invocation's box is being built (a build slot held or waited for,
 * try_build.c): an invocation's own work goes first.
 */
#include "box_pool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "try_attempt.h"
#include "box.h"
#include "obs_observe.h"
#include "ctl_record.h"
#include "inv_status.h"
#include "ctl_testhooks.h"
#include "log.h"
#include "store.h"

#define POOL_DOC_DELAY 0.2 /* seconds: document writes coalesce */

static void pool_doc_touch(struct ctl *c);

static unsigned
count_boxes(const struct ctl *c, const char *vendor, bool building_only)
{
    unsigned n = 0;

    for (const struct ctl_box *b = c->boxes; b != NULL; b = b->next)
        if (!b->doomed && (vendor == NULL || strcmp(b->vendor, vendor) == 0) &&
            (!building_only || !b->ready))
            n++;
    return n;
}

/* ---- filling, checking, handing ----------------------------------------- */

/* Boxes are made while the daemon answers and runs boxes confined
 * (loop_docker.c), and while no invocation's box is being built (a build
 * slot held or waited for): the pool's work would slow theirs down - on
 * an idle 2-core host a refill begun at a hand-over delayed that
 * invocation's start by up to 0.3 s. */
static bool
may_build(const struct ctl *c)
{
    return c->docker_up && c->security_error[0] == '\0' &&
           c->build_waiters == 0 && c->building == 0 && !c->stopping &&
           !c->opts.once;
}

void
box_pool_fill(struct ctl *c)
{
    const struct cfg *cfg = c->cfg;

    for (size_t i = 0; i < cfg->n_warm_pool && may_build(c); i++) {
        const struct cfg_warm *w = &cfg->warm_pool[i];

        while (may_build(c) && count_boxes(c, w->vendor, false) < w->count &&
               count_boxes(c, NULL, true) < CTL_POOL_BUILDING &&
               ev_now(c->loop) >= c->pool_not_before) {
            struct ctl_box *b = box_new(c, w->vendor);

            if (b == NULL)
                return;
            log_kv(LOG_INFO, "building a warm box", "box", b->name, "vendor",
                   b->vendor, NULL);
            pool_doc_touch(c);
            box_go(b);
        }
    }
}

/* A ready box whose probe's verdict is older than probeInterval goes
 * (removed by ID, b may be freed): true then. */
static bool
expired(struct ctl_box *b)
{
    if (ev_now(b->ctl->loop) - b->born <= b->ctl->cfg->probe_interval_s)
        return false;
    box_doom(b, "Aged", "its probe's verdict is older than probeInterval");
    box_go(b);
    return true;
}

/* A box may be handed: ready, its verdict younger than probeInterval (an
 * older one goes), and made of the helper images the invocation pinned
 * (one captured before a tag moved takes none; the box stays for the
 * others). A revalidation in flight or due does not hold it back: the
 * invocation's own round, right after the record, checks every rule the
 * box's would, and the neighbours too. */
static bool
handable(struct ctl_box *b, const struct ctl_inv *inv)
{
    static const enum rc_helper same[] = { RC_HELPER_PROXY, RC_HELPER_PROBE };

    if (!b->ready || b->doomed || strcmp(b->vendor, inv->captured->vendor) != 0)
        return false;
    if (expired(b))
        return false;
    for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++) {
        const char *pin = ctl_record_helper_image(&inv->rec, same[i]);

        if (pin == NULL || strcmp(pin, b->helpers[same[i]]) != 0)
            return false;
    }
    return true;
}

static cJSON *
box_record(const struct ctl_box *b)
{
    cJSON *o = cJSON_CreateObject();

    cJSON_AddStringToObject(o, "name", b->name);
    cJSON_AddStringToObject(o, "vendor", b->vendor);
    cJSON_AddStringToObject(o, "owner", b->owner);
    cJSON_AddStringToObject(o, "uid", b->uid);
    cJSON_AddStringToObject(o, "attempt", b->attempt);
    cJSON_AddStringToObject(o, "verifiedAt", b->verified_at);
    return o;
}

/* Record the box as the attempt's: its network and proxy by ID, what was
 * done to them, the probe's verdict. The objects are the invocation's from
 * this record on (written before its next Docker call). */
static void
record_box(struct ctl_inv *inv, const struct ctl_box *b)
{
    struct ctl_record *rec = &inv->rec;
    static const enum ctl_progress done[] = {
        CTL_PROG_NETWORK_CREATED,
        CTL_PROG_PROXY_CREATED,
        CTL_PROG_PROXY_CONNECTED,
        CTL_PROG_PROXY_STARTED,
    };

    ctl_record_set_box(rec, box_record(b));
    try_attempt_set_subnet(inv, b->subnet);
    ctl_record_set_role(rec, RC_ROLE_NETWORK, b->net_id,
                        b->desired->objects[RC_ROLE_NETWORK].name);
    ctl_record_set_role(rec, RC_ROLE_PROXY, b->proxy_id,
                        b->desired->objects[RC_ROLE_PROXY].name);
    ctl_record_set_role_image(rec, RC_ROLE_PROXY, b->helpers[RC_HELPER_PROXY]);
    for (size_t i = 0; i < sizeof(done) / sizeof(done[0]); i++)
        ctl_record_set_done(rec, done[i]);
    inv->net.egress_checked = true;
    snprintf(inv->net.proxy_egress_ip, sizeof(inv->net.proxy_egress_ip), "%s",
             b->proxy_egress_ip);
    if (!box_probed(b)) {
        /* the invocation's own probe runs once its gateway is up */
        inv_event(inv, false, "WarmBoxTaken",
                  "took warm box %s (network %.12s, proxy %.12s; the "
                  "boundary probe runs once the attempt's gateway is up)",
                  b->name, b->net_id, b->proxy_id);
        return;
    }
    ctl_record_set_done(rec, CTL_PROG_BOUNDARY_VERIFIED);
    inv_status_set_condition(inv, "BoundaryVerified", true, "WarmBox",
                             "the boundary probe passed on warm box at "
                             "verifiedAt (status.box)");
    inv_event(inv, false, "WarmBoxTaken",
              "took warm box %s (network %.12s, proxy %.12s; its boundary "
              "probe passed at %s)",
              b->name, b->net_id, b->proxy_id, b->verified_at);
}

bool
box_pool_hand_over(struct ctl_inv *inv)
{
    struct ctl *c = inv->ctl;
    const char *vendor = inv->captured->vendor;
    struct ctl_box *b, *next;

    if (cfg_warm_count(c->cfg, vendor) == 0 || c->opts.once)
        return false;
    for (b = c->boxes; b != NULL; b = next) {
        next = b->next; /* handable() may remove b */
        if (handable(b, inv))
            break;
    }
    /* no refill here: the invocation holds a build slot, and the pool
     * fills when the last slot is let go (pass_inv.c) */
    if (b == NULL) {
        obs_observe_pool(c, vendor, "empty");
        return false;
    }
    record_box(inv, b);
    /* the attempt's desired state is built again from the record, with
     * the box's identity and /24 for its network and proxy, and a round
     * of every drift rule inspects them before any other step, as it
     * does a box a restart resumes (drift_verify.c) */
    try_inv_reset_attempt(inv, CTL_RESET_SUBNET);
    inv->verify.resumed = true;
    inv->verify.due = true;
    log_kv(LOG_INFO, "warm box handed", "box", b->name, "invocation", inv->name,
           NULL);
    obs_observe_pool(c, vendor, "handed");
    box_free(b);
    pool_doc_touch(c);
    return true;
}

bool
box_pool_holds(const struct ctl *c, const char *uid)
{
    for (const struct ctl_box *b = c->boxes; b != NULL; b = b->next)
        if (strcmp(b->uid, uid) == 0)
            return true;
    return false;
}

void
box_pool_event(struct ctl *c, const char *uid, const char *id)
{
    for (struct ctl_box *b = c->boxes; b != NULL; b = b->next) {
        if (!((uid != NULL && strcmp(b->uid, uid) == 0) ||
              (id != NULL &&
               (strcmp(b->net_id, id) == 0 || strcmp(b->proxy_id, id) == 0))))
            continue;
        if (b->ready) {
            b->check_due = true;
            box_go(b);
        }
        return;
    }
}

/* Every --resync: each waiting box is inspected again, one past its
 * probe's age goes, and the pool is filled up. */
static void
on_pool_timer(struct ev_loop *loop, ev_timer *w, int revents)
{
    struct ctl *c = container_of(w, struct ctl, pool_timer);
    struct ctl_box *b, *next;

    (void)loop;
    (void)revents;
    for (b = c->boxes; b != NULL; b = next) {
        next = b->next;
        if (!b->ready || expired(b))
            continue;
        b->check_due = true;
        box_go(b);
    }
    box_pool_fill(c);
}

/* ---- the pool document (agentctl get pool) ------------------------------- */

static cJSON *
pool_document(const struct ctl *c)
{
    cJSON *doc = cJSON_CreateObject(), *boxes;
    char now[32];

    inv_now(now);
    cJSON_AddStringToObject(doc, "controller", c->opts.controller_id);
    cJSON_AddStringToObject(doc, "updatedAt", now);
    boxes = cJSON_AddArrayToObject(doc, "boxes");
    for (const struct ctl_box *b = c->boxes; b != NULL; b = b->next) {
        cJSON *o;
        char cidr[RC_CIDR_MAX] = "", gw[RC_IP_MAX], px[RC_IP_MAX],
             ag[RC_IP_MAX];
        struct err e;

        if (b->doomed)
            continue;
        (void)rc_subnet_for(c->cfg, (unsigned)b->subnet, cidr, gw, px, ag, &e);
        o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", b->name);
        cJSON_AddStringToObject(o, "vendor", b->vendor);
        cJSON_AddStringToObject(o, "state", b->ready ? "Ready" : "Building");
        cJSON_AddStringToObject(o, "subnet", cidr);
        cJSON_AddStringToObject(o, "createdAt", b->created_at);
        if (b->net_id[0] != '\0')
            cJSON_AddStringToObject(o, "network", b->net_id);
        if (b->proxy_id[0] != '\0')
            cJSON_AddStringToObject(o, "proxy", b->proxy_id);
        cJSON_AddItemToArray(boxes, o);
    }
    return doc;
}

static void pool_doc_touch(struct ctl *c);

/* The write's answer: a change made meanwhile is written now. */
static void
on_pool_doc_written(void *arg, int rc, const struct err *e)
{
    struct ctl *c = arg;

    c->pool_doc_sent = false;
    if (rc == -1)
        log_kv(LOG_WARN, "pool document not written", "error", e->msg, NULL);
    if (c->pool_doc_again) {
        c->pool_doc_again = false;
        pool_doc_touch(c);
    }
}

/* The document is the pool's picture for agentctl, never its record (a
 * restarted controller does not read it): one write per change burst,
 * sent without blocking the loop, one at a time (two in flight could
 * land in either order), and a failed write is only logged. */
static void
on_pool_doc(struct ev_loop *loop, ev_timer *w, int revents)
{
    struct ctl *c = container_of(w, struct ctl, pool_doc);
    cJSON *doc;
    char *text;
    struct err e;

    (void)loop;
    (void)revents;
    c->pool_doc_dirty = false;
    if (c->pool_doc_sent) {
        c->pool_doc_again = true;
        return;
    }
    doc = pool_document(c);
    text = doc != NULL ? cJSON_PrintUnformatted(doc) : NULL;
    cJSON_Delete(doc);
    c->pool_doc_sent = true;
    if (text == NULL)
        on_pool_doc_written(c, err_set(&e, ERR_NOMEM, "out of memory"), &e);
    else if (store_doc_put_async(c->store, STORE_DOC_POOL,
                                 c->opts.controller_id, text, strlen(text),
                                 on_pool_doc_written, c, &e) == -1)
        on_pool_doc_written(c, -1, &e);
    cJSON_free(text);
}

static void
pool_doc_touch(struct ctl *c)
{
    if (c->pool_doc_dirty)
        return;
    c->pool_doc_dirty = true;
    ev_timer_set(&c->pool_doc, POOL_DOC_DELAY, 0.);
    ev_timer_start(c->loop, &c->pool_doc);
}

/* ---- start, reload, stop --------------------------------------------------
 */

/* A box started, became ready or went: the document says so, and the
 * pool is filled up. */
static void
on_changed(struct ctl *c)
{
    pool_doc_touch(c);
    if (c->stopping && c->boxes == NULL) { /* the stop's drain is done */
        ev_break(c->loop, EVBREAK_ALL);
        return;
    }
    box_pool_fill(c);
}

static void
on_stop_drain_late(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)w;
    (void)revents;
    log_kv(LOG_WARN, "stopping: the warm pool's boxes were not all removed in "
                     "time; the next start removes them",
           NULL);
    ev_break(loop, EVBREAK_ALL);
}

bool
box_pool_drain_for_stop(struct ctl *c)
{
    if (c->boxes == NULL || ctl_test_disabled("pool-stop-drain"))
        return false;
    log_kv(LOG_INFO, "stopping: removing the warm pool's boxes first", NULL);
    /* the pool's timer bounds the stop now: no refill, no age check */
    ev_timer_stop(c->loop, &c->pool_timer);
    ev_timer_init(&c->pool_timer, on_stop_drain_late, CTL_POOL_STOP_DRAIN_S,
                  0.);
    ev_timer_start(c->loop, &c->pool_timer);
    box_pool_drain(c, "the controller is stopping");
    return true;
}

void
box_pool_start(struct ctl *c)
{
    c->pool_changed = on_changed;
    ev_timer_init(&c->pool_timer, on_pool_timer, 0., c->opts.resync_s);
    ev_timer_init(&c->pool_doc, on_pool_doc, POOL_DOC_DELAY, 0.);
    if (c->opts.once)
        return; /* --once makes no box ahead: nothing would take it */
    ev_timer_start(c->loop, &c->pool_timer);
    pool_doc_touch(c); /* a stale document of a killed run goes */
}

void
box_pool_drain(struct ctl *c, const char *why)
{
    struct ctl_box *b, *next;

    for (b = c->boxes; b != NULL; b = next) {
        next = b->next;
        if (!b->doomed) {
            box_doom(b, "Drained", why);
            box_go(b);
        }
    }
}

void
box_pool_stop(struct ctl *c)
{
    ev_timer_stop(c->loop, &c->pool_timer);
    ev_timer_stop(c->loop, &c->pool_doc);
    /* the boxes stay on the daemon: nobody recorded them, so the next
     * start's garbage collection removes them */
    while (c->boxes != NULL)
        box_free(c->boxes);
    if (!c->opts.once && c->store != NULL)
        (void)store_doc_del(c->store, STORE_DOC_POOL, c->opts.controller_id,
                            NULL);
}
