/* px_listen.h - socket plumbing both proxies (egress-proxy,
 * agent-gateway) share: the listening socket, the accept loop, a peer's
 * name, a non-blocking dial and watcher updates. */
#ifndef PX_LISTEN_H
#define PX_LISTEN_H

#include <ev.h>
#include <stddef.h>

#include "err.h"
#include "px_dns.h"

/* Open a non-blocking listening TCP socket on a; name gets the bound
 * "ip:port" (the kernel's port when a asked for 0). Returns the fd or -1
 * with e. */
int px_listen_open(const union px_sockaddr *a, char *name, size_t size,
                   struct err *e);

/* Called with each accepted socket (non-blocking, close-on-exec). */
typedef void px_accept_fn(void *arg, int fd, const union px_sockaddr *peer);

/* Accept up to max connections waiting on listen_fd. Returns -1 (errno
 * set) when out of descriptors or memory: the caller pauses accepting
 * and retries from a timer rather than spin on a readable listener. */
int px_accept_some(int listen_fd, int max, px_accept_fn *fn, void *arg);

/* "ip:port" ("[v6]:port") of a peer into out. */
void px_peer_name(const union px_sockaddr *peer, char *out, size_t size);

/* Start a non-blocking connect to a. Returns the socket (connected or
 * in progress: wait for EV_WRITE, then SO_ERROR), or -1. */
int px_dial_start(const union px_sockaddr *a);

/* Watch fd for events (EV_READ|EV_WRITE, 0 = none), touching the loop
 * only when something changed; fd < 0 is ignored. */
void px_io_want(struct ev_loop *loop, ev_io *w, int fd, int events);

#endif
