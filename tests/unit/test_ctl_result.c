/* test_ctl_result.c - the result interpreter (controller/try/try_result.c):
 * what each step result queues, the backoff it grows and resets, what an
 * unreachable daemon marks, and one pass end to end through the daemon's
 * own code: a spec the config refuses is reported (Admitted=False) and
 * queues no further pass - a pass that answered "done" there would spin
 * the loop on a spec nothing has changed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "ctl.h"
#include "pass_inv.h"
#include "inv_queue.h"
#include "ctl_record.h"
#include "try_result.h"
#include "loop_sync.h"

/* The test config caps deadlineSeconds at 60; this spec asks for more. */
static const char refused_yaml[] = "apiVersion: agentctl.dev/v1alpha1\n"
                                   "kind: AgentInvocation\n"
                                   "metadata: {name: refused}\n"
                                   "spec:\n"
                                   "  vendor: claude\n"
                                   "  phase: execute\n"
                                   "  image: agentctl/demo-agent:0\n"
                                   "  command: [sleep, \"1\"]\n"
                                   "  deadlineSeconds: 120\n";

static const char config_yaml[] = "limits: {maxDeadlineSeconds: 60}\n";

struct fx {
    char dir[64];
    struct ctl c;
    struct ctl_inv *inv;
};

static unsigned passes; /* passes the queue ran */

/* The queue's pass: the daemon's own, counted. */
static void
counted_pass(struct ctl_inv *inv)
{
    passes++;
    pass_inv_pass(inv);
}

static int
setup(void **state)
{
    struct fx *f = calloc(1, sizeof(*f));
    char specs[96], path[128];
    struct spec_errors es;
    struct err e = { 0 };
    FILE *fp;

    assert_non_null(f);
    snprintf(f->dir, sizeof(f->dir), "/tmp/ctlresult.XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    snprintf(specs, sizeof(specs), "%s/specs", f->dir);
    assert_int_equal(mkdir(specs, 0700), 0);
    snprintf(path, sizeof(path), "%s/refused.yaml", specs);
    fp = fopen(path, "w");
    assert_non_null(fp);
    assert_true(fputs(refused_yaml, fp) >= 0);
    assert_int_equal(fclose(fp), 0);

    f->c.loop = ev_loop_new(EVFLAG_AUTO);
    snprintf(f->c.opts.controller_id, sizeof(f->c.opts.controller_id),
             "test-result");
    f->c.store = store_dir_open(specs, NULL, &e);
    assert_non_null(f->c.store);
    f->c.cfg = cfg_parse("test", config_yaml, strlen(config_yaml), &es);
    assert_non_null(f->c.cfg);
    f->c.docker_up = true;
    inv_queue_init(&f->c, counted_pass);
    passes = 0;
    loop_sync_all(&f->c);
    f->inv = inv_find(&f->c, "refused");
    assert_non_null(f->inv);
    *state = f;
    return 0;
}

static int
teardown(void **state)
{
    struct fx *f = *state;
    char cmd[128];

    while (f->c.invs != NULL)
        pass_inv_forget(f->c.invs);
    cfg_free(f->c.cfg);
    store_close(f->c.store);
    ev_loop_destroy(f->c.loop);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
    assert_int_equal(system(cmd), 0);
    free(f);
    return 0;
}

/* Seconds until the queued pass, or -1 when none is queued. */
static double
queued_in(const struct fx *f)
{
    if (!ev_is_active(&f->inv->queue.kick))
        return -1;
    return ev_timer_remaining(f->c.loop, &f->inv->queue.kick);
}

static void
unqueue(struct fx *f)
{
    ev_timer_stop(f->c.loop, &f->inv->queue.kick);
}

static void
test_done_passes_again_now(void **state)
{
    struct fx *f = *state;

    unqueue(f);
    f->inv->queue.failures = 3;
    try_inv_settle(f->inv, CTL_STEP_DONE);
    assert_true(queued_in(f) >= 0 && queued_in(f) < 0.05);
    assert_int_equal(f->inv->queue.failures, 0);
}

static void
test_failed_backs_off_and_caps(void **state)
{
    struct fx *f = *state;
    struct err e;
    const double want[] = { 0.1, 0.2, 0.4, 0.8 };

    err_set(&e, ERR_REMOTE, "Docker said no");
    unqueue(f);
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        try_inv_settle(f->inv, try_step_failed(f->inv, &e));
        assert_true(queued_in(f) > want[i] - 0.05 &&
                    queued_in(f) <= want[i] + 0.001);
        assert_int_equal(f->inv->queue.failures, i + 1);
    }
    assert_non_null(f->inv->step_err);
    assert_string_equal(f->inv->step_err->msg, "Docker said no");
    f->inv->queue.failures = 20;
    try_inv_settle(f->inv, try_step_failed(f->inv, &e));
    assert_true(queued_in(f) > CTL_BACKOFF_MAX - 0.05 &&
                queued_in(f) <= CTL_BACKOFF_MAX + 0.001);
    /* a success in between starts the backoff over */
    try_inv_settle(f->inv, CTL_STEP_DONE);
    assert_null(f->inv->step_err); /* held only while steps fail */
    try_inv_settle(f->inv, try_step_failed(f->inv, &e));
    assert_true(queued_in(f) > 0.05 && queued_in(f) <= 0.101);
}

static void
test_started_and_none_queue_nothing(void **state)
{
    struct fx *f = *state;

    unqueue(f);
    try_inv_settle(f->inv, CTL_STEP_STARTED);
    assert_true(queued_in(f) < 0);
    try_inv_settle(f->inv, CTL_STEP_NONE);
    assert_true(queued_in(f) < 0);
    /* an earlier kick is never postponed by a later, longer one */
    inv_kick(f->inv, 0);
    inv_kick(f->inv, 10);
    assert_true(queued_in(f) < 0.05);
}

/* A pass asked for while a request is in flight is turned away; the
 * answer runs it even when the answer itself settles "none" (the test
 * above is the control: "none" alone queues nothing). Without this, a
 * controller with --once found such an invocation idle and exited. */
static void
test_a_pass_turned_away_runs_after_the_answer(void **state)
{
    struct fx *f = *state;
    unsigned before = passes;

    unqueue(f);
    f->inv->lanes[CTL_LANE_MAIN].call = (struct dk_req *)f; /* in flight */
    pass_inv_pass(f->inv);
    assert_int_equal(passes, before); /* counted_pass not reached: no run */
    assert_true(queued_in(f) < 0);
    try_inv_settle(f->inv, CTL_STEP_STARTED); /* the next request: waits */
    assert_true(queued_in(f) < 0);
    f->inv->lanes[CTL_LANE_MAIN].call = NULL; /* its answer: */
    try_inv_settle(f->inv, CTL_STEP_NONE);
    assert_true(queued_in(f) >= 0 && queued_in(f) < 0.05);
    assert_false(f->inv->queue.pass_asked);
}

/* A running invocation's step fails with e, as an answer settles it. */
static void
fail_while_running(struct fx *f, const struct err *e)
{
    f->inv->rec.present = true;
    f->inv->rec.phase = CTL_RUNNING;
    try_inv_settle(f->inv, try_step_failed(f->inv, e));
}

static void
test_unreachable_daemon_is_noted(void **state)
{
    struct fx *f = *state;
    struct err e;

    err_set(&e, ERR_UNAVAIL, "connect: no such file");
    e.peer = ERR_PEER_DOCKER; /* as the Docker client says it */
    fail_while_running(f, &e);
    assert_true(f->inv->run.daemon_lost);
    assert_false(f->c.docker_up);
    assert_string_equal(f->c.docker_error, "connect: no such file");
    f->inv->rec.phase = CTL_PENDING;
}

/* The same error from another peer (etcd: the store's client names none)
 * leaves Docker up and a running agent watched: an etcd outage is not a
 * reason to call the agent lost. The test above is its control. */
static void
test_unreachable_store_is_not_docker(void **state)
{
    struct fx *f = *state;
    struct err e;

    err_set(&e, ERR_UNAVAIL, "etcd http://127.0.0.1:1: connection refused");
    fail_while_running(f, &e);
    assert_false(f->inv->run.daemon_lost);
    assert_true(f->c.docker_up);
    assert_string_equal(f->c.docker_error, "");
    f->inv->rec.phase = CTL_PENDING;
}

static void
test_refused_spec_waits(void **state)
{
    struct fx *f = *state;
    const struct ctl_record_cond *admitted;

    assert_true(queued_in(f) >= 0); /* the listing queued a pass */
    for (int i = 0; i < 5; i++)
        ev_run(f->c.loop, EVRUN_NOWAIT);
    assert_int_equal(passes, 1);
    admitted = ctl_record_condition(&f->inv->rec, "Admitted");
    assert_non_null(admitted);
    assert_false(admitted->status);
    assert_string_equal(admitted->reason, "NotAdmitted");
    assert_non_null(strstr(admitted->message, "deadlineSeconds"));
    assert_int_equal(f->inv->rec.phase, CTL_PENDING);
    assert_true(queued_in(f) < 0);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_done_passes_again_now, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_failed_backs_off_and_caps, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_started_and_none_queue_nothing,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_a_pass_turned_away_runs_after_the_answer, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unreachable_daemon_is_noted, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_unreachable_store_is_not_docker,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_refused_spec_waits, setup,
                                        teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
