/* test_plan_step.c - the step planner (plan/plan_step.c) as a table: for a
 * record in each state, the one next step; and a walk that applies each
 * planned step's result to the record, which must end with the agent's
 * start (prepare) or with nothing left (cleanup) after exactly the steps
 * of the contract's order, from any point a killed controller could
 * resume at.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "plan_step.h"

#define BIT(r) (1u << (r))
/* a progress bit of the record (enum ctl_progress) */
#define DONE(p) (1u << (p))
#define ALL_PROXY                                                              \
    (DONE(CTL_PROG_PROXY_CONNECTED) | DONE(CTL_PROG_PROXY_STARTED))
#define VOLS                                                                   \
    (BIT(RC_ROLE_WORKSPACE) | BIT(RC_ROLE_GIT) | BIT(RC_ROLE_CONFIG) |         \
     BIT(RC_ROLE_SCRATCH))
#define BOX                                                                    \
    (BIT(RC_ROLE_NETWORK) | BIT(RC_ROLE_PROXY) | VOLS | BIT(RC_ROLE_KEEPER))
#define DESIRED_ALL (BOX | BIT(RC_ROLE_AGENT))

/* A prompt spec with a workspace and a .git: every object there is. */
static struct plan_view
fresh(void)
{
    struct plan_view v = { 0 };

    v.desired = DESIRED_ALL;
    v.has_workspace = true;
    v.has_uid = true;
    v.has_attempt = true;
    return v;
}

struct row {
    const char *what;
    struct plan_view v;
    enum plan_action want;
    enum rc_role role;
};

static void
check_rows(const struct row *rows, size_t n,
           struct plan_step (*next)(const struct plan_view *))
{
    for (size_t i = 0; i < n; i++) {
        struct plan_step s = next(&rows[i].v);

        if (s.action != rows[i].want ||
            (rows[i].role != 0 && s.role != rows[i].role))
            fail_msg("%s: planned %s(role %d), expected %s(role %d)",
                     rows[i].what, plan_action_name(s.action), (int)s.role,
                     plan_action_name(rows[i].want), (int)rows[i].role);
    }
}

static void
test_plan_prepare_next_step_per_record(void **state)
{
    struct plan_view v = fresh();
    struct row rows[32];
    size_t n = 0;

    (void)state;
#define ROW(w, a, r) rows[n++] = (struct row){ (w), v, (a), (r) }
    ROW("nothing yet: the egress network first", PLAN_CHECK_EGRESS, 0);
    v.egress_checked = true;
    ROW("the attempt's network", PLAN_FIND_NETWORK, RC_ROLE_NETWORK);
    v.recorded |= BIT(RC_ROLE_NETWORK);
    v.network_sweep = true;
    ROW("an ambiguous network name is swept first", PLAN_FIND_NETWORK,
        RC_ROLE_NETWORK);
    v.network_sweep = false;
    ROW("the proxy", PLAN_CREATE, RC_ROLE_PROXY);
    v.recorded |= BIT(RC_ROLE_PROXY);
    ROW("the proxy joins the egress network", PLAN_CONNECT_EGRESS,
        RC_ROLE_PROXY);
    v.progress |= DONE(CTL_PROG_PROXY_CONNECTED);
    ROW("the proxy starts", PLAN_START, RC_ROLE_PROXY);
    v.progress |= DONE(CTL_PROG_PROXY_STARTED);
    ROW("the workspace volume", PLAN_CREATE, RC_ROLE_WORKSPACE);
    v.recorded |= BIT(RC_ROLE_WORKSPACE);
    ROW("the git volume", PLAN_CREATE, RC_ROLE_GIT);
    v.recorded |= BIT(RC_ROLE_GIT) | BIT(RC_ROLE_CONFIG);
    ROW("the scratch volume", PLAN_CREATE, RC_ROLE_SCRATCH);
    v.recorded |= BIT(RC_ROLE_SCRATCH);
    ROW("the volumes' identity, before anything mounts them",
        PLAN_VERIFY_STORAGE, 0);
    v.storage_verified = true;
    ROW("the keeper", PLAN_CREATE, RC_ROLE_KEEPER);
    v.recorded |= BIT(RC_ROLE_KEEPER);
    ROW("the keeper starts", PLAN_START, RC_ROLE_KEEPER);
    v.progress |= DONE(CTL_PROG_KEEPER_STARTED);
    ROW("the workspace goes in", PLAN_UPLOAD_WORKSPACE, RC_ROLE_KEEPER);
    v.progress |= DONE(CTL_PROG_WORKSPACE_UPLOADED);
    ROW("the adapter's files go in", PLAN_UPLOAD_CONFIG, RC_ROLE_KEEPER);
    v.progress |= DONE(CTL_PROG_CONFIG_UPLOADED);
    ROW("the agent is created", PLAN_CREATE, RC_ROLE_AGENT);
    v.recorded |= BIT(RC_ROLE_AGENT);
    ROW("the probe is created", PLAN_PROBE_CREATE, 0);
    v.probe_recorded = true;
    ROW("the probe starts", PLAN_PROBE_START, 0);
    v.progress |= DONE(CTL_PROG_PROBE_STARTED);
    ROW("the probe's exit is awaited", PLAN_PROBE_WAIT, 0);
    v.probe_exited = true;
    ROW("the probe's verdict is read", PLAN_PROBE_READ, 0);
    v.progress |= DONE(CTL_PROG_BOUNDARY_VERIFIED);
    ROW("the exited probe stays until the start: the box is inspected",
        PLAN_REVALIDATE, 0);
    v.prestart_verified = true;
    ROW("then the agent starts", PLAN_START_AGENT, RC_ROLE_AGENT);
    v.probe_recorded = false;
    ROW("with the probe gone too", PLAN_START_AGENT, RC_ROLE_AGENT);
    /* a lost object is rebuilt before anything after it */
    v.recorded &= ~BIT(RC_ROLE_PROXY);
    ROW("a proxy no longer recorded is created again", PLAN_CREATE,
        RC_ROLE_PROXY);
#undef ROW
    check_rows(rows, n, plan_prepare_next);
}

static void
test_plan_prepare_skips_what_the_spec_does_not_have(void **state)
{
    struct plan_view v = fresh();
    struct plan_step s;

    (void)state;
    /* a command spec without workspace: no workspace, git or config */
    v.desired = BIT(RC_ROLE_NETWORK) | BIT(RC_ROLE_PROXY) |
                BIT(RC_ROLE_SCRATCH) | BIT(RC_ROLE_KEEPER) | BIT(RC_ROLE_AGENT);
    v.has_workspace = false;
    v.egress_checked = true;
    v.recorded = BIT(RC_ROLE_NETWORK) | BIT(RC_ROLE_PROXY);
    v.progress = ALL_PROXY;
    s = plan_prepare_next(&v);
    assert_int_equal(s.action, PLAN_CREATE);
    assert_int_equal(s.role, RC_ROLE_SCRATCH);
    v.recorded |= BIT(RC_ROLE_SCRATCH) | BIT(RC_ROLE_KEEPER);
    v.progress |= DONE(CTL_PROG_KEEPER_STARTED);
    s = plan_prepare_next(&v);
    assert_int_equal(s.action, PLAN_CREATE);
    assert_int_equal(s.role, RC_ROLE_AGENT);
}

/* Apply a planned prepare step's successful result to the view. */
static void
apply_prepare(struct plan_view *v, struct plan_step s)
{
    switch (s.action) {
    case PLAN_CHECK_EGRESS:
        v->egress_checked = true;
        break;
    case PLAN_FIND_NETWORK:
    case PLAN_CREATE:
        v->recorded |= BIT(s.role);
        v->network_sweep = false;
        break;
    case PLAN_CONNECT_EGRESS:
        v->progress |= s.role == RC_ROLE_GATEWAY
                           ? DONE(CTL_PROG_GATEWAY_CONNECTED)
                           : DONE(CTL_PROG_PROXY_CONNECTED);
        break;
    case PLAN_START:
        v->progress |= s.role == RC_ROLE_PROXY ? DONE(CTL_PROG_PROXY_STARTED)
                       : s.role == RC_ROLE_GATEWAY
                           ? DONE(CTL_PROG_GATEWAY_STARTED)
                           : DONE(CTL_PROG_KEEPER_STARTED);
        break;
    case PLAN_UPLOAD_KEY:
        v->progress |= DONE(CTL_PROG_KEY_UPLOADED);
        break;
    case PLAN_UPLOAD_WORKSPACE:
        v->progress |= DONE(CTL_PROG_WORKSPACE_UPLOADED);
        break;
    case PLAN_UPLOAD_CONFIG:
        v->progress |= DONE(CTL_PROG_CONFIG_UPLOADED);
        break;
    case PLAN_VERIFY_STORAGE:
        v->storage_verified = true;
        break;
    case PLAN_PROBE_CREATE:
        v->probe_recorded = true;
        break;
    case PLAN_PROBE_START:
        v->progress |= DONE(CTL_PROG_PROBE_STARTED);
        break;
    case PLAN_PROBE_WAIT:
        v->probe_exited = true;
        break;
    case PLAN_PROBE_READ:
        v->progress |= DONE(CTL_PROG_BOUNDARY_VERIFIED);
        break;
    case PLAN_PROBE_DISCARD:
        v->probe_recorded = false;
        break;
    case PLAN_REVALIDATE:
        v->prestart_verified = true;
        break;
    default:
        fail_msg("prepare planned %s", plan_action_name(s.action));
    }
}

static void
test_plan_prepare_walk_reaches_the_start_from_any_step(void **state)
{
    struct plan_view v = fresh();
    struct plan_view saved[32];
    int steps = 0;

    (void)state;
    /* the walk from nothing: 20 steps, then the start */
    for (;;) {
        struct plan_step s = plan_prepare_next(&v);

        if (s.action == PLAN_START_AGENT)
            break;
        assert_true(steps < 32);
        saved[steps++] = v;
        apply_prepare(&v, s);
    }
    assert_int_equal(steps, 20);
    /* resumed from each saved record (a controller killed after that
     * step's result was written), the same steps follow */
    for (int i = 0; i < steps; i++) {
        struct plan_view r = saved[i];
        int left = 0;

        while (plan_prepare_next(&r).action != PLAN_START_AGENT) {
            apply_prepare(&r, plan_prepare_next(&r));
            left++;
        }
        assert_int_equal(left, steps - i);
        assert_int_equal(r.recorded, v.recorded);
        assert_int_equal(r.progress, v.progress);
        /* the probe is removed after the start, off the path to it */
        assert_true(r.prestart_verified && r.probe_recorded);
    }
}

/* The storage lane: nothing before the network is recorded, then the
 * storage rungs and the agent's create in the ladder's order while the
 * proxy is still being made. */
static void
test_plan_prepare_storage_lane(void **state)
{
    struct plan_view v = fresh();
    struct plan_step s;
    int n = 0;

    (void)state;
    assert_int_equal(plan_prepare_storage(&v).action, PLAN_NONE);
    v.egress_checked = true;
    assert_int_equal(plan_prepare_storage(&v).action, PLAN_NONE);
    v.recorded = BIT(RC_ROLE_NETWORK);
    v.network_sweep = true;
    assert_int_equal(plan_prepare_storage(&v).action, PLAN_NONE);
    v.network_sweep = false;
    /* the proxy is not made yet: the ladder says proxy, the lane storage */
    assert_int_equal(plan_prepare_next(&v).role, RC_ROLE_PROXY);
    assert_int_equal(plan_prepare_main(&v).role, RC_ROLE_PROXY);
    s = plan_prepare_storage(&v);
    assert_int_equal(s.action, PLAN_CREATE);
    assert_int_equal(s.role, RC_ROLE_WORKSPACE);
    while ((s = plan_prepare_storage(&v)).action != PLAN_NONE) {
        apply_prepare(&v, s);
        assert_true(++n < 16);
    }
    /* four volumes, their check, the keeper's create and start, two
     * uploads, the agent */
    assert_int_equal(n, 10);
    assert_true((v.recorded & BIT(RC_ROLE_AGENT)) != 0);
    assert_int_equal(v.recorded & BIT(RC_ROLE_PROXY), 0);
    assert_int_equal(plan_prepare_main(&v).role, RC_ROLE_PROXY);
}

/* Both lanes from nothing, in every interleaving the test can make (the
 * storage lane k steps ahead, k = 0..12): never the same rung on both,
 * every rung taken once, and the same record as the ladder's walk at the
 * start; the main lane waits (PLAN_NONE) only for the storage lane. */
static void
test_plan_prepare_two_lanes_meet_at_the_start(void **state)
{
    struct plan_view ladder = fresh();
    int ladder_steps = 0;

    (void)state;
    while (plan_prepare_next(&ladder).action != PLAN_START_AGENT) {
        apply_prepare(&ladder, plan_prepare_next(&ladder));
        ladder_steps++;
    }
    for (int ahead = 0; ahead <= 12; ahead++) {
        struct plan_view v = fresh();
        int steps = 0, lead = 0;

        for (;;) {
            struct plan_step m = plan_prepare_main(&v);
            struct plan_step st = plan_prepare_storage(&v);

            if (m.action == PLAN_START_AGENT && st.action == PLAN_NONE)
                break;
            assert_true(steps < 64);
            assert_false(m.action != PLAN_NONE && m.action == st.action &&
                         m.role == st.role);
            if (st.action != PLAN_NONE &&
                (lead < ahead || m.action == PLAN_NONE)) {
                apply_prepare(&v, st);
                lead++;
            } else {
                assert_int_not_equal(m.action, PLAN_NONE);
                apply_prepare(&v, m);
            }
            steps++;
        }
        assert_int_equal(steps, ladder_steps);
        assert_int_equal(v.recorded, ladder.recorded);
        assert_int_equal(v.progress, ladder.progress);
        assert_true(v.prestart_verified);
    }
}

/* credentialMode gateway: the key goes in first on the storage lane, the
 * gateway is made after the proxy on the main lane and starts only once
 * its key is there, and the probe (which checks the gateway) waits for
 * it; in every interleaving the lanes meet at the start with the ladder's
 * record. At cleanup the gateway goes first. */
static void
test_plan_gateway_mode(void **state)
{
    struct plan_view ladder = fresh(), v;
    struct plan_step s;
    int ladder_steps = 0;

    (void)state;
    ladder.desired |= BIT(RC_ROLE_GATEWAY) | BIT(RC_ROLE_KEY);
    v = ladder;
    while ((s = plan_prepare_next(&ladder)).action != PLAN_START_AGENT) {
        apply_prepare(&ladder, s);
        assert_true(++ladder_steps < 64);
    }
    assert_int_equal(ladder_steps, 25);
    assert_true((ladder.progress & DONE(CTL_PROG_GATEWAY_STARTED)) != 0);
    /* the main lane: network and proxy, then a wait for the key volume
     * (the gateway's mount names it: created first, Docker would make a
     * plain disk volume of that name) */
    v.egress_checked = true;
    v.recorded = BIT(RC_ROLE_NETWORK) | BIT(RC_ROLE_PROXY);
    v.progress = ALL_PROXY;
    assert_int_equal(plan_prepare_main(&v).action, PLAN_NONE);
    s = plan_prepare_storage(&v);
    assert_int_equal(s.action, PLAN_CREATE);
    assert_int_equal(s.role, RC_ROLE_WORKSPACE);
    v.recorded |= BIT(RC_ROLE_WORKSPACE) | BIT(RC_ROLE_GIT) |
                  BIT(RC_ROLE_CONFIG) | BIT(RC_ROLE_KEY);
    s = plan_prepare_main(&v);
    assert_int_equal(s.action, PLAN_CREATE);
    assert_int_equal(s.role, RC_ROLE_GATEWAY);
    /* created and connected, it waits for the key */
    v.recorded |= BIT(RC_ROLE_GATEWAY);
    v.progress |= DONE(CTL_PROG_GATEWAY_CONNECTED);
    assert_int_equal(plan_prepare_main(&v).action, PLAN_NONE);
    v.recorded |= VOLS | BIT(RC_ROLE_KEY) | BIT(RC_ROLE_KEEPER);
    v.storage_verified = true;
    v.progress |= DONE(CTL_PROG_KEEPER_STARTED);
    s = plan_prepare_storage(&v);
    assert_int_equal(s.action, PLAN_UPLOAD_KEY); /* before the workspace */
    v.progress |= DONE(CTL_PROG_KEY_UPLOADED);
    s = plan_prepare_main(&v);
    assert_int_equal(s.action, PLAN_START);
    assert_int_equal(s.role, RC_ROLE_GATEWAY);
    v.progress |= DONE(CTL_PROG_GATEWAY_STARTED);
    assert_int_equal(plan_prepare_main(&v).action, PLAN_PROBE_CREATE);
    for (int ahead = 0; ahead <= 14; ahead++) {
        struct plan_view w = fresh();
        int steps = 0, lead = 0;

        w.desired |= BIT(RC_ROLE_GATEWAY) | BIT(RC_ROLE_KEY);
        for (;;) {
            struct plan_step m = plan_prepare_main(&w);
            struct plan_step st = plan_prepare_storage(&w);

            if (m.action == PLAN_START_AGENT && st.action == PLAN_NONE)
                break;
            assert_true(steps < 64);
            if (st.action != PLAN_NONE &&
                (lead < ahead || m.action == PLAN_NONE)) {
                apply_prepare(&w, st);
                lead++;
            } else {
                assert_int_not_equal(m.action, PLAN_NONE);
                apply_prepare(&w, m);
            }
            steps++;
        }
        assert_int_equal(steps, ladder_steps);
        assert_int_equal(w.recorded, ladder.recorded);
        assert_int_equal(w.progress, ladder.progress);
    }
    /* cleanup: the probe and the agent (no client left), the audit, then
     * the gateway before anything else */
    v = fresh();
    v.desired |= BIT(RC_ROLE_GATEWAY) | BIT(RC_ROLE_KEY);
    v.recorded = v.named = v.desired;
    v.terminal = true;
    s = plan_cleanup_next(&v);
    assert_int_equal(s.role, RC_ROLE_AGENT);
    v.recorded &= ~BIT(RC_ROLE_AGENT);
    assert_int_equal(plan_cleanup_next(&v).action, PLAN_READ_EGRESS);
    v.progress |= DONE(CTL_PROG_EGRESS_READ);
    s = plan_cleanup_next(&v);
    assert_int_equal(s.action, PLAN_REMOVE);
    assert_int_equal(s.role, RC_ROLE_GATEWAY);
    /* a repair (not terminal) reads no audit */
    v.terminal = false;
    v.progress &= ~DONE(CTL_PROG_EGRESS_READ);
    assert_int_equal(plan_cleanup_next(&v).role, RC_ROLE_GATEWAY);
}

static void
test_plan_cleanup_next_step_per_record(void **state)
{
    struct plan_view v = fresh();
    struct row rows[16];
    size_t n = 0;

    (void)state;
    v.recorded = DESIRED_ALL;
    v.named = DESIRED_ALL;
    v.probe_recorded = true;
    v.git_digest_before = true;
    v.changes_wanted = true;
    v.terminal = true;
#define ROW(w, a, r) rows[n++] = (struct row){ (w), v, (a), (r) }
    ROW("the probe first", PLAN_REMOVE_PROBE, 0);
    v.probe_recorded = false;
    ROW("then the agent", PLAN_REMOVE, RC_ROLE_AGENT);
    v.recorded &= ~BIT(RC_ROLE_AGENT);
    ROW("with no client left, the egress audit is kept", PLAN_READ_EGRESS, 0);
    v.progress |= DONE(CTL_PROG_EGRESS_READ);
    ROW("the git metadata is read back before the keeper goes", PLAN_READ_GIT,
        RC_ROLE_KEEPER);
    v.git_digest_after = true;
    ROW("and the agent's work, the change set", PLAN_READ_CHANGES,
        RC_ROLE_KEEPER);
    v.progress |= DONE(CTL_PROG_CHANGES_READ);
    ROW("then the keeper", PLAN_REMOVE, RC_ROLE_KEEPER);
    v.recorded &= ~BIT(RC_ROLE_KEEPER);
    ROW("then the proxy", PLAN_REMOVE, RC_ROLE_PROXY);
    v.recorded &= ~BIT(RC_ROLE_PROXY);
    ROW("containers never recorded are swept", PLAN_SWEEP_UNRECORDED, 0);
    v.unrecorded_swept = true;
    ROW("then the volumes", PLAN_REMOVE, RC_ROLE_WORKSPACE);
    v.recorded &= ~VOLS;
    ROW("a volume goes by its recorded name", PLAN_REMOVE, RC_ROLE_WORKSPACE);
    v.named &= ~VOLS;
    ROW("then the network", PLAN_REMOVE, RC_ROLE_NETWORK);
    v.recorded = 0;
    v.named = 0;
    ROW("then the mark", PLAN_MARK_CLEANED, 0);
    v.cleaned_up = true;
    ROW("then nothing", PLAN_NONE, 0);
    v.cleaned_up = false;
    v.terminal = false;
    ROW("a repair before the start is not marked cleaned", PLAN_NONE, 0);
    v.terminal = true;
    v.has_attempt = false;
    ROW("nor is an invocation that never captured", PLAN_NONE, 0);
#undef ROW
    check_rows(rows, n, plan_cleanup_next);
}

static void
test_plan_cleanup_reads_git_only_with_a_digest_before(void **state)
{
    struct plan_view v = fresh();
    struct plan_step s;

    (void)state;
    v.recorded = BIT(RC_ROLE_KEEPER);
    s = plan_cleanup_next(&v); /* no .git uploaded: nothing to compare */
    assert_int_equal(s.action, PLAN_REMOVE);
    assert_int_equal(s.role, RC_ROLE_KEEPER);
    v.git_digest_before = true;
    v.recorded |= BIT(RC_ROLE_AGENT);
    s = plan_cleanup_next(&v); /* never while the agent may still write */
    assert_int_equal(s.action, PLAN_REMOVE);
    assert_int_equal(s.role, RC_ROLE_AGENT);
}

static void
test_plan_cleanup_reads_changes_of_a_final_attempt_only(void **state)
{
    struct plan_view v = fresh();
    struct plan_step s;

    (void)state;
    v.recorded = BIT(RC_ROLE_KEEPER) | BIT(RC_ROLE_AGENT);
    v.changes_wanted = true;
    v.terminal = true;
    s = plan_cleanup_next(&v); /* never while the agent may still write */
    assert_int_equal(s.action, PLAN_REMOVE);
    assert_int_equal(s.role, RC_ROLE_AGENT);
    v.recorded = BIT(RC_ROLE_KEEPER);
    assert_int_equal(plan_cleanup_next(&v).action, PLAN_READ_CHANGES);
    v.terminal = false; /* a repair rebuilds the same attempt */
    assert_int_equal(plan_cleanup_next(&v).action, PLAN_REMOVE);
    v.terminal = true;
    v.changes_wanted = false; /* planning, or an agent that never started */
    assert_int_equal(plan_cleanup_next(&v).action, PLAN_REMOVE);
}

/* "Begun" (a build slot always, no warm box) counts the objects recorded
 * and the ladder's own progress only: a pre-start repair's cleanup drops
 * the network's and the proxy's roles and keeps their CREATED bits, and
 * the attempt then waits in line and may take a warm box as a new one. */
static void
test_plan_box_begun_by_the_ladder_only(void **state)
{
    struct plan_view v = fresh();

    (void)state;
    assert_false(plan_box_begun(&v));
    v.progress = DONE(CTL_PROG_NETWORK_CREATED) |
                 DONE(CTL_PROG_PROXY_CREATED) | DONE(CTL_PROG_AGENT_CREATED) |
                 DONE(CTL_PROG_KEEPER_CREATED) |
                 DONE(CTL_PROG_PROBE_CREATED) |
                 DONE(CTL_PROG_GATEWAY_CREATED) | DONE(CTL_PROG_AGENT_STARTED);
    assert_false(plan_box_begun(&v));
    /* control: a rung done, or an object recorded, is a box begun */
    for (int p = 0; p < CTL_PROG_COUNT; p++) {
        struct plan_view w = fresh();

        w.progress = DONE(p);
        assert_int_equal(plan_box_begun(&w), (v.progress & DONE(p)) == 0);
    }
    v.recorded = BIT(RC_ROLE_NETWORK);
    assert_true(plan_box_begun(&v));
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plan_prepare_next_step_per_record),
        cmocka_unit_test(test_plan_box_begun_by_the_ladder_only),
        cmocka_unit_test(
            test_plan_cleanup_reads_changes_of_a_final_attempt_only),
        cmocka_unit_test(test_plan_prepare_storage_lane),
        cmocka_unit_test(test_plan_prepare_two_lanes_meet_at_the_start),
        cmocka_unit_test(test_plan_prepare_skips_what_the_spec_does_not_have),
        cmocka_unit_test(
            test_plan_prepare_walk_reaches_the_start_from_any_step),
        cmocka_unit_test(test_plan_gateway_mode),
        cmocka_unit_test(test_plan_cleanup_next_step_per_record),
        cmocka_unit_test(test_plan_cleanup_reads_git_only_with_a_digest_before),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
