/* dk_client.c - the Docker client object: DOCKER_HOST parsing, and the
 * glue that lets libev drive libcurl's multi socket interface (curl
 * docs/examples/evhiperfifo.c): one ev_io per curl socket, one ev_timer for
 * curl's timeout, finished transfers collected after each socket action.
 */
#include "dk_int.h"

#include <stdlib.h>
#include <string.h>

static void dk_on_io(struct ev_loop *loop, ev_io *w, int revents);

static int
dk_parse_url(struct dk *dk, const char *url, const char *from, struct err *e)
{
    const char *path;
    size_t n;

    if (strncmp(url, "unix://", 7) != 0) {
        return err_set(e, ERR_INVALID,
                       "%s %s: only unix:// Docker sockets are supported "
                       "(tcp://, ssh:// and others are out of scope)",
                       from, url);
    }
    path = url + 7;
    n = strlen(path);
    if (path[0] != '/')
        return err_set(e, ERR_INVALID,
                       "%s %s: the socket path must be absolute "
                       "(unix:///var/run/docker.sock)",
                       from, url);
    if (n >= sizeof(dk->sock_path))
        return err_set(e, ERR_INVALID, "%s: socket path longer than %zu bytes",
                       from, sizeof(dk->sock_path) - 1);
    memcpy(dk->sock_path, path, n + 1);
    return 0;
}

static void
dk_sock_free(struct dk *dk, struct dk_sock *s)
{
    ev_io_stop(dk->loop, &s->io);
    if (s->prev != NULL)
        s->prev->next = s->next;
    else
        dk->socks = s->next;
    if (s->next != NULL)
        s->next->prev = s->prev;
    free(s);
}

/* CURLMOPT_SOCKETFUNCTION: watch the socket for what curl asks for. */
static int
dk_on_curl_socket(CURL *easy, curl_socket_t fd, int what, void *userp,
                  void *socketp)
{
    struct dk *dk = userp;
    struct dk_sock *s = socketp;
    int events;

    (void)easy;
    if (what == CURL_POLL_REMOVE) {
        if (s != NULL)
            dk_sock_free(dk, s);
        return 0;
    }
    events = ((what & CURL_POLL_IN) ? EV_READ : 0) |
             ((what & CURL_POLL_OUT) ? EV_WRITE : 0);
    if (s == NULL) {
        s = calloc(1, sizeof(*s));
        if (s == NULL)
            return -1; /* curl fails the transfer */
        s->dk = dk;
        s->next = dk->socks;
        if (dk->socks != NULL)
            dk->socks->prev = s;
        dk->socks = s;
        ev_init(&s->io, dk_on_io);
        curl_multi_assign(dk->multi, fd, s);
    } else {
        ev_io_stop(dk->loop, &s->io);
    }
    ev_io_set(&s->io, fd, events);
    ev_io_start(dk->loop, &s->io);
    return 0;
}

/* CURLMOPT_TIMERFUNCTION: only arm our timer; never drive curl here. */
static int
dk_on_curl_timer(CURLM *multi, long timeout_ms, void *userp)
{
    struct dk *dk = userp;

    (void)multi;
    ev_timer_stop(dk->loop, &dk->timer);
    if (timeout_ms >= 0) {
        ev_timer_set(&dk->timer, (double)timeout_ms / 1000.0, 0.);
        ev_timer_start(dk->loop, &dk->timer);
    }
    return 0;
}

/* Collect finished transfers. A done callback may free the client: stop
 * looking as soon as it did. */
static void
dk_check_done(struct dk *dk)
{
    CURLMsg *msg;
    int left;

    while (!dk->closing) {
        char *priv = NULL;
        struct dk_req *req;
        CURLcode rc;

        msg = curl_multi_info_read(dk->multi, &left);
        if (msg == NULL)
            break;
        if (msg->msg != CURLMSG_DONE)
            continue;
        rc = msg->data.result;
        curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, &priv);
        req = (struct dk_req *)priv;
        curl_multi_remove_handle(dk->multi, req->easy);
        dk__finish(req, rc);
    }
}

static void
dk_action(struct dk *dk, curl_socket_t fd, int events)
{
    int running;

    dk->in_curl++;
    curl_multi_socket_action(dk->multi, fd, events, &running);
    dk->in_curl--;
    if (dk->closing)
        return;
    if (dk->need_reap)
        dk__reap(dk);
    dk_check_done(dk);
}

void
dk__unpause(struct dk_req *req)
{
    struct dk *dk = req->dk;

    dk->in_curl++;
    curl_easy_pause(req->easy, CURLPAUSE_CONT); /* may run our callbacks */
    dk->in_curl--;
    if (dk->closing)
        return;
    if (dk->need_reap)
        dk__reap(dk);
    dk_check_done(dk);
}

static void
dk_on_io(struct ev_loop *loop, ev_io *w, int revents)
{
    struct dk_sock *s =
        (struct dk_sock *)((char *)w - offsetof(struct dk_sock, io));
    struct dk *dk = s->dk;
    int events = ((revents & EV_READ) ? CURL_CSELECT_IN : 0) |
                 ((revents & EV_WRITE) ? CURL_CSELECT_OUT : 0) |
                 ((revents & EV_ERROR) ? CURL_CSELECT_ERR : 0);

    (void)loop;
    dk__enter(dk);
    dk_action(dk, w->fd, events); /* may free s */
    dk__leave(dk);
}

static void
dk_on_timer(struct ev_loop *loop, ev_timer *w, int revents)
{
    struct dk *dk = (struct dk *)((char *)w - offsetof(struct dk, timer));

    (void)loop;
    (void)revents;
    dk__enter(dk);
    dk_action(dk, CURL_SOCKET_TIMEOUT, 0);
    dk__leave(dk);
}

/* --- requests not yet in the multi handle ------------------------------ */

static void
kick_soon(struct dk *dk)
{
    if (!ev_is_active(&dk->kick)) {
        ev_timer_set(&dk->kick, 0., 0.);
        ev_timer_start(dk->loop, &dk->kick);
    }
}

static int
queue_of(const struct dk_req *req)
{
    if (req->held)
        return DK_WAIT_HOLD;
    return req->quick ? DK_WAIT_SLOT : DK_WAIT_CURL;
}

static void
wait_push(struct dk *dk, struct dk_req *req)
{
    int q = queue_of(req);

    req->state = DK_REQ_PENDING;
    req->queued = true;
    req->wnext = NULL;
    if (dk->wait_tail[q] != NULL)
        dk->wait_tail[q]->wnext = req;
    else
        dk->wait_head[q] = req;
    dk->wait_tail[q] = req;
}

/* The next request that may go now: any made inside curl, else a quick
 * one while a slot is free. */
static struct dk_req *
wait_pop(struct dk *dk)
{
    int q = DK_WAIT_CURL;
    struct dk_req *req;

    if (dk->wait_head[q] == NULL) {
        q = DK_WAIT_SLOT;
        if (dk->quick_active >= DK_MAX_QUICK)
            return NULL;
    }
    req = dk->wait_head[q];
    if (req == NULL)
        return NULL;
    dk->wait_head[q] = req->wnext;
    if (dk->wait_head[q] == NULL)
        dk->wait_tail[q] = NULL;
    req->queued = false;
    req->wnext = NULL;
    return req;
}

void
dk__dequeue(struct dk_req *req)
{
    struct dk *dk = req->dk;

    /* cancelled while waiting: rare, a walk is fine (not when the client
     * goes: every request goes with it, the queues unread) */
    if (req->queued && !dk->closing) {
        int q = queue_of(req);
        struct dk_req *prev = NULL;

        for (struct dk_req *i = dk->wait_head[q]; i != NULL; i = i->wnext) {
            if (i == req) {
                if (prev != NULL)
                    prev->wnext = req->wnext;
                else
                    dk->wait_head[q] = req->wnext;
                if (dk->wait_tail[q] == req)
                    dk->wait_tail[q] = prev;
                break;
            }
            prev = i;
        }
        req->queued = false;
        if (req->held) {
            req->held = false;
            dk->held--;
        }
    }
    if (req->holds_slot) {
        req->holds_slot = false;
        dk->quick_active--;
        if (dk->wait_head[DK_WAIT_SLOT] != NULL && !dk->closing)
            kick_soon(dk);
    }
}

/* Into the multi handle (never inside curl). */
static int
start(struct dk_req *req, struct err *e)
{
    CURLMcode mc;

    if (req->easy == NULL && dk__req_easy(req) == -1)
        return err_set(e, ERR_NOMEM, "%s: out of memory setting up request",
                       req->what);
    mc = curl_multi_add_handle(req->dk->multi, req->easy);
    if (mc != CURLM_OK)
        return err_set(e, mc == CURLM_OUT_OF_MEMORY ? ERR_NOMEM : ERR_IO,
                       "%s: cannot start: %s", req->what,
                       curl_multi_strerror(mc));
    req->state = DK_REQ_ACTIVE;
    req->started = dk__now(); /* Docker's latency, not our queue's */
    if (req->quick) {
        req->holds_slot = true;
        req->dk->quick_active++;
    }
    return 0;
}

/* Requests that waited (made inside curl, or for a slot) go, from the
 * loop. */
static void
dk_on_kick(struct ev_loop *loop, ev_timer *w, int revents)
{
    struct dk *dk = (struct dk *)((char *)w - offsetof(struct dk, kick));

    (void)loop;
    (void)revents;
    dk__enter(dk);
    while (!dk->closing) {
        struct dk_req *req = wait_pop(dk);
        struct err e = { 0 };

        if (req == NULL)
            break;
        if (start(req, &e) == -1) {
            dk__req_failed(req, &e);
            dk__finish(req, CURLE_OK); /* the error is in req->fail */
        }
    }
    dk__leave(dk);
}

int
dk__add(struct dk_req *req, struct err *e)
{
    struct dk *dk = req->dk;

    if (dk->holding) {
        req->held = true;
        req->hold_mark = dk->hold_mark;
        dk->held++;
        wait_push(dk, req);
        return 0;
    }
    if (dk->in_curl > 0) {
        wait_push(dk, req);
        kick_soon(dk);
        return 0;
    }
    /* behind those already waiting, also when a slot was just given
     * back (the kick has not run yet): first in, first out */
    if (req->quick && (dk->quick_active >= DK_MAX_QUICK ||
                       dk->wait_head[DK_WAIT_SLOT] != NULL)) {
        wait_push(dk, req);
        if (dk->quick_active < DK_MAX_QUICK)
            kick_soon(dk);
        return 0;
    }
    return start(req, e);
}

/* --- holding (dk_hold) ------------------------------------------------ */

void
dk_hold(struct dk *dk, bool on)
{
    if (on) {
        dk->holding = true;
        return;
    }
    dk->holding = false;
    dk_hold_release(dk, dk->hold_mark);
}

unsigned
dk_hold_cut(struct dk *dk)
{
    return dk->hold_mark++;
}

/* Those held up to mark join the queues they would have gone to (the
 * marks wrap: compared by difference), and start from the loop. */
void
dk_hold_release(struct dk *dk, unsigned mark)
{
    struct dk_req *req;

    while ((req = dk->wait_head[DK_WAIT_HOLD]) != NULL &&
           (int)(req->hold_mark - mark) <= 0) {
        dk->wait_head[DK_WAIT_HOLD] = req->wnext;
        if (dk->wait_head[DK_WAIT_HOLD] == NULL)
            dk->wait_tail[DK_WAIT_HOLD] = NULL;
        req->held = false;
        dk->held--;
        wait_push(dk, req);
        kick_soon(dk);
    }
}

size_t
dk_held(const struct dk *dk)
{
    return dk->held;
}

void
dk__enter(struct dk *dk)
{
    dk->depth++;
}

static void
dk_destroy(struct dk *dk)
{
    while (dk->reqs != NULL)
        dk__req_free(dk->reqs);
    ev_timer_stop(dk->loop, &dk->kick);
    curl_multi_cleanup(dk->multi);
    ev_timer_stop(dk->loop, &dk->timer);
    while (dk->socks != NULL)
        dk_sock_free(dk, dk->socks);
    curl_global_cleanup();
    free(dk);
}

/* Leave a dk callback; the last one out frees a client dk_free()d inside.
 * The caller must not touch dk afterwards. */
void
dk__leave(struct dk *dk)
{
    if (--dk->depth == 0 && dk->closing)
        dk_destroy(dk);
}

static int
dk_multi_init(struct dk *dk, struct err *e)
{
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
        return err_set(e, ERR_IO, "cannot initialise libcurl");
    dk->multi = curl_multi_init();
    if (dk->multi == NULL) {
        curl_global_cleanup();
        return err_set(e, ERR_NOMEM, "cannot create a curl multi handle");
    }
    curl_multi_setopt(dk->multi, CURLMOPT_SOCKETFUNCTION, dk_on_curl_socket);
    curl_multi_setopt(dk->multi, CURLMOPT_SOCKETDATA, dk);
    curl_multi_setopt(dk->multi, CURLMOPT_TIMERFUNCTION, dk_on_curl_timer);
    curl_multi_setopt(dk->multi, CURLMOPT_TIMERDATA, dk);
    /* dockerd keeps idle connections forever: after a burst of requests
     * keep only a few of them open. */
    curl_multi_setopt(dk->multi, CURLMOPT_MAXCONNECTS, (long)DK_MAX_IDLE_CONNS);
    return 0;
}

struct dk *
dk_new(struct ev_loop *loop, const char *docker_url, struct err *e)
{
    const char *url = docker_url, *from = "Docker URL";
    struct dk *dk;

    if (url == NULL || url[0] == '\0') {
        url = getenv("DOCKER_HOST");
        from = "DOCKER_HOST";
    }
    if (url == NULL || url[0] == '\0') {
        url = DK_DEFAULT_URL;
        from = "default";
    }
    dk = calloc(1, sizeof(*dk));
    if (dk == NULL) {
        err_set(e, ERR_NOMEM, "out of memory");
        return NULL;
    }
    if (dk_parse_url(dk, url, from, e) == -1 || dk_multi_init(dk, e) == -1) {
        free(dk);
        return NULL;
    }
    dk->loop = loop;
    ev_timer_init(&dk->timer, dk_on_timer, 0., 0.);
    ev_timer_init(&dk->kick, dk_on_kick, 0., 0.);
    return dk;
}

void
dk_free(struct dk *dk)
{
    struct dk_req *req;

    if (dk == NULL || dk->closing)
        return;
    dk->closing = 1;
    for (req = dk->reqs; req != NULL; req = req->next) {
        if (req->state == DK_REQ_PENDING || req->state == DK_REQ_ACTIVE ||
            req->state == DK_REQ_FINISHING) {
            req->state = DK_REQ_CANCELLED;
            dk->stats.cancelled++;
            dk->stats.in_flight--;
        }
    }
    if (dk->depth == 0)
        dk_destroy(dk);
}

const char *
dk_socket_path(const struct dk *dk)
{
    return dk->sock_path;
}

const char *
dk_api_version(const struct dk *dk)
{
    return dk->negotiated ? DK_API_VERSION : NULL;
}

void
dk_set_observer(struct dk *dk, dk_observe_fn *fn, void *arg)
{
    dk->observe = fn;
    dk->observe_arg = arg;
}

void
dk_stats(const struct dk *dk, struct dk_stats *out)
{
    *out = dk->stats;
}
