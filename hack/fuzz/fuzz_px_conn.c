/* fuzz_px_conn.c - libFuzzer target for the egress proxy's connection
 * loop (proxy/px_conn.c): one client on a socket pair, the upstream a
 * loopback listener of ours that every allowed name resolves to (the
 * resolver is fuzz_dns.c), the real libev loop in between.
 *
 * The input is a script: byte 0 sets the proxy up (private addresses,
 * splice or copy, header limit), every later byte is an operation with
 * its argument bytes: the client sends a chunk, half-closes or closes;
 * the upstream sends, half-closes or closes; the lookup is answered (any
 * status, addresses that answer or refuse); the deadline runs out; the
 * proxy drains (SIGTERM); the client stops or starts reading; a second
 * client, one over --max-conns 1, connects, sends or leaves. The loop
 * runs after each.
 *
 * Checked at the end, after both ends are closed and every deadline has
 * run out: the connection is gone (every connection ends), no lookup and
 * no descriptor is left, the upstream was dialled at most once and only
 * for a request the pure policy admits (px_req_feed, hostport_parse,
 * px_allow_match over the whole stream, allow_private for our loopback
 * answer), it received exactly a prefix of the payload after the
 * header, and the client got one answer: "200" then a prefix of what
 * the upstream sent, or a refusal; the second client got a 503 and
 * nothing else. Leaks and UB: the sanitizers.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "buf.h"
#include "fuzz_dns.h"
#include "fuzz_sock.h"
#include "px_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char allow_list[] = "vendor.test:443,api.example.com:8443";
static const char ok_answer[] = "HTTP/1.1 200 Connection established\r\n\r\n";

/* Made once: the loop, our upstream listener, an address that refuses. */
static struct ev_loop *loop;
static int listen_fd = -1;
static union px_sockaddr up_addr, refused_addr;
static int fd_floor; /* descriptors from here on may be the run's */

struct run {
    const uint8_t *p, *end; /* the script still to play */
    struct px_config cfg;
    struct px *px;
    int cli;        /* our end of the client's socket pair; -1 closed */
    int cli2;       /* a second client, over --max-conns 1; -1 none */
    bool cli_read;  /* the client reads what the proxy sends */
    int up;         /* our end of the dialled connection; -1 none */
    unsigned dials; /* connections our listener accepted */
    bool dns_ok;    /* a lookup was answered with addresses */
    struct buf sent, up_got, up_sent, cli_got, cli2_got, ignored;
    uint64_t fds_before; /* which of fd_floor.. were open at the start */
};

/* px_main.c's hook: a drain with no connection left stops the loop. */
void
px__maybe_done(struct px *px)
{
    (void)px;
}

static void
loopback(union px_sockaddr *a, int fd)
{
    socklen_t len = sizeof(*a);

    if (getsockname(fd, &a->sa, &len) == -1)
        abort();
}

/* A listener every allowed name resolves to, and a bound socket that
 * does not listen: a dial to it is refused. */
static void
setup_once(void)
{
    struct sockaddr_in a = { .sin_family = AF_INET };
    int r;

    signal(SIGPIPE, SIG_IGN);
    loop = ev_loop_new(EVFLAG_AUTO);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    r = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (loop == NULL || listen_fd < 0 || r < 0 ||
        bind(listen_fd, (struct sockaddr *)&a, sizeof(a)) == -1 ||
        listen(listen_fd, 64) == -1 ||
        bind(r, (struct sockaddr *)&a, sizeof(a)) == -1)
        abort();
    loopback(&up_addr, listen_fd);
    loopback(&refused_addr, r); /* kept open: the port stays ours */
    fd_floor = r + 1;
}

static bool
accept_upstreams(struct run *r)
{
    bool got = false;
    int fd;

    while ((fd = accept4(listen_fd, NULL, NULL,
                         SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
        r->dials++;
        got = true;
        if (r->up >= 0 || r->dials > 1)
            close(fd); /* checked at the end: one dial at most */
        else
            r->up = fd;
    }
    return got;
}

/* Let the loop and both peers move until a round moves nothing we can
 * see (at least two rounds: a dial completes on the round after the
 * connect). Loopback and socket pairs deliver within the send, so this
 * needs no waiting. */
static void
settle(struct run *r)
{
    for (int i = 0; i < 16; i++) {
        bool moved;

        ev_run(loop, EVRUN_NOWAIT);
        moved = accept_upstreams(r);
        if (r->up >= 0)
            moved |= fuzz_slurp(r->up, &r->up_got);
        if (r->cli >= 0 && r->cli_read)
            moved |= fuzz_slurp(r->cli, &r->cli_got);
        if (r->cli2 >= 0)
            moved |= fuzz_slurp(r->cli2, &r->cli2_got);
        if (!moved && i >= 1)
            return;
    }
}

static size_t
take(struct run *r, size_t want)
{
    size_t left = (size_t)(r->end - r->p);

    return want < left ? want : left;
}

static void
send_chunk(struct run *r, int fd, struct buf *log)
{
    size_t n = take(r, r->p < r->end ? *r->p++ % 128 + 1 : 0);
    ssize_t w = fd >= 0 ? send(fd, r->p, n, MSG_NOSIGNAL | MSG_DONTWAIT) : 0;

    if (w > 0 && buf_append(log, r->p, (size_t)w, NULL) == -1)
        abort();
    r->p += n;
}

/* The lookup's answer: status and up to three addresses, each ours or
 * the refusing one, from the argument byte. */
static void
answer_dns(struct run *r)
{
    uint8_t b = r->p < r->end ? *r->p++ : 0;
    union px_sockaddr a[3];
    size_t n = 1 + (b >> 2) % 3;

    for (size_t i = 0; i < n; i++)
        a[i] = (b >> (4 + i)) & 1 ? refused_addr : up_addr;
    if ((enum px_dns_status)(b & 3) == PX_DNS_OK &&
        fuzz_dns_pending(r->px->dns) > 0)
        r->dns_ok = true;
    fuzz_dns_answer(r->px->dns, (enum px_dns_status)(b & 3), a, n);
}

/* The connection's deadline runs out now (a run has one connection;
 * struct px_conn is the loop's own, so the list head is all we see). */
static void
expire(struct run *r)
{
    if (r->px->conns != NULL)
        px__conn_timeout(r->px->conns);
}

/* The proxy accepts a client; our end in *fd. small: a small send
 * buffer on the proxy's end, so the proxy must hold back. */
static void
connect_client(struct run *r, int *fd, bool small)
{
    union px_sockaddr peer = { 0 };
    int sv[2], sndbuf = 1024;

    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0,
                   sv) == -1)
        abort();
    if (small)
        setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
    *fd = sv[0];
    peer.in4.sin_family = AF_INET;
    px__conn_accept(r->px, sv[1], &peer);
}

static void
play_one(struct run *r, uint8_t op)
{
    switch (op % 14) {
    case 0:
    case 1:
        send_chunk(r, r->cli, &r->sent);
        break;
    case 2:
        if (r->cli >= 0)
            shutdown(r->cli, SHUT_WR);
        break;
    case 3:
        fuzz_close_fd(&r->cli);
        break;
    case 4:
        send_chunk(r, r->up, &r->up_sent);
        break;
    case 5:
        if (r->up >= 0)
            shutdown(r->up, SHUT_WR);
        break;
    case 6:
        fuzz_close_fd(&r->up);
        break;
    case 7:
        answer_dns(r);
        break;
    case 8:
        expire(r);
        break;
    case 9:
        r->px->daemon.draining = true;
        px__conn_refuse_unopened(r->px);
        break;
    case 10:
        r->cli_read = !r->cli_read;
        if (r->p < r->end && (*r->p++ & 1))
            fuzz_dns_fail_next(r->px->dns);
        break;
    case 11: /* only while it is one too many */
        if (r->cli2 < 0 && r->px->nconns >= r->cfg.max_conns)
            connect_client(r, &r->cli2, false);
        break;
    case 12:
        send_chunk(r, r->cli2, &r->ignored);
        break;
    case 13:
        fuzz_close_fd(&r->cli2);
        break;
    }
    settle(r);
}

/* What the pure code says of everything the client sent: 1 admitted
 * (its payload starts at *used), 0 refused or incomplete. */
static int
policy_admits(const struct run *r, size_t *used, struct hostport *t)
{
    struct px_req q;

    px_req_init(&q, r->cfg.header_limit);
    if (px_req_feed(&q, r->sent.data ? r->sent.data : "", r->sent.len, used) !=
            PX_REQ_DONE ||
        hostport_parse(q.target, q.target_len, t, NULL) == -1)
        return 0;
    return px_allow_match(&r->cfg.allow, t);
}

static bool
is_prefix(const struct buf *part, const char *whole, size_t whole_len)
{
    return part->len <= whole_len &&
           (part->len == 0 || memcmp(part->data, whole, part->len) == 0);
}

static void
check_bytes(const struct run *r)
{
    size_t used = 0, n = r->cli_got.len;
    struct hostport t;
    int admitted = policy_admits(r, &used, &t);
    const char *got = r->cli_got.data;

    if (r->dials > 1 ||
        (r->dials > 0 && (!admitted || !r->cfg.allow_private || !r->dns_ok)))
        abort(); /* dialled twice, or for what the policy refuses */
    if (fuzz_dns_started(r->px->dns) > 0 &&
        (!admitted || strcmp(fuzz_dns_last_name(r->px->dns), t.host) != 0))
        abort(); /* looked up a refused or another name */
    if (r->up_got.len > 0 &&
        !is_prefix(&r->up_got, r->sent.data + used, r->sent.len - used))
        abort(); /* the upstream got bytes the client did not send */
    if (n == 0)
        return;
    if (n < 9 || memcmp(got, "HTTP/1.1 ", 9) != 0)
        abort(); /* the client's first bytes are always an answer */
    if (n >= sizeof(ok_answer) - 1 &&
        memcmp(got, ok_answer, sizeof(ok_answer) - 1) == 0) {
        struct buf rest = { .data = (char *)got + sizeof(ok_answer) - 1,
                            .len = n - (sizeof(ok_answer) - 1) };
        if (r->dials == 0 || !is_prefix(&rest, r->up_sent.data, r->up_sent.len))
            abort(); /* a tunnel to nowhere, or bytes from nowhere */
    }
}

/* Close both ends, answer any lookup, let every deadline run out; then
 * nothing of the connection may be left. */
static void
finish(struct run *r)
{
    r->cli_read = true;
    settle(r);
    fuzz_close_fd(&r->cli);
    fuzz_close_fd(&r->cli2);
    fuzz_close_fd(&r->up);
    fuzz_dns_answer(r->px->dns, PX_DNS_NOTFOUND, NULL, 0);
    settle(r);
    for (int i = 0; i < 6 && r->px->conns != NULL; i++) {
        expire(r);
        settle(r);
    }
    fuzz_close_fd(&r->up); /* a dial accepted just now */
    if (r->px->conns != NULL || r->px->nconns != 0 || r->px->nreject != 0 ||
        fuzz_dns_pending(r->px->dns) != 0)
        abort(); /* a connection that never ends, or a lookup left */
    if (r->cli2_got.len > 0 &&
        (r->cli2_got.len < 12 || memcmp(r->cli2_got.data, "HTTP/1.1 503", 12)))
        abort(); /* over --max-conns, and not answered 503 */
    check_bytes(r);
}

static void
run_cleanup(struct run *r)
{
    px__pipes_free(r->px);
    px_dns_free(r->px->dns);
    free(r->px);
    px_allow_cleanup(&r->cfg.allow);
    buf_cleanup(&r->sent);
    buf_cleanup(&r->up_got);
    buf_cleanup(&r->up_sent);
    buf_cleanup(&r->cli_got);
    buf_cleanup(&r->cli2_got);
    buf_cleanup(&r->ignored);
    if (fuzz_open_fds(fd_floor) & ~r->fds_before)
        abort(); /* a descriptor the run left open */
}

static void
run_setup(struct run *r, uint8_t conf)
{
    r->fds_before = fuzz_open_fds(fd_floor);

    r->cfg.allow_private = conf & 1;
    r->cfg.header_limit = 64 + (size_t)(conf >> 3) * 64;
    r->cfg.header_timeout = r->cfg.idle_timeout = 600;
    r->cfg.connect_timeout = r->cfg.drain_timeout = 600;
    r->cfg.max_conns = 1; /* the second client is one too many */
    px_allow_init(&r->cfg.allow);
    if (px_allow_add(&r->cfg.allow, allow_list, NULL) == -1)
        abort();
    r->px = calloc(1, sizeof(*r->px));
    if (r->px == NULL)
        abort();
    r->px->loop = loop;
    r->px->cfg = &r->cfg;
    r->px->daemon.listen_fd = -1;
    r->px->dns = px_dns_new(loop, 0, 0, NULL);
    r->px->splice = conf & 2;
    r->up = -1;
    r->cli_read = true;
    buf_init(&r->sent, 1 << 20);
    buf_init(&r->up_got, 1 << 20);
    buf_init(&r->up_sent, 1 << 20);
    buf_init(&r->cli_got, 1 << 20);
    buf_init(&r->cli2_got, 1 << 20);
    buf_init(&r->ignored, 1 << 20);
    r->cli2 = -1;
    connect_client(r, &r->cli, conf & 4);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct run r = { 0 };

    if (size < 1 || size > 2048)
        return 0;
    if (loop == NULL)
        setup_once();
    run_setup(&r, data[0]);
    r.p = data + 1;
    r.end = data + size;
    settle(&r);
    while (r.p < r.end)
        play_one(&r, *r.p++);
    finish(&r);
    run_cleanup(&r);
    return 0;
}
