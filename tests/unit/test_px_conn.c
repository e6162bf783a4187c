/* test_px_conn.c - the egress proxy's connection deadline
 * (px__conn_timeout, px_conn.c) on a real libev loop: the client on a
 * socket pair, the upstream a loopback listener reached by its literal
 * (no lookup). A header not complete in time is answered 408; a tunnel
 * whose deadline runs out while it is not idle stays open, re-armed for
 * the rest; one idle that long is closed; an answered client that
 * lingers is let go. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "px_int.h"

struct fx {
    struct px_config cfg;
    struct px px;
    int listen_fd; /* the upstream's listener */
    char target[64];
    int cli; /* our end of the client's socket pair */
    int up;  /* the accepted upstream connection, -1 before */
};

/* px_main.c's hook: nothing drains here. */
void
px__maybe_done(struct px *px)
{
    (void)px;
}

static int
setup(void **state)
{
    struct fx *f = calloc(1, sizeof(*f));
    struct sockaddr_in a = { .sin_family = AF_INET };
    socklen_t len = sizeof(a);
    char allow[80];
    int sv[2];

    signal(SIGPIPE, SIG_IGN);
    assert_non_null(f);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    f->listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    assert_int_equal(bind(f->listen_fd, (struct sockaddr *)&a, sizeof(a)), 0);
    assert_int_equal(listen(f->listen_fd, 4), 0);
    assert_int_equal(getsockname(f->listen_fd, (struct sockaddr *)&a, &len), 0);
    snprintf(f->target, sizeof(f->target), "127.0.0.1:%u", ntohs(a.sin_port));
    snprintf(allow, sizeof(allow), "%s", f->target);
    px_allow_init(&f->cfg.allow);
    assert_int_equal(px_allow_add(&f->cfg.allow, allow, NULL), 0);
    f->cfg.allow_private = true;
    f->cfg.header_limit = 8192;
    f->cfg.header_timeout = f->cfg.idle_timeout = 600;
    f->cfg.connect_timeout = f->cfg.drain_timeout = 600;
    f->cfg.max_conns = 4;
    f->px.loop = ev_loop_new(EVFLAG_AUTO);
    f->px.cfg = &f->cfg;
    f->px.daemon.listen_fd = -1;
    f->up = -1;
    assert_int_equal(
        socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv),
        0);
    f->cli = sv[0];
    px__conn_accept(&f->px, sv[1], &(union px_sockaddr){ .in4 = a });
    *state = f;
    return 0;
}

static int
teardown(void **state)
{
    struct fx *f = *state;

    while (f->px.conns != NULL)
        px__conn_close(f->px.conns, "test over");
    px__pipes_free(&f->px);
    ev_loop_destroy(f->px.loop);
    px_allow_cleanup(&f->cfg.allow);
    close(f->cli);
    if (f->up >= 0)
        close(f->up);
    close(f->listen_fd);
    free(f);
    return 0;
}

/* Run the loop until nothing is left to do, taking the upstream's
 * connection when it comes. */
static void
settle(struct fx *f)
{
    for (int i = 0; i < 20; i++) {
        ev_run(f->px.loop, EVRUN_NOWAIT);
        if (f->up < 0)
            f->up = accept(f->listen_fd, NULL, NULL);
    }
}

static void
client_says(struct fx *f, const char *s)
{
    assert_int_equal(send(f->cli, s, strlen(s), 0), (ssize_t)strlen(s));
    settle(f);
}

/* What the client got so far, NUL-terminated. */
static void
client_got(struct fx *f, char *out, size_t size)
{
    ssize_t n = recv(f->cli, out, size - 1, MSG_DONTWAIT);

    out[n > 0 ? n : 0] = '\0';
}

static void
open_tunnel(struct fx *f)
{
    char req[128], got[256];

    snprintf(req, sizeof(req), "CONNECT %s HTTP/1.1\r\n\r\n", f->target);
    client_says(f, req);
    assert_true(f->up >= 0);
    client_got(f, got, sizeof(got));
    assert_non_null(strstr(got, "HTTP/1.1 200 "));
}

static void
test_header_not_in_time_is_408(void **state)
{
    struct fx *f = *state;
    char got[512];

    client_says(f, "CONNECT 127.0.0.1:");
    px__conn_timeout(f->px.conns);
    settle(f);
    client_got(f, got, sizeof(got));
    assert_non_null(strstr(got, "HTTP/1.1 408 "));
    assert_non_null(f->px.conns); /* lingering for the client's close */
    px__conn_timeout(f->px.conns);
    assert_null(f->px.conns);
}

static void
test_tunnel_not_idle_outlives_its_deadline(void **state)
{
    struct fx *f = *state;
    char got[16];

    open_tunnel(f);
    /* twice: the deadline may run out while the timer is pending */
    px__conn_timeout(f->px.conns);
    px__conn_timeout(f->px.conns);
    settle(f);
    assert_non_null(f->px.conns);
    assert_int_equal(send(f->up, "pong", 4, 0), 4);
    settle(f);
    client_got(f, got, sizeof(got));
    assert_string_equal(got, "pong");
}

static void
test_idle_tunnel_is_closed(void **state)
{
    struct fx *f = *state;

    open_tunnel(f);
    f->cfg.idle_timeout = 1e-9; /* idle far longer than that already */
    ev_now_update(f->px.loop);
    px__conn_timeout(f->px.conns);
    assert_null(f->px.conns);
}

/* Splicing: pipes go back to the loop's spares once a direction is
 * empty, and the spares are closed after a quiet while (a quiet proxy
 * holds no pipe: they count against nobody's pipe budget). */
static void
test_spare_pipes_closed_when_quiet(void **state)
{
    struct fx *f = *state;
    char got[16];

    f->px.splice = true;
    f->px.spare_linger = 0.05;
    open_tunnel(f);
    client_says(f, "ping");
    assert_int_equal(recv(f->up, got, sizeof(got), MSG_DONTWAIT), 4);
    assert_true(f->px.nspare >= 1); /* the tunnel holds none */
    assert_true(ev_is_active(&f->px.spare_trim));
    /* the timer, after the quiet while; another ready event may be
     * served first (a slow run, under valgrind), so run until it fired */
    for (int i = 0; i < 100 && ev_is_active(&f->px.spare_trim); i++)
        ev_run(f->px.loop, EVRUN_ONCE);
    assert_int_equal(f->px.nspare, 0);
    assert_false(ev_is_active(&f->px.spare_trim));
    assert_int_equal(send(f->up, "pong", 4, 0), 4); /* a pipe again */
    settle(f);
    client_got(f, got, sizeof(got));
    assert_string_equal(got, "pong");
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_header_not_in_time_is_408, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            test_tunnel_not_idle_outlives_its_deadline, setup, teardown),
        cmocka_unit_test_setup_teardown(test_idle_tunnel_is_closed, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_spare_pipes_closed_when_quiet,
                                        setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
