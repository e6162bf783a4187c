/* gw_conn.c - one gateway client: read a request head, check it against
 * the policy and the budget, hand it to the vendor side (gw_upstream.c),
 * write one audit line per request, keep the connection for the next one
 * or close it. gw__conn_close() is the one teardown path.
 *
 * Requests on one connection are served one at a time: while one is out,
 * the bytes of a pipelined next one wait in the client buffer.
 */
#include "gw_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "gw_audit.h"
#include "gw_http.h"
#include "log.h"
#include "px_listen.h"

static const char continue_100[] = "HTTP/1.1 100 Continue\r\n\r\n";

void
gw__conn_watch(struct gw_conn *c)
{
    size_t pending = c->uout.len - c->uout_off;
    int ce = 0, ue = 0;

    switch (c->state) {
    case GW_CS_HEAD:
        if (c->cin_len < GW_BUF && !c->client_eof)
            ce = EV_READ;
        if (c->ssl != NULL)
            ue = EV_READ; /* notice the vendor closing an idle connection */
        break;
    case GW_CS_RESOLVE:
        break;
    case GW_CS_DIAL:
        ue = EV_WRITE;
        break;
    case GW_CS_TLS:
        ue = c->ssl_rd_ev;
        break;
    case GW_CS_RELAY:
        if (!c->req_done && c->cin_len < GW_BUF && !c->client_eof)
            ce = EV_READ;
        if (!c->resp_done && c->cout_len < GW_BUF)
            ue |= c->ssl_rd_ev;
        if (pending > 0)
            ue |= c->ssl_wr_ev;
        break;
    case GW_CS_LINGER:
        ce = EV_READ;
        break;
    case GW_CS_JUDGE:
        if (!c->client_eof)
            ce = EV_READ;
        if (c->ssl != NULL)
            ue = EV_READ; /* as between requests */
        break;
    }
    if (c->cout_len > 0)
        ce |= EV_WRITE;
    px_io_want(c->gw->loop, &c->cio, c->cfd, ce);
    px_io_want(c->gw->loop, &c->uio, c->ufd, ue);
}

void
gw__conn_set_state(struct gw_conn *c, enum gw_conn_state s)
{
    const struct gw_config *cfg = c->gw->cfg;
    double t = cfg->connect_timeout;

    /* Between requests a kept-alive connection may idle as long as an
     * exchange may (a CLI reuses it after a long tool run; closing it
     * first races the CLI's next request). Once a head has begun, it has
     * header_timeout to complete. */
    if (s == GW_CS_HEAD)
        t = c->served > 0 && c->cin_len == 0 ? cfg->idle_timeout
                                             : cfg->header_timeout;
    else if (s == GW_CS_RELAY || s == GW_CS_JUDGE)
        t = cfg->idle_timeout;
    else if (s == GW_CS_LINGER)
        t = 2.0;
    c->state = s;
    c->last_active = ev_now(c->gw->loop);
    ev_timer_stop(c->gw->loop, &c->timer);
    ev_timer_set(&c->timer, t, 0.);
    ev_timer_start(c->gw->loop, &c->timer);
    gw__conn_watch(c);
}

/* The body of a model endpoint's answer as it passes to the client: the
 * usage reader sees it too (its head is known by the first byte). */
static void
conn_usage_data(void *arg, const char *p, size_t n)
{
    struct gw_conn *c = arg;

    if (!c->usage_started) {
        gw_usage_init(&c->usage, c->usage_api, c->resp.event_stream,
                      c->resp.coded);
        c->usage_started = true;
    }
    gw_usage_feed(&c->usage, p, n);
}

/* The exchange ended: a model endpoint's successful answer says what the
 * vendor billed, and the tokens are counted against the budget whether
 * the answer ended well or was cut (the vendor bills what it sent). One
 * that could not be read (a->usage stays NULL) spends what is left of a
 * token budget (gw_budget_spend_unknown). */
static void
conn_usage_count(struct gw_conn *c, struct gw_audit *a, struct gw_tokens *t)
{
    if (c->usage_api == GW_API_NONE || c->resp.status < 200 ||
        c->resp.status > 299)
        return;
    a->has_usage = true;
    if (c->usage_started && gw_usage_finish(&c->usage, t)) {
        a->usage = t;
        gw_budget_add_tokens(&c->gw->budget,
                             gw_tokens_billed(c->usage_api, t));
    } else {
        gw_budget_spend_unknown(&c->gw->budget);
    }
    c->usage_api = GW_API_NONE;
}

/* With a token budget, one model exchange at a time (issue 35: the
 * overshoot is at most one answer). The tokens are known only when an
 * answer ends; answers in flight together, one per connection a process
 * in the box opens, would all run past the budget. The CLIs send one
 * model request at a time and retry a 429. False when another model
 * exchange holds the one slot; else true, with the slot taken when the
 * request needs it (released by gw__conn_audit). */
static bool
conn_model_slot_take(struct gw_conn *c, const struct gw_req_head *h)
{
    struct gw *gw = c->gw;

    if (gw->budget.max_tokens == 0 ||
        gw_usage_api(h->target, h->path_len) == GW_API_NONE)
        return true;
    if (gw->model_in_flight > 0)
        return false;
    gw->model_in_flight++;
    c->model_slot = true;
    return true;
}

static void
conn_model_release(struct gw_conn *c)
{
    if (!c->model_slot)
        return;
    c->model_slot = false;
    c->gw->model_in_flight--;
}

void
gw__conn_audit(struct gw_conn *c, const char *why)
{
    struct gw_audit a = { 0 };
    struct gw_tokens t = { 0 };
    char when[40], line[GW_AUDIT_MAX];
    size_t n;

    conn_model_release(c); /* every end of an exchange comes here */
    if (!c->in_exchange)
        return;
    c->in_exchange = false;
    conn_usage_count(c, &a, &t);
    log_time_now(when, sizeof(when));
    a.time = when;
    a.client = c->client;
    a.method = c->method;
    a.path = c->path;
    a.status = c->status != 0 ? c->status : c->resp.status;
    a.bytes_up = c->bytes_up;
    a.bytes_down = c->bytes_down;
    a.duration_ms = (int64_t)((ev_time() - c->started) * 1000.0);
    a.requests_left = gw_budget_requests_left(&c->gw->budget);
    a.bytes_left = gw_budget_bytes_left(&c->gw->budget);
    a.tokens_left = gw_budget_tokens_left(&c->gw->budget);
    a.reason = why;
    n = gw_audit_format(line, sizeof(line), &a);
    if (n > 0 && write(STDOUT_FILENO, line, n) < 0)
        return; /* nowhere left to report it */
}

/* Queue bytes for the client (after what is pending). */
static int
cout_put(struct gw_conn *c, const char *p, size_t n)
{
    if (c->cout_off > 0) {
        memmove(c->cout, c->cout + c->cout_off, c->cout_len);
        c->cout_off = 0;
    }
    if (n > GW_BUF - c->cout_len)
        return -1;
    memcpy(c->cout + c->cout_len, p, n);
    c->cout_len += n;
    return 0;
}

/* Send what cout holds. -1 on a hard error. */
static int
cout_flush(struct gw_conn *c)
{
    while (c->cout_len > 0) {
        ssize_t w =
            send(c->cfd, c->cout + c->cout_off, c->cout_len, MSG_NOSIGNAL);

        if (w < 0) {
            if (errno == EINTR)
                continue;
            return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
        }
        c->cout_off += (size_t)w;
        c->cout_len -= (size_t)w;
    }
    c->cout_off = 0;
    return 0;
}

void
gw__conn_deny(struct gw_conn *c, int status, const char *error,
              const char *details)
{
    struct gw_denial d = { status, error, details };
    char msg[GW_ANSWER_MAX];
    size_t n = gw_answer_format(msg, sizeof(msg), &d);

    if (!c->in_exchange) {
        c->in_exchange = true;
        c->started = ev_time();
    }
    c->status = status;
    gw__conn_audit(c, details);
    gw__up_drop(c); /* what it carried is unknown now */
    if (c->bytes_down > 0) {
        /* Part of the vendor's answer is out: another status line would
         * be read as its body. Cutting the connection is the answer. */
        gw__conn_close(c, details);
        return;
    }
    c->cout_len = 0;
    c->cout_off = 0;
    if (cout_put(c, msg, n) == -1 || cout_flush(c) == -1) {
        gw__conn_close(c, "client write failed");
        return;
    }
    if (c->cout_len == 0)
        shutdown(c->cfd, SHUT_WR);
    gw__conn_set_state(c, GW_CS_LINGER);
}

const char *
gw__conn_admit_budget(struct gw_conn *c, uint64_t body_len, int *status)
{
    struct gw *gw = c->gw;
    const char *no = gw_budget_admit(&gw->budget, c->bytes_up, body_len, status);

    if (no == NULL)
        gw_budget_add_bytes(&gw->budget, c->bytes_up);
    return no;
}

/* The head is parsed: policy, budget, the vendor's head. */
static void
conn_admit(struct gw_conn *c, const struct gw_req_head *h, size_t end)
{
    struct gw *gw = c->gw;
    const char *no;
    struct err e = { 0 };
    bool head_req = h->method_len == 4 && memcmp(h->method, "HEAD", 4) == 0;
    bool h_expect = h->expect_continue;
    int status;

    no = gw_policy_check(&gw->cfg->policy, h->method, h->method_len, h->target,
                         h->path_len);
    if (no != NULL) {
        gw__conn_deny(c, 403, "http_request_denied", no);
        return;
    }
    if (!conn_model_slot_take(c, h)) {
        gw__conn_deny(c, 429, "http_request_denied",
                      "token budget: one model request at a time, and "
                      "another is in flight");
        return;
    }
    if (gw__judge_head(c, h) == -1) /* a model endpoint's: refused */
        return;
    /* a judged body is counted once it passed (gw_judge.c): a refused
     * request uses no budget */
    if (!c->judging &&
        (no = gw__conn_admit_budget(
             c, h->framing == GW_BODY_LENGTH ? h->length : 0, &status)) !=
            NULL) {
        gw__conn_deny(c, status, "http_request_denied", no);
        return;
    }
    explicit_bzero(c->uout.data, c->uout.len); /* normally empty here */
    buf_reset(&c->uout);
    c->uout_off = 0;
    c->usage_api = gw_usage_api(h->target, h->path_len);
    if (gw_head_build(h, gw->host_header, &gw->cred,
                      c->usage_api != GW_API_NONE, &c->uout, &e) == -1) {
        explicit_bzero(c->uout.data, c->uout.len);
        buf_reset(&c->uout);
        gw__conn_deny(c, 431, "http_request_error", "request head too large");
        return;
    }
    c->keep_alive = h->keep_alive;
    gw_body_init(&c->reqb, h->framing, h->length, true);
    c->req_done = h->framing == GW_BODY_NONE;
    gw_resp_init(&c->resp, head_req);
    c->resp_done = false;
    c->usage_started = false;
    if (c->usage_api != GW_API_NONE) {
        c->resp.on_data = conn_usage_data;
        c->resp.data_arg = c;
    }
    /* The head's bytes are in uout now; what follows is body (h points
     * into cin and is not used after this). */
    memmove(c->cin, c->cin + end, c->cin_len - end);
    c->cin_len -= end;
    /* The gateway drops Expect: it says "go on" itself, now that the
     * request is admitted, and at once: a body to be judged is read
     * before anything else is written, and a client waiting for the 100
     * would otherwise send it only after its own timeout (curl: 1 s). */
    if (h_expect && !c->req_done &&
        (cout_put(c, continue_100, sizeof(continue_100) - 1) == -1 ||
         cout_flush(c) == -1)) {
        gw__conn_close(c, "client write failed");
        return;
    }
    if (c->judging) { /* the body first, whole (gw_judge.c) */
        gw__conn_set_state(c, GW_CS_JUDGE);
        gw__judge_step(c);
        return;
    }
    gw__up_start(c);
}

/* A head may be complete in cin: parse it and start the exchange. */
static void
conn_try_head(struct gw_conn *c)
{
    size_t limit = c->gw->cfg->header_limit;
    size_t end = gw_head_end(c->cin, c->cin_len < limit ? c->cin_len : limit);
    struct gw_req_head *h;
    struct err e = { 0 };
    int status;

    if (end == 0) {
        if (c->cin_len >= limit)
            gw__conn_deny(c, 431, "http_request_error",
                          "request head too large");
        else if (c->client_eof)
            gw__conn_close(c, c->cin_len > 0 ? "client left mid-head"
                                             : "client closed");
        return;
    }
    c->in_exchange = true;
    c->started = ev_time();
    c->status = 0;
    c->bytes_up = end;
    c->bytes_down = 0;
    c->method[0] = c->path[0] = '\0';
    memset(&c->resp, 0, sizeof(c->resp));
    c->usage_api = GW_API_NONE;
    h = malloc(sizeof(*h)); /* large (the field table): not on the stack */
    if (h == NULL) {
        gw__conn_close(c, "out of memory");
        return;
    }
    if (gw_req_parse(c->cin, end, h, &status, &e) == -1) {
        free(h);
        gw__conn_deny(c, status, "http_request_error", e.msg);
        return;
    }
    snprintf(c->method, sizeof(c->method), "%.*s", (int)h->method_len,
             h->method);
    snprintf(c->path, sizeof(c->path), "%.*s", (int)h->path_len, h->target);
    conn_admit(c, h, end); /* may free c */
    free(h);
}

static void
conn_head_step(struct gw_conn *c)
{
    ssize_t n;

    if (c->cout_len > 0 && cout_flush(c) == -1) {
        gw__conn_close(c, "client write failed");
        return;
    }
    if (c->cin_len < GW_BUF && !c->client_eof) {
        n = recv(c->cfd, c->cin + c->cin_len, GW_BUF - c->cin_len, 0);
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK &&
            errno != EINTR) {
            gw__conn_close(c, "client read failed");
            return;
        }
        if (n == 0)
            c->client_eof = true;
        if (n > 0 && c->cin_len == 0) {
            ev_timer_stop(c->gw->loop, &c->timer); /* a head has begun */
            ev_timer_set(&c->timer, c->gw->cfg->header_timeout, 0.);
            ev_timer_start(c->gw->loop, &c->timer);
        }
        if (n > 0)
            c->cin_len += (size_t)n;
    }
    conn_try_head(c);
}

void
gw__conn_exchange_done(struct gw_conn *c)
{
    /* After a half-close, the requests already received are served. */
    bool again =
        c->keep_alive && !c->gw->daemon.draining && (!c->client_eof || c->cin_len > 0);

    gw__conn_audit(c, "forwarded");
    c->served++;
    buf_cleanup(&c->judged); /* relayed: its memory goes */
    if (c->resp.close)
        gw__up_drop(c);
    gw_resp_cleanup(&c->resp);
    if (!again) {
        gw__conn_close(c, "done");
        return;
    }
    gw__conn_set_state(c, GW_CS_HEAD);
    if (c->cin_len > 0) /* a pipelined request: from the loop, not here */
        ev_feed_event(c->gw->loop, &c->cio, EV_READ);
}

static void
conn_linger_step(struct gw_conn *c, int revents)
{
    if ((revents & EV_WRITE) && c->cout_len > 0) {
        if (cout_flush(c) == -1) {
            gw__conn_close(c, "client write failed");
            return;
        }
        if (c->cout_len == 0)
            shutdown(c->cfd, SHUT_WR);
    }
    if (revents & EV_READ) {
        char sink[4096];
        ssize_t n = recv(c->cfd, sink, sizeof(sink), 0);

        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
            gw__conn_close(c, "answered");
            return;
        }
    }
    gw__conn_watch(c);
}

static void
conn_on_client(struct ev_loop *loop, ev_io *w, int revents)
{
    struct gw_conn *c = container_of(w, struct gw_conn, cio);

    (void)loop;
    switch (c->state) {
    case GW_CS_HEAD:
        conn_head_step(c);
        break;
    case GW_CS_RELAY:
        gw__up_pump(c);
        break;
    case GW_CS_LINGER:
        conn_linger_step(c, revents);
        break;
    case GW_CS_JUDGE:
        gw__judge_step(c);
        break;
    default:
        if (c->cout_len > 0 && cout_flush(c) == -1) {
            gw__conn_close(c, "client write failed");
            return;
        }
        gw__conn_watch(c);
        break;
    }
}

static void
conn_on_upstream(struct ev_loop *loop, ev_io *w, int revents)
{
    struct gw_conn *c = container_of(w, struct gw_conn, uio);

    (void)loop;
    (void)revents;
    if (c->state == GW_CS_RELAY)
        gw__up_pump(c);
    else if (c->state == GW_CS_HEAD || c->state == GW_CS_JUDGE)
        gw__up_idle_event(c);
    else
        gw__up_connect_event(c);
}

/* Activity only stamps last_active: the timer is re-armed for what is
 * left (ev.pod "Be smart about timeouts"). ev_timer_again, as it holds
 * whether the timer has run out or is still pending. False when the
 * time is up. */
static bool
conn_rearm(struct gw_conn *c)
{
    struct ev_loop *loop = c->gw->loop;
    ev_tstamp left = c->last_active + c->gw->cfg->idle_timeout - ev_now(loop);

    if (left <= 0)
        return false;
    c->timer.repeat = left;
    ev_timer_again(loop, &c->timer);
    return true;
}

void
gw__conn_timeout(struct gw_conn *c)
{
    switch (c->state) {
    case GW_CS_HEAD:
        if (c->cin_len == 0)
            gw__conn_close(c, "idle between requests");
        else
            gw__conn_deny(c, 408, "http_request_error",
                          "request head not complete in time");
        break;
    case GW_CS_RESOLVE:
    case GW_CS_DIAL:
    case GW_CS_TLS:
        gw__conn_deny(c, 504, "connection_timeout",
                      "no connection to the vendor in time");
        break;
    case GW_CS_RELAY:
        if (conn_rearm(c))
            break;
        if (c->bytes_down == 0)
            gw__conn_deny(c, 504, "http_response_timeout",
                          "the vendor did not answer in time");
        else
            gw__conn_close(c, "idle timeout");
        break;
    case GW_CS_LINGER:
        gw__conn_close(c, "answered");
        break;
    case GW_CS_JUDGE:
        if (!conn_rearm(c))
            gw__conn_deny(c, 408, "http_request_error",
                          "request body not complete in time");
        break;
    }
}

static void
conn_on_timer(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)loop;
    (void)revents;
    gw__conn_timeout(container_of(w, struct gw_conn, timer));
}

void
gw__conn_close(struct gw_conn *c, const char *why)
{
    struct gw *gw = c->gw;

    gw__conn_audit(c, why);
    gw__up_drop(c);
    ev_io_stop(gw->loop, &c->cio);
    ev_timer_stop(gw->loop, &c->timer);
    if (c->cfd >= 0)
        close(c->cfd);
    /* Only what uout holds: every place that shortens it wipes what it
     * drops (gw_int.h), so past its length there is nothing to wipe, and
     * wiping the whole 130 KiB made every page of it resident just
     * before the free (hack/bench/gateway: RSS over bursts). */
    if (c->uout.data != NULL)
        explicit_bzero(c->uout.data, c->uout.len);
    buf_cleanup(&c->uout);
    buf_cleanup(&c->judged);
    gw_resp_cleanup(&c->resp);
    free(c->cin);
    free(c->cout);
    if (c->prev != NULL)
        c->prev->next = c->next;
    else
        gw->conns = c->next;
    if (c->next != NULL)
        c->next->prev = c->prev;
    gw->nconns--;
    free(c);
    gw__trim_soon(gw);
    gw__maybe_done(gw);
}

void
gw__conn_close_idle(struct gw *gw)
{
    struct gw_conn *c, *next;

    for (c = gw->conns; c != NULL; c = next) {
        next = c->next;
        if (c->state == GW_CS_HEAD && c->cin_len == 0)
            gw__conn_close(c, "shutdown");
    }
}

/* The vendor-bound buffer is allocated once at its full size so that
 * appends never move it: a moved buffer would leave a copy of the key in
 * freed memory. */
static int
conn_alloc(struct gw_conn *c)
{
    c->cin = malloc(GW_BUF);
    c->cout = malloc(GW_BUF);
    buf_init(&c->uout, GW_UOUT_CAP);
    if (c->cin == NULL || c->cout == NULL ||
        buf_preallocate(&c->uout, GW_UOUT_CAP, NULL) == -1)
        return -1;
    return 0;
}

void
gw__conn_accept(struct gw *gw, int fd, const union px_sockaddr *peer)
{
    struct gw_conn *c;

    if (gw->nconns >= gw->cfg->max_conns) {
        static const struct gw_denial d = { 503, "connection_limit_reached",
                                            "too many connections" };
        char msg[GW_ANSWER_MAX];
        size_t n = gw_answer_format(msg, sizeof(msg), &d);

        if (send(fd, msg, n, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
            log_debug("503 not sent");
        close(fd);
        return;
    }
    c = calloc(1, sizeof(*c));
    if (c == NULL) {
        close(fd);
        return;
    }
    c->gw = gw;
    c->cfd = fd;
    c->ufd = -1;
    c->ssl_rd_ev = EV_READ;
    c->ssl_wr_ev = EV_WRITE;
    px_peer_name(peer, c->client, sizeof(c->client));
    ev_init(&c->cio, conn_on_client);
    ev_init(&c->uio, conn_on_upstream);
    ev_init(&c->timer, conn_on_timer);
    c->next = gw->conns;
    if (gw->conns != NULL)
        gw->conns->prev = c;
    gw->conns = c;
    gw->nconns++;
    if (conn_alloc(c) == -1) {
        gw__conn_close(c, "out of memory");
        return;
    }
    gw__conn_set_state(c, GW_CS_HEAD);
}
