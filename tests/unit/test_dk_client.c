/* test_dk_client.c - the Docker client against a fake Engine API server on
 * the same ev_loop: version negotiation, error mapping, caps, deadlines,
 * an absent daemon, cancellation, concurrency and responsiveness.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cmocka.h>

#include "dk.h"
#include "test_dk_fake.h"

/* One test's world: a loop, the fake daemon, the client, and what the
 * callbacks saw. */
struct t {
    struct ev_loop *loop;
    struct fake_srv *srv;
    struct dk *dk;
    ev_timer watchdog;
    const char *version_json;
    int done; /* done callbacks run */
    long status;
    enum err_code code;
    char msg[256];
    char body[256];
    int has_json;
};

static void
t_on_watchdog(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)loop;
    (void)w;
    (void)revents;
    fail_msg("test did not finish: the loop went idle or hung");
}

static void fake_handler(struct fake_conn *c, const struct fake_http *h,
                         void *arg);

static void
t_init(struct t *t, const char *url)
{
    struct err e = { 0 };

    memset(t, 0, sizeof(*t));
    t->loop = ev_loop_new(EVFLAG_AUTO);
    assert_non_null(t->loop);
    t->srv = fake_start(t->loop, fake_handler, t);
    assert_non_null(t->srv);
    t->dk = dk_new(t->loop, url != NULL ? url : fake_url(t->srv), &e);
    assert_non_null(t->dk);
    /* Not a timed assertion: only stops a broken test from hanging. */
    ev_timer_init(&t->watchdog, t_on_watchdog, 20., 0.);
    ev_timer_start(t->loop, &t->watchdog);
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
    snprintf(t->body, sizeof(t->body), "%s", r->body);
    t->has_json = r->json != NULL;
    assert_int_equal(r->body[r->len], '\0');
}

static const char big_body[] = "[\"0123456789abcdef0123456789abcdef\"]";

static void
fake_echo(struct fake_conn *c, const struct fake_http *h)
{
    char out[1024];
    int n = snprintf(out, sizeof(out),
                     "{\"method\":\"%s\",\"path\":\"%s\",\"ct\":\"%s\","
                     "\"len\":%zu}",
                     h->method, h->path, h->content_type, h->body_len);

    fake_reply(c, 200, "OK", "application/json", out, (size_t)n);
}

static void
fake_handler(struct fake_conn *c, const struct fake_http *h, void *arg)
{
    struct t *t = arg;
    const char *p = h->path;
    static const char conflict[] =
        "{\"message\":\"Conflict. The container name \\\"/x\\\" is already "
        "in use by container \\\"abc\\\".\"}\n";
    static const char missing[] =
        "{\"message\":\"No such container: missing\"}\n";

    if (strcmp(p, "/version") == 0)
        fake_reply(c, 200, "OK", "application/json", t->version_json,
                   strlen(t->version_json));
    else if (strncmp(p, "/v1.41/containers/create", 24) == 0)
        fake_reply(c, 409, "Conflict", "application/json", conflict,
                   sizeof(conflict) - 1);
    else if (strcmp(p, "/v1.41/containers/missing/json") == 0)
        fake_reply(c, 404, "Not Found", "application/json", missing,
                   sizeof(missing) - 1);
    else if (strcmp(p, "/v1.41/boom") == 0)
        fake_reply(c, 500, "Internal Server Error", "text/plain",
                   "boom happened\nmore\n", 19);
    else if (strcmp(p, "/v1.41/big") == 0)
        fake_reply(c, 200, "OK", "application/json", big_body,
                   sizeof(big_body) - 1);
    else if (strcmp(p, "/v1.41/notjson") == 0)
        fake_reply(c, 200, "OK", "application/json", "{bad", 4);
    else if (strcmp(p, "/v1.41/fast") == 0)
        fake_reply(c, 200, "OK", "application/json", "{\"ok\":true}", 11);
    else if (strcmp(p, "/v1.41/garbage") == 0)
        fake_write(c, "SSH-2.0-nope\r\n\r\n", 16);
    else if (strcmp(p, "/v1.41/stall") == 0)
        ; /* never answer */
    else if (strncmp(p, "/v1.41/echo", 11) == 0)
        fake_echo(c, h);
    else
        fake_reply(c, 404, "Not Found", "text/plain", "page not found", 14);
}

/* --- construction ------------------------------------------------- */

static void
test_dk_new_refuses_tcp_and_relative_urls(void **state)
{
    struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
    struct err e = { 0 };

    (void)state;
    assert_null(dk_new(loop, "tcp://127.0.0.1:2375", &e));
    assert_int_equal(e.code, ERR_INVALID);
    assert_non_null(strstr(e.msg, "only unix://"));
    assert_non_null(strstr(e.msg, "tcp://127.0.0.1:2375"));
    assert_null(dk_new(loop, "unix://relative.sock", &e));
    assert_int_equal(e.code, ERR_INVALID);
    ev_loop_destroy(loop);
}

static void
test_dk_new_honours_docker_host_unless_url_given(void **state)
{
    struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
    struct err e = { 0 };
    struct dk *dk;

    (void)state;
    setenv("DOCKER_HOST", "unix:///run/other.sock", 1);
    dk = dk_new(loop, NULL, &e);
    assert_non_null(dk);
    assert_string_equal(dk_socket_path(dk), "/run/other.sock");
    dk_free(dk);
    dk = dk_new(loop, "unix:///run/explicit.sock", &e);
    assert_non_null(dk);
    assert_string_equal(dk_socket_path(dk), "/run/explicit.sock");
    dk_free(dk);
    setenv("DOCKER_HOST", "tcp://10.0.0.1:2375", 1);
    assert_null(dk_new(loop, NULL, &e));
    assert_non_null(strstr(e.msg, "DOCKER_HOST"));
    unsetenv("DOCKER_HOST");
    dk = dk_new(loop, NULL, &e);
    assert_non_null(dk);
    assert_string_equal(dk_socket_path(dk), "/var/run/docker.sock");
    dk_free(dk);
    ev_loop_destroy(loop);
}

/* --- version ------------------------------------------------------ */

static void
negotiate_with(struct t *t, const char *json)
{
    struct err e = { 0 };

    t->version_json = json;
    assert_int_equal(dk_negotiate(t->dk, on_done, t, &e), 0);
    assert_int_equal(t->done, 0); /* never before start returns */
    t_run_until(t, &t->done, 1);
}

static void
test_dk_negotiate_accepts_daemon_speaking_1_41(void **state)
{
    struct t t;

    (void)state;
    t_init(&t, NULL);
    assert_null(dk_api_version(t.dk));
    negotiate_with(&t, "{\"ApiVersion\":\"1.41\",\"MinAPIVersion\":\"1.12\"}");
    assert_int_equal(t.code, ERR_OK);
    assert_true(t.has_json);
    assert_string_equal(dk_api_version(t.dk), "1.41");
    t_cleanup(&t);

    t_init(&t, NULL); /* a newer daemon that still serves 1.41 */
    negotiate_with(&t, "{\"ApiVersion\":\"1.43\",\"MinAPIVersion\":\"1.12\"}");
    assert_int_equal(t.code, ERR_OK);
    t_cleanup(&t);
}

static void
test_dk_negotiate_refuses_too_old_and_too_new(void **state)
{
    struct t t;

    (void)state;
    t_init(&t, NULL);
    negotiate_with(&t, "{\"ApiVersion\":\"1.40\",\"MinAPIVersion\":\"1.12\"}");
    assert_int_equal(t.code, ERR_INVALID);
    assert_non_null(strstr(t.msg, "speaks API 1.40"));
    assert_null(dk_api_version(t.dk));
    t_cleanup(&t);

    t_init(&t, NULL);
    negotiate_with(&t, "{\"ApiVersion\":\"1.45\",\"MinAPIVersion\":\"1.42\"}");
    assert_int_equal(t.code, ERR_INVALID);
    assert_non_null(strstr(t.msg, "minimum 1.42"));
    t_cleanup(&t);

    t_init(&t, NULL);
    negotiate_with(&t, "{\"Version\":\"20.10\"}");
    assert_int_equal(t.code, ERR_SYNTAX);
    t_cleanup(&t);
}

/* --- requests and errors ------------------------------------------ */

static void
test_dk_post_json_prefixes_version_and_sends_body(void **state)
{
    struct t t;
    struct err e = { 0 };
    cJSON *body = cJSON_CreateObject();

    (void)state;
    t_init(&t, NULL);
    cJSON_AddStringToObject(body, "Name", "x");
    assert_non_null(dk_post_json(t.dk, "/echo?name=x", body, on_done, &t, &e));
    cJSON_Delete(body); /* the request holds its own copy */
    t_run_until(&t, &t.done, 1);
    assert_int_equal(t.code, ERR_OK);
    assert_int_equal(t.status, 200);
    assert_string_equal(t.body,
                        "{\"method\":\"POST\",\"path\":\"/v1.41/echo?name=x\","
                        "\"ct\":\"application/json\",\"len\":12}");
    t_cleanup(&t);
}

static void
test_dk_put_tar_and_delete_use_their_methods(void **state)
{
    struct t t;
    struct err e = { 0 };

    (void)state;
    t_init(&t, NULL);
    assert_non_null(dk_put_tar(t.dk, "/echo/archive?path=%2Fwork", "TARBYTES",
                               8, on_done, &t, &e));
    t_run_until(&t, &t.done, 1);
    assert_string_equal(t.body, "{\"method\":\"PUT\",\"path\":\"/v1.41/echo/"
                                "archive?path=%2Fwork\",\"ct\":\"application/"
                                "x-tar\",\"len\":8}");
    assert_non_null(dk_delete(t.dk, "/echo/v?force=1", on_done, &t, &e));
    t_run_until(&t, &t.done, 2);
    assert_string_equal(t.body, "{\"method\":\"DELETE\",\"path\":\"/v1.41/echo/"
                                "v?force=1\",\"ct\":\"\",\"len\":0}");
    t_cleanup(&t);
}

static void
expect_error(struct t *t, const char *method, const char *path, long status,
             enum err_code code, const char *msg)
{
    struct dk_request_opts o = { .method = method, .path = path };
    struct err e = { 0 };
    int want = t->done + 1;

    assert_non_null(dk_request(t->dk, &o, on_done, t, &e));
    t_run_until(t, &t->done, want);
    assert_int_equal(t->status, status);
    assert_int_equal(t->code, code);
    assert_string_equal(t->msg, msg);
}

static void
test_dk_http_errors_carry_status_and_daemon_message(void **state)
{
    struct t t;
    struct dk_stats st;

    (void)state;
    t_init(&t, NULL);
    expect_error(&t, "POST", "/containers/create?name=x", 409, ERR_CONFLICT,
                 "POST /containers/create: 409 Conflict: Conflict. The "
                 "container name \"/x\" is already in use by container "
                 "\"abc\".");
    assert_true(t.has_json); /* the error body is handed over too */
    expect_error(&t, "GET", "/containers/missing/json", 404, ERR_NOTFOUND,
                 "GET /containers/missing/json: 404 Not Found: No such "
                 "container: missing");
    expect_error(&t, "GET", "/boom", 500, ERR_REMOTE,
                 "GET /boom: 500 Internal Server Error: boom happened");
    expect_error(&t, "GET", "/notjson", 200, ERR_SYNTAX,
                 "GET /notjson: reply is not valid JSON");
    dk_stats(t.dk, &st);
    assert_int_equal(st.http_4xx, 2);
    assert_int_equal(st.http_5xx, 1);
    assert_int_equal(st.transport, 1);
    assert_int_equal(st.ok, 0);
    assert_int_equal(st.in_flight, 0);
    t_cleanup(&t);
}

static void
test_dk_garbage_reply_is_syntax_error(void **state)
{
    struct t t;
    struct dk_request_opts o = { .path = "/garbage" };
    struct err e = { 0 };

    (void)state;
    t_init(&t, NULL);
    assert_non_null(dk_request(t.dk, &o, on_done, &t, &e));
    t_run_until(&t, &t.done, 1);
    assert_int_not_equal(t.code, ERR_OK);
    assert_int_equal(t.status, 0);
    t_cleanup(&t);
}

static void
test_dk_body_over_cap_is_limit_and_at_cap_is_ok(void **state)
{
    struct t t;
    struct dk_request_opts o = { .path = "/big" };
    struct err e = { 0 };

    (void)state;
    t_init(&t, NULL);
    o.max_body = sizeof(big_body) - 2; /* one byte short */
    assert_non_null(dk_request(t.dk, &o, on_done, &t, &e));
    t_run_until(&t, &t.done, 1);
    assert_int_equal(t.code, ERR_LIMIT);
    assert_string_equal(t.msg, "GET /big: reply body too large");
    o.max_body = sizeof(big_body) - 1; /* negative control: exactly fits */
    assert_non_null(dk_request(t.dk, &o, on_done, &t, &e));
    t_run_until(&t, &t.done, 2);
    assert_int_equal(t.code, ERR_OK);
    assert_string_equal(t.body, big_body);
    t_cleanup(&t);
}

static void
test_dk_request_past_deadline_is_timeout(void **state)
{
    struct t t;
    struct dk_request_opts o = { .path = "/stall", .timeout_ms = 100 };
    struct err e = { 0 };
    struct dk_stats st;

    (void)state;
    t_init(&t, NULL);
    assert_non_null(dk_request(t.dk, &o, on_done, &t, &e));
    t_run_until(&t, &t.done, 1);
    assert_int_equal(t.code, ERR_TIMEOUT);
    assert_int_equal(t.status, 0);
    assert_non_null(strstr(t.msg, "GET /stall: "));
    dk_stats(t.dk, &st);
    assert_int_equal(st.timeout, 1);
    t_cleanup(&t);
}

static void
test_dk_absent_daemon_is_unavailable(void **state)
{
    struct t t;
    struct err e = { 0 };
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    char dir[] = "/tmp/dkdead.XXXXXX", url[128];
    int fd;

    (void)state;
    /* No socket file at all: ENOENT. */
    t_init(&t, "unix:///nonexistent/agentctl-test/docker.sock");
    assert_non_null(dk_get(t.dk, "/_ping", on_done, &t, &e));
    t_run_until(&t, &t.done, 1);
    assert_int_equal(t.code, ERR_UNAVAIL);
    assert_string_equal(t.msg,
                        "GET /_ping: cannot reach Docker at "
                        "/nonexistent/agentctl-test/docker.sock: No such "
                        "file or directory");
    t_cleanup(&t);

    /* A socket file nobody listens on: ECONNREFUSED. */
    assert_non_null(mkdtemp(dir));
    snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/docker.sock", dir);
    fd = socket(AF_UNIX, SOCK_STREAM, 0);
    assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
    close(fd);
    snprintf(url, sizeof(url), "unix://%s", sa.sun_path);
    t_init(&t, url);
    assert_non_null(dk_get(t.dk, "/_ping", on_done, &t, &e));
    t_run_until(&t, &t.done, 1);
    assert_int_equal(t.code, ERR_UNAVAIL);
    assert_non_null(strstr(t.msg, "Connection refused"));
    t_cleanup(&t);
    unlink(sa.sun_path);
    rmdir(dir);
}

static void
test_dk_bad_options_fail_at_start_without_callback(void **state)
{
    struct t t;
    struct err e = { 0 };
    struct dk_request_opts o = { .path = "/a b" };

    (void)state;
    t_init(&t, NULL);
    assert_null(dk_request(t.dk, &o, on_done, &t, &e));
    assert_int_equal(e.code, ERR_INVALID);
    o.path = "relative";
    assert_null(dk_request(t.dk, &o, on_done, &t, &e));
    o.path = "/x";
    o.method = "PATCH";
    assert_null(dk_request(t.dk, &o, on_done, &t, &e));
    o.method = NULL;
    o.stream = DK_STREAM_LINES; /* no on_data */
    assert_null(dk_request(t.dk, &o, on_done, &t, &e));
    /* The client still works and no callback ran for the failures. */
    assert_non_null(dk_get(t.dk, "/fast", on_done, &t, &e));
    t_run_until(&t, &t.done, 1);
    assert_int_equal(t.done, 1);
    assert_int_equal(t.code, ERR_OK);
    assert_int_equal(fake_requests(t.srv), 1);
    t_cleanup(&t);
}

/* --- cancellation, concurrency, responsiveness -------------------- */

static void
on_done_must_not_run(struct dk_req *req, struct dk_response *r, void *arg)
{
    (void)req;
    (void)r;
    (void)arg;
    fail_msg("callback ran after cancel");
}

static void
test_dk_cancel_prevents_the_callback(void **state)
{
    struct t t;
    struct err e = { 0 };
    struct dk_req *a, *b;
    struct dk_stats st;
    struct dk_request_opts o = { .path = "/stall" };

    (void)state;
    t_init(&t, NULL);
    a = dk_get(t.dk, "/fast", on_done_must_not_run, &t, &e);
    dk_cancel(a); /* before the loop ever ran */
    b = dk_request(t.dk, &o, on_done_must_not_run, &t, &e);
    assert_non_null(b);
    /* Let the stalled request reach the server, then cancel it. */
    assert_non_null(dk_get(t.dk, "/fast", on_done, &t, &e));
    t_run_until(&t, &t.done, 1);
    while (fake_requests(t.srv) < 2)
        ev_run(t.loop, EVRUN_ONCE);
    dk_cancel(b);
    /* Another round trip: the cancelled ones stay silent. */
    assert_non_null(dk_get(t.dk, "/fast", on_done, &t, &e));
    t_run_until(&t, &t.done, 2);
    dk_stats(t.dk, &st);
    assert_int_equal(st.cancelled, 2);
    assert_int_equal(st.ok, 2);
    assert_int_equal(st.in_flight, 0);
    t_cleanup(&t);
}

#define MANY 64

static void
test_dk_many_concurrent_requests_all_complete(void **state)
{
    struct t t;
    struct err e = { 0 };
    struct dk_stats st;
    int i;

    (void)state;
    t_init(&t, NULL);
    for (i = 0; i < MANY; i++)
        assert_non_null(dk_get(t.dk, "/fast", on_done, &t, &e));
    dk_stats(t.dk, &st);
    assert_int_equal(st.in_flight, MANY);
    t_run_until(&t, &t.done, MANY);
    dk_stats(t.dk, &st);
    assert_int_equal(st.ok, MANY);
    assert_int_equal(st.in_flight, 0);
    assert_int_equal(fake_requests(t.srv), MANY);
    t_cleanup(&t);
}

struct stalled {
    int done;
};

static void
on_stalled_done(struct dk_req *req, struct dk_response *r, void *arg)
{
    struct stalled *s = arg;

    (void)req;
    (void)r;
    s->done++;
}

static void
test_dk_stalled_request_does_not_block_others(void **state)
{
    struct t t;
    struct err e = { 0 };
    struct stalled s = { 0 };
    struct dk_request_opts o = { .path = "/stall",
                                 .timeout_ms = DK_NO_TIMEOUT };
    int i;

    (void)state;
    t_init(&t, NULL);
    assert_non_null(dk_request(t.dk, &o, on_stalled_done, &s, &e));
    for (i = 1; i <= 5; i++) {
        assert_non_null(dk_get(t.dk, "/fast", on_done, &t, &e));
        t_run_until(&t, &t.done, i);
        assert_int_equal(t.code, ERR_OK);
    }
    assert_int_equal(s.done, 0); /* still waiting, and nobody else was */
    t_cleanup(&t);               /* dk_free cancels it silently */
    assert_int_equal(s.done, 0);
}

/* At most DK_MAX_QUICK quick requests reach the daemon at once: with
 * every slot held by a stalled request, more quick ones wait in the
 * client (the daemon never sees them) while a wait for an exit still
 * goes; the slots given back (cancels) let them through. Without the cap
 * the daemon sees all of them at once (the first check fails). */
static void
test_dk_quick_requests_beyond_the_cap_wait_their_turn(void **state)
{
    struct t t;
    struct err e = { 0 };
    struct dk_req *stalled[DK_MAX_QUICK];
    struct dk_request_opts stall = { .path = "/stall" };
    struct dk_request_opts wait = { .method = "POST",
                                    .path = "/fast",
                                    .waits = true };
    struct dk_stats st;
    int i;

    (void)state;
    t_init(&t, NULL);
    for (i = 0; i < DK_MAX_QUICK; i++) {
        stalled[i] = dk_request(t.dk, &stall, on_done_must_not_run, &t, &e);
        assert_non_null(stalled[i]);
    }
    while (fake_requests(t.srv) < DK_MAX_QUICK)
        ev_run(t.loop, EVRUN_ONCE);
    for (i = 0; i < 4; i++)
        assert_non_null(dk_get(t.dk, "/fast", on_done, &t, &e));
    assert_non_null(dk_request(t.dk, &wait, on_done, &t, &e));
    t_run_until(&t, &t.done, 1); /* the wait, past the queue */
    fake_pause(t.loop);
    assert_int_equal(fake_requests(t.srv), DK_MAX_QUICK + 1);
    assert_int_equal(t.done, 1);
    dk_stats(t.dk, &st);
    assert_int_equal(st.in_flight, DK_MAX_QUICK + 4);
    for (i = 0; i < DK_MAX_QUICK; i++)
        dk_cancel(stalled[i]);
    t_run_until(&t, &t.done, 5);
    assert_int_equal(fake_requests(t.srv), DK_MAX_QUICK + 5);
    dk_stats(t.dk, &st);
    assert_int_equal(st.in_flight, 0);
    t_cleanup(&t);
}

struct freer {
    struct dk *dk;
    int done;
};

static void
test_dk_hold_keeps_requests_until_their_mark_is_let_go(void **state)
{
    struct t t;
    struct err e = { 0 };
    struct dk_req *cancelled;
    unsigned first;

    (void)state;
    t_init(&t, NULL);
    dk_hold(t.dk, true);
    assert_non_null(dk_get(t.dk, "/echo/a", on_done, &t, &e));
    cancelled = dk_get(t.dk, "/echo/c", on_done_must_not_run, &t, &e);
    assert_non_null(cancelled);
    first = dk_hold_cut(t.dk);
    assert_non_null(dk_get(t.dk, "/echo/b", on_done, &t, &e));
    dk_cancel(cancelled);
    assert_int_equal(dk_held(t.dk), 2);
    fake_pause(t.loop);
    assert_int_equal(fake_requests(t.srv), 0); /* nothing left while held */
    assert_int_equal(t.done, 0);

    dk_hold_release(t.dk, first); /* a, not b: b was made after the cut */
    t_run_until(&t, &t.done, 1);
    assert_non_null(strstr(t.body, "/v1.41/echo/a"));
    fake_pause(t.loop);
    assert_int_equal(fake_requests(t.srv), 1);
    assert_int_equal(dk_held(t.dk), 1);

    dk_hold(t.dk, false); /* off: the rest go */
    t_run_until(&t, &t.done, 2);
    assert_non_null(strstr(t.body, "/v1.41/echo/b"));
    assert_int_equal(fake_requests(t.srv), 2);
    assert_int_equal(dk_held(t.dk), 0);
    t_cleanup(&t);
}

static void
on_done_frees_client(struct dk_req *req, struct dk_response *r, void *arg)
{
    struct freer *f = arg;

    (void)req;
    (void)r;
    f->done++;
    dk_free(f->dk); /* others outstanding: they must stay silent */
}

static void
test_dk_free_inside_callback_cancels_the_rest(void **state)
{
    struct t t;
    struct err e = { 0 };
    struct freer f = { 0 };
    struct dk_request_opts o = { .path = "/stall" };

    (void)state;
    t_init(&t, NULL);
    f.dk = t.dk;
    assert_non_null(dk_request(t.dk, &o, on_done_must_not_run, &t, &e));
    assert_non_null(dk_get(t.dk, "/fast", on_done_frees_client, &f, &e));
    t_run_until(&t, &f.done, 1);
    t.dk = NULL; /* already freed */
    ev_run(t.loop, EVRUN_NOWAIT);
    t_cleanup(&t);
}

static void
test_dk_sync_request_returns_owned_result(void **state)
{
    struct t t;
    struct err e = { 0 };
    struct dk_sync_result res;
    struct dk_request_opts o = { .path = "/containers/missing/json" };

    (void)state;
    t_init(&t, NULL);
    t.version_json = "{\"ApiVersion\":\"1.41\",\"MinAPIVersion\":\"1.12\"}";
    assert_int_equal(dk_sync_negotiate(t.dk, &e), 0);
    o.path = "/fast";
    assert_int_equal(dk_sync_request(t.dk, &o, &res, &e), 0);
    assert_int_equal(res.status, 200);
    assert_string_equal(res.body, "{\"ok\":true}");
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(res.json, "ok")));
    dk_sync_cleanup(&res);
    o.path = "/containers/missing/json";
    assert_int_equal(dk_sync_request(t.dk, &o, &res, &e), -1);
    assert_int_equal(res.status, 404);
    assert_int_equal(e.code, ERR_NOTFOUND);
    dk_sync_cleanup(&res);
    t_cleanup(&t);
}

static void
test_dk_query_helpers_escape_filters(void **state)
{
    struct buf b;
    struct err e = { 0 };
    cJSON *f = cJSON_CreateObject();
    cJSON *labels = cJSON_AddArrayToObject(f, "label");

    (void)state;
    cJSON_AddItemToArray(labels,
                         cJSON_CreateString("agentctl.dev/managed-by=x"));
    buf_init(&b, 1024);
    assert_int_equal(buf_puts(&b, "/containers/json", &e), 0);
    assert_int_equal(dk_query_add(&b, "all", "1", &e), 0);
    assert_int_equal(dk_query_add_json(&b, "filters", f, &e), 0);
    assert_string_equal(b.data,
                        "/containers/json?all=1&filters=%7B%22label%22%3A%5B"
                        "%22agentctl.dev%2Fmanaged-by%3Dx%22%5D%7D");
    buf_cleanup(&b);
    cJSON_Delete(f);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dk_new_refuses_tcp_and_relative_urls),
        cmocka_unit_test(test_dk_new_honours_docker_host_unless_url_given),
        cmocka_unit_test(test_dk_negotiate_accepts_daemon_speaking_1_41),
        cmocka_unit_test(test_dk_negotiate_refuses_too_old_and_too_new),
        cmocka_unit_test(test_dk_post_json_prefixes_version_and_sends_body),
        cmocka_unit_test(test_dk_put_tar_and_delete_use_their_methods),
        cmocka_unit_test(test_dk_http_errors_carry_status_and_daemon_message),
        cmocka_unit_test(test_dk_garbage_reply_is_syntax_error),
        cmocka_unit_test(test_dk_body_over_cap_is_limit_and_at_cap_is_ok),
        cmocka_unit_test(test_dk_request_past_deadline_is_timeout),
        cmocka_unit_test(test_dk_absent_daemon_is_unavailable),
        cmocka_unit_test(test_dk_bad_options_fail_at_start_without_callback),
        cmocka_unit_test(test_dk_cancel_prevents_the_callback),
        cmocka_unit_test(test_dk_many_concurrent_requests_all_complete),
        cmocka_unit_test(test_dk_stalled_request_does_not_block_others),
        cmocka_unit_test(test_dk_quick_requests_beyond_the_cap_wait_their_turn),
        cmocka_unit_test(
            test_dk_hold_keeps_requests_until_their_mark_is_let_go),
        cmocka_unit_test(test_dk_free_inside_callback_cancels_the_rest),
        cmocka_unit_test(test_dk_sync_request_returns_owned_result),
        cmocka_unit_test(test_dk_query_helpers_escape_filters),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
