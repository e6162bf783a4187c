/* fuzz_gw_conn.c - libFuzzer target for the agent gateway's connection
 * loop (proxy/gw_conn.c, gw_judge.c, gw_upstream.c, gw_tls.c): one client
 * on a socket pair, the vendor a TLS server of ours on loopback
 * (fuzz_gw_vendor.c) reached by --connect-to or by a lookup the input
 * answers (fuzz_dns.c), the real libev loop and OpenSSL in between.
 *
 * The input is a script: bytes 0-1 set the gateway up (auth header, body
 * policy, --connect-to or a lookup, private addresses, a request budget,
 * a token budget, the header limit); every later byte is an operation
 * with its argument bytes: the client sends raw bytes or a canned
 * request, half-closes or closes; the vendor sends raw bytes or a canned
 * answer, closes tidily or cuts; the lookup is answered; the deadline
 * runs out; the gateway drains; the client stops or starts reading; a
 * second client connects, sends a canned request or leaves (two
 * connections contend for the model slot of a token budget).
 *
 * Checked after each step: every buffer of the connection within its
 * cap. At the end, after both ends are closed and every deadline has run
 * out: the connection is gone (every connection ends) with no lookup,
 * model slot or descriptor left; every request head the vendor received
 * parses, is one the path policy admits, carries the credential exactly
 * once, and (a model endpoint under a body policy) has a body the body
 * policy admits; no more requests reached the vendor than the budget
 * allows; the client's bytes begin with an answer (the gateway's, or the
 * vendor's as it sent it) and never hold the key unless someone else sent
 * it. Leaks and UB: the sanitizers.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fuzz_dns.h"
#include "fuzz_sock.h"
#include "fuzz_gw_script.h"
#include "fuzz_gw_vendor.h"
#include "gw_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define KEY "sk-fuzz-KEY-7f3a9c0d1e2b4a5c"

static struct ev_loop *loop;
static SSL_CTX *client_ctx;    /* gw__tls_ctx_new once: loading the CA file */
static struct gw_config proto; /* the policies, made once */
static union px_sockaddr vendor_addr;
static int fd_floor;

struct run {
    const uint8_t *p, *end; /* the script still to play */
    struct gw_config cfg;
    struct gw *gw;
    int cli;       /* our end of the client's socket pair; -1 closed */
    bool cli_read; /* the client reads what the gateway sends */
    int cli2;      /* a second client (another process in the box); -1 */
    struct fuzz_vendor v;
    unsigned forwarded; /* request heads the vendor received */
    struct buf sent, cli_got, cli2_got, vendor_sent;
    uint64_t fds_before;
};

/* gw_main.c's hook: a drain with no connection left stops the loop. */
void
gw__maybe_done(struct gw *gw)
{
    (void)gw;
}

/* gw_main.c's hook: the daemon gives freed memory back a second after a
 * close (malloc_trim); a memory policy of the process, not of the
 * connection loop this target drives. */
void
gw__trim_soon(struct gw *gw)
{
    (void)gw;
}

static void
setup_once(void)
{
    const char *ca;
    struct gw tmp = { 0 };

    signal(SIGPIPE, SIG_IGN);
    loop = ev_loop_new(EVFLAG_AUTO);
    fuzz_vendor_setup(&ca, &vendor_addr);
    client_ctx = gw__tls_ctx_new(&tmp, ca, NULL);
    if (loop == NULL || client_ctx == NULL ||
        hostport_parse("vendor.test:443", 15, &proto.upstream, NULL) == -1 ||
        gw_policy_add(&proto.policy, "POST /v1/messages", NULL) == -1 ||
        gw_policy_add(&proto.policy, "GET /v1/models", NULL) == -1 ||
        gw_body_set_api(&proto.body, "anthropic", NULL) == -1)
        abort();
    proto.ca_file = ca;
    proto.header_timeout = proto.idle_timeout = 600;
    proto.connect_timeout = proto.drain_timeout = 600;
    proto.max_conns = 4;
    fd_floor = dup(0); /* the first descriptor a run may use */
    close(fd_floor);
}

/* One request head the vendor received, and its body when whole: 0 at
 * the end of what came, else the bytes it took. */
static size_t
check_request(struct run *r, const char *p, size_t n, struct gw_req_head *h)
{
    size_t end = gw_head_end(p, n), used = 0;
    struct gw_body b;
    int status;

    if (end == 0)
        return 0;
    if (gw_req_parse(p, end, h, &status, NULL) == -1)
        abort(); /* the gateway sent a head it would refuse itself */
    r->forwarded++;
    if (gw_policy_check(&r->cfg.policy, h->method, h->method_len, h->target,
                        h->path_len) != NULL)
        abort(); /* a request the path policy refuses reached the vendor */
    if (gw_script_cred_count(h, r->cfg.auth, KEY) != 1)
        abort(); /* the credential missing, wrong, or twice */
    gw_body_init(&b, h->framing, h->length, true);
    if (gw_body_feed(&b, p + end, n - end, &used) != GW_FEED_DONE)
        return 0; /* cut by the end of the connection */
    if (r->cfg.body.api != GW_API_NONE &&
        gw_body_judged(&r->cfg.body, h->target, h->path_len) &&
        h->framing != GW_BODY_NONE &&
        gw_script_body_refused(&r->cfg.body, p + end, used))
        abort(); /* a body the body policy refuses reached the vendor */
    return end + used;
}

/* A vendor connection ended: judge every request it received. */
static void
on_vendor_end(void *arg, const struct buf *got)
{
    struct run *r = arg;
    struct gw_req_head *h = malloc(sizeof(*h));
    size_t off = 0, k;

    if (h == NULL)
        abort();
    while (off < got->len &&
           (k = check_request(r, got->data + off, got->len - off, h)) > 0)
        off += k;
    free(h);
}

/* Every buffer of the connection within its cap (gw_int.h). */
static void
check_bounds(const struct run *r)
{
    for (const struct gw_conn *c = r->gw->conns; c != NULL; c = c->next)
        if (c->cin_len > GW_BUF || c->cout_off + c->cout_len > GW_BUF ||
            c->uout_off > c->uout.len || c->uout.len > GW_UOUT_CAP ||
            (c->judging && c->judged.len > c->judge_len))
            abort(); /* a buffer past its cap */
}

/* Let the loop, the client and the vendor move until a round moves
 * nothing we can see (at least three: a dial, then the handshake's
 * flights). Everything is local, so nothing needs waiting for. */
static void
settle(struct run *r)
{
    for (int i = 0; i < 32; i++) {
        bool moved;

        ev_run(loop, EVRUN_NOWAIT);
        moved = fuzz_vendor_step(&r->v, on_vendor_end, r);
        if (r->cli >= 0 && r->cli_read)
            moved |= fuzz_slurp(r->cli, &r->cli_got);
        if (r->cli2 >= 0)
            moved |= fuzz_slurp(r->cli2, &r->cli2_got);
        check_bounds(r);
        if (!moved && i >= 2)
            return;
    }
}

static size_t
take(struct run *r, size_t want)
{
    size_t left = (size_t)(r->end - r->p);

    return want < left ? want : left;
}

static uint8_t
arg(struct run *r)
{
    return r->p < r->end ? *r->p++ : 0;
}

static void
client_send(struct run *r, const char *p, size_t n)
{
    ssize_t w =
        r->cli >= 0 ? send(r->cli, p, n, MSG_NOSIGNAL | MSG_DONTWAIT) : 0;

    if (w > 0 && buf_append(&r->sent, p, (size_t)w, NULL) == -1)
        abort();
}

static void
raw_chunk(struct run *r, bool to_vendor)
{
    size_t n = take(r, arg(r) % 128 + 1);

    if (to_vendor) {
        fuzz_vendor_send(&r->v, (const char *)r->p, n);
        (void)buf_append(&r->vendor_sent, r->p, n, NULL);
    } else {
        client_send(r, (const char *)r->p, n);
    }
    r->p += n;
}

static void
canned(struct run *r, bool to_vendor)
{
    size_t n;
    const char *s = to_vendor ? gw_script_answer(arg(r), &n)
                              : gw_script_request(arg(r), &n);

    if (to_vendor) {
        fuzz_vendor_send(&r->v, s, n);
        (void)buf_append(&r->vendor_sent, s, n, NULL);
    } else {
        client_send(r, s, n);
    }
}

static void
answer_dns(struct run *r)
{
    uint8_t b = arg(r);

    fuzz_dns_answer(r->gw->dns, (enum px_dns_status)(b & 3), &vendor_addr, 1);
}

/* The gateway accepts a client; our end in *fd. */
static void
connect_client(struct run *r, int *fd)
{
    union px_sockaddr peer = { 0 };
    int sv[2];

    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0,
                   sv) == -1)
        abort();
    *fd = sv[0];
    peer.in4.sin_family = AF_INET;
    gw__conn_accept(r->gw, sv[1], &peer);
}

/* The second client: connects, sends a canned request, or leaves. */
static void
second_client(struct run *r, uint8_t op)
{
    size_t n;
    const char *s;

    if (op == 13 && r->cli2 < 0) {
        connect_client(r, &r->cli2);
    } else if (op == 14 && r->cli2 >= 0) {
        s = gw_script_request(arg(r), &n);
        if (send(r->cli2, s, n, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
            return; /* the gateway closed it: nothing more to send */
    } else if (op == 15) {
        fuzz_close_fd(&r->cli2);
    }
}

static void
play_one(struct run *r, uint8_t op)
{
    switch (op % 16) {
    case 0:
        raw_chunk(r, false);
        break;
    case 1:
        canned(r, false);
        break;
    case 2:
        if (r->cli >= 0)
            shutdown(r->cli, SHUT_WR);
        break;
    case 3:
        fuzz_close_fd(&r->cli);
        break;
    case 4:
        raw_chunk(r, true);
        break;
    case 5:
        canned(r, true);
        break;
    case 6:
    case 7:
        fuzz_vendor_close(&r->v, op % 16 == 6, on_vendor_end, r);
        break;
    case 8:
        answer_dns(r);
        break;
    case 9:
        if (r->gw->conns != NULL)
            gw__conn_timeout(r->gw->conns);
        break;
    case 10:
        r->gw->daemon.draining = true;
        gw__conn_close_idle(r->gw);
        break;
    case 11:
        r->cli_read = !r->cli_read;
        break;
    case 12:
        if (arg(r) & 1)
            fuzz_dns_fail_next(r->gw->dns);
        break;
    default:
        second_client(r, op % 16);
        break;
    }
    settle(r);
}

static bool
holds_key(const struct buf *b)
{
    return b->len > 0 && memmem(b->data, b->len, KEY, strlen(KEY)) != NULL;
}

/* The client's first bytes are the gateway's own answer, or the vendor's
 * (its head passes through unchecked as it comes: the vendor is the one
 * the certificate names). */
static bool
answer_first(const struct run *r)
{
    size_t n = r->cli_got.len < 9 ? r->cli_got.len : 9;

    return n == 0 ||
           (r->cli_got.len >= 9 &&
            memcmp(r->cli_got.data, "HTTP/1.1 ", 9) == 0) ||
           (r->vendor_sent.len > 0 &&
            memmem(r->vendor_sent.data, r->vendor_sent.len, r->cli_got.data,
                   n) != NULL);
}

static void
finish(struct run *r)
{
    r->cli_read = true;
    settle(r);
    fuzz_close_fd(&r->cli);
    fuzz_close_fd(&r->cli2);
    fuzz_vendor_close(&r->v, false, on_vendor_end, r);
    fuzz_dns_answer(r->gw->dns, PX_DNS_NOTFOUND, NULL, 0);
    settle(r);
    for (int i = 0; i < 8 && r->gw->conns != NULL; i++) {
        gw__conn_timeout(r->gw->conns);
        settle(r);
    }
    fuzz_vendor_cleanup(&r->v, on_vendor_end, r);
    if (r->gw->conns != NULL || r->gw->nconns != 0 ||
        r->gw->model_in_flight != 0 || fuzz_dns_pending(r->gw->dns) != 0)
        abort(); /* a connection that never ends, or a slot or lookup left */
    if (r->gw->budget.max_requests > 0 &&
        r->forwarded > r->gw->budget.max_requests)
        abort(); /* more requests reached the vendor than the budget */
    if (!answer_first(r))
        abort(); /* the client's first bytes are no answer */
    if ((holds_key(&r->cli_got) || holds_key(&r->cli2_got)) &&
        !holds_key(&r->sent) && !holds_key(&r->vendor_sent))
        abort(); /* the key reached the client */
}

static void
run_setup(struct run *r, uint8_t a, uint8_t b)
{
    r->fds_before = fuzz_open_fds(fd_floor);
    r->cfg = proto;
    r->cfg.auth = (a & 1) ? GW_AUTH_BEARER : GW_AUTH_API_KEY;
    if (!(a & 2))
        r->cfg.body.api = GW_API_NONE;
    r->cfg.connect_to = a & 4;
    r->cfg.connect_addr = vendor_addr;
    r->cfg.allow_private = a & 8;
    r->cfg.header_limit = 256 + (size_t)(b & 63) * 1024;
    r->gw = calloc(1, sizeof(*r->gw));
    if (r->gw == NULL)
        abort();
    r->gw->loop = loop;
    r->gw->cfg = &r->cfg;
    r->gw->daemon.listen_fd = -1;
    r->gw->tls = client_ctx;
    SSL_CTX_set_app_data(client_ctx, r->gw); /* the session callback's */
    r->gw->dns = px_dns_new(loop, 0, 0, NULL);
    r->gw->cred = (struct gw_cred){ .kind = r->cfg.auth, .key = KEY,
                                    .key_len = strlen(KEY) };
    snprintf(r->gw->host_header, sizeof(r->gw->host_header), "vendor.test");
    r->gw->budget.max_body = GW_MAX_BODY_DEFAULT;
    r->gw->budget.max_requests = (a >> 4) & 3;
    r->gw->budget.max_tokens = (a & 64) ? 100 : 0;
    r->cli_read = true;
    fuzz_vendor_init(&r->v);
    buf_init(&r->sent, 1 << 22);
    buf_init(&r->cli_got, 1 << 22);
    buf_init(&r->cli2_got, 1 << 22);
    buf_init(&r->vendor_sent, 1 << 22);
    r->cli2 = -1;
    connect_client(r, &r->cli);
}

static void
run_cleanup(struct run *r)
{
    px_dns_free(r->gw->dns);
    SSL_SESSION_free(r->gw->session);
    free(r->gw);
    buf_cleanup(&r->sent);
    buf_cleanup(&r->cli_got);
    buf_cleanup(&r->cli2_got);
    buf_cleanup(&r->vendor_sent);
    if (fuzz_open_fds(fd_floor) & ~r->fds_before)
        abort(); /* a descriptor the run left open */
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct run r = { 0 };

    if (size < 2 || size > 2048)
        return 0;
    if (loop == NULL)
        setup_once();
    run_setup(&r, data[0], data[1]);
    r.p = data + 2;
    r.end = data + size;
    settle(&r);
    while (r.p < r.end)
        play_one(&r, *r.p++);
    finish(&r);
    run_cleanup(&r);
    return 0;
}
