/* test_ctl_build.c - build slots (controller/try/try_build.c): at most
 * --max-building boxes are built at once, the slots go to the invocations
 * in the order they asked, a box already begun always gets one, and a
 * slot let go runs the pass of the first in line (only the first: the
 * others would be turned away); a failing step gives its slot up until
 * its retry, and a workspace upload while it is in flight. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "ctl.h"
#include "try_build.h"
#include "inv_queue.h"

enum { N_INVS = 5 };

struct fx {
    struct ctl c;
    struct ctl_inv *inv[N_INVS]; /* a, b, c, d, e */
};

static void
no_pass(struct ctl_inv *inv)
{
    (void)inv;
}

static int
setup(void **state)
{
    struct fx *f = calloc(1, sizeof(*f));

    assert_non_null(f);
    f->c.loop = ev_loop_new(EVFLAG_AUTO);
    f->c.opts.max_building = 2;
    inv_queue_init(&f->c, no_pass);
    for (int i = 0; i < N_INVS; i++) {
        f->inv[i] = calloc(1, sizeof(*f->inv[i]));
        assert_non_null(f->inv[i]);
        snprintf(f->inv[i]->name, sizeof(f->inv[i]->name), "%c", 'a' + i);
        inv_link(&f->c, f->inv[i]);
    }
    *state = f;
    return 0;
}

static int
teardown(void **state)
{
    struct fx *f = *state;

    for (int i = 0; i < N_INVS; i++) {
        try_build_release(f->inv[i]);
        ev_timer_stop(f->c.loop, &f->inv[i]->queue.kick);
        free(f->inv[i]);
    }
    assert_int_equal(f->c.building, 0);
    assert_int_equal(f->c.build_waiters, 0);
    free(f->c.by_name);
    ev_loop_destroy(f->c.loop);
    free(f);
    return 0;
}

static bool
kicked(const struct ctl_inv *inv)
{
    return ev_is_active(&inv->queue.kick);
}

/* a and b take the two slots, the next `waiting` (c, then d) line up. */
static void
two_build(struct fx *f, int waiting)
{
    assert_true(try_build_admit(f->inv[0], false));
    assert_true(try_build_admit(f->inv[1], false));
    for (int i = 2; i < 2 + waiting; i++)
        assert_false(try_build_admit(f->inv[i], false));
    assert_int_equal(f->c.building, 2);
    assert_int_equal(f->c.build_waiters, waiting);
}

static void
test_slots_go_in_the_order_asked(void **state)
{
    struct fx *f = *state;
    struct ctl_inv **v = f->inv;

    two_build(f, 1);
    assert_false(try_build_admit(v[2], false)); /* asking again: one place */
    assert_false(try_build_admit(v[3], false));
    assert_int_equal(f->c.build_waiters, 2);

    try_build_release(v[0]);
    assert_true(kicked(v[2]));  /* the first in line runs ... */
    assert_false(kicked(v[3])); /* ... and only it: one slot is free */
    /* d's pass comes first anyway: the slot is still c's */
    assert_false(try_build_admit(v[3], false));
    assert_true(try_build_admit(v[2], false));
    assert_int_equal(f->c.build_waiters, 1);

    try_build_release(v[1]);
    assert_true(kicked(v[3]));
    assert_true(try_build_admit(v[3], false));
    assert_true(try_build_admit(v[3], false)); /* held: asking is free */
    assert_int_equal(f->c.building, 2);
    assert_int_equal(f->c.build_waiters, 0);
}

static void
test_a_begun_box_always_gets_a_slot(void **state)
{
    struct fx *f = *state;
    struct ctl_inv **v = f->inv;

    two_build(f, 1);
    /* a restart found e's network recorded: it is finished first */
    assert_true(try_build_admit(v[4], true));
    assert_int_equal(f->c.building, 3);
    /* two let go: one slot is free again, c's */
    try_build_release(v[0]);
    assert_false(kicked(v[2]));
    try_build_release(v[1]);
    assert_true(kicked(v[2]));
    assert_true(try_build_admit(v[2], false));
}

static void
test_a_failing_step_gives_its_slot_up(void **state)
{
    struct fx *f = *state;
    struct ctl_inv **v = f->inv;

    two_build(f, 2);
    try_build_yield(v[0]); /* a's step failed: backoff */
    assert_true(kicked(v[2]));
    assert_true(try_build_admit(v[2], false));
    /* a's retry: its box is begun, so it goes on, over the cap */
    assert_true(try_build_admit(v[0], true));
    assert_int_equal(f->c.building, 3);
    try_build_yield(v[1]); /* b's step fails too: c and a hold two */
    assert_false(kicked(v[3]));
    try_build_yield(v[0]);
    assert_true(kicked(v[3])); /* one free now, d's */
    /* b had nothing yet: its retry lines up behind d */
    assert_false(try_build_admit(v[1], false));
    assert_true(try_build_admit(v[3], false));
    assert_false(try_build_admit(v[1], false)); /* c and d build */
    assert_int_equal(f->c.build_waiters, 1);
}

static void
test_an_upload_in_flight_holds_no_slot(void **state)
{
    struct fx *f = *state;
    struct ctl_inv **v = f->inv;

    two_build(f, 2);
    try_build_uploading(v[0], true); /* a's workspace streams */
    assert_int_equal(f->c.building, 1);
    assert_true(kicked(v[2])); /* its slot is c's at once */
    assert_true(try_build_admit(v[2], false));
    /* a's other steps go on meanwhile, without a slot */
    assert_true(try_build_admit(v[0], true));
    assert_int_equal(f->c.building, 2);
    try_build_uploading(v[1], true);
    assert_true(kicked(v[3]));
    assert_true(try_build_admit(v[3], false));
    assert_int_equal(f->c.build_waiters, 0);
    /* a's upload answered: its next step takes a slot, over the cap */
    try_build_uploading(v[0], false);
    assert_true(try_build_admit(v[0], true));
    assert_int_equal(f->c.building, 3);
    try_build_release(v[1]); /* b stopped mid-upload: nothing to give */
    assert_int_equal(f->c.building, 3);
    assert_false(v[1]->build.state == CTL_BUILD_UPLOADING);
}

static void
test_leaving_the_line_and_no_cap(void **state)
{
    struct fx *f = *state;
    struct ctl_inv **v = f->inv;

    two_build(f, 2);
    try_build_release(v[2]); /* deleted while it waited */
    assert_int_equal(f->c.build_waiters, 1);
    try_build_release(v[0]);
    assert_true(kicked(v[3])); /* d is first now */
    assert_true(try_build_admit(v[3], false));

    f->c.opts.max_building = 0; /* no cap: nobody waits */
    assert_true(try_build_admit(v[2], false));
    assert_true(try_build_admit(v[4], false));
    assert_int_equal(f->c.building, 4);
    assert_int_equal(f->c.build_waiters, 0);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_slots_go_in_the_order_asked, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_a_begun_box_always_gets_a_slot,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_failing_step_gives_its_slot_up,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_an_upload_in_flight_holds_no_slot,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_leaving_the_line_and_no_cap, setup,
                                        teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
