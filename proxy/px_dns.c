/* px_dns.c - c-ares on libev: one ev_io per resolver socket, one timer.
 *
 * c-ares tells us through its socket-state callback which sockets it
 * wants watched; we run ares_process_fd() when they are ready and when
 * ares_timeout() says a retry is due.
 */
#include "px_dns.h"

#include <ares.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "container_of.h"

struct px_dns_sock {
    ev_io io;
    struct px_dns *d;
    struct px_dns_sock *next;
};

struct px_dns {
    struct ev_loop *loop;
    ares_channel channel;
    ev_timer timer; /* next c-ares retry or timeout */
    struct px_dns_sock *socks;
    bool destroying;
};

struct px_dns_query {
    struct px_dns *d;
    px_dns_fn *fn; /* NULL once cancelled */
    void *arg;
    unsigned port;
    bool answered;    /* c-ares is done with it */
    ev_timer deliver; /* hands the answer to fn from the loop */
    enum px_dns_status status;
    union px_sockaddr addrs[PX_DNS_MAX_ADDRS];
    size_t naddrs;
};

static void
px_dns_rearm(struct px_dns *d)
{
    struct timeval tv, *t;

    ev_timer_stop(d->loop, &d->timer);
    t = ares_timeout(d->channel, NULL, &tv);
    if (t == NULL)
        return;
    ev_timer_set(&d->timer, (double)t->tv_sec + t->tv_usec / 1e6, 0.);
    ev_timer_start(d->loop, &d->timer);
}

static void
px_dns_on_io(struct ev_loop *loop, ev_io *w, int revents)
{
    struct px_dns_sock *s = container_of(w, struct px_dns_sock, io);
    struct px_dns *d = s->d;

    (void)loop;
    ares_process_fd(d->channel, (revents & EV_READ) ? w->fd : ARES_SOCKET_BAD,
                    (revents & EV_WRITE) ? w->fd : ARES_SOCKET_BAD);
    px_dns_rearm(d);
}

static void
px_dns_on_timer(struct ev_loop *loop, ev_timer *w, int revents)
{
    struct px_dns *d = container_of(w, struct px_dns, timer);

    (void)loop;
    (void)revents;
    ares_process_fd(d->channel, ARES_SOCKET_BAD, ARES_SOCKET_BAD);
    px_dns_rearm(d);
}

/* c-ares: start, change or stop watching fd. */
static void
px_dns_sock_state(void *data, ares_socket_t fd, int readable, int writable)
{
    struct px_dns *d = data;
    struct px_dns_sock **pp = &d->socks, *s;
    int events = (readable ? EV_READ : 0) | (writable ? EV_WRITE : 0);

    while (*pp != NULL && (*pp)->io.fd != fd)
        pp = &(*pp)->next;
    s = *pp;
    if (s != NULL) {
        ev_io_stop(d->loop, &s->io);
        if (events == 0) {
            *pp = s->next;
            free(s);
            return;
        }
    } else {
        if (events == 0)
            return;
        s = calloc(1, sizeof(*s));
        if (s == NULL)
            return; /* c-ares times the query out */
        s->d = d;
        s->next = d->socks;
        d->socks = s;
    }
    ev_io_init(&s->io, px_dns_on_io, fd, events);
    ev_io_start(d->loop, &s->io);
}

struct px_dns *
px_dns_new(struct ev_loop *loop, int timeout_ms, int tries, struct err *e)
{
    struct ares_options opt;
    struct px_dns *d;
    int rc;

    rc = ares_library_init(ARES_LIB_INIT_ALL);
    if (rc != ARES_SUCCESS) {
        err_set(e, ERR_IO, "c-ares init: %s", ares_strerror(rc));
        return NULL;
    }
    d = calloc(1, sizeof(*d));
    if (d == NULL) {
        err_set(e, ERR_NOMEM, "out of memory");
        return NULL;
    }
    d->loop = loop;
    ev_init(&d->timer, px_dns_on_timer);
    memset(&opt, 0, sizeof(opt));
    opt.sock_state_cb = px_dns_sock_state;
    opt.sock_state_cb_data = d;
    opt.timeout = timeout_ms;
    opt.tries = tries;
    /* The allowlisted name is looked up as written: a search domain from
     * resolv.conf or a HOSTALIASES file must not turn "api.example.com"
     * into some other host. */
    opt.flags = ARES_FLAG_NOSEARCH | ARES_FLAG_NOALIASES;
    rc = ares_init_options(&d->channel, &opt,
                           ARES_OPT_SOCK_STATE_CB | ARES_OPT_TIMEOUTMS |
                               ARES_OPT_TRIES | ARES_OPT_FLAGS);
    if (rc != ARES_SUCCESS) {
        err_set(e, ERR_IO, "c-ares channel: %s", ares_strerror(rc));
        free(d);
        return NULL;
    }
    return d;
}

static void
px_dns_query_free(struct px_dns_query *q)
{
    ev_timer_stop(q->d->loop, &q->deliver);
    free(q);
}

void
px_dns_free(struct px_dns *d)
{
    if (d == NULL)
        return;
    d->destroying = true;
    ares_destroy(d->channel); /* runs pending callbacks: they free */
    ev_timer_stop(d->loop, &d->timer);
    while (d->socks != NULL) {
        struct px_dns_sock *s = d->socks;
        d->socks = s->next;
        ev_io_stop(d->loop, &s->io);
        free(s);
    }
    ares_library_cleanup();
    free(d);
}

static void
px_dns_on_deliver(struct ev_loop *loop, ev_timer *w, int revents)
{
    struct px_dns_query *q = container_of(w, struct px_dns_query, deliver);

    (void)loop;
    (void)revents;
    if (q->fn != NULL)
        q->fn(q->arg, q->status, q->addrs, q->naddrs);
    px_dns_query_free(q);
}

static enum px_dns_status
px_dns_status_of(int status)
{
    switch (status) {
    case ARES_SUCCESS:
        return PX_DNS_OK;
    case ARES_ENOTFOUND:
    case ARES_ENODATA:
    case ARES_ENONAME:
        return PX_DNS_NOTFOUND;
    case ARES_ETIMEOUT:
        return PX_DNS_TIMEOUT;
    default:
        return PX_DNS_FAIL;
    }
}

static void
px_dns_take(struct px_dns_query *q, const struct ares_addrinfo *res)
{
    for (const struct ares_addrinfo_node *n = res->nodes;
         n != NULL && q->naddrs < PX_DNS_MAX_ADDRS; n = n->ai_next) {
        union px_sockaddr *a = &q->addrs[q->naddrs];

        if (n->ai_family == AF_INET && n->ai_addrlen >= (int)sizeof(a->in4)) {
            memcpy(&a->in4, n->ai_addr, sizeof(a->in4));
            a->in4.sin_port = htons((uint16_t)q->port);
        } else if (n->ai_family == AF_INET6 &&
                   n->ai_addrlen >= (int)sizeof(a->in6)) {
            memcpy(&a->in6, n->ai_addr, sizeof(a->in6));
            a->in6.sin6_port = htons((uint16_t)q->port);
        } else {
            continue;
        }
        q->naddrs++;
    }
}

static void
px_dns_on_answer(void *arg, int status, int timeouts, struct ares_addrinfo *res)
{
    struct px_dns_query *q = arg;

    (void)timeouts;
    q->answered = true;
    q->status = px_dns_status_of(status);
    if (res != NULL) {
        if (status == ARES_SUCCESS)
            px_dns_take(q, res);
        ares_freeaddrinfo(res);
    }
    if (q->status == PX_DNS_OK && q->naddrs == 0)
        q->status = PX_DNS_NOTFOUND;
    if (q->fn == NULL || q->d->destroying) {
        px_dns_query_free(q);
        return;
    }
    ev_timer_set(&q->deliver, 0., 0.);
    ev_timer_start(q->d->loop, &q->deliver);
}

struct px_dns_query *
px_dns_lookup(struct px_dns *d, const char *name, unsigned port, px_dns_fn *fn,
              void *arg, struct err *e)
{
    struct ares_addrinfo_hints hints;
    struct px_dns_query *q = calloc(1, sizeof(*q));

    if (q == NULL) {
        err_set(e, ERR_NOMEM, "out of memory");
        return NULL;
    }
    q->d = d;
    q->fn = fn;
    q->arg = arg;
    q->port = port;
    ev_init(&q->deliver, px_dns_on_deliver);
    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    ares_getaddrinfo(d->channel, name, NULL, &hints, px_dns_on_answer, q);
    px_dns_rearm(d);
    return q;
}

void
px_dns_cancel(struct px_dns_query *q)
{
    if (q == NULL)
        return;
    q->fn = NULL;
    if (q->answered)
        px_dns_query_free(q); /* only the deliver timer held it */
}
