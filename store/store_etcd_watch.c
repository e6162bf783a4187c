/* store_etcd_watch.c - the etcd watch on <prefix>/specs/, driven from the
 * caller's loop without ever blocking on the stream.
 *
 * The one fd the caller waits on is an epoll fd that stays the same for
 * the store's lifetime. In it: the socket(s) of a curl multi handle
 * (CURLMOPT_SOCKETFUNCTION), a timerfd for curl's timeouts
 * (CURLMOPT_TIMERFUNCTION) and a timerfd for restarting after a failure.
 * watch_read drains whichever is ready, hands stream bytes to the parser
 * and returns the changes.
 *
 * No change is missed: the stream starts at the revision the last list
 * saw + 1. When it is compacted, canceled or broken, the watch restarts
 * from a fresh revision R and reports RESYNC: the caller's relist happens
 * at R or later and the new stream delivers everything after R. While
 * etcd cannot be reached, restarts back off (100 ms doubling to 5 s). */
#include "store_etcd_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <curl/curl.h>

#define WATCH_BACKOFF_MIN_MS 100
#define WATCH_BACKOFF_MAX_MS 5000

struct store_etcd_watch {
    int ep;         /* epoll: the watch fd */
    int curl_timer; /* timerfd: curl wants to be called */
    int retry;      /* timerfd: time to restart the stream */
    CURLM *multi;
    CURL *easy; /* the live stream; NULL while none */
    struct curl_slist *headers; /* its Authorization header, or NULL */
    char *body;
    struct store_etcd_wparse parse;
    char specs[512]; /* "<prefix>/specs/" */
    int fails;       /* restarts in a row that did not get going */
    bool resync;     /* report RESYNC with the next read */
};

static void
arm(int tfd, long ms)
{
    struct itimerspec its = { 0 };

    if (ms >= 0) {
        its.it_value.tv_sec = ms / 1000;
        /* 0 would disarm: "now" is one nanosecond */
        its.it_value.tv_nsec = (ms % 1000) * 1000000L + (ms == 0);
    }
    timerfd_settime(tfd, 0, &its, NULL);
}

static int
on_socket(CURL *easy, curl_socket_t fd, int what, void *arg, void *sockp)
{
    struct store_etcd_watch *w = arg;
    struct epoll_event ev = { .data.fd = fd };

    (void)easy;
    (void)sockp;
    if (what == CURL_POLL_REMOVE) {
        epoll_ctl(w->ep, EPOLL_CTL_DEL, fd, NULL);
        return 0;
    }
    if (what & CURL_POLL_IN)
        ev.events |= EPOLLIN;
    if (what & CURL_POLL_OUT)
        ev.events |= EPOLLOUT;
    if (epoll_ctl(w->ep, EPOLL_CTL_MOD, fd, &ev) == -1 && errno == ENOENT)
        epoll_ctl(w->ep, EPOLL_CTL_ADD, fd, &ev);
    return 0;
}

static int
on_timer(CURLM *multi, long ms, void *arg)
{
    struct store_etcd_watch *w = arg;

    (void)multi;
    arm(w->curl_timer, ms);
    return 0;
}

static size_t
on_stream(char *p, size_t size, size_t nmemb, void *arg)
{
    struct store_etcd_watch *w = arg;

    if (store__etcd_wparse_feed(&w->parse, p, size * nmemb, NULL) == -1)
        return 0; /* a message over the cap: end the stream, restart */
    return size * nmemb;
}

static void
stop_stream(struct store_etcd_watch *w)
{
    if (w->easy != NULL) {
        curl_multi_remove_handle(w->multi, w->easy);
        curl_easy_cleanup(w->easy);
        w->easy = NULL;
    }
    curl_slist_free_all(w->headers);
    w->headers = NULL;
    free(w->body);
    w->body = NULL;
    buf_reset(&w->parse.pending);
}

/* Ask for the changes from revision from on, on the endpoint that
 * answered last. */
static int
start_stream(struct store_etcd *s, int64_t from, struct err *e)
{
    struct store_etcd_watch *w = s->w;
    char end[512], url[1024], rev[24];
    cJSON *req = cJSON_CreateObject(), *cr;

    stop_stream(w);
    store__etcd_prefix_end(w->specs, end, sizeof(end));
    snprintf(rev, sizeof(rev), "%" PRId64, from);
    cr = store__etcd_range(w->specs, end, false);
    if (req == NULL || cr == NULL ||
        !cJSON_AddStringToObject(cr, "start_revision", rev)) {
        cJSON_Delete(cr);
        cJSON_Delete(req);
        return err_set(e, ERR_NOMEM, "out of memory");
    }
    cJSON_AddItemToObject(req, "create_request", cr);
    w->body = cJSON_PrintUnformatted(req);
    cJSON_Delete(req);
    w->easy = curl_easy_init();
    if (w->body == NULL || w->easy == NULL) {
        stop_stream(w);
        return err_set(e, ERR_NOMEM, "out of memory");
    }
    snprintf(url, sizeof(url), "%s/v3/watch", s->eps[s->cur]);
    curl_easy_setopt(w->easy, CURLOPT_URL, url);
    curl_easy_setopt(w->easy, CURLOPT_POSTFIELDS, w->body);
    curl_easy_setopt(w->easy, CURLOPT_WRITEFUNCTION, on_stream);
    curl_easy_setopt(w->easy, CURLOPT_WRITEDATA, w);
    curl_easy_setopt(w->easy, CURLOPT_CONNECTTIMEOUT_MS,
                     (long)STORE_ETCD_CONNECT_MS);
    curl_easy_setopt(w->easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(w->easy, CURLOPT_PROTOCOLS_STR, "http,https");
    /* a silent peer that vanished is found by TCP keepalive */
    curl_easy_setopt(w->easy, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(w->easy, CURLOPT_TCP_KEEPIDLE, 10L);
    curl_easy_setopt(w->easy, CURLOPT_TCP_KEEPINTVL, 5L);
    if (store__etcd_secure(s, w->easy, &w->headers) == -1) {
        stop_stream(w);
        return err_set(e, ERR_NOMEM, "out of memory");
    }
    if (curl_multi_add_handle(w->multi, w->easy) != CURLM_OK) {
        stop_stream(w);
        return err_set(e, ERR_NOMEM, "cannot start the etcd watch");
    }
    return 0;
}

/* Start over from a fresh revision and have the caller relist. After a
 * restart that did not get going (no "created" yet), or when now is
 * false and one already failed, wait first: 100 ms doubling to 5 s. */
static void
restart(struct store_etcd *s, bool now)
{
    struct store_etcd_watch *w = s->w;
    int64_t rev;
    long ms;

    stop_stream(w);
    if (now || w->fails == 0) {
        w->fails++;
        if (store__etcd_revision(s, &rev, NULL) == 0 &&
            start_stream(s, rev + 1, NULL) == 0) {
            w->resync = true;
            return;
        }
    }
    ms = WATCH_BACKOFF_MIN_MS << (w->fails < 7 ? w->fails - 1 : 6);
    arm(w->retry, ms < WATCH_BACKOFF_MAX_MS ? ms : WATCH_BACKOFF_MAX_MS);
}

static void
watch_free(struct store_etcd_watch *w)
{
    stop_stream(w);
    if (w->multi != NULL)
        curl_multi_cleanup(w->multi);
    store__etcd_wparse_cleanup(&w->parse);
    if (w->ep != -1)
        close(w->ep);
    if (w->curl_timer != -1)
        close(w->curl_timer);
    if (w->retry != -1)
        close(w->retry);
    free(w);
}

void
store__etcd_watch_free(struct store_etcd *s)
{
    if (s->w != NULL)
        watch_free(s->w);
    s->w = NULL;
}

static int
watch_new(struct store_etcd *s, struct err *e)
{
    struct store_etcd_watch *w = calloc(1, sizeof(*w));
    struct epoll_event ev = { .events = EPOLLIN };

    if (w == NULL)
        return err_set(e, ERR_NOMEM, "out of memory");
    w->ep = epoll_create1(EPOLL_CLOEXEC);
    w->curl_timer = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    w->retry = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    w->multi = curl_multi_init();
    store__etcd_key(s, w->specs, sizeof(w->specs), NULL, "specs/");
    store__etcd_wparse_init(&w->parse, w->specs);
    if (w->ep == -1 || w->curl_timer == -1 || w->retry == -1 ||
        w->multi == NULL) {
        err_sys(e, "cannot set up the etcd watch");
        watch_free(w);
        return -1;
    }
    ev.data.fd = w->curl_timer;
    epoll_ctl(w->ep, EPOLL_CTL_ADD, w->curl_timer, &ev);
    ev.data.fd = w->retry;
    epoll_ctl(w->ep, EPOLL_CTL_ADD, w->retry, &ev);
    curl_multi_setopt(w->multi, CURLMOPT_SOCKETFUNCTION, on_socket);
    curl_multi_setopt(w->multi, CURLMOPT_SOCKETDATA, w);
    curl_multi_setopt(w->multi, CURLMOPT_TIMERFUNCTION, on_timer);
    curl_multi_setopt(w->multi, CURLMOPT_TIMERDATA, w);
    s->w = w;
    return 0;
}

int
store__etcd_watch_fd(struct store *st, struct err *e)
{
    struct store_etcd *s = (struct store_etcd *)st;

    if (s->w != NULL)
        return s->w->ep;
    if (watch_new(s, e) == -1)
        return -1;
    /* from what the last list saw; with no list yet, from now (the
     * caller's first list comes after and covers the rest) */
    if (s->list_rev > 0 && start_stream(s, s->list_rev + 1, NULL) == 0)
        return s->w->ep;
    restart(s, true);
    s->w->resync = false; /* nothing was listed yet: nothing to redo */
    return s->w->ep;
}

static bool
drained(int tfd)
{
    uint64_t ticks;

    return read(tfd, &ticks, sizeof(ticks)) == (ssize_t)sizeof(ticks);
}

/* Let curl do what the ready fds allow; true when the stream ended. */
static bool
drive(struct store_etcd *s, bool *retry_due)
{
    struct store_etcd_watch *w = s->w;
    struct epoll_event evs[8];
    int n = epoll_wait(w->ep, evs, 8, 0), running;
    CURLMsg *m;
    bool ended = false;

    for (int i = 0; i < n; i++) {
        int fd = evs[i].data.fd, flags = 0;

        if (fd == w->retry) {
            *retry_due = drained(w->retry) || *retry_due;
            continue;
        }
        if (fd == w->curl_timer) {
            if (drained(w->curl_timer))
                curl_multi_socket_action(w->multi, CURL_SOCKET_TIMEOUT, 0,
                                         &running);
            continue;
        }
        flags |= (evs[i].events & EPOLLIN) ? CURL_CSELECT_IN : 0;
        flags |= (evs[i].events & EPOLLOUT) ? CURL_CSELECT_OUT : 0;
        flags |= (evs[i].events & (EPOLLERR | EPOLLHUP)) ? CURL_CSELECT_ERR : 0;
        curl_multi_socket_action(w->multi, fd, flags, &running);
    }
    while ((m = curl_multi_info_read(w->multi, &running)) != NULL)
        if (m->msg == CURLMSG_DONE && m->easy_handle == w->easy)
            ended = true;
    return ended;
}

int
store__etcd_watch_read(struct store *st, struct store_change *out, size_t max,
                       size_t *n, struct err *e)
{
    struct store_etcd *s = (struct store_etcd *)st;
    struct store_etcd_watch *w;
    enum store_etcd_wmsg kind;
    bool over = false, broken, retry_due = false;
    int64_t rev;

    *n = 0;
    if (max < 2)
        return err_set(e, ERR_INVALID, "room for at least 2 changes needed");
    if (s->w == NULL && store__etcd_watch_fd(st, e) == -1)
        return -1;
    w = s->w;
    broken = drive(s, &retry_due);
    /* what came before a break still counts; keep a slot for RESYNC */
    do {
        if (store__etcd_wparse_next(&w->parse, &kind, &rev, out, max - 1, n,
                                    &over, NULL) == -1) {
            broken = true;
            break;
        }
        if (kind == STORE_ETCD_WMSG_CREATED)
            w->fails = 0;
        if (kind == STORE_ETCD_WMSG_COMPACTED)
            broken = true;
    } while (kind != STORE_ETCD_WMSG_NONE && !broken);
    if (broken)
        restart(s, false);
    else if (retry_due && w->easy == NULL)
        restart(s, true);
    if (over || w->resync) {
        out[*n].kind = STORE_CHANGE_RESYNC;
        out[*n].name[0] = '\0';
        (*n)++;
        w->resync = false;
    }
    return 0;
}
