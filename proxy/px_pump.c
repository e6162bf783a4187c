/* px_pump.c - the tunnel pump: src -> pipe -> dst with splice(2), the
 * bytes never copied to user space; recv/send through px->scratch where
 * splice cannot be used (it fails with EINVAL for that pair of
 * descriptors, or no pipe can be made: out of descriptors).
 *
 * A direction takes a pipe (from the loop's spare ones, or a new one)
 * when it starts moving bytes and gives it back as soon as the pipe is
 * empty again: an idle tunnel holds no pipe and a moving one keeps its
 * bytes in its own pipe while its reader is slow (no copy out, nothing
 * left for the next tunnel). Everything is non-blocking (the sockets,
 * the pipes, SPLICE_F_NONBLOCK): EAGAIN on either side ends the step and
 * the loop's watchers (px_conn_watch) say when to come back.
 */
#include "px_pump.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "px_int.h"

/* The kernel's default pipe capacity (16 pages). */
#define PX_PIPE_DEFAULT (64 * 1024)

static int
px_pipe_take(struct px *px, struct px_kpipe *k)
{
    int fds[2], size;

    if (px->nspare > 0) {
        *k = px->spare[--px->nspare];
        return 0;
    }
    if (pipe2(fds, O_NONBLOCK | O_CLOEXEC) == -1)
        return -1;
    /* Refused past the user's pipe budget (pipe-user-pages-soft): the
     * pipe keeps the default size, which works too. */
    (void)fcntl(fds[0], F_SETPIPE_SZ, PX_PIPE_SIZE);
    size = fcntl(fds[0], F_GETPIPE_SZ);
    k->rd = fds[0];
    k->wr = fds[1];
    k->size = size > 0 ? (uint32_t)size : PX_PIPE_DEFAULT;
    return 0;
}

static void
px_pipe_close(struct px_kpipe *k)
{
    if (k->rd >= 0) {
        close(k->rd);
        close(k->wr);
    }
    k->rd = k->wr = -1;
}

void
px__pipes_free(struct px *px)
{
    while (px->nspare > 0)
        px_pipe_close(&px->spare[--px->nspare]);
    if (px->loop != NULL && ev_is_active(&px->spare_trim))
        ev_timer_stop(px->loop, &px->spare_trim);
}

static double
px_pipes_linger(const struct px *px)
{
    return px->spare_linger > 0 ? px->spare_linger : PX_PIPE_LINGER;
}

/* Close the spares once none was given back for a while; a give only
 * stamps the time (no timer work per pump step), and the timer re-arms
 * for what is left (ev.pod "Be smart about timeouts"). */
static void
px_pipes_on_trim(struct ev_loop *loop, ev_timer *w, int revents)
{
    struct px *px = container_of(w, struct px, spare_trim);
    double left = px->spare_given + px_pipes_linger(px) - ev_now(loop);

    (void)revents;
    if (left > 0) {
        ev_timer_set(w, left, 0.);
        ev_timer_start(loop, w);
        return;
    }
    px__pipes_free(px);
}

/* Without a loop (the pump alone, in a test) spares stay until freed. */
static void
px_pipes_trim_later(struct px *px)
{
    if (px->loop == NULL)
        return;
    px->spare_given = ev_now(px->loop);
    if (ev_cb(&px->spare_trim) == NULL)
        ev_init(&px->spare_trim, px_pipes_on_trim);
    if (!ev_is_active(&px->spare_trim)) {
        ev_timer_set(&px->spare_trim, px_pipes_linger(px), 0.);
        ev_timer_start(px->loop, &px->spare_trim);
    }
}

/* Give an empty pipe back: kept for the next direction, or closed. */
static void
px_pipe_give(struct px *px, struct px_kpipe *k)
{
    if (k->rd < 0)
        return;
    if (px->nspare < PX_PIPE_SPARE) {
        px->spare[px->nspare++] = *k;
        k->rd = k->wr = -1;
        px_pipes_trim_later(px);
        return;
    }
    px_pipe_close(k);
}

void
px__dir_cleanup(struct px *px, struct px_dir *d)
{
    free(d->buf);
    d->buf = NULL;
    d->off = d->len = 0;
    if (d->held > 0)
        px_pipe_close(&d->pipe); /* never hand bytes to another tunnel */
    else
        px_pipe_give(px, &d->pipe);
    d->held = 0;
}

static ssize_t
px_splice(struct px *px, int in, int out, size_t n)
{
    ssize_t r;

    if (px->test_faults & PX_FAULT_SPLICE_EINVAL) {
        errno = EINVAL;
        return -1;
    }
    do
        r = splice(in, NULL, out, NULL, n, SPLICE_F_NONBLOCK | SPLICE_F_MOVE);
    while (r < 0 && errno == EINTR);
    return r;
}

int
px__dir_flush(struct px_dir *d, int fd)
{
    while (d->len > 0) {
        ssize_t w = send(fd, d->buf + d->off, d->len, MSG_NOSIGNAL);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
        }
        d->off += (uint32_t)w;
        d->len -= (uint32_t)w;
        d->bytes += (uint64_t)w;
    }
    free(d->buf);
    d->buf = NULL;
    d->off = 0;
    return 0;
}

int
px__dir_send(struct px_dir *d, int fd, const char *data, size_t n)
{
    ssize_t w = 0;

    if (fd >= 0) {
        w = send(fd, data, n, MSG_NOSIGNAL);
        if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
            return -1;
        if (w < 0)
            w = 0;
    }
    d->bytes += (uint64_t)w;
    if ((size_t)w == n)
        return 0;
    d->buf = malloc(n - (size_t)w);
    if (d->buf == NULL)
        return -1;
    memcpy(d->buf, data + w, n - (size_t)w);
    d->off = 0;
    d->len = (uint32_t)(n - (size_t)w);
    return 0;
}

/* Splice is refused for this direction: what its pipe holds moves to
 * its buffer (the one copy), and it copies from now on. */
static int
px_dir_stop_splicing(struct px *px, struct px_dir *d)
{
    size_t got = 0;

    d->copy = true;
    if (d->held > 0) {
        d->buf = malloc(d->held);
        if (d->buf == NULL)
            return -1;
        while (got < d->held) {
            ssize_t r = read(d->pipe.rd, d->buf + got, d->held - got);
            if (r <= 0)
                return -1; /* px__dir_cleanup closes the pipe */
            got += (size_t)r;
        }
        d->off = 0;
        d->len = d->held;
        d->held = 0;
    }
    px_pipe_give(px, &d->pipe);
    return 0;
}

/* pipe -> dst: 1 when the pipe is empty, 0 when dst is full, -1 on an
 * error (errno; EINVAL: splice refused). */
static int
px_pipe_out(struct px *px, struct px_dir *d, int dst)
{
    while (d->held > 0) {
        ssize_t m = px_splice(px, d->pipe.rd, dst, d->held);

        if (m < 0)
            return errno == EAGAIN ? 0 : -1;
        if (m == 0) { /* cannot happen while we hold the write end */
            errno = EPIPE;
            return -1;
        }
        d->held -= (uint32_t)m;
        d->bytes += (uint64_t)m;
    }
    return 1;
}

/* Copying: src -> scratch -> dst, what dst does not take into d's
 * buffer (then src is not read until it is out). */
static ssize_t
px_pump_copy(struct px *px, struct px_dir *d, int src, int dst, size_t budget)
{
    ssize_t got = 0;

    while (d->len == 0 && !d->eof && budget > 0) {
        ssize_t n = recv(src, px->scratch, PX_PUMP_CHUNK, 0);

        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                break;
            return -1;
        }
        if (n == 0) {
            d->eof = true;
            break;
        }
        if (px__dir_send(d, dst, px->scratch, (size_t)n) == -1)
            return -1;
        got += n;
        budget -= (size_t)n < budget ? (size_t)n : budget;
    }
    return got;
}

/* Splicing: src -> d's pipe -> dst. When dst is full, src is read once
 * more into what room the pipe has left (read ahead, at most its size),
 * then the step ends until dst can take more. */
static ssize_t
px_pump_splice(struct px *px, struct px_dir *d, int src, int dst,
               size_t budget)
{
    ssize_t got = 0, n;

    if (d->pipe.rd < 0 && px_pipe_take(px, &d->pipe) == -1)
        return px_pump_copy(px, d, src, dst, budget); /* out of fds */
    for (;;) {
        int out = 1;

        if (d->held > 0 && (out = px_pipe_out(px, d, dst)) == -1)
            goto refused;
        if (d->eof || budget == 0 || d->held >= d->pipe.size)
            break;
        n = px_splice(px, src, d->pipe.wr, d->pipe.size - d->held);
        if (n < 0 && errno == EAGAIN)
            break; /* src is dry (or the pipe full: dst is awaited) */
        if (n < 0)
            goto refused;
        if (n == 0) {
            d->eof = true;
            continue; /* out with what is left, then pass the EOF on */
        }
        d->held += (uint32_t)n;
        got += n;
        budget -= (size_t)n < budget ? (size_t)n : budget;
        if (out == 0)
            break;
    }
    if (d->held == 0)
        px_pipe_give(px, &d->pipe);
    return got;
refused:
    if (errno != EINVAL)
        return -1; /* reset, broken pipe: the tunnel ends */
    if (px_dir_stop_splicing(px, d) == -1 || px__dir_flush(d, dst) == -1)
        return -1;
    n = px_pump_copy(px, d, src, dst, budget);
    return n < 0 ? -1 : got + n;
}

ssize_t
px__pump(struct px *px, struct px_dir *d, int src, int dst)
{
    size_t budget = 4 * PX_PIPE_SIZE;
    ssize_t got = 0;

    if (d->len > 0 && px__dir_flush(d, dst) == -1)
        return -1;
    if (d->len == 0 && (!d->eof || d->held > 0)) {
        got = (px->splice && !d->copy) || d->held > 0
                  ? px_pump_splice(px, d, src, dst, budget)
                  : px_pump_copy(px, d, src, dst, budget);
        if (got < 0)
            return -1;
    }
    if (d->eof && d->held > 0 && (px->test_faults & PX_FAULT_EOF_DROPS_PIPE))
        px__dir_cleanup(px, d); /* the bug a test must catch */
    if (d->eof && px_dir_pending(d) == 0 && !d->shut) {
        /* Half-close: pass the EOF on, keep the other direction. */
        shutdown(dst, SHUT_WR);
        d->shut = true;
    }
    return got;
}
