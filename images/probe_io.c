/* probe_io.c - every exchange of the boundary probe at once, in one thread
 * and one poll() loop: TCP connects (optionally followed by a request and
 * the reply's header block) and single UDP queries, each ended by the
 * first definite answer the network gives (connected, refused, no route,
 * a reply) or by its own deadline. A check that ends on a fast answer
 * never waits for another check's timeout. */
#include "probe.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define PROBE_RETRY_MS 20 /* pause before asking a proxy not listening yet */

/* Where an exchange stands, in probe_io.fd's use: */
enum probe_io_stage {
    IO_CONNECTING, /* TCP connect in progress: wait for POLLOUT */
    IO_SENDING,    /* TCP request partly sent */
    IO_READING,    /* waiting for the reply */
    IO_RETRY,      /* refused, no fd: try again at next_try */
};

long
probe_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
io_finish(struct probe_io *io, int err)
{
    if (io->fd != -1)
        close(io->fd);
    io->fd = -1;
    io->done = true;
    io->err = err;
}

/* A refusal while the proxy may still be coming up: try again shortly,
 * unless that would be past the deadline. */
static void
io_refused(struct probe_io *io, enum probe_io_stage *stage, long now)
{
    if (!io->retry_refused || now + PROBE_RETRY_MS >= io->deadline) {
        io_finish(io, ECONNREFUSED);
        return;
    }
    close(io->fd);
    io->fd = -1;
    io->next_try = now + PROBE_RETRY_MS;
    *stage = IO_RETRY;
}

/* The connection is up: send the request, or end a connect-only check. */
static void
io_connected(struct probe_io *io, enum probe_io_stage *stage)
{
    if (io->req == NULL)
        io_finish(io, 0);
    else
        *stage = IO_SENDING;
}

static void
io_open(struct probe_io *io, enum probe_io_stage *stage, long now)
{
    int type = io->kind == PROBE_IO_TCP ? SOCK_STREAM : SOCK_DGRAM;

    io->sent = 0;
    io->reply_len = 0;
    io->fd = socket(AF_INET, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (io->fd == -1) {
        io_finish(io, errno);
        return;
    }
    if (connect(io->fd, (const struct sockaddr *)&io->to, sizeof(io->to)) ==
        -1) {
        if (errno == EINPROGRESS)
            *stage = IO_CONNECTING;
        else if (errno == ECONNREFUSED)
            io_refused(io, stage, now);
        else
            io_finish(io, errno);
        return;
    }
    if (io->kind == PROBE_IO_TCP) {
        io_connected(io, stage);
        return;
    }
    /* UDP: connected, so an ICMP port unreachable comes back to us as
     * ECONNREFUSED on the next recv. */
    if (send(io->fd, io->req, io->req_len, 0) != (ssize_t)io->req_len) {
        io_finish(io, errno);
        return;
    }
    *stage = IO_READING;
}

static void
io_on_connect(struct probe_io *io, enum probe_io_stage *stage, long now)
{
    int soerr = 0;
    socklen_t len = sizeof(soerr);

    if (getsockopt(io->fd, SOL_SOCKET, SO_ERROR, &soerr, &len) == -1)
        soerr = errno;
    if (soerr == 0)
        io_connected(io, stage);
    else if (soerr == ECONNREFUSED)
        io_refused(io, stage, now);
    else
        io_finish(io, soerr);
}

static void
io_on_send(struct probe_io *io, enum probe_io_stage *stage)
{
    ssize_t n = send(io->fd, io->req + io->sent, io->req_len - io->sent,
                     MSG_NOSIGNAL);

    if (n == -1) {
        if (errno != EAGAIN && errno != EINTR)
            io_finish(io, errno);
        return;
    }
    io->sent += (size_t)n;
    if (io->sent == io->req_len)
        *stage = IO_READING;
}

/* TCP: read until the blank line that ends the header block, EOF or the
 * cap; the head stays NUL-terminated. */
static void
io_on_tcp_read(struct probe_io *io)
{
    size_t cap = sizeof(io->reply) - 1;
    ssize_t n = recv(io->fd, io->reply + io->reply_len, cap - io->reply_len, 0);

    if (n == -1) {
        if (errno != EAGAIN && errno != EINTR)
            io_finish(io, errno);
        return;
    }
    io->reply_len += (size_t)n;
    io->reply[io->reply_len] = '\0';
    if (n == 0 || io->reply_len == cap ||
        strstr((const char *)io->reply, "\r\n\r\n") != NULL)
        io_finish(io, 0);
}

/* UDP: the first datagram that is a reply to our query id; others (a
 * stray or forged datagram) are ignored. */
static void
io_on_udp_read(struct probe_io *io)
{
    ssize_t n = recv(io->fd, io->reply, sizeof(io->reply), 0);

    if (n == -1) {
        if (errno != EAGAIN && errno != EINTR)
            io_finish(io, errno);
        return;
    }
    if (n >= 12 && io->reply[0] == (unsigned char)(io->dns_id >> 8) &&
        io->reply[1] == (unsigned char)io->dns_id && (io->reply[2] & 0x80)) {
        io->reply_len = (size_t)n;
        io_finish(io, 0);
    }
}

static void
io_on_event(struct probe_io *io, enum probe_io_stage *stage, long now)
{
    switch (*stage) {
    case IO_CONNECTING:
        io_on_connect(io, stage, now);
        break;
    case IO_SENDING:
        io_on_send(io, stage);
        break;
    case IO_READING:
        if (io->kind == PROBE_IO_TCP)
            io_on_tcp_read(io);
        else
            io_on_udp_read(io);
        break;
    case IO_RETRY:
        break;
    }
}

/* Deadlines and retries due now; the poll timeout until the next one. */
static int
io_timers(struct probe_io *ios, enum probe_io_stage *stage, size_t n,
          long now, size_t *pending)
{
    long next = -1;

    *pending = 0;
    for (size_t i = 0; i < n; i++) {
        struct probe_io *io = &ios[i];
        long due;

        if (io->done)
            continue;
        if (now >= io->deadline) {
            io_finish(io, ETIMEDOUT);
            continue;
        }
        if (stage[i] == IO_RETRY && now >= io->next_try)
            io_open(io, &stage[i], now);
        if (io->done)
            continue;
        (*pending)++;
        due = stage[i] == IO_RETRY ? io->next_try : io->deadline;
        if (next == -1 || due < next)
            next = due;
    }
    return next == -1 ? 0 : (int)(next - now);
}

void
probe_io_run(struct probe_io *ios, size_t n, probe_io_settled_fn *settled,
             void *arg)
{
    enum probe_io_stage stage[PROBE_MAX_IOS];
    struct pollfd p[PROBE_MAX_IOS];
    size_t pending;
    int wait_ms;

    if (n > sizeof(stage) / sizeof(stage[0]))
        n = sizeof(stage) / sizeof(stage[0]);
    for (size_t i = 0; i < n; i++) {
        ios[i].done = false;
        ios[i].err = EINPROGRESS;
        ios[i].fd = -1;
        /* A deadline already past marks an exchange not to make at all. */
        if (ios[i].deadline <= probe_now_ms())
            io_finish(&ios[i], ETIMEDOUT);
        else
            io_open(&ios[i], &stage[i], probe_now_ms());
    }
    for (;;) {
        wait_ms = io_timers(ios, stage, n, probe_now_ms(), &pending);
        if (pending == 0 || (settled != NULL && settled(ios, n, arg)))
            break;
        for (size_t i = 0; i < n; i++) {
            p[i].fd = ios[i].done || stage[i] == IO_RETRY ? -1 : ios[i].fd;
            p[i].events = stage[i] == IO_READING ? POLLIN : POLLOUT;
            p[i].revents = 0;
        }
        if (poll(p, n, wait_ms) == -1 && errno != EINTR)
            break;
        for (size_t i = 0; i < n; i++)
            if (p[i].fd != -1 && p[i].revents != 0)
                io_on_event(&ios[i], &stage[i], probe_now_ms());
    }
    for (size_t i = 0; i < n; i++) {
        if (!ios[i].done && ios[i].fd != -1) {
            close(ios[i].fd); /* still pending: err stays EINPROGRESS */
            ios[i].fd = -1;
        }
    }
}
