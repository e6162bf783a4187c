/* test_ctl_metrics.c - the metrics registry (golden renders, escaping,
 * histogram buckets, caps) and the /metrics + /healthz endpoint, served
 * from a real ev_loop on 127.0.0.1 and asked by a non-blocking client
 * driven by the same loop.
 */
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>
#include <ev.h>

#include "obs_metrics.h"

/* --- registry --------------------------------------------------------- */

static char *
render(struct obs_metrics *m)
{
    struct buf b;
    struct err e = { 0 };

    buf_init(&b, 1 << 20);
    assert_int_equal(buf_puts(&b, "", &e), 0);
    assert_int_equal(obs_metrics_render(m, &b, &e), 0);
    return buf_take(&b);
}

static void
test_render_golden_counter_gauge_histogram(void **state)
{
    static const double bounds[] = { 0.25, 0.5, 1 };
    struct obs_metrics *m = obs_metrics_new();
    struct err e = { 0 };
    struct obs_series *s;
    char *out;

    (void)state;
    assert_non_null(m);
    /* Declared out of order: the render sorts families by name. */
    assert_int_equal(
        obs_metrics_register_histogram(m, "c_seconds", "Lat.", bounds, 3, &e),
        0);
    assert_int_equal(obs_metrics_register(m, CTL_METRIC_COUNTER, "b_total",
                                          "Help \\ with\nnewline.", &e),
                     0);
    assert_int_equal(
        obs_metrics_register(m, CTL_METRIC_GAUGE, "a_gauge", "A gauge.", &e),
        0);
    assert_int_equal(
        obs_metrics_counter_add(m, "b_total", CTL_LABELS("result", "ok"), 2),
        0);
    assert_int_equal(
        obs_metrics_counter_add(m, "b_total", CTL_LABELS("result", "error"), 1),
        0);
    assert_int_equal(
        obs_metrics_counter_add(m, "b_total", CTL_LABELS("result", "ok"), 1),
        0);
    assert_int_equal(obs_metrics_gauge_set(m, "a_gauge", NULL, 0.1), 0);
    s = obs_metrics_series(m, "c_seconds", NULL, &e);
    assert_non_null(s);
    obs_series_observe(s, 0.25); /* le is inclusive */
    obs_series_observe(s, 0.5);
    obs_series_observe(s, 0.75);
    obs_series_observe(s, 2);
    out = render(m);
    assert_string_equal(out, "# HELP a_gauge A gauge.\n"
                             "# TYPE a_gauge gauge\n"
                             "a_gauge 0.1\n"
                             "# HELP b_total Help \\\\ with\\nnewline.\n"
                             "# TYPE b_total counter\n"
                             "b_total{result=\"error\"} 1\n"
                             "b_total{result=\"ok\"} 3\n"
                             "# HELP c_seconds Lat.\n"
                             "# TYPE c_seconds histogram\n"
                             "c_seconds_bucket{le=\"0.25\"} 1\n"
                             "c_seconds_bucket{le=\"0.5\"} 2\n"
                             "c_seconds_bucket{le=\"1\"} 3\n"
                             "c_seconds_bucket{le=\"+Inf\"} 4\n"
                             "c_seconds_sum 3.5\n"
                             "c_seconds_count 4\n");
    free(out);
    obs_metrics_free(m);
}

static void
test_histogram_with_labels_puts_le_last_and_is_cumulative(void **state)
{
    static const double bounds[] = { 1, 10 };
    struct obs_metrics *m = obs_metrics_new();
    char *out;

    (void)state;
    assert_int_equal(
        obs_metrics_register_histogram(m, "h", "H.", bounds, 2, NULL), 0);
    for (int i = 0; i < 5; i++)
        assert_int_equal(
            obs_metrics_observe(m, "h", CTL_LABELS("op", "get"), 0.5), 0);
    assert_int_equal(obs_metrics_observe(m, "h", CTL_LABELS("op", "get"), 20),
                     0);
    /* NaN is not an observation. */
    assert_int_equal(obs_metrics_observe(m, "h", CTL_LABELS("op", "get"), NAN),
                     0);
    out = render(m);
    assert_string_equal(out, "# HELP h H.\n"
                             "# TYPE h histogram\n"
                             "h_bucket{op=\"get\",le=\"1\"} 5\n"
                             "h_bucket{op=\"get\",le=\"10\"} 5\n"
                             "h_bucket{op=\"get\",le=\"+Inf\"} 6\n"
                             "h_sum{op=\"get\"} 22.5\n"
                             "h_count{op=\"get\"} 6\n");
    free(out);
    obs_metrics_free(m);
}

static void
test_label_values_are_escaped(void **state)
{
    struct obs_metrics *m = obs_metrics_new();
    char *out;

    (void)state;
    assert_int_equal(obs_metrics_register(m, CTL_METRIC_GAUGE, "g", "G.", NULL),
                     0);
    assert_int_equal(
        obs_metrics_gauge_set(m, "g", CTL_LABELS("v", "a\"b\\c\nd"), 1), 0);
    out = render(m);
    assert_string_equal(out, "# HELP g G.\n# TYPE g gauge\n"
                             "g{v=\"a\\\"b\\\\c\\nd\"} 1\n");
    free(out);
    obs_metrics_free(m);
}

static void
test_label_order_does_not_make_a_new_series(void **state)
{
    struct obs_metrics *m = obs_metrics_new();
    struct obs_series *a, *b;
    char *out;

    (void)state;
    assert_int_equal(
        obs_metrics_register(m, CTL_METRIC_COUNTER, "c", "C.", NULL), 0);
    a = obs_metrics_series(m, "c", CTL_LABELS("z", "1", "a", "2"), NULL);
    b = obs_metrics_series(m, "c", CTL_LABELS("a", "2", "z", "1"), NULL);
    assert_non_null(a);
    assert_ptr_equal(a, b);
    obs_series_add(a, 1);
    obs_series_add(b, 1);
    assert_true(obs_series_value(a) == 2);
    out = render(m);
    assert_string_equal(out, "# HELP c C.\n# TYPE c counter\n"
                             "c{a=\"2\",z=\"1\"} 2\n");
    free(out);
    obs_metrics_free(m);
}

static void
test_values_print_shortest_and_special(void **state)
{
    struct obs_metrics *m = obs_metrics_new();
    char *out;

    (void)state;
    assert_int_equal(obs_metrics_register(m, CTL_METRIC_GAUGE, "g", "G.", NULL),
                     0);
    assert_int_equal(
        obs_metrics_gauge_set(m, "g", CTL_LABELS("k", "a"), 0.1 + 0.2), 0);
    assert_int_equal(
        obs_metrics_gauge_set(m, "g", CTL_LABELS("k", "b"), INFINITY), 0);
    assert_int_equal(
        obs_metrics_gauge_set(m, "g", CTL_LABELS("k", "c"), -INFINITY), 0);
    assert_int_equal(obs_metrics_gauge_set(m, "g", CTL_LABELS("k", "d"), NAN),
                     0);
    assert_int_equal(
        obs_metrics_gauge_set(m, "g", CTL_LABELS("k", "e"), 1234567890123.0),
        0);
    assert_int_equal(obs_metrics_gauge_set(m, "g", CTL_LABELS("k", "f"), -2),
                     0);
    out = render(m);
    assert_string_equal(out, "# HELP g G.\n# TYPE g gauge\n"
                             "g{k=\"a\"} 0.30000000000000004\n"
                             "g{k=\"b\"} +Inf\n"
                             "g{k=\"c\"} -Inf\n"
                             "g{k=\"d\"} NaN\n"
                             "g{k=\"e\"} 1234567890123\n"
                             "g{k=\"f\"} -2\n");
    free(out);
    obs_metrics_free(m);
}

static void
test_counters_never_go_down_but_can_be_set(void **state)
{
    struct obs_metrics *m = obs_metrics_new();
    struct obs_series *c, *g;

    (void)state;
    assert_int_equal(
        obs_metrics_register(m, CTL_METRIC_COUNTER, "c", "C.", NULL), 0);
    assert_int_equal(obs_metrics_register(m, CTL_METRIC_GAUGE, "g", "G.", NULL),
                     0);
    c = obs_metrics_series(m, "c", NULL, NULL);
    g = obs_metrics_series(m, "g", NULL, NULL);
    obs_series_add(c, 5);
    obs_series_add(c, -3);
    assert_true(obs_series_value(c) == 5);
    obs_series_add(g, 5);
    obs_series_add(g, -3);
    assert_true(obs_series_value(g) == 2);
    assert_int_equal(obs_metrics_counter_set(m, "c", NULL, 42), 0);
    assert_true(obs_series_value(c) == 42);
    /* Wrong type through the by-name calls fails and changes nothing. */
    assert_int_equal(obs_metrics_counter_add(m, "g", NULL, 1), -1);
    assert_int_equal(obs_metrics_gauge_set(m, "c", NULL, 1), -1);
    assert_int_equal(obs_metrics_observe(m, "c", NULL, 1), -1);
    assert_true(obs_series_value(c) == 42 && obs_series_value(g) == 2);
    obs_metrics_free(m);
}

static void
test_bad_declarations_and_labels_are_refused(void **state)
{
    static const double bad[] = { 1, 1 }, good[] = { 1 };
    struct obs_metrics *m = obs_metrics_new();
    struct err e = { 0 };

    (void)state;
    assert_int_equal(obs_metrics_register(m, CTL_METRIC_COUNTER, "9x", "", &e),
                     -1);
    assert_int_equal(e.code, ERR_INVALID);
    assert_int_equal(obs_metrics_register(m, CTL_METRIC_COUNTER, "a-b", "", &e),
                     -1);
    assert_int_equal(obs_metrics_register_histogram(m, "h", "", bad, 2, &e),
                     -1);
    assert_int_equal(e.code, ERR_INVALID);
    assert_int_equal(obs_metrics_register(m, CTL_METRIC_HISTOGRAM, "h", "", &e),
                     -1);
    assert_int_equal(obs_metrics_register_histogram(m, "h", "", good, 1, &e),
                     0);
    /* Same name, same type: fine; another type: conflict. */
    assert_int_equal(obs_metrics_register(m, CTL_METRIC_COUNTER, "c", "", &e),
                     0);
    assert_int_equal(obs_metrics_register(m, CTL_METRIC_COUNTER, "c", "", &e),
                     0);
    assert_int_equal(obs_metrics_register(m, CTL_METRIC_GAUGE, "c", "", &e),
                     -1);
    assert_int_equal(e.code, ERR_CONFLICT);
    assert_null(obs_metrics_series(m, "nope", NULL, &e));
    assert_int_equal(e.code, ERR_NOTFOUND);
    assert_null(obs_metrics_series(m, "h", CTL_LABELS("le", "1"), &e));
    assert_int_equal(e.code, ERR_INVALID);
    assert_null(obs_metrics_series(m, "c", CTL_LABELS("__x", "1"), &e));
    assert_null(obs_metrics_series(m, "c", CTL_LABELS("a:b", "1"), &e));
    assert_null(obs_metrics_series(m, "c", CTL_LABELS("a", "1", "a", "2"), &e));
    assert_int_equal(e.code, ERR_INVALID);
    assert_null(obs_metrics_series(m, "c", CTL_LABELS("a", "1", "b"), &e));
    assert_null(obs_metrics_series(
        m, "c", CTL_LABELS("a", "1", "b", "1", "c", "1", "d", "1", "e", "1"),
        &e));
    assert_int_equal(e.code, ERR_LIMIT);
    /* "le" is an ordinary label outside histograms. */
    assert_non_null(obs_metrics_series(m, "c", CTL_LABELS("le", "1"), &e));
    obs_metrics_free(m);
}

static void
test_caps_on_series_label_text_and_output(void **state)
{
    struct obs_metrics *m = obs_metrics_new();
    struct err e = { 0 };
    char v[16], big[CTL_METRICS_MAX_LABEL_TEXT];
    struct buf b;

    (void)state;
    assert_int_equal(
        obs_metrics_register(m, CTL_METRIC_COUNTER, "c", "C.", NULL), 0);
    for (int i = 0; i < CTL_METRICS_MAX_SERIES; i++) {
        snprintf(v, sizeof(v), "%d", i);
        assert_non_null(obs_metrics_series(m, "c", CTL_LABELS("k", v), &e));
    }
    assert_null(obs_metrics_series(m, "c", CTL_LABELS("k", "one more"), &e));
    assert_int_equal(e.code, ERR_LIMIT);
    /* An existing series is still found at the cap. */
    assert_non_null(obs_metrics_series(m, "c", CTL_LABELS("k", "7"), &e));
    memset(big, 'x', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    assert_null(obs_metrics_series(m, "c", CTL_LABELS("k", big), &e));
    assert_int_equal(e.code, ERR_LIMIT);
    buf_init(&b, 100);
    assert_int_equal(obs_metrics_render(m, &b, &e), -1);
    assert_int_equal(e.code, ERR_LIMIT);
    buf_cleanup(&b);
    obs_metrics_free(m);
}

static void
test_family_cap(void **state)
{
    struct obs_metrics *m = obs_metrics_new();
    struct err e = { 0 };
    char name[16];

    (void)state;
    for (int i = 0; i < CTL_METRICS_MAX_FAMILIES; i++) {
        snprintf(name, sizeof(name), "f%d", i);
        assert_int_equal(
            obs_metrics_register(m, CTL_METRIC_GAUGE, name, "", &e), 0);
    }
    assert_int_equal(obs_metrics_register(m, CTL_METRIC_GAUGE, "x", "", &e),
                     -1);
    assert_int_equal(e.code, ERR_LIMIT);
    obs_metrics_free(m);
}

static void
count_hook(struct obs_metrics *m, void *arg)
{
    int *calls = arg;

    (*calls)++;
    assert_int_equal(obs_metrics_gauge_set(m, CTL_M_DOCKER_UP, NULL, *calls),
                     0);
}

static void
test_agentctl_families_all_appear_at_zero(void **state)
{
    struct obs_metrics *m = obs_metrics_new();
    struct err e = { 0 };
    int calls = 0;
    char *out;
    static const char *const want[] = {
        "# HELP agentctl_reconciles_total ",
        "# TYPE agentctl_reconciles_total counter\n",
        "\nagentctl_reconciles_total{result=\"error\"} 0\n",
        "\nagentctl_reconciles_total{result=\"ok\"} 0\n",
        "\nagentctl_reconciles_total{result=\"requeue\"} 0\n",
        "# TYPE agentctl_reconcile_duration_seconds histogram\n",
        "\nagentctl_reconcile_duration_seconds_bucket{le=\"0.005\"} 0\n",
        "\nagentctl_reconcile_duration_seconds_bucket{le=\"0.025\"} 0\n",
        "\nagentctl_reconcile_duration_seconds_bucket{le=\"2.5\"} 0\n",
        "\nagentctl_reconcile_duration_seconds_bucket{le=\"10\"} 0\n",
        "\nagentctl_reconcile_duration_seconds_bucket{le=\"+Inf\"} 0\n",
        "\nagentctl_reconcile_duration_seconds_sum 0\n",
        "\nagentctl_reconcile_duration_seconds_count 0\n",
        "\nagentctl_docker_requests_total{result=\"4xx\"} 0\n",
        "\nagentctl_docker_requests_total{result=\"5xx\"} 0\n",
        "\nagentctl_docker_requests_total{result=\"cancelled\"} 0\n",
        "\nagentctl_docker_requests_total{result=\"ok\"} 0\n",
        "\nagentctl_docker_requests_total{result=\"timeout\"} 0\n",
        "\nagentctl_docker_requests_total{result=\"transport\"} 0\n",
        "# TYPE agentctl_docker_requests_in_flight gauge\n",
        "\nagentctl_docker_requests_in_flight 0\n",
        "\nagentctl_invocations{phase=\"Cancelled\"} 0\n",
        "\nagentctl_invocations{phase=\"Failed\"} 0\n",
        "\nagentctl_invocations{phase=\"Pending\"} 0\n",
        "\nagentctl_invocations{phase=\"Preparing\"} 0\n",
        "\nagentctl_invocations{phase=\"Running\"} 0\n",
        "\nagentctl_invocations{phase=\"Succeeded\"} 0\n",
        "\nagentctl_docker_up 1\n", /* set by the hook */
        "\nagentctl_store_up 0\n",
        "\nagentctl_build_info{version=\"9.8.7\"} 1\n",
        "# TYPE agentctl_config_last_reload_successful gauge\n",
        "\nagentctl_config_last_reload_successful 1\n",
        "# TYPE agentctl_vendor_token_budget_refusals_total counter\n",
    };

    (void)state;
    assert_int_equal(obs_metrics_register_agentctl(m, "9.8.7", &e), 0);
    /* Registering twice is harmless (same families, same series). */
    assert_int_equal(obs_metrics_register_agentctl(m, "9.8.7", &e), 0);
    obs_metrics_set_hook(m, count_hook, &calls);
    obs_metrics_refresh(m);
    assert_int_equal(calls, 1);
    out = render(m);
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
        if (strstr(out, want[i]) == NULL)
            fail_msg("missing %s in:\n%s", want[i], out);
    /* Negative control: a series nobody made is not there. */
    assert_null(strstr(out, "phase=\"Unknown\""));
    /* The budget refusals appear with their first count, not before. */
    assert_null(strstr(out, "\nagentctl_vendor_token_budget_refusals_total{"));
    assert_int_equal(
        obs_metrics_observe(m, CTL_M_RECONCILE_SECONDS, NULL, 0.02), 0);
    free(out);
    out = render(m);
    assert_non_null(strstr(
        out, "\nagentctl_reconcile_duration_seconds_bucket{le=\"0.01\"} 0\n"));
    assert_non_null(strstr(
        out, "\nagentctl_reconcile_duration_seconds_bucket{le=\"0.025\"} 1\n"));
    assert_non_null(strstr(
        out, "\nagentctl_reconcile_duration_seconds_bucket{le=\"10\"} 1\n"));
    assert_non_null(
        strstr(out, "\nagentctl_reconcile_duration_seconds_count 1\n"));
    free(out);
    obs_metrics_free(m);
}

static void
test_health_add_clears_ok_and_caps(void **state)
{
    struct obs_health h = { .ok = true };

    (void)state;
    obs_health_add(&h, "docker", true, "ok");
    assert_true(h.ok);
    obs_health_add(&h, "store", false, "unreadable: %s", "EACCES");
    assert_false(h.ok);
    assert_string_equal(h.checks[1].detail, "unreadable: EACCES");
    for (int i = 0; i < CTL_HEALTH_MAX_CHECKS + 3; i++)
        obs_health_add(&h, "x", true, "ok");
    assert_int_equal(h.n_checks, CTL_HEALTH_MAX_CHECKS);
    assert_false(h.ok);
}

/* --- endpoint --------------------------------------------------------- */

/* A non-blocking HTTP client driven by the test's loop: send the whole
 * request, read until the server closes, then break the loop. */
struct tclient {
    ev_io io;
    ev_timer guard; /* a hang guard, not a timed assertion */
    const char *req;
    size_t off;
    char resp[1 << 17];
    size_t len;
    bool done, hung;
};

static void
tclient_finish(struct ev_loop *loop, struct tclient *c)
{
    ev_io_stop(loop, &c->io);
    ev_timer_stop(loop, &c->guard);
    close(c->io.fd);
    c->done = true;
    ev_break(loop, EVBREAK_ALL);
}

static void
tclient_on_io(struct ev_loop *loop, ev_io *w, int revents)
{
    struct tclient *c = (struct tclient *)w; /* io is the first member */
    ssize_t n;

    if (revents & EV_WRITE) {
        n = send(w->fd, c->req + c->off, strlen(c->req) - c->off, MSG_NOSIGNAL);
        if (n < 0 && errno != EAGAIN && errno != EINPROGRESS)
            tclient_finish(loop, c);
        else if (n > 0 && (c->off += (size_t)n) == strlen(c->req)) {
            ev_io_stop(loop, w);
            ev_io_set(w, w->fd, EV_READ);
            ev_io_start(loop, w);
        }
        return;
    }
    for (;;) {
        n = recv(w->fd, c->resp + c->len, sizeof(c->resp) - 1 - c->len, 0);
        if (n > 0) {
            c->len += (size_t)n;
            c->resp[c->len] = '\0';
            assert_true(c->len < sizeof(c->resp) - 1);
            continue;
        }
        if (n < 0 && errno == EAGAIN)
            return;
        tclient_finish(loop, c); /* EOF or reset */
        return;
    }
}

static void
tclient_on_guard(struct ev_loop *loop, ev_timer *w, int revents)
{
    struct tclient *c =
        (struct tclient *)((char *)w - offsetof(struct tclient, guard));

    (void)revents;
    c->hung = true;
    tclient_finish(loop, c);
}

static int
tclient_connect(int port)
{
    struct sockaddr_in a = { .sin_family = AF_INET };
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

    assert_true(fd >= 0);
    a.sin_port = htons((uint16_t)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&a, sizeof(a)) == -1)
        assert_int_equal(errno, EINPROGRESS);
    return fd;
}

/* Start sending req to the endpoint; the loop does the rest. */
static struct tclient *
tclient_start(struct ev_loop *loop, int port, const char *req)
{
    struct tclient *c = calloc(1, sizeof(*c));

    assert_non_null(c);
    c->req = req;
    ev_io_init(&c->io, tclient_on_io, tclient_connect(port), EV_WRITE);
    ev_io_start(loop, &c->io);
    ev_timer_init(&c->guard, tclient_on_guard, 30., 0.);
    ev_timer_start(loop, &c->guard);
    return c;
}

/* Run the loop until c has its answer (or the server closed). */
static void
tclient_wait(struct ev_loop *loop, struct tclient *c)
{
    ev_run(loop, 0);
    assert_true(c->done);
    assert_false(c->hung);
}

/* Send req to the endpoint and run the loop until the answer is in. */
static struct tclient *
http_ask(struct ev_loop *loop, int port, const char *req)
{
    struct tclient *c = tclient_start(loop, port, req);

    tclient_wait(loop, c);
    return c;
}

static int
http_status(const struct tclient *c)
{
    int status = 0;

    if (sscanf(c->resp, "HTTP/1.%*d %d", &status) != 1)
        return 0;
    return status;
}

static const char *
http_body(const struct tclient *c)
{
    const char *p = strstr(c->resp, "\r\n\r\n");

    return p != NULL ? p + 4 : "";
}

struct tserver {
    struct ev_loop *loop;
    struct obs_metrics *m;
    struct obs_http *h;
    bool docker_ok;
    int hook_calls;
};

static void
tserver_health(struct obs_health *h, void *arg)
{
    struct tserver *s = arg;

    if (s->docker_ok)
        obs_health_add(h, "docker", true, "ok");
    else
        obs_health_add(h, "docker", false, "unreachable: %s",
                       "connection refused");
    obs_health_add(h, "store", true, "ok");
}

static void
tserver_hook(struct obs_metrics *m, void *arg)
{
    struct tserver *s = arg;

    s->hook_calls++;
    assert_int_equal(obs_metrics_counter_set(m, CTL_M_DOCKER_REQUESTS,
                                             CTL_LABELS("result", "5xx"),
                                             7 * s->hook_calls),
                     0);
}

static int
tserver_setup(void **state)
{
    struct tserver *s = calloc(1, sizeof(*s));
    struct err e = { 0 };

    assert_non_null(s);
    s->loop = ev_loop_new(EVFLAG_AUTO);
    s->m = obs_metrics_new();
    assert_int_equal(obs_metrics_register_agentctl(s->m, "0.1.0", &e), 0);
    obs_metrics_set_hook(s->m, tserver_hook, s);
    s->docker_ok = true;
    s->h = obs_http_start(s->loop, "127.0.0.1:0", tserver_health, s, s->m, &e);
    if (s->h == NULL)
        fail_msg("%s", e.msg);
    assert_true(obs_http_port(s->h) > 0);
    *state = s;
    return 0;
}

static int
tserver_teardown(void **state)
{
    struct tserver *s = *state;

    obs_http_stop(s->h);
    obs_metrics_free(s->m);
    ev_loop_destroy(s->loop);
    free(s);
    return 0;
}

#define GET(path)                                                              \
    "GET " path " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"

static void
test_http_metrics_serves_the_render_after_the_hook(void **state)
{
    struct tserver *s = *state;
    struct tclient *c;
    char *want;

    c = http_ask(s->loop, obs_http_port(s->h), GET("/metrics"));
    assert_int_equal(http_status(c), 200);
    assert_non_null(strstr(c->resp, "Content-Type: text/plain; version=0.0.4"));
    assert_int_equal(s->hook_calls, 1);
    want = render(s->m); /* what the hook left: the same text */
    assert_string_equal(http_body(c), want);
    assert_non_null(strstr(
        http_body(c), "agentctl_docker_requests_total{result=\"5xx\"} 7\n"));
    free(want);
    free(c);
    /* A second scrape runs the hook again. */
    c = http_ask(s->loop, obs_http_port(s->h), GET("/metrics?x=1"));
    assert_int_equal(http_status(c), 200);
    assert_non_null(strstr(
        http_body(c), "agentctl_docker_requests_total{result=\"5xx\"} 14\n"));
    free(c);
}

static void
test_http_healthz_ok_then_503_naming_the_failing_check(void **state)
{
    struct tserver *s = *state;
    struct tclient *c;

    c = http_ask(s->loop, obs_http_port(s->h), GET("/healthz"));
    assert_int_equal(http_status(c), 200);
    assert_string_equal(http_body(c), "ok\ndocker: ok\nstore: ok\n");
    free(c);
    s->docker_ok = false;
    c = http_ask(s->loop, obs_http_port(s->h), GET("/healthz"));
    assert_int_equal(http_status(c), 503);
    assert_string_equal(http_body(c),
                        "unhealthy\ndocker: unreachable: connection refused\n");
    free(c);
}

/* /readyz is the health report (/healthz its older name); /livez answers
 * from the loop and stays 200 while a dependency is down, so a kubelet
 * does not restart the controller over Docker or etcd. */
static void
test_http_livez_ignores_dependencies_readyz_does_not(void **state)
{
    struct tserver *s = *state;
    struct tclient *c;

    s->docker_ok = false;
    c = http_ask(s->loop, obs_http_port(s->h), GET("/readyz"));
    assert_int_equal(http_status(c), 503);
    assert_string_equal(http_body(c),
                        "unhealthy\ndocker: unreachable: connection refused\n");
    free(c);
    c = http_ask(s->loop, obs_http_port(s->h), GET("/livez"));
    assert_int_equal(http_status(c), 200);
    assert_string_equal(http_body(c), "ok\nloop: running\n");
    free(c);
    s->docker_ok = true;
    c = http_ask(s->loop, obs_http_port(s->h), GET("/readyz"));
    assert_int_equal(http_status(c), 200);
    free(c);
}

static void
test_http_unknown_path_404_and_other_methods_405(void **state)
{
    struct tserver *s = *state;
    struct tclient *c;

    c = http_ask(s->loop, obs_http_port(s->h), GET("/nope"));
    assert_int_equal(http_status(c), 404);
    free(c);
    c = http_ask(s->loop, obs_http_port(s->h), GET("/metrics/"));
    assert_int_equal(http_status(c), 404);
    free(c);
    c = http_ask(s->loop, obs_http_port(s->h),
                 "POST /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                 "Content-Length: 5\r\n\r\nhello");
    assert_int_equal(http_status(c), 405);
    assert_non_null(strstr(c->resp, "Allow: GET, HEAD\r\n"));
    free(c);
    c = http_ask(s->loop, obs_http_port(s->h),
                 "DELETE /healthz HTTP/1.1\r\nHost: x\r\n"
                 "Connection: close\r\n\r\n");
    assert_int_equal(http_status(c), 405);
    free(c);
    /* HEAD is a GET without the body. */
    c = http_ask(s->loop, obs_http_port(s->h),
                 "HEAD /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                 "\r\n");
    assert_int_equal(http_status(c), 200);
    assert_string_equal(http_body(c), "");
    free(c);
}

static void
test_http_keeps_the_connection_for_the_next_request(void **state)
{
    struct tserver *s = *state;
    struct tclient *c;
    const char *p;

    /* Two pipelined GETs on one connection: both answered, the first
     * without closing. */
    c = http_ask(s->loop, obs_http_port(s->h),
                 "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
                 "GET /metrics HTTP/1.1\r\nHost: x\r\n"
                 "Connection: close\r\n\r\n");
    assert_int_equal(http_status(c), 200);
    p = strstr(c->resp + 1, "HTTP/1.1 200 OK\r\n");
    assert_non_null(p);
    assert_non_null(strstr(p, "agentctl_build_info{version=\"0.1.0\"} 1\n"));
    assert_int_equal(s->hook_calls, 1);
    free(c);
}

static void
test_http_get_with_a_body_is_refused(void **state)
{
    struct tserver *s = *state;
    struct tclient *c;

    c = http_ask(s->loop, obs_http_port(s->h),
                 "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                 "Content-Length: 5\r\n\r\nhello");
    assert_int_equal(http_status(c), 413);
    assert_int_equal(s->hook_calls, 0);
    free(c);
    c = http_ask(s->loop, obs_http_port(s->h),
                 "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                 "Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n");
    assert_int_equal(http_status(c), 413);
    free(c);
    /* Control: an empty body is no body. */
    c = http_ask(s->loop, obs_http_port(s->h),
                 "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                 "Content-Length: 0\r\n\r\n");
    assert_int_equal(http_status(c), 200);
    free(c);
}

static void
test_http_oversized_request_is_refused(void **state)
{
    struct tserver *s = *state;
    size_t n = CTL_HTTP_MEMORY_LIMIT * 2;
    char *req = malloc(n + 200);
    struct tclient *c;
    int len;

    assert_non_null(req);
    len = snprintf(req, 200,
                   "GET /healthz HTTP/1.1\r\nHost: x\r\n"
                   "Connection: close\r\nX-Big: ");
    memset(req + len, 'a', n);
    memcpy(req + len + n, "\r\n\r\n", 5);
    c = http_ask(s->loop, obs_http_port(s->h), req);
    /* Either an error status or a closed connection; never a 200. */
    assert_int_not_equal(http_status(c), 200);
    assert_null(strstr(c->resp, "\r\n\r\nok\n"));
    free(c);
    free(req);
    /* The endpoint still serves the next client. */
    c = http_ask(s->loop, obs_http_port(s->h), GET("/healthz"));
    assert_int_equal(http_status(c), 200);
    free(c);
}

static void
test_http_connection_limit(void **state)
{
    struct tserver *s = *state;
    int idle[CTL_HTTP_MAX_CONNECTIONS];
    struct tclient *c;

    /* Fill every slot with an idle connection and let MHD take them all;
     * a healthz probe on a free endpoint is answered within a few loop
     * turns (the control below), so hundreds of turns without an answer
     * mean the client waits in the backlog, as MHD does at its limit. */
    for (int i = 0; i < CTL_HTTP_MAX_CONNECTIONS; i++)
        idle[i] = tclient_connect(obs_http_port(s->h));
    for (int i = 0; i < 50; i++)
        ev_run(s->loop, EVRUN_NOWAIT);
    c = tclient_start(s->loop, obs_http_port(s->h), GET("/healthz"));
    for (int i = 0; i < 500 && !c->done; i++)
        ev_run(s->loop, EVRUN_NOWAIT);
    assert_false(c->done);
    assert_int_equal(c->len, 0);
    /* One slot frees up: the waiting client is served within the same
     * bound of loop turns, not when some idle connection times out. */
    close(idle[0]);
    for (int i = 0; i < 500 && !c->done; i++)
        ev_run(s->loop, EVRUN_NOWAIT);
    assert_true(c->done);
    assert_int_equal(http_status(c), 200);
    free(c);
    for (int i = 1; i < CTL_HTTP_MAX_CONNECTIONS; i++)
        close(idle[i]);
}

static void
test_http_control_answers_within_a_few_loop_turns(void **state)
{
    struct tserver *s = *state;
    struct tclient *c;

    /* The control for test_http_connection_limit: same bound, no limit
     * reached, so the answer must come. */
    c = tclient_start(s->loop, obs_http_port(s->h), GET("/healthz"));
    for (int i = 0; i < 500 && !c->done; i++)
        ev_run(s->loop, EVRUN_NOWAIT);
    assert_true(c->done);
    assert_int_equal(http_status(c), 200);
    free(c);
}

static void
test_http_start_refuses_bad_addresses_and_taken_ports(void **state)
{
    static const char *const bad[] = {
        "localhost:9464", "127.0.0.1",    "127.0.0.1:", "127.0.0.1:70000",
        "127.0.0.1:-1",   "127.0.0.1:9x", "[::1]9464",  "::1:9464",
        "1.2.3.4.5:1",    ":9464",        "[]:1",
    };
    struct tserver *s = *state;
    struct err e = { 0 };
    char addr[64];
    struct obs_http *h;

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        memset(&e, 0, sizeof(e));
        assert_null(obs_http_start(s->loop, bad[i], NULL, NULL, s->m, &e));
        if (e.code != ERR_INVALID)
            fail_msg("%s: %s", bad[i], e.msg);
    }
    snprintf(addr, sizeof(addr), "127.0.0.1:%d", obs_http_port(s->h));
    assert_null(obs_http_start(s->loop, addr, NULL, NULL, s->m, &e));
    assert_int_equal(e.code, ERR_IO);
    assert_non_null(strstr(e.msg, addr));
    /* IPv6 loopback, when this host has it; no health callback = ok. */
    h = obs_http_start(s->loop, "[::1]:0", NULL, NULL, s->m, &e);
    if (h != NULL) {
        assert_true(obs_http_port(h) > 0);
        obs_http_stop(h);
    }
    obs_http_stop(NULL);
}

#define HTTP_TEST(t)                                                           \
    cmocka_unit_test_setup_teardown(t, tserver_setup, tserver_teardown)
#define HTTP_TESTS                                                             \
    HTTP_TEST(test_http_metrics_serves_the_render_after_the_hook),             \
        HTTP_TEST(test_http_healthz_ok_then_503_naming_the_failing_check),     \
        HTTP_TEST(test_http_livez_ignores_dependencies_readyz_does_not),       \
        HTTP_TEST(test_http_unknown_path_404_and_other_methods_405),           \
        HTTP_TEST(test_http_keeps_the_connection_for_the_next_request),        \
        HTTP_TEST(test_http_get_with_a_body_is_refused),                       \
        HTTP_TEST(test_http_oversized_request_is_refused),                     \
        HTTP_TEST(test_http_connection_limit),                                 \
        HTTP_TEST(test_http_control_answers_within_a_few_loop_turns),          \
        HTTP_TEST(test_http_start_refuses_bad_addresses_and_taken_ports),

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_render_golden_counter_gauge_histogram),
        cmocka_unit_test(
            test_histogram_with_labels_puts_le_last_and_is_cumulative),
        cmocka_unit_test(test_label_values_are_escaped),
        cmocka_unit_test(test_label_order_does_not_make_a_new_series),
        cmocka_unit_test(test_values_print_shortest_and_special),
        cmocka_unit_test(test_counters_never_go_down_but_can_be_set),
        cmocka_unit_test(test_bad_declarations_and_labels_are_refused),
        cmocka_unit_test(test_caps_on_series_label_text_and_output),
        cmocka_unit_test(test_family_cap),
        cmocka_unit_test(test_agentctl_families_all_appear_at_zero),
        cmocka_unit_test(test_health_add_clears_ok_and_caps),
        HTTP_TESTS
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
