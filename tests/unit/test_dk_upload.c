/* test_dk_upload.c - a request body streamed from a descriptor
 * (dk_body_stream) against the fake daemon: libcurl's read callback
 * pauses while the descriptor is empty and an ev_io resumes it, the body
 * arrives whole and in order (chunked), and an end hook that refuses
 * aborts the body and fails the request with its error.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "dk.h"
#include "dk_engine.h"
#include "test_dk_fake.h"

#define PIECES     5
#define PIECE_SIZE 70000 /* more than curl's 64 KiB upload buffer */

struct t {
    struct ev_loop *loop;
    struct fake_srv *srv;
    struct dk *dk;
    ev_timer watchdog, feed;
    int sv[2];       /* sv[0]: the body's fd (ours to read), sv[1]: writer */
    int pieces_sent; /* written to sv[1] so far */
    int ends;        /* end hook runs */
    int refuse;      /* the end hook fails the body */
    int handled;     /* requests the fake daemon saw whole */
    size_t got_len;
    int got_ok;      /* the body was the pieces, in order */
    char method[16], ct[128];
    int done;
    enum err_code code;
    char msg[256];
};

static char
piece_byte(int piece, size_t i)
{
    return (char)('a' + (piece * 7 + (int)(i % 13)) % 26);
}

static void
t_on_watchdog(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)loop;
    (void)w;
    (void)revents;
    fail_msg("test did not finish: the loop went idle or hung");
}

/* One piece per timer tick, so the body's fd is empty between them and
 * the transfer has to pause; after the last one, end-of-file. */
static void
t_on_feed(struct ev_loop *loop, ev_timer *w, int revents)
{
    struct t *t = w->data;
    char *p;

    (void)revents;
    if (t->pieces_sent == PIECES) {
        close(t->sv[1]);
        t->sv[1] = -1;
        ev_timer_stop(loop, w);
        return;
    }
    p = malloc(PIECE_SIZE);
    assert_non_null(p);
    for (size_t i = 0; i < PIECE_SIZE; i++)
        p[i] = piece_byte(t->pieces_sent, i);
    /* the socket's buffer takes a piece whole (set below) */
    assert_int_equal(send(t->sv[1], p, PIECE_SIZE, MSG_NOSIGNAL), PIECE_SIZE);
    free(p);
    t->pieces_sent++;
}

static void
fake_handler(struct fake_conn *c, const struct fake_http *h, void *arg)
{
    struct t *t = arg;
    size_t i;

    t->handled++;
    snprintf(t->method, sizeof(t->method), "%s", h->method);
    snprintf(t->ct, sizeof(t->ct), "%s", h->content_type);
    t->got_len = h->body_len;
    t->got_ok = h->body_len == (size_t)PIECES * PIECE_SIZE;
    for (i = 0; t->got_ok && i < h->body_len; i++)
        t->got_ok = h->body[i] == piece_byte((int)(i / PIECE_SIZE),
                                             i % PIECE_SIZE);
    fake_reply(c, 200, "OK", NULL, "", 0);
}

static int
t_end(void *arg, struct err *e)
{
    struct t *t = arg;

    t->ends++;
    if (t->refuse)
        return err_set(e, ERR_CONFLICT, "the tree changed");
    return 0;
}

static void
on_done(struct dk_req *req, struct dk_response *r, void *arg)
{
    struct t *t = arg;

    (void)req;
    t->done++;
    t->code = r->err != NULL ? r->err->code : ERR_OK;
    snprintf(t->msg, sizeof(t->msg), "%s", r->err ? r->err->msg : "");
}

static void
t_init(struct t *t)
{
    struct err e = { 0 };
    int size = 2 * PIECE_SIZE;

    memset(t, 0, sizeof(*t));
    t->loop = ev_loop_new(EVFLAG_AUTO);
    assert_non_null(t->loop);
    t->srv = fake_start(t->loop, fake_handler, t);
    assert_non_null(t->srv);
    t->dk = dk_new(t->loop, fake_url(t->srv), &e);
    assert_non_null(t->dk);
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, t->sv),
                     0);
    assert_int_equal(
        setsockopt(t->sv[1], SOL_SOCKET, SO_SNDBUF, &size, sizeof(size)), 0);
    assert_int_equal(fcntl(t->sv[0], F_SETFL, O_NONBLOCK), 0);
    ev_timer_init(&t->watchdog, t_on_watchdog, 20., 0.);
    ev_timer_start(t->loop, &t->watchdog);
    /* the first piece comes only after the request started: its first
     * read finds nothing */
    ev_timer_init(&t->feed, t_on_feed, 0.02, 0.02);
    t->feed.data = t;
    ev_timer_start(t->loop, &t->feed);
}

static void
t_cleanup(struct t *t)
{
    dk_free(t->dk);
    fake_stop(t->srv);
    ev_timer_stop(t->loop, &t->watchdog);
    ev_timer_stop(t->loop, &t->feed);
    close(t->sv[0]);
    if (t->sv[1] != -1)
        close(t->sv[1]);
    ev_loop_destroy(t->loop);
}

static struct dk_req *
t_put(struct t *t)
{
    struct dk_body_stream src = { .fd = t->sv[0], .end = t_end, .arg = t };
    struct err e = { 0 };
    struct dk_req *req;

    req = dk_container_put_archive_stream(t->dk, "abc", "/work", &src, NULL,
                                          on_done, t, &e);
    assert_non_null(req);
    return req;
}

static void
test_dk_upload_pauses_and_resumes(void **state)
{
    struct t t;

    (void)state;
    t_init(&t);
    t_put(&t);
    while (t.done == 0)
        ev_run(t.loop, EVRUN_ONCE);
    assert_int_equal(t.code, ERR_OK);
    assert_int_equal(t.ends, 1);
    assert_int_equal(t.handled, 1);
    assert_string_equal(t.method, "PUT");
    assert_string_equal(t.ct, "application/x-tar");
    assert_int_equal(t.got_len, (size_t)PIECES * PIECE_SIZE);
    assert_true(t.got_ok);
    t_cleanup(&t);
}

static void
test_dk_upload_end_refuses(void **state)
{
    struct t t;

    (void)state;
    t_init(&t);
    t.refuse = 1;
    t_put(&t);
    while (t.done == 0)
        ev_run(t.loop, EVRUN_ONCE);
    assert_int_equal(t.ends, 1);
    assert_int_equal(t.code, ERR_CONFLICT);
    assert_non_null(strstr(t.msg, "the tree changed"));
    /* the body never ended: the daemon never saw a whole request */
    assert_int_equal(t.handled, 0);
    t_cleanup(&t);
}

static void
t_on_pause(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)loop;
    (void)revents;
    *(int *)w->data = 1;
}

static void
test_dk_upload_cancel_while_paused(void **state)
{
    struct t t;
    struct dk_req *req;
    ev_timer pause;
    int paused = 0;

    (void)state;
    t_init(&t);
    req = t_put(&t);
    while (t.pieces_sent < 2)
        ev_run(t.loop, EVRUN_ONCE);
    dk_cancel(req);
    /* the fd is the caller's again: closing it must not upset the loop */
    ev_timer_stop(t.loop, &t.feed);
    close(t.sv[0]);
    t.sv[0] = open("/dev/null", O_RDONLY | O_CLOEXEC);
    ev_timer_init(&pause, t_on_pause, 0.1, 0.);
    pause.data = &paused;
    ev_timer_start(t.loop, &pause);
    while (!paused)
        ev_run(t.loop, EVRUN_ONCE);
    assert_int_equal(t.done, 0);
    assert_int_equal(t.ends, 0);
    t_cleanup(&t);
}

static void
test_dk_upload_refuses_bad_options(void **state)
{
    struct t t;
    struct dk_body_stream src = { .fd = -1 };
    struct dk_request_opts o = {
        .method = "POST",
        .path = "/x",
        .body_stream = &src,
    };
    struct err e = { 0 };

    (void)state;
    t_init(&t);
    assert_null(dk_request(t.dk, &o, on_done, &t, &e));
    assert_int_equal(e.code, ERR_INVALID);
    t_cleanup(&t);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dk_upload_pauses_and_resumes),
        cmocka_unit_test(test_dk_upload_end_refuses),
        cmocka_unit_test(test_dk_upload_cancel_while_paused),
        cmocka_unit_test(test_dk_upload_refuses_bad_options),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
