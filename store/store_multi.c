/* store_multi.c - a curl multi handle driven from one epoll fd, the way
 * the remote stores' watches run inside the caller's loop: curl's
 * sockets and a timerfd for its timeouts live in the epoll fd the caller
 * waits on (store_int.h "struct store_multi_fds"). */
#include "store_int.h"

#include <errno.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

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

/* A timerfd that fired is read (else it stays ready): true when it had. */
static bool
drained(int tfd)
{
    uint64_t ticks;

    return read(tfd, &ticks, sizeof(ticks)) == (ssize_t)sizeof(ticks);
}

bool
store__multi_drive(void *multi, const struct store_multi_fds *m, int retry)
{
    struct epoll_event evs[16];
    int n = epoll_wait(m->ep, evs, 16, 0), running;
    bool retry_due = false;

    for (int i = 0; i < n; i++) {
        int fd = evs[i].data.fd, flags = 0;

        if (fd == retry) {
            retry_due = drained(retry) || retry_due;
            continue;
        }
        if (fd == m->curl_timer) {
            if (drained(m->curl_timer))
                curl_multi_socket_action(multi, CURL_SOCKET_TIMEOUT, 0,
                                         &running);
            continue;
        }
        flags |= (evs[i].events & EPOLLIN) ? CURL_CSELECT_IN : 0;
        flags |= (evs[i].events & EPOLLOUT) ? CURL_CSELECT_OUT : 0;
        flags |= (evs[i].events & (EPOLLERR | EPOLLHUP)) ? CURL_CSELECT_ERR : 0;
        curl_multi_socket_action(multi, fd, flags, &running);
    }
    return retry_due;
}
