/* inv_probing.c - the probe and canary state of an attempt (struct
 * ctl_probing in ctl.h, inv->probe): its one reset. A module of its own,
 * below the probe runner (box_probe.c) and the canary (box_canary.c), so
 * that the attempt's reset (try_attempt.c) reaches it without climbing
 * back up through the steps. */
#include "inv_probing.h"

void
inv_probing_reset(struct ctl_inv *inv)
{
    ev_timer_stop(inv->ctl->loop, &inv->probe.canary);
    inv->probe.exit = 0;
    inv->probe.exited = false;
    inv->probe.silent = 0;
    inv->probe.canary_due = false;
    inv->probe.canary_stage = CTL_CANARY_IDLE;
    inv->probe.canary_passed = 0;
    inv->probe.canary_silent = 0;
    inv->probe.canary_first[0] = '\0';
}
