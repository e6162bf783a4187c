/* try_build.c - build slots, handed out first in first out (try_build.h). */
#include "try_build.h"

#include <limits.h>

#include "inv_queue.h"
#include "ctl_testhooks.h"

static void
line_up(struct ctl_inv *inv)
{
    struct ctl *c = inv->ctl;

    inv->build.state = CTL_BUILD_WAITING;
    inv->build.next = NULL;
    c->build_waiters++;
    if (c->build_last != NULL)
        c->build_last->build.next = inv;
    else
        c->build_line = inv;
    c->build_last = inv;
}

static void
leave_line(struct ctl_inv *inv)
{
    struct ctl *c = inv->ctl;
    struct ctl_inv *prev = NULL;

    for (struct ctl_inv *i = c->build_line; i != NULL; i = i->build.next) {
        if (i != inv) {
            prev = i;
            continue;
        }
        if (prev != NULL)
            prev->build.next = i->build.next;
        else
            c->build_line = i->build.next;
        if (c->build_last == i)
            c->build_last = prev;
        c->build_waiters--;
        break;
    }
    inv->build.state = CTL_BUILD_NONE;
    inv->build.next = NULL;
}

/* Slots free now; UINT_MAX without a limit. */
static unsigned
slots_free(const struct ctl *c)
{
    if (c->opts.max_building == 0)
        return UINT_MAX;
    return c->building < c->opts.max_building
               ? c->opts.max_building - c->building
               : 0;
}

/* Whether inv is among the first n in line. */
static bool
in_front(const struct ctl *c, const struct ctl_inv *inv, unsigned n)
{
    for (const struct ctl_inv *i = c->build_line; i != NULL && n > 0;
         i = i->build.next, n--)
        if (i == inv)
            return true;
    return false;
}

bool
try_build_admit(struct ctl_inv *inv, bool begun)
{
    struct ctl *c = inv->ctl;

    if (inv->build.state == CTL_BUILD_SLOT ||
        inv->build.state == CTL_BUILD_UPLOADING)
        return true; /* an uploading box is begun: its other steps go on */
    if (!begun) {
        /* first come, first served: a free slot is the first waiter's */
        if (inv->build.state != CTL_BUILD_WAITING)
            line_up(inv);
        if (!in_front(c, inv, slots_free(c)))
            return false;
    }
    if (inv->build.state == CTL_BUILD_WAITING)
        leave_line(inv);
    inv->build.state = CTL_BUILD_SLOT;
    c->building++;
    return true;
}

void
try_build_yield(struct ctl_inv *inv)
{
    struct ctl *c = inv->ctl;
    unsigned n;

    if (inv->build.state != CTL_BUILD_SLOT)
        return;
    inv->build.state = CTL_BUILD_NONE;
    c->building--;
    /* the waiters a slot is now free for: their passes take them */
    n = slots_free(c);
    for (struct ctl_inv *i = c->build_line; i != NULL && n > 0;
         i = i->build.next, n--)
        inv_kick(i, 0);
}

void
try_build_uploading(struct ctl_inv *inv, bool on)
{
    if (!on || ctl_test_disabled("upload-slot")) {
        if (inv->build.state == CTL_BUILD_UPLOADING)
            inv->build.state = CTL_BUILD_NONE;
        return;
    }
    if (inv->build.state == CTL_BUILD_WAITING)
        leave_line(inv); /* (not reached: a box that uploads was admitted) */
    try_build_yield(inv);
    inv->build.state = CTL_BUILD_UPLOADING;
}

void
try_build_release(struct ctl_inv *inv)
{
    if (inv->build.state == CTL_BUILD_UPLOADING)
        inv->build.state = CTL_BUILD_NONE;
    if (inv->build.state == CTL_BUILD_WAITING)
        leave_line(inv);
    try_build_yield(inv);
}
