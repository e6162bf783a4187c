/* store_multi.c - a curl multi handle driven from one epoll fd, the way
 * the remote stores' watches run inside the caller's loop: curl's
 * sockets and a timerfd for its timeouts live in the epoll fd the caller
 * waits on (store_int.h "struct store_multi_fds"). */
#include "store_int.h"

#include <errno.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>

#include <curl/curl.h>

void
store__timer_arm(int tfd, long ms)
{
    struct itimerspec its = { 0 };

    if (ms >= 0) {
        its.it_value.tv_sec = ms / 1000;
        /* 0 would disarm: "now" is one nanosecond */
        its.it_value.tv_nsec = (ms % 1000) * 1000000L + (ms == 0);
    }
    timerfd_settime(tfd, 0, &its, NULL);
}

int
store__multi_on_socket(void *easy, int fd, int what, void *arg, void *sockp)
{
    struct store_multi_fds *m = arg;
    struct epoll_event ev = { .data.fd = fd };

    (void)easy;
    (void)sockp;
    if (what == CURL_POLL_REMOVE) {
        epoll_ctl(m->ep, EPOLL_CTL_DEL, fd, NULL);
        return 0;
    }
    if (what & CURL_POLL_IN)
        ev.events |= EPOLLIN;
    if (what & CURL_POLL_OUT)
        ev.events |= EPOLLOUT;
    if (epoll_ctl(m->ep, EPOLL_CTL_MOD, fd, &ev) == -1 && errno == ENOENT)
        epoll_ctl(m->ep, EPOLL_CTL_ADD, fd, &ev);
    return 0;
}

int
store__multi_on_timer(void *multi, long ms, void *arg)
{
    struct store_multi_fds *m = arg;

    (void)multi;
    store__timer_arm(m->curl_timer, ms);
    return 0;
}
