/* store_etcd_watch.c - the etcd watches of the informer cache, one stream
 * per key directory the cache holds (specs, status, meta, claims: one
 * watch cannot cover them without also covering events/ and output/),
 * driven from the caller's loop without ever blocking on a stream.
 *
 * The one fd the caller waits on is an epoll fd that stays the same for
 * the store's lifetime. In it: the socket(s) of a curl multi handle
 * (CURLMOPT_SOCKETFUNCTION), a timerfd for curl's timeouts
 * (CURLMOPT_TIMERFUNCTION) and a timerfd for restarting after a failure.
 * watch_read drains whichever is ready, hands stream bytes to the parser
 * and returns the changes.
 *
 * No change is missed: each stream starts at the revision of its
 * directory's list + 1 (store_etcd_informer.c). When one is compacted,
 * canceled or broken, that directory is listed again into the cache at a
 * fresh revision R and its stream restarts from R + 1; for specs/ a
 * RESYNC is reported, and the caller's relist is then served from the
 * cache. While etcd cannot be reached, restarts back off (100 ms doubling
 * to 5 s) and the cache serves what it last knew (as a controller-runtime
 * informer does); writes fail meanwhile. */
#include "store_etcd_int.h"
#include "store_int.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <curl/curl.h>

#define WATCH_BACKOFF_MIN_MS 100
#define WATCH_BACKOFF_MAX_MS 5000

/* One watch stream: the changes of <prefix>/<dir>/. */
struct stream {
    enum store_etcd_part part;
    CURL *easy; /* NULL while none */
    struct curl_slist *headers; /* its Authorization header, or NULL */
    char *body;
    struct store_etcd_wparse parse;
    char dir[512]; /* "<prefix>/<dir>/" */
    int fails;     /* restarts in a row that did not get going */
    struct store_etcd *s; /* for the answer of its list */
    bool listing;  /* its list is out (store_etcd_loop.c): no stream */
    bool listed;   /* listed once: the cache can serve it */
};

struct store_etcd_watch {
    struct store_multi_fds fds; /* epoll (the watch fd) and curl's timerfd:
                                   the multi handle runs on them
                                   (store_multi.c) */
    int retry;      /* timerfd: time to restart a stream */
    CURLM *multi;
    struct stream st[STORE_ETCD_PARTS];
    char specs[512]; /* "<prefix>/specs/": the changes reported */
    int64_t specs_rev; /* revision of the last specs/ relist */
    bool resync;     /* report RESYNC with the next read (once primed) */
};

static size_t
on_stream(char *p, size_t size, size_t nmemb, void *arg)
{
    struct stream *w = arg;

    if (store__etcd_wparse_feed(&w->parse, p, size * nmemb, NULL) == -1)
        return 0; /* a message over the cap: end the stream, restart */
    return size * nmemb;
}

static void
stop_stream(CURLM *multi, struct stream *w)
{
    if (w->easy != NULL) {
        curl_multi_remove_handle(multi, w->easy);
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
start_stream(struct store_etcd *s, struct stream *w, int64_t from,
             struct err *e)
{
    CURLM *multi = s->w->multi;
    char end[512], url[1024], rev[24];
    cJSON *req = cJSON_CreateObject(), *cr;

    stop_stream(multi, w);
    store__etcd_prefix_end(w->dir, end, sizeof(end));
    snprintf(rev, sizeof(rev), "%" PRId64, from);
    cr = store__etcd_range(w->dir, end, false);
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
        stop_stream(multi, w);
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
        stop_stream(multi, w);
        return err_set(e, ERR_NOMEM, "out of memory");
    }
    if (curl_multi_add_handle(multi, w->easy) != CURLM_OK) {
        stop_stream(multi, w);
        return err_set(e, ERR_NOMEM, "cannot start the etcd watch");
    }
    return 0;
}

static void
backoff(struct store_etcd_watch *w, const struct stream *st)
{
    long ms = WATCH_BACKOFF_MIN_MS << (st->fails < 7 ? st->fails - 1 : 6);

    store__timer_arm(w->retry,
                     ms < WATCH_BACKOFF_MAX_MS ? ms : WATCH_BACKOFF_MAX_MS);
}

/* The list of restart() answered: watch from its revision + 1. */
static void
on_listed(void *arg, int rc, int64_t rev, const struct err *e)
{
    struct stream *st = arg;
    struct store_etcd *s = st->s;
    struct store_etcd_watch *w = s->w;

    (void)e;
    st->listing = false;
    if (rc == 0 && start_stream(s, st, rev + 1, NULL) == 0) {
        st->listed = true;
        if (st->part == STORE_ETCD_SPECS) {
            w->resync = true;
            w->specs_rev = rev;
        }
        return;
    }
    backoff(w, st);
}

/* Start one stream over: list its directory into the cache at a fresh
 * revision R and watch from R + 1; a specs/ relist has the caller relist
 * (from the cache). The list goes without blocking; its answer starts
 * the stream (on_listed). After a restart that did not get going (no
 * "created" yet), or when now is false and one already failed, wait
 * first: 100 ms doubling to 5 s. */
static void
restart(struct store_etcd *s, struct stream *st, bool now)
{
    struct store_etcd_watch *w = s->w;
    int64_t rev = 0;

    stop_stream(w->multi, st);
    if (st->listing)
        return; /* its answer starts it */
    if (now || st->fails == 0) {
        st->fails++;
        if (s->loop_blocking) {
            /* the negative control: the list the blocking way */
            on_listed(st, store__etcd_relist(s, st->part, &rev, NULL), rev,
                      NULL);
            return;
        }
        if (store__etcd_relist_async(s, st->part, on_listed, st, NULL) == 0) {
            st->listing = true;
            return;
        }
    }
    backoff(w, st);
}

bool
store__etcd_watch_primed(struct store *st)
{
    struct store_etcd *s = (struct store_etcd *)st;

    if (s->w == NULL)
        return false;
    for (int p = 0; p < STORE_ETCD_PARTS; p++)
        if (!s->w->st[p].listed)
            return false;
    return true;
}

static void
watch_free(struct store_etcd_watch *w)
{
    for (int p = 0; p < STORE_ETCD_PARTS; p++) {
        stop_stream(w->multi, &w->st[p]);
        store__etcd_wparse_cleanup(&w->st[p].parse);
    }
    if (w->multi != NULL)
        curl_multi_cleanup(w->multi);
    if (w->fds.ep != -1)
        close(w->fds.ep);
    if (w->fds.curl_timer != -1)
        close(w->fds.curl_timer);
    if (w->retry != -1)
        close(w->retry);
    free(w);
}

void
store__etcd_watch_free(struct store_etcd *s)
{
    store__etcd_async_free(s); /* on the watch's multi handle */
    if (s->w != NULL)
        watch_free(s->w);
    s->w = NULL;
}

void *
store__etcd_watch_multi(struct store_etcd *s)
{
    return s->w != NULL ? s->w->multi : NULL;
}

static int
watch_new(struct store_etcd *s, struct err *e)
{
    struct store_etcd_watch *w = calloc(1, sizeof(*w));
    struct epoll_event ev = { .events = EPOLLIN };
    char root[512];

    if (w == NULL)
        return err_set(e, ERR_NOMEM, "out of memory");
    if (s->cache == NULL && (s->cache = calloc(1, sizeof(*s->cache))) == NULL) {
        free(w);
        return err_set(e, ERR_NOMEM, "out of memory");
    }
    store__etcd_key(s, root, sizeof(root), NULL, "%s", "");
    store__etcd_cache_init(s->cache, root);
    w->fds.ep = epoll_create1(EPOLL_CLOEXEC);
    w->fds.curl_timer =
        timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    w->retry = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    w->multi = curl_multi_init();
    store__etcd_key(s, w->specs, sizeof(w->specs), NULL, "specs/");
    for (int p = 0; p < STORE_ETCD_PARTS; p++) {
        struct stream *st = &w->st[p];

        st->part = (enum store_etcd_part)p;
        st->s = s;
        store__etcd_key(s, st->dir, sizeof(st->dir), NULL, "%s/",
                        store__etcd_part_dir(st->part));
        /* every stream reports spec changes only; specs/ is the one
         * whose keys are there */
        store__etcd_wparse_init(&st->parse, w->specs);
        st->parse.cache = s->cache;
    }
    if (w->fds.ep == -1 || w->fds.curl_timer == -1 || w->retry == -1 ||
        w->multi == NULL) {
        err_sys(e, "cannot set up the etcd watch");
        watch_free(w);
        return -1;
    }
    ev.data.fd = w->fds.curl_timer;
    epoll_ctl(w->fds.ep, EPOLL_CTL_ADD, w->fds.curl_timer, &ev);
    ev.data.fd = w->retry;
    epoll_ctl(w->fds.ep, EPOLL_CTL_ADD, w->retry, &ev);
    curl_multi_setopt(w->multi, CURLMOPT_SOCKETFUNCTION,
                      store__multi_on_socket);
    curl_multi_setopt(w->multi, CURLMOPT_SOCKETDATA, &w->fds);
    curl_multi_setopt(w->multi, CURLMOPT_TIMERFUNCTION, store__multi_on_timer);
    curl_multi_setopt(w->multi, CURLMOPT_TIMERDATA, &w->fds);
    s->w = w;
    return 0;
}

int
store__etcd_watch_fd(struct store *st, struct err *e)
{
    struct store_etcd *s = (struct store_etcd *)st;

    if (s->w != NULL)
        return s->w->fds.ep;
    if (watch_new(s, e) == -1)
        return -1;
    /* every directory listed into the cache, without blocking: once all
     * are (store_watch_primed), a RESYNC has the caller list from it */
    for (int p = 0; p < STORE_ETCD_PARTS; p++)
        restart(s, &s->w->st[p], true);
    return s->w->fds.ep;
}

/* Let curl do what the ready fds allow; ended[p] when stream p ended. */
static void
drive(struct store_etcd *s, bool ended[STORE_ETCD_PARTS], bool *retry_due)
{
    struct store_etcd_watch *w = s->w;
    int running;
    CURLMsg *m;

    *retry_due = store__multi_drive(w->multi, &w->fds, w->retry) || *retry_due;
    while ((m = curl_multi_info_read(w->multi, &running)) != NULL) {
        if (m->msg != CURLMSG_DONE)
            continue;
        if (store__etcd_async_finished(s, m->easy_handle, m->data.result))
            continue; /* a request of store_etcd_async.c, answered */
        for (int p = 0; p < STORE_ETCD_PARTS; p++)
            if (m->easy_handle == w->st[p].easy)
                ended[p] = true;
    }
}

/* Take the complete messages of one stream: its events into the cache,
 * spec changes into out. true when the stream must restart. */
static bool
take(struct stream *st, struct store_change *out, size_t max, size_t *n,
     bool *over)
{
    enum store_etcd_wmsg kind;
    int64_t rev;

    do {
        if (store__etcd_wparse_next(&st->parse, &kind, &rev, out, max, n, over,
                                    NULL) == -1)
            return true;
        if (kind == STORE_ETCD_WMSG_CREATED)
            st->fails = 0;
        if (kind == STORE_ETCD_WMSG_COMPACTED)
            return true;
    } while (kind != STORE_ETCD_WMSG_NONE);
    return false;
}

void
store__etcd_async_wait(struct store *st, long ms)
{
    struct store_etcd *s = (struct store_etcd *)st;
    bool ended[STORE_ETCD_PARTS], retry_due = false;
    double until = store__etcd_now() + (double)ms / 1000.;

    /* the streams' data waits in their buffers: the store is closing */
    while (s->w != NULL && s->reqs != NULL && store__etcd_now() < until) {
        struct pollfd p = { .fd = s->w->fds.ep, .events = POLLIN };

        (void)poll(&p, 1, 100);
        drive(s, ended, &retry_due);
    }
}

int
store__etcd_watch_read(struct store *st, struct store_change *out, size_t max,
                       size_t *n, struct err *e)
{
    struct store_etcd *s = (struct store_etcd *)st;
    struct store_etcd_watch *w;
    bool over = false, ended[STORE_ETCD_PARTS] = { false }, retry_due = false;

    *n = 0;
    if (max < 2)
        return err_set(e, ERR_INVALID, "room for at least 2 changes needed");
    if (s->w == NULL && store__etcd_watch_fd(st, e) == -1)
        return -1;
    w = s->w;
    drive(s, ended, &retry_due);
    for (int p = 0; p < STORE_ETCD_PARTS; p++) {
        struct stream *sp = &w->st[p];
        /* what came before a break still counts; keep a slot for RESYNC */
        bool broken = take(sp, out, max - 1, n, &over) || ended[p];

        if (broken)
            restart(s, sp, false);
        else if (retry_due && sp->easy == NULL)
            restart(s, sp, true);
    }
    /* the first RESYNC waits until every directory is listed: the
     * caller's list is then served from the cache whole */
    if (over || (w->resync && store__etcd_watch_primed(st))) {
        out[*n].kind = STORE_CHANGE_RESYNC;
        out[*n].name[0] = '\0';
        (*n)++;
        w->resync = false;
    }
    return 0;
}
