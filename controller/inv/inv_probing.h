/* inv_probing.h - the one reset of an attempt's probe and canary state
 * (inv_probing.c). */
#ifndef INV_PROBING_H
#define INV_PROBING_H

#include "ctl.h"

/* Start inv->probe (struct ctl_probing) over: a new attempt, a claim, a
 * rebuild. The canary's timer is stopped (box_canary_init() set it up);
 * everything else is cleared. */
void inv_probing_reset(struct ctl_inv *inv);

#endif
