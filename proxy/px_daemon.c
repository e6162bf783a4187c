/* px_daemon.c - the daemon shell of egress-proxy and agent-gateway:
 * listen, accept, drain on SIGTERM/SIGINT, run the loop, close what is
 * left (px_daemon.h). */
#include "px_daemon.h"

#include <signal.h>
#include <unistd.h>

#include "container_of.h"
#include "log.h"

void
px_daemon_init(struct px_daemon *d, const struct px_daemon_ops *ops,
               void *arg)
{
    d->loop = NULL;
    d->ops = ops;
    d->arg = arg;
    d->listen_fd = -1;
    d->draining = false;
}

int
px_daemon_listen(struct px_daemon *d, const union px_sockaddr *a, char *name,
                 size_t size, struct err *e)
{
    d->listen_fd = px_listen_open(a, name, size, e);
    return d->listen_fd < 0 ? -1 : 0;
}

static void
px_daemon_on_accept(struct ev_loop *loop, ev_io *w, int revents)
{
    struct px_daemon *d = container_of(w, struct px_daemon, accept_w);

    (void)revents;
    if (px_accept_some(d->listen_fd, d->accept_batch, d->ops->accept,
                       d->arg) == -1) {
        /* Out of descriptors: pause accepting, retry from a timer
         * rather than spin on a listener that stays readable. */
        log_warn("accept");
        ev_io_stop(loop, &d->accept_w);
        ev_timer_set(&d->accept_retry, 0.5, 0.);
        ev_timer_start(loop, &d->accept_retry);
    }
}

static void
px_daemon_on_accept_retry(struct ev_loop *loop, ev_timer *w, int revents)
{
    struct px_daemon *d = container_of(w, struct px_daemon, accept_retry);

    (void)revents;
    if (!d->draining)
        ev_io_start(loop, &d->accept_w);
}

void
px_daemon_maybe_done(struct px_daemon *d)
{
    if (d->draining && d->loop != NULL && d->ops->open(d->arg) == 0)
        ev_break(d->loop, EVBREAK_ALL);
}

static void
px_daemon_on_drain_timeout(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)w;
    (void)revents;
    ev_break(loop, EVBREAK_ALL);
}

/* SIGTERM/SIGINT: stop accepting, give what is open drain_timeout. */
static void
px_daemon_on_signal(struct ev_loop *loop, ev_signal *w, int revents)
{
    struct px_daemon *d = w->signum == SIGTERM
                              ? container_of(w, struct px_daemon, sigterm)
                              : container_of(w, struct px_daemon, sigint);

    (void)revents;
    if (d->draining)
        return;
    log_info("draining: %u connections open", d->ops->open(d->arg));
    d->draining = true;
    ev_io_stop(loop, &d->accept_w);
    ev_timer_stop(loop, &d->accept_retry);
    close(d->listen_fd);
    d->listen_fd = -1;
    ev_timer_set(&d->drain, d->drain_timeout, 0.);
    ev_timer_start(loop, &d->drain);
    d->ops->drain(d->arg);
    px_daemon_maybe_done(d);
}

void
px_daemon_run(struct px_daemon *d, struct ev_loop *loop)
{
    d->loop = loop;
    ev_io_init(&d->accept_w, px_daemon_on_accept, d->listen_fd, EV_READ);
    ev_io_start(loop, &d->accept_w);
    ev_init(&d->accept_retry, px_daemon_on_accept_retry);
    ev_init(&d->drain, px_daemon_on_drain_timeout);
    ev_signal_init(&d->sigterm, px_daemon_on_signal, SIGTERM);
    ev_signal_init(&d->sigint, px_daemon_on_signal, SIGINT);
    ev_signal_start(loop, &d->sigterm);
    ev_signal_start(loop, &d->sigint);
    ev_unref(loop); /* signal watchers alone do not keep the loop */
    ev_unref(loop);
    ev_run(loop, 0);
    d->ops->close_all(d->arg);
    ev_ref(loop);
    ev_ref(loop);
    ev_signal_stop(loop, &d->sigterm);
    ev_signal_stop(loop, &d->sigint);
    ev_timer_stop(loop, &d->drain);
    ev_timer_stop(loop, &d->accept_retry);
    ev_io_stop(loop, &d->accept_w);
}

void
px_daemon_cleanup(struct px_daemon *d)
{
    if (d->listen_fd >= 0)
        close(d->listen_fd);
    d->listen_fd = -1;
}
