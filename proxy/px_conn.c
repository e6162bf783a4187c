/* px_conn.c - one proxied client: read CONNECT, check policy, resolve,
 * dial, pump bytes both ways, log one line, close.
 *
 * Memory per tunnel stays small: the bytes of a tunnel move by splice
 * through a pipe a direction holds only while its reader is slow, or are
 * copied through the shared px->scratch (px_pump.c); while a direction
 * holds bytes its source is not read (back-pressure). The request parser
 * exists only until the header is done. px__conn_close() is the one
 * teardown path.
 */
#include "px_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "log.h"
#include "px_addr.h"
#include "px_answer.h"
#include "px_listen.h"

enum px_conn_state {
    PX_CS_HEADER,  /* reading the CONNECT header (header timeout) */
    PX_CS_RESOLVE, /* waiting for DNS (connect timeout) */
    PX_CS_DIAL,    /* connect() in progress (connect timeout) */
    PX_CS_TUNNEL,  /* 200 sent, pumping (idle timeout) */
    PX_CS_LINGER,  /* error answer sent, draining the client */
};

struct px_conn {
    struct px *px;
    struct px_conn *prev, *next;
    enum px_conn_state state;
    int cfd, ufd;
    ev_io cio, uio;
    ev_timer timer;
    ev_tstamp started, last_active;
    struct px_dir up;   /* client -> upstream */
    struct px_dir down; /* upstream -> client */
    uint32_t down_skip;  /* bytes of our own answer in down.bytes */
    uint32_t dropped;    /* bytes dropped while lingering */
    struct px_req *req;  /* only while reading the header */
    struct px_dns_query *dnsq;
    union px_sockaddr addrs[PX_DNS_MAX_ADDRS];
    unsigned naddrs, addr_i;
    bool counted; /* counts against max_conns (else a 503 reject) */
    bool have_target;
    int status;
    struct hostport target;
    char client[56];
};

/* Derive both watchers from the state and the pipes. */
static void
px_conn_watch(struct px_conn *c)
{
    int ce = 0, ue = 0;

    switch (c->state) {
    case PX_CS_HEADER:
    case PX_CS_LINGER:
        ce = EV_READ;
        break;
    case PX_CS_RESOLVE:
        break;
    case PX_CS_DIAL:
        ue = EV_WRITE;
        break;
    case PX_CS_TUNNEL:
        if (!c->up.eof && px_dir_pending(&c->up) == 0)
            ce |= EV_READ;
        if (!c->down.eof && px_dir_pending(&c->down) == 0)
            ue |= EV_READ;
        if (px_dir_pending(&c->up) > 0)
            ue |= EV_WRITE;
        break;
    }
    if (px_dir_pending(&c->down) > 0)
        ce |= EV_WRITE;
    px_io_want(c->px->loop, &c->cio, c->cfd, ce);
    px_io_want(c->px->loop, &c->uio, c->ufd, ue);
}

static void
px_conn_set_state(struct px_conn *c, enum px_conn_state s, double timeout)
{
    c->state = s;
    ev_timer_stop(c->px->loop, &c->timer);
    if (timeout > 0) {
        ev_timer_set(&c->timer, timeout, 0.);
        ev_timer_start(c->px->loop, &c->timer);
    }
    px_conn_watch(c);
}

static void
px_conn_tunnel_step(struct px_conn *c)
{
    ssize_t up = px__pump(c->px, &c->up, c->cfd, c->ufd), down = 0;

    if (up == -1 || (down = px__pump(c->px, &c->down, c->ufd, c->cfd)) == -1) {
        px__conn_close(c, "connection reset");
        return;
    }
    if (up > 0 || down > 0)
        c->last_active = ev_now(c->px->loop);
    if (c->up.shut && c->down.shut) {
        px__conn_close(c, "done");
        return;
    }
    px_conn_watch(c);
}

/* Answer an error and linger: shut our side once the answer is out, read
 * and drop what the client still sends (so the close does not reset the
 * answer away), then close. */
static void
px_conn_fail(struct px_conn *c, int status, const char *error,
             const char *details)
{
    char msg[PX_ANSWER_MAX];
    size_t n;

    c->status = status;
    if (c->ufd >= 0) {
        ev_io_stop(c->px->loop, &c->uio);
        close(c->ufd);
        c->ufd = -1;
    }
    px__dir_cleanup(c->px, &c->up);
    n = px_answer_format(msg, sizeof(msg), status, error, details);
    c->down_skip = (uint32_t)n;
    if (px__dir_send(&c->down, c->cfd, msg, n) == -1) {
        px__conn_close(c, "client write failed");
        return;
    }
    if (c->down.len == 0) {
        shutdown(c->cfd, SHUT_WR);
        c->down.shut = true;
    }
    px_conn_set_state(c, PX_CS_LINGER, PX_LINGER_SECS);
}

static void
px_conn_linger_step(struct px_conn *c, int revents)
{
    if ((revents & EV_WRITE) && c->down.len > 0) {
        if (px__dir_flush(&c->down, c->cfd) == -1) {
            px__conn_close(c, "client write failed");
            return;
        }
        if (c->down.len == 0) {
            shutdown(c->cfd, SHUT_WR);
            c->down.shut = true;
        }
    }
    if (revents & EV_READ) {
        ssize_t n = recv(c->cfd, c->px->scratch, PX_PUMP_CHUNK, 0);
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
            px__conn_close(c, "answered");
            return;
        }
        if (n > 0)
            c->dropped += (uint32_t)n;
        if (c->dropped > PX_LINGER_BYTES) {
            px__conn_close(c, "answered; client kept sending");
            return;
        }
    }
    px_conn_watch(c);
}

static void px_conn_dial(struct px_conn *c);
static void px_conn_dial_done(struct px_conn *c);

/* Refuse addresses in a private class; then dial the first one. */
static void
px_conn_check_and_dial(struct px_conn *c)
{
    if (!c->px->cfg->allow_private) {
        for (unsigned i = 0; i < c->naddrs; i++) {
            if (px_addr_class(&c->addrs[i].sa) != PX_ADDR_PUBLIC) {
                px_conn_fail(c, 403, "destination_ip_prohibited",
                             "the name resolves to a refused address class");
                return;
            }
        }
    }
    c->addr_i = 0;
    px_conn_dial(c);
}

static void
px_conn_on_dns(void *arg, enum px_dns_status st, const union px_sockaddr *addrs,
               size_t n)
{
    struct px_conn *c = arg;

    c->dnsq = NULL;
    if (st != PX_DNS_OK) {
        if (st == PX_DNS_TIMEOUT)
            px_conn_fail(c, 504, "dns_timeout", NULL);
        else
            px_conn_fail(c, 502, "dns_error", "the name does not resolve");
        return;
    }
    memcpy(c->addrs, addrs, n * sizeof(*addrs));
    c->naddrs = (unsigned)n;
    px_conn_check_and_dial(c);
}

/* Resolve the target: a literal is its own (only) address. */
static void
px_conn_resolve(struct px_conn *c)
{
    const struct hostport *t = &c->target;
    union px_sockaddr *a = &c->addrs[0];
    struct err e = { 0 };

    memset(a, 0, sizeof(*a));
    c->naddrs = 1;
    if (t->kind == HOSTPORT_IPV4) {
        a->in4.sin_family = AF_INET;
        a->in4.sin_port = htons((uint16_t)t->port);
        inet_pton(AF_INET, t->host, &a->in4.sin_addr);
        px_conn_check_and_dial(c);
        return;
    }
    if (t->kind == HOSTPORT_IPV6) {
        a->in6.sin6_family = AF_INET6;
        a->in6.sin6_port = htons((uint16_t)t->port);
        inet_pton(AF_INET6, t->host, &a->in6.sin6_addr);
        px_conn_check_and_dial(c);
        return;
    }
    c->naddrs = 0;
    px_conn_set_state(c, PX_CS_RESOLVE, c->px->cfg->connect_timeout);
    c->dnsq =
        px_dns_lookup(c->px->dns, t->host, t->port, px_conn_on_dns, c, &e);
    if (c->dnsq == NULL)
        px_conn_fail(c, 502, "dns_error", NULL);
}

static void
px_conn_on_connected(struct px_conn *c)
{
    static const char ok[] = "HTTP/1.1 200 Connection established\r\n\r\n";
    int one = 1;

    /* Bytes are forwarded as they come; Nagle would only add delay. */
    setsockopt(c->cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    setsockopt(c->ufd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    c->status = 200;
    c->down_skip = sizeof(ok) - 1;
    if (px__dir_send(&c->down, c->cfd, ok, sizeof(ok) - 1) == -1) {
        px__conn_close(c, "client write failed");
        return;
    }
    c->last_active = ev_now(c->px->loop);
    px_conn_set_state(c, PX_CS_TUNNEL, c->px->cfg->idle_timeout);
    px_conn_tunnel_step(c); /* sends payload that came with the header */
}

/* Open a socket to addrs[addr_i] and start connecting; on an immediate
 * failure try the next address. */
static void
px_conn_dial(struct px_conn *c)
{
    for (; c->addr_i < c->naddrs; c->addr_i++) {
        int fd = px_dial_start(&c->addrs[c->addr_i]);
        struct pollfd settled = { .fd = fd, .events = POLLOUT };

        if (fd < 0)
            continue;
        c->ufd = fd;
        /* A near upstream (loopback, the same bridge) has often answered
         * before connect() returned: go on without a trip through the
         * loop. */
        if (poll(&settled, 1, 0) == 1) {
            c->state = PX_CS_DIAL;
            px_conn_dial_done(c);
            return;
        }
        px_conn_set_state(c, PX_CS_DIAL, c->px->cfg->connect_timeout);
        return;
    }
    px_conn_fail(c, 502, "connection_refused", NULL);
}

static void
px_conn_dial_done(struct px_conn *c)
{
    int err = 0;
    socklen_t len = sizeof(err);

    if (getsockopt(c->ufd, SOL_SOCKET, SO_ERROR, &err, &len) == -1)
        err = errno;
    if (err == 0) {
        px_conn_on_connected(c);
        return;
    }
    ev_io_stop(c->px->loop, &c->uio);
    close(c->ufd);
    c->ufd = -1;
    c->addr_i++;
    if (c->addr_i < c->naddrs) {
        px_conn_dial(c);
        return;
    }
    if (err == ETIMEDOUT)
        px_conn_fail(c, 504, "connection_timeout", NULL);
    else
        px_conn_fail(c, 502, "connection_refused", NULL);
}

/* The header is complete: check the target against the policy. */
static void
px_conn_route(struct px_conn *c)
{
    const struct px_config *cfg = c->px->cfg;

    if (hostport_parse(c->req->target, c->req->target_len, &c->target,
                           NULL) == -1) {
        px_conn_fail(c, 400, NULL, "bad target");
        return;
    }
    c->have_target = true;
    free(c->req); /* the tunnel keeps no header state */
    c->req = NULL;
    if (!px_allow_match(&cfg->allow, &c->target)) {
        px_conn_fail(c, 403, NULL, "not in the allowlist");
        return;
    }
    px_conn_resolve(c);
}

static void
px_conn_header_step(struct px_conn *c)
{
    size_t used = 0;
    ssize_t n = recv(c->cfd, c->px->scratch, PX_PUMP_CHUNK, 0);
    enum px_req_result res;

    if (n < 0) {
        if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
            px__conn_close(c, "client read failed");
        return;
    }
    if (n == 0) {
        px__conn_close(c, "client left before the header ended");
        return;
    }
    res = px_req_feed(c->req, c->px->scratch, (size_t)n, &used);
    if (res == PX_REQ_FAIL) {
        px_conn_fail(c, c->req->status, NULL, c->req->why);
        return;
    }
    if (res == PX_REQ_MORE)
        return;
    /* Bytes after the header are payload: keep them for the upstream. */
    if ((size_t)n > used && px__dir_send(&c->up, -1, c->px->scratch + used,
                                         (size_t)n - used) == -1) {
        px__conn_close(c, "out of memory");
        return;
    }
    px_conn_route(c);
}

static void
px_conn_on_client(struct ev_loop *loop, ev_io *w, int revents)
{
    struct px_conn *c = container_of(w, struct px_conn, cio);

    (void)loop;
    switch (c->state) {
    case PX_CS_HEADER:
        px_conn_header_step(c);
        break;
    case PX_CS_TUNNEL:
        px_conn_tunnel_step(c);
        break;
    case PX_CS_LINGER:
        px_conn_linger_step(c, revents);
        break;
    default:
        px_conn_watch(c);
        break;
    }
}

static void
px_conn_on_upstream(struct ev_loop *loop, ev_io *w, int revents)
{
    struct px_conn *c = container_of(w, struct px_conn, uio);

    (void)loop;
    (void)revents;
    if (c->state == PX_CS_DIAL)
        px_conn_dial_done(c);
    else if (c->state == PX_CS_TUNNEL)
        px_conn_tunnel_step(c);
    else
        px_conn_watch(c);
}

void
px__conn_timeout(struct px_conn *c)
{
    struct ev_loop *loop = c->px->loop;
    ev_tstamp left;

    switch (c->state) {
    case PX_CS_HEADER:
        px_conn_fail(c, 408, NULL, "header not complete in time");
        break;
    case PX_CS_RESOLVE:
    case PX_CS_DIAL:
        px_dns_cancel(c->dnsq);
        c->dnsq = NULL;
        px_conn_fail(c, 504,
                     c->state == PX_CS_RESOLVE ? "dns_timeout"
                                               : "connection_timeout",
                     NULL);
        break;
    case PX_CS_TUNNEL:
        /* Activity only stamps last_active; re-arm for what is left
         * (ev.pod "Be smart about timeouts"). ev_timer_again, as it
         * holds whether the timer has run out or is still pending. */
        left = c->last_active + c->px->cfg->idle_timeout - ev_now(loop);
        if (left > 0) {
            c->timer.repeat = left;
            ev_timer_again(loop, &c->timer);
        } else {
            px__conn_close(c, "idle timeout");
        }
        break;
    case PX_CS_LINGER:
        px__conn_close(c, "answered");
        break;
    }
}

static void
px_conn_on_timer(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)loop;
    (void)revents;
    px__conn_timeout(container_of(w, struct px_conn, timer));
}

static void
px_conn_log(const struct px_conn *c, const char *why)
{
    char when[40], target[PX_REQ_TARGET_MAX + 16], esc[6 * sizeof(target)];
    char line[2400];
    uint64_t down = c->down.bytes;
    int n;

    target[0] = '\0';
    if (c->have_target)
        hostport_format(&c->target, target, sizeof(target));
    else if (c->req != NULL)
        snprintf(target, sizeof(target), "%s", c->req->target);
    log_json_escape(esc, sizeof(esc), target);
    log_time_now(when, sizeof(when));
    down -= down < c->down_skip ? down : c->down_skip;
    n = snprintf(line, sizeof(line),
                 "{\"time\":\"%s\",\"level\":\"info\",\"msg\":\"tunnel\","
                 "\"client\":\"%s\",\"target\":\"%s\",\"status\":%d,"
                 "\"bytes_up\":%llu,\"bytes_down\":%llu,"
                 "\"duration_ms\":%lld,\"reason\":\"%s\"}\n",
                 when, c->client, esc, c->status,
                 (unsigned long long)c->up.bytes, (unsigned long long)down,
                 (long long)((ev_time() - c->started) * 1000.0), why);
    if (n > 0 && (size_t)n < sizeof(line) && write(2, line, (size_t)n) < 0)
        return; /* nowhere left to report it */
}

void
px__conn_close(struct px_conn *c, const char *why)
{
    struct px *px = c->px;

    ev_io_stop(px->loop, &c->cio);
    ev_io_stop(px->loop, &c->uio);
    ev_timer_stop(px->loop, &c->timer);
    px_dns_cancel(c->dnsq);
    if (c->cfd >= 0)
        close(c->cfd);
    if (c->ufd >= 0)
        close(c->ufd);
    px_conn_log(c, why);
    px__dir_cleanup(px, &c->up);
    px__dir_cleanup(px, &c->down);
    free(c->req);
    if (c->prev != NULL)
        c->prev->next = c->next;
    else
        px->conns = c->next;
    if (c->next != NULL)
        c->next->prev = c->prev;
    if (c->counted)
        px->nconns--;
    else
        px->nreject--;
    free(c);
    px__maybe_done(px);
}

/* Past --max-conns and PX_REJECT_MAX lingering answers (a flood): answer
 * 503 with nothing kept for the connection. Read what the client has sent
 * so far first (closing with unread bytes resets the connection, and a
 * reset can destroy the answer before the client reads it), send the
 * answer in one non-blocking send, shut down and close. Best effort: a
 * request that arrives after the close is answered by a reset, which
 * Linux clients see only after the 503 already in their buffer. */
static void
px_conn_reject_stateless(struct px *px, int fd, const union px_sockaddr *peer)
{
    struct px_conn c = { .px = px, .cfd = -1, .ufd = -1, .status = 503 };
    char msg[PX_ANSWER_MAX];
    size_t n = px_answer_format(msg, sizeof(msg), 503, NULL, NULL);
    ssize_t w;

    c.started = ev_time();
    px_peer_name(peer, c.client, sizeof(c.client));
    /* Bounded: a client streaming into a loopback socket must not keep
     * the loop here. */
    for (size_t got = 0; got < PX_LINGER_BYTES;) {
        ssize_t r = recv(fd, px->scratch, PX_PUMP_CHUNK, MSG_DONTWAIT);

        if (r <= 0)
            break;
        got += (size_t)r;
    }
    w = send(fd, msg, n, MSG_NOSIGNAL | MSG_DONTWAIT);
    c.down.bytes = w > 0 ? (uint64_t)w : 0;
    c.down_skip = (uint32_t)n;
    shutdown(fd, SHUT_WR);
    close(fd);
    px_conn_log(&c, "over --max-conns; answered without lingering");
}

void
px__conn_refuse_unopened(struct px *px)
{
    struct px_conn *c, *next;

    for (c = px->conns; c != NULL; c = next) {
        next = c->next; /* px_conn_fail() may free c */
        if (c->state != PX_CS_HEADER && c->state != PX_CS_RESOLVE &&
            c->state != PX_CS_DIAL)
            continue;
        px_dns_cancel(c->dnsq);
        c->dnsq = NULL;
        px_conn_fail(c, 503, NULL, NULL);
    }
}

void
px__conn_accept(struct px *px, int fd, const union px_sockaddr *peer)
{
    bool over = px->nconns >= px->cfg->max_conns;
    struct px_conn *c;

    if (over && px->nreject >= PX_REJECT_MAX) {
        px_conn_reject_stateless(px, fd, peer);
        return;
    }
    c = calloc(1, sizeof(*c));
    if (c == NULL) {
        close(fd);
        return;
    }
    c->px = px;
    c->cfd = fd;
    c->ufd = -1;
    c->up.pipe.rd = c->up.pipe.wr = c->down.pipe.rd = c->down.pipe.wr = -1;
    c->started = ev_time();
    px_peer_name(peer, c->client, sizeof(c->client));
    ev_init(&c->cio, px_conn_on_client);
    ev_init(&c->uio, px_conn_on_upstream);
    ev_init(&c->timer, px_conn_on_timer);
    c->next = px->conns;
    if (px->conns != NULL)
        px->conns->prev = c;
    px->conns = c;
    c->counted = !over;
    if (over) {
        px->nreject++;
        px_conn_fail(c, 503, NULL, NULL);
        return;
    }
    px->nconns++;
    c->req = malloc(sizeof(*c->req));
    if (c->req == NULL) {
        px__conn_close(c, "out of memory");
        return;
    }
    px_req_init(c->req, px->cfg->header_limit);
    px_conn_set_state(c, PX_CS_HEADER, px->cfg->header_timeout);
    /* The header has often come with the connection: read it now rather
     * than after a trip through the loop (EAGAIN: the watcher waits). */
    px_conn_header_step(c);
}
