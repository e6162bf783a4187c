/* px_daemon.h - the daemon shell both proxies (egress-proxy,
 * agent-gateway) share: the listening socket, accepting (paused and
 * retried from a timer when out of descriptors), SIGTERM/SIGINT (stop
 * accepting, let what is open finish for the drain time, then stop), the
 * loop, the last close. What is theirs comes in through px_daemon_ops.
 */
#ifndef PX_DAEMON_H
#define PX_DAEMON_H

#include <ev.h>
#include <stdbool.h>
#include <stddef.h>

#include "err.h"
#include "px_listen.h"

struct px_daemon_ops {
    px_accept_fn *accept; /* each accepted socket (non-blocking) */
    /* Draining has begun: refuse or close what has not really started
     * (the daemon then stops when nothing is left). */
    void (*drain)(void *arg);
    /* Connections still open (logged when the drain begins; 0 lets a
     * draining daemon stop). */
    unsigned (*open)(void *arg);
    /* After the loop: close every connection left. */
    void (*close_all)(void *arg);
};

struct px_daemon {
    struct ev_loop *loop; /* while it runs */
    const struct px_daemon_ops *ops;
    void *arg;
    int accept_batch; /* connections accepted per wake-up */
    double drain_timeout;
    int listen_fd;    /* -1 when closed */
    ev_io accept_w;
    ev_timer accept_retry; /* after EMFILE: accept again later */
    ev_signal sigterm, sigint;
    ev_timer drain; /* bounds the wait for connections after SIGTERM */
    bool draining;
};

/* Ready d (no socket yet, nothing started): first thing, so that
 * px_daemon_cleanup holds on every way out. */
void px_daemon_init(struct px_daemon *d, const struct px_daemon_ops *ops,
                    void *arg);

/* Open the listening socket on a; name gets its "ip:port". -1 with e. */
int px_daemon_listen(struct px_daemon *d, const union px_sockaddr *a,
                     char *name, size_t size, struct err *e);

/* Accept and serve until a signal's drain is over (or nothing is left
 * open while draining), then close what is left and stop every watcher
 * of the shell. */
void px_daemon_run(struct px_daemon *d, struct ev_loop *loop);

/* While draining, stop the loop when no connection is left (the
 * connection modules call it after each close). */
void px_daemon_maybe_done(struct px_daemon *d);

/* Close the listening socket if it is still open. */
void px_daemon_cleanup(struct px_daemon *d);

#endif
