/* ctl_build.c - build slots, handed out first in first out (ctl_build.h). */
#include "ctl_build.h"

#include <limits.h>

#include "ctl_queue.h"
#include "ctl_testhooks.h"

static void
line_up(struct ctl_inv *inv)
{
    struct ctl *c = inv->ctl;

    inv->build_waiting = true;
    inv->build_next = NULL;
    c->build_waiters++;
    if (c->build_last != NULL)
        c->build_last->build_next = inv;
    else
        c->build_line = inv;
    c->build_last = inv;
}

static void
leave_line(struct ctl_inv *inv)
{
    struct ctl *c = inv->ctl;
    struct ctl_inv *prev = NULL;

    for (struct ctl_inv *i = c->build_line; i != NULL; i = i->build_next) {
        if (i != inv) {
            prev = i;
            continue;
        }
        if (prev != NULL)
            prev->build_next = i->build_next;
        else
            c->build_line = i->build_next;
        if (c->build_last == i)
            c->build_last = prev;
        c->build_waiters--;
        break;
    }
    inv->build_waiting = false;
    inv->build_next = NULL;
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
         i = i->build_next, n--)
        if (i == inv)
            return true;
    return false;
}

bool
ctl_build_admit(struct ctl_inv *inv, bool begun)
{
    struct ctl *c = inv->ctl;

    if (inv->build_slot || inv->build_uploading)
        return true; /* an uploading box is begun: its other steps go on */
    if (!begun) {
        /* first come, first served: a free slot is the first waiter's */
        if (!inv->build_waiting)
            line_up(inv);
        if (!in_front(c, inv, slots_free(c)))
            return false;
    }
    if (inv->build_waiting)
        leave_line(inv);
    inv->build_slot = true;
    c->building++;
    return true;
}

void
ctl_build_yield(struct ctl_inv *inv)
{
    struct ctl *c = inv->ctl;
    unsigned n;

    if (!inv->build_slot)
        return;
    inv->build_slot = false;
    c->building--;
    /* the waiters a slot is now free for: their passes take them */
    n = slots_free(c);
    for (struct ctl_inv *i = c->build_line; i != NULL && n > 0;
         i = i->build_next, n--)
        ctl_inv_kick(i, 0);
}

void
ctl_build_uploading(struct ctl_inv *inv, bool on)
{
    if (!on || ctl_test_disabled("upload-slot")) {
        inv->build_uploading = false;
        return;
    }
    inv->build_uploading = true;
    ctl_build_yield(inv);
}

void
ctl_build_release(struct ctl_inv *inv)
{
    inv->build_uploading = false;
    if (inv->build_waiting)
        leave_line(inv);
    ctl_build_yield(inv);
}
