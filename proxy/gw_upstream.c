/* gw_upstream.c - the vendor side of a gateway connection: look the
 * vendor up (or take --connect-to), dial, TLS handshake with the
 * certificate checked, then pump: the rebuilt head and the request body
 * up, the response down, unchanged and as it comes (an SSE stream is
 * passed on event by event; nothing waits for the end).
 *
 * Buffers are bounded: while the client has not taken what the vendor
 * sent (GW_BUF), the vendor is not read, and the other way round.
 */
#include "gw_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/err.h>

#include "px_addr.h"
#include "px_listen.h"

void
gw__up_drop(struct gw_conn *c)
{
    px_dns_cancel(c->dnsq);
    c->dnsq = NULL;
    if (c->ssl != NULL) {
        /* close_notify when the socket takes it; no wait for the peer's */
        SSL_shutdown(c->ssl);
        SSL_free(c->ssl);
        c->ssl = NULL;
    }
    ERR_clear_error();
    ev_io_stop(c->gw->loop, &c->uio);
    if (c->ufd >= 0)
        close(c->ufd);
    c->ufd = -1;
    c->tls_up = false;
    c->ssl_rd_ev = EV_READ;
    c->ssl_wr_ev = EV_WRITE;
    c->ssl_wr_len = 0;
}

/* The vendor connection failed before the response began: 502/504. */
static void
up_fail(struct gw_conn *c, int status, const char *error, const char *why)
{
    gw__conn_deny(c, status, error, why);
}

static void up_dial(struct gw_conn *c);

static void
up_on_dns(void *arg, enum px_dns_status st, const union px_sockaddr *addrs,
          size_t n)
{
    struct gw_conn *c = arg;

    c->dnsq = NULL;
    if (st != PX_DNS_OK) {
        up_fail(c, st == PX_DNS_TIMEOUT ? 504 : 502, "dns_error",
                st == PX_DNS_NOTFOUND ? "the vendor's name has no address"
                                      : "the vendor's name did not resolve");
        return;
    }
    for (size_t i = 0; i < n && !c->gw->cfg->allow_private; i++) {
        if (px_addr_class(&addrs[i].sa) != PX_ADDR_PUBLIC) {
            up_fail(c, 502, "destination_ip_prohibited",
                    "the vendor's name resolves to a private address");
            return;
        }
    }
    memcpy(c->addrs, addrs, n * sizeof(*addrs));
    c->naddrs = (unsigned)n;
    c->addr_i = 0;
    up_dial(c);
}

/* Where to connect: --connect-to, a literal, or a lookup. */
static void
up_resolve(struct gw_conn *c)
{
    const struct gw_config *cfg = c->gw->cfg;
    const struct hostport *u = &cfg->upstream;
    union px_sockaddr *a = &c->addrs[0];
    struct err e = { 0 };

    memset(a, 0, sizeof(*a));
    c->naddrs = 1;
    c->addr_i = 0;
    if (cfg->connect_to) {
        *a = cfg->connect_addr;
    } else if (u->kind == HOSTPORT_IPV4) {
        a->in4.sin_family = AF_INET;
        a->in4.sin_port = htons((uint16_t)u->port);
        inet_pton(AF_INET, u->host, &a->in4.sin_addr);
    } else if (u->kind == HOSTPORT_IPV6) {
        a->in6.sin6_family = AF_INET6;
        a->in6.sin6_port = htons((uint16_t)u->port);
        inet_pton(AF_INET6, u->host, &a->in6.sin6_addr);
    } else {
        c->naddrs = 0;
        gw__conn_set_state(c, GW_CS_RESOLVE);
        c->dnsq = px_dns_lookup(c->gw->dns, u->host, u->port, up_on_dns, c, &e);
        if (c->dnsq == NULL)
            up_fail(c, 502, "dns_error", "cannot start the lookup");
        return;
    }
    up_dial(c);
}

static void
up_dial(struct gw_conn *c)
{
    for (; c->addr_i < c->naddrs; c->addr_i++) {
        int fd = px_dial_start(&c->addrs[c->addr_i]);

        if (fd >= 0) {
            c->ufd = fd;
            gw__conn_set_state(c, GW_CS_DIAL);
            return;
        }
    }
    up_fail(c, 502, "connection_refused", "cannot connect to the vendor");
}

/* Acknowledge what the vendor sends at once. A delayed ACK (up to 40 ms
 * on Linux) meets a vendor whose Nagle holds its answer until its last
 * small segment (a TLS 1.3 session ticket) is acknowledged: measured as
 * +40 ms on every new vendor connection (hack/bench/gateway). Quick-ACK
 * mode does not stick, so it is asked for before every read. */
static void
up_quickack(struct gw_conn *c)
{
    int one = 1;

    setsockopt(c->ufd, IPPROTO_TCP, TCP_QUICKACK, &one, sizeof(one));
}

static void
up_handshake(struct gw_conn *c)
{
    int r;

    up_quickack(c);
    r = SSL_do_handshake(c->ssl);
    const char *error, *why;

    if (r == 1) {
        c->tls_up = true;
        c->ssl_rd_ev = EV_READ;
        gw__conn_set_state(c, GW_CS_RELAY);
        gw__up_pump(c);
        return;
    }
    switch (SSL_get_error(c->ssl, r)) {
    case SSL_ERROR_WANT_READ:
        c->ssl_rd_ev = EV_READ;
        gw__conn_watch(c);
        return;
    case SSL_ERROR_WANT_WRITE:
        c->ssl_rd_ev = EV_WRITE;
        gw__conn_watch(c);
        return;
    default:
        why = gw__tls_failure(c->ssl, r, &error);
        up_fail(c, 502, error, why);
        return;
    }
}

static void
up_dial_done(struct gw_conn *c)
{
    int err = 0, one = 1;
    socklen_t len = sizeof(err);
    struct err e = { 0 };

    if (getsockopt(c->ufd, SOL_SOCKET, SO_ERROR, &err, &len) == -1)
        err = errno;
    if (err != 0) {
        ev_io_stop(c->gw->loop, &c->uio);
        close(c->ufd);
        c->ufd = -1;
        c->addr_i++;
        if (c->addr_i < c->naddrs) {
            up_dial(c);
            return;
        }
        up_fail(c, err == ETIMEDOUT ? 504 : 502,
                err == ETIMEDOUT ? "connection_timeout" : "connection_refused",
                strerror(err));
        return;
    }
    /* Events are forwarded as they come; Nagle would hold them back. */
    setsockopt(c->ufd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    setsockopt(c->cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    c->ssl = gw__tls_new(c->gw, c->ufd, c->gw->cfg->upstream.host, &e);
    if (c->ssl == NULL) {
        up_fail(c, 502, "proxy_internal_error", e.msg);
        return;
    }
    c->state = GW_CS_TLS;
    up_handshake(c);
}

void
gw__up_connect_event(struct gw_conn *c)
{
    if (c->state == GW_CS_DIAL)
        up_dial_done(c);
    else if (c->state == GW_CS_TLS)
        up_handshake(c);
    else
        gw__conn_watch(c);
}

void
gw__up_start(struct gw_conn *c)
{
    if (c->ssl != NULL && c->tls_up) {
        gw__conn_set_state(c, GW_CS_RELAY);
        gw__up_pump(c);
        return;
    }
    gw__up_drop(c);
    up_resolve(c);
}

void
gw__up_idle_event(struct gw_conn *c)
{
    char x;
    int r;

    if (c->ssl == NULL)
        return;
    r = SSL_read(c->ssl, &x, 1);
    if (r <= 0 && SSL_get_error(c->ssl, r) == SSL_ERROR_WANT_READ)
        return;
    /* Closed, or bytes no request asked for: not reusable. */
    gw__up_drop(c);
    gw__conn_watch(c);
}

/* Outcome of one pump step. */
enum up_step { UP_IDLE, UP_MOVED, UP_GONE };

/* Move what is still to be sent to the front of uout and wipe the rest
 * (it may hold the head with the key). SSL_write may be retried from the
 * new place: SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER. */
static void
uout_compact(struct gw_conn *c)
{
    size_t pending = c->uout.len - c->uout_off;

    if (c->uout_off == 0)
        return;
    memmove(c->uout.data, c->uout.data + c->uout_off, pending);
    explicit_bzero(c->uout.data + pending, c->uout.len - pending);
    c->uout.len = pending;
    c->uout.data[pending] = '\0';
    c->uout_off = 0;
}

/* A judged body (gw_judge.c) -> (body framing) -> uout: the bytes the
 * policy read, no others. */
static enum up_step
up_judged_in(struct gw_conn *c, size_t pending)
{
    size_t room = GW_BUF > pending ? GW_BUF - pending : 0, used = 0;
    size_t left = c->judged.len - c->judged_off;
    enum gw_feed f;
    const char *why;
    int status;

    if (room == 0)
        return UP_IDLE;
    uout_compact(c);
    f = gw_body_feed(&c->reqb, c->judged.data + c->judged_off,
                     left < room ? left : room, &used);
    if (f == GW_FEED_FAIL) {
        gw__conn_deny(c, 400, "http_request_error", c->reqb.why);
        return UP_GONE;
    }
    /* other connections may have spent the bytes since its admission */
    if (used > 0 && (why = gw_budget_body(&c->gw->budget, c->reqb.fed, used,
                                          &status)) != NULL) {
        gw__conn_deny(c, status, "http_request_denied", why);
        return UP_GONE;
    }
    if (buf_append(&c->uout, c->judged.data + c->judged_off, used, NULL) ==
        -1) {
        gw__conn_close(c, "vendor buffer full");
        return UP_GONE;
    }
    c->judged_off += used;
    c->bytes_up += used;
    gw_budget_add_bytes(&c->gw->budget, used);
    c->req_done = f == GW_FEED_DONE;
    return used > 0 || c->req_done ? UP_MOVED : UP_IDLE;
}

/* Client -> cin -> (body framing) -> uout. */
static enum up_step
up_body_in(struct gw_conn *c)
{
    size_t pending = c->uout.len - c->uout_off, used = 0, room;
    enum up_step moved = UP_IDLE;
    enum gw_feed f;
    const char *why;
    int status;

    if (c->req_done)
        return UP_IDLE;
    if (c->judged.len > 0) /* a judged body: from its buffer */
        return up_judged_in(c, pending);
    if (c->cin_len < GW_BUF && !c->client_eof) {
        ssize_t n = recv(c->cfd, c->cin + c->cin_len, GW_BUF - c->cin_len, 0);

        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK &&
            errno != EINTR) {
            gw__conn_close(c, "client read failed");
            return UP_GONE;
        }
        if (n == 0)
            c->client_eof = true; /* maybe a half-close after the body */
        if (n > 0) {
            c->cin_len += (size_t)n;
            moved = UP_MOVED;
        }
    }
    if (c->client_eof && c->cin_len == 0) {
        gw__conn_close(c, "client left during the request body");
        return UP_GONE;
    }
    room = GW_BUF > pending ? GW_BUF - pending : 0;
    if (c->cin_len == 0 || room == 0)
        return moved;
    uout_compact(c);
    f = gw_body_feed(&c->reqb, c->cin, c->cin_len < room ? c->cin_len : room,
                     &used);
    if (f == GW_FEED_FAIL) {
        gw__conn_deny(c, 400, "http_request_error", c->reqb.why);
        return UP_GONE;
    }
    if (used > 0 && (why = gw_budget_body(&c->gw->budget, c->reqb.fed, used,
                                          &status)) != NULL) {
        gw__conn_deny(c, status, "http_request_denied", why); /* ends it */
        return UP_GONE;
    }
    if (buf_append(&c->uout, c->cin, used, NULL) == -1) {
        gw__conn_close(c, "vendor buffer full");
        return UP_GONE;
    }
    memmove(c->cin, c->cin + used, c->cin_len - used);
    c->cin_len -= used;
    c->bytes_up += used;
    gw_budget_add_bytes(&c->gw->budget, used);
    c->req_done = f == GW_FEED_DONE;
    return used > 0 || c->req_done ? UP_MOVED : moved;
}

/* uout -> vendor. */
static enum up_step
up_write(struct gw_conn *c)
{
    size_t pending = c->uout.len - c->uout_off;
    int len, w;

    if (pending == 0)
        return UP_IDLE;
    if (c->ssl == NULL) {
        /* The vendor answered in full and went away before the request
         * body ended: the rest of the body has no reader. */
        explicit_bzero(c->uout.data, c->uout.len);
        buf_reset(&c->uout);
        c->uout_off = 0;
        return UP_MOVED;
    }
    /* A retried SSL_write must repeat its length (SSL_write(3)). */
    len = c->ssl_wr_len > 0 ? c->ssl_wr_len
                            : (int)(pending < GW_BUF ? pending : GW_BUF);
    w = SSL_write(c->ssl, c->uout.data + c->uout_off, len);
    if (w > 0) {
        c->ssl_wr_len = 0;
        c->ssl_wr_ev = EV_WRITE;
        c->uout_off += (size_t)w;
        if (c->uout_off == c->uout.len) {
            /* The head (with the key) is out: wipe it where it was. */
            explicit_bzero(c->uout.data, c->uout.len);
            buf_reset(&c->uout);
            c->uout_off = 0;
        }
        return UP_MOVED;
    }
    switch (SSL_get_error(c->ssl, w)) {
    case SSL_ERROR_WANT_READ:
        c->ssl_wr_len = len;
        c->ssl_wr_ev = EV_READ;
        return UP_IDLE;
    case SSL_ERROR_WANT_WRITE:
        c->ssl_wr_len = len;
        c->ssl_wr_ev = EV_WRITE;
        return UP_IDLE;
    default:
        if (c->resp_done) {
            /* Answered already (an early refusal of a large body, say):
             * the answer still goes out, the body is dropped. */
            gw__up_drop(c);
            c->keep_alive = false;
            return UP_MOVED;
        }
        if (c->bytes_down == 0)
            up_fail(c, 502, "http_request_error",
                    "the vendor connection failed while sending");
        else
            gw__conn_close(c, "the vendor connection failed while sending");
        return UP_GONE;
    }
}

/* The vendor closed (or failed) while a response was expected. */
static enum up_step
up_read_end(struct gw_conn *c)
{
    if (gw_resp_eof_ok(&c->resp)) {
        c->resp_done = true; /* a body delimited by the close */
        gw__up_drop(c);
        c->keep_alive = false; /* the client reads to our close too */
        return UP_MOVED;
    }
    if (c->bytes_down == 0)
        up_fail(c, 502, "http_response_incomplete",
                "the vendor closed before answering");
    else
        gw__conn_close(c, "the vendor cut the response short");
    return UP_GONE;
}

/* vendor -> (response framing) -> cout. */
static enum up_step
up_read(struct gw_conn *c)
{
    size_t used = 0;
    enum gw_feed f;
    int r;

    if (c->resp_done || c->cout_len >= GW_BUF || c->ssl == NULL)
        return UP_IDLE;
    if (c->cout_off > 0) {
        memmove(c->cout, c->cout + c->cout_off, c->cout_len);
        c->cout_off = 0;
    }
    up_quickack(c);
    r = SSL_read(c->ssl, c->cout + c->cout_len, (int)(GW_BUF - c->cout_len));
    if (r <= 0) {
        switch (SSL_get_error(c->ssl, r)) {
        case SSL_ERROR_WANT_READ:
            c->ssl_rd_ev = EV_READ;
            return UP_IDLE;
        case SSL_ERROR_WANT_WRITE:
            c->ssl_rd_ev = EV_WRITE;
            return UP_IDLE;
        default:
            return up_read_end(c);
        }
    }
    c->ssl_rd_ev = EV_READ;
    f = gw_resp_feed(&c->resp, c->cout + c->cout_len, (size_t)r, &used);
    if (f == GW_FEED_FAIL) {
        if (c->bytes_down == 0)
            up_fail(c, 502, "http_protocol_error", c->resp.why);
        else
            gw__conn_close(c, c->resp.why);
        return UP_GONE;
    }
    c->cout_len += used;
    c->bytes_down += used;
    gw_budget_add_bytes(&c->gw->budget, used);
    if (f == GW_FEED_DONE) {
        c->resp_done = true;
        if (used < (size_t)r)
            c->resp.close = true; /* bytes past the response: not reused */
    }
    return UP_MOVED;
}

/* cout -> client. */
static enum up_step
up_send(struct gw_conn *c)
{
    ssize_t w;
    enum up_step moved = UP_IDLE;

    while (c->cout_len > 0) {
        w = send(c->cfd, c->cout + c->cout_off, c->cout_len, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        if (w < 0) {
            gw__conn_close(c, "client write failed");
            return UP_GONE;
        }
        c->cout_off += (size_t)w;
        c->cout_len -= (size_t)w;
        moved = UP_MOVED;
    }
    if (c->cout_len == 0)
        c->cout_off = 0;
    return moved;
}

void
gw__up_pump(struct gw_conn *c)
{
    enum up_step (*const steps[])(struct gw_conn *) = {
        up_body_in,
        up_write,
        up_read,
        up_send,
    };

    bool moved = true;

    /* Bounded rounds so one busy exchange cannot starve the others. */
    for (int round = 0; round < 16 && moved; round++) {
        moved = false;

        for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
            enum up_step s = steps[i](c);

            if (s == UP_GONE)
                return; /* c is answered or freed */
            moved |= s == UP_MOVED;
        }
        if (moved)
            c->last_active = ev_now(c->gw->loop);
    }
    if (c->req_done && c->resp_done && c->cout_len == 0 &&
        c->uout.len == c->uout_off) {
        gw__conn_exchange_done(c);
        return;
    }
    gw__conn_watch(c);
    /* Still moving after the last round: TLS may hold decrypted bytes
     * that no socket event will announce; come back from the loop. */
    if (moved)
        ev_feed_event(c->gw->loop, &c->uio, EV_READ);
}
