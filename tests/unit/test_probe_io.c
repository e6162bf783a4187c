/* test_probe_io.c - the boundary probe's socket loop and DNS messages
 * (images/probe_io.c, images/probe_facts.c) on loopback only: each
 * exchange ends on the answer the kernel gives (connected, refused, a
 * reply), silence ends only at the deadline as ETIMEDOUT and is never
 * reported as done-without-error, a reply with the wrong id is ignored,
 * an exchange whose deadline is already past is not made, and settled()
 * ends a run with the rest left pending. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
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
    };

    signal(SIGPIPE, SIG_IGN);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
