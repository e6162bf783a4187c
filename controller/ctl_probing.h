/* ctl_probing.h - the one reset of an attempt's probe and canary state
 * (ctl_probing.c). */
#ifndef CTL_PROBING_H
#define CTL_PROBING_H

#include "ctl.h"

/* Start inv->probe (struct ctl_probing) over: a new attempt, a claim, a
 * rebuild. The canary's timer is stopped (ctl_canary_init() set it up);
 * everything else is cleared. */
void ctl_probing_reset(struct ctl_inv *inv);

#endif
