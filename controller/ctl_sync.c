/* ctl_sync.c - keep one struct ctl_inv per invocation in step with the
 * store (inotify watch plus the resync timer as a backstop), and queue
 * passes with per-invocation exponential backoff. */
#include "ctl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "rc_credential.h"
#include "rc_desired.h"

static void ctl_inv_on_kick(struct ev_loop *loop, ev_timer *w, int revents);
static void ctl_inv_on_deadline(struct ev_loop *loop, ev_timer *w, int revents);

struct ctl_inv *
ctl_inv_find(struct ctl *c, const char *name)
{
    for (struct ctl_inv *i = c->invs; i != NULL; i = i->next)
        if (strcmp(i->name, name) == 0)
            return i;
    return NULL;
}

struct ctl_inv *
ctl_inv_by_uid(struct ctl *c, const char *uid)
{
    for (struct ctl_inv *i = c->invs; i != NULL; i = i->next) {
        const char *u = i->rec.uid;

        if (u != NULL && strcmp(u, uid) == 0)
            return i;
    }
    return NULL;
}

static struct ctl_inv *
ctl_inv_new(struct ctl *c, const char *name)
{
    struct ctl_inv *inv = calloc(1, sizeof(*inv));
    struct err e;

    if (inv == NULL)
        return NULL;
    inv->ctl = c;
    snprintf(inv->name, sizeof(inv->name), "%s", name);
    ev_timer_init(&inv->kick, ctl_inv_on_kick, 0., 0.);
    ev_timer_init(&inv->deadline, ctl_inv_on_deadline, 0., 0.);
    if (ctl_status_load(inv, &e) == -1)
        log_kv(LOG_WARN, "status unreadable, starting afresh", "invocation",
               name, "error", e.msg, NULL);
    inv->next = c->invs;
    c->invs = inv;
    return inv;
}

void
ctl_inv_forget(struct ctl_inv *inv)
{
    struct ctl *c = inv->ctl;
    struct ctl_inv **pp;

    for (pp = &c->invs; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == inv) {
            *pp = inv->next;
            break;
        }
    }
    ev_timer_stop(c->loop, &inv->kick);
    ev_timer_stop(c->loop, &inv->deadline);
    ctl_run_detach(inv);
    dk_cancel(inv->call);
    cJSON_Delete(inv->pending_inspect);
    spec_invocation_free(inv->spec);
    rc_credential_free(inv->credential);
    spec_invocation_free(inv->captured);
    rc_desired_free(inv->desired);
    ctl_record_cleanup(&inv->rec);
    free(inv);
}

void
ctl_inv_kick(struct ctl_inv *inv, double after)
{
    struct ev_loop *loop = inv->ctl->loop;

    /* An earlier kick wins: never postpone work already due sooner. */
    if (ev_is_active(&inv->kick) &&
        ev_timer_remaining(loop, &inv->kick) <= after)
        return;
    ev_timer_stop(loop, &inv->kick);
    ev_timer_set(&inv->kick, after, 0.);
    ev_timer_start(loop, &inv->kick);
}

void
ctl_inv_backoff(struct ctl_inv *inv, const struct err *why)
{
    double delay = CTL_BACKOFF_MIN * pow(2.0, inv->failures);

    if (delay > CTL_BACKOFF_MAX)
        delay = CTL_BACKOFF_MAX;
    inv->failures++;
    inv->ctl->reconciles_error++;
    inv->ctl->queue_retries++;
    if (why != NULL && why->code == ERR_UNAVAIL && inv->rec.present &&
        inv->rec.phase == CTL_RUNNING)
        inv->daemon_lost = true;
    if (why != NULL && why->code == ERR_UNAVAIL && inv->ctl->docker_up) {
        snprintf(inv->ctl->docker_error, sizeof(inv->ctl->docker_error), "%s",
                 why->msg);
        inv->ctl->docker_up = false;
    }
    log_kv(LOG_WARN, "step failed, will retry", "invocation", inv->name,
           "error", why ? why->msg : "unknown", NULL);
    ctl_condition_step_failed(inv, why);
    ev_timer_stop(inv->ctl->loop, &inv->kick);
    ev_timer_set(&inv->kick, delay, 0.);
    ev_timer_start(inv->ctl->loop, &inv->kick);
}

static void
ctl_inv_on_kick(struct ev_loop *loop, ev_timer *w, int revents)
{
    struct ctl_inv *inv = container_of(w, struct ctl_inv, kick);

    (void)loop;
    (void)revents;
    ctl_inv_pass(inv);
}

static void
ctl_inv_on_deadline(struct ev_loop *loop, ev_timer *w, int revents)
{
    struct ctl_inv *inv = container_of(w, struct ctl_inv, deadline);

    (void)loop;
    (void)revents;
    ctl_run_stop(inv, CTL_FAILED, CTL_STOP_DEADLINE,
                 "the attempt ran past spec.deadlineSeconds");
    ctl_inv_kick(inv, 0);
}

/* Take in what the store says about one name. */
static void
ctl_sync_spec(struct ctl *c, struct store_spec *sp)
{
    struct ctl_inv *inv = ctl_inv_find(c, sp->name);
    struct err e;

    if (inv == NULL && (inv = ctl_inv_new(c, sp->name)) == NULL)
        return;
    inv->deleted = false;
    if (sp->inv == NULL) {
        inv->spec_invalid = true;
        if (sp->errors != NULL && sp->errors->n > 0) {
            char msg[600];

            err_format(&sp->errors->items[0], msg, sizeof(msg));
            inv->invalid_msg_set = true;
            snprintf(inv->invalid_msg, sizeof(inv->invalid_msg), "%s", msg);
        }
    } else {
        inv->spec_invalid = false;
        if (store_meta_observe(c->store, sp->name, sp->inv->spec_hash,
                               &inv->meta, &e) == -1) {
            ctl_inv_backoff(inv, &e);
            return;
        }
        spec_invocation_free(inv->spec);
        inv->spec = sp->inv;
        sp->inv = NULL;
        ctl_inv_spec_changed(inv);
    }
    ctl_inv_revalidate(inv);
}

/* Status documents whose spec is gone (deleted while the controller was
 * down) still own Docker objects: adopt them as deleted invocations. */
static void
ctl_sync_orphan_statuses(struct ctl *c)
{
    char **names = NULL;
    size_t n = 0;
    struct err e;

    if (store_doc_names(c->store, STORE_DOC_STATUS, &names, &n, &e) == -1)
        return;
    for (size_t i = 0; i < n; i++) {
        struct ctl_inv *inv = ctl_inv_find(c, names[i]);

        if (inv == NULL && (inv = ctl_inv_new(c, names[i])) != NULL) {
            inv->deleted = true;
            ctl_inv_kick(inv, 0);
        }
    }
    store_names_free(names, n);
}

void
ctl_sync_all(struct ctl *c)
{
    struct store_list l;
    struct err e;

    if (store_list(c->store, &l, &e) == -1) {
        log_kv(LOG_WARN, "cannot list specs", "error", e.msg, NULL);
        return;
    }
    for (struct ctl_inv *inv = c->invs; inv != NULL; inv = inv->next)
        inv->seen = false;
    for (size_t i = 0; i < l.n; i++) {
        ctl_sync_spec(c, &l.items[i]);
        struct ctl_inv *inv = ctl_inv_find(c, l.items[i].name);
        if (inv != NULL)
            inv->seen = true;
    }
    for (struct ctl_inv *inv = c->invs; inv != NULL; inv = inv->next) {
        if (!inv->seen && !inv->deleted) {
            inv->deleted = true;
            ctl_inv_kick(inv, 0);
        }
    }
    store_list_cleanup(&l);
    ctl_sync_orphan_statuses(c);
}

static void
ctl_sync_one(struct ctl *c, const char *name)
{
    struct store_spec sp;
    struct ctl_inv *inv;
    struct err e;

    if (store_get(c->store, name, &sp, &e) == 0) {
        ctl_sync_spec(c, &sp);
        store_spec_cleanup(&sp);
        return;
    }
    inv = ctl_inv_find(c, name);
    if (e.code == ERR_NOTFOUND && inv != NULL) {
        inv->deleted = true;
        ctl_inv_kick(inv, 0);
    }
}

static void
ctl_sync_on_watch(struct ev_loop *loop, ev_io *w, int revents)
{
    struct ctl *c = container_of(w, struct ctl, store_watch);
    struct store_change ch[64];
    struct err e;
    size_t n = 0;

    (void)loop;
    (void)revents;
    if (store_watch_read(c->store, ch, 64, &n, &e) == -1) {
        log_kv(LOG_WARN, "store watch failed, resyncing", "error", e.msg, NULL);
        ctl_sync_all(c);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        if (ch[i].kind == STORE_CHANGE_RESYNC) {
            ctl_sync_all(c);
            return;
        }
        ctl_sync_one(c, ch[i].name);
    }
}

static void
ctl_sync_on_resync(struct ev_loop *loop, ev_timer *w, int revents)
{
    struct ctl *c = container_of(w, struct ctl, resync);

    (void)loop;
    (void)revents;
    if (!c->docker_up)
        ctl_check_docker(c);
    ctl_sync_all(c);
    ctl_gc_run(c);
}

int
ctl_sync_start(struct ctl *c, struct err *e)
{
    int fd = store_watch_fd(c->store, e);

    if (fd == -1)
        return -1;
    ev_io_init(&c->store_watch, ctl_sync_on_watch, fd, EV_READ);
    ev_io_start(c->loop, &c->store_watch);
    ev_timer_init(&c->resync, ctl_sync_on_resync, c->opts.resync_s,
                  c->opts.resync_s);
    ev_timer_start(c->loop, &c->resync);
    ctl_sync_all(c);
    return 0;
}

void
ctl_sync_stop(struct ctl *c)
{
    ev_io_stop(c->loop, &c->store_watch);
    ev_timer_stop(c->loop, &c->resync);
}

bool
ctl_idle(const struct ctl *c)
{
    for (const struct ctl_inv *i = c->invs; i != NULL; i = i->next)
        if (i->call != NULL || ev_is_active(&i->kick) || i->logs != NULL ||
            i->wait != NULL)
            return false;
    return true;
}
