/* test_px_pump.c - the egress proxy's tunnel pump (px__pump, px_pump.c)
 * on real loopback TCP connections: a writer feeds src, a reader drains
 * dst (or stops reading: a slow reader), the pump moves the bytes
 * between. Every byte is checked in order (a counting pattern).
 *
 * Covered: splicing leaves no pipe behind; a slow reader leaves the bytes
 * in the direction's pipe (no copy) and gets them all later; EOF while
 * the pipe still holds bytes is passed on only after them (negative
 * control: PX_FAULT_EOF_DROPS_PIPE, a pump that drops them, loses bytes
 * and this test sees it); splice refused (PX_FAULT_SPLICE_EINVAL) copies
 * instead, also when the refusal comes while the pipe holds bytes; a
 * reset while the pipe holds bytes fails the pump and no pipe with
 * bytes goes back to the pool. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "px_int.h"

/* Small socket buffers, so a reader that stops fills them quickly. */
#define SOCKBUF 8192
#define TOTAL (2 * 1024 * 1024)

struct fx {
    struct px px;
    struct px_dir d;
    int src_peer, src; /* the writer's end, the pump's end */
    int dst, dst_peer; /* the pump's end, the reader's end */
    uint64_t written, got;
    bool writer_done; /* TOTAL written and the writer's side shut */
    bool reader_eof;
    bool bad_byte; /* a byte out of order or wrong */
};

/* px_main.c's hook: nothing drains here. */
void
px__maybe_done(struct px *px)
{
    (void)px;
}

static void
small_buffers(int fd)
{
    int n = SOCKBUF;

    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &n, sizeof(n));
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &n, sizeof(n));
}

/* A loopback TCP connection: *a the connecting end, *b the accepted. */
static void
tcp_pair(int *a, int *b)
{
    struct sockaddr_in sa = { .sin_family = AF_INET };
    socklen_t len = sizeof(sa);
    int l = socket(AF_INET, SOCK_STREAM, 0);

    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    small_buffers(l);
    assert_int_equal(bind(l, (struct sockaddr *)&sa, sizeof(sa)), 0);
    assert_int_equal(listen(l, 1), 0);
    assert_int_equal(getsockname(l, (struct sockaddr *)&sa, &len), 0);
    *a = socket(AF_INET, SOCK_STREAM, 0);
    small_buffers(*a);
    assert_int_equal(connect(*a, (struct sockaddr *)&sa, sizeof(sa)), 0);
    *b = accept(l, NULL, NULL);
    assert_true(*b >= 0);
    close(l);
    fcntl(*a, F_SETFL, O_NONBLOCK);
    fcntl(*b, F_SETFL, O_NONBLOCK);
}

static int
setup(void **state)
{
    struct fx *f = calloc(1, sizeof(*f));

    signal(SIGPIPE, SIG_IGN);
    assert_non_null(f);
    f->px.splice = true;
    f->d.pipe.rd = f->d.pipe.wr = -1;
    tcp_pair(&f->src_peer, &f->src);
    tcp_pair(&f->dst, &f->dst_peer);
    *state = f;
    return 0;
}

static void
close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

static int
teardown(void **state)
{
    struct fx *f = *state;

    px__dir_cleanup(&f->px, &f->d);
    px__pipes_free(&f->px);
    close_fd(&f->src_peer);
    close_fd(&f->src);
    close_fd(&f->dst);
    close_fd(&f->dst_peer);
    free(f);
    return 0;
}

static uint8_t
pattern(uint64_t i)
{
    return (uint8_t)(i % 251);
}

/* The writer puts what src takes of the pattern, up to TOTAL; then it
 * half-closes. */
static void
write_some(struct fx *f)
{
    uint8_t chunk[16384];

    while (f->written < TOTAL) {
        size_t n = TOTAL - f->written < sizeof(chunk) ? TOTAL - f->written
                                                       : sizeof(chunk);
        ssize_t w;

        for (size_t i = 0; i < n; i++)
            chunk[i] = pattern(f->written + i);
        w = send(f->src_peer, chunk, n, MSG_NOSIGNAL);
        if (w <= 0)
            return;
        f->written += (uint64_t)w;
    }
    if (!f->writer_done) {
        shutdown(f->src_peer, SHUT_WR);
        f->writer_done = true;
    }
}

/* The reader takes at most max bytes, checking each. */
static void
read_some(struct fx *f, size_t max)
{
    uint8_t buf[16384];

    while (max > 0 && !f->reader_eof) {
        ssize_t r = recv(f->dst_peer, buf, max < sizeof(buf) ? max : sizeof(buf),
                         0);
        if (r == 0)
            f->reader_eof = true;
        if (r <= 0)
            return;
        for (ssize_t i = 0; i < r; i++)
            if (buf[i] != pattern(f->got + (uint64_t)i))
                f->bad_byte = true;
        f->got += (uint64_t)r;
        max -= (size_t)r;
    }
}

/* Pump until nothing moves any more: the pump reads nothing and the
 * writer can put nothing more (loopback delivery is synchronous). */
static void
pump_until_stuck(struct fx *f)
{
    for (int i = 0; i < 100000; i++) {
        uint64_t before = f->written;
        ssize_t n;

        write_some(f);
        n = px__pump(&f->px, &f->d, f->src, f->dst);
        assert_true(n >= 0);
        if (n == 0 && f->written == before)
            return;
    }
    fail_msg("the pump never got stuck");
}

/* Read everything while pumping: the bytes the reader got in the end. */
static uint64_t
drain_all(struct fx *f)
{
    for (int i = 0; i < 100000 && !f->reader_eof; i++) {
        write_some(f);
        if (px__pump(&f->px, &f->d, f->src, f->dst) < 0)
            break;
        read_some(f, 65536);
    }
    return f->got;
}

static void
test_splice_moves_all_and_keeps_no_pipe(void **state)
{
    struct fx *f = *state;

    assert_int_equal(drain_all(f), TOTAL);
    assert_true(f->reader_eof);
    assert_false(f->bad_byte);
    assert_true(f->d.shut);
    assert_false(f->d.copy);
    assert_int_equal(f->d.pipe.rd, -1); /* given back once empty */
    assert_int_equal(f->d.held, 0);
    assert_true(f->px.nspare >= 1 && f->px.nspare <= PX_PIPE_SPARE);
    assert_int_equal(f->d.bytes, TOTAL);
}

static void
test_slow_reader_leaves_bytes_in_the_pipe(void **state)
{
    struct fx *f = *state;

    pump_until_stuck(f);
    /* dst is full: the rest waits in the direction's own pipe, not in a
     * buffer (no copy to user space). */
    assert_true(f->d.held > 0);
    assert_int_equal(f->d.len, 0);
    assert_null(f->d.buf);
    assert_true(f->d.pipe.rd >= 0);
    assert_true(f->d.held <= f->d.pipe.size);
    assert_int_equal(drain_all(f), TOTAL);
    assert_false(f->bad_byte);
}

/* The writer sends TOTAL and half-closes; the reader reads in small
 * bites (smaller still once the writer is done), so that the pump sees
 * the EOF while its pipe holds the tail. */
static void
eof_with_bytes_in_pipe(struct fx *f)
{
    for (int i = 0; i < 100000 && !f->d.eof; i++) {
        pump_until_stuck(f);
        if (!f->d.eof)
            read_some(f, f->writer_done ? 512 : SOCKBUF);
    }
}

static void
test_eof_waits_for_the_bytes_in_the_pipe(void **state)
{
    struct fx *f = *state;

    eof_with_bytes_in_pipe(f);
    /* the writer is done, the pump saw its EOF, the pipe holds bytes:
     * the EOF is not passed on yet */
    assert_true(f->d.eof);
    assert_true(f->d.held > 0);
    assert_false(f->d.shut);
    assert_int_equal(drain_all(f), TOTAL);
    assert_true(f->reader_eof);
    assert_true(f->d.shut);
    assert_false(f->bad_byte);
}

/* Negative control: the same run with a pump that passes the EOF on at
 * once, dropping what its pipe holds; the reader must come up short. */
static void
test_control_pump_that_drops_the_pipe_at_eof_loses_bytes(void **state)
{
    struct fx *f = *state;
    uint64_t got;

    eof_with_bytes_in_pipe(f);
    assert_true(f->d.eof && f->d.held > 0);
    f->px.test_faults = PX_FAULT_EOF_DROPS_PIPE;
    got = drain_all(f);
    assert_true(f->reader_eof);
    assert_true(got < TOTAL); /* the check above (== TOTAL) catches it */
    assert_int_equal(f->d.pipe.rd, -1);
}

static void
test_splice_refused_copies_instead(void **state)
{
    struct fx *f = *state;

    f->px.test_faults = PX_FAULT_SPLICE_EINVAL;
    assert_int_equal(drain_all(f), TOTAL);
    assert_false(f->bad_byte);
    assert_true(f->d.copy);
    assert_int_equal(f->d.pipe.rd, -1);
    assert_int_equal(f->px.nspare, 1); /* taken, refused, given back */
    assert_true(f->d.shut);
}

static void
test_splice_refused_with_bytes_in_the_pipe(void **state)
{
    struct fx *f = *state;
    uint32_t held;

    pump_until_stuck(f);
    held = f->d.held;
    assert_true(held > 0);
    f->px.test_faults = PX_FAULT_SPLICE_EINVAL;
    read_some(f, SOCKBUF);
    assert_true(px__pump(&f->px, &f->d, f->src, f->dst) >= 0);
    /* what the pipe held is in the buffer now (minus what went out) */
    assert_true(f->d.copy);
    assert_int_equal(f->d.held, 0);
    assert_int_equal(f->d.pipe.rd, -1);
    assert_int_equal(drain_all(f), TOTAL);
    assert_false(f->bad_byte);
}

static void
test_reset_with_bytes_in_the_pipe(void **state)
{
    struct fx *f = *state;
    struct linger lg = { 1, 0 };
    ssize_t n = 0;

    pump_until_stuck(f);
    assert_true(f->d.held > 0);
    /* the reader resets the connection: the pump fails */
    setsockopt(f->dst_peer, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
    close_fd(&f->dst_peer);
    for (int i = 0; i < 100 && n >= 0; i++)
        n = px__pump(&f->px, &f->d, f->src, f->dst);
    assert_int_equal(n, -1);
    px__dir_cleanup(&f->px, &f->d);
    /* a pipe with bytes in it is closed, never pooled for another */
    assert_int_equal(f->px.nspare, 0);
    assert_int_equal(f->d.pipe.rd, -1);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_splice_moves_all_and_keeps_no_pipe,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_slow_reader_leaves_bytes_in_the_pipe, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_eof_waits_for_the_bytes_in_the_pipe, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_control_pump_that_drops_the_pipe_at_eof_loses_bytes, setup,
            teardown),
        cmocka_unit_test_setup_teardown(test_splice_refused_copies_instead,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_splice_refused_with_bytes_in_the_pipe, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reset_with_bytes_in_the_pipe,
                                        setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
