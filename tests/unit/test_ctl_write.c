/* test_ctl_write.c - the status group write that does not block the loop
 * (controller/try/try_write.c), on a store that groups writes as etcd does:
 * a directory store whose store_status_write_many_async() keeps the
 * answer until the test gives it, so what happens while etcd has not
 * answered is seen step by step.
 *
 * Record, then act: a request a pass makes after changing the record
 * reaches the (fake) Docker daemon only after the group write holding
 * that record was answered; the fake daemon reads the status on disk
 * when the request arrives. Negative control: the same with the Docker
 * client's hold off, and the request arrives while the record waits.
 * A group etcd fails: the invocation's next pass fails with the error,
 * which leaves Docker up (only an error the Docker client made marks it
 * down: test_ctl_result.c), and its record goes again. A
 * pass does not run while its status is in flight.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "ctl.h"
#include "ctl_fixture.h"
#include "pass_inv.h"
#include "inv_queue.h"
#include "try_result.h"
#include "inv_status.h"
#include "try_write.h"

static const char spec_yaml[] = "apiVersion: agentctl.dev/v1alpha1\n"
                                "kind: AgentInvocation\n"
                                "metadata: {name: rec}\n"
                                "spec:\n"
                                "  vendor: claude\n"
                                "  phase: execute\n"
                                "  image: agentctl/demo-agent:0\n"
                                "  command: [sleep, \"600\"]\n"
                                "  deadlineSeconds: 30\n";

struct fx {
    struct ctl_fixture fix;
    struct ctl c;
    struct ctl_inv *inv;
    struct store_ops ops; /* the directory store's, grouping */
    /* the group write the "etcd" has not answered */
    struct store_status_item *held_it;
    size_t held_n;
    store_done_fn *held_done;
    void *held_arg;
    int groups;          /* group writes sent */
    char seen_phase[32]; /* the phase on disk when Docker got the request */
    int answered;        /* the request's answers */
};

static struct fx *the_fx; /* the store ops have no argument of ours */

static int
held_write(struct store *s, struct store_status_item *it, size_t n,
           store_done_fn *done, void *arg, struct err *e)
{
    (void)s;
    (void)e;
    the_fx->held_it = it;
    the_fx->held_n = n;
    the_fx->held_done = done;
    the_fx->held_arg = arg;
    the_fx->groups++;
    return 0;
}

/* store_status_write_many() on the directory store: each on its own. */
static void
one_by_one(struct store *s, struct store_status_item *it, size_t n)
{
    for (size_t i = 0; i < n; i++)
        it[i].rc = store_status_write(s, it[i].name, it[i].status, it[i].len,
                                      it[i].events, it[i].n_events, &it[i].err);
}

/* "etcd" answers the group: written (rc 0) or failed with e. */
static void
answer_group(struct fx *f, const struct err *fail)
{
    store_done_fn *done = f->held_done;

    assert_non_null(done);
    if (fail == NULL)
        store_status_write_many(f->c.store, f->held_it, f->held_n);
    else
        for (size_t i = 0; i < f->held_n; i++) {
            f->held_it[i].rc = -1;
            f->held_it[i].err = *fail;
        }
    f->held_done = NULL;
    done(f->held_arg, 0, NULL);
}

static void
fake_docker(struct fake_conn *conn, const struct fake_http *h, void *arg)
{
    struct fx *f = arg;
    cJSON *st = NULL;
    const cJSON *phase;
    struct err e;

    (void)h;
    f->seen_phase[0] = '\0';
    if (store_json_get(f->c.store, STORE_DOC_STATUS, "rec", &st, &e) == 0 &&
        cJSON_IsString(phase = cJSON_GetObjectItemCaseSensitive(st, "phase")))
        snprintf(f->seen_phase, sizeof(f->seen_phase), "%s",
                 phase->valuestring);
    cJSON_Delete(st);
    fake_reply(conn, 200, "OK", "application/json", "{}", 2);
}

static void
on_answer(struct dk_req *req, struct dk_response *r, void *arg)
{
    (void)req;
    (void)r;
    ((struct fx *)arg)->answered++;
}

static int
setup(void **state)
{
    struct fx *f = calloc(1, sizeof(*f));
    struct err e = { 0 };

    assert_non_null(f);
    the_fx = f;
    f->inv = ctl_fixture_open(&f->fix, &f->c, "rec", spec_yaml, fake_docker, f);
    /* etcd's way, put in place by start_grouping(): grouped writes,
     * answered when the test says */
    f->ops = *f->c.store->ops;
    f->ops.status_write_many = one_by_one;
    f->ops.status_write_many_async = held_write;
    inv_status_new(f->inv);
    inv_status_set_phase(f->inv, CTL_PREPARING);
    assert_int_equal(inv_status_flush(f->inv, &e), 0); /* on disk: Preparing */
    *state = f;
    return 0;
}

static int
teardown(void **state)
{
    struct fx *f = *state;

    if (f->held_done != NULL)
        answer_group(f, NULL);
    try_write_stop(&f->c);
    ctl_fixture_close(&f->fix, &f->c);
    free(f);
    the_fx = NULL;
    return 0;
}

/* The grouping store in place, then the write watcher (and the hold). */
static void
start_grouping(struct fx *f, bool hold)
{
    f->c.store->ops = &f->ops;
    assert_true(store_groups_status(f->c.store));
    try_write_start(&f->c);
    if (!hold)
        dk_hold(f->c.dk, false);
}

/* A pass's end: the record changed (Running), its status queued, and a
 * request made (as a step that records and acts in one pass would). */
static void
record_and_act(struct fx *f)
{
    struct err e = { 0 };

    inv_status_set_phase(f->inv, CTL_RUNNING);
    assert_int_equal(try_write_end(f->inv, &e), 0);
    assert_true(f->inv->write.queued);
    assert_non_null(dk_get(f->c.dk, "/containers/x/json", on_answer, f, &e));
}

static void
test_a_request_waits_for_the_group_with_its_record(void **state)
{
    struct fx *f = *state;

    start_grouping(f, true);
    record_and_act(f);
    fake_pause(f->c.loop);
    assert_int_equal(f->groups, 1); /* sent without blocking */
    assert_true(f->inv->write.sent);
    assert_int_equal(fake_requests(f->fix.srv), 0); /* held meanwhile */
    assert_int_equal(dk_held(f->c.dk), 1);

    answer_group(f, NULL);
    while (f->answered == 0)
        ev_run(f->c.loop, EVRUN_ONCE);
    assert_string_equal(f->seen_phase, "Running"); /* recorded, then acted */
    assert_false(f->inv->write.sent);
    assert_false(f->inv->rec.dirty);
}

/* The negative control: without the hold the request outruns its record
 * (the assertion above would fail). */
static void
test_without_the_hold_the_request_outruns_its_record(void **state)
{
    struct fx *f = *state;

    start_grouping(f, false);
    record_and_act(f);
    while (f->answered == 0)
        ev_run(f->c.loop, EVRUN_ONCE);
    assert_int_equal(f->groups, 1);
    assert_non_null(f->held_done); /* the group still unanswered */
    assert_string_equal(f->seen_phase, "Preparing");
}

static void
test_a_failed_group_fails_the_next_pass_as_the_store(void **state)
{
    struct fx *f = *state;
    struct err fail, e = { 0 };

    start_grouping(f, true);
    record_and_act(f);
    fake_pause(f->c.loop);
    err_set(&fail, ERR_UNAVAIL, "etcd http://x: no answer within 2000 ms");
    answer_group(f, &fail);
    while (f->answered == 0) /* a failed write still lets it go */
        ev_run(f->c.loop, EVRUN_ONCE);
    assert_true(f->inv->rec.dirty);                  /* its record goes again */
    assert_string_equal(f->c.store_error, fail.msg); /* /healthz: the store */
    f->c.docker_up = true;
    assert_int_equal(try_write_first(f->inv, &e), -1);
    assert_non_null(strstr(e.msg, "status not written: etcd http://x"));
    try_inv_settle(f->inv, try_step_failed(f->inv, &e)); /* as the pass */
    assert_true(f->c.docker_up); /* not "Docker unreachable" */
    assert_int_equal(f->inv->queue.failures, 1);
    assert_int_equal(try_write_first(f->inv, &e), 1); /* then it is queued */
}

static void
test_no_pass_while_its_status_is_in_flight(void **state)
{
    struct fx *f = *state;

    start_grouping(f, true);
    record_and_act(f);
    fake_pause(f->c.loop);
    assert_true(try_write_in_flight(f->inv)); /* the pass returns here */
    assert_true(f->inv->write.pass_after);
    answer_group(f, NULL);
    assert_false(try_write_in_flight(f->inv));
    assert_true(ev_is_active(&f->inv->queue.kick)); /* the answer runs it again */
}

/* The API server store's answers to a status write, one at a time:
 * refused (403: ERR_DENIED), gone (ERR_NOTFOUND: nothing written), or
 * 0 (the directory store writes it). */
static enum err_code put_answer;
static int (*dir_put)(struct store *s, enum store_doc kind, const char *name,
                      const char *data, size_t len, struct err *e);

static int
api_server_put(struct store *s, enum store_doc kind, const char *name,
               const char *data, size_t len, struct err *e)
{
    if (put_answer == ERR_DENIED)
        return err_set(e, ERR_DENIED, "agentinvocations/status: forbidden");
    if (put_answer == ERR_NOTFOUND)
        return err_set(e, ERR_NOTFOUND, "\"%s\" is gone: nothing written",
                       name);
    return dir_put(s, kind, name, data, len, e);
}

/* /readyz "status-writes: refused" holds until a write is taken: a
 * write to an object that is gone (a delete meanwhile) wrote nothing
 * and does not clear it; a real write does (control). */
static void
test_a_write_to_a_gone_object_keeps_refused(void **state)
{
    struct fx *f = *state;
    const char *backend = f->c.store->backend;
    struct err e = { 0 };

    dir_put = f->ops.doc_put;
    f->ops.doc_put = api_server_put;
    f->c.store->ops = &f->ops;
    f->c.store->backend = "kube";
    put_answer = ERR_DENIED;
    inv_status_set_phase(f->inv, CTL_RUNNING);
    assert_int_equal(inv_status_flush(f->inv, &e), -1);
    assert_string_not_equal(f->c.state_error, "");
    put_answer = ERR_NOTFOUND;
    assert_int_equal(inv_status_flush(f->inv, &e), 0); /* nothing to do */
    assert_false(f->inv->rec.dirty);
    assert_string_not_equal(f->c.state_error, ""); /* still refused */
    put_answer = 0;
    inv_status_set_phase(f->inv, CTL_SUCCEEDED);
    assert_int_equal(inv_status_flush(f->inv, &e), 0);
    assert_string_equal(f->c.state_error, ""); /* taken: cleared */
    f->c.store->backend = backend;
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(
            test_a_request_waits_for_the_group_with_its_record, setup,
            teardown),
        cmocka_unit_test_setup_teardown(
            test_without_the_hold_the_request_outruns_its_record, setup,
            teardown),
        cmocka_unit_test_setup_teardown(
            test_a_failed_group_fails_the_next_pass_as_the_store, setup,
            teardown),
        cmocka_unit_test_setup_teardown(
            test_no_pass_while_its_status_is_in_flight, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_a_write_to_a_gone_object_keeps_refused, setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
