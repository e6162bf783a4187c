/* test_probe_io.c - the boundary probe's socket loop, DNS messages and
 * gateway check (images/probe_io.c, probe_facts.c, probe_http.c) on
 * loopback only: each exchange ends on the answer the kernel gives
 * (connected, refused, a reply), silence ends only at the deadline as
 * ETIMEDOUT and is never reported as done-without-error, a reply with the
 * wrong id is ignored, an exchange whose deadline is already past is not
 * made, and settled() ends a run with the rest left pending. The gateway
 * check's request goes to loopback listeners that answer as the gateway
 * does (ok), answer otherwise (breach), refuse, reset or close (broken)
 * or never answer (undecided); each case is the negative control of the
 * others. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "probe.h"

/* A loopback socket of type bound to an ephemeral port; its address. */
static int
bound(int type, struct sockaddr_in *sa)
{
    socklen_t len = sizeof(*sa);
    int fd = socket(AF_INET, type, 0);

    assert_true(fd >= 0);
    memset(sa, 0, sizeof(*sa));
    sa->sin_family = AF_INET;
    sa->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(fd, (struct sockaddr *)sa, sizeof(*sa)), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)sa, &len), 0);
    return fd;
}

static void
io_init(struct probe_io *io, enum probe_io_kind kind,
        const struct sockaddr_in *to, long ms)
{
    memset(io, 0, sizeof(*io));
    io->kind = kind;
    io->to = *to;
    io->deadline = probe_now_ms() + ms;
}

static void
test_tcp_answers(void **state)
{
    struct sockaddr_in open_sa, closed_sa;
    int lfd = bound(SOCK_STREAM, &open_sa);
    int cfd = bound(SOCK_STREAM, &closed_sa); /* bound, never listening */
    struct probe_io io[2];

    (void)state;
    assert_int_equal(listen(lfd, 8), 0);
    io_init(&io[0], PROBE_IO_TCP, &open_sa, 5000);
    io_init(&io[1], PROBE_IO_TCP, &closed_sa, 5000);
    probe_io_run(io, 2, NULL, NULL);
    assert_true(io[0].done);
    assert_int_equal(io[0].err, 0);
    assert_true(io[1].done);
    assert_int_equal(io[1].err, ECONNREFUSED);
    close(lfd);
    close(cfd);
}

/* A SYN to a listener whose accept queue is full is dropped: no answer,
 * so the connect must end at its deadline as ETIMEDOUT. */
static void
test_tcp_silence_is_a_timeout(void **state)
{
    struct sockaddr_in sa;
    int lfd = bound(SOCK_STREAM, &sa), fill[3];
    struct probe_io io;

    (void)state;
    assert_int_equal(listen(lfd, 0), 0);
    for (int i = 0; i < 3; i++) {
        fill[i] = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
        connect(fill[i], (struct sockaddr *)&sa, sizeof(sa));
    }
    usleep(100 * 1000);
    io_init(&io, PROBE_IO_TCP, &sa, 400);
    probe_io_run(&io, 1, NULL, NULL);
    assert_true(io.done);
    assert_int_equal(io.err, ETIMEDOUT);
    for (int i = 0; i < 3; i++)
        close(fill[i]);
    close(lfd);
}

/* A child answers one CONNECT line with a status head. */
static void
test_tcp_request_and_head(void **state)
{
    static const unsigned char req[] = "CONNECT x:1 HTTP/1.1\r\n\r\n";
    struct sockaddr_in sa;
    int lfd = bound(SOCK_STREAM, &sa), status;
    struct probe_io io;
    pid_t pid;

    (void)state;
    assert_int_equal(listen(lfd, 8), 0);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        char buf[256];
        int c = accept(lfd, NULL, NULL);

        if (c >= 0 && read(c, buf, sizeof(buf)) > 0)
            (void)!write(c, "HTTP/1.1 403 Forbidden\r\n\r\nrest", 31);
        _exit(0);
    }
    io_init(&io, PROBE_IO_TCP, &sa, 5000);
    io.req = req;
    io.req_len = sizeof(req) - 1;
    probe_io_run(&io, 1, NULL, NULL);
    waitpid(pid, &status, 0);
    assert_true(io.done);
    assert_int_equal(io.err, 0);
    assert_non_null(strstr((const char *)io.reply, "HTTP/1.1 403 Forbidden"));
    close(lfd);
}

/* UDP: a reply with the wrong id is ignored, the right one ends it; a
 * resolver that never answers ends at the deadline; a closed port is an
 * ICMP refusal. */
static void
test_udp_answers_and_silence(void **state)
{
    unsigned char q[64];
    struct sockaddr_in srv_sa, mute_sa, closed_sa;
    int srv = bound(SOCK_DGRAM, &srv_sa), mute = bound(SOCK_DGRAM, &mute_sa);
    int closed = bound(SOCK_DGRAM, &closed_sa), qlen, status;
    struct probe_io io[3];
    pid_t pid;

    (void)state;
    close(closed); /* nothing listens there now */
    qlen = probe_dns_query_a("vendor.test:443", 0x1234, q, sizeof(q));
    assert_true(qlen > 12);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        unsigned char b[512];
        struct sockaddr_in from;
        socklen_t fl = sizeof(from);
        ssize_t n = recvfrom(srv, b, sizeof(b), 0, (struct sockaddr *)&from,
                             &fl);

        if (n >= 12) {
            b[2] |= 0x80;
            b[1] ^= 0xff; /* wrong id first */
            sendto(srv, b, (size_t)n, 0, (struct sockaddr *)&from, fl);
            b[1] ^= 0xff;
            b[7] = 1; /* one answer */
            sendto(srv, b, (size_t)n, 0, (struct sockaddr *)&from, fl);
        }
        _exit(0);
    }
    for (int i = 0; i < 3; i++) {
        io_init(&io[i], PROBE_IO_UDP,
                i == 0 ? &srv_sa : i == 1 ? &mute_sa : &closed_sa, 400);
        io[i].req = q;
        io[i].req_len = (size_t)qlen;
        io[i].dns_id = 0x1234;
    }
    probe_io_run(io, 3, NULL, NULL);
    waitpid(pid, &status, 0);
    assert_true(io[0].done);
    assert_int_equal(io[0].err, 0);
    {
        int rcode, answers;

        assert_int_equal(
            probe_dns_reply(io[0].reply, io[0].reply_len, &rcode, &answers),
            0);
        assert_int_equal(answers, 1);
        assert_int_equal(io[0].reply[1], 0x34);
    }
    assert_true(io[1].done);
    assert_int_equal(io[1].err, ETIMEDOUT);
    assert_true(io[2].done);
    assert_int_equal(io[2].err, ECONNREFUSED);
    close(srv);
    close(mute);
}

static bool
first_done(const struct probe_io *ios, size_t n, void *arg)
{
    (void)n;
    (void)arg;
    return ios[0].done;
}

/* settled() ends the run: the mute exchange stays pending (not done, not
 * reported as an answer: had the run waited for its deadline it would be
 * done with ETIMEDOUT); a past deadline means the exchange is not made. */
static void
test_settled_and_not_made(void **state)
{
    struct sockaddr_in open_sa, mute_sa;
    int lfd = bound(SOCK_STREAM, &open_sa), mute = bound(SOCK_DGRAM, &mute_sa);
    unsigned char q[64];
    struct probe_io io[3];
    int qlen = probe_dns_query_a("a.b:1", 7, q, sizeof(q)), acc;

    (void)state;
    assert_int_equal(listen(lfd, 8), 0);
    io_init(&io[0], PROBE_IO_TCP, &open_sa, 5000);
    io_init(&io[1], PROBE_IO_UDP, &mute_sa, 5000);
    io[1].req = q;
    io[1].req_len = (size_t)qlen;
    io_init(&io[2], PROBE_IO_TCP, &open_sa, 0);
    io[2].deadline = 0; /* already past: not made */
    probe_io_run(io, 3, first_done, NULL);
    assert_true(io[0].done);
    assert_false(io[1].done);
    assert_int_equal(io[1].err, EINPROGRESS);
    assert_true(io[2].done);
    assert_int_equal(io[2].err, ETIMEDOUT);
    /* exactly one connection reached the listener */
    assert_int_equal(fcntl(lfd, F_SETFL, O_NONBLOCK), 0);
    acc = accept(lfd, NULL, NULL);
    assert_true(acc >= 0);
    close(acc);
    assert_int_equal(accept(lfd, NULL, NULL), -1);
    close(lfd);
    close(mute);
}

static void
test_dns_messages(void **state)
{
    static const unsigned char want_a[] = {
        0x12, 0x34, 0x01, 0, 0, 1, 0, 0, 0, 0, 0, 0, 6, 'v', 'e', 'n', 'd',
        'o',  'r',  4,    't', 'e', 's', 't', 0, 0, 1, 0, 1
    };
    static const char want_ptr[] = "\0012\0015\003213\00210\007in-addr\004arpa";
    unsigned char q[300];
    struct in_addr ip;
    int n, rcode, answers;

    (void)state;
    n = probe_dns_query_a("vendor.test:443", 0x1234, q, sizeof(q));
    assert_int_equal(n, (int)sizeof(want_a));
    assert_memory_equal(q, want_a, sizeof(want_a));
    assert_int_equal(probe_dns_query_a("a..b:1", 1, q, sizeof(q)), -1);
    assert_int_equal(probe_dns_query_a("vendor.test:443", 1, q, 20), -1);
    inet_pton(AF_INET, "10.213.5.2", &ip);
    n = probe_dns_query_ptr(&ip, 9, q, sizeof(q));
    assert_int_equal(n, 12 + (int)sizeof(want_ptr) + 4);
    assert_memory_equal(q + 12, want_ptr, sizeof(want_ptr));
    assert_int_equal(q[n - 3], 12); /* QTYPE PTR */
    /* a query is no reply; a reply carries rcode and answer count */
    assert_int_equal(probe_dns_reply(q, (size_t)n, &rcode, &answers), -1);
    q[2] |= 0x80;
    q[3] = 3;
    assert_int_equal(probe_dns_reply(q, (size_t)n, &rcode, &answers), 0);
    assert_int_equal(rcode, 3);
    assert_int_equal(answers, 0);
    assert_int_equal(probe_dns_reply(q, 11, &rcode, &answers), -1);
}

static void
test_gateway_request(void **state)
{
    static const char want[] =
        "GET /agentctl-probe/outside-the-rules HTTP/1.1\r\n"
        "Host: 10.213.5.5:8080\r\nConnection: close\r\n\r\n";
    unsigned char req[128];

    (void)state;
    assert_int_equal(probe_gateway_request("10.213.5.5:8080", req, sizeof(req)),
                     (int)sizeof(want) - 1);
    assert_memory_equal(req, want, sizeof(want) - 1);
    assert_int_equal(probe_gateway_request("10.213.5.5:8080", req, 40), -1);
}

/* How a loopback listener treats the gateway check's request. */
enum gw_act {
    GW_ANSWER, /* read the request head, write the reply, close */
    GW_CLOSE,  /* read the request head, close without a word */
    GW_RESET,  /* read the request head, reset the connection */
    GW_MUTE,   /* listen, never accept: the connect completes, no answer */
    GW_NONE,   /* bound, not listening: refused */
};

struct gw_case {
    const char *what;
    enum gw_act act;
    const char *reply;
    bool ok;
    enum probe_fail fail;
    const char *detail;
};

#define GW_403 "HTTP/1.1 403 Forbidden\r\n"
/* the bytes proxy/gw_audit.c writes, body and all */
#define GW_SIGNED                                                              \
    "Proxy-Status: agentctl-gateway; error=http_request_denied; "              \
    "details=\"path not allowed\"\r\n"
#define GW_BODY                                                                \
    "Content-Type: application/json\r\nContent-Length: 2\r\n"                  \
    "Connection: close\r\n\r\n{}"

static const struct gw_case gw_cases[] = {
    { "the gateway's refusal", GW_ANSWER, GW_403 GW_SIGNED GW_BODY, true, 0,
      "403" },
    { "field name in lower case, no space", GW_ANSWER,
      GW_403 "proxy-status:agentctl-gateway\r\n\r\n", true, 0, "403" },
    { "a 200: the request went through", GW_ANSWER,
      "HTTP/1.1 200 OK\r\n" GW_SIGNED GW_BODY, false, PROBE_FAIL_BREACH,
      "200" },
    { "a 404 from some server", GW_ANSWER,
      "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n", false,
      PROBE_FAIL_BREACH, "404" },
    { "a 403 without Proxy-Status", GW_ANSWER, GW_403 GW_BODY, false,
      PROBE_FAIL_BREACH, "403 without Proxy-Status agentctl-gateway" },
    { "a 403 from another proxy", GW_ANSWER,
      GW_403 "Proxy-Status: squid; error=http_request_denied\r\n\r\n", false,
      PROBE_FAIL_BREACH, "403 without Proxy-Status agentctl-gateway" },
    { "a 403 whose proxy name only starts like the gateway's", GW_ANSWER,
      GW_403 "Proxy-Status: agentctl-gateway2; error=x\r\n\r\n", false,
      PROBE_FAIL_BREACH, "403 without Proxy-Status agentctl-gateway" },
    { "a 403 with the header in its body only", GW_ANSWER,
      GW_403 "Content-Length: 60\r\n\r\n" GW_SIGNED, false, PROBE_FAIL_BREACH,
      "403 without Proxy-Status agentctl-gateway" },
    { "not HTTP", GW_ANSWER, "SSH-2.0-OpenSSH_9.6\r\n\r\n", false,
      PROBE_FAIL_BROKEN, "not an HTTP answer" },
    { "closed without an answer", GW_CLOSE, NULL, false, PROBE_FAIL_BROKEN,
      "closed without an answer" },
    { "reset", GW_RESET, NULL, false, PROBE_FAIL_BROKEN, "reset" },
    { "nothing listening", GW_NONE, NULL, false, PROBE_FAIL_BROKEN, "refused" },
    { "a listener that never answers", GW_MUTE, NULL, false,
      PROBE_FAIL_UNDECIDED, "no answer in 300 ms" },
};

/* The child's side: read the request's head, then act. */
static void
gw_serve(int lfd, const struct gw_case *gc)
{
    char buf[512];
    size_t n = 0;
    int c = accept(lfd, NULL, NULL);

    while (c >= 0 && n < sizeof(buf) - 1) {
        ssize_t k = read(c, buf + n, sizeof(buf) - 1 - n);

        if (k <= 0)
            break;
        n += (size_t)k;
        buf[n] = '\0';
        if (strstr(buf, "\r\n\r\n") != NULL)
            break;
    }
    if (gc->act == GW_RESET) {
        struct linger l = { .l_onoff = 1, .l_linger = 0 };

        setsockopt(c, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
    } else if (gc->act == GW_ANSWER) {
        (void)!write(c, gc->reply, strlen(gc->reply));
    }
    _exit(0);
}

/* Run the gateway check against one listener and judge it into c. */
static void
gw_check(const struct gw_case *gc, struct probe_check *c)
{
    struct sockaddr_in sa;
    int lfd = bound(SOCK_STREAM, &sa), status;
    unsigned char req[128];
    char arg[32];
    struct probe_io io;
    pid_t pid = -1;
    /* silence must last to the deadline; an answer may be slow (valgrind) */
    long ms = gc->act == GW_MUTE || gc->act == GW_NONE ? 300 : 10000;

    if (gc->act != GW_NONE)
        assert_int_equal(listen(lfd, 8), 0);
    if (gc->act != GW_NONE && gc->act != GW_MUTE) {
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0)
            gw_serve(lfd, gc);
    }
    snprintf(arg, sizeof(arg), "127.0.0.1:%u", (unsigned)ntohs(sa.sin_port));
    io_init(&io, PROBE_IO_TCP, &sa, ms);
    io.req = req;
    io.req_len = (size_t)probe_gateway_request(arg, req, sizeof(req));
    io.retry_refused = true; /* as probe.c sets it */
    probe_io_run(&io, 1, NULL, NULL);
    if (pid > 0)
        waitpid(pid, &status, 0);
    close(lfd);
    memset(c, 0, sizeof(*c));
    probe_gateway_judge(&io, ms, c);
}

static void
test_gateway_check(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(gw_cases) / sizeof(gw_cases[0]); i++) {
        const struct gw_case *gc = &gw_cases[i];
        struct probe_check c;

        gw_check(gc, &c);
        if (c.ok != gc->ok || (!c.ok && c.fail != gc->fail) ||
            strcmp(c.detail, gc->detail) != 0)
            fail_msg("%s: ok %d fail %d [%s], wanted ok %d fail %d [%s]",
                     gc->what, c.ok, c.fail, c.detail, gc->ok, gc->fail,
                     gc->detail);
    }
}

/* The judgement of exchanges the socket loop never finished: still
 * pending (settled() ended the run) is silence, never an answer. */
static void
test_gateway_judge_pending(void **state)
{
    struct probe_io io;
    struct probe_check c;

    (void)state;
    memset(&io, 0, sizeof(io));
    io.err = EINPROGRESS;
    memset(&c, 0, sizeof(c));
    probe_gateway_judge(&io, 3000, &c);
    assert_false(c.ok);
    assert_int_equal(c.fail, PROBE_FAIL_UNDECIDED);
    assert_string_equal(c.detail, "no answer in 3000 ms");
    assert_int_equal(probe_status_code("HTTP/1.1 403 Forbidden"), 403);
    assert_int_equal(probe_status_code("HTTP/2 200"), -1);
    assert_int_equal(probe_status_code("HTTP/1.1 99 x"), -1);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tcp_answers),
        cmocka_unit_test(test_tcp_silence_is_a_timeout),
        cmocka_unit_test(test_tcp_request_and_head),
        cmocka_unit_test(test_udp_answers_and_silence),
        cmocka_unit_test(test_settled_and_not_made),
        cmocka_unit_test(test_dns_messages),
        cmocka_unit_test(test_gateway_request),
        cmocka_unit_test(test_gateway_check),
        cmocka_unit_test(test_gateway_judge_pending),
    };

    signal(SIGPIPE, SIG_IGN);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
