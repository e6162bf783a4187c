/* test_dk_engine.c - every typed Engine API call (docker/dk_engine.c)
 * sends the method, path, query and body the Engine API 1.41 expects, with
 * references escaped; against the fake daemon on the test's own loop.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dk_engine.h"
#include "test_dk_fake.h"

struct t {
    struct ev_loop *loop;
    struct fake_srv *srv;
    struct dk *dk;
    int done;
    char method[16];
    char path[512];
    char content_type[128];
    char body[512];
    long status;
};

static void
t_handler(struct fake_conn *c, const struct fake_http *h, void *arg)
{
    struct t *t = arg;

    snprintf(t->method, sizeof(t->method), "%s", h->method);
    snprintf(t->path, sizeof(t->path), "%s", h->path);
    snprintf(t->content_type, sizeof(t->content_type), "%s", h->content_type);
    snprintf(t->body, sizeof(t->body), "%.*s", (int)h->body_len, h->body);
    fake_reply(c, 200, "OK", "application/json", "{}", 2);
}

static void
t_on_done(struct dk_req *req, struct dk_response *r, void *arg)
{
    struct t *t = arg;

    (void)req;
    t->status = r->status;
    t->done++;
}

static void
t_on_data(struct dk_req *req, const char *data, size_t len, void *arg)
{
    (void)req;
    (void)data;
    (void)len;
    (void)arg;
}

static int
t_setup(void **state)
{
    struct t *t = calloc(1, sizeof(*t));
    struct err e = { 0 };

    assert_non_null(t);
    t->loop = ev_loop_new(EVFLAG_AUTO);
    t->srv = fake_start(t->loop, t_handler, t);
    assert_non_null(t->srv);
    t->dk = dk_new(t->loop, fake_url(t->srv), &e);
    assert_non_null(t->dk);
    *state = t;
    return 0;
}

static int
t_teardown(void **state)
{
    struct t *t = *state;

    dk_free(t->dk);
    fake_stop(t->srv);
    ev_loop_destroy(t->loop);
    free(t);
    return 0;
}

/* Run the started request to its answer; the fake always answers. */
static void
t_finish(struct t *t, struct dk_req *req, const struct err *e)
{
    if (req == NULL)
        fail_msg("the call did not start: %s", e->msg);
    while (t->done == 0)
        ev_run(t->loop, EVRUN_ONCE);
    t->done = 0;
    assert_int_equal(t->status, 200);
}

#define SENT(t, m, p)                                                          \
    do {                                                                       \
        assert_string_equal((t)->method, (m));                                 \
        assert_string_equal((t)->path, "/v" DK_API_VERSION p);                 \
    } while (0)

static void
test_dk_inspect_paths_per_kind_escape_the_reference(void **state)
{
    struct t *t = *state;
    struct err e = { 0 };

    t_finish(t, dk_inspect(t->dk, DK_CONTAINER, "abc", t_on_done, t, &e), &e);
    SENT(t, "GET", "/containers/abc/json");
    t_finish(t, dk_inspect(t->dk, DK_NETWORK, "n1", t_on_done, t, &e), &e);
    SENT(t, "GET", "/networks/n1");
    t_finish(t, dk_inspect(t->dk, DK_VOLUME, "v-1", t_on_done, t, &e), &e);
    SENT(t, "GET", "/volumes/v-1");
    t_finish(t,
             dk_inspect(t->dk, DK_IMAGE, "agentctl/demo:0.1", t_on_done, t, &e),
             &e);
    SENT(t, "GET", "/images/agentctl%2Fdemo%3A0.1/json");
}

static void
test_dk_remove_forces_containers_and_refuses_images(void **state)
{
    struct t *t = *state;
    struct err e = { 0 };

    t_finish(t, dk_remove(t->dk, DK_CONTAINER, "c1", t_on_done, t, &e), &e);
    SENT(t, "DELETE", "/containers/c1?force=1");
    t_finish(t, dk_remove(t->dk, DK_NETWORK, "n1", t_on_done, t, &e), &e);
    SENT(t, "DELETE", "/networks/n1");
    t_finish(t, dk_remove(t->dk, DK_VOLUME, "v1", t_on_done, t, &e), &e);
    SENT(t, "DELETE", "/volumes/v1");
    assert_null(dk_remove(t->dk, DK_IMAGE, "sha256:1", t_on_done, t, &e));
    assert_int_equal(e.code, ERR_INVALID);
    assert_null(dk_inspect(t->dk, DK_CONTAINER, "", t_on_done, t, &e));
    assert_int_equal(e.code, ERR_INVALID);
}

static void
test_dk_create_names_containers_in_the_query_only(void **state)
{
    struct t *t = *state;
    struct err e = { 0 };
    cJSON *body = cJSON_Parse("{\"Image\":\"x\",\"Env\":[\"K=secret\"]}");
    struct dk_call wipe = { .wipe_body = true };

    t_finish(t,
             dk_create(t->dk, DK_CONTAINER, "agentctl-a-1234-agent", body,
                       &wipe, t_on_done, t, &e),
             &e);
    SENT(t, "POST", "/containers/create?name=agentctl-a-1234-agent");
    assert_string_equal(t->content_type, "application/json");
    assert_string_equal(t->body, "{\"Image\":\"x\",\"Env\":[\"K=secret\"]}");
    t_finish(t,
             dk_create(t->dk, DK_NETWORK, NULL, body, NULL, t_on_done, t, &e),
             &e);
    SENT(t, "POST", "/networks/create");
    t_finish(t, dk_create(t->dk, DK_VOLUME, NULL, body, NULL, t_on_done, t, &e),
             &e);
    SENT(t, "POST", "/volumes/create");
    assert_null(
        dk_create(t->dk, DK_NETWORK, "n", body, NULL, t_on_done, t, &e));
    assert_int_equal(e.code, ERR_INVALID);
    assert_null(
        dk_create(t->dk, DK_CONTAINER, NULL, body, NULL, t_on_done, t, &e));
    assert_int_equal(e.code, ERR_INVALID);
    cJSON_Delete(body);
}

static void
test_dk_list_filters_by_key_and_lists_stopped_containers(void **state)
{
    struct t *t = *state;
    struct err e = { 0 };
    const char *const labels[] = { "agentctl.dev/uid=u1",
                                   "agentctl.dev/role=agent" };

    t_finish(t,
             dk_list(t->dk, DK_CONTAINER, "label", labels, 2, t_on_done, t, &e),
             &e);
    SENT(t, "GET",
         "/containers/json?all=1&filters=%7B%22label%22%3A%5B%22agentctl.dev"
         "%2Fuid%3Du1%22%2C%22agentctl.dev%2Frole%3Dagent%22%5D%7D");
    t_finish(t, dk_list(t->dk, DK_NETWORK, NULL, NULL, 0, t_on_done, t, &e),
             &e);
    SENT(t, "GET", "/networks");
    t_finish(t, dk_list(t->dk, DK_VOLUME, NULL, NULL, 0, t_on_done, t, &e), &e);
    SENT(t, "GET", "/volumes");
}

static void
test_dk_container_calls(void **state)
{
    struct t *t = *state;
    struct err e = { 0 };

    t_finish(t, dk_container_start(t->dk, "c1", t_on_done, t, &e), &e);
    SENT(t, "POST", "/containers/c1/start");
    t_finish(t, dk_container_wait(t->dk, "c1", 5000, t_on_done, t, &e), &e);
    SENT(t, "POST", "/containers/c1/wait");
    t_finish(t, dk_container_logs(t->dk, "c1", t_on_done, t, &e), &e);
    SENT(t, "GET", "/containers/c1/logs?stdout=1&stderr=1");
    t_finish(t,
             dk_container_follow_logs(t->dk, "c1", t_on_data, t_on_done, t, &e),
             &e);
    SENT(t, "GET", "/containers/c1/logs?stdout=1&stderr=1&follow=1");
    {
        struct dk_logs_query q = { .stream = 2,
                                   .follow = true,
                                   .timestamps = true,
                                   .since = "1796000000.000000042" };

        t_finish(t,
                 dk_container_read_logs(t->dk, "c1", &q, t_on_data, t_on_done,
                                        t, &e),
                 &e);
        SENT(t, "GET",
             "/containers/c1/logs?stderr=1&follow=1&timestamps=1"
             "&since=1796000000.000000042");
        /* a since that is not a number is not sent; tail is */
        q = (struct dk_logs_query){ .stream = 1, .since = "1&x=2", .tail = 7 };
        t_finish(t,
                 dk_container_read_logs(t->dk, "c1", &q, t_on_data, t_on_done,
                                        t, &e),
                 &e);
        SENT(t, "GET", "/containers/c1/logs?stdout=1&tail=7");
    }
    t_finish(t,
             dk_container_put_archive(t->dk, "k1", "/work", "tar", 3, t_on_done,
                                      t, &e),
             &e);
    SENT(t, "PUT", "/containers/k1/archive?path=%2Fwork");
    assert_string_equal(t->content_type, "application/x-tar");
    assert_string_equal(t->body, "tar");
    t_finish(t,
             dk_container_get_archive(t->dk, "k1", "/work/.git", 0, t_on_done,
                                      t, &e),
             &e);
    SENT(t, "GET", "/containers/k1/archive?path=%2Fwork%2F.git");
}

static void
test_dk_network_connect_events_and_ping(void **state)
{
    struct t *t = *state;
    struct err e = { 0 };
    cJSON *body = cJSON_Parse("{\"Container\":\"p1\"}");
    cJSON *filters = cJSON_Parse("{\"type\":[\"container\"]}");

    t_finish(
        t, dk_network_connect(t->dk, "agentctl-egress", body, t_on_done, t, &e),
        &e);
    SENT(t, "POST", "/networks/agentctl-egress/connect");
    assert_string_equal(t->body, "{\"Container\":\"p1\"}");
    t_finish(t,
             dk_events(t->dk, 1700000000, filters, t_on_data, t_on_done, t, &e),
             &e);
    SENT(t, "GET",
         "/events?since=1700000000&filters=%7B%22type%22%3A%5B%22container"
         "%22%5D%7D");
    t_finish(t, dk_ping(t->dk, true, t_on_done, t, &e), &e);
    assert_string_equal(t->method, "GET");
    assert_string_equal(t->path, "/_ping");
    cJSON_Delete(body);
    cJSON_Delete(filters);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(
            test_dk_inspect_paths_per_kind_escape_the_reference, t_setup,
            t_teardown),
        cmocka_unit_test_setup_teardown(
            test_dk_remove_forces_containers_and_refuses_images, t_setup,
            t_teardown),
        cmocka_unit_test_setup_teardown(
            test_dk_create_names_containers_in_the_query_only, t_setup,
            t_teardown),
        cmocka_unit_test_setup_teardown(
            test_dk_list_filters_by_key_and_lists_stopped_containers, t_setup,
            t_teardown),
        cmocka_unit_test_setup_teardown(test_dk_container_calls, t_setup,
                                        t_teardown),
        cmocka_unit_test_setup_teardown(test_dk_network_connect_events_and_ping,
                                        t_setup, t_teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
