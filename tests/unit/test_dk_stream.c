/* test_dk_stream.c - streaming replies through the Docker client against
 * the fake daemon: events split across chunk boundaries arrive as whole
 * lines, long lines are refused, logs are demultiplexed, wait-style
 * replies give their headers first, and cancel or free inside a data
 * callback silences the stream.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dk.h"
#include "test_dk_fake.h"

#define MAX_LINES 16

struct t {
    struct ev_loop *loop;
    struct fake_srv *srv;
    struct dk *dk;
    ev_timer watchdog;
    int done, fast_done, headers, headers_before_done;
    enum err_code code;
    long status;
    char msg[256];
    char lines[MAX_LINES][64];
    int nlines;
    int cancel_after; /* cancel the stream after this many lines; 0 never */
    int free_after;   /* dk_free after this many lines; 0 never */
    int request_after;
    struct dk_logs_demux demux;
    char out[128], err[128];
    int exit_code;
};

static const char *const events_split[] = {
    "{\"a\":1}\n{\"b\"", ":2}\n", "{\"c\":3}", "\n{\"d\":4}\r\n", "\n",
    "{\"e\":",           "5}",    NULL,
};

static const char *const events_long[] = { "{\"ok\":1}\n",
                                           "{\"this line\":\"is too long\"}\n",
                                           NULL };

static const char *const wait_body[] = { "{\"Error\":null,\"StatusCode\":3}\n",
                                         NULL };

static const char *const nothing[] = { NULL };

/* Multiplexed logs: err1, out1, out2 cut inside headers and payloads. */
static const char *const logs_chunks[] = {
    "\x02\x00\x00",
    "\x00\x00\x00\x00\x05"
    "er",
    "r1\n\x01\x00\x00\x00\x00\x00\x00\x05out1\n\x01",
    "\x00\x00\x00\x00\x00\x00\x05out2\n",
    NULL,
};
static const size_t logs_chunks_len[] = { 3, 7, 17, 12 };

static void
fake_handler(struct fake_conn *c, const struct fake_http *h, void *arg)
{
    const char *p = h->path;

    (void)arg;
    if (strcmp(p, "/v1.41/events?split") == 0)
        fake_stream(c, "application/json", events_split, NULL, 1);
    else if (strcmp(p, "/v1.41/events?long") == 0)
        fake_stream(c, "application/json", events_long, NULL, 1);
    else if (strcmp(p, "/v1.41/events?open") == 0)
        fake_stream(c, "application/json", events_split, NULL, 0);
    else if (strcmp(p, "/v1.41/events?quiet") == 0)
        fake_stream(c, "application/json", nothing, NULL, 0);
    else if (strcmp(p, "/v1.41/events?fail") == 0)
        fake_reply(c, 500, "Internal Server Error", "application/json",
                   "{\"message\":\"events broke\"}", 26);
    else if (strcmp(p, "/v1.41/containers/c1/logs?follow=1") == 0)
        fake_stream(c, "application/vnd.docker.raw-stream", logs_chunks,
                    logs_chunks_len, 1);
    else if (strcmp(p, "/v1.41/containers/c1/wait") == 0)
        fake_stream(c, "application/json", wait_body, NULL, 1);
    else
        fake_reply(c, 200, "OK", "application/json", "{}", 2);
}

static void
t_on_watchdog(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)loop;
    (void)w;
    (void)revents;
    fail_msg("test did not finish");
}

static void
t_init(struct t *t)
{
    struct err e = { 0 };

    memset(t, 0, sizeof(*t));
    t->loop = ev_loop_new(EVFLAG_AUTO);
    t->srv = fake_start(t->loop, fake_handler, t);
    assert_non_null(t->srv);
    t->dk = dk_new(t->loop, fake_url(t->srv), &e);
    assert_non_null(t->dk);
    ev_timer_init(&t->watchdog, t_on_watchdog, 20., 0.);
    ev_timer_start(t->loop, &t->watchdog);
    dk_logs_demux_init(&t->demux);
}

static void
t_cleanup(struct t *t)
{
    dk_free(t->dk);
    fake_stop(t->srv);
    ev_timer_stop(t->loop, &t->watchdog);
    ev_loop_destroy(t->loop);
}

static void
t_run_until(struct t *t, const int *counter, int want)
{
    while (*counter < want)
        ev_run(t->loop, EVRUN_ONCE);
}

static void
on_done(struct dk_req *req, struct dk_response *r, void *arg)
{
    struct t *t = arg;

    (void)req;
    t->done++;
    t->status = r->status;
    t->code = r->err != NULL ? r->err->code : ERR_OK;
    snprintf(t->msg, sizeof(t->msg), "%s", r->err ? r->err->msg : "");
    if (cJSON_IsNumber(cJSON_GetObjectItem(r->json, "StatusCode")))
        t->exit_code = cJSON_GetObjectItem(r->json, "StatusCode")->valueint;
}

static void
on_fast_done(struct dk_req *req, struct dk_response *r, void *arg)
{
    struct t *t = arg;

    (void)req;
    assert_null(r->err);
    t->fast_done++;
}

static void
on_line(struct dk_req *req, const char *data, size_t len, void *arg)
{
    struct t *t = arg;
    struct err e = { 0 };

    assert_true(t->nlines < MAX_LINES);
    assert_int_equal(strlen(data), len); /* NUL-terminated, no "\n" */
    snprintf(t->lines[t->nlines++], sizeof(t->lines[0]), "%s", data);
    if (t->nlines == t->request_after)
        assert_non_null(dk_get(t->dk, "/fast", on_fast_done, t, &e));
    if (t->nlines == t->cancel_after)
        dk_cancel(req);
    if (t->nlines == t->free_after) {
        dk_free(t->dk);
        t->dk = NULL;
    }
}

static struct dk_req *
start_events(struct t *t, const char *path, size_t max_line)
{
    struct dk_request_opts o = {
        .path = path,
        .stream = DK_STREAM_LINES,
        .on_data = on_line,
        .max_line = max_line,
    };
    struct err e = { 0 };
    struct dk_req *req = dk_request(t->dk, &o, on_done, t, &e);

    assert_non_null(req);
    return req;
}

static void
test_dk_events_split_across_chunks_arrive_as_whole_lines(void **state)
{
    struct t t;

    (void)state;
    t_init(&t);
    start_events(&t, "/events?split", 0);
    t_run_until(&t, &t.done, 1);
    assert_int_equal(t.code, ERR_OK);
    assert_int_equal(t.status, 200);
    assert_int_equal(t.nlines, 5); /* the empty line is skipped */
    assert_string_equal(t.lines[0], "{\"a\":1}");
    assert_string_equal(t.lines[1], "{\"b\":2}");
    assert_string_equal(t.lines[2], "{\"c\":3}");
    assert_string_equal(t.lines[3], "{\"d\":4}");
    assert_string_equal(t.lines[4], "{\"e\":5}"); /* unterminated last */
    t_cleanup(&t);
}

static void
test_dk_events_line_over_cap_ends_stream_with_limit(void **state)
{
    struct t t;

    (void)state;
    t_init(&t);
    start_events(&t, "/events?long", 16);
    t_run_until(&t, &t.done, 1);
    assert_int_equal(t.code, ERR_LIMIT);
    assert_string_equal(t.msg, "GET /events: stream line too long");
    assert_int_equal(t.nlines, 1);
    assert_string_equal(t.lines[0], "{\"ok\":1}");
    t_cleanup(&t);
}

static void
test_dk_events_http_error_is_reported_not_streamed(void **state)
{
    struct t t;

    (void)state;
    t_init(&t);
    start_events(&t, "/events?fail", 0);
    t_run_until(&t, &t.done, 1);
    assert_int_equal(t.code, ERR_REMOTE);
    assert_int_equal(t.status, 500);
    assert_string_equal(t.msg, "GET /events: 500 Internal Server Error: "
                               "events broke");
    assert_int_equal(t.nlines, 0);
    t_cleanup(&t);
}

static void
test_dk_cancel_inside_data_callback_silences_stream(void **state)
{
    struct t t;
    struct err e = { 0 };
    struct dk_stats st;

    (void)state;
    t_init(&t);
    t.cancel_after = 2;
    start_events(&t, "/events?open", 0);
    t_run_until(&t, &t.nlines, 2);
    /* The server keeps sending; round trips prove the loop moved on. */
    assert_non_null(dk_get(t.dk, "/fast", on_fast_done, &t, &e));
    t_run_until(&t, &t.fast_done, 1);
    while (fake_open_conns(t.srv) > 0)
        ev_run(t.loop, EVRUN_ONCE); /* the client hung up on the stream */
    assert_int_equal(t.nlines, 2);
    assert_int_equal(t.done, 0);
    dk_stats(t.dk, &st);
    assert_int_equal(st.cancelled, 1);
    assert_int_equal(st.in_flight, 0);
    t_cleanup(&t);
}

static void
test_dk_daemon_gone_mid_stream_is_unavailable(void **state)
{
    struct t t;
    struct err e = { 0 };
    struct dk_stats st;

    (void)state;
    t_init(&t);
    start_events(&t, "/events?open", 0);
    t_run_until(&t, &t.nlines, 4); /* the 5th has no "\n" yet */
    fake_stop(t.srv); /* the daemon goes away: stream cut, socket gone */
    t.srv = NULL;
    t_run_until(&t, &t.done, 1);
    assert_int_equal(t.code, ERR_UNAVAIL);
    assert_non_null(strstr(t.msg, "GET /events: connection to Docker lost"));
    assert_non_null(dk_get(t.dk, "/fast", on_done, &t, &e));
    t_run_until(&t, &t.done, 2);
    assert_int_equal(t.code, ERR_UNAVAIL);
    assert_non_null(strstr(t.msg, "cannot reach Docker"));
    assert_int_equal(t.nlines, 4); /* a cut line is not delivered */
    dk_stats(t.dk, &st);
    assert_int_equal(st.transport, 2);
    assert_int_equal(st.in_flight, 0);
    t_cleanup(&t);
}

static void
test_dk_request_started_inside_data_callback_completes(void **state)
{
    struct t t;

    (void)state;
    t_init(&t);
    t.request_after = 1;
    start_events(&t, "/events?split", 0);
    t_run_until(&t, &t.done, 1);
    t_run_until(&t, &t.fast_done, 1);
    assert_int_equal(t.nlines, 5);
    t_cleanup(&t);
}

static void
test_dk_free_inside_data_callback_stops_everything(void **state)
{
    struct t t;

    (void)state;
    t_init(&t);
    t.free_after = 1;
    start_events(&t, "/events?open", 0);
    t_run_until(&t, &t.nlines, 1);
    assert_null(t.dk);
    while (fake_open_conns(t.srv) > 0)
        ev_run(t.loop, EVRUN_ONCE);
    assert_int_equal(t.nlines, 1);
    assert_int_equal(t.done, 0);
    t_cleanup(&t);
}

static void
test_dk_idle_stream_times_out(void **state)
{
    struct t t;
    struct dk_request_opts o = {
        .path = "/events?quiet",
        .stream = DK_STREAM_LINES,
        .on_data = on_line,
        .idle_timeout_ms = 200,
    };
    struct err e = { 0 };

    (void)state;
    t_init(&t);
    assert_non_null(dk_request(t.dk, &o, on_done, &t, &e));
    t_run_until(&t, &t.done, 1);
    assert_int_equal(t.code, ERR_TIMEOUT);
    assert_int_equal(t.status, 200);
    assert_string_equal(t.msg, "GET /events: no data from Docker for 200 ms");
    t_cleanup(&t);
}

static void
test_dk_idle_timer_is_reset_by_data(void **state)
{
    struct t t;
    struct dk_request_opts o = {
        .path = "/events?split",
        .stream = DK_STREAM_LINES,
        .on_data = on_line,
        .idle_timeout_ms = 5000, /* chunks come every few ms */
    };
    struct err e = { 0 };

    (void)state;
    t_init(&t);
    assert_non_null(dk_request(t.dk, &o, on_done, &t, &e));
    t_run_until(&t, &t.done, 1);
    assert_int_equal(t.code, ERR_OK);
    assert_int_equal(t.nlines, 5);
    t_cleanup(&t);
}

static void
on_log_bytes(int stream, const char *data, size_t len, void *arg)
{
    struct t *t = arg;
    char *dst = stream == 2 ? t->err : t->out;

    strncat(dst, data, len);
}

static void
on_raw(struct dk_req *req, const char *data, size_t len, void *arg)
{
    struct t *t = arg;
    struct err e = { 0 };

    (void)req;
    assert_int_equal(
        dk_logs_demux_feed(&t->demux, data, len, on_log_bytes, t, &e), 0);
}

static void
test_dk_logs_stream_demultiplexes(void **state)
{
    struct t t;
    struct err e = { 0 };

    (void)state;
    t_init(&t);
    assert_non_null(dk_stream(t.dk, "/containers/c1/logs?follow=1",
                              DK_STREAM_RAW, on_raw, on_done, &t, &e));
    t_run_until(&t, &t.done, 1);
    assert_int_equal(t.code, ERR_OK);
    assert_int_equal(dk_logs_demux_end(&t.demux, &e), 0);
    assert_string_equal(t.out, "out1\nout2\n");
    assert_string_equal(t.err, "err1\n");
    t_cleanup(&t);
}

static void
on_headers(struct dk_req *req, long status, void *arg)
{
    struct t *t = arg;

    (void)req;
    assert_int_equal(status, 200);
    t->headers++;
    t->headers_before_done = t->done == 0;
}

static void
test_dk_wait_gives_headers_then_exit_code(void **state)
{
    struct t t;
    struct dk_request_opts o = {
        .method = "POST",
        .path = "/containers/c1/wait",
        .timeout_ms = DK_NO_TIMEOUT,
        .on_headers = on_headers,
    };
    struct err e = { 0 };

    (void)state;
    t_init(&t);
    assert_non_null(dk_request(t.dk, &o, on_done, &t, &e));
    t_run_until(&t, &t.done, 1);
    assert_int_equal(t.headers, 1);
    assert_true(t.headers_before_done);
    assert_int_equal(t.code, ERR_OK);
    assert_int_equal(t.exit_code, 3);
    t_cleanup(&t);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(
            test_dk_events_split_across_chunks_arrive_as_whole_lines),
        cmocka_unit_test(test_dk_events_line_over_cap_ends_stream_with_limit),
        cmocka_unit_test(test_dk_events_http_error_is_reported_not_streamed),
        cmocka_unit_test(test_dk_cancel_inside_data_callback_silences_stream),
        cmocka_unit_test(test_dk_daemon_gone_mid_stream_is_unavailable),
        cmocka_unit_test(
            test_dk_request_started_inside_data_callback_completes),
        cmocka_unit_test(test_dk_free_inside_data_callback_stops_everything),
        cmocka_unit_test(test_dk_idle_stream_times_out),
        cmocka_unit_test(test_dk_idle_timer_is_reset_by_data),
        cmocka_unit_test(test_dk_logs_stream_demultiplexes),
        cmocka_unit_test(test_dk_wait_gives_headers_then_exit_code),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
