/* test_dk_fake.c - fake Docker Engine API server on a unix socket, served
 * from the same ev_loop as the client under test. HTTP/1.1 with
 * Content-Length or chunked request bodies (a body stream, decoded before
 * the handler sees it); every reply closes its connection.
 */
#include "test_dk_fake.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "buf.h"

struct fake_conn {
    struct fake_srv *srv;
    struct fake_conn *prev, *next;
    int fd;
    ev_io rd, wr;
    ev_timer step;
    struct buf in, out;
    struct buf dechunked; /* a chunked request's body */
    size_t out_off;
    int handled;     /* the request was passed to the handler */
    int close_after; /* close once out is written */
    const char *const *chunks;
    const size_t *lens;
    size_t next_chunk;
    int end_stream;
};

struct fake_srv {
    struct ev_loop *loop;
    ev_io accept_io;
    int fd;
    char dir[64];
    char path[108];
    char url[128];
    fake_handler_fn *handler;
    void *arg;
    struct fake_conn *conns;
    int requests;
    int open;
};

static void
fake_conn_close(struct fake_conn *c)
{
    struct fake_srv *srv = c->srv;

    ev_io_stop(srv->loop, &c->rd);
    ev_io_stop(srv->loop, &c->wr);
    ev_timer_stop(srv->loop, &c->step);
    close(c->fd);
    if (c->prev != NULL)
        c->prev->next = c->next;
    else
        srv->conns = c->next;
    if (c->next != NULL)
        c->next->prev = c->prev;
    buf_cleanup(&c->in);
    buf_cleanup(&c->out);
    buf_cleanup(&c->dechunked);
    srv->open--;
    free(c);
}

static void
fake_on_writable(struct ev_loop *loop, ev_io *w, int revents)
{
    struct fake_conn *c = w->data;
    ssize_t n;

    (void)loop;
    (void)revents;
    while (c->out_off < c->out.len) {
        n = send(c->fd, c->out.data + c->out_off, c->out.len - c->out_off,
                 MSG_NOSIGNAL);
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
            return;
        if (n < 0) {
            fake_conn_close(c);
            return;
        }
        c->out_off += (size_t)n;
    }
    buf_reset(&c->out);
    c->out_off = 0;
    ev_io_stop(c->srv->loop, &c->wr);
    if (c->close_after)
        fake_conn_close(c);
}

void
fake_write(struct fake_conn *c, const char *p, size_t n)
{
    if (buf_append(&c->out, p, n, NULL) == -1)
        abort();
    ev_io_start(c->srv->loop, &c->wr);
}

void
fake_reply(struct fake_conn *c, int status, const char *reason,
           const char *content_type, const char *body, size_t len)
{
    char head[512];

    if (content_type != NULL)
        snprintf(head, sizeof(head),
                 "HTTP/1.1 %d %s\r\nApi-Version: 1.41\r\nContent-Type: "
                 "%s\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n",
                 status, reason, content_type, len);
    else
        snprintf(head, sizeof(head),
                 "HTTP/1.1 %d %s\r\nApi-Version: 1.41\r\n"
                 "Content-Length: %zu\r\nConnection: close\r\n\r\n",
                 status, reason, len);
    fake_write(c, head, strlen(head));
    fake_write(c, body, len);
    c->close_after = 1;
}

static void
fake_on_step(struct ev_loop *loop, ev_timer *w, int revents)
{
    struct fake_conn *c = w->data;
    const char *chunk = c->chunks[c->next_chunk];
    char head[32];
    size_t len;

    (void)revents;
    if (chunk == NULL) {
        ev_timer_stop(loop, w);
        if (c->end_stream) {
            fake_write(c, "0\r\n\r\n", 5);
            c->close_after = 1;
        }
        return;
    }
    len = c->lens != NULL ? c->lens[c->next_chunk] : strlen(chunk);
    snprintf(head, sizeof(head), "%zx\r\n", len);
    fake_write(c, head, strlen(head));
    fake_write(c, chunk, len);
    fake_write(c, "\r\n", 2);
    c->next_chunk++;
}

void
fake_stream(struct fake_conn *c, const char *content_type,
            const char *const *chunks, const size_t *lens, int end)
{
    char head[256];

    snprintf(head, sizeof(head),
             "HTTP/1.1 200 OK\r\nContent-Type: %s\r\n"
             "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
             content_type);
    fake_write(c, head, strlen(head));
    c->chunks = chunks;
    c->lens = lens;
    c->next_chunk = 0;
    c->end_stream = end;
    /* A small pause between chunks so that they reach the client in
     * separate reads, as a real stream would. */
    ev_timer_init(&c->step, fake_on_step, 0.002, 0.002);
    c->step.data = c;
    ev_timer_start(c->srv->loop, &c->step);
}

static void
fake_header_value(const char *head, const char *name, char *out, size_t size)
{
    const char *p = head;
    size_t nlen = strlen(name);

    out[0] = '\0';
    while ((p = strstr(p, "\r\n")) != NULL) {
        p += 2;
        if (strncasecmp(p, name, nlen) == 0 && p[nlen] == ':') {
            const char *v = p + nlen + 1;
            size_t n;

            while (*v == ' ')
                v++;
            n = strcspn(v, "\r\n");
            if (n >= size)
                n = size - 1;
            memcpy(out, v, n);
            out[n] = '\0';
            return;
        }
    }
}

/* The chunked body from p (len bytes) into out: 1 once its last chunk
 * came, 0 while more is due. */
static int
fake_dechunk(const char *p, size_t len, struct buf *out)
{
    const char *end = p + len;

    buf_reset(out);
    for (;;) {
        const char *eol = memmem(p, (size_t)(end - p), "\r\n", 2);
        size_t n;

        if (eol == NULL)
            return 0;
        n = strtoul(p, NULL, 16);
        if (n == 0)
            return 1;
        if ((size_t)(end - (eol + 2)) < n + 2)
            return 0;
        if (buf_append(out, eol + 2, n, NULL) == -1)
            abort();
        p = eol + 2 + n + 2;
    }
}

/* A whole request in c->in? Then parse it and call the handler. */
static void
fake_try_request(struct fake_conn *c)
{
    struct fake_http h;
    char *end = strstr(c->in.data, "\r\n\r\n"), cl[32], te[32];
    size_t head_len, body_len;
    const char *body;

    if (end == NULL || c->handled)
        return;
    head_len = (size_t)(end - c->in.data) + 4;
    fake_header_value(c->in.data, "Content-Length", cl, sizeof(cl));
    fake_header_value(c->in.data, "Transfer-Encoding", te, sizeof(te));
    body_len = cl[0] != '\0' ? strtoul(cl, NULL, 10) : 0;
    body = c->in.data + head_len;
    if (strcasecmp(te, "chunked") == 0) {
        if (!fake_dechunk(body, c->in.len - head_len, &c->dechunked))
            return;
        body = c->dechunked.data != NULL ? c->dechunked.data : "";
        body_len = c->dechunked.len;
    } else if (c->in.len < head_len + body_len) {
        return;
    }
    memset(&h, 0, sizeof(h));
    if (sscanf(c->in.data, "%15s %511s", h.method, h.path) != 2)
        abort();
    fake_header_value(c->in.data, "Content-Type", h.content_type,
                      sizeof(h.content_type));
    h.body = body;
    h.body_len = body_len;
    c->handled = 1;
    c->srv->requests++;
    c->srv->handler(c, &h, c->srv->arg);
}

static void
fake_on_readable(struct ev_loop *loop, ev_io *w, int revents)
{
    struct fake_conn *c = w->data;
    char tmp[4096];
    ssize_t n;

    (void)loop;
    (void)revents;
    n = recv(c->fd, tmp, sizeof(tmp), 0);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (n <= 0) {
        fake_conn_close(c); /* client went away (cancel, timeout) */
        return;
    }
    if (buf_append(&c->in, tmp, (size_t)n, NULL) == -1)
        abort();
    fake_try_request(c);
}

static void
fake_on_accept(struct ev_loop *loop, ev_io *w, int revents)
{
    struct fake_srv *srv = w->data;
    struct fake_conn *c;
    int fd;

    (void)revents;
    fd = accept4(srv->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0)
        return;
    c = calloc(1, sizeof(*c));
    if (c == NULL)
        abort();
    c->srv = srv;
    c->fd = fd;
    buf_init(&c->in, 1u << 20);
    buf_init(&c->out, 64u << 20);
    buf_init(&c->dechunked, 4u << 20);
    ev_io_init(&c->rd, fake_on_readable, fd, EV_READ);
    ev_io_init(&c->wr, fake_on_writable, fd, EV_WRITE);
    ev_init(&c->step, fake_on_step);
    c->rd.data = c->wr.data = c->step.data = c;
    c->next = srv->conns;
    if (srv->conns != NULL)
        srv->conns->prev = c;
    srv->conns = c;
    srv->open++;
    ev_io_start(loop, &c->rd);
}

struct fake_srv *
fake_start(struct ev_loop *loop, fake_handler_fn *handler, void *arg)
{
    struct fake_srv *srv = calloc(1, sizeof(*srv));
    struct sockaddr_un sa = { .sun_family = AF_UNIX };

    if (srv == NULL)
        return NULL;
    snprintf(srv->dir, sizeof(srv->dir), "/tmp/dkfake.XXXXXX");
    if (mkdtemp(srv->dir) == NULL) {
        free(srv);
        return NULL;
    }
    snprintf(srv->path, sizeof(srv->path), "%s/docker.sock", srv->dir);
    snprintf(srv->url, sizeof(srv->url), "unix://%s", srv->path);
    snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", srv->path);
    srv->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (srv->fd < 0 || bind(srv->fd, (struct sockaddr *)&sa, sizeof(sa)) ||
        listen(srv->fd, 128)) {
        if (srv->fd >= 0)
            close(srv->fd);
        rmdir(srv->dir);
        free(srv);
        return NULL;
    }
    srv->loop = loop;
    srv->handler = handler;
    srv->arg = arg;
    ev_io_init(&srv->accept_io, fake_on_accept, srv->fd, EV_READ);
    srv->accept_io.data = srv;
    ev_io_start(loop, &srv->accept_io);
    return srv;
}

void
fake_stop(struct fake_srv *srv)
{
    if (srv == NULL)
        return;
    while (srv->conns != NULL)
        fake_conn_close(srv->conns);
    ev_io_stop(srv->loop, &srv->accept_io);
    close(srv->fd);
    unlink(srv->path);
    rmdir(srv->dir);
    free(srv);
}

const char *
fake_url(const struct fake_srv *srv)
{
    return srv->url;
}

int
fake_requests(const struct fake_srv *srv)
{
    return srv->requests;
}

int
fake_open_conns(const struct fake_srv *srv)
{
    return srv->open;
}

static void
on_pause_over(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)loop;
    (void)revents;
    *(int *)w->data = 1;
}

void
fake_pause(struct ev_loop *loop)
{
    ev_timer tm;
    int over = 0;

    ev_timer_init(&tm, on_pause_over, 0.2, 0.);
    tm.data = &over;
    ev_timer_start(loop, &tm);
    while (!over)
        ev_run(loop, EVRUN_ONCE);
    ev_timer_stop(loop, &tm);
}
