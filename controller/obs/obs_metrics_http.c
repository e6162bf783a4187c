/* obs_metrics_http.c - the /metrics, /livez, /readyz and /healthz
 * endpoint: libmicrohttpd run from the controller's libev loop without
 * threads (its epoll fd is an ev_io, MHD_get_timeout() arms an ev_timer),
 * and the health report that /readyz (and its older name /healthz)
 * prints. /livez depends on nothing but the loop: it is answered from the
 * loop that runs every reconcile, so an answer is the proof the loop
 * runs, and a Docker daemon or store that is down never fails it (a
 * restart would not bring them back). The registry it renders is
 * obs_metrics.c.
 */
#include "obs_metrics.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <ev.h>
#include <microhttpd.h>

#include "container_of.h"

/* --- health ----------------------------------------------------------- */

void
obs_health_add(struct obs_health *h, const char *name, bool ok, const char *fmt,
               ...)
{
    struct obs_health_check *c;
    va_list ap;

    if (!ok)
        h->ok = false;
    if (h->n_checks == CTL_HEALTH_MAX_CHECKS)
        return;
    c = &h->checks[h->n_checks++];
    snprintf(c->name, sizeof(c->name), "%s", name);
    va_start(ap, fmt);
    vsnprintf(c->detail, sizeof(c->detail), fmt, ap);
    va_end(ap);
    c->ok = ok;
}

/* --- HTTP endpoint ---------------------------------------------------- */

struct obs_http {
    struct ev_loop *loop;
    struct MHD_Daemon *d;
    ev_io io;    /* MHD's epoll fd: readable = some connection has work */
    ev_timer tm; /* MHD_get_timeout(): idle timeouts, buffered data */
    obs_health_fn *health;
    void *arg;
    struct obs_metrics *m;
    int port;
    unsigned opened, closed; /* connections MHD began and ended: counts */
};

/* "1.2.3.4:port" or "[v6]:port", numeric only. */
static int
parse_addr(const char *s, struct sockaddr_storage *ss, struct err *e)
{
    char host[64];
    const char *colon = strrchr(s, ':'), *h = s;
    size_t hlen;
    char *end;
    long port;

    memset(ss, 0, sizeof(*ss));
    if (colon == NULL)
        goto bad;
    hlen = (size_t)(colon - s);
    if (s[0] == '[') {
        if (hlen < 2 || s[hlen - 1] != ']')
            goto bad;
        h = s + 1;
        hlen -= 2;
    }
    if (hlen == 0 || hlen >= sizeof(host))
        goto bad;
    memcpy(host, h, hlen);
    host[hlen] = '\0';
    errno = 0;
    port = strtol(colon + 1, &end, 10);
    if (colon[1] == '\0' || *end != '\0' || errno != 0 || port < 0 ||
        port > 65535)
        goto bad;
    if (s[0] == '[') {
        struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;

        a6->sin6_family = AF_INET6;
        a6->sin6_port = htons((uint16_t)port);
        if (inet_pton(AF_INET6, host, &a6->sin6_addr) == 1)
            return 0;
    } else {
        struct sockaddr_in *a4 = (struct sockaddr_in *)ss;

        a4->sin_family = AF_INET;
        a4->sin_port = htons((uint16_t)port);
        if (inet_pton(AF_INET, host, &a4->sin_addr) == 1)
            return 0;
    }
bad:
    return err_set(e, ERR_INVALID,
                   "metrics address \"%s\": want IPv4:port or [IPv6]:port, "
                   "e.g. 127.0.0.1:9464",
                   s);
}

/* Queue a response that takes body (malloc'd, may be NULL = no memory). */
static enum MHD_Result
respond(struct MHD_Connection *c, unsigned status, const char *type, char *body)
{
    struct MHD_Response *r;
    enum MHD_Result ret;

    if (body == NULL)
        return MHD_NO; /* out of memory: MHD drops the connection */
    r = MHD_create_response_from_buffer(strlen(body), body,
                                        MHD_RESPMEM_MUST_FREE);
    if (r == NULL) {
        free(body);
        return MHD_NO;
    }
    if (MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type) ==
            MHD_NO ||
        (status == MHD_HTTP_METHOD_NOT_ALLOWED &&
         MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD") ==
             MHD_NO)) {
        MHD_destroy_response(r);
        return MHD_NO;
    }
    ret = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result
serve_metrics(struct obs_http *h, struct MHD_Connection *c)
{
    struct buf b;
    struct err e = { 0 };

    buf_init(&b, CTL_HTTP_MAX_BODY);
    obs_metrics_refresh(h->m);
    if (buf_puts(&b, "", &e) == -1 || obs_metrics_render(h->m, &b, &e) == -1) {
        buf_cleanup(&b);
        return respond(c, MHD_HTTP_INTERNAL_SERVER_ERROR,
                       "text/plain; charset=utf-8",
                       strdup("cannot render metrics\n"));
    }
    return respond(c, MHD_HTTP_OK, "text/plain; version=0.0.4; charset=utf-8",
                   buf_take(&b));
}

static enum MHD_Result
serve_health(struct obs_http *h, struct MHD_Connection *c)
{
    struct obs_health st = { .ok = true };
    struct buf b;
    struct err e = { 0 };
    int rc;

    if (h->health != NULL)
        h->health(&st, h->arg);
    buf_init(&b, 4096);
    rc = buf_puts(&b, st.ok ? "ok\n" : "unhealthy\n", &e);
    for (size_t i = 0; rc == 0 && i < st.n_checks; i++)
        if (st.ok || !st.checks[i].ok)
            rc = buf_printf(&b, &e, "%s: %s\n", st.checks[i].name,
                            st.checks[i].detail);
    if (rc == -1) {
        buf_cleanup(&b);
        return MHD_NO;
    }
    return respond(c, st.ok ? MHD_HTTP_OK : MHD_HTTP_SERVICE_UNAVAILABLE,
                   "text/plain; charset=utf-8", buf_take(&b));
}

/* True when the request announces a body (MHD 0.9.75 accepts an answer
 * only before it starts reading one, so this is decided on the headers). */
static bool
has_body(struct MHD_Connection *c)
{
    const char *len = MHD_lookup_connection_value(
        c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);

    return MHD_lookup_connection_value(
               c, MHD_HEADER_KIND, MHD_HTTP_HEADER_TRANSFER_ENCODING) != NULL ||
           (len != NULL && strcmp(len, "0") != 0);
}

/* MHD's access handler. It is called once when the headers are in, then
 * for each piece of body, then once more at the end. Answering GETs on the
 * last call keeps the connection alive for the next scrape (an answer
 * queued on the first call makes MHD close it); a request with a body is
 * refused on the first call, so the body is never read. */
static enum MHD_Result
on_request(void *cls, struct MHD_Connection *c, const char *url,
           const char *method, const char *version, const char *upload_data,
           size_t *upload_data_size, void **con_cls)
{
    struct obs_http *h = cls;
    const char *plain = "text/plain; charset=utf-8";

    (void)version;
    (void)upload_data;
    if (*con_cls == NULL) {
        if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 &&
            strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
            return respond(c, MHD_HTTP_METHOD_NOT_ALLOWED, plain,
                           strdup("method not allowed\n"));
        if (has_body(c))
            return respond(c, MHD_HTTP_CONTENT_TOO_LARGE, plain,
                           strdup("a GET takes no body\n"));
        *con_cls = h; /* headers seen; the answer comes on the last call */
        return MHD_YES;
    }
    if (*upload_data_size != 0)
        return MHD_NO; /* a body nobody announced: drop the connection */
    if (strcmp(url, "/metrics") == 0)
        return serve_metrics(h, c);
    if (strcmp(url, "/readyz") == 0 || strcmp(url, "/healthz") == 0)
        return serve_health(h, c);
    if (strcmp(url, "/livez") == 0)
        return respond(c, MHD_HTTP_OK, plain, strdup("ok\nloop: running\n"));
    return respond(c, MHD_HTTP_NOT_FOUND, plain, strdup("not found\n"));
}

/* MHD asks to be run again within its timeout even without socket events
 * (connection timeouts, data already buffered): keep the timer in step. */
static void
http_arm_timer(struct obs_http *h)
{
    MHD_UNSIGNED_LONG_LONG ms;

    ev_timer_stop(h->loop, &h->tm);
    if (MHD_get_timeout(h->d, &ms) != MHD_YES)
        return;
    ev_timer_set(&h->tm, (double)ms / 1000.0, 0.);
    ev_timer_start(h->loop, &h->tm);
}

/* MHD_OPTION_NOTIFY_CONNECTION: counts what a run did, for http_drive. */
static void
http_on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                   enum MHD_ConnectionNotificationCode toe)
{
    struct obs_http *h = cls;

    (void)c;
    (void)socket_context;
    if (toe == MHD_CONNECTION_NOTIFY_STARTED)
        h->opened++;
    else
        h->closed++;
}

/* MHD steps, as many as make progress (at most HTTP_RUNS). A run that
 * accepted a connection added its socket to MHD's epoll set after that
 * run's epoll_wait(): the request is in most often already (the client
 * sends it as soon as connect() returns, and while the loop was busy the
 * connection sat in the backlog), but MHD reads it only on a later run,
 * and without one here that is the loop's next wake-up - after the next
 * busy stretch, so every GET paid for two (seen: 1.7 s between accept and
 * read, with MHD's socket readable all along). A run that closed
 * connections may be what puts the listening socket back into MHD's epoll
 * set: at its connection limit MHD takes it out, and only a later run
 * adds it again; with no event and no timeout pending a client waiting in
 * the backlog would wait for good. The counts, not the number of
 * connections: a run that accepts the next GET often closes the last. */
#define HTTP_RUNS 4

static void
http_drive(struct obs_http *h)
{
    for (int i = 0; i < HTTP_RUNS; i++) {
        unsigned opened = h->opened, closed = h->closed;

        MHD_run(h->d);
        if (h->opened == opened && h->closed == closed)
            break;
    }
    http_arm_timer(h);
}

static void
http_on_io(struct ev_loop *loop, ev_io *w, int revents)
{
    (void)loop;
    (void)revents;
    http_drive(container_of(w, struct obs_http, io));
}

static void
http_on_timer(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)loop;
    (void)revents;
    http_drive(container_of(w, struct obs_http, tm));
}

static struct MHD_Daemon *
http_daemon(struct obs_http *h, const char *addr_port, struct err *e)
{
    struct sockaddr_storage ss;
    struct MHD_Daemon *d;
    unsigned flags = MHD_USE_EPOLL;

    if (parse_addr(addr_port, &ss, e) == -1)
        return NULL;
    if (ss.ss_family == AF_INET6)
        flags |= MHD_USE_IPv6;
    errno = 0;
    d = MHD_start_daemon(
        flags, 0, NULL, NULL, on_request, h, MHD_OPTION_SOCK_ADDR,
        (struct sockaddr *)&ss, MHD_OPTION_CONNECTION_LIMIT,
        (unsigned)CTL_HTTP_MAX_CONNECTIONS, MHD_OPTION_CONNECTION_TIMEOUT,
        (unsigned)CTL_HTTP_TIMEOUT_SECONDS, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
        (size_t)CTL_HTTP_MEMORY_LIMIT, MHD_OPTION_NOTIFY_CONNECTION,
        http_on_connection, h, MHD_OPTION_END);
    if (d == NULL)
        err_set(e, ERR_IO,
                "metrics endpoint: cannot listen on %s: %s (is the port "
                "taken, or the address not one of this host?)",
                addr_port, errno != 0 ? strerror(errno) : "unknown reason");
    return d;
}

struct obs_http *
obs_http_start(struct ev_loop *loop, const char *addr_port,
               obs_health_fn *health, void *arg, struct obs_metrics *m,
               struct err *e)
{
    struct obs_http *h = calloc(1, sizeof(*h));
    const union MHD_DaemonInfo *fd, *port;

    if (h == NULL) {
        err_set(e, ERR_NOMEM, "out of memory");
        return NULL;
    }
    h->loop = loop;
    h->health = health;
    h->arg = arg;
    h->m = m;
    h->d = http_daemon(h, addr_port, e);
    if (h->d == NULL) {
        free(h);
        return NULL;
    }
    fd = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_EPOLL_FD);
    port = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_BIND_PORT);
    if (fd == NULL || port == NULL) {
        MHD_stop_daemon(h->d);
        free(h);
        err_set(e, ERR_IO, "metrics endpoint: libmicrohttpd has no epoll");
        return NULL;
    }
    h->port = port->port;
    /* First among the callbacks of a loop iteration: libev runs those of
     * one priority last-reported first, and MHD's fd, often the first
     * epoll reports, waited for every other one (seen: 1.5 s of status
     * writes between the wake-up and the accept). A GET then waits only
     * for the loop to poll; MHD's own work is bounded by its connection
     * limit. */
    ev_io_init(&h->io, http_on_io, fd->epoll_fd, EV_READ);
    ev_set_priority(&h->io, EV_MAXPRI);
    ev_io_start(loop, &h->io);
    ev_init(&h->tm, http_on_timer);
    ev_set_priority(&h->tm, EV_MAXPRI);
    http_arm_timer(h);
    return h;
}

int
obs_http_port(const struct obs_http *h)
{
    return h->port;
}

void
obs_http_stop(struct obs_http *h)
{
    if (h == NULL)
        return;
    ev_io_stop(h->loop, &h->io);
    ev_timer_stop(h->loop, &h->tm);
    MHD_stop_daemon(h->d);
    free(h);
}
