/* pass_prepare.h - bringing an attempt's objects up (pass_prepare.c). */
#ifndef PASS_PREPARE_H
#define PASS_PREPARE_H

#include "ctl.h"

/* One step of the preparation ladder; CTL_STEP_NONE when every object
 * exists and the agent is started. */
enum ctl_step pass_prepare_step(struct ctl_inv *inv);

/* While the main lane's request is in flight: the storage's next step on
 * its own lane, if one is due and the lane is free. */
enum ctl_step pass_prepare_storage_step(struct ctl_inv *inv);

#endif
