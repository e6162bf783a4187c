/* px_listen.c - socket plumbing both proxies share (see px_listen.h). */
#include "px_listen.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

int
px_listen_open(const union px_sockaddr *a, char *name, size_t size,
               struct err *e)
{
    socklen_t len =
        a->sa.sa_family == AF_INET ? sizeof(a->in4) : sizeof(a->in6);
    union px_sockaddr bound;
    char ip[INET6_ADDRSTRLEN + 8]; /* "[addr]:port" */
    int one = 1, fd;

    /* Both proxies listen where --listen says: a failure names it. */
    px_peer_name(a, ip, sizeof(ip));
    fd = socket(a->sa.sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return err_sys(e, "--listen %s: socket", ip);
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (bind(fd, &a->sa, len) == -1 || listen(fd, 1024) == -1) {
        err_sys(e, "--listen %s: cannot listen", ip);
        close(fd);
        return -1;
    }
    len = sizeof(bound);
    getsockname(fd, &bound.sa, &len);
    if (bound.sa.sa_family == AF_INET6) {
        inet_ntop(AF_INET6, &bound.in6.sin6_addr, ip, sizeof(ip));
        snprintf(name, size, "[%s]:%u", ip, ntohs(bound.in6.sin6_port));
    } else {
        inet_ntop(AF_INET, &bound.in4.sin_addr, ip, sizeof(ip));
        snprintf(name, size, "%s:%u", ip, ntohs(bound.in4.sin_port));
    }
    return fd;
}

int
px_accept_some(int listen_fd, int max, px_accept_fn *fn, void *arg)
{
    for (int i = 0; i < max; i++) {
        union px_sockaddr peer;
        socklen_t len = sizeof(peer);
        int fd =
            accept4(listen_fd, &peer.sa, &len, SOCK_NONBLOCK | SOCK_CLOEXEC);

        if (fd >= 0) {
            fn(arg, fd, &peer);
            continue;
        }
        if (errno == EINTR || errno == ECONNABORTED)
            continue;
        if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
            errno == ENOMEM)
            return -1;
        break;
    }
    return 0;
}

void
px_peer_name(const union px_sockaddr *peer, char *out, size_t size)
{
    char ip[INET6_ADDRSTRLEN] = "?";

    if (peer->sa.sa_family == AF_INET6) {
        inet_ntop(AF_INET6, &peer->in6.sin6_addr, ip, sizeof(ip));
        snprintf(out, size, "[%s]:%u", ip, ntohs(peer->in6.sin6_port));
    } else {
        inet_ntop(AF_INET, &peer->in4.sin_addr, ip, sizeof(ip));
        snprintf(out, size, "%s:%u", ip, ntohs(peer->in4.sin_port));
    }
}

int
px_dial_start(const union px_sockaddr *a)
{
    socklen_t len =
        a->sa.sa_family == AF_INET ? sizeof(a->in4) : sizeof(a->in6);
    int fd =
        socket(a->sa.sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

    if (fd < 0)
        return -1;
    if (connect(fd, &a->sa, len) == 0 || errno == EINPROGRESS)
        return fd;
    close(fd);
    return -1;
}

void
px_io_want(struct ev_loop *loop, ev_io *w, int fd, int events)
{
    if (fd < 0)
        return;
    if (ev_is_active(w) && (w->events & (EV_READ | EV_WRITE)) == events)
        return;
    if (!ev_is_active(w) && events == 0)
        return;
    ev_io_stop(loop, w);
    if (events != 0) {
        ev_io_set(w, fd, events);
        ev_io_start(loop, w);
    }
}
