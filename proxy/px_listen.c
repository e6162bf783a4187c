/* px_listen.c - the listening socket both proxies open (px_listen.h). */
#include "px_listen.h"

#include <arpa/inet.h>
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
    char ip[INET6_ADDRSTRLEN];
    int one = 1, fd;

    fd = socket(a->sa.sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
                0);
    if (fd < 0)
        return err_sys(e, "socket");
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (bind(fd, &a->sa, len) == -1 || listen(fd, 1024) == -1) {
        err_sys(e, "bind/listen");
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
