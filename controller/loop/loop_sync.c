/* loop_sync.c - keep one struct ctl_inv per invocation in step with the
 * store, and queue a pass for each one that changed: a list at start,
 * then the watch (one read per changed name); a relist only when the
 * watch says changes were lost or fails. The resync timer re-queues every
 * invocation from memory and reads nothing from the store. */
#include "loop_sync.h"

#include <stdlib.h>
#include <string.h>

#include "loop_docker.h"
#include "loop_gc.h"
#include "pass_inv.h"
#include "obs_observe.h"
#include "obs_invalid.h"
#include "inv_queue.h"
#include "try_result.h"
#include "log.h"

/* Take in what the store says about one name. */
static void
loop_sync_spec(struct ctl *c, struct store_spec *sp)
{
    struct ctl_inv *inv = inv_find(c, sp->name);
    bool known;
    struct err e;

    if (inv == NULL && (inv = pass_inv_add(c, sp->name)) == NULL)
        return;
    /* the same spec as before, never deleted meanwhile: its uid and
     * generation are the ones in memory (no metadata read) */
    known = !inv->deleted && inv->spec != NULL && sp->inv != NULL &&
            inv->meta.generation > 0 &&
            strcmp(inv->spec->spec_hash, sp->inv->spec_hash) == 0;
    inv->deleted = false;
    obs_invalid_seen(inv, sp->rev); /* logged once per version if invalid */
    if (sp->inv == NULL) {
        inv->invalid.spec = true;
        if (sp->errors != NULL && sp->errors->n > 0) {
            char msg[600];

            err_format(&sp->errors->items[0], msg, sizeof(msg));
            free(inv->invalid.msg);
            inv->invalid.msg = strdup(msg); /* NULL: a generic message */
        }
    } else {
        inv->invalid.spec = false;
        if (!known && store_meta_observe(c->store, sp->name, sp->inv->spec_hash,
                                         &inv->meta, &e) == -1) {
            /* the watch will not say it again: the resync reads it */
            inv->meta_unwritten = true;
            obs_observe_state_write(c, &e);
            try_inv_settle(inv, try_step_failed(inv, &e));
            return;
        }
        inv->meta_unwritten = false;
        spec_invocation_free(inv->spec);
        inv->spec = sp->inv;
        sp->inv = NULL;
        pass_inv_spec_changed(inv);
    }
    obs_invalid_note(inv);
    inv_revalidate(inv);
}

/* Status documents whose spec is gone (deleted while the controller was
 * down) still own Docker objects: adopt them as deleted invocations. */
static void
loop_sync_orphan_statuses(struct ctl *c)
{
    char **names = NULL;
    size_t n = 0;
    struct err e;

    if (store_doc_names(c->store, STORE_DOC_STATUS, &names, &n, &e) == -1)
        return;
    for (size_t i = 0; i < n; i++) {
        struct ctl_inv *inv = inv_find(c, names[i]);

        if (inv == NULL && (inv = pass_inv_add(c, names[i])) != NULL) {
            inv->deleted = true;
            inv_kick(inv, 0);
        }
    }
    store_names_free(names, n);
}

void
loop_sync_all(struct ctl *c)
{
    struct store_list l;
    struct err e;

    /* etcd: its lists, sent without blocking, are not all in; the RESYNC
     * that says they are lists then, from the cache (not etcd, the
     * blocking way, as store_list would now) */
    if (!store_watch_primed(c->store))
        return;
    if (store_list(c->store, &l, &e) == -1) {
        log_kv(LOG_WARN, "cannot list specs", "error", e.msg, NULL);
        return;
    }
    c->listed = true;
    for (struct ctl_inv *inv = c->invs; inv != NULL; inv = inv->next)
        inv->seen = false;
    for (size_t i = 0; i < l.n; i++) {
        loop_sync_spec(c, &l.items[i]);
        struct ctl_inv *inv = inv_find(c, l.items[i].name);
        if (inv != NULL)
            inv->seen = true;
    }
    for (struct ctl_inv *inv = c->invs; inv != NULL; inv = inv->next) {
        if (!inv->seen && !inv->deleted) {
            inv->deleted = true;
            inv_kick(inv, 0);
        }
    }
    store_list_cleanup(&l);
    loop_sync_orphan_statuses(c);
}

static void
loop_sync_one(struct ctl *c, const char *name)
{
    struct store_spec sp;
    struct ctl_inv *inv;
    struct err e;

    if (store_get(c->store, name, &sp, &e) == 0) {
        loop_sync_spec(c, &sp);
        store_spec_cleanup(&sp);
        return;
    }
    inv = inv_find(c, name);
    if (e.code == ERR_NOTFOUND && inv != NULL) {
        inv->deleted = true;
        inv_kick(inv, 0);
    }
}

/* Changes taken per read of the watch, and reads per callback: as many
 * as come within CTL_PASS_SLICE (reading a change parses its file on the
 * directory store), so a bulk apply's specs are queued for their first
 * pass before the Docker answers of the first ones come back (passes run
 * first in, first out), and the loop still serves /healthz and the
 * agents' timers between slices. What is left stays readable for the
 * next iteration. */
#define WATCH_BATCH 64
#define WATCH_READS 16

static void
loop_sync_on_watch(struct ev_loop *loop, ev_io *w, int revents)
{
    struct ctl *c = container_of(w, struct ctl, store_watch);
    struct store_change ch[WATCH_BATCH];
    double started = ev_time();
    struct err e;
    size_t n = WATCH_BATCH;

    (void)loop;
    (void)revents;
    for (int r = 0; r < WATCH_READS && n == WATCH_BATCH &&
                    ev_time() - started <= CTL_PASS_SLICE;
         r++) {
        if (store_watch_read(c->store, ch, WATCH_BATCH, &n, &e) == -1) {
            log_kv(LOG_WARN, "store watch failed, resyncing", "error", e.msg,
                   NULL);
            loop_sync_all(c);
            return;
        }
        for (size_t i = 0; i < n; i++) {
            if (ch[i].kind == STORE_CHANGE_RESYNC) {
                loop_sync_all(c);
                return;
            }
            /* before every directory is listed a name's metadata would
             * be read the blocking way; the RESYNC that says they are
             * has the list take this change in */
            if (store_watch_primed(c->store))
                loop_sync_one(c, ch[i].name);
        }
    }
}

/* The resync timer: every known invocation gets a pass with its live
 * Docker state checked again, from what the controller holds - the
 * watch keeps that in step with the store, and relists when it cannot
 * (RESYNC), so the timer itself reads nothing from the store. */
void
loop_sync_requeue(struct ctl *c)
{
    for (struct ctl_inv *inv = c->invs; inv != NULL; inv = inv->next) {
        obs_invalid_note(inv); /* once per version: nothing, mostly */
        if (inv->meta_unwritten && !inv->deleted)
            loop_sync_one(c, inv->name); /* a state dir that was read-only */
        else if (!inv->deleted)
            inv_resync(inv);
    }
}

static void
loop_sync_on_resync(struct ev_loop *loop, ev_timer *w, int revents)
{
    struct ctl *c = container_of(w, struct ctl, resync);

    (void)loop;
    (void)revents;
    if (inv_once_gave_up(c))
        return;
    if (!c->listed) /* the first list failed: the watch may never say */
        loop_sync_all(c);
    if (!c->docker_up)
        loop_check_docker(c);
    loop_sync_requeue(c);
    loop_gc_run(c);
    if (c->opts.once && inv_idle(c)) /* a late first list found nothing */
        ev_break(c->loop, EVBREAK_ALL);
}

int
loop_sync_start(struct ctl *c, struct err *e)
{
    int fd = store_watch_fd(c->store, e);

    if (fd == -1)
        return -1;
    ev_io_init(&c->store_watch, loop_sync_on_watch, fd, EV_READ);
    ev_io_start(c->loop, &c->store_watch);
    ev_timer_init(&c->resync, loop_sync_on_resync, c->opts.resync_s,
                  c->opts.resync_s);
    ev_timer_start(c->loop, &c->resync);
    loop_sync_all(c);
    return 0;
}

void
loop_sync_stop(struct ctl *c)
{
    ev_io_stop(c->loop, &c->store_watch);
    ev_timer_stop(c->loop, &c->resync);
}
