/* ctl_prepare.h - bringing an attempt's objects up (ctl_prepare.c). */
#ifndef CTL_PREPARE_H
#define CTL_PREPARE_H

#include "ctl.h"

/* One step of the preparation ladder; CTL_STEP_NONE when every object
 * exists and the agent is started. */
enum ctl_step ctl_prepare_step(struct ctl_inv *inv);

#endif
