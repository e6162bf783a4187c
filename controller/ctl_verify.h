/* ctl_verify.h - the revalidation round (ctl_verify.c). */
#ifndef CTL_VERIFY_H
#define CTL_VERIFY_H

#include "ctl.h"

/* One inspect of the round; CTL_STEP_NONE when the round is complete
 * (or none is due). */
enum ctl_step ctl_verify_step(struct ctl_inv *inv);

#endif
